#!/usr/bin/python3
"""Generates docs/model-accuracy.md: the timing model against published Ascend measurements.

Each case is one of Huawei's published best-practice cases (shape, tiling, buffering, cores: see
../shared/reference/published-ascend-figures.md and the READMEs named per case), reproduced by
aicore's own kernels (tests/perf/calibrate_kernels.cc, written from the case descriptions only),
run under the profiler on the ascend910b1 preset. The page compares the published task duration
and per-pipe ratios with the modeled ones. It holds modeled numbers only, so two runs give the
same page; tests/perf/model_accuracy_test.sh fails when the committed page differs from a fresh
one.

The matmul cases are 8192 x 8192 x 8192 on the chip. Replaying them takes about two minutes each
on a 2-core machine, too slow for the test, so by default they run with K = 2048 (same M, N,
split, base block and L1 depths/steps: each core walks the same blocks with a quarter of the k
panels) and the published time is scaled by K / 8192 for the comparison; --full runs K = 8192.

Usage: scripts/calibrate.py --build BUILD_DIR [--out FILE] [--full]   (default: stdout)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHIP = "ascend910b1"
FULL_K = 8192
SCALED_K = 2048

SRC_A1 = ("asc-devkit `examples/01_simd_cpp_api/05_best_practices/00_vector_compute/"
          "add_high_performance/README_en.md`")
SRC_A2 = ("asc-devkit `examples/01_simd_cpp_api/05_best_practices/01_matrix_compute/"
          "matmul_high_performance/README_en.md`")

# Matmul cases (A2): 8192^3 half, B transposed, half C, 24 cores split 4 x 6 (single 2048 x 1536),
# base 128 x 256 x 64. (name, published case, template, depthA1, stepKa, depthB1, stepKb,
# published: time_us and pipe ratios, note).
MATMUL = [
    ("matmul Norm", "case 3", "norm", 1, 1, 1, 1,
     {"time": 12283.84, "aic_mac_ratio": 0.312, "aic_mte1_ratio": 0.199, "aic_mte2_ratio": 0.793,
      "aic_fixpipe_ratio": 0.045, "aic_scalar_ratio": 0.244},
     "Norm template, every L1 depth and step 1: one buffer per operand, so MTE2 and MTE1/cube "
     "take turns per base block."),
    ("matmul MDL auto L1", "case 4", "mdl", 4, 2, 4, 2,
     {"time": 5039.86, "aic_mac_ratio": 0.694, "aic_mte1_ratio": 0.52, "aic_mte2_ratio": 0.903,
      "aic_fixpipe_ratio": 0.01, "aic_scalar_ratio": 0.462},
     "MDL, the tiling's automatic L1 (depthA1 = 4, stepKa = 2, two buffers); the README does not "
     "give B's depth and step: depthB1 = 4, stepKb = 2 assumed."),
    ("matmul MDL L1 cache", "case 5", "mdl", 16, 8, 8, 4,
     {"time": 4156.76, "aic_mac_ratio": 0.854, "aic_mte1_ratio": 0.701, "aic_mte2_ratio": 0.963,
      "aic_fixpipe_ratio": 0.012, "aic_scalar_ratio": 0.373},
     "MDL, depthA1 = 16, stepKa = 8, depthB1 = 8, stepKb = 4: all of L1, two buffers per operand."),
]

# Add cases (A1): 8192 x 8192 half, rows split evenly over the cores. (name, cores, tile,
# buffers, bypass, published, note).
ADD = [
    ("add c1", 1, 4096, 1, 0,
     {"time": 6909.6, "aiv_vec_ratio": 0.11, "aiv_mte2_ratio": 0.873, "aiv_mte3_ratio": 0.378,
      "aiv_scalar_ratio": 0.033}, "1 core, 4096-element tiles, one buffer."),
    ("add c2", 48, 4096, 1, 0,
     {"time": 306.58, "aiv_vec_ratio": 0.053, "aiv_mte2_ratio": 0.725, "aiv_mte3_ratio": 0.183,
      "aiv_scalar_ratio": 0.028}, "48 cores, 4096-element tiles, one buffer."),
    ("add c3", 48, 16384, 1, 0,
     {"time": 268.5, "aiv_vec_ratio": 0.049, "aiv_mte2_ratio": 0.705, "aiv_mte3_ratio": 0.219,
      "aiv_scalar_ratio": 0.011}, "48 cores, 16384-element tiles, one buffer."),
    ("add c4", 48, 16384, 2, 0,
     {"time": 264.02, "aiv_vec_ratio": 0.05, "aiv_mte2_ratio": 0.973, "aiv_mte3_ratio": 0.33,
      "aiv_scalar_ratio": 0.011}, "48 cores, 16384-element tiles, double buffer."),
    ("add c5", 48, 16384, 2, 1,
     {"time": 187.68, "aiv_vec_ratio": 0.069, "aiv_mte2_ratio": 0.951, "aiv_mte3_ratio": 0.866,
      "aiv_scalar_ratio": 0.024},
     "c4 with SetL2CacheHint(CACHE_MODE_DISABLE) on the inputs."),
    ("add c6", 48, 16256, 2, 1,
     {"time": 184.52, "aiv_vec_ratio": 0.039, "aiv_mte2_ratio": 0.961, "aiv_mte3_ratio": 0.68,
      "aiv_scalar_ratio": 0.019},
     "c5 with 16256-element tiles (no UB bank conflicts)."),
]

# Why a case misses its target, when it does (shown only for cases outside the target).
MISS_REASONS = {
    "add c5": "the L2 cache-mode hint is not modelled: SetL2CacheHint is accepted but does not "
              "reach the recorded instructions, so c5 models as c4. On the chip, reads that do "
              "not allocate L2 leave the 128 MB of writes in L2 and the HBM serves reads only.",
    "add c6": "as c5 (the L2 hint), and UB bank conflicts are not modelled, so the smaller tile "
              "only changes the copy sizes.",
    "add c1": "one core's GM copy rate: the model uses the nominal 32 B/cycle per MTE pipe; the "
              "published c1 moves about 25 B/cycle per MTE2 copy [D], a figure no source gives "
              "for this chip, so the model is not fitted to it.",
    "add c2": "4096-element (8 KB) copies on 48 cores: the published MTE2 time is 40% above the "
              "model's, a per-copy cost of short transfers under contention that no published "
              "constant describes.",
}

TIME_TARGET = {"matmul": 0.15, "add": 0.20}
RATIO_TARGET = 0.10  # aic_mac_ratio, matmul cases


class RunError(Exception):
    pass


def profile(build, args):
    """Runs calibrate_kernels under the profiler; returns the launch's summary.json entry."""
    exe = os.path.join(build, "tests", "perf", "calibrate_kernels")
    if not os.access(exe, os.X_OK):
        raise RunError(f"{exe} is not built (ninja -C {build} perf_calibrate_kernels)")
    with tempfile.TemporaryDirectory(prefix="calibrate-") as out:
        env = {k: v for k, v in os.environ.items() if not k.startswith("AICORE_")}
        env["AICORE_PROFILE"] = out
        env["AICORE_CHIP"] = CHIP
        proc = subprocess.run([exe] + [str(a) for a in args], env=env, capture_output=True,
                              text=True)
        if proc.returncode != 0:
            raise RunError(f"calibrate_kernels {' '.join(map(str, args))} exited with status "
                           f"{proc.returncode}:\n{proc.stdout}{proc.stderr}")
        with open(os.path.join(out, "summary.json")) as f:
            launches = json.load(f)
    if len(launches) != 1:
        raise RunError(f"calibrate_kernels {' '.join(map(str, args))}: {len(launches)} launches")
    return launches[0]


