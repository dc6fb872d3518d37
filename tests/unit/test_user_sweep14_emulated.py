"""Fourteenth user sweep (``tileorch.testing.user_programs14``): the GEMMs with f16 operands (the PTX
emulator's WGMMA is ``.f32.f16.f16`` only: the bf16, fp8, int8 and tf32 programs run on the GPU
alone, tests/gpu/test_user_sweep14_gpu.py), their TMA/WGMMA PTX run CTA by CTA on the CPU by
``tileorch.testing.ptx_emulator`` against numpy float64 on ragged shapes, outputs NaN-prefilled
(test_user_sweep3_emulated's runner: the launcher's own problem derivation, tensor maps and tile
parameters; a program-grid kernel walks its launch grid, a batched one the grid's z).  The kernels
are compiled with the direct epilogue on 1-CTA clusters (the emulator's subset), sharing the
compile with other tests of the run (``compile_once``).  :data:`EMULATED` is the CI-sized subset;
``TILEORCH_EMULATE_ALL=1`` runs every case.  Needs cuda-tile and ml_dtypes."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs14 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(2214)
CONFIG = "cluster_m=1,epilogue=direct"


@pytest.fixture(autouse=True)
def _fourteenth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _f(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


def emulate(name: str, inputs: dict) -> dict:
    """Program ``name`` on its spec's shapes, every CTA its launch runs (a program-grid kernel: the
    launch grid in the program's tiles, the grid as its last parameters; a kernel reading program id 2:
    L = the grid's z; a batched one: L = C's matrices); returns its arrays after the run."""
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    cfg = compile_cutile(p.kernel, p.spec, name, config=CONFIG).gemm_config
    grid = list(p.grid) + [1] * (3 - len(p.grid))
    if cfg.program_grid:
        return s3._gemm(name, inputs, program=p, config=CONFIG, more_params=grid,
                        problem=lambda c, m, n, k: (grid[0] * c.tile_m, grid[1] * c.tile_n, k, grid[2]))
    if cfg.grid_l:  # program id 2 walks the launch grid's z
        return s3._gemm(name, inputs, program=p, config=CONFIG, problem=lambda c, m, n, k: (m, n, k, grid[2]))
    if cfg.batched:  # the host's L: C's matrices (batch dimensions flattened)
        batch = int(np.prod(p.spec[p.outputs[0]][0][:-2]))
        return s3._gemm(name, inputs, program=p, config=CONFIG, problem=lambda c, m, n, k: (m, n, k, batch))
    return s3._gemm(name, inputs, program=p, config=CONFIG)


def _check(out, ref, atol, rtol=2e-3):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=atol, rtol=rtol)


def _case_k40():
    a, b = _h(130, 40), _h(40, 96)
    _check(emulate("k40_one_partial_tile", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_skinny_m8():
    x, w = _h(8, 256), _h(256, 320, scale=0.25)
    _check(emulate("skinny_m8_tile16", {0: x, 1: w})[2], _mm(x, w), 2e-2)


def _case_skinny_n16():
    x, w = _h(300, 256), _h(256, 16)
    _check(emulate("skinny_n16_router", {0: x, 1: w})[2], _mm(x, w), 1e-3)


def _case_k1000():
    a, b = _h(300, 1000, scale=0.25), _h(1000, 200, scale=0.25)
    _check(emulate("k1000_tk128_tile_256x128", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_tile_64x32():
    a, b = _h(100, 192), _h(192, 80, scale=0.25)
    _check(emulate("tile_64x32_k64", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_tile_128x256_k32():
    a, b = _h(256, 96), _h(96, 512, scale=0.25)
    _check(emulate("tile_128x256_k32", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_tile_256x128_bt():
    a, bt = _h(300, 192), _h(200, 192, scale=0.25)
    _check(emulate("tile_256x128_k64_bt", {0: a, 1: bt})[2], _mm(a, bt.T), 2e-2)


def _case_matmul_plus_acc_reversed():
    a, b = _h(200, 128), _h(128, 192)
    _check(emulate("matmul_plus_acc_reversed", {0: a, 1: b})[2], _mm(a, b), 1e-3)


def _case_group_m_raster():
    a, b = _h(384, 128), _h(128, 320, scale=0.25)
    _check(emulate("group_m_raster_runtime_group", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_splitk_linear_pid_atomic():
    a, b = _h(200, 448), _h(448, 192, scale=0.25)
    c = emulate("splitk_linear_pid_atomic", {0: a, 1: b, 2: np.zeros((200, 192), np.float32)})[2]
    _check(c, _mm(a, b), 1e-3)


def _case_splitk_partials_workspace():
    """Split 0 takes K tiles 0-2, split 1 tiles 3-4 (K = 320, 5 tiles of 64): the workspace holds the
    two partial products (the second kernel, which adds them, runs on the GPU)."""
    a, b = _h(256, 320), _h(320, 128, scale=0.25)
    wk = emulate("splitk_partials_workspace_3d", {0: a, 1: b})[2]
    _check(wk[0], _mm(a[:, :192], b[:192]), 1e-3)
    _check(wk[1], _mm(a[:, 192:], b[192:]), 1e-3)


def _case_w8_group_scale_zero_point():
    x = _h(128, 256)
    wq = RNG.integers(-128, 128, (256, 128)).astype(np.int8)
    sc = (RNG.random((2, 128)) * 0.02 + 0.005).astype(np.float16)
    zp = RNG.integers(-8, 8, (2, 128)).astype(np.float16)
    y = emulate("w8_group_scale_zero_point", {0: x, 1: wq, 2: sc, 3: zp})[4]
    g = np.arange(256) // 128
    w = ((wq.astype(np.float16) - zp[g]) * sc[g]).astype(np.float16)  # the program's f16 operand
    _check(y, _mm(x, w), 2e-2)


def _case_epi_row_col_bias_silu_residual():
    a, b, rb, cb, r = _h(200, 128), _h(128, 192, scale=0.1), _f(200), _f(192), _h(200, 192)
    y = emulate("epi_row_col_bias_silu_residual", {0: a, 1: b, 2: rb, 3: cb, 4: r})[5]
    h = _mm(a, b) + rb[:, None] + cb[None, :]
    _check(y, h / (1 + np.exp(-h)) + r, 2e-2)


def _case_epi_clamp_then_e4m3():
    """The e4m3 bytes decoded: within one e4m3 rounding of ``clamp(4 * A @ B, -448, 448)`` (values past
    the clamp saturate at 448)."""
    import ml_dtypes

    a, b = _h(200, 128, scale=3.0), _h(128, 192)
    q = emulate("epi_clamp_then_e4m3", {0: a, 1: b})[2]
    got = q.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    ref = np.clip(4 * _mm(a, b), -448, 448)
    assert np.abs(ref).max() == 448  # the clamp is exercised
    np.testing.assert_allclose(got, ref, rtol=2 ** -3, atol=2 ** -9)


def _case_epi_rowscale_store_transposed():
    a, b, s = _h(256, 128), _h(128, 192, scale=0.25), _f(256)
    yt = emulate("epi_rowscale_store_transposed", {0: a, 1: b, 2: s})[3]
    _check(yt, (_mm(a, b) * s[:, None]).T, 3e-2)


def _case_bmm_4d_a_per_head_b():
    """A's 6 matrices (2 x 3) against B's 3 (one per head) into C's 6: refused at launch until session 23
    (the host built the three tensor maps with C's batch count: "tensor maps of one batch count; got 3
    matrices beside C's 6", and ran the SIMT path); now each tensor map holds its operand's own matrices
    (the kernel evaluates each operand's batch index per work tile)."""
    a, b = _h(2, 3, 128, 128), _h(3, 128, 128, scale=0.25)
    _check(emulate("bmm_4d_a_per_head_b", {0: a, 1: b})[2], _mm(a, b[None]), 2e-2)


def _case_bmm_3d_tiles_matmul():
    a, b = _h(3, 200, 128), _h(3, 128, 192, scale=0.25)
    _check(emulate("bmm_3d_tiles_matmul", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_bmm_grid2_broadcast_b_bias():
    a, b, bias = _h(3, 200, 128), _h(128, 192, scale=0.25), _f(3, 192)
    _check(emulate("bmm_grid2_broadcast_b_bias", {0: a, 1: b, 2: bias})[3], _mm(a, b) + bias[:, None, :], 2e-2)


def _case_persistent_batched_tiles():
    """The program's persistent loop over (batch, row tile, column tile) (``t // P``, ``(t % P) // X``,
    ``t % X``): refused until session 22, now the batched GEMM's tile grid (tileas-program-loop-to-tiles)."""
    a, b = _h(3, 200, 128), _h(3, 128, 192, scale=0.25)
    _check(emulate("persistent_batched_tiles", {0: a, 1: b})[2], _mm(a, b), 2e-2)


def _case_logits_and_row_max_1d():
    """The 1-D row maximum (a reduction stored without keepdims, taken by the tier in session 22)
    beside the f32 logits; rows 200..255 of the second tile are outside the arrays."""
    x, w = _h(200, 128), _h(128, 128)
    out = emulate("logits_and_row_max_1d", {0: x, 1: w})
    ref = _mm(x, w)
    _check(out[2], ref, 1e-3)
    _check(out[3], ref.max(1), 1e-3)


def _case_colsum_1d_beside_c():
    """The 1-D column sums (rows 100..127 of the one row tile outside the arrays: left out of the sum)."""
    x, w = _h(100, 128), _h(128, 320, scale=0.25)
    out = emulate("colsum_1d_beside_c", {0: x, 1: w})
    ref = _mm(x, w)
    _check(out[2], ref, 2e-2)
    _check(out[3], ref.sum(0), 2e-2)


def _case_grouped_experts_bid2_offsets_aligned():
    """Groups of 128, 64 and 192 rows (tile-aligned offsets), the weight W[bid(2)] beside 2-D X and Y:
    refused as 'A, B and C must all be batched' until session 24 (sweep 18)."""
    x, w = _h(384, 128), _h(3, 128, 128, scale=0.25)
    offs = np.array([0, 128, 192, 384], np.int32)
    y = emulate("grouped_experts_bid2_offsets_aligned", {0: x, 1: w, 2: offs})[3]
    _check(y, np.concatenate([_mm(x[offs[g]:offs[g + 1]], w[g]) for g in range(3)]), 2e-2)


def _case_two_products_one_acc():
    """``A1 @ B1 + A2 @ B2`` chained into one accumulator (an A per dot in each stage), f16 output NaN-prefilled,
    M = 200 ragged."""
    a1, b1, a2, b2 = _h(200, 128), _h(128, 192, scale=0.25), _h(200, 128), _h(128, 192, scale=0.25)
    y = emulate("two_products_one_acc", {0: a1, 1: b1, 2: a2, 3: b2, 4: np.full((200, 192), np.nan, np.float16)})[4]
    _check(y, _mm(a1, b1) + _mm(a2, b2), 2e-2)


CASES = {n.removeprefix("_case_"): f for n, f in globals().items() if n.startswith("_case_")}

EMULATED = ["k40", "skinny_n16", "tile_64x32", "group_m_raster", "splitk_linear_pid_atomic",
            "w8_group_scale_zero_point", "epi_clamp_then_e4m3", "bmm_4d_a_per_head_b", "logits_and_row_max_1d", "colsum_1d_beside_c",
            "persistent_batched_tiles", "grouped_experts_bid2_offsets_aligned", "two_products_one_acc"]
"""The CI-sized subset (a ragged K tile alone, N = 16, 64 x 32 tiles, a raster from a runtime group size,
split-K folded into the program id, a computed B with two per-group vectors, a saturating fp8 output,
a 4-D A against a per-head B, the 1-D row and column reductions, the batched persistent loop, two products
chained into one accumulator); ``TILEORCH_EMULATE_ALL=1`` runs every case."""
if os.environ.get("TILEORCH_EMULATE_ALL"):
    EMULATED = sorted(CASES)


@pytest.mark.parametrize("case", EMULATED)
def test_the_ptx_against_numpy(case):
    CASES[case]()
