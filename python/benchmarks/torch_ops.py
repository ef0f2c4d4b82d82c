#!/usr/bin/env python3
"""torch/<op> rows: torch.ops.aicore.<op> against torch's own CPU op on the same tensors.

Usage: PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/torch_ops.py
       [--threads 1] [--repeats 7] [--rows 4096] [--cols 4096] [--json out.jsonl]

Each op runs `repeats` times after one warm-up; the row reports both medians and
ratio_to_torch = torch's median / aicore's median (above 1: aicore is faster). --threads sets
torch.set_num_threads and AICORE_THREADS (aicore's worker threads per launch) alike. Two more
rows give what eager mode pays per call, Python call to result, median of 200: torch/
dispatch_overhead_us (a 1-element torch.ops.aicore.silu on a CPU tensor) and torch/
device_dispatch_overhead_us (F.silu on a 1-element aicore device tensor), each with torch's own
CPU F.silu as the baseline. Timing is reported, never asserted.
"""

import argparse
import json
import os
import statistics
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--rows", type=int, default=4096)
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--json", help="append the rows as JSON lines to this file")
    args = p.parse_args()
    os.environ["AICORE_THREADS"] = str(args.threads)  # read when aicore's scheduler starts
    import torch
    import torch.nn.functional as F
    import aicore  # loads torch.ops.aicore
    torch.set_num_threads(args.threads)
    ops = torch.ops.aicore

    g = torch.Generator().manual_seed(0)
    x = torch.randn(args.rows, args.cols, generator=g)
    w, b = torch.randn(args.cols, generator=g), torch.randn(args.cols, generator=g)
    cases = [
        ("softmax", lambda: ops.softmax(x, -1), lambda: torch.softmax(x, -1)),
        ("log_softmax", lambda: ops.log_softmax(x, -1), lambda: torch.log_softmax(x, -1)),
        ("layer_norm", lambda: ops.layer_norm(x, [args.cols], w, b, 1e-5),
         lambda: F.layer_norm(x, [args.cols], w, b, 1e-5)),
        ("gelu", lambda: ops.gelu(x), lambda: F.gelu(x)),
        ("silu", lambda: ops.silu(x), lambda: F.silu(x)),
    ]

    def median_s(fn):
        fn()
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return statistics.median(times)

    def time_calls(fn, n):
        fn()
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return times

    rows = []
    for name, ours, theirs in cases:
        a, t = median_s(ours), median_s(theirs)
        row = {"name": f"torch/{name}", "shape": [args.rows, args.cols], "dtype": "float32",
               "threads": args.threads, "repeats": args.repeats, "aicore_ms": a * 1e3,
               "torch_ms": t * 1e3, "ratio_to_torch": t / a}
        rows.append(row)
        print(f"{row['name']:<20} {args.rows}x{args.cols} fp32  aicore {a * 1e3:8.2f} ms  "
              f"torch {t * 1e3:8.2f} ms  ratio_to_torch {t / a:5.2f}", flush=True)
    one = torch.randn(1)
    one_dev = one.to(aicore.device(0))
    for name, ours in (("dispatch_overhead_us", lambda: ops.silu(one)),
                       ("device_dispatch_overhead_us", lambda: F.silu(one_dev))):
        a = statistics.median(time_calls(ours, 200))
        t = statistics.median(time_calls(lambda: F.silu(one), 200))
        row = {"name": f"torch/{name}", "aicore_us": a * 1e6, "torch_cpu_us": t * 1e6,
               "threads": args.threads}
        rows.append(row)
        print(f"{row['name']:<32} aicore {a * 1e6:8.1f} us  torch cpu {t * 1e6:6.1f} us",
              flush=True)
    if args.json:
        with open(args.json, "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
