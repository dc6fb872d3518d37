"""Eighth user sweep (``tileorch.testing.user_programs8``): the f16 programs the GEMM tier takes,
their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the same
inputs, outputs NaN-prefilled (the helpers of test_user_sweep3/4_emulated.py: every CTA, the
launcher's own problem derivation and tensor maps): ``acc += a @ b``, the K tiles visited
downward, C stored through ``order=(1, 0)``, a grid-stride loop over ``ct.num_blocks``, a
``Constant[float]`` / ``Constant[bool]`` epilogue, a 3-axis batched grid.  The fp8 and bf16 tier
programs run on the GPU (tests/gpu/test_user_sweep8_gpu.py): the emulator's WGMMA is f16.
Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs8 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(8181)


@pytest.fixture(autouse=True)
def _eighth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


@pytest.mark.parametrize("name", ["mm_iadd_matmul_operator", "mm_k_range_reversed_step", "mm_k_loop_hints",
                                  "mm_while_k_loop"])
def test_plain_gemm_spellings(name):
    a, b = _h(256, 256), _h(256, 128)
    c = s4._s3_gemm(name, {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 4e-3, 5e-3)


def test_single_tile_matmul_without_accumulator():
    """K = 64 in one tile: ``C = ct.matmul(a, b)`` (an f16 dot, no loop) on the tier, f16 out."""
    a, b = _h(256, 64), _h(64, 128)
    c = s4._s3_gemm("mm_single_tile_matmul_no_acc", {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 4e-3, 5e-3)


def test_store_through_order_transposed():
    a, b = _h(256, 256), _h(256, 128)
    ct_ = s4._s3_gemm("mm_store_order_transposed", {0: a, 1: b})[2]
    s4._check(ct_, s4._mm(a, b).T, 4e-3, 5e-3)


def test_constant_float_and_bool_epilogue():
    a, b = _h(256, 256), _h(256, 128)
    c = s4._s3_gemm("mm_constant_float_bool_epilogue", {0: a, 1: b})[2]
    s4._check(c, np.maximum(s4._mm(a, b) * 0.5, 0.0), 4e-3, 5e-3)


def test_grid_stride_over_num_blocks():
    a, b = _h(256, 256), _h(256, 128)
    c = s4._s3_gemm("mm_num_blocks_grid_stride", {0: a, 1: b})[2]
    s4._check(c, s4._mm(a, b), 4e-3, 5e-3)


def test_batched_on_a_3_axis_grid():
    a, b = _h(3, 128, 128), _h(3, 128, 128)
    c = s4._s3_gemm("mm_grid3_batched", {0: a, 1: b})[2]
    s4._check(c, a.astype(np.float64) @ b.astype(np.float64), 4e-3, 5e-3)


def test_batch_broadcast_inside_the_dot():
    """A ``(2, tm, tk)`` A tile times a ``(1, tk, tn)`` B tile (the batch broadcast in ``ct.matmul``):
    the tier runs one matrix per work tile (tileas-split-batch-tiles) over the launcher's L, A's 4
    matrices (not the grid's z of 2, which :func:`s4._s3_gemm` would take)."""
    a, b = _h(4, 128, 128), _h(128, 64)
    c = s4.s3._gemm("bmm_broadcast_b_in_tile", {0: a, 1: b}, problem=lambda cfg, m, n, k: (m, n, k, 4))[2]
    s4._check(c, a.astype(np.float64) @ b.astype(np.float64), 4e-3, 5e-3)


def test_scalar_bias_read_by_item_in_the_epilogue():
    """Found by this sweep: ``ct.load(Bias, (0,), (1,)).item()`` in the epilogue was refused by the
    tier ("not supported yet in the accumulator's register layout: the epilogue scalar op
    'nv_tileaa.extract'"); the epilogue now reads the element of the one-element tile."""
    a, b = _h(256, 256), _h(256, 128)
    c = s4._s3_gemm("mm_bias_from_item", {0: a, 1: b, 2: np.array([0.75], np.float32)})[3]
    s4._check(c, s4._mm(a, b) + 0.75, 4e-3, 5e-3)


# ----------------------------------------------------------------------------------------------- chained dots


def test_mlp_chain_written_with_operators():
    """Found by this sweep: ``h = ct.maximum(x @ w1, 0.0)`` with f16 ``x`` / ``w1`` (an f16 dot: cuTile's
    ``@`` keeps the operands' type) then ``y += h @ w2`` was refused by the chained kernel ("the
    accumulator must be f32"); tileas-fold-dot-accumulate now runs the first dot in f32, rounded
    once to f16."""
    x, w1, w2 = _h(256, 64), _h(64, 256, scale=0.25), _h(256, 64, scale=0.25)
    y = s4.s3._chained("mlp_chain_iadd_operator", {0: x, 1: w1, 2: w2}, (2, 1, 1))[3]
    h = np.maximum(s4._mm(x, w1), 0).astype(np.float16)  # the f16 hidden tile the program feeds the second dot
    s4._check(y, s4._mm(h, w2), 4e-3, 5e-3)


def test_attention_with_augmented_assignments():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = s4.s3._chained("attn_plain_iadd_exp2", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), 1, 2)) * 0.125  # qk_scale = log2(e) / 8
    s4._check(o, s4._softmax_attn(s, v), 4e-3, 1e-2)


def test_int8_requant_epilogue_on_the_tier():
    """The int8 C (requantised in the epilogue) stored by the tier since session 25: ``clamp(floor(acc *
    s_row * s_col + 0.5), -128, 127)``; at most one unit off where the f32 product rounds across a .5."""
    import test_user_sweep3_emulated as s3

    a = RNG.integers(-128, 128, (128, 256)).astype(np.int8)
    b = RNG.integers(-128, 128, (256, 128)).astype(np.int8)
    rs, cs = (RNG.random(128) * 0.1).astype(np.float32), (RNG.random(128) * 0.05).astype(np.float32)
    c = s3._gemm("mm_int8_requant_epilogue", {0: a, 1: b, 2: rs, 3: cs, 4: np.full((128, 128), 99, np.int8)})[4]
    v = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float32) * rs[:, None] * cs[None, :]
    ref = np.clip(np.floor(v + np.float32(0.5)), -128, 127)
    assert (ref == -128).any() and (ref == 127).any()
    assert np.abs(c.astype(np.int32) - ref).max() <= 1
    assert (c == ref).mean() > 0.99
