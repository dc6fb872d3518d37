"""Adversarial computed-A GEMMs on WGMMA's register A operand (``tileas/register_a_operand.py``, the default
path that no GPU has run yet): each program on the PTX emulator against numpy float64 (outputs NaN-prefilled) and
against the staged path (``TILEORCH_COMPUTED_OPERAND=staged``) bit for bit.  Chosen to break it: M below one
64-row tile, K below one K tile and K one K step, NaN / infinity / -0 / denormals in A (``ct.maximum``'s default
drops a NaN operand, ``propagate_nan=True`` keeps it), ``gamma = 0`` against an infinite A (NaN), int8 A with a
per-row scale vector that changes every K step, a per-K-tile scalar in a ``where``, a batched A read through a
reshape, a loop from K tile 1.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.computed_b_programs import a_times_gamma, relu_a  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2525)


@ct.kernel
def relu_nan_a(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.maximum(ct.load(A, index=(i, k), shape=(tm, tk)), 0.0, propagate_nan=True)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def a8_token_group_scale(A, S, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """int8 activations with one scale per row and K tile (``S [M, K / tk]``, a [tm, 1] tile each K step)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        s = ct.load(S, index=(i, k), shape=(tm, 1))
        a = (ct.load(A, index=(i, k), shape=(tm, tk)).astype(ct.float32) * s).astype(ct.float16)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def leaky_a_per_k_slope(A, T, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A leaky ReLU whose slope is one element per K tile (a [1] tile broadcast over the [tm, tk] A)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        t = ct.load(T, index=(k,), shape=(1,))
        x = ct.load(A, index=(i, k), shape=(tm, tk))
        acc = ct.mma(ct.where(x > 0, x, x * t[None, :]), ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


@ct.kernel
def relu_a_batched(X, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j, z = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=2, shape=(1, tm, tk))):
        a = ct.maximum(ct.load(X, index=(z, i, k), shape=(1, tm, tk)).reshape((tm, tk)), 0.0)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(z, i, j), tile=acc.reshape((1, tm, tn)))


@ct.kernel
def relu_a_from_k1(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(1, ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.maximum(ct.load(A, index=(i, k), shape=(tm, tk)), 0.0)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc)


def _both_paths(monkeypatch, name, kernel, spec, grid, inputs, out):
    """The program's output on the register-A path and on the staged path (each on the emulator, NaN-prefilled);
    asserts which path each compile took."""
    from tileorch.testing.gemm_emulation import compile_cutile

    outs = []
    for staged in (False, True):
        key = name + ("_staged" if staged else "")
        p = UserProgram(kernel, spec, grid, "gemm", "", "", (out,))
        s4.add_sweep_programs(monkeypatch, {key: p})
        # registers: register A also where A's map reads a K-indexed vector (gamma[k]), staged by default
        monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "staged" if staged else "registers")
        assert compile_cutile(kernel, spec, key, config="cluster_m=1,epilogue=direct").gemm_config.a_regs != staged
        outs.append(np.asarray(s4._s3_gemm(key, inputs)[out], np.float64))
    monkeypatch.delenv("TILEORCH_COMPUTED_OPERAND", raising=False)
    reg, staged = outs
    assert np.array_equal(reg.view(np.uint64), staged.view(np.uint64)), "register A and staged A differ"
    return reg


def _same(out, ref, atol=2e-3, rtol=1e-2):
    """``out`` NaN exactly where ``ref`` is (no output left at its NaN prefill elsewhere), infinite alike, close."""
    assert np.array_equal(np.isnan(out), np.isnan(ref)), (np.isnan(out).sum(), np.isnan(ref).sum())
    fin = ~np.isnan(ref)
    np.testing.assert_allclose(out[fin], ref[fin], atol=atol, rtol=rtol)


def _mm(a, b):
    return np.asarray(a, np.float64) @ np.asarray(b, np.float64)


