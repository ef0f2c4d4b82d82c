#!/usr/bin/python3
"""Measures fused against unfused operators and writes the "Fused vs unfused" section of
docs/performance.md.

Usage: scripts/fused_table.py [--build build/bench-release] [--doc docs/performance.md] [--dry]

Runs, from the build's benchmarks/ directory:
  - bench_attention (host, 1 worker thread): the fused flash attention and the unfused
    composition (matmul -> muls -> softmax -> matmul through GM) at the transformer-sized case
    b8h16_s2048_d128 and the small latency-bound b1h8_s512_d64, fp32, non-causal; CPU time and
    the device allocator's peak bytes of each;
  - bench_matmul_epilogue (host, 1 worker thread): gelu_erf(a @ b + bias) + residual, fp32
    4096^3, the fused mix kernel against Matmul -> Add -> GeluV2 -> Add;
  - fused_model (modeled on ascend910b1): the same cases in fp32 and fp16 (the epilogue in fp16
    and fp32), modeled kernel time summed over the launches, pipe ratios and peak device bytes.
The matmul epilogue bench reports no peak bytes, so its host memory column is fused_model's fp32
row: the same C++ calls on the same allocator.

Each case's figures are in the form of the published ones ("+129% throughput / -58% latency /
-44% memory"): throughput = unfused time / fused time - 1, latency = fused time / unfused time - 1,
memory = fused peak / unfused peak - 1, whatever they are.

--dry: small shapes only (fused_model --small, bench_attention's small case, no matmul epilogue
on the host), the section printed to stdout and docs/performance.md left alone (the docs test).
"""
import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
import tempfile
import textwrap
import time

BEGIN = "<!-- scripts/fused_table.py: begin (generated, do not edit by hand) -->"
END = "<!-- scripts/fused_table.py: end -->"
HEADING = "## Fused vs unfused (issue 12)"

ATTENTION_BIG = "b8h16_s2048_d128"
ATTENTION_SMALL = "b1h8_s512_d64"
EPILOGUE_HOST = "4096x4096x4096"
MINUS = "\u2212"


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return [float(v) for v in f.read().split()[:3]]
    except OSError:
        return None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run_bench(path, bench_filter, env):
    """Runs a Google Benchmark binary; returns {run_name: entry} (medians of repetitions)."""
    cmd = [path, "--benchmark_format=json", "--benchmark_filter=" + bench_filter]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    out = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, text=True, check=True).stdout
    rows = {}
    for b in json.loads(out).get("benchmarks", []):
        if b.get("error_occurred"):
            raise RuntimeError(f"{b.get('name')}: {b.get('error_message')}")
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        name = "/".join(p for p in b["run_name"].split("/")
                        if not p.startswith(("repeats:", "iterations:", "min_time:")) and
                        p not in ("process_time", "real_time"))
        rows[name] = b
    return rows


def seconds(entry, key="cpu_time"):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[entry.get("time_unit", "ns")]
    return entry[key] * scale


def counter(entry, name):
    return entry.get(name, entry.get("counters", {}).get(name))


def pct(ratio):
    """ratio - 1 as the published figures write it: +129%, -58% (a true minus sign)."""
    v = (ratio - 1) * 100
    return ("+" if v >= 0 else MINUS) + f"{abs(v):.0f}%"


def mib(b):
    return f"{b / 2**20:,.0f} MiB" if b >= 2**20 else f"{b / 2**10:.0f} KiB"


def fmt_time(s):
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.1f} ms"
    return f"{s * 1e6:.1f} us"


def attention_flops(shape):
    b, n, s, d = (int(x) for x in shape.replace("b", "").replace("h", " ").replace("_s", " ")
                  .replace("_d", " ").split())
    return 4.0 * b * n * s * s * d


def epilogue_flops(shape):
    m, n, k = (int(x) for x in shape.split("x"))
    return 2.0 * m * n * k


def ratios_row(case, where, fused_s, unfused_s, fused_peak, unfused_peak, flops, extra=""):
    """One table row: times, throughput/latency/memory ratios in the published form."""
    def cell(t, peak):
        gf = flops / t / 1e9 if flops else 0
        rate = (f", {gf / 1e3:.1f} TFLOP/s" if gf >= 1e3 else f", {gf:.1f} GFLOP/s") if gf else ""
        return f"{fmt_time(t)}{rate}, {mib(peak)}"

    return (f"| {case} | {where} | {cell(fused_s, fused_peak)} | {cell(unfused_s, unfused_peak)} "
            f"| {pct(unfused_s / fused_s)} | {pct(fused_s / unfused_s)} "
            f"| {pct(fused_peak / unfused_peak)} |{extra}")


