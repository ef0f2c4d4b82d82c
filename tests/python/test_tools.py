"""Subprocess checks of the torch extension: a second copy of the library does not abort the
process, and aicore's sanitizer and profiler see the kernels torch.ops.aicore launches."""

import os
import shutil
import subprocess
import sys

import pytest

import aicore


def test_second_copy_of_the_extension_does_not_abort(tmp_path):
    copy = tmp_path / "libaicore_torch_copy.so"
    shutil.copy(aicore._TORCH_LIBRARY, copy)
    code = ("import torch, aicore\n"
            f"torch.ops.load_library({str(copy)!r})\n"
            "print(float(torch.ops.aicore.softmax(torch.zeros(4), 0)[0]))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "0.25"
    assert "registered already" in r.stderr


@pytest.mark.parametrize("env,expect", [
    ({"AICORE_CHECK": "all"}, "aicore check (all): no defects found"),
    ({"AICORE_PROFILE": None}, "launch"),
])
def test_sanitizer_and_profiler_see_the_kernels(tmp_path, env, expect):
    env = {k: (str(tmp_path / "prof") if v is None else v) for k, v in env.items()}
    code = ("import torch, aicore\n"
            "x = torch.randn(17, 30)\n"
            "assert torch.allclose(torch.ops.aicore.softmax(x.t(), -1), torch.softmax(x.t(), -1),"
            " atol=1e-6)\n"
            "torch.ops.aicore.layer_norm(x, [30])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, **env), timeout=120)
    assert r.returncode == 0, r.stderr
    assert expect in r.stdout + r.stderr
    if "AICORE_PROFILE" in env:
        assert (tmp_path / "prof" / "summary.json").exists()
