#!/usr/bin/env python3
"""Runs the aicore benchmark binaries, prints one table and writes JSON lines.

Usage: run_all.py --build <builddir> --out <results.jsonl> [--array-mb N] [--filter REGEX]

Each row: name, metric, value, unit, baseline, ratio, threads. Ratios of kernel rows are taken
against the machine rows measured in the same run (see benchmarks/README.md). Timing is never
asserted; the exit status is non-zero only when a binary fails to run or a row is missing.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return [float(v) for v in f.read().split()[:3]]
    except OSError:
        return None


def run_binary(path, bench_filter, env):
    """Runs one Google Benchmark binary; returns {run_name: benchmark entry} of the medians."""
    cmd = [path, "--benchmark_format=json"]
    if bench_filter:
        cmd.append("--benchmark_filter=" + bench_filter)
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{path} exited with status {proc.returncode}")
    if not proc.stdout.strip():  # a filter that matches nothing in this binary
        return {}
    data = json.loads(proc.stdout)
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            if b.get("error_message", "").startswith("skipped:"):  # e.g. no AVX512_BF16
                print(f"{b.get('name')}: {b['error_message']}", file=sys.stderr)
                continue
            raise RuntimeError(f"{b.get('name')}: {b.get('error_message')}")
        # With repetitions only aggregates are reported: keep the median.
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        rows[b["run_name"]] = b
    return rows


def base_name(run_name):
    """Drops Google Benchmark's option suffixes (repeats:5, real_time, ...) from a run name."""
    option = r"(repeats|min_time|iterations|threads):.*|real_time|manual_time|process_time"
    keep = [p for p in run_name.split("/") if not re.fullmatch(option, p)]
    return "/".join(keep)


def find(rows, name):
    """Returns the entry named `name`, optionally followed by numeric arguments (/16384)."""
    for run_name, entry in rows.items():
        base = base_name(run_name)
        if base == name or (base.startswith(name + "/") and
                            base[len(name) + 1:].replace("/", "").isdigit()):
            return entry
    return None


