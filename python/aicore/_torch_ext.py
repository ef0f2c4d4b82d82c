"""Loads the PyTorch extension (libaicore_torch.so) into torch.ops.aicore, once per process, and
names the aicore device (PrivateUse1)."""

import torch

# The device type string of the aicore device: torch 1.13 cannot rename PrivateUse1.
DEVICE_TYPE = "privateuseone"


def _registered():
    try:
        torch.ops.aicore.softmax  # raises RuntimeError when aicore::softmax does not exist
    except (RuntimeError, AttributeError):
        return False
    return True


def load(path):
    """Registers torch.ops.aicore.* and the device from ``path`` unless registered already (a
    second registration of one namespace would abort the process on torch 1.13)."""
    if not _registered():
        torch.ops.load_library(path)
    _register_device_module()
    from aicore import _serialization
    _serialization.install()


def _register_device_module():
    """torch.privateuseone.device_count() etc., as torch.cuda.* (torch._register_device_module
    exists in 1.13; registering a type twice raises, so only the first import registers)."""
    import types
    from aicore import _C
    if hasattr(torch, DEVICE_TYPE) or not hasattr(torch, "_register_device_module"):
        return
    module = types.ModuleType(f"torch.{DEVICE_TYPE}", "The aicore device (aicore package).")
    module.is_available = lambda: True
    module.device_count = _C.device_count
    module.current_device = _C.current_device
    module.set_device = lambda d: _C.set_device(d if isinstance(d, int) else d.index or 0)
    module.synchronize = lambda device=None: _C.synchronize(
        -1 if device is None else (device if isinstance(device, int) else device.index or 0))
    torch._register_device_module(DEVICE_TYPE, module)


def device(index=None):
    """torch.device of aicore device ``index`` (default: the current device)."""
    from aicore import _C
    return torch.device(DEVICE_TYPE, _C.current_device() if index is None else index)
