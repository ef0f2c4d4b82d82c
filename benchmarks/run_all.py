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


def attention_rows(results, add, counter, ns, fma_gf, bf16_gf, torch):
    """Adds the flash-attention rows: fused against the FMA peak, against the unfused composition
    of aicore's operators measured in the same run (time and peak device bytes), against the lean
    unfused PyTorch composition (torch_baselines.py, same run), bf16 against fp32 and 2 worker
    threads against 1."""
    for run, entry in sorted(results.items()):
        base = base_name(run)
        if not base.startswith("ops/flash_attention/"):
            continue
        flops = counter(entry, "flops_per_s")
        gf = flops and flops / 1e9
        if base.endswith("/2threads"):
            one = find(results, base[:-len("/2threads")])
            if one is None:
                continue
            speedup = ns(one, "real_time") / ns(entry, "real_time")
            busy = ns(entry) / ns(entry, "real_time")
            add(base, "scaling_vs_1thread", speedup, "x", 2.0, speedup / 2.0, threads=2,
                note=f"wall time, 1 -> 2 worker threads, target >= 1.7x; CPUs busy {busy:.2f}")
            continue
        if "/bf16/" in base:
            fp32 = find(results, base.replace("/bf16/", "/fp32/"))
            add(base, "ratio_to_bf16_peak", gf, "GFLOP/s", bf16_gf, bf16_gf and gf and gf / bf16_gf,
                note="useful flops, 1 worker thread; Mmad runs bf16 on AMX tiles where the CPU "
                     "has them, so the ratio can exceed 1")
            if fp32:
                t, t32 = ns(entry) / 1e6, ns(fp32) / 1e6
                add(base, "ratio_to_fp32", t, "ms", t32, t and t32 / t,
                    note="fp32 row's CPU time / this row's, same run, target >= 2")
            continue
        unfused = find(results, base.replace("ops/flash_attention/", "ops/attention_unfused/"))
        add(base, "ratio_to_fma_peak", gf, "GFLOP/s", fma_gf, fma_gf and gf and gf / fma_gf,
            note="useful flops (causal: the visible half), 1 worker thread, target >= 0.60")
        peak, upeak = counter(entry, "peak_bytes"), counter(unfused, "peak_bytes")
        add(base, "peak_bytes", peak, "B", upeak, upeak and peak and peak / upeak,
            note="device allocator peak incl. operands; baseline: the unfused composition "
                 f"(extra {counter(entry, 'extra_peak_bytes') or 0:.3g} B vs "
                 f"{counter(unfused, 'extra_peak_bytes') or 0:.3g} B)")
        if unfused:
            t, tu = ns(entry) / 1e6, ns(unfused) / 1e6
            add(base.replace("ops/flash_attention/", "ops/attention_unfused/"), "ms", tu, "ms",
                note="matmul -> muls (-> add mask) -> softmax -> matmul through GM, CPU time")
            add(base, "ratio_to_unfused", t, "ms", tu, t and tu / t,
                note="unfused CPU time / fused CPU time, same run")
        tr = torch.get(base)
        if tr and tr.get("kind") == "attention" and tr.get("torch_s"):
            t, tt = ns(entry) / 1e6, tr["torch_s"] * 1e3
            add(base, "ratio_to_torch_unfused", t, "ms", tt, t and tt / t,
                note=f"PyTorch {tr.get('torch_version')} torch.softmax(q @ k^T * scale"
                     f"{' + mask' if tr.get('causal') else ''}, -1) @ v, 1 thread, CPU time, "
                     f"median of {tr.get('repeats')}, same run, target >= 3")


def ops_matmul_rows(results, add, counter):
    """Adds the aclnnMatmul rows: ratio to oneDNN in the same iterations, 2-thread scaling."""
    one = {}
    for run, entry in sorted(results.items()):
        base = base_name(run)
        if not base.startswith(("ops/matmul/", "ops/matmul_no_panel_cache/")):
            continue
        name, threads = base.rsplit("/threads_", 1)
        threads = int(threads)
        gf = counter(entry, "flops_per_s")
        dnnl = counter(entry, "onednn_flops_per_s")
        wall = counter(entry, "wall_flops_per_s")
        busy = counter(entry, "cpus_busy")
        if gf is None or dnnl is None:
            continue
        clock = "process CPU time" if threads == 1 else "wall time"
        target = ", target >= 0.95" if name.startswith("ops/matmul/") else ""
        add(name if threads == 1 else f"{name}/{threads}threads", "ratio_to_onednn", gf / 1e9,
            "GFLOP/s", dnnl / 1e9, counter(entry, "ratio_to_onednn"), threads=threads,
            note=f"dnnl_sgemm in the same iterations ({entry.get('label', '')}), {clock}" + target)
        if threads == 1:
            one[name] = wall
        elif one.get(name) and wall:
            add(f"{name}/{threads}threads", "scaling_vs_1thread", wall / one[name], "x", 2.0,
                wall / one[name] / 2.0, threads=threads,
                note=f"wall-time GFLOP/s vs the 1-thread row; CPUs busy {busy:.2f}")