def render(host_attn, host_epi, model, model_table, meta, dry):
    """Returns the section's Markdown (between the markers)."""
    def para(text):
        return textwrap.fill(text, 100, break_on_hyphens=False)

    lines = [BEGIN, "",
             para("Fused operators against the unfused composition of the library's own operators "
             "through GM, as measured, whatever the numbers are. **throughput** = unfused time / "
             "fused time - 1 (the fused call's extra work per second), **latency** = fused time "
             "/ unfused time - 1, **peak memory** = the device allocator's peak over the fused "
             "call / the unfused composition's - 1 (`GetDeviceMemoryStats().peak_allocated`, "
             "inputs and outputs included; the unfused attention holds the B·N·S² fp32 scores, "
             "the fused one O(S·D) per core group). Host: process CPU time, 1 worker thread, "
             "the build's CMAKE_BUILD_TYPE " + meta.get("build_type", "unknown") + ". Model: "
             "the sum of the modeled kernel times of the launches "
             "(the unfused composition is 4 launches, each with the preset's launch overhead), "
             "on " + meta["chip"] + "; the fp16 unfused attention is the same chain on fp16 "
             "scores (UnfusedAttentionForward takes FLOAT only)."), "",
             para(f"Generated {meta['date']} in {meta['wall_s']:.0f} s on {meta['machine']}, "
             f"{meta['cpus']} CPUs, worker threads 1; load average {meta['load_start']} at the "
             f"start, {meta['load_end']} at the end (other developers share the machine). "
             "Regenerate with:"), "",
             "    " + meta["command"], "",
             "| case | where | fused (time, rate, peak) | unfused (time, rate, peak) | "
             "throughput | latency | peak memory |",
             "|---|---|---|---|---|---|---|"]

    def model_pair(op, dtype, shape):
        f = model.get((op, dtype, shape, "fused"))
        u = model.get((op, dtype, shape, "unfused"))
        if not f or not u or f.get("error") or u.get("error"):
            return None
        return f, u

    attn_shapes = [ATTENTION_SMALL] if dry else [ATTENTION_BIG, ATTENTION_SMALL]
    for shape in attn_shapes:
        flops = attention_flops(shape)
        h = host_attn.get(shape)
        if h:
            lines.append(ratios_row(f"attention fp32 {shape}", "host", h["fused_s"],
                                    h["unfused_s"], h["fused_peak"], h["unfused_peak"], flops))
        for dtype in ("fp32", "fp16"):
            p = model_pair("attention", dtype, shape)
            if p:
                f, u = p
                lines.append(ratios_row(f"attention {dtype} {shape}", meta["chip"] + " model",
                                        f["modeled_us"] * 1e-6, u["modeled_us"] * 1e-6,
                                        f["peak_bytes"], u["peak_bytes"], flops))
    epi_shapes = sorted({k[2] for k in model if k[0] == "matmul+bias+gelu+residual"},
                        key=lambda s: epilogue_flops(s), reverse=True)
    if host_epi:
        p = model_pair("matmul+bias+gelu+residual", "fp32", EPILOGUE_HOST)
        fpk, upk = (p[0]["peak_bytes"], p[1]["peak_bytes"]) if p else (float("nan"),) * 2
        lines.append(ratios_row(f"matmul+bias+gelu+residual fp32 {EPILOGUE_HOST}", "host",
                                host_epi["fused_s"], host_epi["unfused_s"], fpk, upk,
                                epilogue_flops(EPILOGUE_HOST)))
    for shape in epi_shapes:
        for dtype in ("fp32", "fp16"):
            p = model_pair("matmul+bias+gelu+residual", dtype, shape)
            if p:
                f, u = p
                lines.append(ratios_row(f"matmul+bias+gelu+residual {dtype} {shape}",
                                        meta["chip"] + " model", f["modeled_us"] * 1e-6,
                                        u["modeled_us"] * 1e-6, f["peak_bytes"], u["peak_bytes"],
                                        epilogue_flops(shape)))
    scaled = sorted({f"{r['op']} {r['shape']} x{r['scale']}" for r in model.values()
                     if r.get("scale", 1) > 1})
    notes = ["Scaled rows (" + ", ".join(scaled) + ") were modeled on a slice of the batch and "
             "their kernel bodies multiplied by the factor (not the launch overheads): the "
             "slice's launches already fill the cube cores (blocks in the note column) and the "
             "batches are independent; their peak memory is from an unprofiled run at the full "
             "shape"] if scaled \
        else []
    lines += ["", para("Host times are medians of the bench's repetitions (one for the large "
                       "cases). The host epilogue's peak memory is fused_model's fp32 row (the "
                       "bench reports none; the same calls on the same allocator).")
              if host_epi else "",
              "", "### Modeled detail", "",
              para("`fused_model " + meta["chip"] + "`: per case the modeled time, peak and extra "
                   "device memory (beyond the operands) and every pipe's chip-wide busy ratio "
                   "(busy time over the cores of its type and the launches / (cores x modeled "
                   "time)). " + (" ".join(n + "." for n in notes) if notes else "")), "",
              model_table.strip(), "", END]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


