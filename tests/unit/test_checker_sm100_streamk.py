"""The model checker on the SM100 Stream-K cluster fix-up (catalog.sm100_cluster_streamk;
docs/blackwell.md): the cluster barrier's release/acquire orders the peers' shared-memory partials
before the leader's DSMEM reads, every partial of the tile is reduced once; mutants that drop
the release or the barrier are rejected with the fix-up-order property.  Expected verdicts follow
from the PTX rules (barrier.cluster.arrive has release semantics unless .relaxed, wait has acquire
semantics), not from the checker's output."""

from dataclasses import replace
from pathlib import Path

import pytest

from tileorch.analysis import catalog as C
from tileorch.analysis import properties as P
from tileorch.analysis.explore import check
from tileorch.analysis.extract import load

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("size,piece", [(2, 0), (2, 1), (2, 2), (3, 0), (3, 1), (3, 2), (4, 2)])
def test_cluster_fixup_is_accepted(size, piece):
    result = check(C.sm100_cluster_streamk(size, piece))
    assert result.ok, result.violation
    assert result.states > 0


@pytest.mark.parametrize("mutant", ["relaxed_publish", "skip_first_barrier"])
@pytest.mark.parametrize("piece", [0, 2])
def test_unordered_partials_are_rejected(mutant, piece):
    result = check(C.sm100_cluster_streamk(2, piece, **{mutant: True}))
    assert not result.ok
    assert result.violation.prop == P.FIXUP_ORDER, result.violation.headline()
    assert result.trace


def test_other_clusters_do_not_join_this_clusters_barrier():
    # if the leaders of the other clusters counted on this cluster's barrier, the first split's
    # cluster would wait for the final split's leader to exit, which waits for its lock: deadlock
    proto = replace(C.sm100_cluster_streamk(2, 0), cluster_agents=None)
    result = check(proto)
    assert not result.ok and result.violation.prop == P.DEADLOCK


def test_reduction_does_not_change_the_verdict():
    proto = C.sm100_cluster_streamk(3, 1)
    reduced, full = check(proto, por=True), check(proto, por=False)
    assert reduced.ok and full.ok and reduced.states <= full.states


def test_example_kernel_checks_its_cluster_fixup():
    protocols, errors = load(str(ROOT / "examples" / "streamk_sm100a.mlir"))
    assert not errors
    assert [p.name for p in protocols] == [f"streamk_sm100.cluster_fixup{i}" for i in range(3)] + [
        "streamk_sm100.cluster_pieces"]
    for proto in protocols:
        result = check(proto)
        assert result.ok, result.violation
    assert all(len(p.cluster_agents) == 2 for p in protocols[:3])  # the 2x1 cluster of the example


@pytest.mark.parametrize("size,pieces", [(2, 2), (2, 3), (3, 2)])
def test_buffers_reused_by_the_next_piece(size, pieces):
    assert check(C.sm100_cluster_pieces(size, pieces)).ok


@pytest.mark.parametrize("size", [2, 3])
def test_without_the_second_barrier_the_next_piece_overwrites_an_unread_buffer(size):
    # a peer's store of the next piece's partial can land before the leader's DSMEM read of the
    # current one: the read is no longer ordered after the store it should see
    result = check(C.sm100_cluster_pieces(size, 2, skip_second_barrier=True))
    assert not result.ok and result.violation.prop == P.FIXUP_ORDER
    assert result.trace
