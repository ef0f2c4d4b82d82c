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


def device(index=None):
    """torch.device of aicore device ``index`` (default: the current device)."""
    from aicore import _C
    return torch.device(DEVICE_TYPE, _C.current_device() if index is None else index)
