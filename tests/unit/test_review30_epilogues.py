"""Review 30: GEMM epilogues a new cuTile user ports from Triton / PyTorch model code -- bias + activation + cast
after the K loop (gelu-tanh, gelu-erf written with the Abramowitz-Stegun erf, silu, relu^2), a row scale vector and
a column scale vector, int8 x int8 and fp8 x fp8 products dequantized by per-row / per-column scales.  Each must
take the tensor-core kernel (a remark says so); the f16 ones run CTA by CTA on the PTX emulator (its WGMMA is
f16 only) against numpy with NaN-prefilled outputs, the int8 / fp8 ones are compiled here and run on the GPU by
``tests/gpu/test_review30_gpu.py``.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

C = ct.Constant
ZERO = ct.PaddingMode.ZERO
F16, F32 = "float16", "float32"
RNG = np.random.default_rng(3031)


def _acc(A, B, bm, bn, tm, tn, tk):
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    return acc


@ct.kernel
def bias_gelu_tanh(A, B, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    z = _acc(A, B, bm, bn, tm, tn, tk) + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    y = 0.5 * z * (1.0 + ct.tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)))
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def bias_gelu_erf(A, B, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """gelu(z) = z/2 (1 + erf(z / sqrt 2)), erf by Abramowitz-Stegun 7.1.26 (cuTile has no erf)."""
    bm, bn = ct.bid(0), ct.bid(1)
    z = _acc(A, B, bm, bn, tm, tn, tk) + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    u = z * 0.7071067811865476
    au = ct.abs(u)
    t = 1.0 / (1.0 + 0.3275911 * au)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf_abs = 1.0 - poly * ct.exp(-au * au)
    erf = ct.where(u < 0.0, -erf_abs, erf_abs)
    ct.store(Y, index=(bm, bn), tile=(0.5 * z * (1.0 + erf)).astype(Y.dtype))


@ct.kernel
def silu_row_col_scales(A, B, RowS, ColS, Y, tm: C[int], tn: C[int], tk: C[int]):
    """y = silu(acc * row_scale[m] * col_scale[n]) as f16."""
    bm, bn = ct.bid(0), ct.bid(1)
    r = ct.load(RowS, index=(bm,), shape=(tm,), padding_mode=ZERO)
    c = ct.load(ColS, index=(bn,), shape=(tn,), padding_mode=ZERO)
    z = _acc(A, B, bm, bn, tm, tn, tk) * r[:, None] * c[None, :]
    ct.store(Y, index=(bm, bn), tile=(z / (1.0 + ct.exp(-z))).astype(Y.dtype))


@ct.kernel
def relu_squared_bias(A, B, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Primer's relu(x)^2 with an f16 bias, f32 output."""
    bm, bn = ct.bid(0), ct.bid(1)
    b = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO).astype(ct.float32)
    z = ct.maximum(_acc(A, B, bm, bn, tm, tn, tk) + b[None, :], 0.0)
    ct.store(Y, index=(bm, bn), tile=z * z)


