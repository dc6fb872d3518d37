"""The twenty-ninth user sweep's programs on the SIMT path (``tileorch.testing.user_programs29``: reductions along
axis 0 and over both axes, prefix sums along each axis, ``ct.where`` chains, integer ``//`` / ``%`` by runtime
scalars of either sign, bit operations and shifts of int32 / uint32, a wrapping uint32 hash, float -> int
conversions, bf16 <-> fp8 round trips, four outputs of four dtypes, scalars from 0-d and 1-element arrays, nested
loops of runtime bounds, ``while`` loops with data-dependent exits, and the dots the tier refuses with a located
warning) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through test_user_sweep_interp.run)
against numpy references computed from the inputs alone (float64; Python integers), outputs pre-filled with NaN /
an integer sentinel.  CI runs a few cheap tests here (:data:`CI`); ``TILEORCH_EMULATE_ALL=1`` runs every one.
tests/gpu/test_user_sweep29_gpu.py runs every test here on the GPU; test_user_sweep29_emulated.py runs them on the
PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run, wrap_bits  # noqa: E402

from tileorch.testing.user_programs29 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(2929)
CI = {"test_int_floordiv_mod_by_runtime_scalars", "test_bit_ops_and_shifts_int32_uint32",
      "test_while_halving_until_below_tolerance"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


# ----------------------------------------------------------------------------------------------- the refused dots


def test_gemm_a_3d_unit_head_dim_reshaped():
    x, w = _f((100, 3, 64), "float16"), _f((64, 80), "float16", 0.3)
    out = run("gemm_a_3d_unit_head_dim_reshaped", {0: x, 1: w})[2]
    _close(out, np.einsum("mhk,kn->hmn", _d(x), _d(w)), 1e-3, 1e-4)


def test_gemm_b_from_permuted_3d_tile():
    a, w = _f((100, 64), "bfloat16"), _f((96, 1, 64), "bfloat16", 0.3)
    _close(run("gemm_b_from_permuted_3d_tile", {0: a, 1: w})[2], _d(a) @ _d(w)[:, 0, :].T, 1e-3, 1e-4)


def test_gemm_three_spellings_of_one_product():
    a, b = _f((100, 128), "float16"), _f((128, 80), "float16", 0.3)
    ref = np.zeros((100, 80))
    for k in range(4):
        p = _d(a[:, 32 * k:32 * k + 32]) @ _d(b[32 * k:32 * k + 32])
        ref += p if k % 2 == 0 else p.astype(np.float16)  # the odd tiles' ``a @ b``: an f16 product
    _close(run("gemm_three_spellings_of_one_product", {0: a, 1: b})[2], ref, 5e-3, 1e-3)


# ----------------------------------------------------------------------------------------------- reductions, scans


def test_column_sums_and_total():
    x = _f((50, 70))
    out = run("column_sums_and_total", {0: x, 1: np.zeros(70, F32), 2: np.zeros(1, F32)})
    _close(out[1], _d(x).sum(0), 1e-4)
    _close(out[2], [_d(x).sum()], 1e-3)


def test_cumsum_along_each_axis_of_one_tile():
    x = _f((16, 32))
    out = run("cumsum_along_each_axis_of_one_tile", {0: x})
    _close(out[1], np.cumsum(_d(x), 0), 1e-4)
    _close(out[2], np.cumsum(_d(x), 1), 1e-4)
    _close(out[3], np.cumsum(_d(x)[:, ::-1], 1)[:, ::-1], 1e-4)


def test_int_cumsum_axis0_and_max_axis0():
    x = RNG.integers(-1000, 1000, (20, 50)).astype(np.int32)
    x[:, 7] = -RNG.integers(1, 50, 20)  # a column of negatives: the tile's zero padding is its maximum
    out = run("int_cumsum_axis0_and_max_axis0", {0: x})
    np.testing.assert_array_equal(out[1], np.cumsum(x.astype(np.int64), 0))
    np.testing.assert_array_equal(out[2], np.maximum(x.max(0), 0))  # rows 20..31 of the (32, 16) tile are zeros


def test_sum_of_squares_axis0_3d_keepdims():
    x = _f((3, 5, 40))
    _close(run("sum_of_squares_axis0_3d_keepdims", {0: x})[1], (_d(x) ** 2).sum((0, 1), keepdims=True), 1e-4)


def test_row_stats_four_outputs_four_dtypes():
    x = _f((6, 100))
    x[2] = -np.abs(x[2])  # a row without a positive
    x[4, 10] = x[4, 60] = 9.0  # a tie: the first index
    out = run("row_stats_four_outputs_four_dtypes", {0: x})
    _close(out[1], _d(x).mean(1), 2e-3)  # f16 out
    np.testing.assert_array_equal(out[2], x.argmax(1))
    np.testing.assert_array_equal(out[3].view(np.uint8), (x > 0).any(1))
    np.testing.assert_array_equal(out[4], (x > 0).sum(1))


# ----------------------------------------------------------------------------------------------- elementwise


def test_piecewise_by_where_chain():
    x = _f((200,), scale=2.5)
    x[:4] = [np.nan, -2.0, 0.0, 3.0]  # NaN and the edges
    y = run("piecewise_by_where_chain", {0: x})[1]
    d = _d(x)
    ref = np.where(d < -2, -1.0, np.where(d < 0, d / 2, np.where(d < 1, d * d, np.where(d < 3, np.sqrt(
        np.maximum(d, 0)), np.where(d >= 3, 3.0, d)))))
    _close(y, ref, 1e-6, 1e-6)
    assert np.isnan(y[0])


def test_int_floordiv_mod_by_runtime_scalars():
    x = RNG.integers(-10**6, 10**6, 100).astype(np.int32)
    x[:4] = [-7, 7, -1, 0]
    out = run("int_floordiv_mod_by_runtime_scalars", {0: x})
    xs = [int(v) for v in x]
    np.testing.assert_array_equal(out[1], [v // -7 for v in xs])  # Python's floor division
    np.testing.assert_array_equal(out[2], [v % -7 for v in xs])  # the divisor's sign
    np.testing.assert_array_equal(out[3], [v // 5 for v in xs])


def test_divmod_tokens_into_pages():
    p = RNG.integers(0, 10**9, 100).astype(np.int64)
    p[:3] = [0, 23, 24]
    out = run("divmod_tokens_into_pages", {0: p})
    np.testing.assert_array_equal(out[1], p // 24)
    np.testing.assert_array_equal(out[2], p % 24)


def test_bit_ops_and_shifts_int32_uint32():
    x = RNG.integers(-2**31, 2**31, 100, dtype=np.int64).astype(np.int32)
    u = RNG.integers(0, 2**32, 100, dtype=np.int64).astype(np.uint32)
    s = RNG.integers(0, 32, 100).astype(np.int32)
    out = run("bit_ops_and_shifts_int32_uint32", {0: x, 1: u, 2: s})
    xi, ui, si = x.astype(np.int64), u.astype(np.int64), s.astype(np.int64)
    mix = wrap_bits((xi >> 3) ^ wrap_bits(xi << 5, 32), 32) + (xi >> si)  # arithmetic shifts of negatives
    np.testing.assert_array_equal(out[3], wrap_bits(mix, 32))
    lo = ((ui >> 3) ^ ((ui << 5) & 0xFFFFFFFF)) | ((ui >> si) & 0xF0)  # logical shifts of uint32
    np.testing.assert_array_equal(out[4].astype(np.int64), lo)


def test_uint32_xorshift_hash_wrapping_multiply():
    seed = RNG.integers(0, 2**32, 100, dtype=np.int64).astype(np.uint32)
    out = run("uint32_xorshift_hash_wrapping_multiply", {0: seed})[1]
    x = seed.astype(np.int64)
    x = x ^ (x >> 16)
    x = (x * 0x45D9F3B) & 0xFFFFFFFF  # modulo 2^32
    x = x ^ (x >> 16)
    _close(out, (x >> 8) / 16777216.0, 0)


def test_float_to_int_truncate_floor_round():
    x = _f((100,), scale=50.0)
    x[:4] = [-2.5, -0.75, 0.75, 2.25]
    x[np.abs(x - np.round(x)) == 0.5] += 0.125  # no halves (floor(x + 0.5) rounds them up)
    out = run("float_to_int_truncate_floor_round", {0: x})
    np.testing.assert_array_equal(out[1], np.trunc(x))
    np.testing.assert_array_equal(out[2], np.floor(x))
    np.testing.assert_array_equal(out[3], np.floor(_d(x) + 0.5))


def test_int8_clamp_cast_and_uint8_wraparound():
    x = RNG.integers(-1000, 1000, 100).astype(np.int32)
    out = run("int8_clamp_cast_and_uint8_wraparound", {0: x})
    np.testing.assert_array_equal(out[1], np.clip(x, -128, 127))
    np.testing.assert_array_equal(out[2], x.astype(np.int64) % 256)


def test_bf16_fp8_round_trips_both_formats():
    x = np.clip(_f((100,), "bfloat16", 60.0), -400, 400)
    x[:3] = [0.0, 1e-3, -3.3e-5]  # e4m3 / e5m2 subnormals and underflow
    out = run("bf16_fp8_round_trips_both_formats", {0: x})
    x32 = np.asarray(x, F32)
    np.testing.assert_array_equal(out[1], x32.astype(ml_dtypes.float8_e4m3fn).astype(F32))
    np.testing.assert_array_equal(out[2], x32.astype(ml_dtypes.float8_e5m2).astype(F32))


def test_f32_to_fp8_e5m2_with_amax_and_scale():
    x = _f((100,), scale=3.0)
    out = run("f32_to_fp8_e5m2_with_amax_and_scale", {0: x, 2: np.zeros(1, np.int32)})
    q = np.clip(_d(x) * 14336.0, -57344, 57344).astype(F32).astype(ml_dtypes.float8_e5m2)
    assert (np.abs(_d(x) * 14336.0) > 57344).any()  # the saturation exercised
    np.testing.assert_array_equal(out[1], q.view(np.uint8))
    assert out[2].view(F32)[0] == np.abs(x).max()


def test_scale_by_scalar_in_0d_and_1_element_arrays():
    x = _f((100,))
    out = run("scale_by_scalar_in_0d_and_1_element_arrays", {0: x, 1: np.array(1.5, F32), 2: np.array([-0.25], F32)})
    _close(out[3], _d(x) * 1.5 - 0.25, 1e-6)


# ----------------------------------------------------------------------------------------------- loops


def test_nested_loops_runtime_bounds_banded_sum():
    x = _f((10, 50))
    ref = np.stack([_d(x)[max(r - 1, 0):min(r + 3, 10)].sum(0) for r in range(10)])
    _close(run("nested_loops_runtime_bounds_banded_sum", {0: x})[1], ref, 1e-5)


def test_while_halving_until_below_tolerance():
    x = _f((160,), scale=4.0)
    x[96:128] *= 0.01  # a chunk already small: no halving
    out = run("while_halving_until_below_tolerance", {0: x})
    for i in range(5):
        c, n = _d(x[32 * i:32 * i + 32]), 0
        while np.abs(c).max() >= 0.25 and n < 64:
            c, n = c * 0.5, n + 1
        assert out[2][i] == n, (i, out[2])
        _close(out[1][32 * i:32 * i + 32], c, 0)
    assert out[2][3] == 0


def test_newton_reciprocal_while_residual():
    x = (RNG.random(100) * 7.5 + 0.5).astype(F32)
    out = run("newton_reciprocal_while_residual", {0: x})
    _close(out[1], 1.0 / _d(x), 0, 2e-6)
    assert all(4 <= int(n) <= 100 for n in out[2]), out[2]  # from 0.1: quadratic convergence after a few steps


def test_int8_gemm_by_matmul_operator_wraps():
    a = RNG.integers(-128, 128, (100, 128)).astype(np.int8)
    b = RNG.integers(-128, 128, (128, 80)).astype(np.int8)
    out = run("int8_gemm_by_matmul_operator_wraps", {0: a, 1: b})[2]
    ref = sum(wrap_bits(a[:, 32 * k:32 * k + 32].astype(np.int64) @ b[32 * k:32 * k + 32].astype(np.int64), 8)
              for k in range(4))  # cuTile's ct.matmul of int8 tiles: each K step's product wrapped to int8
    np.testing.assert_array_equal(out, ref)


# ----------------------------------------------------------------------------------------------- integer corners


def test_uint32_convert_compare_divide():
    u = RNG.integers(0, 2**32, 100, dtype=np.int64).astype(np.uint32)
    v = RNG.integers(0, 2**32, 100, dtype=np.int64).astype(np.uint32)
    u[:3] = [2**31, 2**32 - 1, 3_000_000_000]
    v[:3] = [5, 2**31 - 1, 3_000_000_001]
    out = run("uint32_convert_compare_divide", {0: u, 1: v})
    ui, vi = u.astype(np.int64), v.astype(np.int64)
    np.testing.assert_array_equal(out[2], ui.astype(F32))  # unsigned conversion (rounded to f32)
    np.testing.assert_array_equal(out[3].view(np.uint8), ui < vi)
    np.testing.assert_array_equal(out[4].astype(np.int64), ui // 1000)
    np.testing.assert_array_equal(out[5].astype(np.int64), ui % 1000)
    np.testing.assert_array_equal(out[6], ui + 1)  # zero extension
    np.testing.assert_array_equal(out[7].astype(np.int64), [ui[:64].max(), ui[64:].max()])


def test_int64_shifts_past_32_and_products():
    x = RNG.integers(-2**62, 2**62, 100, dtype=np.int64)
    out = run("int64_shifts_past_32_and_products", {0: x})
    xs = [int(v) for v in x]
    np.testing.assert_array_equal(out[1], [v >> 40 for v in xs])
    np.testing.assert_array_equal(out[2], wrap_bits([v & (2**31 - 1) if not v & 2**30 else (v & (2**31 - 1)) - 2**31
                                                     for v in xs], 64))
    np.testing.assert_array_equal(out[3], wrap_bits([v * 3000000007 for v in xs], 64))


def test_float_to_unsigned_and_narrow_saturating():
    x = _f((100,), scale=1e5)
    x[:6] = [-1.5, 300.7, 4.3e9, -7e4, 4e4, 65519.0]
    out = run("float_to_unsigned_and_narrow_saturating", {0: x})
    t = np.trunc(_d(x))
    np.testing.assert_array_equal(out[1], np.clip(t, 0, 255))
    np.testing.assert_array_equal(out[2].astype(np.int64), np.clip(t, 0, 2**32 - 1))
    np.testing.assert_array_equal(out[3], np.clip(t, -2**15, 2**15 - 1))
    np.testing.assert_array_equal(out[4], np.clip(t, -2**31, 2**31 - 1).astype(np.float16))  # past 65504: inf


def test_cumsum_middle_axis_of_3d_tile():
    x = _f((3, 10, 12))
    _close(run("cumsum_middle_axis_of_3d_tile", {0: x})[1], np.cumsum(_d(x), 1), 1e-5)


def test_int8_tile_floordiv_mod_elementwise():
    x = RNG.integers(-128, 128, 100).astype(np.int8)
    y = RNG.integers(-128, 128, 100).astype(np.int8)
    y[y == 0] = 3
    x[:2], y[:2] = -128, [-1, 7]
    out = run("int8_tile_floordiv_mod_elementwise", {0: x, 1: y})
    xs, ys = [int(v) for v in x], [int(v) for v in y]
    np.testing.assert_array_equal(out[2], wrap_bits([a // b for a, b in zip(xs, ys)], 8))  # -128 // -1 wraps
    np.testing.assert_array_equal(out[3], [a % b for a, b in zip(xs, ys)])
