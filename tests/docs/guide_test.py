#!/usr/bin/python3
"""Runs a docs/guide page the way a reader follows it, so the page cannot rot.

Every fenced code block of the page is taken in order. Its info string is the language followed by
attributes:

  file=PATH     write the block to ~/PATH (HOME is WORK/home, a fresh directory)
  run           run the block with bash (set -e -o pipefail) in ~ (or cwd=DIR below ~; cwd=clone is
                a directory whose `build` is the aicore build under test); exports carry over from
                one run block to the next, as in one terminal
  exit=N        the run block must end with status N (default 0)
  needs=TOOL    run the block only where TOOL works (gdb: ptrace allowed), else report SKIPPED
  nvcc          a CUDA file= block: compiled with nvcc -c (host and device code; no GPU needed)
                when nvcc is found (PATH, then /usr/local/cuda/bin), reported as SKIPPED when it
                is not
  norun         shown, not run (an interactive gdb session, `make demo` the build already did);
                every cpp/cuda/cmake/sh/bash/python block must say file=, run or norun
  output        a text block: each of its non-empty lines must appear in the output of the
                preceding run block (`...` inside a line matches anything); output=loose: any
                number matches any number (for modeled figures quoted from a run)

Markers in the page's text (HTML comments, invisible when rendered):

  <!-- chips-table -->      the next Markdown table must equal the one built from `aicore chips`
  <!-- timeline: DIR1 DIR2 -> IMG.svg -->   IMG.svg (next to the page) must equal the pipeline
                            timeline drawn from the profiles in ~/DIR1 and ~/DIR2

Unless the page installs aicore itself (a run block with cwd=clone), ~/aicore is an install of the
build under test. --update rewrites generated parts (the SVG, the chips table, the figures quoted in
output=loose blocks) instead of failing.
"""
import argparse
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timeline_svg  # noqa: E402

CODE_LANGS = {"cpp", "c++", "cuda", "cmake", "sh", "bash", "python"}
FENCE = re.compile(r"^```(.*)$")


class Block:
    def __init__(self, line, info, text):
        self.line = line
        tokens = shlex.split(info) if info.strip() else []
        self.lang = tokens[0] if tokens else ""
        self.attrs = {}
        for tok in tokens[1:]:
            key, _, value = tok.partition("=")
            self.attrs[key] = value if _ else True
        self.text = text


def parse(page_text):
    """Returns the page's blocks and markers in order: ('block', Block) or ('marker', text,
    line)."""
    items = []
    lines = page_text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            start = i
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            items.append(("block", Block(start + 1, m.group(1), "\n".join(body) + "\n")))
        else:
            mm = re.match(r"^<!-- (chips-table|timeline: .*?) -->$", lines[i].strip())
            if mm:
                items.append(("marker", mm.group(1), i + 1))
        i += 1
    return items


def find_nvcc():
    found = shutil.which("nvcc")
    if found:
        return found
    default = "/usr/local/cuda/bin/nvcc"
    return default if os.access(default, os.X_OK) else None


NUMBER = r"(\d+(?:\.\d+)?)"


def tool_works(tool):
    """Whether `tool` is installed and works here (gdb: can it start a program under ptrace)."""
    if shutil.which(tool) is None:
        return False
    if tool == "gdb":
        r = subprocess.run(["gdb", "-q", "-batch", "-ex", "run", "--args", "/bin/true"],
                           capture_output=True, text=True)
        return "exited normally" in r.stdout + r.stderr
    return True


def line_matches(expected, output, loose=False):
    """The match of `expected` (with `...` wildcards; with loose, any number matches any number)
    in `output`, or None."""
    def chunk(text):
        if not loose:
            return re.escape(text)
        pieces = re.split(NUMBER, text)
        return "".join(r"\d+(?:\.\d+)?" if i % 2 else re.escape(p) for i, p in enumerate(pieces))
    parts = [chunk(p) for p in expected.strip().split("...")]
    return re.search(r".*?".join(parts), output)


