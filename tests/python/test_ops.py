"""torch.ops.aicore.* on CPU tensors against torch's own functions (float64 reference): shapes
with 1 and primes, long rows, non-contiguous views, ranks 0 and 9, every dtype, bad input."""

import pytest
import torch
import torch.nn.functional as F

import aicore
from helpers import DTYPES, assert_close, rand

ops = torch.ops.aicore

SOFTMAX_CASES = [  # (shape, dim)
    ((1,), 0), ((1, 1), -1), ((7,), -1), ((3, 5), -1), ((3, 5), 0), ((13, 17), 1),
    ((2, 3, 37), -1), ((2, 3, 37), 1), ((4, 1, 131), 0), ((3, 20011), -1),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES)
def test_softmax_and_log_softmax(shape, dim, dtype):
    x = rand(shape, dtype)
    assert_close(ops.softmax(x, dim), torch.softmax(x.double(), dim), dtype)
    assert_close(ops.log_softmax(x, dim), torch.log_softmax(x.double(), dim), dtype)


def noncontiguous_views(dtype):
    base = rand((11, 26), dtype, seed=3)
    return {
        "transposed": base.t(),
        "strided": base[:, ::2],
        "offset": base[1:, 3:],
        "expanded": rand((1, 26), dtype, seed=4).expand(5, 26),
        "permuted3d": rand((3, 4, 5), dtype, seed=5).permute(2, 0, 1),
    }


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["transposed", "strided", "offset", "expanded", "permuted3d"])
def test_noncontiguous_inputs(name, dtype):
    x = noncontiguous_views(dtype)[name]
    assert not x.is_contiguous() or name == "offset"
    for dim in range(-x.dim(), x.dim()):
        assert_close(ops.softmax(x, dim), torch.softmax(x.double(), dim), dtype)
        assert_close(ops.log_softmax(x, dim), torch.log_softmax(x.double(), dim), dtype)
    assert_close(ops.gelu(x), F.gelu(x.double()), dtype)
    assert_close(ops.silu(x), F.silu(x.double()), dtype)
    n = x.shape[-1]
    w, b = rand((n,), dtype, seed=6), rand((n,), dtype, seed=7)
    assert_close(ops.layer_norm(x, [n], w, b, 1e-5),
                 F.layer_norm(x.double(), [n], w.double(), b.double(), 1e-5), dtype)
    assert_close(ops.rms_norm(x, w, 1e-6), rms_norm_ref(x.double(), w.double(), 1e-6), dtype)


def test_softmax_dtype_argument():
    x = rand((5, 9), torch.float16)
    y = ops.softmax(x, -1, dtype=torch.float32)
    assert y.dtype == torch.float32
    assert_close(y, torch.softmax(x.double(), -1), torch.float32)
    y = ops.log_softmax(x.float(), 0, torch.bfloat16)
    assert_close(y, torch.log_softmax(x.double(), 0), torch.bfloat16)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rank_0_and_rank_9(dtype):
    x0 = rand((), dtype)
    assert_close(ops.softmax(x0, 0), torch.softmax(x0.double(), 0), dtype)
    assert_close(ops.log_softmax(x0, -1), torch.log_softmax(x0.double(), -1), dtype)
    assert_close(ops.silu(x0), F.silu(x0.double()), dtype)
    x9 = rand((2, 1, 3, 1, 2, 1, 2, 1, 5), dtype)
    for dim in (0, 4, -1):
        assert_close(ops.softmax(x9, dim), torch.softmax(x9.double(), dim), dtype)
    assert_close(ops.gelu(x9, approximate="tanh"), F.gelu(x9.double(), approximate="tanh"), dtype)
    w = rand((2, 1, 5), dtype)
    assert_close(ops.layer_norm(x9, [2, 1, 5], w, None), F.layer_norm(x9.double(), [2, 1, 5],
                                                                      w.double()), dtype)
    assert_close(ops.rms_norm(x9, w), rms_norm_ref(x9.double(), w.double(), 1e-6), dtype)