def matmul_rows(results, add, counter, fma_gf, bf16_gf):
    """Adds the BLAS baselines and the matmul rows with their ratios (see benchmarks/README.md)."""
    def gflops(entry):
        v = counter(entry, "flops_per_s")
        return v and v / 1e9

    blas = {}  # shape -> best baseline GFLOP/s
    for run, entry in sorted(results.items()):
        base = base_name(run)
        if base.startswith("baseline/"):
            gf = gflops(entry)
            add(base, "gflops", gf, "GFLOP/s", note=entry.get("label", "") + " 1 thread")
            shape = base.rsplit("/", 1)[1]
            if gf:
                blas[shape] = max(blas.get(shape, 0.0), gf)
    for run, entry in sorted(results.items()):
        base = base_name(run)
        if not base.startswith("matmul/"):
            continue
        gf = gflops(entry)
        dtype, shape = base.split("/")[2], base.split("/")[3]
        best = blas.get(shape)
        if dtype == "bf16":
            add(base, "ratio_to_bf16_peak", gf, "GFLOP/s", bf16_gf, bf16_gf and gf / bf16_gf,
                note="target >= 0.80; Mmad runs bf16 on AMX tiles where the CPU has them, "
                     "so the ratio can exceed 1")
        else:
            note = "fp16 inputs converted to fp32" if dtype == "fp16" else "target >= 0.85"
            if "cube_path" in base:
                note = "IterateAll through L1/L0/Mmad/Fixpipe (AICORE_MATMUL_FUSED=0), for comparison"
            add(base, "ratio_to_fma_peak", gf, "GFLOP/s", fma_gf, fma_gf and gf / fma_gf,
                note=note)
            add(base, "ratio_to_best_blas", gf, "GFLOP/s", best, best and gf / best,
                note="best of OpenBLAS and oneDNN sgemm (fp32) in this run" +
                     (", target >= 0.95" if dtype == "fp32" and "cube_path" not in base else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="build directory holding benchmarks/")
    parser.add_argument("--out", required=True, help="JSON lines output file")
    parser.add_argument("--array-mb", type=int, default=0,
                        help="MiB per array for memory-bound rows (default: 4x last-level cache)")
    parser.add_argument("--filter", default="", help="Google Benchmark filter for every binary")
    args = parser.parse_args()

    env = dict(os.environ)
    if args.array_mb > 0:
        env["AICORE_BENCH_ARRAY_MB"] = str(args.array_mb)
    bench_dir = os.path.join(args.build, "benchmarks")
    load_start = load_average()

    results = {}
    # The BLAS baselines run on one thread with the library's own best kernel: a machine-wide
    # OPENBLAS_CORETYPE (set on some hosts) would pin OpenBLAS to an older kernel.
    blas_env = dict(env, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", AICORE_THREADS="1")
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        blas_env.pop(var, None)
    for binary in ("bench_machine", "bench_vector", "bench_sim", "bench_check", "bench_perf",
                   "alloc/bench_alloc", "bench_matmul"):
        path = os.path.join(bench_dir, binary)
        if not os.access(path, os.X_OK):
            print(f"error: {path} is missing (build the bench_* targets first)", file=sys.stderr)
            return 1
        results.update(run_binary(path, args.filter,
                                  blas_env if binary == "bench_matmul" else env))
    # The matmul with a fused epilogue (optional: it needs oneDNN), one thread like bench_matmul.
    epilogue_bench = os.path.join(bench_dir, "bench_matmul_epilogue")
    if os.access(epilogue_bench, os.X_OK):
        results.update(run_binary(epilogue_bench, args.filter, blas_env))
    load_end = load_average()

    def counter(entry, name):
        if entry is None:
            return None
        return entry.get(name, entry.get("counters", {}).get(name))

    rows = []

    def add(name, metric, value, unit, baseline=None, ratio=None, threads=1, note=""):
        if value is None:
            return
        rows.append({"name": name, "metric": metric, "value": value, "unit": unit,
                     "baseline": baseline, "ratio": ratio, "threads": threads, "note": note})

    fma = find(results, "machine/fma_fp32_peak")
    add("machine/fma_fp32_peak", "gflops", counter(fma, "flops_per_s") and
        counter(fma, "flops_per_s") / 1e9, "GFLOP/s", note=fma.get("label", "") if fma else "")
    copy = counter(find(results, "machine/stream_copy"), "bytes_per_s")
    add_bw = counter(find(results, "machine/stream_add"), "bytes_per_s")
    array_mb = counter(find(results, "machine/stream_add"), "array_bytes")
    note = f"{array_mb / 2**20:.0f} MiB arrays" if array_mb else ""
    add("machine/stream_copy", "bandwidth", copy and copy / 1e9, "GB/s", note=note)
    add("machine/stream_add", "bandwidth", add_bw and add_bw / 1e9, "GB/s", note=note)

    bf16 = counter(find(results, "machine/fma_bf16_peak"), "flops_per_s")
    add("machine/fma_bf16_peak", "gflops", bf16 and bf16 / 1e9, "GFLOP/s",
        note="VDPBF16PS, 16 accumulators")
    fma_gf = counter(fma, "flops_per_s") and counter(fma, "flops_per_s") / 1e9
    matmul_rows(results, add, counter, fma_gf, bf16 and bf16 / 1e9)

    def kernel_row(name, run, baseline, metric, target):
        bw = counter(find(results, run), "bytes_per_s")
        if bw is None:
            return
        ratio = bw / baseline if baseline else None
        add(name, metric, bw / 1e9, "GB/s", baseline and baseline / 1e9, ratio,
            note=f"{run}, target ratio >= {target}")

    kernel_row("vector/add_custom", "vector/add_custom/half", add_bw, "ratio_to_stream_add", 0.85)
    kernel_row("vector/add_custom_float", "vector/add_custom/float", add_bw,
               "ratio_to_stream_add", 0.85)
    kernel_row("vector/exp", "vector/exp/float", copy, "ratio_to_stream_copy", 0.80)
    kernel_row("vector/exp_half", "vector/exp/half", copy, "ratio_to_stream_copy", 0.80)

    for run, label in (("sim/api_call_ns/DataCopy", "DataCopy only"),
                       ("sim/api_call_ns/Add", "Add only")):
        add(run, "ns_per_call", counter(find(results, run), "ns_per_call"), "ns", note=label)
    api = find(results, "sim/api_call_ns")
    add("sim/api_call_ns", "ns_per_call", counter(api, "ns_per_call"), "ns",
        note="DataCopy + Add, 256 floats")

    t1 = find(results, "sim/scaling/1")
    t2 = find(results, "sim/scaling/2")
    if t1 and t2:
        speedup = t1["real_time"] / t2["real_time"]
        # Process CPU time / wall time of the 2-thread launch: near 2 when both workers had a CPU,
        # near 1 when other processes held one.
        busy = t2["cpu_time"] / t2["real_time"]
        add("sim/scaling_2threads", "speedup", speedup, "x", 2.0, speedup / 2.0, threads=2,
            note=f"blockDim=2 Exp passes, 2 vs 1 worker threads; CPUs busy {busy:.2f}")
    # --- The matmul with a fused epilogue (benchmarks/matmul_epilogue_bench.cc) ---------------
    # gelu_erf(a @ b + bias) + residual in fp32: the fused mix kernel against aicore's unfused
    # composition (Matmul, Add, GeluV2, Add through GM) and oneDNN's matmul with post-ops, same run.
    for shape in ("2048x2048x2048", "4096x4096x4096"):
        row = f"fp32/{shape}_bias_gelu_residual"
        fused = counter(find(results, f"ops/matmul_epilogue/{row}"), "flops_per_s")
        unfused = counter(find(results, f"ops/matmul_epilogue_unfused/{row}"), "flops_per_s")
        dnnl = counter(find(results, f"baseline/onednn_matmul_postops/{row}"), "flops_per_s")
        add(f"baseline/onednn_matmul_postops/{row}", "gflops", dnnl and dnnl / 1e9, "GFLOP/s",
            note="oneDNN matmul + bias, post-ops eltwise gelu_erf + binary add")
        add(f"ops/matmul_epilogue_unfused/{row}", "gflops", unfused and unfused / 1e9, "GFLOP/s",
            note="aicore Matmul -> Add -> GeluV2 -> Add through GM")
        if fused is None:
            continue
        add(f"ops/matmul_epilogue/{row}", "ratio_to_unfused", fused / 1e9, "GFLOP/s",
            unfused and unfused / 1e9, unfused and fused / unfused, note="target >= 1.2")
        add(f"ops/matmul_epilogue/{row}", "ratio_to_onednn_postops", fused / 1e9, "GFLOP/s",
            dnnl and dnnl / 1e9, dnnl and fused / dnnl, note="target >= 0.9")
    # --- end of the matmul epilogue block -------------------------------------------------------

    check = find(results, "check/overhead")
    add("check/overhead", "factor", counter(check, "factor"), "x",
        note="add_custom-style kernel, all checks on vs off (target <= 20)")
    prof = find(results, "perf/profile_overhead")
    add("perf/profile_overhead", "factor", counter(prof, "factor"), "x",
        note="recording on vs off (target <= 3)")
    replay = find(results, "perf/replay")
    add("perf/replay", "instructions_per_second", counter(replay, "instructions_per_second"),
        "instr/s", note="timing-model replay rate (target >= 1e7)")

    def ns(entry, key="cpu_time"):
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[entry.get("time_unit", "ns")]
        return entry[key] * scale

    # The cached pair at every size; the row is the slowest size, against glibc at that size.
    worst = None
    for name, entry in results.items():
        if base_name(name).startswith("alloc/cached_pair/"):
            size = base_name(name).rsplit("/", 1)[1]
            glibc = find(results, "alloc/glibc_pair/" + size)
            if worst is None or ns(entry) > worst[0]:
                worst = (ns(entry), size, glibc and ns(glibc))
    if worst:
        add("alloc/cached_pair", "ns", worst[0], "ns", worst[2],
            worst[0] / worst[2] if worst[2] else None,
            note=f"slowest size {worst[1]} B, CPU time; baseline glibc malloc+free (target < 200)")

    for when, load in (("start", load_start), ("end", load_end)):
        if load:
            add(f"machine/loadavg_{when}", "loadavg_1min", load[0], "load", threads=0,
                note=f"/proc/loadavg {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
                     f"{os.cpu_count()} CPUs")

    def fmt(v, digits=3):
        if v is None:
            return "-"
        return f"{v:.{digits}f}" if isinstance(v, float) else str(v)

    header = ("name", "metric", "value", "unit", "baseline", "ratio", "threads", "note")
    table = [header] + [(r["name"], r["metric"], fmt(r["value"]), r["unit"], fmt(r["baseline"]),
                         fmt(r["ratio"]), str(r["threads"]), r["note"]) for r in rows]
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    for i, row in enumerate(table):
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * w for w in widths))

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        for r in rows:
            f.write(json.dumps({k: r[k] for k in ("name", "metric", "value", "unit", "baseline",
                                                  "ratio", "threads")}) + "\n")
    print(f"wrote {len(rows)} rows to {args.out}")
    required = {"machine/fma_fp32_peak", "machine/stream_copy", "machine/stream_add",
                "vector/add_custom", "vector/exp", "sim/api_call_ns", "sim/scaling_2threads"}
    missing = sorted(required - {r["name"] for r in rows})
    if missing and not args.filter:
        print("error: no result for " + ", ".join(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
