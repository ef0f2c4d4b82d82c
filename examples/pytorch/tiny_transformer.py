"""tiny_transformer: trains a 2-layer decoder-only transformer for 20 steps on the aicore device
with aicore's fused operators (aicore.fx.optimize), and the same model on the CPU with torch's
own operators from the same initial weights and batches. The two loss curves must agree within
tolerance; the script prints both, the fusion report and the step time of each run.

    PYTHONPATH=build/python /usr/bin/python3 examples/pytorch/tiny_transformer.py [--steps 20]
        [--check] [--profile DIR [--chip ascend910b1]]

Exit status 0 when the curves agree and the loss fell, 1 otherwise (the test python.examples runs
it, docs/pytorch.md "The tiny transformer").
"""

import argparse
import copy
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import aicore

VOCAB, DIM, HEADS, LAYERS, SEQ, BATCH = 64, 64, 4, 2, 16, 8
HEAD_DIM = DIM // HEADS


class RMSNorm(nn.Module):
    """The hand-written RMSNorm (LLaMA's); aicore.fx.optimize turns it into aicore.rms_norm."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(DIM, DIM)
        self.k = nn.Linear(DIM, DIM)
        self.v = nn.Linear(DIM, DIM)
        self.o = nn.Linear(DIM, DIM)
        self.register_buffer("future", torch.triu(torch.ones(SEQ, SEQ), 1).bool())

    def heads(self, x):  # (B, T, D) -> (B, H, T, Dh); fixed sizes keep it traceable
        return x.view(BATCH, SEQ, HEADS, HEAD_DIM).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.heads(self.q(x)), self.heads(self.k(x)), self.heads(self.v(x))
        scores = q @ k.transpose(-2, -1) / HEAD_DIM ** 0.5
        scores = scores.masked_fill(self.future, float("-inf"))
        out = torch.softmax(scores, dim=-1) @ v
        return self.o(out.transpose(1, 2).reshape(BATCH, SEQ, DIM))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1 = nn.LayerNorm(DIM)
        self.attn = Attention()
        self.ln2 = nn.LayerNorm(DIM)
        self.up = nn.Linear(DIM, 4 * DIM)
        self.down = nn.Linear(4 * DIM, DIM)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.pos = nn.Parameter(torch.randn(SEQ, DIM) * 0.02)
        self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.norm = RMSNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, tokens):
        return self.head(self.norm(self.blocks(self.embed(tokens) + self.pos)))


def batches(steps, seed=0):
    """Sequences that count up from a random start (mod VOCAB): next-token prediction is
    learnable, so the loss falls within a few steps."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        start = torch.randint(0, VOCAB, (BATCH, 1), generator=g)
        seq = (start + torch.arange(SEQ + 1)) % VOCAB
        yield seq[:, :-1], seq[:, 1:]


def train(model, device, steps, lr):
    """SGD over `steps` batches; returns the losses and the per-step times (seconds)."""
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses, times = [], []
    for tokens, targets in batches(steps):
        start = time.perf_counter()
        tokens, targets = tokens.to(device), targets.to(device)
        logits = model(tokens)
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())  # waits for the step
        times.append(time.perf_counter() - start)
    return losses, times


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--tolerance", type=float, default=2e-3,
                        help="the largest |device loss - CPU loss| allowed at any step")
    parser.add_argument("--check", action="store_true",
                        help="run one more forward under aicore.check (the sanitizer)")
    parser.add_argument("--profile", metavar="DIR",
                        help="profile one more forward with aicore.profile, reports in DIR")
    parser.add_argument("--chip", default="ascend910b1", help="the chip --profile models")
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads for both runs (0: torch's default)")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)

    torch.manual_seed(0)
    cpu_model = TinyTransformer()
    dev = aicore.device(0)
    model = copy.deepcopy(cpu_model).to(dev)  # parameters in aicore device memory
    fast = aicore.fx.optimize(model)          # shares model's parameters
    print(fast.aicore_fusion_report)

    dev_losses, dev_times = train(fast, dev, args.steps, args.lr)
    cpu_losses, cpu_times = train(cpu_model, "cpu", args.steps, args.lr)

    print(f"{'step':>4}  {'aicore loss':>11}  {'CPU loss':>9}  {'|diff|':>8}")
    worst = 0.0
    for i, (d, c) in enumerate(zip(dev_losses, cpu_losses)):
        worst = max(worst, abs(d - c))
        print(f"{i + 1:4d}  {d:11.6f}  {c:9.6f}  {abs(d - c):8.2e}")
    # the first step includes one-time costs (allocator segments, first-use warnings)
    dev_ms, cpu_ms = 1e3 * median(dev_times[1:] or dev_times), 1e3 * median(cpu_times[1:] or
                                                                           cpu_times)
    print(f"step time (median): aicore device {dev_ms:.1f} ms, CPU torch {cpu_ms:.1f} ms "
          f"(aicore/CPU = {dev_ms / cpu_ms:.1f}x)")
    tokens = next(batches(1))[0].to(dev)
    if args.check:
        with torch.no_grad(), aicore.check():  # raises aicore.DefectError on a defect
            fast(tokens)
        print("aicore.check: no defects in one forward")
    if args.profile:
        with torch.no_grad(), aicore.profile(chip=args.chip, out=args.profile):
            fast(tokens)
    fell = dev_losses[-1] < dev_losses[0]
    ok = worst <= args.tolerance and fell
    print(f"loss curve {'matches' if ok else 'DOES NOT match'} the CPU run: largest difference "
          f"{worst:.2e} (tolerance {args.tolerance:g}); loss {dev_losses[0]:.3f} -> "
          f"{dev_losses[-1]:.3f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