def chips_table(aicore):
    import json
    listing = subprocess.run([aicore, "chips"], check=True, capture_output=True, text=True).stdout
    names = [l.split()[0] for l in listing.splitlines() if l.strip()]
    rows = ["| chip | cores | AIC | AIV | UB | L1 | L0A | L0B | L0C | L2 | HBM |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]

    def kb(n):
        return f"{n // 1024} KB"
    for name in names:
        c = json.loads(subprocess.run([aicore, "chips", name], check=True, capture_output=True,
                                      text=True).stdout)
        b = c["buffers"]
        mem = c["memory"]
        rows.append(f"| {name} | {c['core_mode']} | {c['aic_count']} | {c['aiv_count']} | "
                    f"{kb(b['UB']['bytes'])} | {kb(b['L1']['bytes'])} | {kb(b['L0A']['bytes'])} | "
                    f"{kb(b['L0B']['bytes'])} | {kb(b['L0C']['bytes'])} | "
                    f"{mem['l2_bytes'] // (1024 * 1024)} MB | {mem['hbm_bytes'] // 1024 ** 3} GB, "
                    f"{mem['hbm_gbps']} GB/s |")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--page", required=True)
    ap.add_argument("--build", required=True, help="the aicore build directory under test")
    ap.add_argument("--work", required=True, help="scratch directory (emptied first)")
    ap.add_argument("--update", action="store_true", help="rewrite generated parts")
    args = ap.parse_args()

    page = pathlib.Path(args.page).resolve()
    text = page.read_text()
    work = pathlib.Path(args.work).resolve()
    shutil.rmtree(work, ignore_errors=True)
    home = work / "home"
    clone = work / "clone"
    home.mkdir(parents=True)
    clone.mkdir()
    (clone / "build").symlink_to(pathlib.Path(args.build).resolve())
    env_file = work / "env.sh"
    env_file.write_text("")

    items = parse(text)
    blocks = [it[1] for it in items if it[0] == "block"]
    failures = []
    for b in blocks:
        if b.lang in CODE_LANGS and not ({"file", "run", "norun"} & set(b.attrs)):
            failures.append(f"{page.name}:{b.line}: a {b.lang} block without file=, run or norun")
    if failures:
        print("\n".join(failures))
        return 1

    env = dict(os.environ)
    env["HOME"] = str(home)
    for var in ("AICORE_CHECK", "AICORE_PROFILE", "AICORE_CHIP", "CMAKE_PREFIX_PATH"):
        env.pop(var, None)
    if not any(b.attrs.get("cwd") == "clone" for b in blocks):
        subprocess.run(["cmake", "--install", args.build, "--prefix", str(home / "aicore")],
                       check=True, stdout=subprocess.DEVNULL)
    nvcc = find_nvcc()
    last_output = None
    counts = {"files": 0, "runs": 0, "nvcc": 0, "skipped": 0, "outputs": 0}
    new_text = text
    pending_nvcc = []
    skip_output = False
    for idx, item in enumerate(items):
        if item[0] == "marker":
            marker, line = item[1], item[2]
            if marker == "chips-table":
                expected = chips_table(str(home / "aicore" / "bin" / "aicore"))
                rest = text.split("\n")[line:]
                table = []
                for l in rest:
                    if l.startswith("|"):
                        table.append(l)
                    elif table:
                        break
                if table != expected:
                    if args.update:
                        new_text = new_text.replace("\n".join(table), "\n".join(expected))
                    else:
                        failures.append(f"{page.name}:{line}: the chips table differs from "
                                        "`aicore chips` (--update rewrites it); expected:\n"
                                        + "\n".join(expected))
            else:
                m = re.match(r"timeline: (\S+) (\S+) -> (\S+)", marker)
                svg = timeline_svg.render(home / m.group(1), home / m.group(2))
                target = page.parent / m.group(3)
                if not target.exists() or target.read_text() != svg:
                    if args.update:
                        target.write_text(svg)
                        print(f"wrote {target}")
                    else:
                        failures.append(f"{page.name}:{line}: {m.group(3)} differs from the "
                                        "timeline of a fresh profile; regenerate it with "
                                        f"{sys.argv[0]} --page {args.page} --build BUILD "
                                        "--work /tmp/guide --update")
            continue
        b = item[1]
        if "file" in b.attrs:
            dest = home / b.attrs["file"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(b.text)
            counts["files"] += 1
            if "nvcc" in b.attrs:
                if nvcc is None:
                    print(f"SKIPPED {b.attrs['file']}: nvcc not found")
                    counts["skipped"] += 1
                else:
                    # Compiled in the background while the page goes on; collected at the end.
                    cmd = [nvcc, "-c", "-std=c++17", "-arch=sm_80", "-o", str(dest) + ".o",
                           str(dest)]
                    pending_nvcc.append((b, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                             stderr=subprocess.STDOUT, text=True)))
        if "run" in b.attrs and "needs" in b.attrs and not tool_works(b.attrs["needs"]):
            print(f"SKIPPED the block at line {b.line}: {b.attrs['needs']} is missing or cannot "
                  "run here")
            counts["skipped"] += 1
            skip_output = True
            continue
        if "output" in b.attrs and skip_output:
            skip_output = False
            continue
        skip_output = False
        if "run" in b.attrs:
            cwd = home
            if b.attrs.get("cwd") == "clone":
                cwd = clone
            elif b.attrs.get("cwd"):
                cwd = home / b.attrs["cwd"]
            script = (f"set -e -o pipefail\nsource {env_file}\ncd {shlex.quote(str(cwd))}\n"
                      f"trap 'export -p > {env_file}' EXIT\n" + b.text)
            print(f"$ {b.text.strip()}")
            r = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                               timeout=600)
            last_output = r.stdout + r.stderr
            print(last_output, end="")
            want = int(b.attrs.get("exit", 0))
            if r.returncode != want:
                failures.append(f"{page.name}:{b.line}: exit status {r.returncode}, "
                                f"expected {want}")
                break
            counts["runs"] += 1
        if "output" in b.attrs:
            if last_output is None:
                failures.append(f"{page.name}:{b.line}: an output block before any run block")
                continue
            updated = []
            for l in b.text.splitlines():
                loose = b.attrs["output"] == "loose"
                m = line_matches(l, last_output, loose) if l.strip() else None
                if l.strip() and m is None:
                    failures.append(f"{page.name}:{b.line}: the output lacks the line\n  {l}")
                # --update quotes a loose block's figures from this run.
                updated.append(l.replace(l.strip(), m.group(0)) if loose and m else l)
            if args.update and updated != b.text.splitlines():
                new_text = new_text.replace(b.text, "\n".join(updated) + "\n", 1)
            counts["outputs"] += 1
    for b, proc in pending_nvcc:
        out, _ = proc.communicate(timeout=600)
        if proc.returncode != 0:
            failures.append(f"{page.name}:{b.line}: nvcc failed on {b.attrs['file']}:\n{out}")
        else:
            print(f"nvcc -c ok: {b.attrs['file']}")
            counts["nvcc"] += 1
    if args.update and new_text != text:
        page.write_text(new_text)
        print(f"updated {page}")
    print(f"{page.name}: {counts['files']} files, {counts['runs']} run blocks, "
          f"{counts['outputs']} outputs checked, {counts['nvcc']} compiled by nvcc, "
          f"{counts['skipped']} skipped (no nvcc, or a tool a block needs)")
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    # The work dir holds an install prefix (0.4 GB); kept only when the page failed.
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
