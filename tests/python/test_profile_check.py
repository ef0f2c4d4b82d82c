"""aicore.profile and aicore.check: the profiler and the sanitizer on the kernels launched inside a
`with` block, for torch.ops.aicore's kernels, the aicore device's and a deliberately defective
kernel (kernels/defective_kernels.cc, loaded with ctypes)."""

import ctypes
import os

import pytest
import torch
import torch.nn.functional as F

import aicore


@pytest.fixture(scope="module")
def kernels():
    path = os.environ.get("TEST_AICORE_KERNELS")
    if not path or not os.path.exists(path):
        pytest.skip("the test kernel library is not built (target aicore_python_test_kernels)")
    lib = ctypes.CDLL(path)
    for name in ("aicore_test_missing_flag", "aicore_test_clean", "aicore_test_oversized"):
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint32]
        fn.restype = ctypes.c_int
    return lib


def run(fn, n=256):
    x = torch.arange(n, dtype=torch.float32)
    y = torch.zeros(n)
    assert fn(x.data_ptr(), y.data_ptr(), n) == 0
    assert torch.equal(y, 2 * x)  # right on the CPU: only the sanitizer sees the defect


def test_profile_tables_every_kernel_launched_inside(tmp_path, capsys):
    x = torch.randn(64, 512)
    torch.ops.aicore.softmax(x, -1)  # before the block: not recorded
    with aicore.profile(chip="ascend910b1", out=tmp_path / "prof") as prof:
        torch.ops.aicore.softmax(x, -1)
        torch.ops.aicore.softmax(x, -1)
        torch.ops.aicore.layer_norm(x, [512])
        F.gelu(x.to(aicore.device(0)))  # the device's aten::gelu runs aicore's kernel
    torch.ops.aicore.silu(x)  # after: not recorded
    kernels = [r["kernel"] for r in prof.launches]
    assert len(kernels) == 4, kernels
    assert kernels.count(kernels[0]) == 2 and "softmax" in kernels[0]
    assert any("layer_norm" in k for k in kernels) and any("gelu" in k for k in kernels)
    assert all(r["chip"] == "ascend910b1" and r["kernel_us"] > 0 for r in prof.launches)
    assert all(r["host_ms"] > 0 for r in prof.launches)  # each launch's begin-to-end host time
    assert prof.host_kernel_ms <= 1e3 * prof.wall_s
    ops = {row["name"]: row for row in prof.ops}  # torch's operators, called from Python
    assert ops["aicore::softmax"]["calls"] == 2 and ops["aicore::layer_norm"]["calls"] == 1
    assert "aten::gelu" in ops and "aicore::silu" not in ops
    assert set(prof.stages) == {"python", "torch ops", "aicore kernels"}
    assert abs(sum(prof.stages.values()) - 1e3 * prof.wall_s) < 1e-6 * max(1, 1e3 * prof.wall_s)
    rows = {row["kernel"]: row for row in prof.table}
    assert rows[kernels[0]]["launches"] == 2
    assert abs(sum(row["share"] for row in prof.table) - 1) < 1e-9
    assert abs(prof.total_us - sum(r["kernel_us"] for r in prof.launches)) < 1e-6
    assert prof.table == sorted(prof.table, key=lambda row: -row["total_us"])
    out = capsys.readouterr().out
    assert "4 launches modeled on ascend910b1" in out and kernels[0] in out
    for report in ("summary.txt", "summary.json", "trace.json", "report.html"):
        assert (tmp_path / "prof" / report).exists(), report


