"""The aicore device (PrivateUse1): tensors in the caching allocator, copies, views, fills,
aicore's operators on device tensors, the CPU fallback, autograd and a training step."""

import os
import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import aicore
from helpers import DTYPES, assert_close, rand

ops = torch.ops.aicore


@pytest.fixture
def dev():
    return aicore.device(0)


def test_device_name_and_round_trip(dev):
    assert dev == torch.device(aicore.DEVICE_TYPE, 0)
    t = rand((5, 7), torch.float32)
    d = t.to(dev)
    assert d.device == dev
    assert torch.equal(d.cpu(), t)


def test_torch_device_module():
    mod = getattr(torch, aicore.DEVICE_TYPE)
    assert mod.is_available() and mod.device_count() == aicore.device_count()
    assert mod.current_device() == aicore.current_device()
    mod.synchronize()


def test_memory_follows_tensors(dev):
    aicore.synchronize()
    base = aicore.memory_allocated(dev)
    d = torch.empty(1000, device=dev)
    assert aicore.memory_allocated(dev) == base + 4096  # 4000 B rounded to 512
    e = torch.empty(3 << 20, dtype=torch.uint8, device=dev)
    assert aicore.memory_allocated(dev) == base + 4096 + (3 << 20)
    assert aicore.memory_reserved(dev) >= aicore.memory_allocated(dev)
    del d, e
    assert aicore.memory_allocated(dev) == base
    aicore.empty_cache()
    assert aicore.memory_reserved(dev) == base


@pytest.mark.parametrize("dtype", DTYPES)
def test_copies_views_and_fills(dev, dtype):
    t = rand((6, 10), dtype)
    d = t.to(dev)
    assert torch.equal(d.t().contiguous().cpu(), t.t().contiguous())
    assert torch.equal(d[1:, ::3].cpu(), t[1:, ::3])
    assert torch.equal(d.view(60).cpu(), t.view(60))
    assert torch.equal(d.reshape(3, 20).cpu(), t.reshape(3, 20))
    assert torch.equal(d.to(torch.float32).cpu(), t.float())           # converting on the device
    assert torch.equal(t.t().to(dev).cpu(), t.t())                       # strided host source
    e = torch.empty(6, 10, dtype=dtype, device=dev)
    e.copy_(d)
    assert torch.equal(e.cpu(), t)
    e.fill_(1.5)
    assert torch.equal(e.cpu(), torch.full((6, 10), 1.5, dtype=dtype))
    e.zero_()
    assert float(e.sum().cpu()) == 0.0
    assert torch.zeros(3, device=dev).cpu().tolist() == [0.0, 0.0, 0.0]
    assert d[2, 3].item() == t[2, 3].item()


@pytest.mark.parametrize("dtype", DTYPES)
def test_aicore_ops_on_device_tensors(dev, dtype):
    x = rand((9, 33), dtype)
    d = x.to(dev)
    y = ops.softmax(d, -1)
    assert y.device == dev
    assert_close(y.cpu(), torch.softmax(x.double(), -1), dtype)
    w = rand((33,), dtype, seed=1)
    assert_close(ops.layer_norm(d, [33], w.to(dev)).cpu(), F.layer_norm(x.double(), [33],
                                                                        w.double()), dtype)
    assert_close(ops.rms_norm(d.t(), w[:9].to(dev)).cpu(),
                 x.double().t() * torch.rsqrt(x.double().t().pow(2).mean(-1, keepdim=True) +
                                              1e-6) * w[:9].double(), dtype)
    assert_close(ops.gelu(d, "tanh").cpu(), F.gelu(x.double(), approximate="tanh"), dtype)
    assert_close(ops.silu(d).cpu(), F.silu(x.double()), dtype)


def test_mixed_devices_are_refused(dev):
    with pytest.raises(RuntimeError, match=r"aicore::layer_norm: (input|weight) is on device"):
        ops.layer_norm(torch.ones(2, 3, device=dev), [3], torch.ones(3))


