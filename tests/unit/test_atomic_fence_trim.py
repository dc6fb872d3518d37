"""``TILEORCH_ATOMIC_FENCE_TRIM=1`` (``tileaa_to_simt/pointers._last_access``, ``_merged_pair``): the acquire fence
after the kernel's last access -- an ordered atomic followed by nothing that accesses memory -- is left out (it
orders nothing), and between two final atomics held by the same threads the first's acquire and the second's release
are one ``fence.acq_rel``.  The PTX of the cross entropy (two acq_rel atomics at its end): release, atom, acq_rel,
atom (four fences before: release, atom, acquire, release, atom, acquire; the second's release stays for a thread
live for it and not for the first, which the emulator's count of executed fences shows not taken); an atomic
followed by a store keeps its acquire; the emulated sums are those of numpy.  Needs cuda-tile, no GPU."""

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

    monkeypatch.setenv("TILEORCH_ATOMIC_FENCE_TRIM", "1" if drop else "0")
    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False).ptx


def _after_last_atom(ptx: str) -> str:
    return ptx[[m.start() for m in re.finditer(r"\batom\.", ptx)][-1]:]


@pytest.mark.parametrize("drop", [False, True])
def test_cross_entropy_two_final_atomics(drop, monkeypatch):
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    spec = [((4, 2 * BV), "bfloat16"), ((4,), "int64"), ((4,), "float32"), ((1,), "float32"), ((1,), "int32"), -100, BV]
    ptx = _ptx(monkeypatch, kernel, spec, "ce_fence_trim", drop)
    assert len(re.findall(r"\batom\.global\.add", ptx)) == 2
    fences = re.findall(r"\b(fence\.\w+\.gpu|atom)\b", ptx)
    tail = fences[fences.index("atom") - 1:]  # (the atomics and their fences, in program order)
    want = (["fence.release.gpu", "atom", "fence.acq_rel.gpu", "fence.release.gpu", "atom"] if drop else
            ["fence.release.gpu", "atom", "fence.acquire.gpu", "fence.release.gpu", "atom", "fence.acquire.gpu"])
    assert tail == want, tail
    assert ("fence.acquire" in _after_last_atom(ptx)) is not drop


@ct.kernel
def _count_then_store(X, Cnt, Out):
    """``old = atomic_add(Cnt[0], sum(x))`` then ``Out[bid] = old``: the store follows the atomic."""
    x = ct.load(X, index=(ct.bid(0), 0), shape=(1, 8))
    old = ct.atomic_add(Cnt, ct.zeros((1,), dtype=ct.int32), ct.sum(x, axis=1))
    ct.store(Out, index=(ct.bid(0),), tile=old)


def test_atomic_then_store_keeps_its_acquire(monkeypatch):
    spec = [((3, 8), "int32"), ((1,), "int32"), ((3,), "int32")]
    ptx = _ptx(monkeypatch, _count_then_store, spec, "count_then_store_trim", True)
    assert "fence.acquire.gpu" in _after_last_atom(ptx)


@pytest.mark.parametrize("combine", ["0", "auto"])
@pytest.mark.parametrize("trim", [False, True])
def test_cross_entropy_sums_emulated(trim, combine, monkeypatch):
    """The fences the emulator executes: one CTA a row (``TILEORCH_COMBINE_ATOMICS=0``: 4 CTAs) or the rows'
    atomics combined (the default since session 34; the emulator runs 3 rows a CTA: 2 CTAs), each CTA's thread 0
    fencing its two atomics."""
    import collections

    import test_user_sweep10_emulated as s10e

    from tileorch.testing import ptx_emulator
    from tileorch.testing.user_programs15 import cross_entropy_fwd_mean_atomic as kernel

    monkeypatch.setenv("TILEORCH_ATOMIC_FENCE_TRIM", "1" if trim else "0")
    monkeypatch.setenv("TILEORCH_COMBINE_ATOMICS", combine)
    monkeypatch.delenv("TILEORCH_CTA_PROGRAMS", raising=False)
    ctas = 4 if combine == "0" else 2
    made = []

    class Counted(ptx_emulator.Emu):
        count_instructions = True

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    monkeypatch.setattr(ptx_emulator, "Emu", Counted)
    rng = np.random.default_rng(41)
    v = 2 * BV + 5
    x = ((rng.standard_normal((4, v)) * 3).astype(np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)
    labels = np.array([1, -100, v - 1, 7], np.int64)
    lse_out = np.full(4, np.nan, np.float32)
    got = s10e.emulate_kernel(monkeypatch, f"ce_fence_trim_emu{int(trim)}{combine}", kernel,
                              [x, labels, lse_out, np.zeros(1, np.float32), np.zeros(1, np.int32)], (-100, BV), (4,))
    xd = x.astype(np.float64)
    lse = np.log(np.exp(xd).sum(1))
    keep = labels != -100
    np.testing.assert_allclose(got[2], lse, rtol=1e-5, atol=1e-4)
    assert got[4][0] == keep.sum()
    np.testing.assert_allclose(got[3][0], (lse - xd[np.arange(4), np.where(keep, labels, 0)])[keep].sum(), rtol=1e-5)
    ops = sum((emu.traffic for emu in made), start=collections.Counter())
    fences = {k[3:]: v for k, v in ops.items() if k.startswith("op:fence.")}
    assert fences == ({"fence.release.gpu": ctas, "fence.acq_rel.gpu": ctas} if trim else
                      {"fence.release.gpu": 2 * ctas, "fence.acquire.gpu": 2 * ctas}), fences  # (thread 0 each)
