"""Gradients of torch.ops.aicore.* against torch's autograd of its own functions in float64."""

import pytest
import torch
import torch.nn.functional as F

from helpers import DTYPES, GRAD_TOL, assert_close, rand

ops = torch.ops.aicore


def grads(fn, inputs, seed=11):
    """The output of fn(*inputs) and d(sum(out * r))/d(each input) for a fixed random r."""
    leaves = [t.detach().clone().requires_grad_(True) if t is not None else None for t in inputs]
    out = fn(*leaves)
    r = rand(out.shape, torch.float64, seed=seed).to(out.dtype)
    wrt = [t for t in leaves if t is not None]
    return out, torch.autograd.grad((out * r).sum(), wrt)


def check(aicore_fn, torch_fn, inputs, dtype):
    out, got = grads(aicore_fn, inputs)
    assert out.requires_grad and out.grad_fn is not None
    ref_inputs = [t.double() if t is not None else None for t in inputs]
    _, want = grads(torch_fn, ref_inputs)
    for g, w, t in zip(got, want, [t for t in inputs if t is not None]):
        assert_close(g, w, t.dtype, tol=GRAD_TOL)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((1,), 0), ((7,), 0), ((3, 5), -1), ((3, 5), 0),
                                       ((2, 3, 37), 1), ((3, 2053), -1)])
def test_softmax_grads(shape, dim, dtype):
    x = rand(shape, dtype)
    check(lambda t: ops.softmax(t, dim), lambda t: torch.softmax(t, dim), [x], dtype)
    check(lambda t: ops.log_softmax(t, dim), lambda t: torch.log_softmax(t, dim), [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_silu_grads(approximate, dtype):
    x = rand((13, 17), dtype, scale=3.0)
    check(lambda t: ops.gelu(t, approximate), lambda t: F.gelu(t, approximate=approximate), [x],
          dtype)
    check(ops.silu, F.silu, [x], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ns", [((1, 1), [1]), ((5, 7), [7]), ((2, 3, 11), [3, 11]),
                                      ((11,), [11]), ((4, 1031), [1031])])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
def test_layer_norm_grads(shape, ns, affine, dtype):
    x = rand(shape, dtype) + 0.5
    w = rand(ns, dtype, seed=1) if affine != "none" else None
    b = rand(ns, dtype, seed=2) if affine == "both" else None
    check(lambda t, w, b: ops.layer_norm(t, ns, w, b, 1e-5),
          lambda t, w, b: F.layer_norm(t, ns, w, b, 1e-5), [x, w, b], dtype)


def rms_norm_ref(x, w, eps):
    dims = tuple(range(x.dim() - w.dim(), x.dim()))
    return x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps) * w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,wshape", [((1, 1), (1,)), ((5, 7), (7,)), ((3, 2, 13), (2, 13)),
                                          ((13,), (13,)), ((4, 1031), (1031,))])
def test_rms_norm_grads(shape, wshape, dtype):
    x = rand(shape, dtype)
    w = rand(wshape, dtype, seed=1)
    check(lambda t, w: ops.rms_norm(t, w, 1e-6), lambda t, w: rms_norm_ref(t, w, 1e-6), [x, w],
          dtype)


def test_noncontiguous_grads():
    x = rand((9, 14), torch.float32).t()
    check(lambda t: ops.softmax(t, 0), lambda t: torch.softmax(t, 0), [x], torch.float32)
    w = rand((9,), torch.float32, seed=1)
    check(lambda t, w: ops.layer_norm(t, [9], w), lambda t, w: F.layer_norm(t, [9], w), [x, w],
          torch.float32)


def test_softmax_dtype_grad_has_inputs_dtype():
    x = rand((4, 6), torch.float16).requires_grad_(True)
    y = ops.softmax(x, -1, dtype=torch.float32)
    (g,) = torch.autograd.grad(y[:, 0].sum(), x)
    assert g.dtype == torch.float16
    xr = x.detach().double().requires_grad_(True)
    (want,) = torch.autograd.grad(torch.softmax(xr, -1)[:, 0].sum(), xr)
    assert_close(g, want, torch.float16, tol=GRAD_TOL)


def test_double_backward():
    x = rand((3, 7), torch.float32).requires_grad_(True)
    (g,) = torch.autograd.grad(ops.softmax(x, -1)[:, 0].sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.pow(2).sum(), x)
    xr = x.detach().double().requires_grad_(True)
    (gr,) = torch.autograd.grad(torch.softmax(xr, -1)[:, 0].sum(), xr, create_graph=True)
    (ggr,) = torch.autograd.grad(gr.pow(2).sum(), xr)
    assert_close(gg, ggr, torch.float32, tol=GRAD_TOL)


def test_no_grad_and_mean_rstd_not_differentiable():
    x = rand((3, 7), torch.float32).requires_grad_(True)
    with torch.no_grad():
        assert not ops.softmax(x, -1).requires_grad
    out, mean, rstd = ops.native_layer_norm(x, [7], None, None, 1e-5)
    assert out.requires_grad and not mean.requires_grad and not rstd.requires_grad


def test_training_step_matches_torch():
    torch.manual_seed(0)
    lin = torch.nn.Linear(16, 16)
    ln_w, ln_b = torch.ones(16, requires_grad=True), torch.zeros(16, requires_grad=True)
    x = torch.randn(8, 16)

    def step(norm, act, sm):
        lin.zero_grad()
        for p in (ln_w, ln_b):
            p.grad = None
        loss = sm(act(norm(lin(x), ln_w, ln_b)), -1).pow(2).mean()
        loss.backward()
        return loss.item(), [p.grad.clone() for p in (*lin.parameters(), ln_w, ln_b)]

    loss_a, grads_a = step(lambda t, w, b: ops.layer_norm(t, [16], w, b), ops.gelu, ops.softmax)
    loss_t, grads_t = step(lambda t, w, b: F.layer_norm(t, [16], w, b), F.gelu, torch.softmax)
    assert abs(loss_a - loss_t) < 1e-6
    for a, t in zip(grads_a, grads_t):
        torch.testing.assert_close(a, t, rtol=1e-4, atol=1e-6)