@ct.kernel
def int8_dequant_bias(A, B, Sa, Sb, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """int8 x int8 -> int32; y = bf16(acc * sa[m] * sb[n] + bias[n])."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.int32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO),
                     ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    sa = ct.load(Sa, index=(bm,), shape=(tm,), padding_mode=ZERO)
    sb = ct.load(Sb, index=(bn,), shape=(tn,), padding_mode=ZERO)
    bias = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
    y = acc.astype(ct.float32) * sa[:, None] * sb[None, :] + bias[None, :]
    ct.store(Y, index=(bm, bn), tile=y.astype(Y.dtype))


@ct.kernel
def fp8_scales_silu(A, Bt, Sa, Sb, Y, tm: C[int], tn: C[int], tk: C[int]):
    """e4m3 A [M, K] x e4m3 Bt [N, K] (weights stored N-major), per-row and per-column f32 scales, silu, bf16."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], tk)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ZERO)
        b = ct.load(Bt, index=(bn, k), shape=(tn, tk), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(b), acc)
    z = acc * ct.load(Sa, index=(bm,), shape=(tm,), padding_mode=ZERO)[:, None] \
        * ct.load(Sb, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    ct.store(Y, index=(bm, bn), tile=(z / (1.0 + ct.exp(-z))).astype(Y.dtype))


@ct.kernel
def plain_product(A, B, Y, tm: C[int], tn: C[int], tk: C[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    ct.store(Y, index=(bm, bn), tile=_acc(A, B, bm, bn, tm, tn, tk).astype(Y.dtype))


@ct.kernel
def two_outputs(A, B, Bias, Z, Y, tm: C[int], tn: C[int], tk: C[int]):
    """The pre-activation z = acc + bias (f32, kept for the backward pass) and y = f16(relu(z)): two stores."""
    bm, bn = ct.bid(0), ct.bid(1)
    z = _acc(A, B, bm, bn, tm, tn, tk) + ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)[None, :]
    ct.store(Z, index=(bm, bn), tile=z)
    ct.store(Y, index=(bm, bn), tile=ct.maximum(z, 0.0).astype(Y.dtype))


@ct.kernel
def residual_rms_scale(A, B, R, Y, tm: C[int], tn: C[int], tk: C[int]):
    """y = bf16(residual + acc * rsqrt(mean over the tile's columns of acc^2 + 1e-6)): a row statistic of the
    accumulator tile (one column tile: N = tn)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = _acc(A, B, bm, bn, tm, tn, tk)
    ms = ct.sum(acc * acc, axis=1, keepdims=True) / tn
    r = ct.load(R, index=(bm, bn), shape=(tm, tn), padding_mode=ZERO).astype(ct.float32)
    ct.store(Y, index=(bm, bn), tile=(r + acc * ct.rsqrt(ms + 1e-6)).astype(Y.dtype))


def _a(shape, dt=F16):
    return (tuple(shape), dt)


SPECS = {
    "bias_gelu_tanh": [_a((130, 96)), _a((96, 80)), _a((80,), F32), _a((130, 80)), 64, 64, 32],
    "bias_gelu_erf": [_a((130, 96)), _a((96, 80)), _a((80,), F32), _a((130, 80), F32), 64, 64, 32],
    "silu_row_col_scales": [_a((130, 96)), _a((96, 80)), _a((130,), F32), _a((80,), F32), _a((130, 80)), 64, 64, 32],
    "relu_squared_bias": [_a((130, 96)), _a((96, 80)), _a((80,)), _a((130, 80), F32), 64, 64, 32],
    "int8_dequant_bias": [_a((130, 96), "int8"), _a((96, 80), "int8"), _a((130,), F32), _a((80,), F32),
                          _a((80,), F32), _a((130, 80), "bfloat16"), 64, 64, 64],
    "fp8_scales_silu": [_a((130, 128), "float8_e4m3fn"), _a((80, 128), "float8_e4m3fn"), _a((130,), F32),
                        _a((80,), F32), _a((130, 80), "bfloat16"), 64, 64, 64],
    "tiny_tiles_one_row": [_a((1, 96)), _a((96, 80)), _a((1, 80), F32), 16, 16, 16],
    "seven_rows": [_a((7, 40)), _a((40, 24)), _a((7, 24), F32), 64, 64, 32],
    "two_outputs": [_a((130, 96)), _a((96, 80)), _a((80,), F32), _a((130, 80), F32), _a((130, 80)), 64, 64, 32],
    "residual_rms_scale": [_a((130, 96)), _a((96, 64)), _a((130, 64)), _a((130, 64)), 64, 64, 32],
}
KERNELS = {"tiny_tiles_one_row": "plain_product", "seven_rows": "plain_product"}
"""Specs named apart from their kernel."""
RUNS = {"bias_gelu_tanh": (3, 2), "bias_gelu_erf": (3, 2), "silu_row_col_scales": (3, 2), "relu_squared_bias": (3, 2),
        "tiny_tiles_one_row": (1, 5), "seven_rows": (1, 1), "two_outputs": (3, 2), "residual_rms_scale": (3, 1)}
"""The f16 programs the emulator runs: their launch grids."""


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    return compile_once(cutile_bytecode(globals()[KERNELS.get(name, name)], SPECS[name]), f"rv30_{name}",
                        arch="sm_90a", ptxas=False)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_epilogue_programs_take_the_tensor_cores(name):
    p = _compile(name)
    assert p.kind == "gemm", (name, p.kind, p.remarks)
    assert any("compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel" in r for r in p.remarks)
    assert not [r for r in p.remarks if "refused" in r], p.remarks


@pytest.fixture
def gemm(monkeypatch):
    programs = {f"rv30_{n}": UserProgram(globals()[KERNELS.get(n, n)], SPECS[n], grid, "gemm",
                                         outputs=(len(SPECS[n]) - 4,)) for n, grid in RUNS.items()}
    s4.add_sweep_programs(monkeypatch, programs)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **programs})
    return lambda name, inputs: s14e.emulate(f"rv30_{name}", inputs)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _nan(shape, dt=np.float16):
    return np.full(shape, np.nan, dt)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _erf(x):
    from math import erf

    return np.vectorize(erf)(x)


@pytest.mark.parametrize("name", ["bias_gelu_tanh", "bias_gelu_erf"])
def test_bias_gelu_epilogues(gemm, name):
    a, b, bias = _h(130, 96), _h(96, 80, scale=0.25), RNG.standard_normal(80).astype(np.float32)
    out_dt = np.float16 if name == "bias_gelu_tanh" else np.float32
    y = gemm(name, {0: a, 1: b, 2: bias, 3: _nan((130, 80), out_dt)})[3]
    z = _mm(a, b) + bias
    want = 0.5 * z * (1 + (np.tanh(0.7978845608028654 * (z + 0.044715 * z ** 3)) if name == "bias_gelu_tanh"
                           else _erf(z / np.sqrt(2))))
    s14e._check(y, want, 3e-2, 1e-2)


def test_silu_with_a_row_and_a_column_scale(gemm):
    a, b = _h(130, 96), _h(96, 80, scale=0.25)
    r, c = RNG.uniform(0.5, 2, 130).astype(np.float32), RNG.uniform(0.5, 2, 80).astype(np.float32)
    y = gemm("silu_row_col_scales", {0: a, 1: b, 2: r, 3: c, 4: _nan((130, 80))})[4]
    z = _mm(a, b) * r[:, None] * c[None, :]
    s14e._check(y, z / (1 + np.exp(-z)), 3e-2, 1e-2)


def test_relu_squared_with_an_f16_bias(gemm):
    a, b, bias = _h(130, 96), _h(96, 80, scale=0.25), _h(80)
    y = gemm("relu_squared_bias", {0: a, 1: b, 2: bias, 3: _nan((130, 80), np.float32)})[3]
    z = np.maximum(_mm(a, b) + bias.astype(np.float64), 0)
    s14e._check(y, z * z, 6e-2, 1e-2)


@pytest.mark.parametrize("name,m,k,n", [("tiny_tiles_one_row", 1, 96, 80), ("seven_rows", 7, 40, 24)])
def test_one_row_and_seven_rows(gemm, name, m, k, n):
    a, b = _h(m, k), _h(k, n, scale=0.25)
    s14e._check(gemm(name, {0: a, 1: b, 2: _nan((m, n), np.float32)})[2], _mm(a, b), 3e-2, 1e-2)


def test_two_outputs_pre_activation_and_relu(gemm):
    a, b, bias = _h(130, 96), _h(96, 80, scale=0.25), RNG.standard_normal(80).astype(np.float32)
    out = gemm("two_outputs", {0: a, 1: b, 2: bias, 3: _nan((130, 80), np.float32), 4: _nan((130, 80))})
    z = _mm(a, b) + bias
    s14e._check(out[3], z, 3e-2, 1e-2)
    s14e._check(out[4], np.maximum(z, 0), 3e-2, 1e-2)


def test_a_row_statistic_of_the_accumulator_with_a_residual(gemm):
    a, b, r = _h(130, 96), _h(96, 64, scale=0.25), _h(130, 64)
    y = gemm("residual_rms_scale", {0: a, 1: b, 2: r, 3: _nan((130, 64))})[3]
    acc = _mm(a, b)
    s14e._check(y, r.astype(np.float64) + acc / np.sqrt((acc * acc).mean(1, keepdims=True) + 1e-6), 3e-2, 1e-2)
