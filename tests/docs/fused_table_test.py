#!/usr/bin/python3
"""The "Fused vs unfused" section of docs/performance.md cannot rot: scripts/fused_table.py's
rendering is checked on fixed numbers (the published figures' form: +129% / -58% / -44%), its
page splice on a scratch page, and, given --build, a --dry run of the real binaries (bench_attention
and fused_model on small shapes) must render a complete, self-consistent table.

  fused_table_test.py [--build BUILD_DIR]
"""
import argparse
import importlib.util
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "fused_table.py"


def load_script():
    spec = importlib.util.spec_from_file_location("fused_table", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(cond, what):
    if not cond:
        print("FAIL: " + what, file=sys.stderr)
        sys.exit(1)


def ratio_cells(section):
    """Returns [(case, where, throughput, latency, memory)] of the section's summary table."""
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 7 and re.fullmatch(r"[+\u2212]\d+%", cells[4]):
            rows.append((cells[0], cells[1], cells[4], cells[5], cells[6]))
    return rows


def value(cell):
    return (-1 if cell.startswith("\u2212") else 1) * int(cell[1:-1]) / 100


def test_render(mod):
    # The published figures: throughput +129%, latency -56% follows from it; memory -44%.
    host = {mod.ATTENTION_SMALL: {"fused_s": 1.0, "unfused_s": 2.29, "fused_peak": 56 << 20,
                                  "unfused_peak": 100 << 20}}
    model = {("attention", "fp16", mod.ATTENTION_SMALL, "fused"):
             {"modeled_us": 42.0, "peak_bytes": 1 << 20, "note": ""},
             ("attention", "fp16", mod.ATTENTION_SMALL, "unfused"):
             {"op": "attention", "shape": mod.ATTENTION_SMALL, "scale": 8,
              "modeled_us": 100.0, "peak_bytes": 4 << 20, "note": "modeled on b1, x8"}}
    meta = {"chip": "ascend910b1", "date": "d", "wall_s": 1, "machine": "m", "cpus": 2,
            "load_start": "0", "load_end": "0", "command": "cmd"}
    section = mod.render(host, None, model, "| model | table |", meta, True)
    check(section.startswith(mod.BEGIN) and section.rstrip().endswith(mod.END), "markers")
    rows = ratio_cells(section)
    check(len(rows) == 2, f"2 rows rendered, got {rows}")
    check(rows[0][1] == "host" and rows[0][2:] == ("+129%", "\u221256%", "\u221244%"),
          f"host row in the published form: {rows[0]}")
    check(rows[1][1] == "ascend910b1 model" and rows[1][2:] == ("+138%", "\u221258%", "\u221275%"),
          f"model row: {rows[1]}")
    check(f"Scaled rows (attention {mod.ATTENTION_SMALL} x8)" in section.replace("\n", " "),
          "the model's scaling is stated")
    check("| model | table |" in section and "    cmd" in section, "model table and command")
    return section


def test_splice(mod, section):
    with tempfile.TemporaryDirectory() as tmp:
        doc = pathlib.Path(tmp) / "performance.md"
        doc.write_text("# Performance\n\n## Operators\n\ntext\n\n## Tools\n\ntools\n")
        mod.write_section(doc, section)
        once = doc.read_text()
        check(once.index(mod.HEADING) < once.index("## Tools") and "text\n" in once and
              "tools\n" in once, "section inserted before ## Tools")
        mod.write_section(doc, section.replace("+129%", "+130%"))
        twice = doc.read_text()
        check(twice.count(mod.BEGIN) == 1 and "+130%" in twice and "+129%" not in twice and
              twice.count(mod.HEADING) == 1, "a second run replaces the section in place")


def test_dry(build):
    out = subprocess.run([sys.executable, str(SCRIPT), "--build", build, "--dry"],
                         stdout=subprocess.PIPE, text=True, check=True, timeout=300).stdout
    rows = ratio_cells(out)
    wheres = {(r[0], r[1]) for r in rows}
    for case, where in (("attention fp32 b1h8_s512_d64", "host"),
                        ("attention fp32 b1h8_s512_d64", "ascend910b1 model"),
                        ("attention fp16 b1h8_s512_d64", "ascend910b1 model"),
                        ("matmul+bias+gelu+residual fp16 256x256x256", "ascend910b1 model")):
        check((case, where) in wheres, f"dry run renders {case} / {where}: {sorted(wheres)}")
    for case, where, thr, lat, _ in rows:
        # (1 + throughput) (1 + latency) = 1, up to the rounding of both to 1%.
        product = (1 + value(thr)) * (1 + value(lat))
        check(abs(product - 1) < 0.02 * (1 + value(thr)), f"{case} {where}: {thr} vs {lat}")
    check("| aic_mac |" in out, "fused_model's detail table")
    check("failed" not in out, "no failed case")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", help="a build with bench_attention and fused_model")
    args = p.parse_args()
    mod = load_script()
    section = test_render(mod)
    test_splice(mod, section)
    if args.build:
        test_dry(args.build)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
