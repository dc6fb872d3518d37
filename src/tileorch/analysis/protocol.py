"""The abstract per-agent protocol the model checker explores.

A :class:`Protocol` is a set of :class:`Agent` s (a warp, a warp group or a CTA of the cluster,
with its role, executor mask and thread count) sharing :class:`Pipeline` stage rings, named
barriers and a global-memory workspace.  Each agent runs a straight-line program of the ops
below; :class:`Loop` repeats a body a fixed or parametric number of times (the scheduler loop
over tiles and the mainloop over k tiles).  Parametric trip counts name an entry of
``Protocol.params``; the checker instantiates each value in turn.

:class:`Choice` runs one of its branches, picked nondeterministically (an ``scf.if`` whose
condition the front end cannot decide); :class:`Trip` is a parametric trip count with a lower
bound and a step (``scf.for %i = %lo to %n step %s``).

Every op may carry ``origin`` (the IR operation it came from) for located diagnostics; it does
not take part in equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union


@dataclass(frozen=True)
class Pipeline:
    """A ring of ``stages`` slots with a full and an empty barrier per slot, in every CTA.

    mbarrier pipelines (``named_ids`` None): ``full_count`` / ``empty_count`` are the arrival
    counts given to ``mbarrier.init``.  Named-barrier pipelines: slot s uses named barriers
    ``named_ids[0] + s`` (full) and ``named_ids[1] + s`` (empty) with ``full_count`` /
    ``empty_count`` threads per generation; commit and release are ``bar.arrive`` by the agent's
    threads, consumer wait and producer acquire ``bar.sync`` (the acquire skips the first pass
    over the ring, ``count < stages``).  ``stage_bytes`` is how many bytes must land in a slot
    per round (0: the producer writes the slot synchronously before committing).
    """

    name: str
    stages: int
    full_count: int = 1
    empty_count: int = 1
    stage_bytes: int = 0
    named_ids: tuple[int, int] | None = None
    origin: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class SeqBar:
    """An ``OrderedSequenceBarrier<depth, length>`` in every CTA: ``depth`` x ``length``
    mbarriers ``bar[d][g]``, each expecting ``group_size`` arrivals (cutlass-semantics.md §2.7)."""

    name: str
    depth: int
    length: int
    group_size: int
    origin: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Trip:
    """``ceil((values[param] - lower) / step)`` iterations (at least 0), at most ``cap``
    (a peeled first iteration, or a branch taken when the loop ran: ``cap = 1``)."""

    param: str
    lower: int = 0
    step: int = 1
    cap: int | None = None

    def count(self, values: dict[str, int]) -> int:
        n = max(0, -(-(values[self.param] - self.lower) // self.step))
        return n if self.cap is None else min(n, self.cap)


@dataclass(frozen=True)
class Op:
    origin: object = field(default=None, compare=False, repr=False, kw_only=True)


# --- pipeline ops --------------------------------------------------------------------------

@dataclass(frozen=True)
class _SlotOp(Op):
    """An op of an agent on the slot ``state.index`` of pipeline ``pipe``."""

    pipe: str
    state: str


@dataclass(frozen=True)
class ProducerAcquire(_SlotOp):
    """Blocking wait on the empty barrier of the state's slot with the state's phase.
    With ``token`` it only waits when that token says "not done". ``tail`` marks the drain."""

    token: str | None = None
    tail: bool = False


@dataclass(frozen=True)
class _StageProbe(_SlotOp):
    """A non-blocking probe of the state's slot barrier; ``token`` names its result."""

    token: str


class ProducerTryAcquire(_StageProbe):
    """Probe of the empty barrier (``producer_try_acquire``)."""


@dataclass(frozen=True)
class ProducerWrite(_SlotOp):
    """The producer body filling the slot: ``nbytes`` > 0 is an async (TMA) copy whose bytes
    later complete_tx on the full barrier of each destination CTA; 0 is a synchronous store."""

    nbytes: int = 0
    dst: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ProducerCommit(_SlotOp):
    """``arrive`` (``tx_bytes`` == 0) or ``arrive.expect_tx`` on the full barrier."""

    tx_bytes: int = 0
    arrivals: int = 1
    dst: tuple[int, ...] | None = None


