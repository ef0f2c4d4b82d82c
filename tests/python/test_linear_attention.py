"""torch.ops.aicore.matmul, linear and scaled_dot_product_attention against torch's reference in
float64 (values and gradients): shapes with 1 and primes, broadcasting, non-contiguous inputs,
every dtype, masks, Meta tensors, device tensors and bad input."""

import math

import pytest
import torch
import torch.nn.functional as F

import aicore
from helpers import DTYPES, rand

ops = torch.ops.aicore

# Products sum k terms and the composed ops round after each part, so errors scale with the
# result's magnitude: |got - ref| <= atol * max|ref| + rtol * |ref|.
MM_TOL = {torch.float32: (1e-5, 1e-5), torch.float16: (4e-3, 4e-3),
          torch.bfloat16: (3e-2, 3e-2)}


def close(got, ref, dtype, tol=MM_TOL):
    atol, rtol = tol[dtype]
    assert got.dtype == dtype, (got.dtype, dtype)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    got, ref = got.detach().double().cpu(), ref.detach().double().cpu()
    scale = max(ref.abs().max().item(), 1e-30) if ref.numel() else 1.0
    torch.testing.assert_close(got, ref, rtol=rtol, atol=atol * scale)


def leaves(*tensors):
    """(aicore inputs, float64 reference inputs), both requiring grad."""
    mine = [t.clone().requires_grad_(True) for t in tensors]
    ref = [t.detach().double().requires_grad_(True) for t in tensors]
    return mine, ref


def sdpa_ref(q, k, v, attn_mask=None, is_causal=False, scale=None):
    s = q @ k.transpose(-2, -1) * (1 / math.sqrt(q.size(-1)) if scale is None else scale)
    if is_causal:
        attn_mask = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        s = s.masked_fill(~attn_mask, float("-inf"))
    elif attn_mask is not None:
        s = s + attn_mask.double()
    return torch.softmax(s, -1) @ v


