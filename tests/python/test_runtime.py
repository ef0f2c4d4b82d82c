"""The aicore package's runtime basics, which need no torch."""

import os
import subprocess
import sys

import pytest

import aicore


def test_memory_stats_have_torchs_keys():
    stats = aicore.memory_stats()
    for key in ("allocated_bytes.all.current", "allocated_bytes.all.peak",
                "reserved_bytes.small_pool.current", "reserved_bytes.large_pool.peak",
                "active_bytes.all.freed", "requested_bytes.all.allocated", "num_ooms",
                "num_alloc_retries", "segment.all.current"):
        assert key in stats, key
    assert all(isinstance(v, int) for v in stats.values())
    assert aicore.memory_allocated() == stats["allocated_bytes.all.current"]
    assert aicore.max_memory_allocated() == stats["allocated_bytes.all.peak"]
    assert aicore.memory_reserved() == stats["reserved_bytes.all.current"]
    assert aicore.max_memory_reserved() == stats["reserved_bytes.all.peak"]


def test_memory_summary_and_snapshot():
    assert "device ID 0" in aicore.memory_summary()
    assert "device ID 1" in aicore.memory_summary(1)
    snapshot = aicore.memory_snapshot()
    assert isinstance(snapshot, list)
    for segment in snapshot:
        assert {"address", "total_size", "blocks"} <= set(segment)


def test_empty_cache_and_resets():
    aicore.empty_cache()  # nothing is allocated in this suite, so nothing stays reserved
    assert aicore.memory_allocated() == 0
    assert aicore.memory_reserved() == 0
    aicore.reset_peak_memory_stats()
    assert aicore.max_memory_allocated() == aicore.memory_allocated()
    aicore.reset_accumulated_memory_stats()
    assert aicore.memory_stats()["num_ooms"] == 0


def test_synchronize_and_devices():
    aicore.synchronize()
    aicore.synchronize(0)
    assert aicore.device_count() >= 1
    assert aicore.current_device() == 0
    aicore.set_device(aicore.device_count() - 1)
    assert aicore.current_device() == aicore.device_count() - 1
    aicore.set_device(0)


@pytest.mark.parametrize("call", [
    lambda: aicore.synchronize(99), lambda: aicore.memory_stats(-5),
    lambda: aicore.memory_summary(64), lambda: aicore.set_device(1000)])
def test_bad_device_raises(call):
    with pytest.raises(RuntimeError, match=r"aicore\.\w+: device -?\d+ is out of range"):
        call()


def test_import_without_torch():
    # sys.modules["torch"] = None makes `import torch` fail as if torch were not installed.
    code = ("import sys; sys.modules['torch'] = None\n"
            "import aicore\n"
            "assert not aicore.torch_available\n"
            "aicore.synchronize(); aicore.empty_cache()\n"
            "print(aicore.memory_allocated(), aicore.memory_reserved())\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "0"]
