"""Session 27's cover set (``tileorch.testing.cover27_programs``): the programs the tensor-core tier takes, run CTA
by CTA on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on ragged shapes (M = 200 and K = 200
against 128 x 64 x 64 tiles, N ragged where the spec says), outputs prefilled with NaN, through
test_user_sweep14_emulated's GEMM runner (the launcher's problem derivation and tensor maps, an A map per dot).  The
same references run on the GPU in tests/gpu/test_cover27_gpu.py.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
ml_dtypes = pytest.importorskip("ml_dtypes")

import test_user_sweep4_emulated as s4  # noqa: E402
import test_user_sweep14_emulated as s14e  # noqa: E402

from tileorch.testing.cover27_programs import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2727)
BF16 = ml_dtypes.bfloat16


@pytest.fixture(autouse=True)
def _cover_set(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})


def _h(*shape, scale=1.0, dtype=np.float16):
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def _nan(shape, dtype=np.float16):
    return np.full(shape, np.nan, dtype)


def emulate(name: str, inputs: dict) -> dict:
    """A GEMM program on its spec's shapes (test_user_sweep14_emulated's runner)."""
    return s14e.emulate(name, inputs)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def _case_concat_k_linear_bt():
    """``x1 @ W1^T + x2 @ W2^T + bias`` (bf16, [N, K] weights, N = 232 ragged), one accumulator."""
    x1, x2 = _h(200, 200, dtype=BF16), _h(200, 200, dtype=BF16)
    w1, w2 = _h(232, 200, scale=0.25, dtype=BF16), _h(232, 200, scale=0.25, dtype=BF16)
    bias = _h(232, dtype=BF16)
    y = emulate("concat_k_linear_bt", {0: x1, 1: w1, 2: x2, 3: w2, 4: bias, 5: _nan((200, 232), BF16)})[5]
    s14e._check(y, _mm(x1, w1.T) + _mm(x2, w2.T) + bias.astype(np.float64)[None, :], 6e-2, 1e-2)


def _case_summed_products_relu():
    """``relu(x @ w1 + z @ w2)`` written as ``acc + (x @ w1 + z @ w2)``."""
    x, z, w1, w2 = _h(200, 200), _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    y = emulate("summed_products_relu", {0: x, 1: w1, 2: z, 3: w2, 4: _nan((200, 192))})[4]
    s14e._check(y, np.maximum(_mm(x, w1) + _mm(z, w2), 0.0), 2e-2, 1e-2)


def _case_dual_input_gated_batched():
    """``silu(x[b] @ wg[b]) * (z[b] @ wu[b])`` over 3 batches (program id 2), two accumulators."""
    x, z = _h(3, 200, 200, scale=0.5), _h(3, 200, 200, scale=0.5)
    wg, wu = _h(3, 200, 192, scale=0.25), _h(3, 200, 192, scale=0.25)
    y = emulate("dual_input_gated_batched", {0: x, 1: wg, 2: z, 3: wu, 4: _nan((3, 200, 192))})[4]
    g, u = x.astype(np.float64) @ wg.astype(np.float64), z.astype(np.float64) @ wu.astype(np.float64)
    s14e._check(y, g / (1.0 + np.exp(-g)) * u, 2e-2, 1e-2)


def _case_three_operand_pairs():
    """Three pairs into one f32 accumulator stored as f32 (K = 136: two full K tiles and an 8-wide one)."""
    xs = [_h(200, 136) for _ in range(3)]
    ws = [_h(136, 128, scale=0.25) for _ in range(3)]
    y = emulate("three_operand_pairs", {0: xs[0], 1: ws[0], 2: xs[1], 3: ws[1], 4: xs[2], 5: ws[2],
                                        6: _nan((200, 128), np.float32)})[6]
    s14e._check(y, sum(_mm(x, w) for x, w in zip(xs, ws)), 1e-3, 1e-4)


def _case_two_k_loops_two_accumulators():
    """Two K loops over the same K tiles, fused: ``0.5 (x @ w1) + z @ w2``."""
    x, z, w1, w2 = _h(200, 200), _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    y = emulate("two_k_loops_two_accumulators", {0: x, 1: w1, 2: z, 3: w2, 4: _nan((200, 192))})[4]
    s14e._check(y, 0.5 * _mm(x, w1) + _mm(z, w2), 2e-2, 1e-2)


def _case_two_k_loops_continued_bt():
    """``x1 @ W1^T + x2 @ W2^T`` as two K loops, the second continuing the first's accumulator (bf16)."""
    x1, x2 = _h(200, 200, dtype=BF16), _h(200, 200, dtype=BF16)
    w1, w2 = _h(192, 200, scale=0.25, dtype=BF16), _h(192, 200, scale=0.25, dtype=BF16)
    y = emulate("two_k_loops_continued_bt", {0: x1, 1: w1, 2: x2, 3: w2, 4: _nan((200, 192), BF16)})[4]
    s14e._check(y, _mm(x1, w1.T) + _mm(x2, w2.T), 6e-2, 1e-2)