def test_empty_tensors():
    x = torch.empty(0, 5)
    assert ops.softmax(x, -1).shape == (0, 5)
    assert ops.gelu(x).shape == (0, 5)
    assert ops.layer_norm(x, [5]).shape == (0, 5)
    assert ops.rms_norm(x, torch.ones(5)).shape == (0, 5)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1,), (7,), (3, 5), (13, 17), (2, 3, 1031)])
def test_gelu_and_silu(shape, dtype):
    x = rand(shape, dtype, scale=4.0)
    assert_close(ops.gelu(x), F.gelu(x.double()), dtype)
    assert_close(ops.gelu(x, "none"), F.gelu(x.double(), approximate="none"), dtype)
    assert_close(ops.gelu(x, approximate="tanh"), F.gelu(x.double(), approximate="tanh"), dtype)
    assert_close(ops.silu(x), F.silu(x.double()), dtype)


LAYER_NORM_CASES = [  # (shape, normalized_shape)
    ((1, 1), [1]), ((5, 7), [7]), ((3, 13), [3, 13]), ((2, 3, 11), [3, 11]), ((4, 2053), [2053]),
    ((2, 20011), [20011]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("affine", ["none", "weight", "both", "float_params"])
@pytest.mark.parametrize("shape,ns", LAYER_NORM_CASES)
def test_layer_norm(shape, ns, affine, dtype):
    x = rand(shape, dtype, scale=3.0) + 1.5
    pdtype = torch.float32 if affine == "float_params" else dtype
    w = rand(ns, pdtype, seed=1) if affine != "none" else None
    b = rand(ns, pdtype, seed=2) if affine in ("both", "float_params") else None
    ref = F.layer_norm(x.double(), ns, None if w is None else w.double(),
                       None if b is None else b.double(), 1e-5)
    assert_close(ops.layer_norm(x, ns, w, b, 1e-5), ref, dtype)
    out, mean, rstd = ops.native_layer_norm(x, ns, w, b, 1e-3)
    _, ref_mean, ref_rstd = torch.native_layer_norm(x.double(), ns, None, None, 1e-3)
    assert mean.dtype == rstd.dtype == torch.float32
    torch.testing.assert_close(mean.double(), ref_mean, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(rstd.double(), ref_rstd, rtol=1e-4, atol=1e-5)


def rms_norm_ref(x, w, eps):
    dims = tuple(range(x.dim() - w.dim(), x.dim()))
    return x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps) * w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,wshape", [((1, 1), (1,)), ((5, 7), (7,)), ((3, 2, 13), (2, 13)),
                                          ((4, 2053), (2053,)), ((2, 20011), (20011,))])
def test_rms_norm(shape, wshape, dtype):
    x = rand(shape, dtype)
    for wdtype in (dtype, torch.float32):
        w = rand(wshape, wdtype, seed=1)
        assert_close(ops.rms_norm(x, w, 1e-6), rms_norm_ref(x.double(), w.double(), 1e-6), dtype)
    out, rstd = ops.native_rms_norm(x, w, 1e-5)
    dims = tuple(range(x.dim() - w.dim(), x.dim()))
    ref_rstd = torch.rsqrt(x.double().pow(2).mean(dims, keepdim=True) + 1e-5)
    torch.testing.assert_close(rstd.double(), ref_rstd, rtol=1e-4, atol=1e-6)


def test_outputs_are_fresh_and_inputs_untouched():
    x = rand((6, 10), torch.float32)
    keep = x.clone()
    y = ops.softmax(x, -1)
    assert y.data_ptr() != x.data_ptr()
    assert torch.equal(x, keep)


