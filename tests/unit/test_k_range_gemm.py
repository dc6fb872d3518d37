"""GEMMs whose K loop is not ``range(num K tiles)`` on the tensor-core path (issue 18,
``tileas/k_range.py``): ``range(start, stop, step)`` with a start, stop and step of constants or
program values, a K tile index affine in the iv (``2 * k + 1``, ``k0 // tk`` of a loop over element
offsets), split-K (program id 2 as the start, an atomic-add epilogue) and a constant range from
tile 0 (the plain GEMM for K up to what the program reads, ``GemmConfig.k_used``).

The kernels run on the CPU through ``tileorch.testing.ptx_emulator`` (every CTA of the persistent
grid, TMA loads with zero fill, WGMMA, the epilogue's stores) against numpy computing the
program's own loop (tile by tile, zero-padded), for several start / step / trip counts, ragged K
(a partial last K tile) and zero trips (the epilogue of a zero accumulator: C must be written with
zeros, the output is NaN-prefilled).  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from tileorch.testing.gemm_emulation import array_params, compile_cutile, run_gemm

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    from tileorch.testing.k_range_programs import (mm_first_tiles, mm_odd_tiles, mm_range, mm_split_k,
                                                   mm_window_from_bid)
    from tileorch.testing.user_programs2 import gemm_range_step
    from tileorch.testing.view_atomic_programs import gemm_split_k_view

TM, TN, TK = 128, 64, 64
M, N = 200, 96  # ragged row and column tiles


def _compile(kernel, spec):
    return compile_cutile(kernel, spec, "k_range")


def _emulate(p, a, b, scalars=(), grid_l=1, sms=2, c_init=np.nan):
    """C (prefilled with ``c_init``) after every CTA of the persistent grid ran the GEMM kernel
    ``p`` (the builder's parameters, then, when the kernel reads them, the tile program's: each
    array's base, shape and strides, then ``scalars``), and the emulator's errors."""
    m, k = a.shape
    n = b.shape[1]
    c = np.full((m, n), c_init, dtype=np.float32)
    base = {"A": 1 << 32, "B": 2 << 32, "C": 3 << 32}
    tile = [*array_params(base["A"], (m, k)), *array_params(base["B"], (k, n)), *array_params(base["C"], (m, n)),
            *scalars] if p.epilogue_ops else []
    errors = run_gemm(p, a, b, base["C"], (m, n, k), tile, [(base["C"], c.view(np.uint8).reshape(-1), "C")],
                      problem=(m, n, k, grid_l), sms=sms)
    return c, errors


def _reference(a, b, tiles_of):
    """C of the program: tile (i, j) sums A's row tile i times B's column tile j over the K tiles
    ``tiles_of(i, j)`` (zero-padded, tiles outside the arrays read as zeros)."""
    m, k = a.shape
    n = b.shape[1]
    kt = -(-k // TK) + 8
    ap = np.zeros((-(-m // TM) * TM, kt * TK))
    ap[:m, :k] = a
    bp = np.zeros((kt * TK, -(-n // TN) * TN))
    bp[:k, :n] = b
    c = np.zeros_like(ap[:, :bp.shape[1]])
    for i in range(ap.shape[0] // TM):
        for j in range(bp.shape[1] // TN):
            for t in tiles_of(i, j):
                if 0 <= t < kt:
                    c[i * TM:(i + 1) * TM, j * TN:(j + 1) * TN] += \
                        ap[i * TM:(i + 1) * TM, t * TK:(t + 1) * TK] @ bp[t * TK:(t + 1) * TK, j * TN:(j + 1) * TN]
    return c[:m, :n]


def _operands(k, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, k)).astype(np.float16), rng.standard_normal((k, N)).astype(np.float16)


def _check(c, ref, errors):
    assert not errors, errors[:5]
    assert not np.isnan(c).any(), "unwritten outputs"
    np.testing.assert_allclose(c, ref, atol=2e-3, rtol=2e-3)


@pytest.mark.parametrize("start,stop,step", [(0, 5, 1), (1, 5, 2), (2, 9, 3), (4, 4, 1), (5, 2, 1), (3, 4, 7)])
def test_runtime_range_start_stop_step(start, stop, step):
    """K = 300: 4 full tiles and 44 columns of a fifth; (4, 4) and (5, 2) run no iteration."""
    k = 300
    p = _compile(mm_range, [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), 0, 0, 1, TM, TN, TK])
    assert p.kind == "gemm", p.remarks
    assert any("own trip count" in r and "range(a program value, a program value, a program value)" in r
               for r in p.remarks), p.remarks
    a, b = _operands(k, start * 10 + step)
    c, errors = _emulate(p, a, b, (start, stop, step))
    _check(c, _reference(a, b, lambda i, j: range(start, stop, step)), errors)


@pytest.mark.parametrize("k,k_arg", [(160, 160), (300, 128), (160, 0)])
def test_loop_over_element_offsets(k, k_arg):
    """``for k0 in range(0, K, tk)`` with tile ``k0 // tk`` (user_programs2.gemm_range_step): ragged K,
    a K argument below the arrays' K, and K = 0 (zero trips: C is the zero accumulator's store)."""
    spec = [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), k_arg, TM, TN, TK]
    p = _compile(gemm_range_step, spec)
    assert p.kind == "gemm", p.remarks
    assert any("K tile (k) // 64" in r for r in p.remarks), p.remarks
    a, b = _operands(k, k)
    c, errors = _emulate(p, a, b, (k_arg,))
    _check(c, _reference(a, b, lambda i, j: range(0, -(-k_arg // TK))), errors)
    if k_arg == 0:
        assert (c == 0).all()


@pytest.mark.parametrize("n", [0, 1, 3])
def test_affine_tile_index(n):
    """Tiles 1, 3, 5 of K = 400 (the last one ragged: 16 of 64 columns)."""
    k = 400
    p = _compile(mm_odd_tiles, [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), 0, TM, TN, TK])
    assert p.kind == "gemm", p.remarks
    assert any("K tile 2 * k + 1" in r for r in p.remarks), p.remarks
    a, b = _operands(k, 40 + n)
    c, errors = _emulate(p, a, b, (n,))
    _check(c, _reference(a, b, lambda i, j: [2 * t + 1 for t in range(n)]), errors)


@pytest.mark.parametrize("width", [2, 0])
def test_start_from_a_program_id(width):
    k = 256
    spec = [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), 0, TM, TN, TK]
    p = _compile(mm_window_from_bid, spec)
    assert p.kind == "gemm", p.remarks
    a, b = _operands(k, 60 + width)
    c, errors = _emulate(p, a, b, (width,))
    _check(c, _reference(a, b, lambda i, j: [t - i + 1 for t in range(i, i + width)]), errors)


def test_constant_range_from_tile_zero_is_the_plain_gemm():
    """``range(2)``: the plain GEMM (no program parameters, retiled freely) for K <= 128."""
    k = 100
    p = _compile(mm_first_tiles, [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), TM, TN, TK])
    assert p.kind == "gemm", p.remarks
    assert p.gemm_config.k_used == 2 * TK and p.retile_safe and not p.epilogue_ops, p.remarks
    a, b = _operands(k, 7)
    c, errors = _emulate(p, a, b)
    _check(c, a.astype(np.float64) @ b, errors)


def test_the_launcher_refuses_a_k_beyond_the_programs_range():
    """K = 200 > 128: the GEMM kernel would read all of K; the launcher sends the program to the
    SIMT path (LayoutNotSupported), which runs the program's two tiles."""
    from test_chained_dots import Dev

    from tileorch.launchers import cutile as rc

    k = 200
    spec = [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), TM, TN, TK]
    p = _compile(mm_first_tiles, spec)
    args = rc.describe_arguments(mm_first_tiles, (Dev(1 << 32, (M, k), "<f2"), Dev(2 << 32, (k, N), "<f2"),
                                                  Dev(3 << 32, (M, N), "<f4"), TM, TN, TK))
    with pytest.raises(rc.LayoutNotSupported, match="reads only K elements 0 .. 127"):
        rc.gemm_problem_batched(p, args)


