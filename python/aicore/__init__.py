"""aicore from Python: the runtime's caching device allocator and streams, and, when PyTorch is
importable, the operators as ``torch.ops.aicore.*`` on CPU tensors and the aicore device
(``aicore.device(0)``, PrivateUse1) whose memory is the caching allocator (docs/pytorch.md).

``import aicore`` needs no torch: the memory statistics, ``empty_cache`` and ``synchronize`` come
from the pybind11 module ``aicore._C``. When ``import torch`` succeeds the extension
``libaicore_torch.so`` is loaded too and ``aicore.torch_available`` is True.
"""

import json as _json
import os as _os

from aicore import _C
from aicore._profile_check import DefectError, check, profile  # aicore.profile / aicore.check

__all__ = [
    "torch_available", "device_count", "current_device", "set_device", "synchronize",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
    "memory_stats", "memory_summary", "memory_snapshot", "empty_cache",
    "reset_peak_memory_stats", "reset_accumulated_memory_stats", "profile", "check", "DefectError",
]


def _device_index(device):
    """The aicore device id of ``device``: None (the current device), an int, or a
    torch.device / string of the aicore device type ("privateuseone:1")."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None)
    if index is None and isinstance(device, str) and ":" in device:
        index = int(device.rsplit(":", 1)[1])
    if index is None and (isinstance(device, str) or hasattr(device, "type")):
        return -1
    if index is None:
        raise RuntimeError(f"aicore: device {device!r} is not a device id, a device string or a "
                           "torch.device")
    return index


def device_count():
    """The number of aicore devices (AICORE_DEVICE_COUNT, default 8)."""
    return _C.device_count()


def current_device():
    """The calling thread's current aicore device."""
    return _C.current_device()


def set_device(device):
    """Makes ``device`` the calling thread's current aicore device."""
    _C.set_device(_device_index(device))


def synchronize(device=None):
    """Waits for all work queued on the device's streams; raises RuntimeError with the kernel's
    message if queued work failed."""
    _C.synchronize(_device_index(device))


def memory_stats(device=None):
    """The caching allocator's statistics as a dict with torch.cuda.memory_stats' keys
    ("allocated_bytes.all.current", "reserved_bytes.large_pool.peak", "num_ooms", ...)."""
    return dict(_C.memory_stats(_device_index(device)))


def _stat(key, device):
    return dict(_C.memory_stats(_device_index(device)))[key]


def memory_allocated(device=None):
    """Bytes in live allocations (block sizes: requests rounded up to 512 bytes)."""
    return _stat("allocated_bytes.all.current", device)


def max_memory_allocated(device=None):
    """The peak of memory_allocated since the start or reset_peak_memory_stats."""
    return _stat("allocated_bytes.all.peak", device)


def memory_reserved(device=None):
    """Bytes of the segments the allocator holds (live plus cached blocks)."""
    return _stat("reserved_bytes.all.current", device)


def max_memory_reserved(device=None):
    """The peak of memory_reserved."""
    return _stat("reserved_bytes.all.peak", device)


def memory_summary(device=None, abbreviated=False):
    """torch.cuda.memory_summary-style text. ``abbreviated`` is accepted for torch's signature;
    the table is always the full one."""
    del abbreviated
    return _C.memory_summary(_device_index(device))


def memory_snapshot(device=None):
    """The allocator's segments (each with its blocks) as a list of dicts, in the form
    torch.cuda.memory_snapshot() returns."""
    return _json.loads(_C.memory_snapshot_json(_device_index(device)))["segments"]


def empty_cache():
    """Returns every cached block that holds no live allocation to the host (every device)."""
    _C.empty_cache()


def reset_peak_memory_stats(device=None):
    _C.reset_peak_memory_stats(_device_index(device))


def reset_accumulated_memory_stats(device=None):
    _C.reset_accumulated_memory_stats(_device_index(device))


torch_available = False
_TORCH_LIBRARY = _os.path.join(_os.path.dirname(__file__), "libaicore_torch.so")
if _os.path.exists(_TORCH_LIBRARY):
    try:
        import torch as _torch
    except ImportError:
        _torch = None
    if _torch is not None:
        from aicore import _torch_ext
        _torch_ext.load(_TORCH_LIBRARY)
        torch_available = True
        DEVICE_TYPE = _torch_ext.DEVICE_TYPE
        device = _torch_ext.device
        from aicore import fx  # aicore.fx.optimize
        __all__ += ["DEVICE_TYPE", "device", "fx"]
