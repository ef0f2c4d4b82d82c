"""Runs examples/pytorch/*.py, each in its own interpreter, as the docs tell users to: each checks
its own result and exits non-zero when it is wrong."""

import os
import subprocess
import sys

import torch

import aicore  # noqa: F401  (registers torch.ops.aicore)

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "pytorch")


def run(name, *args):
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                       capture_output=True, text=True, env=dict(os.environ), timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_tiny_transformer_matches_the_cpu_run(tmp_path):
    out = run("tiny_transformer.py", "--steps", "20", "--check", "--profile",
              str(tmp_path / "prof"))
    assert "aicore.check: no defects in one forward" in out
    assert "launches modeled on ascend910b1" in out
    assert (tmp_path / "prof" / "report.html").exists()
    assert "loss curve matches the CPU run" in out, out
    assert "step time (median): aicore device" in out
    assert "aicore.fx.optimize:" in out and "rms_norm" in out
    assert len([line for line in out.splitlines() if line[:4].strip().isdigit()]) == 20
    for op, pattern in (("scaled_dot_product_attention", "attention"),
                        ("linear", "linear+bias+gelu")):
        try:
            getattr(torch.ops.aicore, op)
        except (AttributeError, RuntimeError):
            continue  # a build without the op: the pattern is reported as not fused
        assert f"fused      {pattern} " in out, out