def write_section(doc, section):
    text = doc.read_text()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + section + "\n" + tail
    else:
        anchor = "## Tools"
        block = HEADING + "\n\n" + section + "\n"
        text = text.replace(anchor, block + anchor, 1) if anchor in text else text + "\n" + block
    doc.write_text(text)


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build", default=str(root / "build" / "bench-release"))
    p.add_argument("--doc", default=str(root / "docs" / "performance.md"))
    p.add_argument("--chip", default="ascend910b1")
    p.add_argument("--dry", action="store_true",
                   help="small shapes, print the section instead of writing the page")
    args = p.parse_args()
    bench = pathlib.Path(args.build) / "benchmarks"
    for exe in ("bench_attention", "fused_model"):
        if not os.access(bench / exe, os.X_OK):
            print(f"fused_table: {bench / exe} is missing or not executable; build it first "
                  f"(make bench, or ninja -C {args.build} bench_attention fused_model)",
                  file=sys.stderr)
            return 2
    start, load_start = time.time(), load_average()
    env = dict(os.environ, AICORE_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("AICORE_CHIP", None)  # host rows plan for the default chip, as make bench does

    shapes = [ATTENTION_SMALL] if args.dry else [ATTENTION_BIG, ATTENTION_SMALL]
    rows = run_bench(str(bench / "bench_attention"),
                     "ops/(flash_attention|attention_unfused)/fp32/(" + "|".join(shapes) + ")/iter",
                     env)
    host_attn = {}
    for shape in shapes:
        f = rows.get(f"ops/flash_attention/fp32/{shape}")
        u = rows.get(f"ops/attention_unfused/fp32/{shape}")
        if f and u:
            host_attn[shape] = {"fused_s": seconds(f), "unfused_s": seconds(u),
                                "fused_peak": counter(f, "peak_bytes"),
                                "unfused_peak": counter(u, "peak_bytes")}
    host_epi = None
    if not args.dry:
        epi = bench / "bench_matmul_epilogue"
        if os.access(epi, os.X_OK):
            rows = run_bench(str(epi), f"ops/matmul_epilogue(_unfused)?/fp32/{EPILOGUE_HOST}_",
                             env)
            f = next((v for k, v in rows.items() if k.startswith("ops/matmul_epilogue/")), None)
            u = next((v for k, v in rows.items()
                      if k.startswith("ops/matmul_epilogue_unfused/")), None)
            if f and u:
                host_epi = {"fused_s": seconds(f), "unfused_s": seconds(u)}
        else:
            print(f"note: {epi} is missing (needs oneDNN); no host epilogue row", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, "fused_model.jsonl")
        cmd = [str(bench / "fused_model"), args.chip, "--json", js] + (["--small"] if args.dry
                                                                         else [])
        print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
        model_table = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, text=True,
                                     check=True).stdout
        model = {}
        with open(js) as f:
            for line in f:
                r = json.loads(line)
                model[(r["op"], r["dtype"], r["shape"], r["variant"])] = r

    def load_text(load):
        return "/".join(f"{v:.2f}" for v in load) if load else "unknown"

    try:
        rel_build = os.path.relpath(args.build, root)
    except ValueError:
        rel_build = args.build
    build_type = "unknown"
    cache = pathlib.Path(args.build) / "CMakeCache.txt"
    if cache.exists():
        for line in cache.read_text().splitlines():
            if line.startswith("CMAKE_BUILD_TYPE:"):
                build_type = line.split("=", 1)[1] or "unset"
    meta = {"chip": args.chip, "build_type": build_type,
            "date": datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"),
            "wall_s": time.time() - start, "machine": cpu_model(), "cpus": os.cpu_count(),
            "load_start": load_text(load_start), "load_end": load_text(load_average()),
            "command": f"/usr/bin/python3 scripts/fused_table.py --build {rel_build}"
                       + (" --dry" if args.dry else "")}
    section = render(host_attn, host_epi, model, model_table, meta, args.dry)
    if args.dry:
        sys.stdout.write(section)
    else:
        write_section(pathlib.Path(args.doc), section)
        print(f"wrote the fused-vs-unfused section of {args.doc}", file=sys.stderr)
        sys.stdout.write(section)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (subprocess.CalledProcessError, RuntimeError) as e:
        print(f"fused_table: {e}", file=sys.stderr)
        sys.exit(1)
