"""Session 43's partial-order refinements (docs/model-checking.md, "Commuting arrivals" and "Causal windows"):
what another agent may do while a persistent set's agents stay put ends at its first wait that cannot pass
before their arrival, and arrivals of one round on one barrier commute.  Sound only with the guards the
document derives; each mutant below is one of the bug classes of test_checker_mutations.py whose property
follows from the PTX mbarrier semantics, searched with the windows active (the reduction applies to it) and
without any reduction: both must report the mutant's property.  Without the parity guard of
``Machine._required`` the reduced search reports ``producer_no_phase_flip`` as a deadlock, without its
count guard ``async_full_count_minus_one`` as an over-arrival."""

import pytest

from tileorch.analysis import catalog as C
from tileorch.analysis import machine
from tileorch.analysis import properties as P
from tileorch.analysis.explore import check, instances
from tileorch.analysis.machine import Machine

W = C.tma_warp_specialized

MUTANTS = {
    "producer_no_phase_flip": (lambda: W(2, 2, producer_flip=False), P.PARITY_ALIASING),
    "producer_no_phase_flip_3stages": (lambda: W(3, 1, producer_flip=False), P.PARITY_ALIASING),
    "consumer_no_phase_flip": (lambda: W(2, 2, consumer_flip=False), P.PARITY_ALIASING),
    "async_full_count_minus_one": (lambda: C.async_two_producers(full_count=1), P.READ_BEFORE_COMMIT),
    "empty_count_minus_one": (lambda: W(2, 2, empty_count=2 * C.WG - 1), P.OVER_ARRIVAL),
    "empty_count_plus_one": (lambda: W(2, 2, empty_count=2 * C.WG + 1), P.DEADLOCK),
    "cluster_empty_count_minus_one": (lambda: C.cluster_multicast(empty_count=1), P.OVER_ARRIVAL),
    "release_before_last_read": (lambda: W(2, 2, release_first=True), P.RELEASE_BEFORE_READ),
    "commit_without_expect_tx": (lambda: W(2, 2, expect_tx=False), P.READ_BEFORE_COMMIT),
    "tma_copy_short_of_expect_tx": (lambda: W(2, 2, copy_bytes=512), P.DEADLOCK),
}


def _windows_apply(protocol) -> bool:
    """Some wait of the protocol's first instance bounds a window (a required arrival)."""
    m = Machine(protocol, instances(protocol)[0])
    return any(req for per_agent in m.required for req in per_agent)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_reduced_search_finds_what_the_full_search_finds(name):
    build, prop = MUTANTS[name]
    protocol = build()
    assert _windows_apply(protocol)
    reduced, full = check(protocol), check(protocol, por=False)
    assert not full.ok and full.violation.prop == prop, full.violation
    assert not reduced.ok and reduced.violation.prop == prop, reduced.violation


def test_a_wait_whose_parity_names_another_phase_bounds_no_window():
    """Without the phase flip the producer's second-pass acquire waits with the parity of the phase before the
    one it needs: it can pass before the consumers' releases (the bug), so it must not end a window."""
    good, bad = W(2, 2), W(2, 2, producer_flip=False)
    values = {"k": 3}
    producer = [i for i, a in enumerate(good.agents) if a.role == "producer"][0]

    def acquires_requiring(protocol):
        m = Machine(protocol, values)
        return [pc for pc, req in enumerate(m.required[producer]) if req]

    assert acquires_requiring(good) and not acquires_requiring(bad)


def test_arrivals_commute_only_where_rounds_key_the_barrier():
    """A pipeline probed with try_wait is not round-ordered (its arrival objects are per slot, rounds share
    them): its arrivals stay ordinary writes; on the round-ordered ring of the same kernel they are arrivals."""
    ordered = Machine(W(2, 2), {"k": 3})
    probed = Machine(W(2, 2, use_try=True), {"k": 3})
    assert ordered.round_pipes and not probed.round_pipes
    assert any(a for per_agent in ordered.arrives for a in per_agent)
    assert not any(a for per_agent in probed.arrives for a in per_agent)


@pytest.mark.parametrize("build", [lambda: W(3, 2, trips=(1, 2, 4, 7)), lambda: C.async_two_producers()],
                         ids=["ws_3stages", "two_producers"])
def test_windows_explore_fewer_states_with_the_same_proof(build, monkeypatch):
    """A bound on explored states, not a timing: the windows apply and at least halve the search (the cluster
    kernels' bound: test_checker_gemm.py's default GEMM)."""
    with_windows = check(build())
    monkeypatch.setattr(machine, "CAUSAL_WINDOWS", False)
    without = check(build())
    assert with_windows.ok and without.ok
    assert with_windows.states * 2 <= without.states, (with_windows.states, without.states)


def test_the_reduction_switch_reaches_parallel_workers_and_the_proof_memo(monkeypatch):
    """``machine.CAUSAL_WINDOWS`` off (as the tests comparing earlier sessions' state counts set it) holds in the
    worker processes of a parallel check (they used to search with the windows on) and is part of the test
    suite's proof-memo key (a memoised proof with windows used to answer a check without them)."""
    from tileorch.testing.check_memo import check_key

    protocol = W(3, 2, trips=(1, 2, 4, 7))
    with_key = check_key(protocol, {})
    monkeypatch.setattr(machine, "CAUSAL_WINDOWS", False)
    assert check_key(protocol, {}) != with_key
    serial = check(protocol)
    parallel = check(protocol, jobs=2)
    assert serial.ok and parallel.ok and len(serial.instances) > 1
    assert (parallel.states, parallel.transitions) == (serial.states, serial.transitions)
