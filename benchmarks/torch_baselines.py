#!/usr/bin/python3
"""PyTorch CPU baselines for the ops/ rows of bench_ops (Debian's PyTorch 1.13, one thread).

Usage: /usr/bin/python3 benchmarks/torch_baselines.py [--array-mb N] [--repeats 5] [--threads 1]
           [--attention-repeats 3] [--only ops|attention]

For every ops/ row shape (cut by --array-mb exactly as bench_ops cuts it under
AICORE_BENCH_ARRAY_MB: rows cut, columns kept, elementwise lengths cut), times torch's op twice,
as a user calls it (F.softmax, F.layer_norm, ...: a new output tensor per call, so large outputs
are fresh pages) and into a preallocated output (the aten out= overload, where 1.13 has one), and
torch's own copy (y.copy_(x)) on the same tensors, all interleaved round by round. Prints one
JSON object per row: name, shape, dtype, threads, medians of process CPU time in seconds (torch_s,
torch_out_s or null, copy_s; *_wall_s the wall times) and bytes (the op's, counted as bench_ops
counts them; copy_bytes the copy's).
Rows whose dtype torch's CPU kernels lack are printed with "skipped".

Attention rows (kind "attention", named as bench_attention's fused rows): the lean unfused
composition torch.softmax(q @ k.transpose(-2, -1) * scale, -1) @ v (causal: + an additive -inf
mask before the softmax) on fp32 BNSD tensors, --attention-repeats times (default 3, 1 for
shapes above 100 GFLOP) after a warm-up on a small shape; torch_s is the median process CPU
time, flops the useful flops as bench_attention counts them. --array-mb does not cut them.
Timing is never asserted.
"""

import argparse
import json
import statistics
import sys
import time

ROWS = [
    ("softmax", "fp32", (4096, 4096)), ("softmax", "fp32", (65536, 1024)),
    ("softmax", "fp32", (1024, 32768)), ("layer_norm", "fp32", (8192, 4096)),
    ("rms_norm", "fp32", (8192, 4096)), ("gelu", "fp32", (67108864,)),
    ("add", "fp32", (67108864,)), ("softmax", "bf16", (4096, 4096)),
    ("softmax", "fp16", (4096, 4096)), ("layer_norm", "bf16", (8192, 4096)),
    ("layer_norm", "fp16", (8192, 4096)),
]


# (B, N, S, D, causal) of bench_attention's fp32 rows.
ATTENTION_ROWS = [(1, 16, 1024, 64, False), (1, 16, 1024, 64, True), (1, 16, 4096, 128, False),
                  (1, 16, 4096, 128, True), (8, 16, 2048, 128, False), (1, 8, 512, 64, False)]


def attention_rows(torch, threads, repeats):
    """Prints the attention rows (see the module docstring)."""
    def compose(q, k, v, scale, bias):
        s = q @ k.transpose(-2, -1) * scale
        if bias is not None:
            s = s + bias
        return torch.softmax(s, -1) @ v

    g = torch.Generator().manual_seed(0)
    w = torch.rand((1, 2, 64, 32), generator=g)
    compose(w, w, w, 0.5, None)  # warm-up: thread pool, allocator
    for b, n, s, d, causal in ATTENTION_ROWS:
        name = f"ops/flash_attention/fp32/b{b}h{n}_s{s}_d{d}" + ("_causal" if causal else "")
        pairs = s * (s + 1) / 2 if causal else s * s
        flops = 4.0 * b * n * pairs * d
        row = {"name": name, "kind": "attention", "shape": [b, n, s, d], "dtype": "fp32",
               "causal": causal, "threads": threads, "torch_version": torch.__version__,
               "flops": flops}
        q, k, v = (torch.rand((b, n, s, d), generator=g) - 0.5 for _ in range(3))
        bias = torch.triu(torch.full((s, s), float("-inf")), 1) if causal else None
        scale = d ** -0.5
        reps = repeats if flops <= 100e9 else 1
        times, walls = [], []
        for _ in range(reps):
            c0, w0 = time.process_time(), time.perf_counter()
            compose(q, k, v, scale, bias)
            times.append(time.process_time() - c0)
            walls.append(time.perf_counter() - w0)
        row["torch_s"] = statistics.median(times)
        row["torch_wall_s"] = statistics.median(walls)
        row["repeats"] = reps
        print(json.dumps(row), flush=True)
        del q, k, v, bias