def test_meta_tensors_give_shapes_and_checks():
    x = torch.empty(4, 9, dtype=torch.bfloat16, device="meta")
    y = ops.softmax(x, 0, dtype=torch.float32)
    assert y.is_meta and y.shape == (4, 9) and y.dtype == torch.float32
    out, mean, rstd = ops.native_layer_norm(x, [9], None, None, 1e-5)
    assert out.is_meta and mean.shape == rstd.shape == (4, 1) and mean.dtype == torch.float32
    assert ops.rms_norm(x, torch.empty(9, device="meta")).shape == (4, 9)
    assert ops.gelu(x, "tanh").is_meta and ops.silu(x).dtype == torch.bfloat16
    with pytest.raises(RuntimeError, match=r"aicore::softmax: dim 5 is out of range"):
        ops.softmax(x, 5)


def test_torchscript():
    @torch.jit.script
    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.ops.aicore.gelu(torch.ops.aicore.softmax(x, -1), "tanh")

    x = rand((4, 9), torch.float32)
    assert_close(f(x), F.gelu(torch.softmax(x.double(), -1), approximate="tanh"), torch.float32)


BAD_INPUT = [
    (lambda: ops.softmax(torch.ones(3, dtype=torch.float64), 0),
     r"aicore::softmax: self has dtype Double; allowed: Float, Half, BFloat16"),
    (lambda: ops.log_softmax(torch.ones(3, dtype=torch.int32), 0),
     r"aicore::log_softmax: self has dtype Int"),
    (lambda: ops.softmax(torch.ones(2, 3), 2),
     r"aicore::softmax: dim 2 is out of range for self of 2 dims; allowed: \[-2, 1\]"),
    (lambda: ops.softmax(torch.ones(2, 3), 0, dtype=torch.float64),
     r"aicore::softmax: dtype Double is not allowed"),
    (lambda: ops.layer_norm(torch.ones(2, 3), [3], torch.ones(3, device="meta")),
     r"aicore::layer_norm: input is on device cpu; all tensor arguments must be on one "
     r"device \(this call runs the meta kernel\)"),
    (lambda: ops.silu(torch.ones(2, 3).to_sparse()), r"aicore::silu: self has layout Sparse"),
    (lambda: ops.gelu(torch.ones(3), "exact"),
     r"aicore::gelu: approximate 'exact' is not allowed; allowed: 'none', 'tanh'"),
    (lambda: ops.layer_norm(torch.ones(2, 3), [4]),
     r"aicore::layer_norm: normalized_shape \[4\] is not the trailing dims of input of shape"),
    (lambda: ops.layer_norm(torch.ones(2, 3), [3], torch.ones(4)),
     r"aicore::layer_norm: weight has shape \[4\]; it must be \[3\]"),
    (lambda: ops.layer_norm(torch.ones(2, 3), [3], None, torch.ones(3, dtype=torch.float64)),
     r"aicore::layer_norm: bias has dtype Double"),
    (lambda: ops.layer_norm(torch.ones(2, 3, dtype=torch.bfloat16), [3],
                            torch.ones(3, dtype=torch.float16)),
     r"aicore::layer_norm: weight has dtype Half; allowed: input's dtype \(BFloat16\) or Float"),
    (lambda: ops.rms_norm(torch.ones(2, 3), torch.ones(2)),
     r"aicore::rms_norm: weight has shape \[2\]; it must be the trailing dims of input"),
    (lambda: ops.rms_norm(torch.ones(2, 3), torch.ones(())),
     r"aicore::rms_norm: weight is 0-d"),
    (lambda: ops.rms_norm(torch.ones(2, 3), torch.ones(3, dtype=torch.int64)),
     r"aicore::rms_norm: weight has dtype Long"),
]


@pytest.mark.parametrize("call,message", BAD_INPUT)
def test_bad_input_raises_runtime_error(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()
    # The process is fine afterwards.
    assert_close(ops.softmax(torch.zeros(3), 0), torch.full((3,), 1 / 3, dtype=torch.float64),
                 torch.float32)
