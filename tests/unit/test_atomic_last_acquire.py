"""``TILEORCH_ATOMIC_LAST_ACQUIRE=0`` (``tileaa_to_simt/pointers._last_access``): the acquire fence after the
kernel's last access -- an ordered atomic followed by nothing that accesses memory -- is left out (it orders
nothing).  The PTX of the cross entropy (two acq_rel atomics at its end) keeps the first atomic's acquire and drops
the second's; an atomic followed by a store keeps its acquire; the emulated sums are those of numpy.  Needs
cuda-tile, no GPU."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

BV = 1024


def _ptx(monkeypatch, kernel, spec, name, drop: bool) -> str:
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ATOMIC_LAST_ACQUIRE", "0" if drop else "1")
    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False).ptx


def _after_last_atom(ptx: str) -> str:
    return ptx[[m.start() for m in re.finditer(r"\batom\.", ptx)][-1]:]


@pytest.mark.parametrize("drop", [False, True])
def test_cross_entropy_two_final_atomics(drop, monkeypatch):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    spec = [((4, 2 * BV), "bfloat16"), ((4,), "int64"), ((4,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, BV]
    ptx = _ptx(monkeypatch, kernel, spec, "ce_last_acquire", drop)
    assert len(re.findall(r"\batom\.global\.add", ptx)) == 2
    assert ptx.count("fence.release.gpu") == 2
    assert ptx.count("fence.acquire.gpu") == (1 if drop else 2)
    assert ("fence.acquire" in _after_last_atom(ptx)) is not drop


@ct.kernel
def _count_then_store(X, Cnt, Out):
    """``old = atomic_add(Cnt[0], sum(x))`` then ``Out[bid] = old``: the store follows the atomic."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, 8))
    old = ct.atomic_add(Cnt, ct.zeros((1,), dtype=ct.int32), ct.sum(x, axis=1))
    ct.store(Out, index=(ct.bid(0),), tile=old)


def test_atomic_then_store_keeps_its_acquire(monkeypatch):
    spec = [((3, 8), "int32"), ((1,), "int32"), ((3,), "int32")]
    ptx = _ptx(monkeypatch, _count_then_store, spec, "count_then_store_acquire", True)
    assert "fence.acquire.gpu" in _after_last_atom(ptx)


def test_cross_entropy_sums_emulated(monkeypatch):
    import test_user_sweep10_emulated as s10e

    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_ATOMIC_LAST_ACQUIRE", "0")
    rng = np.random.default_rng(41)
    v = 2 * BV + 5
    x = ((rng.standard_normal((4, v)) * 3).astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    labels = np.array([1, -100, v - 1, 7], np.int64)
    lse_out = np.full(4, np.nan, np.float32)
    got = s10e.emulate_kernel(monkeypatch, "ce_last_acquire_emu", kernel,
                              [x, labels, lse_out, np.zeros(1, np.float32), np.zeros(1, np.int32)], (-100, BV), (4,))
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd).sum(1))
    keep = labels != -100
    np.testing.assert_allclose(got[2], lse, rtol=1e-5, atol=1e-4)
    assert got[4][0] == keep.sum()
    np.testing.assert_allclose(got[3][0], (lse - xd[np.arange(4), np.where(keep, labels, 0)])[keep].sum(), rtol=1e-5)