def test_profile_without_out_writes_nothing_and_can_be_silent(tmp_path, capsys, kernels,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    with aicore.profile(print_table=False, torch_ops=False) as prof:
        run(kernels.aicore_test_clean)
    assert [r["kernel"] for r in prof.launches] == ["test_clean"]
    assert prof.ops == [] and prof.stages == {}
    assert "test_clean" in prof.text and capsys.readouterr().out == ""
    assert os.listdir(tmp_path) == []


def test_profile_rejects_an_unknown_chip():
    with pytest.raises(RuntimeError, match="no_such_chip"):
        aicore.profile(chip="no_such_chip")


def test_profile_detaches_after_an_exception(capsys):
    prof = aicore.profile(chip="ascend910b1")
    with pytest.raises(ValueError, match="inside"):
        with prof:
            torch.ops.aicore.softmax(torch.randn(4, 8), -1)
            raise ValueError("inside")
    assert capsys.readouterr().out == ""  # no table for a failed block
    torch.ops.aicore.softmax(torch.randn(4, 8), -1)
    with prof:  # reusable; the earlier launches were dropped
        torch.ops.aicore.softmax(torch.randn(4, 8), -1)
    assert len(prof.launches) == 1


def test_check_passes_clean_kernels():
    x = torch.randn(33, 100)
    with aicore.check() as chk:
        torch.ops.aicore.softmax(x.t(), -1)
        torch.ops.aicore.rms_norm(x, torch.ones(100), 1e-6)
        F.silu(x.to(aicore.device(0)))
    assert chk.reports == [] and chk.failed_launches == 0


def test_check_raises_naming_the_kernel_and_the_defect(kernels):
    with pytest.raises(aicore.DefectError) as info:
        with aicore.check():
            torch.ops.aicore.softmax(torch.randn(4, 8), -1)
            run(kernels.aicore_test_missing_flag)
    msg = str(info.value)
    assert "test_missing_flag" in msg and "RAW race" in msg and "Muls" in msg, msg
    assert isinstance(info.value, RuntimeError)
    (report,) = info.value.reports
    assert report["kernel"] == "test_missing_flag" and report["kind"] == "RAW race"
    assert report["tool"] == "racecheck" and report["file"].endswith("defective_kernels.cc")


def test_check_tools_select_what_is_checked(kernels):
    with aicore.check(tools="memcheck,initcheck") as chk:  # a race is not their business
        run(kernels.aicore_test_missing_flag)
    assert chk.reports == []
    with pytest.raises(RuntimeError, match="aicore.check: tools 'bogus'"):
        aicore.check(tools="bogus").__enter__()


def test_check_raise_if_defects_inside_the_block(kernels):
    with pytest.raises(aicore.DefectError, match="test_missing_flag"):
        with aicore.check() as chk:
            run(kernels.aicore_test_clean)
            chk.raise_if_defects()  # nothing yet
            run(kernels.aicore_test_missing_flag)
            chk.raise_if_defects()
            pytest.fail("raise_if_defects did not raise")


def test_check_restores_state_after_an_exception(kernels):
    with pytest.raises(KeyError):
        with aicore.check():
            run(kernels.aicore_test_missing_flag)
            raise KeyError("the block's own error wins")
    # detached: the defective kernel runs unobserved now, and a new check starts clean
    run(kernels.aicore_test_missing_flag)
    with aicore.check() as chk:
        run(kernels.aicore_test_clean)
    assert chk.reports == []


def test_check_counts_a_failed_launch_the_block_swallowed(kernels):
    x = torch.zeros(8)
    with pytest.raises(aicore.DefectError, match="1 failed launch"):
        with aicore.check():
            assert kernels.aicore_test_oversized(x.data_ptr(), x.data_ptr(), 8) == 1  # ignored


def test_check_leaks_reports_device_memory_still_live():
    dev = aicore.device(0)
    with aicore.check(leaks=True):  # freed inside: no leak
        t = torch.ones(1000, device=dev)
        del t
    with pytest.raises(aicore.DefectError, match="GM leak") as info:
        with aicore.check(leaks=True):
            kept = torch.ones(1000, device=dev)
    assert info.value.reports[0]["kind"] == "GM leak"
    with aicore.check():  # leaks=False: tensors outliving the block are fine
        kept2 = torch.ones(1000, device=dev)
    del kept, kept2


def test_profile_inside_a_torch_profiler_leaves_the_operators_to_it():
    x = torch.randn(8, 16)
    with torch.autograd.profiler.profile() as outer:
        with aicore.profile(print_table=False) as prof:
            torch.ops.aicore.softmax(x, -1)
    assert len(prof.launches) == 1 and prof.ops == []
    assert "aicore::softmax" in [e.name for e in outer.function_events]
    with torch.autograd.profiler.profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with aicore.profile(torch_ops=True):
                pass
    with aicore.profile(print_table=False) as prof:  # nothing left attached
        torch.ops.aicore.softmax(x, -1)
    assert len(prof.launches) == 1 and prof.ops[0]["name"] == "aicore::softmax"