def test_tensors_of_two_devices_are_refused(dev):
    with pytest.raises(RuntimeError, match=r"aicore::rms_norm: weight is on device "
                       r"privateuseone:1 and input on privateuseone:0; they must be on one"):
        ops.rms_norm(torch.ones(2, 3, device=dev), torch.ones(3, device=aicore.device(1)))


def test_cpu_fallback_ops(dev):
    t = rand((4, 5), torch.float32)
    d = t.to(dev)
    assert torch.allclose((d + 1).cpu(), t + 1)
    assert torch.allclose(torch.exp(d).cpu(), torch.exp(t))
    assert torch.allclose(d.sum().cpu(), t.sum())
    assert torch.allclose((d @ d.t()).cpu(), t @ t.t())
    assert (d + 1).device == dev


def test_autograd_on_device(dev):
    x = rand((5, 8), torch.float32)
    xd = x.to(dev).requires_grad_(True)
    ops.softmax(xd, -1)[:, 0].sum().backward()
    xr = x.double().requires_grad_(True)
    torch.softmax(xr, -1)[:, 0].sum().backward()
    assert xd.grad.device == dev
    torch.testing.assert_close(xd.grad.cpu().double(), xr.grad, rtol=1e-5, atol=1e-6)


def test_training_step_on_device_matches_cpu(dev):
    torch.manual_seed(0)
    cpu_model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                    torch.nn.Linear(16, 4))
    dev_model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(),
                                    torch.nn.Linear(16, 4))
    dev_model.load_state_dict(cpu_model.state_dict())
    dev_model.to(dev)
    x = torch.randn(6, 8)
    losses = []
    for model, xx in ((cpu_model, x), (dev_model, x.to(dev))):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        run = []
        for _ in range(3):
            opt.zero_grad()
            loss = ops.softmax(model(xx), -1).pow(2).mean()
            loss.backward()
            opt.step()
            run.append(loss.item())
        losses.append(run)
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    for p_cpu, p_dev in zip(cpu_model.parameters(), dev_model.parameters()):
        assert p_dev.device == dev
        torch.testing.assert_close(p_dev.cpu(), p_cpu, rtol=1e-5, atol=1e-6)


