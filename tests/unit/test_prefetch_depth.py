"""``TILEORCH_PREFETCH_DEPTH=D`` (``tileaa_to_simt/prefetch.py``): a prefetching loop keeps ``D`` iterations'
loads in flight, ``D + 1`` iterations a trip.  On the PTX emulator, NaN-prefilled outputs: the same bits as
``D = 1`` for every trip count from 1 to past two trips (ragged last tiles), on the online log-sum-exp loop
(sweep 3's logsumexp, run as the rewritten loop from one iteration on), the log-softmax's two passes (its
second pass prefetched under ``TILEORCH_PREFETCH_PAST_STORES=1``) and sweep 15's cross entropy (the loop, then
a gather and two atomics); and numpy's answer.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402

from tileorch.testing.user_programs import UserProgram  # noqa: E402

BV = 64


def _emulate(name, kernel, spec, grid, inputs, depth: int, monkeypatch):
    monkeypatch.setenv("TILEORCH_ONLINE_SOFTMAX", "1")  # the rewritten loop from one iteration on
    monkeypatch.setenv("TILEORCH_PREFETCH_PAST_STORES", "1")
    monkeypatch.setenv("TILEORCH_PREFETCH_DEPTH", str(depth))
    monkeypatch.setattr(s10e, "PROGRAMS", {name: UserProgram(kernel, spec, grid, "simt")})
    return s10e.emulate(name, inputs)


def _bits(a) -> np.ndarray:
    return np.asarray(a, np.float64).view(np.uint64)


def _x(rows: int, v: int, seed: int) -> np.ndarray:
    x = (np.random.default_rng(seed).standard_normal((rows, v)) * 3).astype(np.float32)
    return (x.view(np.uint32) & 0xFFFF0000).view(np.float32)  # bf16 values


def _lse(x) -> np.ndarray:
    return np.log(np.exp(np.asarray(x, np.float64)).sum(1))


# trip counts 1, 2, 4, 5 (D = 4: one trip, one trip and one iteration), 11 (D = 3: two trips and three)
WIDTHS = [BV - 7, 2 * BV, 4 * BV - 1, 5 * BV - 3, 11 * BV - 5]


@pytest.mark.parametrize("v", WIDTHS)
def test_logsumexp_depths(v, monkeypatch):
    from tileorch.testing.user_programs3 import logsumexp_online as kernel

    x = _x(3, v, 1)
    spec = [((3, v), "float32"), ((3,), "float32"), BV]
    base = _emulate("lse_depth", kernel, spec, (3,), {0: x}, 1, monkeypatch)[1]
    np.testing.assert_allclose(base, _lse(x), rtol=2e-6)
    for depth in (3, 4):
        got = _emulate("lse_depth", kernel, spec, (3,), {0: x}, depth, monkeypatch)[1]
        np.testing.assert_array_equal(_bits(got), _bits(base))


@pytest.mark.parametrize("v", WIDTHS)
def test_log_softmax_depths(v, monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    x = _x(3, v, 2)
    spec = [((3, v), "bfloat16"), ((3, v), "bfloat16"), BV]
    base = _emulate("lsm_depth", kernel, spec, (3,), {0: x}, 1, monkeypatch)[1]
    np.testing.assert_allclose(base, x - _lse(x)[:, None], rtol=2e-2, atol=5e-2)
    for depth in (2, 4):
        got = _emulate("lsm_depth", kernel, spec, (3,), {0: x}, depth, monkeypatch)[1]
        np.testing.assert_array_equal(_bits(got), _bits(base))


@pytest.mark.parametrize("early", ["0", "1"])
def test_cross_entropy_depths(early, monkeypatch):
    """Also with the loop's first loads issued early (``TILEORCH_EARLY_PREFETCH=1``: with the peeled tile; the
    other ``D - 1`` iterations' just before the loop)."""
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_EARLY_PREFETCH", early)

    v = 5 * BV - 3
    x = _x(4, v, 3)
    labels = np.array([0, -100, v - 1, 77], np.int64)
    spec = [((4, v), "bfloat16"), ((4,), "int64"), ((4,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, BV]
    inputs = {0: x, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)}
    base = _emulate("ce_depth", kernel, spec, (4,), inputs, 1, monkeypatch)
    np.testing.assert_allclose(base[2], _lse(x), rtol=2e-6)
    assert base[4][0] == 3
    got = _emulate("ce_depth", kernel, spec, (4,), inputs, 4, monkeypatch)
    np.testing.assert_array_equal(_bits(got[2]), _bits(base[2]))
    assert got[4][0] == 3 and abs(got[3][0] - base[3][0]) <= 1e-5 * abs(base[3][0])


@pytest.mark.parametrize("tiles", [2, 3, 5, 6, 12])
def test_loops_stopping_before_the_row_end(tiles, monkeypatch):
    """Loops of ``tiles - 1`` iterations (1 to 11: every position of the last iteration in a trip of 3, 4 and 5)
    over rows of ``tiles`` tiles: no iteration past the loop's end is run (its tile would be stored or summed)."""
    from prefetch_programs import copy_all_but_last_tile, sum_all_but_last_tile

    v = tiles * BV - 3
    x = _x(2, v, 4)
    end = (tiles - 1) * BV
    want = np.full((2, v), np.nan, np.float32)
    want[:, :end] = 2 * x[:, :end]
    for depth in (1, 2, 3, 4):
        got = _emulate("copy_depth", copy_all_but_last_tile, [((2, v), "float32"), ((2, v), "float32"), BV], (2,),
                       {0: x}, depth, monkeypatch)[1]
        np.testing.assert_array_equal(got, want)
        got = _emulate("sum_depth", sum_all_but_last_tile, [((2, v), "float32"), ((2,), "float32"), BV], (2,),
                       {0: x}, depth, monkeypatch)[1]
        np.testing.assert_allclose(got, x[:, :end].astype(np.float64).sum(1), rtol=1e-5, atol=1e-4)
