"""aicore.fx.optimize on several module styles: what is rewritten to which aicore op, what is not
and why, and that the optimized module computes what eager does (forward and gradients)."""

import copy
import math

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import aicore


def has(op):
    try:
        getattr(torch.ops.aicore, op)
    except (AttributeError, RuntimeError):
        return False
    return True


needs_attention = pytest.mark.skipif(not has("scaled_dot_product_attention"),
                                     reason="torch.ops.aicore.scaled_dot_product_attention absent")
needs_linear = pytest.mark.skipif(not has("linear"), reason="torch.ops.aicore.linear absent")


def rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def optimized(module, *inputs, atol=2e-5, **kwargs):
    """Optimizes `module`, checks the result against eager on `inputs` and returns the
    GraphModule and its report."""
    fast = aicore.fx.optimize(module, **kwargs)
    with torch.no_grad():
        torch.manual_seed(0)  # the same dropout masks
        want = module(*inputs)
        torch.manual_seed(0)
        got = fast(*inputs)
    torch.testing.assert_close(got, want, atol=atol, rtol=atol)
    return fast, fast.aicore_fusion_report


def fused(report):
    return sorted(f["pattern"] for f in report.fused)


def reasons(report):
    return " | ".join(s["reason"] for s in report.skipped)


# --------------------------------------------------------------------------------------------
# Attention in the forms people write it.

class MatmulOperatorAttention(nn.Module):  # q @ k.transpose(-2, -1) * scale, torch.softmax
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5, dim=-1) @ v


class TorchMatmulAttention(nn.Module):  # torch.matmul, / math.sqrt(d), F.softmax
    def __init__(self, d):
        super().__init__()
        self.d = d

    def forward(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d)
        return torch.matmul(F.softmax(scores, dim=-1), v)


class BmmAttention(nn.Module):  # torch.bmm on 3-d, transpose(1, 2), softmax(2), scale on q
    def forward(self, q, k, v):
        return torch.bmm((q * 0.125).bmm(k.transpose(1, 2)).softmax(2), v)


class MtAttention(nn.Module):  # k.mT, scale on the right, then torch.transpose in a second one
    def forward(self, q, k, v):
        a = torch.softmax(0.25 * torch.matmul(q, k.mT), -1) @ v
        return torch.softmax(q @ torch.transpose(k, -1, -2), dim=-1) @ a


class MaskedAttention(nn.Module):  # additive float mask, nn.Softmax, dropout in eval
    def __init__(self):
        super().__init__()
        self.softmax = nn.Softmax(dim=-1)
        self.drop = nn.Dropout(0.1)

    def forward(self, q, k, v, mask):
        s = torch.matmul(q, k.transpose(-2, -1)) * 0.25 + mask
        return torch.matmul(self.drop(self.softmax(s)), v)


class CausalAttention(nn.Module):  # masked_fill(tril == 0, -inf), as nanoGPT writes it
    def __init__(self, t):
        super().__init__()
        self.register_buffer("tril", torch.tril(torch.ones(t, t)))

    def forward(self, q, k, v):
        s = (q @ k.transpose(-2, -1)) * 0.25
        s = s.masked_fill(self.tril == 0, float("-inf"))
        return F.softmax(s, dim=-1) @ v


@needs_attention
@pytest.mark.parametrize("module,shape", [
    (MatmulOperatorAttention(), (2, 3, 7, 16)),
    (TorchMatmulAttention(16), (2, 3, 7, 16)),
    (BmmAttention(), (6, 7, 16)),
    (MtAttention(), (2, 7, 16)),
])
def test_attention_forms_become_one_sdpa(module, shape):
    q, k, v = rand(*shape, seed=1), rand(*shape, seed=2), rand(*shape, seed=3)
    fast, report = optimized(module, q, k, v)
    assert set(fused(report)) == {"attention"}, report
    assert "aicore.scaled_dot_product_attention" in fast.code
    assert "softmax" not in fast.code.replace("scaled_dot_product_attention", "")
    assert "matmul" not in fast.code and "bmm" not in fast.code


