"""``tileorch.testing.check_memo.check_once``: a proof is searched once per key (this process, then the run's memo
directory) and handed back with the search's own verdict, counts and instances; a violation is never stored (each
call searches and returns its counterexample); protocols that differ in a step or an overridden trip count have
keys of their own.  Reference results: ``tileorch.analysis.explore.check`` called directly."""

from __future__ import annotations

import dataclasses

import pytest

from tileorch.analysis import catalog as C
from tileorch.analysis import explore
from tileorch.analysis import properties as P


@pytest.fixture()
def searches(monkeypatch, tmp_path):
    """A fresh memo (process and directory) and the list of protocols ``explore.check`` searched."""
    from tileorch.testing import compile_memo

    monkeypatch.setenv(compile_memo.MEMO_ENV, str(tmp_path))
    monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
    seen, real = [], explore.check

    def counting(protocol, *args, **kwargs):
        seen.append(protocol.name)
        return real(protocol, *args, **kwargs)

    monkeypatch.setattr(explore, "check", counting)
    return seen


def _same(a, b) -> None:
    assert (a.ok, a.states, a.transitions, a.instances, a.values) == (b.ok, b.states, b.transitions, b.instances,
                                                                      b.values)


def test_a_proof_is_searched_once_per_run(searches, monkeypatch):
    from tileorch.testing import compile_memo
    from tileorch.testing.check_memo import check_once

    proto = C.tma_warp_specialized(2, 2)
    want = explore.check(proto)
    assert want.ok and want.states > 0 and searches == [proto.name]
    first = check_once(proto)
    _same(first, want)
    assert searches == [proto.name] * 2
    for memo in ("process", "directory"):
        if memo == "directory":
            monkeypatch.setattr(compile_memo, "_PROGRAMS", {})
        _same(check_once(C.tma_warp_specialized(2, 2)), want)  # an equal protocol, built again
        assert searches == [proto.name] * 2
    # another trip-count override, another protocol: searched, each its own verdict and counts
    _same(check_once(proto, overrides={"k": (1, 2)}), explore.check(proto, overrides={"k": (1, 2)}))
    _same(check_once(C.tma_warp_specialized(3, 2)), explore.check(C.tma_warp_specialized(3, 2)))
    assert len(searches) == 2 + 4


def test_a_violation_is_searched_every_time_with_its_counterexample(searches):
    from tileorch.testing.check_memo import check_once

    broken = C.tma_warp_specialized(2, 2, empty_count=2 * C.WG - 1)
    for n in (1, 2):
        result = check_once(broken)
        assert not result.ok and result.violation.prop == P.OVER_ARRIVAL and result.trace, result
        assert searches == [broken.name] * n
    # a proof of the same shape is not the violation's: one field apart, its own key
    ok = dataclasses.replace(broken, pipelines=tuple(dataclasses.replace(p, empty_count=2 * C.WG)
                                                     for p in broken.pipelines))
    assert check_once(ok).ok and len(searches) == 3


def test_a_protocol_named_otherwise_shares_the_search_and_keeps_its_labels(searches):
    """Two kernels whose pipelines are one protocol under two names (a GEMM configuration's name holds every
    switch; the notes are located text): one search, each result labelled with its own protocol's name and
    notes, the verdict and counts those of a direct search of it."""
    from tileorch.testing.check_memo import check_once

    proto = C.tma_warp_specialized(2, 2)
    renamed = dataclasses.replace(proto, name=proto.name + "_acc1", notes=("x.mlir:3:5: note: assumed",))
    first = check_once(proto)
    second = check_once(renamed)
    assert searches == [proto.name]
    assert (first.protocol, first.notes) == (proto.name, proto.notes)
    assert (second.protocol, second.notes) == (renamed.name, renamed.notes)
    want = explore.check(renamed)
    _same(second, want)
    assert (second.agents, second.protocol, second.notes) == (want.agents, want.protocol, want.notes)
    # another protocol under the same name: its own search
    other = dataclasses.replace(C.tma_warp_specialized(3, 2), name=renamed.name, notes=renamed.notes)
    _same(check_once(other), explore.check(C.tma_warp_specialized(3, 2)))
    assert len(searches) == 4  # (the two direct searches, and this one's)