def test_aten_ops_on_the_device_run_aicore_kernels():
    # In a fresh process: the fallback warns once per op, so stderr lists what fell back.
    code = r"""
import torch, torch.nn.functional as F, aicore
dev = aicore.device(0)
x = torch.randn(6, 40)
ln = torch.nn.LayerNorm(40)
xd = x.to(dev).requires_grad_(True)
lnd = torch.nn.LayerNorm(40).to(dev)
lnd.load_state_dict(ln.state_dict())
for f in (lambda t: torch.softmax(t, -1), lambda t: F.log_softmax(t, 0), F.gelu,
          lambda t: F.gelu(t, approximate="tanh"), F.silu):
    assert torch.allclose(f(xd).cpu(), f(x), atol=1e-5)
xr = x.clone().requires_grad_(True)
ln(xr).pow(2).sum().backward()
lnd(xd).pow(2).sum().backward()
assert torch.allclose(xd.grad.cpu(), xr.grad, atol=1e-4)
assert torch.allclose(lnd.weight.grad.cpu(), ln.weight.grad, atol=1e-4)
xx = torch.randn(3, 5, dtype=torch.float64)
assert torch.allclose(torch.softmax(xx.to(dev), -1).cpu(), torch.softmax(xx, -1))
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"
    fell_back = set(re.findall(r"aicore: (aten::\w+(?:\.\w+)?) runs on the CPU", r.stderr))
    for op in ("aten::_softmax", "aten::_log_softmax", "aten::gelu", "aten::silu",
               "aten::native_layer_norm"):
        assert op not in fell_back, (op, fell_back)
    assert "aten::native_layer_norm_backward" not in fell_back
    assert "aten::sum.IntList_out" in fell_back  # aicore has no reduction operator


# (name, f, shapes): f on device tensors against f on CPU tensors, shapes with 1 and primes.
NATIVE_CASES = [
    ("mm", torch.mm, [(13, 7), (7, 5)]),
    ("mm", lambda a, b: a.t() @ b, [(7, 13), (7, 1)]),
    ("bmm", torch.bmm, [(3, 5, 7), (3, 7, 2)]),
    ("addmm", lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2), [(5,), (11, 3), (3, 5)]),
    ("addmm", torch.addmm, [(11, 5), (11, 3), (3, 5)]),
    ("add", torch.add, [(4, 1, 7), (3, 1)]),
    ("add", lambda a, b: torch.add(a, b, alpha=-2.5), [(5, 3), (3,)]),
    ("add", lambda a: a + 1.5, [(2, 3, 5)]),
    ("sub", torch.sub, [(1,), (6, 7)]),
    ("sub", lambda a: 2 - a, [(7, 3)]),
    ("mul", torch.mul, [(4, 1, 7), (1, 5, 1)]),
    ("mul", lambda a: a * 3, [(11,)]),
    ("div", lambda a: a / 7, [(3, 13)]),
    ("div", torch.div, [(4, 1, 7), (5, 1)]),   # a tensor divisor: on the CPU (no aicore Div)
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,f,shapes", NATIVE_CASES, ids=lambda c: c if isinstance(c, str)
                         else None)
def test_native_kernels_match_cpu(dev, name, f, shapes, dtype):
    args = [rand(s, dtype, i, 0.5) for i, s in enumerate(shapes)]
    got = f(*(a.to(dev) for a in args))
    assert got.device == dev
    ref = f(*(a.double() for a in args))
    rtol = {torch.float32: 1e-5, torch.float16: 4e-3, torch.bfloat16: 3e-2}[dtype]
    assert got.dtype == dtype
    torch.testing.assert_close(got.cpu().double(), ref, rtol=rtol,
                               atol=rtol * ref.abs().max().item())


def test_binary_promotion_and_non_contiguous(dev):
    h, f = rand((4, 5), torch.float16), rand((5,), torch.float32, 1)
    assert (h.to(dev) + f.to(dev)).dtype == (h + f).dtype == torch.float32
    z = torch.tensor(2.0)   # a 0-d float32 tensor beside an n-d half one: half, as torch
    assert (h.to(dev) * z.to(dev)).dtype == (h * z).dtype == torch.float16
    t = rand((6, 8), torch.float32)
    d = t.to(dev)
    torch.testing.assert_close((d[:, :6].t() + d[:6, :6]).cpu(), t[:, :6].t() + t[:6, :6])
    torch.testing.assert_close((d[::2] * d[1::2]).cpu(), t[::2] * t[1::2])
    i = torch.arange(6).reshape(2, 3)
    assert torch.equal((i.to(dev) + 1).cpu(), i + 1)   # integer tensors: torch's CPU kernel
    with pytest.raises(RuntimeError, match=r"aten::add: other is on device cpu and self on "
                       r"privateuseone:0"):
        d + t


def test_native_kernels_do_not_fall_back():
    code = r"""
import torch, torch.nn.functional as F, aicore
dev = aicore.device(0)
a, b, c = (torch.randn(s).to(dev) for s in ((5, 7), (7, 3), (3,)))
a @ b; torch.addmm(c, a, b); torch.bmm(a[None], b[None]); a + 1; a - a; a * a; a / 2
x = torch.randn(6, 40).to(dev).requires_grad_(True)
lin = torch.nn.Linear(40, 8).to(dev)
ln = torch.nn.LayerNorm(8).to(dev)
torch.softmax(ln(lin(x)), -1)[:, 0].sum().backward()
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    fell_back = set(re.findall(r"aicore: (aten::\w+(?:\.\w+)?) runs on the CPU", r.stderr))
    for op in ("aten::mm", "aten::addmm", "aten::bmm", "aten::add.Tensor", "aten::sub.Tensor",
               "aten::mul.Tensor", "aten::div.Tensor", "aten::_softmax_backward_data",
               "aten::native_layer_norm_backward", "aten::_softmax", "aten::native_layer_norm"):
        assert op not in fell_back, (op, fell_back)