@needs_attention
def test_masked_and_causal_attention():
    q, k, v = rand(2, 4, 9, 16, seed=1), rand(2, 4, 9, 16, seed=2), rand(2, 4, 9, 16, seed=3)
    mask = torch.zeros(9, 9).masked_fill(torch.rand(9, 9) < 0.3, -1e4)
    module = MaskedAttention().eval()
    fast, report = optimized(module, q, k, v, mask)
    assert fused(report) == ["attention"], report
    assert "mask" in report.fused[0]["note"]
    fast, report = optimized(CausalAttention(9).eval(), q, k, v)
    assert fused(report) == ["attention"], report
    assert "logical_not" in fast.code


class HfAttention(nn.Module):  # transpose(2, 3), + mask, softmax in float32 cast back
    def forward(self, q, k, v, mask):
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(16) + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(w, v)


@needs_attention
def test_hugging_face_style_attention_with_example_inputs():
    args = (rand(2, 4, 9, 16, seed=1), rand(2, 4, 9, 16, seed=2), rand(2, 4, 9, 16, seed=3),
            torch.zeros(2, 1, 9, 9).masked_fill(torch.rand(2, 1, 9, 9) < 0.3, -1e9))
    _, report = optimized(HfAttention(), *args)
    assert "example_inputs" in reasons(report)
    fast, report = optimized(HfAttention(), *args, example_inputs=args)
    assert fused(report) == ["attention"], report
    assert "softmax" not in fast.code.replace("scaled_dot_product_attention", "")
    assert "dtype" not in fast.code  # the cast and q.dtype went with the pattern
    half = [a.bfloat16() for a in args]
    got = fast(*half)
    assert got.dtype == torch.bfloat16
    torch.testing.assert_close(got.float(), HfAttention()(*args), atol=4e-2, rtol=4e-2)

    class NoCastBack(nn.Module):
        def forward(self, q, k, v):
            return F.softmax(q @ k.transpose(-2, -1), dim=-1, dtype=torch.float32) @ v

    _, report = optimized(NoCastBack(), *args[:3])
    assert "not cast back" in reasons(report)


@needs_attention
def test_attention_that_cannot_be_fused_says_why():
    _, report = optimized(MaskedAttention().train(), *[rand(2, 5, 8, seed=i) for i in range(3)],
                          torch.zeros(5, 5))
    assert "attention" not in fused(report)
    assert "dropout p=0.1" in reasons(report)

    class ReturnsWeights(nn.Module):
        def forward(self, q, k, v):
            w = torch.softmax(q @ k.transpose(-2, -1), -1)
            return w @ v, w

    _, report = optimized(ReturnsWeights(), *[rand(5, 8, seed=i) for i in range(3)])
    assert "used elsewhere" in reasons(report)

    class PositiveDims(nn.Module):
        def forward(self, q, k, v):
            return torch.softmax(q @ k.transpose(2, 3), -1) @ v

    class ShiftedByANumber(nn.Module):
        def forward(self, q, k, v):
            return torch.softmax(q @ k.transpose(-2, -1) + 1.0, -1) @ v

    _, report = optimized(ShiftedByANumber(), *[rand(5, 8, seed=i) for i in range(3)])
    assert "shifted by 1.0, not by a mask tensor" in reasons(report)

    qkv = [rand(1, 2, 5, 8, seed=i) for i in range(3)]
    _, report = optimized(PositiveDims(), *qkv)
    assert "example_inputs" in reasons(report)
    _, report = optimized(PositiveDims(), *qkv, example_inputs=tuple(qkv))
    assert fused(report) == ["attention"]


# --------------------------------------------------------------------------------------------
# Linear + bias + activation.

class Mlp(nn.Module):  # nn.Linear + nn.ReLU modules, nn.Linear + F.gelu, F.linear + .relu()
    def __init__(self):
        super().__init__()
        self.up = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.mid = nn.Linear(64, 64)
        self.w = nn.Parameter(torch.randn(16, 64) * 0.1)
        self.b = nn.Parameter(torch.randn(16) * 0.1)
        self.out = nn.Linear(16, 8, bias=False)

    def forward(self, x):
        h = F.gelu(self.mid(self.up(x)))
        return self.out(F.linear(h, self.w, self.b).relu())


