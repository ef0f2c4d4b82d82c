"""The memory API over the caching device allocator, seen through torch.ops.aicore: dense
operands are used in place (no device memory at all), staged ones borrow a workspace that goes
back to the cache, and the statistics return to their baseline."""

import torch

import aicore

ops = torch.ops.aicore


def test_dense_inputs_run_in_place_without_device_memory():
    x = torch.randn(64, 257)
    aicore.synchronize()
    aicore.reset_peak_memory_stats()
    base = aicore.memory_allocated()
    y = ops.softmax(x, -1)
    ops.layer_norm(x, [257], torch.ones(257), torch.zeros(257))
    ops.gelu(y)
    assert aicore.max_memory_allocated() == base  # zero copy: nothing was staged


def test_staged_inputs_borrow_a_workspace_and_give_it_back():
    x = torch.randn(257, 64).t()  # transposed: gathered into a workspace slot first
    aicore.synchronize()
    aicore.reset_peak_memory_stats()
    base = aicore.memory_allocated()
    before = aicore.memory_stats()
    for _ in range(3):
        ops.softmax(x, -1)
    aicore.synchronize()
    after = aicore.memory_stats()
    assert aicore.max_memory_allocated() >= base + x.numel() * 4
    assert aicore.memory_allocated() == base
    assert after["allocation.all.allocated"] - before["allocation.all.allocated"] >= 3
    # The cache served the later workspaces: one segment, reused.
    assert after["segment.all.allocated"] - before["segment.all.allocated"] <= 1
    assert aicore.memory_reserved() > 0
    assert "Allocated memory" in aicore.memory_summary()
    aicore.empty_cache()
    assert aicore.memory_reserved() == aicore.memory_allocated() == base


def test_snapshot_lists_the_cached_segment():
    x = torch.randn(100, 33).t()
    ops.silu(x)
    aicore.synchronize()
    segments = aicore.memory_snapshot()
    assert segments and all(b["state"] == "inactive" for s in segments for b in s["blocks"])
    aicore.empty_cache()
    assert aicore.memory_snapshot() == []