@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_and_layer_norm_backward_native(dev, dtype):
    x = rand((7, 13), dtype, 0, 1.0)
    w, b = rand((13,), dtype, 1), rand((13,), dtype, 2)
    g = rand((7, 13), dtype, 3)
    got, ref = [], []
    for device, out in ((dev, got), (torch.device("cpu"), ref)):
        xx = (x.to(device) if device == dev else x.double()).requires_grad_(True)
        ww = (w.to(device) if device == dev else w.double()).requires_grad_(True)
        bb = (b.to(device) if device == dev else b.double()).requires_grad_(True)
        gg = g.to(device) if device == dev else g.double()
        F.layer_norm(xx, [13], ww, bb).backward(gg)
        s = torch.softmax(xx, -1)
        xx.grad = None
        s.backward(gg)
        out += [xx.grad, ww.grad, bb.grad]
    tol = {torch.float32: 1e-4, torch.float16: 1e-2, torch.bfloat16: 6e-2}[dtype]
    for a, r in zip(got, ref):
        assert a.device == dev and a.dtype == dtype
        torch.testing.assert_close(a.cpu().double(), r, rtol=tol, atol=tol)


def test_boolean_mask_indexing(dev):
    t = rand((5, 7), torch.float32)
    d = t.to(dev)
    m = t > 0
    assert torch.equal(d[m.to(dev)].cpu(), t[m])     # a device mask
    assert torch.equal(d[m].cpu(), t[m])             # a CPU mask
    assert torch.equal(d[torch.tensor([4, 0, 2])].cpu(), t[torch.tensor([4, 0, 2])])
    d[m.to(dev)] = 0.0
    t2 = t.clone()
    t2[m] = 0.0
    assert torch.equal(d.cpu(), t2)
    d.index_put_((torch.tensor([1, 1]),), torch.ones(7, device=dev), accumulate=True)
    t2.index_put_((torch.tensor([1, 1]),), torch.ones(7), accumulate=True)
    assert torch.equal(d.cpu(), t2)


def test_save_and_load_through_the_cpu(dev, tmp_path):
    model = torch.nn.Linear(5, 3).to(dev)
    data = {"state": model.state_dict(), "t": rand((4, 6), torch.bfloat16).to(dev)[:, 1::2],
            "p": model.weight}
    path = tmp_path / "m.pt"
    torch.save(data, path)
    back = torch.load(path)
    assert back["t"].device == dev and back["t"].dtype == torch.bfloat16
    assert torch.equal(back["t"].cpu(), data["t"].cpu())
    assert isinstance(back["p"], torch.nn.Parameter) and back["p"].requires_grad
    for k, v in model.state_dict().items():
        assert back["state"][k].device == dev and torch.equal(back["state"][k].cpu(), v.cpu())
    cpu_model = torch.nn.Linear(5, 3)
    cpu_model.load_state_dict({k: v.cpu() for k, v in back["state"].items()})


def test_random_ops_use_the_cpu_generator(dev):
    torch.manual_seed(7)
    a = torch.randn(3, 5, device=dev)
    b = torch.rand(4, device=dev)
    c = torch.empty(6, device=dev).normal_(2.0, 0.5)
    torch.manual_seed(7)
    assert a.device == dev
    assert torch.equal(a.cpu(), torch.randn(3, 5))
    assert torch.equal(b.cpu(), torch.rand(4))
    assert torch.equal(c.cpu(), torch.empty(6).normal_(2.0, 0.5))