@needs_linear
def test_linear_bias_activation_forms():
    x = rand(4, 7, 32)
    fast, report = optimized(Mlp(), x, atol=1e-4)
    assert fused(report) == ["linear", "linear+bias+gelu", "linear+bias+relu",
                             "linear+bias+relu"], report
    assert fast.code.count("aicore.linear") == 4 and "relu" not in fast.code.replace(
        "'relu'", "")


@needs_linear
def test_linear_with_silu_and_tanh_gelu():
    model = nn.Sequential(nn.Linear(16, 32), nn.SiLU(), nn.Linear(32, 16), nn.GELU("tanh"))
    fast, report = optimized(model, rand(3, 16), atol=1e-4)
    assert fused(report) == ["gelu_tanh", "linear+bias", "linear+bias+silu"], report
    assert "approximate = 'tanh'" in fast.code


# --------------------------------------------------------------------------------------------
# Norms (these ops exist in every build with the extension).

class LlamaRMSNorm(nn.Module):  # x.float() ... .type_as(x) * weight
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.rand(d) + 0.5)

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        return self._norm(x.float()).type_as(x) * self.weight


class HfRMSNorm(nn.Module):  # variance = h.pow(2).mean(...); weight * h
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, h):
        variance = h.pow(2).mean(-1, keepdim=True)
        return self.weight * (h * torch.rsqrt(variance + 1e-5))


class SqrtRMSNorm(nn.Module):  # x / sqrt(mean(x*x) + eps) * w
    def __init__(self, d):
        super().__init__()
        self.w = nn.Parameter(torch.rand(d) + 0.5)

    def forward(self, x):
        return x / torch.sqrt(torch.mean(x * x, dim=-1, keepdim=True) + 1e-6) * self.w


@pytest.mark.parametrize("module", [LlamaRMSNorm(24), HfRMSNorm(24), SqrtRMSNorm(24)],
                         ids=["llama", "hf", "sqrt"])
def test_rms_norm_forms(module):
    fast, report = optimized(module, rand(3, 5, 24), atol=1e-5)
    assert fused(report) == ["rms_norm"], report
    assert "aicore.rms_norm" in fast.code and "rsqrt" not in fast.code and "mean" not in fast.code


def test_rms_norm_without_a_weight_parameter_is_left_alone():
    class NoParam(nn.Module):
        def forward(self, x, w):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    fast, report = optimized(NoParam(), rand(3, 8), rand(8, seed=1))
    assert fused(report) == [] and "1-d parameter" in reasons(report)
    assert "rsqrt" in fast.code


class PreNormBlock(nn.Module):  # nn.LayerNorm, F.layer_norm, residual add + layer_norm
    def __init__(self, d):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.ln2 = nn.LayerNorm(d, elementwise_affine=False, eps=1e-6)
        self.g = nn.Parameter(torch.rand(d) + 0.5)
        self.b = nn.Parameter(torch.randn(d))

    def forward(self, x, r):
        h = self.ln1(x)
        h = self.ln2(h + r)
        return F.layer_norm(h * 2, (20,), self.g, self.b, 1e-5)


def test_layer_norm_forms_and_the_residual_add():
    fast, report = optimized(PreNormBlock(20), rand(2, 6, 20), rand(2, 6, 20, seed=1))
    assert fused(report) == ["layer_norm", "layer_norm", "residual_add+layer_norm"], report
    assert fast.code.count("aicore.layer_norm") == 3
    note = [f["note"] for f in report.fused if f["pattern"] == "residual_add+layer_norm"][0]
    assert "no add + layer_norm kernel" in note


def test_single_ops_and_report_printing(capsys):
    model = nn.Sequential(nn.GELU(), nn.SiLU(), nn.Softmax(dim=0))
    fast, report = optimized(model, rand(5, 6), report=True)
    assert fused(report) == ["gelu", "silu", "softmax"]
    out = capsys.readouterr().out
    assert "aicore.fx.optimize: 3 fused" in out and "aicore.softmax" in out
    assert str(report) in out


