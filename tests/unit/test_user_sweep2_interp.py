"""The SIMT programs of the second user sweep (``tileorch.testing.user_programs2``) run on the CPU
by the lockstep interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run)
against numpy references in float64 from the same inputs, outputs pre-filled with NaN (integers
with a sentinel).  Programs with atomics or ``while`` loops run on the GPU only
(tests/gpu/test_user_sweep2_gpu.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from test_user_sweep_interp import _close, run, sample  # noqa: E402

RNG = np.random.default_rng(11)


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _gelu(v):
    return 0.5 * v * (1.0 + np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))


def test_vector_add_tail():
    a, b = _f((1000,)), _f((1000,))
    np.testing.assert_array_equal(run("vector_add_tail", {0: a, 1: b})[2], a + b)


def test_layernorm_fwd():
    x, w, b = _f((5, 200), "float16"), _f((200,), "float16"), _f((200,), "float16")
    xd = x.astype(np.float64)
    mu, var = xd.mean(1), xd.var(1)
    rstd = 1 / np.sqrt(var + 1e-5)
    out = run("layernorm_fwd", {0: x, 1: w, 2: b})
    _close(out[3], (xd - mu[:, None]) * rstd[:, None] * w + b, 1e-2, 1e-2)
    _close(out[4], mu, 1e-5)
    _close(out[5], rstd, 1e-4, 1e-5)


def test_softmax_rows_block():
    x = _f((10, 100))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    _close(run("softmax_rows_block", {0: x})[1], e / e.sum(1, keepdims=True), 1e-6)


def test_col_mean_var():
    x = _f((32, 64))
    out = run("col_mean_var", {0: x})
    _close(out[1], x.astype(np.float64).mean(0), 1e-6)
    _close(out[2], x.astype(np.float64).var(0, ddof=1), 1e-5)


def test_row_argmin_i64():
    x = _f((6, 90))
    out = run("row_argmin_i64", {0: x})
    np.testing.assert_array_equal(out[1], x.argmin(1).astype(np.int64))
    np.testing.assert_array_equal(out[2], x.min(1))


def test_cumsum_reverse_cols():
    x = _f((16, 64))
    _close(run("cumsum_reverse_cols", {0: x})[1], np.cumsum(x.astype(np.float64)[::-1], 0)[::-1], 1e-5)


def test_prod_and_max_axis():
    x = (1 + 0.1 * _f((8, 16))).astype(np.float32)
    out = run("prod_and_max_axis", {0: x})
    _close(out[1], np.prod(x.astype(np.float64), 1), 1e-5, 1e-5)
    np.testing.assert_array_equal(out[2], x.max(0))


def test_row_l2_normalize():
    x = _f((4, 300), "bfloat16")
    xd = x.astype(np.float64)
    _close(run("row_l2_normalize", {0: x})[1], xd / np.linalg.norm(xd, axis=1, keepdims=True), 1e-2, 1e-2)


def test_transpose_permute():
    x = _f((64, 96), "float16")
    np.testing.assert_array_equal(run("transpose_permute", {0: x})[1], x.T)


def test_int16_saturate():
    a = RNG.integers(-32768, 32768, 256).astype(np.int16)
    b = RNG.integers(-32768, 32768, 256).astype(np.int16)
    ref = np.clip(a.astype(np.int32) + b, -32768, 32767).astype(np.int16)
    np.testing.assert_array_equal(run("int16_saturate", {0: a, 1: b})[2], ref)


def test_bool_mask_store():
    x = _f((300,))
    out = run("bool_mask_store", {0: x})
    np.testing.assert_array_equal(out[2], (x > 0.25).astype(np.uint8))
    np.testing.assert_array_equal(out[3], [(x[128 * i:128 * (i + 1)] > 0.25).sum() for i in range(3)])


def test_where_broadcast():
    x = _f((16, 32))
    flag = RNG.integers(0, 2, 16).astype(np.int32)
    np.testing.assert_array_equal(run("where_broadcast", {0: x, 1: flag})[2],
                                  np.where(flag[:, None] != 0, x, np.float32(-1.0)))


def test_tile_4d_sum():
    x = _f((2, 4, 8, 16))
    _close(run("tile_4d_sum", {0: x})[1], x.astype(np.float64).sum(3) * np.arange(4)[None, :, None], 1e-5)


def test_outer_product():
    u, v = _f((48,)), _f((80,))
    np.testing.assert_array_equal(run("outer_product", {0: u, 1: v})[2], np.outer(u, v))


def test_cat_halves():
    x = _f((256,))
    np.testing.assert_array_equal(run("cat_halves", {0: x})[1], x.reshape(2, 2, 64)[:, ::-1].reshape(256))


def test_mixed_promotion():
    h, k = _f((256,), "float16"), RNG.integers(-100, 100, 256).astype(np.int32)
    _close(run("mixed_promotion", {0: h, 1: k})[2], h.astype(np.float64) * (k + 0.5), 1e-4, 1e-6)


def test_strided_tile_sum():
    x = _f((1000,))
    pad = np.zeros(1024)
    pad[:1000] = x
    ref = pad.reshape(16, 64)[1:16:3].sum(0)
    _close(run("strided_tile_sum", {0: x})[1], ref, 1e-5)


@pytest.mark.parametrize("mode,negate", [(0, True), (1, False), (1, True), (2, True), (5, False)])
def test_nested_if_modes(mode, negate):
    x = _f((256,))
    r = x if mode == 0 else x * x if mode == 1 else np.abs(x)
    if negate and mode != 0:
        r = -r
    np.testing.assert_array_equal(run("nested_if_modes", {0: x, 2: mode, 3: negate})[1], r)


def _tanh_inputs() -> np.ndarray:
    x = np.linspace(-12.0, 12.0, 4096).astype(np.float32)
    x[:12] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 0.59999996, 0.6, -0.6, 1e-4, 9.5]
    return x


def test_tanh_full_precision_by_default_approx_when_asked():
    """cuTile's ``ct.tanh`` defaults to rounding mode FULL: within 4e-7 relative of float64 (the
    small-argument polynomial and the ``e^(2a)`` branch both), signed zeros, +-1 at +-inf, NaN kept;
    ``rounding_mode=APPROX`` may use ``tanh.approx.f32`` (about 2^-11)."""
    x = _tanh_inputs()
    out = run("tanh_rows", {0: x})
    ref = np.tanh(x.astype(np.float64))
    full, approx = out[1], out[2]
    assert np.array_equal(np.isnan(full), np.isnan(ref))
    ok = ~np.isnan(ref)
    np.testing.assert_allclose(full[ok], ref[ok], rtol=4e-7, atol=0)
    assert np.signbit(full[1]) and not np.signbit(full[0])
    np.testing.assert_allclose(approx[ok], ref[ok], rtol=2 ** -10, atol=1e-6)


def test_tanh_rounding_modes_reach_the_ptx():
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs2 import PROGRAMS

    p = PROGRAMS["tanh_rows"]
    ptx = compile_program(cutile_bytecode(p.kernel, p.spec), "tanh_rows", arch="sm_90a", ptxas=False).ptx
    # one tanh of each kind per element a thread holds: as many tanh.approx (the APPROX store) as
    # full-precision ones (each ends with its copysign)
    approx, full = ptx.count("tanh.approx.f32"), ptx.count("copysign.f32")
    assert approx > 0 and approx == full, (approx, full)


def test_helper_and_static_iter():
    x = _f((512,))
    ref = _gelu(x.astype(np.float64)).reshape(2, 4, 64).sum(1).reshape(128)
    _close(run("helper_and_static_iter", {0: x})[1], ref, 1e-5)


def test_loop_tail_mask():
    x = _f((1000,))
    np.testing.assert_array_equal(run("loop_tail_mask", {0: x})[1], 2 * x)


def test_divisible_hint():
    x = _f((1024,))
    _close(run("divisible_hint", {0: x})[1], np.tile(x.astype(np.float64).reshape(8, 128).sum(0), 2), 1e-5)


def test_layernorm_fwd_stats_match_math():
    """The row statistics are those of the 200 valid columns, not of the zero-padded 256."""
    x = np.tile(np.linspace(-1, 1, 200, dtype=np.float16), (5, 1))
    out = run("layernorm_fwd", {0: x, 1: np.ones(200, np.float16), 2: np.zeros(200, np.float16)})
    _close(out[4], np.zeros(5), 1e-6)
    _close(out[5], np.full(5, 1 / math.sqrt(x.astype(np.float64)[0].var() + 1e-5)), 1e-4, 1e-5)


def test_constants_mixed():
    x = _f((256,))
    out = run("constants_mixed", {0: x})
    w = np.tile(np.array([1.0, -1.0, 0.5, 2.0], np.float32), 64)
    _close(out[1], (x.astype(np.float64) * 3 + 1) * w, 1e-5)  # t * 3 + 1 may be one fma
    np.testing.assert_array_equal(out[2], np.tile([10, 20, 30, 40], 64) + np.arange(256) % 128)


def test_pow_isnan():
    x = _f((256,))
    x[::9] = np.nan
    t = np.where(np.isnan(x), 0.0, x.astype(np.float64))
    _close(run("pow_isnan", {0: x})[1], t ** 3 + (np.abs(t) + 1.0) ** -0.5, 1e-4, 1e-5)


def test_scalar_0d_io():
    x = _f((200,))
    alpha = np.array(1.5, np.float32)
    _close(run("scalar_0d_io", {0: alpha, 1: x})[2], 1.5 * x.astype(np.float64).sum(), 1e-4)


def test_uint8_normalize():
    img = RNG.integers(0, 256, 1000).astype(np.uint8)
    mean = np.array([0.45], np.float32)
    _close(run("uint8_normalize", {0: img, 1: mean})[2], img / 255.0 - 0.45, 1e-6)


def test_int_div_scalar():
    x = RNG.integers(-1000, 1000, 256).astype(np.int32)
    np.testing.assert_array_equal(run("int_div_scalar", {0: x})[1], ((x // 7) ^ (x & 7)) + ((x % 7) << 1))


def test_sum_all_axes_3d():
    x = _f((3, 8, 16))
    _close(run("sum_all_axes_3d", {0: x})[1], x.astype(np.float64).sum((1, 2)), 1e-5)


def test_softmax_exp2_ftz():
    x = _f((4, 300), "float16")
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    _close(run("softmax_exp2_ftz", {0: x})[1], e / e.sum(1, keepdims=True), 2e-3)


def test_cumsum_bool_count():
    m = RNG.integers(0, 2, 300).astype(np.uint8)
    pad = np.zeros(384, np.int64)
    pad[:300] = m
    ref = np.cumsum(pad.reshape(3, 128), 1).reshape(384)[:300]
    np.testing.assert_array_equal(run("cumsum_bool_count", {0: m})[1], ref)


def test_max_int8():
    x = RNG.integers(-128, 128, (4, 64)).astype(np.int8)
    np.testing.assert_array_equal(run("max_int8", {0: x})[1], x.max(1))


def _attention(q, k, v, scale, keep):
    s = np.where(keep, (q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)) * scale, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)


def test_gemm_range_step():
    """The SIMT path's mma.sync GEMM, forced (the tier takes the ``k0 // tk`` tile index since k_range.py:
    tests/unit/test_k_range_gemm.py emulates that kernel)."""
    a, b = _f((256, 192), "float16"), _f((192, 256), "float16")
    ref = a.astype(np.float64) @ b
    out = run("gemm_range_step", {0: a, 1: b})[2].astype(np.float64)
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-3


def test_fmha_sliding_window():
    """Attention on the SIMT path (mma.sync, forced: the chained-dots kernel takes the loop from the
    first tile the window reaches since rebase_k_loop.py, test_user_sweep2_emulated.py), rows whose
    keys in that tile are all masked (the program keeps them finite)."""
    q, k, v = (_f((2, 256, 64), "bfloat16") for _ in range(3))
    pos = np.arange(256)
    d = pos[:, None] - pos[None, :]
    _close(run("fmha_sliding_window", {0: q, 1: k, 2: v})[3], _attention(q, k, v, 0.125, (d >= 0) & (d < 100)),
           3e-2, 2e-2)


def test_float_mod_floordiv():
    x = _f((256,), scale=3.0)
    out = run("float_mod_floordiv", {0: x})
    xd = x.astype(np.float64)
    # f32 x mod 0.75 next to a multiple of 0.75 may land on either end of [0, 0.75): equal modulo 0.75
    d = np.abs(np.asarray(out[1], np.float64) - np.mod(xd, 0.75))
    assert (np.minimum(d, np.abs(0.75 - d)) <= 1e-6).all(), d.max()
    # likewise floor(x / 0.5) next to a multiple of 0.5: off by one there at most
    q = np.asarray(out[2], np.float64) - np.sqrt(np.abs(xd))
    near = np.abs(xd / 0.5 - np.round(xd / 0.5)) < 1e-6
    _close(q[~near], np.floor_divide(xd, 0.5)[~near], 1e-5)
    assert (np.abs(q[near] - np.floor_divide(xd, 0.5)[near]) <= 1 + 1e-5).all()


def test_cat_cols_2d():
    x, z = _f((16, 32)), _f((16, 32))
    np.testing.assert_array_equal(run("cat_cols_2d", {0: x, 1: z})[2], np.concatenate([z, x], 1))


def test_extract_dynamic():
    x = _f((256,))
    np.testing.assert_array_equal(run("extract_dynamic", {0: x})[1], 2 * x.reshape(4, 64))


def test_f16_scalar_math():
    x = _f((256,), "float16")
    t = x.astype(np.float64)
    _close(run("f16_scalar_math", {0: x})[1], 1 / np.sqrt(np.abs(t) + 1) * np.exp(t * 0.5) + np.minimum(t, 0.25),
           1e-2, 2e-3)


def test_argmax_int_tile():
    x = RNG.integers(-50, 50, (4, 100)).astype(np.int32)
    x[2] = -7  # all equal (and below the zero padding): the first padded column wins
    ref = np.where(x.max(1) >= 0, x.argmax(1), 100)
    np.testing.assert_array_equal(run("argmax_int_tile", {0: x})[1], ref)