@pytest.mark.parametrize("k,splits", [(512, 4), (320, 3), (128, 4)])
def test_split_k_atomic_epilogue(k, splits):
    """Split-K: tile ``s, s + splits, ..`` per program id 2 (K = 320: 5 tiles over 3 splits; K = 128:
    splits 2 and 3 have no tile and add the zero accumulator), the partial products added into C
    (prefilled with zeros: the program adds into it) by the atomic epilogue."""
    spec = [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), splits, TM, TN, TK]
    p = _compile(mm_split_k, spec)
    assert p.kind == "gemm", p.remarks
    assert p.gemm_config.epilogue == "atomic" and p.gemm_config.grid_l, p.remarks
    a, b = _operands(k, k + splits)
    c, errors = _emulate(p, a, b, grid_l=splits, c_init=0.0)
    _check(c, a.astype(np.float64) @ b, errors)


@pytest.mark.parametrize("k,splits", [(320, 3), (128, 4)])
def test_split_k_through_a_tiled_views_atomic_add(k, splits):
    """The same split-K written with ``C.tiled_view(..).atomic_store_add`` (``atomic_red_view_tko``):
    the tier's atomic epilogue, ragged row and column tiles skipped at the edges."""
    spec = [((M, k), "float16"), ((k, N), "float16"), ((M, N), "float32"), splits, TM, TN, TK]
    p = _compile(gemm_split_k_view, spec)
    assert p.kind == "gemm", p.remarks
    assert p.gemm_config.epilogue == "atomic" and p.gemm_config.grid_l, p.remarks
    a, b = _operands(k, k * splits)
    c, errors = _emulate(p, a, b, grid_l=splits, c_init=0.0)
    _check(c, a.astype(np.float64) @ b, errors)
