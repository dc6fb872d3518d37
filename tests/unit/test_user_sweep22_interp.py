"""The twenty-second user sweep (``tileorch.testing.user_programs22``): the dot programs the tensor-core
tiers refuse, run on their SIMT fallback (mma.sync) by the CPU's lockstep SIMT interpreter
(tests/unit/simt_interp.py, through test_user_sweep_interp.run) against numpy float64 references computed
from the inputs alone, outputs NaN-prefilled (the split-K ticket counters zeroed, as their caller does):
f32 tiles by ``@``
(3xTF32: f32 accuracy), a runtime K with a masked tail, a 1-D GEMV by ``ct.matmul``, a grouped GEMM over
ragged offsets with early returns, LayerNorm fused into the K loop, RMSNorm rows as A with no loop,
split-K whose last program reduces, a SwiGLU gate-up from one ``[2N, K]`` weight.  (The tier programs:
test_user_sweep22_emulated.py and the GPU.)"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep_interp as sweep  # noqa: E402
from test_user_sweep_interp import _close, run, sample  # noqa: E402

from tileorch.testing.user_programs22 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)

RNG = np.random.default_rng(2231)


def _h(*shape, scale=0.5):
    return sample(RNG, shape, "float16", scale)


def _f(*shape, scale=1.0):
    return sample(RNG, shape, "float32", scale)


def _d(x):
    return np.asarray(x, np.float64)


def test_f16_accumulator_started_from_the_bias():
    """The f16 accumulator rounds after every K step: f16 tolerance."""
    a, b, bias = _h(200, 128), _h(128, 136, scale=0.25), _h(136)
    y = run("gemm_f16_acc_from_bias", {0: a, 1: b, 2: bias})[3]
    _close(y, _d(a) @ _d(b) + _d(bias)[None, :], 2e-2, 1e-2)


def test_f32_tiles_by_the_operator_to_f32_accuracy():
    """No ``astype``: cuTile's f32 product, f32-accurate (3xTF32); a tf32 product misses by ~1e-3 here."""
    a, b = _f(200, 100), _f(100, 136)
    _close(run("gemm_f32_operator_no_cast", {0: a, 1: b})[2], _d(a) @ _d(b), 2e-4, 1e-5)


def test_full_k_loop_masks_the_columns_past_k_on_k_tiles_of_32():
    """K = 150 of A's 256 columns, every K tile of 32 masked: columns 150.. of A hold values that must not count (B's
    rows too)."""
    a, b = _h(200, 256), _h(256, 136, scale=0.25)
    y = run("gemm_full_k_loop_masked_past_k_tk32", {0: a, 1: b})[2]
    _close(y, _d(a[:, :150]) @ _d(b[:150]), 2e-3, 2e-3)


def test_gemv_by_a_1d_tile():
    """``ct.matmul`` of f16 tiles is an f16 product per K tile (rounded), summed in f32."""
    x, w = _h(200), _h(200, 136, scale=0.25)
    y = run("gemv_1d_tile_matmul", {0: x, 1: w})[2]
    per_tile = [(_d(x[k:k + 64]) @ _d(w[k:k + 64])).astype(np.float16) for k in range(0, 200, 64)]
    _close(y, np.sum([_d(t) for t in per_tile], axis=0), 1e-3, 1e-3)
    _close(y, _d(x) @ _d(w), 2e-2, 1e-2)


def test_grouped_gemm_over_ragged_offsets():
    """Groups of 70, 0, 150 and 80 rows (offsets not tile-aligned; group 1 empty): each its own weight."""
    offs = np.array([0, 70, 70, 220, 300], np.int32)
    a, w = _h(300, 128), _h(4, 128, 136, scale=0.25)
    y = run("grouped_gemm_offsets_early_return", {0: a, 1: w, 2: offs})[3]
    ref = np.concatenate([_d(a[offs[g]:offs[g + 1]]) @ _d(w[g]) for g in range(4)])
    _close(y, ref, 2e-3, 2e-3)


def test_layernorm_fused_into_the_k_loop():
    x, g, bt, w = _h(200, 200, scale=2.0), _f(200), _f(200, scale=0.1), _h(200, 136, scale=0.25)
    y = run("layernorm_then_linear_k_loop", {0: x, 1: g, 2: bt, 3: w})[4]
    xd = _d(x)
    xn = (xd - xd.mean(1, keepdims=True)) / np.sqrt(xd.var(1, keepdims=True) + 1e-5) * _d(g) + _d(bt)
    _close(y, xn.astype(np.float16).astype(np.float64) @ _d(w), 3e-2, 1e-2)


def test_rmsnorm_rows_as_a_without_a_loop():
    x, g, w = _h(200, 128), _f(128), _h(128, 136, scale=0.25)
    y = run("rmsnorm_rows_then_dot_one_tile", {0: x, 1: g, 2: w})[3]
    xd = _d(x)
    a = xd / np.sqrt((xd * xd).mean(1, keepdims=True) + 1e-6) * _d(g)
    _close(y, a.astype(np.float16).astype(np.float64) @ _d(w), 3e-2, 1e-2)


def test_split_k_whose_last_program_reduces():
    """K = 320 in 5 tiles over 3 splits (2, 2, 1 tiles); every tile's counter ends at 3."""
    a, b = _h(200, 320), _h(320, 136, scale=0.25)
    out = run("splitk_last_program_reduces", {0: a, 1: b, 3: np.zeros(6, np.int32)})
    _close(out[4], _d(a) @ _d(b), 2e-3, 2e-3)
    np.testing.assert_array_equal(out[3], np.full(6, 3, np.int32))


def test_swiglu_gate_up_from_one_fused_weight():
    x, wgu = _h(200, 128), _h(256, 128, scale=0.25)
    y = run("swiglu_dual_gemm_fused_weight_nk", {0: x, 1: wgu})[2]
    g, u = _d(x) @ _d(wgu[:128]).T, _d(x) @ _d(wgu[128:]).T
    _close(y, g / (1 + np.exp(-g)) * u, 2e-2, 1e-2)


def test_every_refused_program_has_a_test():
    """The GPU file reruns these references on the SIMT path: each refused program has one."""
    refused = {n for n, p in PROGRAMS.items() if p.path == "simt"}
    assert len(refused) == 9, sorted(refused)