MATMUL_SHAPES = [
    ((7,), (7,)), ((7,), (7, 3)), ((5, 7), (7,)), ((1, 1), (1, 1)), ((13, 1), (1, 11)),
    ((3, 5, 7), (7, 2)), ((2, 1, 5, 7), (3, 7, 1)), ((7,), (2, 7, 3)), ((2, 3, 1, 5, 7), (7, 3)),
    ((2, 1, 2, 1, 3, 5, 7), (2, 1, 3, 1, 7, 2)),  # batch of 5 dims: folded onto one
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul_values_and_gradients(shapes, dtype):
    a, b = rand(shapes[0], dtype, 1, 0.5), rand(shapes[1], dtype, 2, 0.5)
    (am, bm), (ar, br) = leaves(a, b)
    y = ops.matmul(am, bm)
    ref = torch.matmul(ar, br)
    close(y, ref, dtype)
    g = rand(ref.shape, torch.float64, 3)
    y.backward(g.to(dtype))
    ref.backward(g.to(dtype).double())
    close(am.grad, ar.grad, dtype)
    close(bm.grad, br.grad, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul_non_contiguous(dtype):
    a = rand((4, 11, 6), dtype, 1).transpose(1, 2)     # (4, 6, 11), a transposed view
    b = rand((11, 26), dtype, 2)[:, ::2]               # (11, 13), a stride-2 view
    close(ops.matmul(a, b), a.double() @ b.double(), dtype)
    e = rand((1, 6, 11), dtype, 3).expand(4, 6, 11)   # a broadcast (stride 0) batch
    close(ops.matmul(e, b), e.double() @ b.double(), dtype)


def test_matmul_empty_and_zero_k():
    assert ops.matmul(torch.ones(0, 3), torch.ones(3, 4)).shape == (0, 4)
    z = ops.matmul(torch.ones(2, 0), torch.ones(0, 5))
    assert z.shape == (2, 5) and torch.equal(z, torch.zeros(2, 5))


ACTIVATIONS = {"none": lambda t: t, "relu": F.relu, "gelu": F.gelu, "silu": F.silu}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", list(ACTIVATIONS))
@pytest.mark.parametrize("shape,out_features,bias", [
    ((13,), 7, True), ((1, 1), 1, True), ((3, 17), 11, False), ((2, 5, 17), 1, True),
    ((2, 3, 5, 17), 19, True)])
def test_linear_values_and_gradients(shape, out_features, bias, activation, dtype):
    x = rand(shape, dtype, 1, 0.5)
    w = rand((out_features, shape[-1]), dtype, 2, 0.5)
    b = rand((out_features,), dtype, 3, 0.5)
    (xm, wm, bm), (xr, wr, br) = leaves(x, w, b)
    y = ops.linear(xm, wm, bm if bias else None, activation)
    ref = ACTIVATIONS[activation](F.linear(xr, wr, br if bias else None))
    close(y, ref, dtype)
    g = rand(ref.shape, torch.float64, 4).to(dtype)
    y.backward(g)
    ref.backward(g.double())
    close(xm.grad, xr.grad, dtype)
    close(wm.grad, wr.grad, dtype)
    if bias:
        close(bm.grad, br.grad, dtype)
    else:
        assert bm.grad is None


def test_linear_default_arguments_and_non_contiguous():
    x = rand((7, 5), torch.float32).t()           # (5, 7), transposed
    w = rand((3, 14), torch.float32, 1)[:, ::2]   # (3, 7), strided
    close(ops.linear(x, w), x.double() @ w.double().t(), torch.float32)
    close(ops.linear(x, w, None, "relu"), F.relu(x.double() @ w.double().t()), torch.float32)
    b = rand((6,), torch.float32, 2)[::2]       # a strided bias
    close(ops.linear(x, w, b, "silu"), F.silu(x.double() @ w.double().t() + b.double()),
          torch.float32)


def test_linear_empty_shapes():
    b = torch.arange(3.0)
    y = ops.linear(torch.ones(4, 0), torch.ones(3, 0), b)   # no features: the bias alone
    assert torch.equal(y, b.expand(4, 3))
    assert ops.linear(torch.ones(0, 5), torch.ones(3, 5), b).shape == (0, 3)
    assert ops.linear(torch.ones(2, 5), torch.ones(0, 5), torch.ones(0)).shape == (2, 0)


SDPA_SHAPES = [((1, 1), (1, 1), (1, 1)), ((5, 8), (7, 8), (7, 3)),
               ((2, 3, 13, 8), (2, 3, 7, 8), (2, 3, 7, 5)),
               ((2, 3, 5, 8), (1, 3, 11, 8), (2, 1, 11, 4))]   # broadcast batch dims


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SDPA_SHAPES, ids=str)
@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal"])
def test_sdpa_values_and_gradients(shapes, mask, dtype):
    q, k, v = (rand(s, dtype, i, 0.7) for i, s in enumerate(shapes))
    l, s = shapes[0][-2], shapes[1][-2]
    kwargs = {}
    if mask == "bool":
        keep = torch.rand(l, s, generator=torch.Generator().manual_seed(5)) > 0.3
        keep[:, 0] = True   # no fully masked row (torch gives NaN there too)
        kwargs["attn_mask"] = keep
    elif mask == "float":
        kwargs["attn_mask"] = rand((l, s), dtype, 6)
    elif mask == "causal":
        kwargs["is_causal"] = True
    (qm, km, vm), (qr, kr, vr) = leaves(q, k, v)
    y = ops.scaled_dot_product_attention(qm, km, vm, **kwargs)
    ref = sdpa_ref(qr, kr, vr, **kwargs)
    close(y, ref, dtype)
    g = rand(ref.shape, torch.float64, 7).to(dtype)
    y.backward(g)
    ref.backward(g.double())
    for got, want in ((qm, qr), (km, kr), (vm, vr)):
        close(got.grad, want.grad, dtype)


def test_sdpa_scale_and_non_contiguous():
    q = rand((2, 8, 5), torch.float32).transpose(1, 2)   # (2, 5, 8)
    k = rand((2, 7, 16), torch.float32, 1)[..., ::2]     # (2, 7, 8)
    v = rand((7, 2, 3), torch.float32, 2).transpose(0, 1)
    y = ops.scaled_dot_product_attention(q, k, v, None, 0.0, False, 0.3)
    close(y, sdpa_ref(q.double(), k.double(), v.double(), scale=0.3), torch.float32)


def test_meta_shapes():
    m = torch.device("meta")
    assert ops.matmul(torch.empty(2, 1, 5, 7, device=m),
                      torch.empty(3, 7, 4, device=m)).shape == (2, 3, 5, 4)
    y = ops.linear(torch.empty(3, 5, 7, device=m), torch.empty(2, 7, device=m),
                   torch.empty(2, device=m), "gelu")
    assert y.shape == (3, 5, 2) and y.device == m
    a = ops.scaled_dot_product_attention(torch.empty(2, 5, 8, device=m, dtype=torch.half),
                                         torch.empty(2, 7, 8, device=m, dtype=torch.half),
                                         torch.empty(2, 7, 3, device=m, dtype=torch.half),
                                         is_causal=True)
    assert a.shape == (2, 5, 3) and a.dtype == torch.half


@pytest.mark.parametrize("dtype", DTYPES)
def test_on_device_tensors(dtype):
    dev = aicore.device(0)
    x, w, b = rand((3, 17), dtype, 1, 0.5), rand((5, 17), dtype, 2, 0.5), rand((5,), dtype, 3)
    (xm, wm), (xr, wr) = leaves(x, w)
    y = ops.linear(xm.to(dev), wm.to(dev), b.to(dev), "silu")
    assert y.device == dev
    ref = F.silu(F.linear(xr, wr, b.double()))
    close(y, ref, dtype)
    y.sum().backward()
    ref.sum().backward()
    close(xm.grad, xr.grad, dtype)
    close(wm.grad, wr.grad, dtype)
    q, k, v = rand((2, 5, 8), dtype, 4), rand((2, 7, 8), dtype, 5), rand((2, 7, 3), dtype, 6)
    a = ops.scaled_dot_product_attention(q.to(dev), k.to(dev), v.to(dev), is_causal=True)
    assert a.device == dev
    close(a, sdpa_ref(q.double(), k.double(), v.double(), is_causal=True), dtype)
    close(ops.matmul(q.to(dev), k.to(dev).transpose(1, 2)), q.double() @ k.double().mT, dtype)


@pytest.mark.parametrize("call,message", [
    (lambda: ops.matmul(torch.ones(3, 4), torch.ones(5, 2)),
     r"aicore::matmul: self of shape \[3, 4\] and other of shape \[5, 2\] cannot be multiplied"),
    (lambda: ops.matmul(torch.ones(3, 4), torch.ones(4, 2, dtype=torch.half)),
     r"aicore::matmul: other has dtype Half and self Float"),
    (lambda: ops.matmul(torch.ones(3, 4, dtype=torch.int32), torch.ones(4, 2)),
     r"aicore::matmul: self has dtype Int; allowed: Float, Half, BFloat16"),
    (lambda: ops.matmul(torch.ones(2, 3, 4), torch.ones(3, 4, 2)),
     r"aicore::matmul: the batch dims of self \[2\] and other \[3\] do not broadcast"),
    (lambda: ops.matmul(torch.tensor(1.0), torch.ones(3)), r"aicore::matmul: self is 0-d"),
    (lambda: ops.matmul(torch.ones(3, 4, device=aicore.device(0)), torch.ones(4, 2)),
     r"aicore::matmul: other is on device cpu; all tensor arguments must be on one device"),
    (lambda: ops.linear(torch.ones(3, 4), torch.ones(2, 5)),
     r"aicore::linear: input has 4 features .* takes 5"),
    (lambda: ops.linear(torch.ones(3, 4), torch.ones(2, 4), torch.ones(3)),
     r"aicore::linear: bias has shape \[3\]; it must be \[2\]"),
    (lambda: ops.linear(torch.ones(3, 4), torch.ones(2, 4), None, "tanh"),
     r"aicore::linear: activation 'tanh' is not allowed"),
    (lambda: ops.linear(torch.ones(3, 4), torch.ones(2, 4, dtype=torch.bfloat16)),
     r"aicore::linear: weight has dtype BFloat16 and input Float"),
    (lambda: ops.linear(torch.ones(3, 4), torch.ones(4)),
     r"aicore::linear: weight has 1 dims; it must be 2-D"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 4),
                                              torch.ones(3, 4), None, 0.1),
     r"aicore::scaled_dot_product_attention: dropout_p 0.1 is not supported"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 5),
                                              torch.ones(3, 4)),
     r"aicore::scaled_dot_product_attention: key has embedding dim 5 and query 4"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 4),
                                              torch.ones(2, 4)),
     r"aicore::scaled_dot_product_attention: value has 2 positions .* key 3"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 4),
                                              torch.ones(3, 4),
                                              torch.ones(2, 3, dtype=torch.int)),
     r"aicore::scaled_dot_product_attention: attn_mask has dtype Int"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 4),
                                              torch.ones(3, 4), torch.ones(2, 2)),
     r"aicore::scaled_dot_product_attention: attn_mask of shape \[2, 2\] does not broadcast"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 4),
                                              torch.ones(3, 4), torch.ones(2, 3), 0.0, True),
     r"aicore::scaled_dot_product_attention: attn_mask and is_causal=True are both given"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(2, 4), torch.ones(3, 4),
                                              torch.ones(3, 4, dtype=torch.half)),
     r"aicore::scaled_dot_product_attention: value has dtype Half and query Float"),
    (lambda: ops.scaled_dot_product_attention(torch.ones(4), torch.ones(3, 4),
                                              torch.ones(3, 4)),
     r"aicore::scaled_dot_product_attention: query has 1 dims"),
])
def test_bad_input_raises(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


# The fused paths (docs/pytorch.md "Fused kernels"): which aicore kernels a call launches, from
# aicore.profile's launch list.
def kernels_of(fn):
    with aicore.profile(print_table=False, torch_ops=False) as prof:
        result = fn()
    return result, {r["kernel"] for r in prof.launches}


FLASH_TOL = {torch.float32: (2e-5, 2e-5), torch.float16: (4e-3, 4e-3),
             torch.bfloat16: (3e-2, 3e-2)}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("activation", ["relu", "gelu", "silu"])
def test_linear_with_bias_and_activation_runs_one_epilogue_kernel(activation, dtype):
    x, w, b = rand((2, 5, 13), dtype, 1, 0.5), rand((7, 13), dtype, 2, 0.5), rand((7,), dtype, 3)
    with torch.no_grad():
        y, names = kernels_of(lambda: ops.linear(x, w, b, activation))
    assert names == {"ops_matmul_epilogue"}, names
    close(y, ACTIVATIONS[activation](F.linear(x.double(), w.double(), b.double())), dtype)


def test_linear_training_keeps_the_composed_path_and_its_gradients():
    x, w, b = rand((4, 13), torch.float32, 1, 0.5), rand((7, 13), torch.float32, 2, 0.5), \
        rand((7,), torch.float32, 3)
    (xm, wm, bm), (xr, wr, br) = leaves(x, w, b)
    y, names = kernels_of(lambda: ops.linear(xm, wm, bm, "gelu"))
    assert "ops_gelu_erf" in names, names  # composed: the Addmm, then a separate gelu kernel
    ref = F.gelu(F.linear(xr, wr, br))
    close(y, ref, torch.float32)
    y.sum().backward()
    ref.sum().backward()
    for got, want in ((xm, xr), (wm, wr), (bm, br)):
        close(got.grad, want.grad, torch.float32)
    with pytest.raises(RuntimeError, match=r"aicore::_linear_epilogue has no backward"):
        ops._linear_epilogue(xm, wm, bm, "gelu")


FLASH_CASES = [  # (q shape, k shape, v shape, mask)
    ((1, 5, 8), (1, 7, 8), (1, 7, 8), None),
    ((2, 3, 17, 16), (2, 3, 11, 16), (2, 3, 11, 16), None),
    ((2, 3, 17, 16), (2, 3, 11, 16), (2, 3, 11, 16), "bool"),        # [L, S]
    ((2, 3, 9, 8), (2, 3, 9, 8), (2, 3, 9, 5), "bool_batched"),       # [2, 3, L, S], Ev != E
    ((2, 1, 9, 8), (1, 3, 9, 8), (1, 3, 9, 8), "causal"),             # broadcast batch
    ((3, 13, 8), (3, 7, 8), (3, 7, 8), "causal"),                      # L > S
]


def flash_mask(kind, q, k, seed):
    l, s = q.shape[-2], k.shape[-2]
    g = torch.Generator().manual_seed(seed)
    if kind == "bool":
        m = torch.rand(l, s, generator=g) > 0.3
    elif kind == "bool_batched":
        m = torch.rand(2, 3, l, s, generator=g) > 0.3
    else:
        return None
    m[..., 0] = True  # no fully masked row (the fused kernel gives 0 there, torch NaN)
    return m


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", FLASH_CASES, ids=str)
def test_sdpa_takes_flash_attention_values_and_gradients(case, dtype):
    qs, ks, vs, kind = case
    q, k, v = rand(qs, dtype, 1, 1.0), rand(ks, dtype, 2, 1.0), rand(vs, dtype, 3, 1.0)
    mask = flash_mask(kind, q, k, 4)
    kwargs = {"attn_mask": mask} if mask is not None else {}
    if kind == "causal":
        kwargs = {"is_causal": True}
    (qm, km, vm), (qr, kr, vr) = leaves(q, k, v)
    y, fwd = kernels_of(lambda: ops.scaled_dot_product_attention(qm, km, vm, **kwargs))
    assert "ops_flash_attention" in fwd and "ops_matmul" not in str(fwd), fwd
    ref = sdpa_ref(qr, kr, vr, **kwargs)
    close(y, ref, dtype, FLASH_TOL)
    dy = rand(y.shape, dtype, 5, 1.0)
    _, bwd = kernels_of(lambda: y.backward(dy))
    assert {"ops_flash_attention_grad_dq", "ops_flash_attention_grad_dkv"} <= bwd, bwd
    ref.backward(dy.double())
    for got, want in ((qm, qr), (km, kr), (vm, vr)):
        close(got.grad, want.grad, dtype, FLASH_TOL)


def test_sdpa_float_mask_keeps_the_composed_path():
    q, k, v = rand((2, 5, 8), torch.float32, 1), rand((2, 7, 8), torch.float32, 2), \
        rand((2, 7, 8), torch.float32, 3)
    add = rand((5, 7), torch.float32, 4)
    y, names = kernels_of(lambda: ops.scaled_dot_product_attention(q, k, v, add))
    assert not any(n.startswith("ops_flash_attention") for n in names), names
    close(y, sdpa_ref(q.double(), k.double(), v.double(), add.double()), torch.float32)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_fused_paths_on_device_tensors(dtype):
    dev = aicore.device(0)
    x, w, b = rand((3, 11), dtype, 1, 0.5), rand((5, 11), dtype, 2, 0.5), rand((5,), dtype, 3)
    with torch.no_grad():
        y, names = kernels_of(lambda: ops.linear(x.to(dev), w.to(dev), b.to(dev), "silu"))
    assert "ops_matmul_epilogue" in names and "ops_silu" not in names, names
    assert y.device == dev
    close(y, F.silu(F.linear(x.double(), w.double(), b.double())), dtype)
    q, k, v = rand((2, 7, 8), dtype, 4, 1.0), rand((2, 5, 8), dtype, 5, 1.0), \
        rand((2, 5, 8), dtype, 6, 1.0)
    keep = torch.rand(7, 5, generator=torch.Generator().manual_seed(7)) > 0.3
    keep[:, 0] = True
    (qm, km, vm), (qr, kr, vr) = leaves(q, k, v)
    qd, kd, vd = (t.to(dev) for t in (qm, km, vm))
    a, names = kernels_of(lambda: ops.scaled_dot_product_attention(qd, kd, vd, keep.to(dev)))
    assert "ops_flash_attention" in names and a.device == dev, names
    ref = sdpa_ref(qr, kr, vr, keep)
    close(a, ref, dtype, FLASH_TOL)
    dy = rand(a.shape, dtype, 8, 1.0)
    a.backward(dy.to(dev))
    ref.backward(dy.double())
    for got, want in ((qm, qr), (km, kr), (vm, vr)):
        close(got.grad, want.grad, dtype, FLASH_TOL)