def _case_two_k_loops_own_bounds():
    """Two K loops each bounded by its own A's K (one K here), fused: ``x1 @ w1 + x2 @ w2``."""
    x1, x2, w1, w2 = _h(200, 200), _h(200, 200), _h(200, 192, scale=0.25), _h(200, 192, scale=0.25)
    y = emulate("two_k_loops_own_bounds", {0: x1, 1: w1, 2: x2, 3: w2, 4: _nan((200, 192))})[4]
    s14e._check(y, _mm(x1, w1) + _mm(x2, w2), 2e-2, 1e-2)


def _case_two_k_lengths_difference_bt():
    """K segments of two lengths (K1 = 128: 2 K tiles, K2 = 200: 4, the last ragged): ``x1 @ W1^T - x2 @ W2^T``,
    bf16, Y NaN-prefilled."""
    x1, x2 = _h(200, 128, dtype=BF16), _h(200, 200, dtype=BF16)
    w1, w2 = _h(192, 128, scale=0.25, dtype=BF16), _h(192, 200, scale=0.25, dtype=BF16)
    y = emulate("two_k_lengths_difference_bt", {0: x1, 1: w1, 2: x2, 3: w2, 4: _nan((200, 192), BF16)})[4]
    s14e._check(y, _mm(x1, w1.T) - _mm(x2, w2.T), 6e-2, 1e-2)


def _case_second_loop_as_column_tiles():
    """``relu(x @ w1) @ w2`` with the second dot per column tile (program id 1): the epilogue dot looping over Y's
    column tiles, ``relu(h)`` rounded to f16 as the program does, Y NaN-prefilled (M and K ragged)."""
    x, w1, w2 = _h(200, 200), _h(200, 64, scale=0.25), _h(64, 192, scale=0.25)
    y = emulate("second_loop_as_column_tiles", {0: x, 1: w1, 2: w2, 3: _nan((200, 192))})[3]
    a = np.maximum(_mm(x, w1), 0.0).astype(np.float16)
    s14e._check(y, _mm(a, w2), 3e-2, 1e-2)


def _case_two_k_loops_second_reads_first():
    """The second loop over w2's column tiles, refused until session 29 (``tileas-column-loop-to-tiles``): ``relu(x @ w1)`` rounded to f16, then its dot with each of w2's
    column tiles (N = 192)."""
    x, w1, w2 = _h(200, 200), _h(200, 64, scale=0.25), _h(64, 192, scale=0.25)
    y = emulate("two_k_loops_second_reads_first", {0: x, 1: w1, 2: w2, 3: _nan((200, 192))})[3]
    a = np.maximum(_mm(x, w1), 0.0).astype(np.float16)
    s14e._check(y, _mm(a, w2), 3e-2, 1e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}


def test_every_tensor_core_program_has_a_case():
    """The GPU file reruns every case: each program the tensor-core tier takes has one."""
    assert sorted(n for n, p in PROGRAMS.items() if p.path != "simt") == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_ptx_against_numpy(case):
    CASES[case]()
