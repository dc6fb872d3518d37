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
* a TMA copy that delivers fewer bytes than the commit's expect_tx leaves the transaction
  count above 0: the phase never completes and the consumer waits forever;
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
    "tma_copy_short_of_expect_tx": (lambda: W(2, 2, copy_bytes=512), P.DEADLOCK),
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


# --- ordered sequence barriers, the MODS cluster barrier (seed 004), TMA multicast ---------
#
# * a math group that skips its MMA arrive (advance() only) never completes the phase the
#   next group waits for: OrderedSequenceBarrier::wait blocks forever;
# * a group passing the wrong group id waits on the previous group's barrier, whose fresh
#   parity lets it through out of turn (two groups in one stage);
# * the MODS end probe is the cluster barrier's wait: without it a CTA leaves the window with
#   its arrival outstanding (drain); without the start probe the wait counts on an arrival of
#   its own that never happens (barrier.cluster.wait without arrive: blocked forever);
# * the end probe runs after the pipeline drained (seed 004: "after the pipeline tail drains").

CORRECT_MORE = {
    "pingpong_2groups": lambda: C.pingpong_order(),
    "pingpong_3groups": lambda: C.pingpong_order(2, 3),
    "mods_window_2x2": lambda: C.mods_window(4),
    "mods_around_tma_ws": lambda: C.mods_pipeline(),
}

MUTANTS_MORE = {
    "seq_missing_mma_arrive": (lambda: C.pingpong_order(skip_mma_arrive=True), P.DEADLOCK),
    "seq_wrong_group_id": (lambda: C.pingpong_order(group_ids=(0, 0)), P.SEQ_ORDER),
    "mods_missing_end_probe": (lambda: C.mods_window(4, end=False), P.DRAIN),
    "mods_start_without_end_2cta": (lambda: C.mods_window(2, end=False), P.DRAIN),
    "mods_end_without_start": (lambda: C.mods_window(4, start=False), P.DEADLOCK),
    "mods_end_probe_before_producer_tail": (lambda: C.mods_pipeline(end_before_tail=True),
                                            P.DRAIN),
}


@pytest.mark.parametrize("name", sorted(CORRECT_MORE))
def test_more_correct_protocols_are_accepted(name):
    result = check(CORRECT_MORE[name]())
    assert result.ok, result.violation


@pytest.mark.parametrize("name", sorted(MUTANTS_MORE))
def test_more_mutants_are_rejected_with_the_right_property(name):
    build, prop = MUTANTS_MORE[name]
    result = check(build())
    assert not result.ok, f"{name} was accepted"
    assert result.violation.prop == prop, result.violation.headline()


@pytest.mark.parametrize("name", ["pingpong_2groups", "mods_around_tma_ws"])
def test_more_reductions_do_not_change_the_verdict(name):
    reduced, full = check(CORRECT_MORE[name]()), check(CORRECT_MORE[name](), por=False,
                                                       symmetry=False)
    assert reduced.ok and full.ok and reduced.states <= full.states


def test_cta_symmetry_halves_the_cluster_and_keeps_the_verdict():
    """The two CTAs of cluster_multicast run the same program up to renaming the CTA ranks
    of their multicast writes and remote releases.  Measured without partial-order reduction
    (with it, the round-indexed footprints leave few interleavings for symmetry to fold), over k = 1, 2: each
    instance's search is its own, so the ratio is per instance (k = 1..4 as well: 41,750 / 82,816 states, 4 s
    CPU of the suite)."""
    with_sym = check(C.cluster_multicast(), {"k": (1, 2)}, por=False)
    without = check(C.cluster_multicast(), {"k": (1, 2)}, por=False, symmetry=False)
    assert with_sym.ok and without.ok
    assert with_sym.states < 0.7 * without.states
    assert check(C.cluster_multicast()).ok
    bad = C.cluster_multicast(with_tail=False)
    assert check(bad).violation.prop == check(bad, symmetry=False).violation.prop == P.DRAIN


@pytest.mark.parametrize("name", ["seq_wrong_group_id", "mods_missing_end_probe",
                                  "mods_end_without_start"])
def test_more_mutants_are_rejected_without_reductions_too(name):
    build, prop = MUTANTS_MORE[name]
    assert check(build(), por=False, symmetry=False).violation.prop == prop