@dataclass(frozen=True)
class ConsumerWait(_SlotOp):
    """Blocking wait on the full barrier (``barrier`` names the side actually waited on).

    ``again``: the wait may name a round the agent already holds (a full-side wait it passed
    and has not released: a second wait on the same phase, as a consumer that waits for tile
    ``j + 1`` ahead and for tile ``j`` again at the next iteration's top does): then it passes
    on that round's completed phase and acquires nothing (the checker reports a wait on a
    round already released, or one whose barrier moved past it); otherwise it acquires the
    slot's next round as any wait.  Which one is decided per step from the state's round."""

    token: str | None = None
    barrier: str = "full"
    again: bool = False


class ConsumerTryWait(_StageProbe):
    """Probe of the full barrier (``consumer_try_wait``)."""


class ConsumerRead(_SlotOp):
    """The consumer body reading the slot."""


@dataclass(frozen=True)
class ConsumerRelease(_SlotOp):
    """``arrivals`` arrives on the empty barrier of each destination CTA."""

    arrivals: int = 1
    dst: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Advance(Op):
    """``pipeline_state_increment`` ``n`` times; ``flip`` = flip the phase on wrap."""

    state: str
    n: int = 1
    flip: bool = True


# --- named barriers ------------------------------------------------------------------------

@dataclass(frozen=True)
class _NamedBarrierOp(Op):
    """A ``bar.*`` instruction on named barrier ``barrier`` for ``count`` threads."""

    barrier: int
    count: int


class BarSync(_NamedBarrierOp):
    """``bar.sync id, count`` with the agent's threads (arrive and wait)."""


class BarArrive(_NamedBarrierOp):
    """``bar.arrive id, count`` with the agent's threads (no wait)."""


# --- ordered sequence barriers and the cluster barrier -------------------------------------

@dataclass(frozen=True)
class _SeqBarOp(Op):
    """A step of group ``group`` on sequence barrier ``bar`` at the cursor ``state``."""

    bar: str
    state: str
    group: int


class SeqWait(_SeqBarOp):
    """``OrderedSequenceBarrier::wait``: wait ``bar[state.index][group]`` with ``state.phase``."""


class SeqArrive(_SeqBarOp):
    """``arrive``: the agent's threads arrive on ``bar[state.index][(group + 1) % length]``
    (the state is then advanced by a separate :class:`Advance`)."""


@dataclass(frozen=True)
class ClusterArrive(Op):
    """``barrier.cluster.arrive``: every thread of the agent arrives (MODS start probe).
    Its default semantics is release: the agent's earlier partial stores become visible to
    an agent whose :class:`ClusterWait` (acquire) completes this phase; ``relaxed`` =
    ``barrier.cluster.arrive.relaxed`` (no ordering)."""

    relaxed: bool = False


@dataclass(frozen=True)
class ClusterWait(Op):
    """``barrier.cluster.wait``: wait until every non-exited thread of the cluster arrived
    (acquire: afterwards the agent sees what the arrivals released).
    ``drain`` marks the MODS end probe, which must come after the pipeline drained."""

    drain: bool = False


# --- Stream-K fix-up over global memory ----------------------------------------------------

@dataclass(frozen=True)
class _PartialOp(Op):
    """An access of the agent's accumulator to workspace buffer ``key``."""

    key: str


class StorePartial(_PartialOp):
    """Plain store of the agent's accumulator into workspace buffer ``key`` (overwrite)."""


class ReducePartial(_PartialOp):
    """Atomic add of the agent's accumulator into workspace buffer ``key``."""


class LoadAddPartial(_PartialOp):
    """Load workspace buffer ``key`` and add it to the agent's accumulator."""


@dataclass(frozen=True)
class CounterAdd(Op):
    """``red.add`` on a workspace counter; ``release`` = preceded by ``fence.acq_rel``."""

    counter: str
    value: int = 1
    release: bool = True


@dataclass(frozen=True)
class CounterWait(Op):
    """Spin until the counter is ``== value`` (``cmp="eq"``) or ``>= value`` (``"ge"``);
    ``acquire`` = the loads are ``ld.acquire``."""

    counter: str
    value: int
    cmp: str = "eq"
    acquire: bool = True


@dataclass(frozen=True)
class Accumulate(Op):
    """The agent's mainloop of its next piece: its accumulator becomes partial ``label``."""

    label: object


@dataclass(frozen=True)
class Epilogue(Op):
    """Write the accumulator of output tile ``tile`` (records the functional result)."""

    tile: str = "tile"