# Targets of the ops/ rows (issue 11): op -> (baseline ratio, oneDNN ratio); None: report only.
OPS_TARGETS = {"softmax": (0.90, 1.25), "layer_norm": (0.85, 1.35), "rms_norm": (0.85, None),
               "gelu": (0.90, None), "add": (0.90, None)}


def torch_baselines(array_mb):
    """Runs benchmarks/torch_baselines.py under /usr/bin/python3; returns {row name: row}."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_baselines.py")
    cmd = ["/usr/bin/python3", script, "--threads", "1"]
    if array_mb > 0:
        cmd += ["--array-mb", str(array_mb)]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, env=env, text=True)
    except OSError as e:
        print(f"torch baselines skipped: {e}", file=sys.stderr)
        return {}
    if proc.returncode != 0:
        print(f"torch baselines skipped: {script} exited with {proc.returncode}", file=sys.stderr)
        return {}
    rows = {}
    for line in proc.stdout.splitlines():
        if line.strip():
            row = json.loads(line)
            rows[row["name"]] = row
    return rows


def ops_rows(results, add, counter, torch):
    """Adds the ops/ rows of bench_ops with their side-by-side ratios and the torch baselines."""
    for run, entry in sorted(results.items()):
        base = base_name(run)
        if not base.startswith("ops/") or base == "ops/aclnn_overhead_us":
            continue
        parts = base.split("/")
        op, dtype = parts[1], parts[2]
        if op not in OPS_TARGETS:  # ops/matmul, ops/flash_attention: rows of other binaries
            continue
        label = entry.get("label", "")
        if base.endswith("/2threads"):
            scaling, copy_scaling = counter(entry, "scaling"), counter(entry, "copy_scaling")
            busy = counter(entry, "cpu_busy")
            what = "stream_add" if op == "add" else "stream_copy"
            add(base, "scaling", scaling, "x", copy_scaling,
                scaling and copy_scaling and scaling / copy_scaling, threads=2,
                note=f"wall time, 1 -> 2 worker threads; baseline: {what} on 1 -> 2 threads "
                     f"beside it; CPUs busy {busy or 0:.2f}; {label}")
            continue
        bw = counter(entry, "bytes_per_s")
        target_copy, target_dnnl = OPS_TARGETS.get(op, (None, None))
        if dtype != "fp32":
            target_copy = target_dnnl = None
        if op == "add":
            ref, metric = counter(entry, "add_bytes_per_s"), "ratio_to_stream_add"
        else:
            ref, metric = counter(entry, "copy_bytes_per_s"), "ratio_to_stream_copy"
        tgt = f", target >= {target_copy}" if target_copy else ""
        add(base, metric, bw and bw / 1e9, "GB/s", ref and ref / 1e9, bw and ref and bw / ref,
            note=f"{metric[9:]} on the same buffers, same process{tgt}; {label}")
        nt = counter(entry, "copy_nt_bytes_per_s")
        if nt:
            add(base, "ratio_to_stream_copy_nt", bw / 1e9, "GB/s", nt / 1e9, bw / nt,
                note="copy with streaming stores on the same buffers")
        dnnl = counter(entry, "onednn_bytes_per_s")
        if dnnl:
            tgt = f", target >= {target_dnnl}" if target_dnnl else ""
            add(base, "ratio_to_onednn", bw / 1e9, "GB/s", dnnl / 1e9, bw / dnnl,
                note=f"oneDNN {op} primitive, 1 OpenMP thread, same buffers{tgt}")
        t = torch.get(base)
        if t and not t.get("skipped") and bw:
            best = min(v for v in (t.get("torch_s"), t.get("torch_out_s")) if v)
            tbw = t["bytes"] / best
            add(base, "ratio_to_torch", bw / 1e9, "GB/s", tbw / 1e9, bw / tbw,
                note=f"PyTorch {t.get('torch_version')} CPU, 1 thread, the faster of the "
                     f"functional and out= calls, in its own process (shape "
                     f"{'x'.join(map(str, t['shape']))})")
    for name, t in sorted(torch.items()):
        if t.get("kind") == "attention":  # attention_rows' baselines
            continue
        if t.get("skipped"):
            add("baseline/torch/" + name[4:], "skipped", 0.0, "-", threads=1,
                note="torch: " + t["skipped"])
            continue
        best = min(v for v in (t.get("torch_s"), t.get("torch_out_s")) if v)
        tbw = t["bytes"] / best
        cbw = t["copy_bytes"] / t["copy_s"]
        add("baseline/torch/" + name[4:], "ratio_to_torch_copy", tbw / 1e9, "GB/s", cbw / 1e9,
            tbw / cbw, note="torch's op against its own y.copy_(x), one process, CPU time")
    overhead = find(results, "ops/aclnn_overhead_us")
    add("ops/aclnn_overhead_us", "us", counter(overhead, "overhead_us"), "us",
        note=f"1-element softmax: GetWorkspaceSize + aclnnSoftmax + synchronize, median; p90 "
             f"{counter(overhead, 'p90_us') or 0:.1f} us (target < 20)")


def torch_rows(build, env, add):
    """The torch/* rows: python/benchmarks/torch_ops.py under Debian's /usr/bin/python3 when the
    build has the PyTorch extension (build/python/aicore/libaicore_torch.so); skipped otherwise."""
    package = os.path.join(build, "python")
    python = os.environ.get("AICORE_PYTHON", "/usr/bin/python3")
    if not os.path.exists(os.path.join(package, "aicore", "libaicore_torch.so")) or \
            not os.access(python, os.X_OK):
        print("torch rows: skipped (no PyTorch extension in the build)", file=sys.stderr)
        return
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                          "benchmarks", "torch_ops.py")
    out = os.path.join(build, "torch_ops_rows.jsonl")
    if os.path.exists(out):
        os.remove(out)
    cmd = [python, script, "--threads", "1", "--json", out]
    print("+ " + " ".join(cmd), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, env=dict(env, PYTHONPATH=package), stdout=sys.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"{script} exited with status {proc.returncode}")
    with open(out) as f:
        for line in f:
            r = json.loads(line)
            name = r["name"]
            if "ratio_to_torch" in r:
                shape = "x".join(map(str, r["shape"]))
                add(name, "ratio_to_torch", r["aicore_ms"], "ms", r["torch_ms"],
                    r["ratio_to_torch"], threads=r["threads"],
                    note=f"{shape} fp32, baseline torch's CPU op on the same tensors")
            elif name.endswith("_us"):
                add(name, "us_per_call", r["aicore_us"], "us", r["torch_cpu_us"],
                    r["aicore_us"] / r["torch_cpu_us"], threads=r["threads"],
                    note="1 element, Python call to result; baseline torch's CPU F.silu")
            elif name == "torch/copy_overhead_reduction":
                block = "x".join(map(str, r["block"]))
                add(name, "bytes_copied", r["resident_bytes"], "B", r["naive_bytes"],
                    r["resident_bytes"] / r["naive_bytes"],
                    note=f"transformer block {block} fwd+bwd, device-resident vs every op "
                         f"copying: -{r['bytes_reduction'] * 100:.1f}% bytes")
                add(name + "_time", "copy_ms", r["resident_copy_ms"], "ms", r["naive_copy_ms"],
                    r["resident_copy_ms"] / r["naive_copy_ms"],
                    note=f"time copying, -{r['time_reduction'] * 100:.1f}%; block wall "
                         f"{r['naive_wall_ms']:.1f} -> {r['resident_wall_ms']:.1f} ms")


def tune_rows(results, add, counter):
    """ops/tune/<op>/<mode>: the host GB/s of each AICORE_TUNE mode's plan, with its ratio to
    off's plan run alternately in the same loop, and the modeled ascend910b1 time of that plan
    against off's (bench_tune)."""
    for op, shape in (("softmax", "fp32 4096x4096"), ("layer_norm", "fp32 8192x4096")):
        for mode in ("off", "model", "measure"):
            entry = find(results, f"ops/tune/{op}/{mode}")
            if entry is None:
                continue
            bw = counter(entry, "bytes_per_s")
            ratio = counter(entry, "ratio_to_off")
            plan = entry.get("label", "")
            add(f"ops/tune/{op}/{mode}", "host_ratio_to_off", bw and bw / 1e9, "GB/s",
                bw and ratio and bw / ratio / 1e9, ratio,
                note=f"{shape}, plan {plan}; off's plan alternates in the same loop, "
                     f"ratio = off time / this (>= 1: not slower)")
            us = counter(entry, "modeled_us")
            off_us = counter(entry, "off_modeled_us")
            add(f"ops/tune/{op}/{mode}/modeled", "modeled_speedup_vs_off", us, "us", off_us,
                us and off_us and off_us / us,
                note="ascend910b1 modeled time of the plan; ratio = off / this (>= 1)")


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
                   "alloc/bench_alloc", "bench_matmul", "bench_attention", "bench_ops"):
        path = os.path.join(bench_dir, binary)
        if not os.access(path, os.X_OK):
            if args.filter:  # a partial run: the rows of the binaries that exist
                print(f"warning: {path} is missing; skipped", file=sys.stderr)
                continue
            print(f"error: {path} is missing (build the bench_* targets first)", file=sys.stderr)
            return 1
        one_thread = binary in ("bench_matmul", "bench_attention", "bench_ops")
        results.update(run_binary(path, args.filter, blas_env if one_thread else env))
    # aclnnMatmul against oneDNN (built only where OpenMP is found: oneDNN's threads are OpenMP's).
    ops_matmul = os.path.join(bench_dir, "bench_ops_matmul")
    if os.access(ops_matmul, os.X_OK):
        results.update(run_binary(ops_matmul, args.filter, blas_env))
    else:
        print(f"note: {ops_matmul} is missing; no ops/matmul rows", file=sys.stderr)
    torch = {}
    if not args.filter or "ops/" in args.filter:
        torch = torch_baselines(args.array_mb)
    # Strategy selection has its own binary and block (tune_rows).
    tune_bench = os.path.join(bench_dir, "bench_tune")
    if os.access(tune_bench, os.X_OK):
        results.update(run_binary(tune_bench, args.filter, env))
    else:
        print(f"note: {tune_bench} is missing; no ops/tune rows", file=sys.stderr)
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
    copy_nt = counter(find(results, "machine/stream_copy_nt"), "bytes_per_s")
    add_bw = counter(find(results, "machine/stream_add"), "bytes_per_s")
    array_mb = counter(find(results, "machine/stream_add"), "array_bytes")
    note = f"{array_mb / 2**20:.0f} MiB arrays" if array_mb else ""
    add("machine/stream_copy", "bandwidth", copy and copy / 1e9, "GB/s", note=note)
    add("machine/stream_add", "bandwidth", add_bw and add_bw / 1e9, "GB/s", note=note)
    add("machine/stream_copy_nt", "ratio_to_stream_copy", copy_nt and copy_nt / 1e9, "GB/s",
        copy and copy / 1e9, copy_nt and copy and copy_nt / copy,
        note=note + ", streaming stores (no write-allocate)")

    bf16 = counter(find(results, "machine/fma_bf16_peak"), "flops_per_s")
    add("machine/fma_bf16_peak", "gflops", bf16 and bf16 / 1e9, "GFLOP/s",
        note="VDPBF16PS, 16 accumulators")
    fma_gf = counter(fma, "flops_per_s") and counter(fma, "flops_per_s") / 1e9
    matmul_rows(results, add, counter, fma_gf, bf16 and bf16 / 1e9)
    tune_rows(results, add, counter)

    ops_matmul_rows(results, add, counter)

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

    ops_rows(results, add, counter, torch)

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
        one = find(results, f"ops/matmul_epilogue/{row}")
        two = find(results, f"ops/matmul_epilogue/{row}/2threads")
        if one and two and two.get("real_time"):
            speedup = one["real_time"] / two["real_time"]
            add(f"ops/matmul_epilogue/{row}/2threads", "scaling_vs_1thread", speedup, "x", 2.0,
                speedup / 2, threads=2, note="wall time, 2 vs 1 worker threads, target >= 1.7; CPUs busy "
                f"{two['cpu_time'] / two['real_time']:.2f} (process CPU / wall of the 2-thread "
                "row: near 1 means the second thread did not get a CPU)")
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

    attention_rows(results, add, counter, ns, fma_gf, bf16 and bf16 / 1e9, torch)
    torch_rows(args.build, env, add)

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