@pytest.mark.parametrize("m,k,n", [(40, 40, 72), (40, 64, 72), (130, 100, 64)])
def test_relu_of_special_values_at_tile_boundaries(monkeypatch, m, k, n):
    """M below one 64-row tile, K below one K tile / exactly one K step / ragged over two; NaN, +-inf, -0 and
    a denormal in A: ``ct.maximum(a, 0)`` drops the NaN (cuTile's default), keeps +inf, zeroes -inf."""
    a = RNG.standard_normal((m, k)).astype(np.float16)
    a[0, 0], a[1, 1], a[2, 2], a[4, 3] = np.nan, -np.inf, np.inf, 6e-8
    a[3, :] = -0.0
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    out = _both_paths(monkeypatch, f"rv25_relu_{m}_{k}", relu_a, spec, (-(-m // 64), -(-n // 64)), {0: a, 1: b}, 2)
    _same(out, _mm(np.fmax(a.astype(np.float64), 0), b))
    assert np.isinf(out[2]).all() and np.isfinite(out[0]).all()


def test_relu_propagating_nan(monkeypatch):
    """``propagate_nan=True``: a NaN in a row of A makes that row of C NaN (and only that row), every K tile."""
    m, k, n = 70, 72, 64
    a = RNG.standard_normal((m, k)).astype(np.float16)
    a[5, 7] = a[66, 70] = np.nan  # the second in the ragged second K tile and row tile
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    out = _both_paths(monkeypatch, "rv25_relu_nan", relu_nan_a, spec, (2, 1), {0: a, 1: b}, 2)
    _same(out, _mm(np.maximum(a.astype(np.float64), 0), b))
    assert sorted(np.where(np.isnan(out).any(1))[0]) == [5, 66]


def test_zero_gamma_against_infinite_a_is_nan(monkeypatch):
    """``(a * gamma[k]) @ b`` with ``gamma = 0`` at the columns where A is infinite (0 x inf = NaN in the f16
    product) and a denormal product elsewhere: NaN rows exactly where numpy's, M below one tile, K ragged."""
    m, k, n = 40, 100, 72
    a = RNG.standard_normal((m, k)).astype(np.float16)
    a[3, 10], a[7, 90], a[9, 50] = np.inf, -np.inf, 6e-8
    g = (RNG.random(k) + 0.5).astype(np.float16)
    g[[10, 50, 90]] = 0
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((m, k), "float16"), ((k,), "float16"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    out = _both_paths(monkeypatch, "rv25_gamma0", a_times_gamma, spec, (1, 2), {0: a, 1: g, 2: b}, 3)
    with np.errstate(invalid="ignore"):
        _same(out, _mm(a * g[None, :], b))
    assert sorted(np.where(np.isnan(out).any(1))[0]) == [3, 7]


def test_int8_with_a_scale_per_row_and_k_tile(monkeypatch):
    """int8 A scaled by ``S[i, k]``, a [tm, 1] tile loaded every K step (per-token, per-group scales): each K
    tile's own scales, rows ragged over three row tiles, K ragged."""
    m, k, n = 130, 200, 64
    q = RNG.integers(-128, 128, (m, k)).astype(np.int8)
    s = (RNG.random((m, 4)) + 0.01).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((m, k), "int8"), ((m, 4), "float32"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    out = _both_paths(monkeypatch, "rv25_tokgroup", a8_token_group_scale, spec, (3, 1), {0: q, 1: s, 2: b}, 3)
    deq = (q.astype(np.float32) * np.repeat(s, 64, axis=1)[:, :k]).astype(np.float16)
    _same(out, _mm(deq, b))


def test_leaky_relu_with_a_slope_per_k_tile(monkeypatch):
    m, k, n = 130, 200, 64
    a = RNG.standard_normal((m, k)).astype(np.float16)
    t = (RNG.random(4) * 0.3).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((m, k), "float16"), ((4,), "float16"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    out = _both_paths(monkeypatch, "rv25_leaky", leaky_a_per_k_slope, spec, (3, 1), {0: a, 1: t, 2: b}, 3)
    slope = np.repeat(t, 64)[:k]
    _same(out, _mm(np.where(a > 0, a, (a * slope[None, :]).astype(np.float16)), b))


def test_batched_a_through_a_reshape(monkeypatch):
    m, k, n = 70, 100, 64
    x = RNG.standard_normal((3, m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((3, m, k), "float16"), ((k, n), "float16"), ((3, m, n), "float32"), 64, 64, 64]
    out = _both_paths(monkeypatch, "rv25_batched", relu_a_batched, spec, (2, 1, 3), {0: x, 1: b}, 2)
    _same(out, _mm(np.maximum(x, 0), b))


@pytest.mark.parametrize("tk,swizzle", [(64, 128), (32, 64), (16, 32)])
def test_loop_from_the_second_k_tile(monkeypatch, tk, swizzle):
    """``range(1, n)``: the first K tile is not read (its products must not appear), the ragged last one is;
    the program's own K tile kept (its loop starts at one), so f16 raw rows of 128, 64 and 32 bytes."""
    from tileorch.testing.gemm_emulation import compile_cutile

    m, k, n = 70, 200, 64
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    spec = [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, tk]
    out = _both_paths(monkeypatch, f"rv25_from_k1_{tk}", relu_a_from_k1, spec, (2, 1), {0: a, 1: b}, 2)
    _same(out, _mm(np.maximum(a[:, tk:], 0), b[tk:]))
    cfg = compile_cutile(relu_a_from_k1, spec, f"rv25_from_k1_{tk}", config="cluster_m=1,epilogue=direct").gemm_config
    assert cfg.tile_k == tk and cfg.a_raw_swizzle == swizzle
