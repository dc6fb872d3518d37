"""The thirty-fourth user sweep's programs on the SIMT path (``tileorch.testing.user_programs34``: argmax along columns,
logsumexp over two column tiles, a two-pass variance, column maxima over row tiles, a sum of squares of f16 in f32 by
an atomic, vectors broadcast along both axes (by indexing and by ``expand_dims`` / ``broadcast_to``), gather and
scatter through index tensors, inclusive / exclusive prefix sums, ``where`` with scalar branches, an ``astype`` chain
through bf16 and f16, ``ct.bid`` over three axes, a ``static_iter`` loop, nested ``ct.function`` helpers, a tile shape
from constant arguments, a clamp by runtime scalars) on the CPU's lockstep SIMT interpreter (tests/unit/simt_interp.py,
through test_user_sweep_interp.run) against numpy references computed from the inputs alone (float64; Python
integers), outputs pre-filled with NaN / an integer sentinel.  CI runs a few cheap tests here (:data:`CI`);
``TILEORCH_EMULATE_ALL=1`` runs every one.  tests/gpu/test_user_sweep34_gpu.py runs every test here on the GPU;
test_user_sweep34_emulated.py runs them on the PTX emulator."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

from interp_sweep_checks import F32, _ci_subset, _close, _d, every_case, register, sampler  # noqa: E402,F401
from test_user_sweep_interp import run  # noqa: E402

from tileorch.testing.user_programs34 import PROGRAMS  # noqa: E402

register(PROGRAMS)
RNG, _f = sampler(3434)
CI = {"test_scatter_by_index_tensor", "test_exclusive_prefix_sum_int32_rows", "test_where_scalar_both_branches_sign"}
"""The tests run in CI (the suite's time budget); every test with ``TILEORCH_EMULATE_ALL=1``."""


def _f16(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


def _bf16(x):
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def test_argmax_along_columns_int32():
    x = _f((50, 100))
    x[49, 7] = 9.0  # the maximum in the last real row (rows 50..63 are -inf padding)
    x[3, 8] = x[40, 8] = 8.0  # a tie: the first row
    out = run("argmax_along_columns_int32", {0: x})[1]
    assert out.tolist() == [int(np.argmax(c)) for c in x.T]


def test_logsumexp_rows_two_tiles():
    x = _f((6, 200), scale=4.0)
    x[2, 150] = 60.0  # a large value in the second tile: no overflow (the maximum subtracted)
    out = run("logsumexp_rows_two_tiles", {0: x})[1]
    xd = _d(x)
    m = xd.max(1)
    _close(out, m + np.log(np.exp(xd - m[:, None]).sum(1)), 1e-5, 1e-6)


def test_variance_two_pass_rows():
    x = _f((6, 100)) + 100.0  # a large mean: the two-pass form keeps the variance accurate
    out = run("variance_two_pass_rows", {0: x.astype(F32)})[1]
    _close(out, _d(x.astype(F32)).var(1), 2e-4, 1e-4)


def test_column_max_over_row_tiles():
    x = _f((150, 100))
    x[149, 5] = 7.0  # in the ragged last row tile
    out = run("column_max_over_row_tiles", {0: x})[1]
    _close(out, x.max(0), 0.0)


def test_sum_of_squares_f16_in_f32():
    x = _f((500,), "float16", 3.0)
    out = run("sum_of_squares_f16_in_f32", {0: x, 1: np.zeros(1, F32)})[1]
    ref = (_d(x) ** 2).sum()  # 4 blocks' f32 partials added atomically
    _close(out, [ref], 1e-5 * ref)


def test_broadcast_row_and_column_vectors():
    x, r, c = _f((50, 100)), _f((100,)), _f((50,))
    out = run("broadcast_row_and_column_vectors", {0: x, 1: r, 2: c})[3]
    _close(out, _d(x) * _d(r)[None, :] + _d(c)[:, None], 1e-6)


def test_outer_sum_by_broadcast_to():
    a, b = _f((50,)), _f((70,))
    out = run("outer_sum_by_broadcast_to", {0: a, 1: b})[2]
    _close(out, _d(a)[:, None] - _d(b)[None, :], 1e-6)


def test_gather_by_index_tensor_f16():
    x = _f((90,), "float16")
    ids = RNG.integers(0, 90, 200).astype(np.int32)
    ids[[5, 77, 199]] = [90, 5000, 91]  # past X: the gather's bounds check reads 0
    out = run("gather_by_index_tensor_f16", {0: x, 1: ids})[2]
    ref = np.where(ids < 90, _d(x)[np.minimum(ids, 89)], 0.0)
    assert np.array_equal(np.asarray(out, np.float64), ref)


def test_scatter_by_index_tensor():
    x = _f((200,))
    perm = RNG.permutation(200).astype(np.int32)
    out = run("scatter_by_index_tensor", {0: x, 1: perm})[2]
    ref = np.empty(200)
    ref[perm] = _d(x)
    assert np.array_equal(out, ref)


def test_inclusive_prefix_sum_one_tile():
    x = _f((200,))
    out = run("inclusive_prefix_sum_one_tile", {0: x})[1]
    _close(out, np.cumsum(_d(x)), 1e-4)


def test_exclusive_prefix_sum_int32_rows():
    x = RNG.integers(0, 1000, (5, 100)).astype(np.int32)
    out = run("exclusive_prefix_sum_int32_rows", {0: x})[1]
    ref = np.cumsum(x.astype(np.int64), 1) - x
    assert out.tolist() == ref.tolist()


def test_where_scalar_both_branches_sign():
    x = _f((200,))
    x[:4] = [0.0, -0.0, 1e-30, -1e-30]
    out = run("where_scalar_both_branches_sign", {0: x})[1]
    assert np.array_equal(out, np.sign(_d(x)))


def test_astype_chain_f32_bf16_f16_f32():
    x = _f((200,), scale=10.0)
    x[:3] = [70000.0, 1e-6, -3.1e-5]  # past f16's range (inf), f16 subnormals
    out = run("astype_chain_f32_bf16_f16_f32", {0: x})[1]
    with np.errstate(over="ignore"):  # 70000 -> inf in f16, as the kernel's conversion gives
        ref = _bf16(x).astype(np.float16).astype(np.float64)  # bf16 values round again to f16
    assert np.array_equal(np.asarray(out, np.float64), ref)


def test_bid_three_axes_elementwise_4d():
    x = _f((2, 3, 50, 64))
    out = run("bid_three_axes_elementwise_4d", {0: x})[1]
    _close(out, 2 * _d(x) + 1, 1e-6)


def test_static_iter_sum_of_slices():
    x = _f((5, 128))
    out = run("static_iter_sum_of_slices", {0: x})[1]
    _close(out, _d(x).reshape(5, 4, 32).sum(1), 1e-5)


def test_nested_helpers_silu_gate():
    g, u = _f((200,), "bfloat16", 2.0), _f((200,), "bfloat16")
    out = run("nested_helpers_silu_gate", {0: g, 1: u})[2]
    gd = _d(g)
    _close(out, gd / (1 + np.exp(-gd)) * _d(u), 2e-2, 8e-3)  # bf16 out


def test_constexpr_tile_shape_from_argument():
    x = _f((20, 70))
    out = run("constexpr_tile_shape_from_argument", {0: x})[1]
    assert np.array_equal(out, _d(x) * 8)


def test_clamp_by_scalar_minimum_maximum():
    x = _f((200,))
    out = run("clamp_by_scalar_minimum_maximum", {0: x, 2: -0.5, 3: 0.75})[1]
    assert np.array_equal(out, np.clip(_d(x), -0.5, 0.75))
