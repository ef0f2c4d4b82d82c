"""torch.save / torch.load of aicore device tensors, through the CPU.

torch 1.13 pickles a tensor through its storage, and its storage copy refuses PrivateUse1
("Invalid device for storage: privateuseone"). So a device tensor (a Parameter's data too) is
pickled as its CPU copy plus the device it came from, and torch.load copies it back to that
device. Views of one device storage come back as separate tensors (the CPU copies do not share
storage); ``map_location`` does not apply to them (call ``.cpu()`` after loading).
"""

import torch

from aicore._torch_ext import DEVICE_TYPE


def _rebuild_device_tensor(cpu, device, requires_grad):
    """The inverse of _reduce_ex_internal for a device tensor: ``cpu`` copied to ``device``."""
    t = cpu.to(device)
    t.requires_grad = requires_grad
    return t


def install():
    """Makes torch.save route device tensors through the CPU (once per process)."""
    original = torch.Tensor._reduce_ex_internal
    if getattr(original, "_aicore", False):
        return

    def _reduce_ex_internal(self, proto):
        if self.device.type == DEVICE_TYPE:
            return (_rebuild_device_tensor,
                    (self.detach().cpu(), str(self.device), self.requires_grad))
        return original(self, proto)

    _reduce_ex_internal._aicore = True
    torch.Tensor._reduce_ex_internal = _reduce_ex_internal