def test_leaf_modules_are_not_traced_into():
    mha = nn.MultiheadAttention(16, 2, batch_first=True)

    class Wrap(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, x):
            return self.mha(x, x, x, need_weights=False)[0]

    fast, report = optimized(Wrap().eval(), rand(2, 5, 16))
    assert report.fused == [] and "mha" in fast.code
    assert "nn.MultiheadAttention is a torch.nn leaf module" in reasons(report)


def test_gradients_match_eager_and_parameters_are_shared():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(16)
            self.rms = LlamaRMSNorm(16)

        def forward(self, x):
            return self.rms(F.silu(self.ln(x)) + x).sum(-1)

    model = Block()
    fast = aicore.fx.optimize(model)
    assert fused(fast.aicore_fusion_report) == ["layer_norm", "rms_norm", "silu"]
    x = rand(4, 16)
    fast(x).pow(2).sum().backward()
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    model(x).pow(2).sum().backward()
    for g, p in zip(got, model.parameters()):  # fast's parameters are model's
        torch.testing.assert_close(g, p.grad, atol=1e-4, rtol=1e-4)


def test_on_the_aicore_device():
    model = nn.Sequential(nn.LayerNorm(32), nn.GELU())
    fast = aicore.fx.optimize(model).to(aicore.device(0))
    x = rand(3, 32)
    got = fast(x.to(aicore.device(0)))
    assert got.device.type == aicore.DEVICE_TYPE
    torch.testing.assert_close(got.cpu(), model.cpu()(x), atol=1e-5, rtol=1e-5)


def test_torch_compile_backend_is_registered_only_where_torch_has_it():
    assert aicore.fx.compile_backend_registered == (hasattr(torch, "compile") and
                                                    hasattr(torch, "_dynamo"))


def test_the_optimized_module_can_be_scripted():
    model = nn.Sequential(nn.LayerNorm(24), nn.GELU(), HfRMSNorm(24))
    fast = aicore.fx.optimize(model)
    assert fused(fast.aicore_fusion_report) == ["gelu", "layer_norm", "rms_norm"]
    scripted = torch.jit.script(fast)
    x = rand(4, 24)
    with torch.no_grad():
        torch.testing.assert_close(scripted(x), model(x), atol=1e-5, rtol=1e-5)


@needs_linear
@needs_attention
@pytest.mark.parametrize("dtype,tol", [(torch.float16, 5e-3), (torch.bfloat16, 4e-2)])
def test_reduced_precision_against_the_float32_model(dtype, tol):
    # torch 1.13's CPU has no fp16 addmm: the reference is the float32 model on the same values
    mlp, attn = Mlp(), CausalAttention(9).eval()
    x, q = rand(3, 32), rand(2, 9, 16, seed=1)
    with torch.no_grad():
        want_mlp, want_attn = mlp(x), attn(q, q, q)
    fast_mlp = aicore.fx.optimize(copy.deepcopy(mlp).to(dtype))
    fast_attn = aicore.fx.optimize(copy.deepcopy(attn).to(dtype))
    with torch.no_grad():
        got_mlp, got_attn = fast_mlp(x.to(dtype)), fast_attn(*[q.to(dtype)] * 3)
    assert got_mlp.dtype == dtype and got_attn.dtype == dtype
    torch.testing.assert_close(got_mlp.float(), want_mlp, atol=tol, rtol=tol)
    torch.testing.assert_close(got_attn.float(), want_attn, atol=tol, rtol=tol)


def test_example_inputs_in_double_leave_the_graph_to_torch():
    model = nn.Sequential(nn.LayerNorm(8), nn.GELU(), LlamaRMSNorm(8)).double()
    x = rand(3, 8).double()
    fast, report = optimized(model, x, example_inputs=(x,))
    assert fused(report) == [] and "aicore" not in fast.code
    assert "the result is torch.float64" in reasons(report)
    fast, report = optimized(model.float(), x.float(), example_inputs=(x.float(),))
    assert fused(report) == ["gelu", "layer_norm", "rms_norm"]