def cut(shape, cap_bytes):
    """The shape bench_ops measures under a per-tensor cap of cap_bytes (fp32 bytes)."""
    if not cap_bytes:
        return shape
    if len(shape) == 1:
        return (min(shape[0], max(64, cap_bytes // 4)),)
    return (min(shape[0], max(1, cap_bytes // (4 * shape[1]))), shape[1])


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--array-mb", type=int, default=0)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--attention-repeats", type=int, default=3)
    p.add_argument("--only", choices=("ops", "attention"), default=None,
                   help="print only the ops/ rows or only the attention rows")
    args = p.parse_args()
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(args.threads)
    dtypes = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    cap = args.array_mb << 20
    aten = torch.ops.aten

    if args.only != "ops":
        attention_rows(torch, args.threads, args.attention_repeats)
    for op, dt, full in (ROWS if args.only != "attention" else []):
        shape = cut(full, cap)
        name = f"ops/{op}/{dt}/{'x'.join(map(str, full))}"
        row = {"name": name, "shape": list(shape), "dtype": dt, "threads": args.threads,
               "torch_version": torch.__version__}
        g = torch.Generator().manual_seed(0)
        x = (torch.rand(shape, generator=g) * 8 - 4).to(dtypes[dt])
        x2 = (torch.rand(shape, generator=g) * 8 - 4).to(dtypes[dt]) if op == "add" else None
        y = torch.empty_like(x)
        cols = shape[-1]
        w = torch.rand(cols, generator=g) + 0.5
        b = torch.rand(cols, generator=g)
        if dt != "fp32":
            w, b = w.to(dtypes[dt]), b.to(dtypes[dt])  # torch 1.13 wants params in x's dtype
        out_fn = None
        if op == "softmax":
            fn = lambda: F.softmax(x, -1)
            out_fn = lambda: aten._softmax.out(x, -1, False, out=y)
        elif op == "layer_norm":
            fn = lambda: F.layer_norm(x, [cols], w, b, 1e-5)
        elif op == "rms_norm":  # torch 1.13 has no RMS norm op: the usual eager composition
            fn = lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
        elif op == "gelu":
            fn = lambda: F.gelu(x, approximate="tanh")
            out_fn = lambda: aten.gelu.out(x, approximate="tanh", out=y)
        else:
            fn = lambda: torch.add(x, x2)
            out_fn = lambda: torch.add(x, x2, out=y)
        fns = {"torch": fn, "copy": lambda: y.copy_(x)}
        if out_fn is not None:
            fns["torch_out"] = out_fn
        try:
            for f in fns.values():
                f()
        except RuntimeError as e:  # e.g. a kernel not implemented for Half on CPU
            row["skipped"] = str(e).splitlines()[0]
            print(json.dumps(row), flush=True)
            continue
        times = {k: [] for k in fns}
        walls = {k: [] for k in fns}
        keys = list(fns)
        for r in range(args.repeats):
            for j in range(len(keys)):
                k = keys[(r + j) % len(keys)]
                c0, w0 = time.process_time(), time.perf_counter()
                fns[k]()
                times[k].append(time.process_time() - c0)
                walls[k].append(time.perf_counter() - w0)
        elements = 1
        for d in shape:
            elements *= d
        row["bytes"] = elements * x.element_size() * (3 if op == "add" else 2)
        row["copy_bytes"] = elements * x.element_size() * 2
        for k in fns:
            row[k + "_s"] = statistics.median(times[k])
            row[k + "_wall_s"] = statistics.median(walls[k])
        row.setdefault("torch_out_s", None)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
