"""Mutation test of the pipeline model checker.

Each bug class users hit (user-pain-points.md 1-5) is seeded into a correct reference protocol;
the checker must reject every mutant naming the property the bug violates, and accept every
correct protocol.  Expected properties follow from the PTX mbarrier semantics
(cutlass-semantics.md §0) and the CUTLASS protocol rules (§1, §3, §5.5), not from our output:

* producer start phase 0: a fresh empty barrier has parity 0, so ``try_wait.parity(0)`` blocks
  until a phase completes that only the consumers (who wait for the producer) can complete;
* no phase flip on wrap: round 1 waits with the parity of round 0, which the barrier still
  shows, so the wait passes for a phase that has not completed;
* empty count + 1: the phase needs one arrival nobody makes; count - 1: the last consumer's
  arrivals exceed what is pending; a full count one short lets the first of two producers
  complete the phase while the second is still writing;
* commit without expect_tx: the plain arrive completes the phase before the TMA bytes land;
* Stream-K reducer without the lock wait reads the workspace before the partial is stored.
"""

import pytest

from tileorch.analysis import catalog as C
from tileorch.analysis import properties as P
from tileorch.analysis.explore import check

W = C.tma_warp_specialized

CORRECT = {
    "tma_ws_1wg": lambda: W(2, 1),
    "tma_ws_2wg": lambda: W(2, 2),
    "tma_ws_3stages": lambda: W(3, 2, trips=(1, 2, 4, 7)),
    "tma_ws_try_wait": lambda: W(2, 2, use_try=True),
    "async_two_producers": lambda: C.async_two_producers(),
    "persistent_cooperative": lambda: C.persistent_cooperative(),
    "cluster_multicast": lambda: C.cluster_multicast(),
    "streamk_deterministic": lambda: C.streamk_fixup(4),
    "streamk_nondeterministic": lambda: C.streamk_fixup(4, deterministic=False,
                                                         deterministic_order=False),
}

MUTANTS = {
    "producer_start_phase_0": (lambda: W(2, 2, producer_phase=0), P.DEADLOCK),
    "producer_no_phase_flip": (lambda: W(2, 2, producer_flip=False), P.PARITY_ALIASING),
    "consumer_no_phase_flip": (lambda: W(2, 2, consumer_flip=False), P.PARITY_ALIASING),
    "empty_count_plus_one": (lambda: W(2, 2, empty_count=2 * C.WG + 1), P.DEADLOCK),
    "empty_count_minus_one": (lambda: W(2, 2, empty_count=2 * C.WG - 1), P.OVER_ARRIVAL),
    "full_count_plus_one": (lambda: W(2, 1, full_count=2), P.DEADLOCK),
    "async_full_count_minus_one": (lambda: C.async_two_producers(full_count=1),
                                   P.READ_BEFORE_COMMIT),
    "cluster_empty_count_minus_one": (lambda: C.cluster_multicast(empty_count=1),
                                      P.OVER_ARRIVAL),
    "release_before_last_read": (lambda: W(2, 2, release_first=True), P.RELEASE_BEFORE_READ),
    "commit_without_expect_tx": (lambda: W(2, 2, expect_tx=False), P.READ_BEFORE_COMMIT),
    "missing_producer_tail": (lambda: W(2, 2, with_tail=False), P.DRAIN),
    "cluster_missing_producer_tail": (lambda: C.cluster_multicast(with_tail=False), P.DRAIN),
    "consumer_waits_on_empty_barrier": (lambda: W(2, 2, wait_side="empty"), P.DEADLOCK),
    "streamk_reducer_does_not_wait": (lambda: C.streamk_fixup(3, reducer_waits=False),
                                      P.FIXUP_ORDER),
    "streamk_red_without_release": (lambda: C.streamk_fixup(3, release=False), P.FIXUP_ORDER),
    "streamk_unordered_in_deterministic_mode": (
        lambda: C.streamk_fixup(4, deterministic_order=False), P.FIXUP_DETERMINISM),
    "try_wait_without_finalize": (lambda: W(2, 2, use_try=True, finalize=False),
                                  P.TOKEN_PROTOCOL),
    "named_barrier_count_mismatch": (lambda: C.persistent_cooperative(counts=(256, 128)),
                                     P.NAMED_BARRIER_COUNT),
    "named_barrier_count_too_large": (lambda: C.persistent_cooperative(epilogue_count=384),
                                      P.NAMED_BARRIER_COUNT),
}


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_correct_protocol_is_accepted(name):
    result = check(CORRECT[name]())
    assert result.ok, result.violation
    assert result.states > 0


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_rejected_with_the_right_property(name):
    build, prop = MUTANTS[name]
    result = check(build())
    assert not result.ok, f"{name} was accepted"
    assert result.violation.prop == prop, result.violation.headline()
    if prop not in (P.DEADLOCK, P.FIXUP_DETERMINISM):
        assert result.trace, "a transition violation comes with the steps that lead to it"


@pytest.mark.parametrize("name", ["tma_ws_2wg", "async_two_producers", "streamk_deterministic"])
def test_reductions_do_not_change_the_verdict(name):
    """Partial-order reduction explores fewer states but reaches the same verdict."""
    reduced, full = check(CORRECT[name](), por=True), check(CORRECT[name](), por=False)
    assert reduced.ok and full.ok
    assert reduced.states <= full.states


@pytest.mark.parametrize("name", ["producer_no_phase_flip", "empty_count_minus_one",
                                  "commit_without_expect_tx", "streamk_reducer_does_not_wait"])
def test_mutants_are_rejected_without_reduction_too(name):
    build, prop = MUTANTS[name]
    assert check(build(), por=False).violation.prop == prop
