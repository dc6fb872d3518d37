"""The twenty-seventh user sweep's programs on the SIMT path (``tileorch.testing.user_programs27``: layernorm
backward, seeded dropout, softmax over a dimension not the last, top-k, cross entropy, segment reductions, stencils,
pooling, int64 indices and arithmetic, bool tiles, tiles of 1 and 2, early returns, and the GEMM the tier refuses for
its ``ct.assert_``) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py, through
test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64, or float32 step by
step where the program's rounding is the point; Python integers; ml_dtypes for bf16), ragged sizes, outputs
pre-filled with NaN / an integer sentinel (arrays updated in place start as the user's values).
tests/gpu/test_user_sweep27_gpu.py runs every test here again on the GPU; test_user_sweep27_emulated.py runs a
subset on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import run, sample  # noqa: E402

from tileorch.testing.user_programs27 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up in test_user_sweep_interp.PROGRAMS
sweep.NP.update({"uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "float8_e4m3fn": np.uint8})

RNG = np.random.default_rng(2727)
F32 = np.float32


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _d(x):
    return np.asarray(x, np.float64)


_close = sweep._close  # float64 assert_allclose(got, ref, atol, rtol=0)


def _bf16(x):
    """``x`` rounded to bf16 (nearest even), as float32 values."""
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float32)


def every_case(test) -> None:
    """Call the test function ``test`` (the emulated and GPU files call each through this)."""
    test()


# ------------------------------------------------------------------------------------- the dot the tier refuses


def test_gemm_assert_no_nan_in_operands():
    a, b = _f((100, 64), "float16"), _f((64, 72), "float16", 0.5)
    c = run("gemm_assert_no_nan_in_operands", {0: a, 1: b})[2]
    _close(c, _d(a) @ _d(b), 2e-2, 2e-3)  # f16 out


# ----------------------------------------------------------------------------------------------- normalization


def _ln_inputs(rows, n):
    x, dy, w = _f((rows, n)), _f((rows, n)), _f((n,))
    mean = x.mean(1).astype(F32)
    rstd = (1 / np.sqrt(x.var(1) + 1e-5)).astype(F32)
    return x, dy, w, mean, rstd


def test_layernorm_backward_dx():
    x, dy, w, mean, rstd = _ln_inputs(9, 100)
    dx = run("layernorm_backward_dx", {0: x, 1: dy, 2: w, 3: mean, 4: rstd})[5]
    xhat = (_d(x) - _d(mean)[:, None]) * _d(rstd)[:, None]
    wdy = _d(w) * _d(dy)
    c1 = (xhat * wdy).mean(1, keepdims=True)
    c2 = wdy.mean(1, keepdims=True)
    _close(dx, (wdy - (xhat * c1 + c2)) * _d(rstd)[:, None], 2e-5, 1e-5)


def test_layernorm_backward_dw_db_partials():
    x, dy, _, mean, rstd = _ln_inputs(23, 100)
    out = run("layernorm_backward_dw_db_partials", {0: x, 1: dy, 2: mean, 3: rstd})
    xhat = (_d(x) - _d(mean)[:, None]) * _d(rstd)[:, None]
    g = np.arange(23) % 5
    pdw = np.stack([(_d(dy) * xhat)[g == i].sum(0) for i in range(5)])
    pdb = np.stack([_d(dy)[g == i].sum(0) for i in range(5)])
    _close(out[4], pdw, 1e-5, 1e-5)
    _close(out[5], pdb, 1e-5, 1e-5)


def test_layernorm_backward_dw_db_atomic():
    x, dy, _, mean, rstd = _ln_inputs(23, 100)
    out = run("layernorm_backward_dw_db_atomic",
              {0: x, 1: dy, 2: mean, 3: rstd, 4: np.zeros(100, F32), 5: np.zeros(100, F32)})
    xhat = (_d(x) - _d(mean)[:, None]) * _d(rstd)[:, None]
    _close(out[4], (_d(dy) * xhat).sum(0), 1e-5, 1e-5)
    _close(out[5], _d(dy).sum(0), 1e-5, 1e-5)


def test_fused_add_rmsnorm_residual_out():
    x, res, w = _f((6, 96), "bfloat16"), _f((6, 96), "bfloat16"), _f((96,), "bfloat16")
    out = run("fused_add_rmsnorm_residual_out", {0: x, 1: res, 2: w})
    r = _bf16(x.astype(F32) + res.astype(F32))
    np.testing.assert_array_equal(out[3], r)  # the residual stream written back: bf16 of the f32 sum
    rf = _d(r)
    ref = rf / np.sqrt((rf * rf).mean(1, keepdims=True) + 1e-6) * _d(w)
    _close(out[4], ref, 1e-6, 2 ** -7)  # bf16 out


# ----------------------------------------------------------------------------------------------- random, softmax


def _pcg_keep(n, seed, p):
    m = (1 << 32) - 1
    off = np.arange(n, dtype=np.uint64)
    s = (off * 747796405 + 2891336453 + seed) & m
    w = (((s >> ((s >> 28) + 4)) ^ s) * 277803737) & m
    u = (w >> 22) ^ w
    return u.astype(np.uint32).astype(F32) * F32(1.0 / 4294967296.0) > F32(p)


def test_seeded_dropout_pcg_hash():
    x = _f((300,))
    out = run("seeded_dropout_pcg_hash", {0: x})
    keep = _pcg_keep(300, 20260, 0.3)
    assert 0.55 < keep.mean() < 0.85
    np.testing.assert_array_equal(out[2], keep.astype(np.uint8))  # the bool mask (bytes 0 / 1)
    _close(out[1], np.where(keep, _d(x) / (1 - _d(F32(0.3))), 0.0), 0, 1e-6)


def _softmax(t, axis):
    e = np.exp(t - t.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_over_dim0_columns():
    x = _f((50, 70), scale=3.0)
    _close(run("softmax_over_dim0_columns", {0: x})[1], _softmax(_d(x), 0), 1e-6, 1e-5)


def test_softmax_middle_dim_of_3d():
    x = _f((3, 20, 24), scale=3.0)
    _close(run("softmax_middle_dim_of_3d", {0: x})[1], _softmax(_d(x), 1), 1e-6, 1e-5)


def test_topk_rows_repeated_max_int64_ids():
    x = _f((7, 100))
    out = run("topk_rows_repeated_max_int64_ids", {0: x})
    ids = np.argsort(-_d(x), axis=1, kind="stable")[:, :5]
    np.testing.assert_array_equal(out[2], ids)
    np.testing.assert_array_equal(out[1], np.take_along_axis(x, ids, 1))


def test_cross_entropy_int64_targets_ignore_index():
    z = _f((6, 100), "float16", 2.0)
    t = np.array([3, -100, 99, 0, 57, -100], np.int64)
    loss = run("cross_entropy_int64_targets_ignore_index", {0: z, 1: t})[2]
    zd = _d(z)
    m = zd.max(1)
    lse = m + np.log(np.exp(zd - m[:, None]).sum(1))
    ref = np.where(t == -100, 0.0, lse - zd[np.arange(6), np.maximum(t, 0)])
    _close(loss, ref, 1e-5, 1e-5)
    assert loss[1] == 0 and loss[5] == 0


# ----------------------------------------------------------------------------------------------- segments, stencils


def test_segment_sum_and_max_by_offsets():
    x = _f((300,))
    offs = np.array([0, 40, 40, 170, 171, 300], np.int32)  # sizes 40, 0, 130, 1, 129
    out = run("segment_sum_and_max_by_offsets", {0: x, 1: offs})
    seg = [_d(x[offs[s]:offs[s + 1]]) for s in range(5)]
    _close(out[2], [v.sum() for v in seg], 1e-5, 1e-6)
    np.testing.assert_array_equal(out[3], [v.max() if v.size else -np.inf for v in seg])


def test_stencil_5point_laplacian_zero_edges():
    x = _f((20, 30))
    y = run("stencil_5point_laplacian_zero_edges", {0: x})[1]
    p = np.pad(_d(x), 1)
    ref = 4 * p[1:-1, 1:-1] - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]
    _close(y, ref, 1e-5)


def test_stencil_3x3_box_mean_clamped_edges():
    x = _f((20, 30))
    y = run("stencil_3x3_box_mean_clamped_edges", {0: x})[1]
    p = np.pad(_d(x), 1, mode="edge")
    ref = sum(p[dr:dr + 20, dc:dc + 30] for dr in range(3) for dc in range(3)) / 9
    _close(y, ref, 3e-6)  # (nine f32 additions)


def test_maxpool_2x2_by_reshape():
    x = _f((12, 20))
    y = run("maxpool_2x2_by_reshape", {0: x})[1]
    np.testing.assert_array_equal(y, x.reshape(6, 2, 10, 2).max(axis=(1, 3)))


# ----------------------------------------------------------------------------------------------- int64, bool, sizes


def test_embedding_gather_int64_token_ids():
    ids = np.array([3, 49, 0, -1, 17, 17, 50, 8, 2, 31], np.int64)
    table = _f((50, 32))
    out = run("embedding_gather_int64_token_ids", {0: ids, 1: table})[2]
    ok = (ids >= 0) & (ids < 50)
    ref = np.where(ok[:, None], table[np.clip(ids, 0, 49)], F32(0))
    np.testing.assert_array_equal(out, ref)


def test_bincount_weighted_int64_ids_atomic():
    ids = RNG.integers(-3, 25, 200).astype(np.int64)
    w = _f((200,))
    out = run("bincount_weighted_int64_ids_atomic", {0: ids, 1: w, 2: np.zeros(20, F32)})[2]
    ok = (ids >= 0) & (ids < 20)
    ref = np.zeros(20)
    np.add.at(ref, ids[ok], _d(w[ok]))
    _close(out, ref, 1e-5, 1e-6)


def test_int64_arithmetic_past_2_pow_32():
    x = RNG.integers(2**33, 2**34, 100).astype(np.int64)
    x[:3] = [-(2**35), 0, 2**34 + 1]
    y = run("int64_arithmetic_past_2_pow_32", {0: x})[1]
    np.testing.assert_array_equal(y, [int(v) * 3 + 2**40 + 5 + i for i, v in enumerate(x)])


def test_bool_tiles_xor_and_count():
    a, b = RNG.random(100) < 0.5, RNG.random(100) < 0.3
    x = _f((100,))
    out = run("bool_tiles_xor_and_count", {0: a, 1: b, 2: x, 5: np.zeros(1, np.int32)})
    np.testing.assert_array_equal(out[3], np.where(a ^ b, x, -x))
    np.testing.assert_array_equal(out[4], (a & ~b).astype(np.uint8))
    np.testing.assert_array_equal(out[5], [a.sum()])


def test_tile_of_one_grid_of_seven():
    x = _f((7,))
    _close(run("tile_of_one_grid_of_seven", {0: x})[1], _d(x) * _d(x) + 1, 0, 1e-6)


def test_tile_of_two_pair_swap():
    x = _f((10,))
    np.testing.assert_array_equal(run("tile_of_two_pair_swap", {0: x})[1], x.reshape(5, 2)[:, ::-1].reshape(10))


def test_transpose_2x2_tiles_grid_3x5():
    x = _f((6, 10))
    np.testing.assert_array_equal(run("transpose_2x2_tiles_grid_3x5", {0: x})[1], x.T)


def test_argmax_dim0_int64_out():
    x = _f((40, 50))
    np.testing.assert_array_equal(run("argmax_dim0_int64_out", {0: x})[1], np.argmax(x, axis=0))


def test_cumsum_dim0_not_last():
    x = _f((30, 20))
    _close(run("cumsum_dim0_not_last", {0: x})[1], np.cumsum(_d(x), axis=0), 1e-5, 1e-6)


def test_early_return_when_disabled():
    """Disabled (the table's ``False``): nothing written, the output still its NaN fill; enabled: ``2 x``."""
    x = _f((100,))
    assert np.isnan(run("early_return_when_disabled", {0: x})[1]).all()
    np.testing.assert_array_equal(run("early_return_when_disabled", {0: x, 2: True})[1], 2 * x)


def test_early_return_on_empty_row():
    x = _f((6, 50))
    lens = np.array([3, 0, 50, 1, 0, 17], np.int32)
    y = run("early_return_on_empty_row", {0: x, 1: lens})[2]
    for r, n in enumerate(lens):
        if n == 0:
            assert np.isnan(y[r]).all(), r  # returned before any store
        else:
            _close(y[r], np.full(50, _d(x[r, :n]).mean()), 1e-6, 1e-6)