def rel(model, pub):
    return (model - pub) / pub


def fmt_us(x):
    return f"{x:,.2f}"


def fmt_pct(x):
    return f"{100 * x:+.1f}%"


def ratio_cells(pub, got, keys):
    cells = []
    for k in keys:
        p = pub.get(k)
        g = got["metrics"].get(k, 0.0)
        cells.append(f"{p:.3f} / {g:.3f}" if p is not None else f"- / {g:.3f}")
    return cells


def generate(build, full):
    k = FULL_K if full else SCALED_K
    scale = k / FULL_K
    rows = []  # (family, name, setup, pub_time, model_time, err, ratios..., note, result)
    for name, pcase, tmpl, da, ska, db, skb, pub, note in MATMUL:
        got = profile(build, ["matmul", 8192, 8192, k, 4, 6, 128, 256, 64, da, ska, db, skb,
                              tmpl])
        rows.append(("matmul", name, pcase, pub["time"] * scale, got["kernel_us"], pub, got,
                     note))
    for name, cores, tile, bufs, bypass, pub, note in ADD:
        got = profile(build, ["add", 8192, 8192, cores, tile, bufs, bypass])
        rows.append(("add", name, name.split()[1], pub["time"], got["kernel_us"], pub, got, note))

    o = []
    o.append("# Model accuracy: the timing model against published Ascend measurements\n")
    o.append("<!-- Generated by scripts/calibrate.py; do not edit. Regenerate with "
             "`scripts/calibrate.py --build build --out docs/model-accuracy.md`; the "
             "perf.model_accuracy test fails when this page is stale. -->\n")
    o.append(f"Each row is one of Huawei's published best-practice cases (msprof on an Atlas A2, "
             f"\"Ascend 910B1\", 1.85 GHz), reproduced by aicore's own kernels "
             f"(`tests/perf/calibrate_kernels.cc`, written from the case descriptions: shapes, "
             f"tilings, buffering, core counts) and replayed through the timing model of the "
             f"`{CHIP}` preset. *Published* is the case's Task Duration; *modeled* is the "
             f"profiler's modeled time (body + launch overhead). Ratios are msprof's "
             f"`<pipe>_ratio` (busy time / core time), published / modeled.\n")
    o.append("Sources: matmul rows " + SRC_A2 + " (cases 3-5); add rows " + SRC_A1 +
             " (cases 1-6), both at mirror-cann/asc-devkit @ 82b89a15f263.\n")
    if full:
        o.append("Matmul rows run at the published size, 8192 x 8192 x 8192.\n")
    else:
        o.append(f"**Scaled:** the matmul cases are 8192 x 8192 x 8192 on the chip; replaying that "
                 f"takes about two minutes per case on the 2-core development machine, so they run "
                 f"here with K = {k} (same M, N, 4 x 6 split, base 128 x 256 x 64 and L1 "
                 f"depths/steps: every core walks the same 16 x 6 base blocks with a quarter of "
                 f"the k steps) and the published time is scaled by K / 8192 = {scale:g} [D] "
                 f"(the published time is dominated by the k loop; the fixpipe, 1% of it, does "
                 f"not scale). The ratios are compared unscaled. With K = 2048 the operands "
                 f"(64 MB) fit in L2, so L2 capacity misses of the full size are not exercised; "
                 f"`scripts/calibrate.py --full` runs K = 8192.\n")
    o.append("The add rows run at the published size, 8192 x 8192 half.\n")

    o.append("## Time\n")
    o.append("| case | setup | published (us) | modeled (us) | error | target |")
    o.append("|---|---|---:|---:|---:|---|")
    errs = {"matmul": [], "add": []}
    misses = []
    for fam, name, pcase, pt, mt, pub, got, note in rows:
        e = rel(mt, pt)
        errs[fam].append(abs(e))
        ok = abs(e) <= TIME_TARGET[fam]
        if fam == "matmul":
            dmac = got["metrics"].get("aic_mac_ratio", 0) - pub["aic_mac_ratio"]
            ok = ok and abs(dmac) <= RATIO_TARGET
        if not ok:
            misses.append(name)
        tgt = (f"±{TIME_TARGET[fam] * 100:.0f}%" +
               (f", mac ±{RATIO_TARGET:.2f}" if fam == "matmul" else "") +
               (": met" if ok else ": **missed**"))
        label = f"{name} ({pcase})" if fam == "matmul" else name
        ptxt = fmt_us(pt) + (f" (= {fmt_us(pub['time'])} x {scale:g})"
                             if fam == "matmul" and scale != 1 else "")
        o.append(f"| {label} | {note} | {ptxt} | {fmt_us(mt)} | {fmt_pct(e)} | {tgt} |")
    o.append("")
    for fam in ("matmul", "add"):
        v = errs[fam]
        o.append(f"- mean absolute time error, {fam} cases: {100 * sum(v) / len(v):.1f}% "
                 f"(target ±{TIME_TARGET[fam] * 100:.0f}% per case)")
    allv = errs["matmul"] + errs["add"]
    o.append(f"- mean absolute time error, all cases: {100 * sum(allv) / len(allv):.1f}%\n")

    o.append("## Pipe ratios (published / modeled)\n")
    mk = ["aic_mac_ratio", "aic_mte1_ratio", "aic_mte2_ratio", "aic_fixpipe_ratio",
          "aic_scalar_ratio"]
    o.append("| case | " + " | ".join(k.replace("_ratio", "") for k in mk) +
             " | L2 hits (modeled) |")
    o.append("|---|" + "---:|" * (len(mk) + 1))
    for fam, name, pcase, pt, mt, pub, got, note in rows:
        if fam != "matmul":
            continue
        o.append(f"| {name} | " + " | ".join(ratio_cells(pub, got, mk)) +
                 f" | {100 * got['l2_hit_fraction']:.1f}% |")
    o.append("")
    ak = ["aiv_vec_ratio", "aiv_mte2_ratio", "aiv_mte3_ratio", "aiv_scalar_ratio"]
    o.append("| case | " + " | ".join(k.replace("_ratio", "") for k in ak) +
             " | HBM (modeled) |")
    o.append("|---|" + "---:|" * (len(ak) + 1))
    for fam, name, pcase, pt, mt, pub, got, note in rows:
        if fam != "add":
            continue
        o.append(f"| {name} | " + " | ".join(ratio_cells(pub, got, ak)) +
                 f" | {got['hbm_gbps']:.0f} GB/s |")
    o.append("")

    o.append("## Misses\n")
    if not misses:
        o.append("Every case meets its target.\n")
    for name in misses:
        o.append(f"- **{name}**: " + MISS_REASONS.get(
            name, "no explanation recorded yet; the difference is not understood.") + "")
    o.append("")
    o.append("Ratios the model does not try to match: *aic_scalar* / *aiv_scalar* (the model "
             "charges one scalar cycle per API call and nothing for the kernel's own loop and "
             "address arithmetic, which the chip's scalar unit spends most of its time on); "
             "*aic_fixpipe* of the MDL cases (the model's Fixpipe moves C at 32 B/cycle per "
             "core, the published 0.01 implies a faster L0C -> GM path that no source states). "
             "In the add cases the modeled MTE2 and MTE3 are busier than published because a copy "
             "throttled by its HBM share occupies its pipe for the whole transfer.\n")
    o.append("## L2 writes\n")
    o.append("GM writes into lines L2 holds land in L2 at the pipe's L2 write rate (L0C -> L2 86 "
             "B/cycle, UB -> L2 64 B/cycle; `fix_l2_write_bytes_per_cycle`, "
             "`mte3_l2_write_bytes_per_cycle` in the preset, Note [L2 reuse] in "
             "aicore/perf/model.cc); other writes go at the GM rate and allocate their lines. "
             "Every table above is the same before and after that model, to the last digit: no "
             "published case rewrites or reads back what it wrote (add's output and matmul's C are "
             "written once, to lines L2 does not hold), so their writes stay at the GM rate. It "
             "matches the one published write rate of a cold MTE3 copy (add c1: 128 MiB from one "
             "core in 2613 us, about 28 B/cycle). It does not explain the MDL cases' Fixpipe, "
             "whose C writes are cold too: the published 47.85 us of case 5 is about 63 B/cycle "
             "per core, so a cold L0C -> GM write is faster than the 32 B/cycle GE figure, and "
             "the modeled aic_fixpipe stays above the published one (0.100 at K = 2048 against "
             "0.012; about a quarter of that at the full K, still twice it). The L2 write rates "
             "move kernels that rewrite a small workspace (fused attention's score and "
             "probability slots, read back by the other core type).\n")
    o.append("## What the model is\n")
    o.append("The constants (each with its source) are in `aicore/arch/presets/ascend910b1.json`; "
             "the model is described in [profiling.md](profiling.md#the-model). Which constants "
             "were chosen by comparing against one of these cases is said in the preset's "
             "`*_source` strings (MTE1 rates, the GM burst).\n")
    return "\n".join(o).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--out", help="write the page here (default: stdout)")
    ap.add_argument("--full", action="store_true", help="matmul cases at K = 8192 (slow)")
    args = ap.parse_args()
    try:
        page = generate(os.path.abspath(args.build), args.full)
    except RunError as e:
        print(f"calibrate.py: {e}", file=sys.stderr)
        return 1
    if args.out:
        with open(args.out, "w") as f:
            f.write(page)
    else:
        sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
