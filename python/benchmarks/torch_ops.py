#!/usr/bin/env python3
"""torch/<op> rows: torch.ops.aicore.<op> against torch's own CPU op on the same tensors.

Usage: PYTHONPATH=build/python /usr/bin/python3 python/benchmarks/torch_ops.py
       [--threads 1] [--repeats 7] [--rows 4096] [--cols 4096] [--json out.jsonl]
       [--linear 512,1024,1024] [--attention 4,8,256,64]

Each op runs `repeats` times after one warm-up; the row reports both medians and
ratio_to_torch = torch's median / aicore's median (above 1: aicore is faster). --threads sets
torch.set_num_threads and AICORE_THREADS (aicore's worker threads per launch) alike. Two more
rows give what eager mode pays per call, Python call to result, median of 200: torch/
dispatch_overhead_us (F.silu on a 1-element aicore device tensor: the device's native silu
kernel) and torch/cpu_dispatch_overhead_us (a 1-element torch.ops.aicore.silu on a CPU tensor),
each with torch's own CPU F.silu as the baseline. torch/linear_gelu (--linear M,K,N:
ops.linear(x, w, b, "gelu") against F.gelu(F.linear(x, w, b))) and torch/scaled_dot_product_attention (--attention B,H,L,E
against softmax(q k^T / sqrt(E)) v composed in torch: 1.13 has no F.scaled_dot_product_attention)
are ratio_to_torch rows too.

torch/copy_overhead_reduction runs one transformer block (pre-norm attention + GELU MLP, --block
B,L,D,H) forward and backward twice: naive, on CPU tensors with every aten op's tensor inputs
copied host->device and its results copied back (a TorchDispatchMode), and device-resident (the
parameters and the input moved to the aicore device once, the loss read back once). Both counts
come from the device's copy counters (torch.ops.aicore._copy_stats: every host<->device copy_,
the CPU fallback's included), so the row reports bytes copied and time copying, both measured,
and reduction = 1 - resident / naive for each.
Timing is reported, never asserted.
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
    p.add_argument("--linear", default="512,1024,1024", help="M,K,N of linear+gelu")
    p.add_argument("--attention", default="4,8,256,64", help="B,H,L,E of the attention row")
    p.add_argument("--block", default="2,64,128,4", help="B,L,D,H of the transformer block")
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
    shapes = {name: [args.rows, args.cols] for name, _, _ in cases}
    m, k, n = (int(v) for v in args.linear.split(","))
    lx, lw, lb = (torch.randn(s, generator=g) * 0.1 for s in ((m, k), (n, k), (n,)))
    cases.append(("linear_gelu", lambda: ops.linear(lx, lw, lb, "gelu"),
                  lambda: F.gelu(F.linear(lx, lw, lb))))
    shapes["linear_gelu"] = [m, k, n]
    bb, hh, ll, ee = (int(v) for v in args.attention.split(","))
    q, kk, v = (torch.randn(bb, hh, ll, ee, generator=g) for _ in range(3))
    cases.append(("scaled_dot_product_attention",
                  lambda: ops.scaled_dot_product_attention(q, kk, v),
                  lambda: torch.softmax(q @ kk.transpose(-2, -1) / ee ** 0.5, -1) @ v))
    shapes["scaled_dot_product_attention"] = [bb, hh, ll, ee]

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
        row = {"name": f"torch/{name}", "shape": shapes[name], "dtype": "float32",
               "threads": args.threads, "repeats": args.repeats, "aicore_ms": a * 1e3,
               "torch_ms": t * 1e3, "ratio_to_torch": t / a}
        rows.append(row)
        print(f"{row['name']:<36} {'x'.join(map(str, shapes[name]))} fp32  "
              f"aicore {a * 1e3:8.2f} ms  "
              f"torch {t * 1e3:8.2f} ms  ratio_to_torch {t / a:5.2f}", flush=True)
    one = torch.randn(1)
    one_dev = one.to(aicore.device(0))
    for name, ours in (("dispatch_overhead_us", lambda: F.silu(one_dev)),
                       ("cpu_dispatch_overhead_us", lambda: ops.silu(one))):
        a = statistics.median(time_calls(ours, 200))
        t = statistics.median(time_calls(lambda: F.silu(one), 200))
        row = {"name": f"torch/{name}", "aicore_us": a * 1e6, "torch_cpu_us": t * 1e6,
               "threads": args.threads}
        rows.append(row)
        print(f"{row['name']:<32} aicore {a * 1e6:8.1f} us  torch cpu {t * 1e6:6.1f} us",
              flush=True)
    rows.append(copy_overhead(torch, aicore, [int(v) for v in args.block.split(",")]))
    r = rows[-1]
    print(f"{r['name']:<32} bytes {r['naive_bytes']} -> {r['resident_bytes']} "
          f"(-{r['bytes_reduction'] * 100:.1f}%)  copy time {r['naive_copy_ms']:.2f} -> "
          f"{r['resident_copy_ms']:.2f} ms (-{r['time_reduction'] * 100:.1f}%)", flush=True)
    if args.json:
        with open(args.json, "a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
    return 0


def copy_overhead(torch, aicore, block):
    """The torch/copy_overhead_reduction row (module docstring)."""
    import torch.nn.functional as F
    from torch.utils._pytree import tree_map
    from torch.utils._python_dispatch import TorchDispatchMode
    b, l, d, h = block
    dev = aicore.device(0)
    g = torch.Generator().manual_seed(1)

    def param(*shape):
        return (torch.randn(*shape, generator=g) * shape[-1] ** -0.5).requires_grad_(True)

    params = {"ln1_w": torch.ones(d, requires_grad=True), "ln1_b": torch.zeros(d,
                                                                               requires_grad=True),
              "qkv_w": param(3 * d, d), "qkv_b": torch.zeros(3 * d, requires_grad=True),
              "o_w": param(d, d), "o_b": torch.zeros(d, requires_grad=True),
              "ln2_w": torch.ones(d, requires_grad=True), "ln2_b": torch.zeros(d,
                                                                               requires_grad=True),
              "fc1_w": param(4 * d, d), "fc1_b": torch.zeros(4 * d, requires_grad=True),
              "fc2_w": param(d, 4 * d), "fc2_b": torch.zeros(d, requires_grad=True)}
    x = torch.randn(b, l, d, generator=g)

    def block_loss(x, p):
        y = F.layer_norm(x, [d], p["ln1_w"], p["ln1_b"])
        q, k, v = F.linear(y, p["qkv_w"], p["qkv_b"]).split(d, -1)
        q, k, v = (t.reshape(b, l, h, d // h).transpose(1, 2) for t in (q, k, v))
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, -1) @ v
        x = x + F.linear(a.transpose(1, 2).reshape(b, l, d), p["o_w"], p["o_b"])
        y = F.layer_norm(x, [d], p["ln2_w"], p["ln2_b"])
        x = x + F.linear(F.gelu(F.linear(y, p["fc1_w"], p["fc1_b"])), p["fc2_w"], p["fc2_b"])
        return x.pow(2).mean()

    class EveryOpCopies(TorchDispatchMode):
        """Each aten op: tensor inputs host->device, the op on the device, results back."""
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if any(a.alias_info is not None and a.alias_info.is_write
                   for a in func._schema.arguments):  # its result would not reach the CPU
                raise RuntimeError(f"the naive mode does not handle the in-place op {func}")

            def up(t):
                return t.to(dev) if isinstance(t, torch.Tensor) and t.device.type == "cpu" else t
            out = func(*tree_map(up, args), **tree_map(up, kwargs))
            return tree_map(lambda t: t.cpu() if isinstance(t, torch.Tensor) else t, out)

    def run(resident):
        p = {k: (t.detach().to(dev).requires_grad_(True) if resident else t)
             for k, t in params.items()}
        for t in p.values():
            t.grad = None
        xx = x.to(dev) if resident else x
        torch.ops.aicore._reset_copy_stats()
        t0 = time.perf_counter()
        if resident:
            loss = block_loss(xx, p)
            loss.backward()
        else:
            with EveryOpCopies():
                loss = block_loss(xx, p)
                loss.backward()
        value = loss.item()
        wall = time.perf_counter() - t0
        h2d, d2h, n_h2d, n_d2h, ns = torch.ops.aicore._copy_stats()
        return {"bytes": h2d + d2h, "copies": n_h2d + n_d2h, "copy_ms": ns / 1e6,
                "wall_ms": wall * 1e3, "loss": value, "grad": p["qkv_w"].grad.cpu()}

    run(True)  # warm-up: the allocator's cache, the kernels' first launches
    naive, resident = run(False), run(True)
    assert abs(naive["loss"] - resident["loss"]) <= 1e-4 * abs(resident["loss"]) + 1e-6
    assert torch.allclose(naive["grad"], resident["grad"], rtol=1e-4, atol=1e-6)
    return {"name": "torch/copy_overhead_reduction", "block": block,
            "naive_bytes": naive["bytes"], "resident_bytes": resident["bytes"],
            "naive_copies": naive["copies"], "resident_copies": resident["copies"],
            "naive_copy_ms": naive["copy_ms"], "resident_copy_ms": resident["copy_ms"],
            "naive_wall_ms": naive["wall_ms"], "resident_wall_ms": resident["wall_ms"],
            "bytes_reduction": 1 - resident["bytes"] / naive["bytes"],
            "time_reduction": 1 - resident["copy_ms"] / naive["copy_ms"]}


if __name__ == "__main__":
    sys.exit(main())