@dataclass(frozen=True)
class Loop(Op):
    trip: Union[int, str, Trip]
    body: tuple[Op, ...]


@dataclass(frozen=True)
class Choice(Op):
    """Run exactly one of ``branches`` (nondeterministically)."""

    branches: tuple[tuple[Op, ...], ...]


@dataclass(frozen=True)
class _FlatControl(Op):
    """A control transfer of a flattened program, ``skip`` ops ahead."""

    skip: int


class Branch(_FlatControl):
    """Flattened :class:`Choice`: go on at pc + 1 or at pc + ``skip``."""


class Jump(_FlatControl):
    """Flattened end of a branch: continue at pc + ``skip`` (takes no step)."""


@dataclass(frozen=True)
class StateDecl:
    """A pipeline-state variable of an agent, starting at index 0, count 0, ``phase``."""

    name: str
    pipe: str
    phase: int = 0
    origin: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Agent:
    name: str
    role: str
    program: tuple[Op, ...]
    states: tuple[StateDecl, ...] = ()
    threads: int = 32
    mask: int = 0
    cta: int = 0
    partial: object = None
    origin: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Protocol:
    """Agents + shared objects. ``params`` maps a trip-count name to the values to check.

    ``deterministic`` selects the Stream-K deterministic reduction mode (the reduced result may
    not depend on the schedule); ``partials`` lists the partial labels each output tile must
    contain exactly once.  ``notes`` are the located assumptions the front end made (the
    transaction bytes of a producer whose copies are not in the IR); the checker reports them."""

    name: str
    pipelines: tuple[Pipeline, ...]
    agents: tuple[Agent, ...]
    params: tuple[tuple[str, tuple[int, ...]], ...] = ()
    seqbars: tuple[SeqBar, ...] = ()
    ctas: int = 1
    deterministic: bool = False
    partials: tuple[tuple[str, tuple[object, ...]], ...] = ()
    notes: tuple[str, ...] = field(default=(), compare=False)
    origin: object = field(default=None, compare=False, repr=False)
    cluster_agents: tuple[str, ...] | None = None
    """The agents whose cluster barrier the protocol models (None: all of them); the others
    are CTAs of other clusters, whose own cluster barriers are not part of the protocol."""

    def pipeline(self, name: str) -> Pipeline:
        for p in self.pipelines:
            if p.name == name:
                return p
        raise KeyError(name)

    def ring(self, name: str) -> int:
        """Slots of the ring a state variable cycles over (pipeline stages or seq_bar depth)."""
        for p in self.pipelines:
            if p.name == name:
                return p.stages
        for b in self.seqbars:
            if b.name == name:
                return b.depth
        raise KeyError(name)


def trip_count(trip: Union[int, str, Trip], values: dict[str, int]) -> int:
    if isinstance(trip, Trip):
        return trip.count(values)
    return values[trip] if isinstance(trip, str) else trip


def unroll(ops: tuple[Op, ...], values: dict[str, int]) -> list[Op]:
    """Flatten :class:`Loop` s with the trip counts of ``values`` and :class:`Choice` s into
    :class:`Branch` / :class:`Jump` (forward jumps only)."""
    flat: list[Op] = []
    for op in ops:
        if isinstance(op, Loop):
            for _ in range(trip_count(op.trip, values)):
                flat.extend(unroll(op.body, values))
        elif isinstance(op, Choice):
            arms = [unroll(b, values) for b in op.branches]
            if all(arm == arms[0] for arm in arms):
                flat.extend(arms[0])
                continue
            for n, arm in enumerate(arms):
                rest = sum(len(a) + 2 for a in arms[n + 1:]) - 1
                if n < len(arms) - 1:
                    flat.append(Branch(len(arm) + 2, origin=op.origin))
                flat.extend(arm)
                if n < len(arms) - 1:
                    flat.append(Jump(rest, origin=op.origin))
        else:
            flat.append(op)
    return flat


def tail(pipe: str, state: str, stages: int, origin: object = None) -> tuple[Op, ...]:
    """``producer_tail``: wait on ``stages`` consecutive empty phases from the final state."""
    ops: list[Op] = []
    for _ in range(stages):
        ops.append(ProducerAcquire(pipe, state, tail=True, origin=origin))
        ops.append(Advance(state, origin=origin))
    return tuple(ops)
