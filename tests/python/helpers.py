"""Shared helpers of the torch test files: tolerances per dtype and reference comparison."""

import torch

import aicore  # noqa: F401  (registers torch.ops.aicore)
DTYPES = [torch.float32, torch.float16, torch.bfloat16]

# |got - ref| <= atol + rtol * |ref| against a float64 reference (docs/ops.md's per-dtype bounds,
# atol raised to rtol: log-softmax and normalised outputs sit near 0).
TOL = {torch.float32: (3e-5, 3e-5), torch.float16: (2e-3, 2e-3),
       torch.bfloat16: (1.6e-2, 1.6e-2)}
# Gradients: composed in float32, then rounded to the dtype.
GRAD_TOL = {torch.float32: (1e-4, 1e-4), torch.float16: (5e-3, 5e-3),
            torch.bfloat16: (3e-2, 3e-2)}


def assert_close(got, ref, dtype, tol=TOL):
    rtol, atol = tol[dtype]
    assert got.dtype == dtype, (got.dtype, dtype)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    torch.testing.assert_close(got.double(), ref.double().to(dtype).double(), rtol=rtol,
                               atol=atol)


def rand(shape, dtype, seed=0, scale=2.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)
