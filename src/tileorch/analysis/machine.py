"""A :class:`~tileorch.analysis.protocol.Protocol` instantiated for fixed trip counts, as a
transition system: hashable states, the enabled transitions of a state, their effects, the
property checks that belong to each transition, and the static footprint (shared objects read
and written) of every op that partial-order reduction needs.

State layout (plain tuples, so states hash fast)::

    (agents, barriers, inflight, landed, named, gmem, outputs, cluster_gen, seq_turns)
    agent = (pc, pstates, tokens, ghost, bar_wait, acc, unpublished, seen, cluster, seq_counts)

``barriers`` holds the pipelines' full/empty mbarriers (CTA-major), then the ``seq_bar``
mbarriers of every CTA.  ``named`` holds one named barrier per (CTA, id).  ``cluster_gen`` counts
completed ``barrier.cluster`` phases; an agent's ``cluster`` is the generation it arrived in
(-1: not arrived).  ``seq_turns`` holds, per (CTA, seq_bar, stage), ``(turn, holder, entered,
left)``: whose turn it is, which group is inside the stage and how many of its threads entered
and left; ``seq_counts`` holds per seq_bar mbarrier ``(waits passed, arrivals made)`` by the agent.

``pstates`` holds ``(index, phase, count)`` per pipeline-state variable.  ``ghost`` holds, per
(pipeline, slot), ``(acquired, done, unfinalized)``: how many rounds of the slot this agent
acquired (producer acquire / consumer wait), how many it committed or released, and whether a
``try_*`` said "not done" and was not finalized yet.  ``landed`` counts the bytes (or
synchronous writes) that reached each slot.  These ghosts are what the safety properties read.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter

from tileorch.analysis import properties as P
from tileorch.analysis.barriers import GlobalMemory, MBarrier, NamedBarrier
from tileorch.analysis.compiled import ALWAYS, PARITY, CompiledSteps
from tileorch.analysis.protocol import (Accumulate, Advance, Agent, BarArrive, BarSync, Branch, ClusterArrive,
                                        ClusterWait, ConsumerRead, ConsumerRelease, ConsumerTryWait, ConsumerWait,
                                        CounterAdd, CounterWait, Epilogue, Jump, LoadAddPartial, Op, ProducerAcquire,
                                        ProducerCommit, ProducerTryAcquire, ProducerWrite, Protocol, ReducePartial,
                                        SeqArrive, SeqWait, StorePartial, unroll)
from tileorch.analysis.symmetry import cta_permutations, permute_state

FULL, EMPTY = 0, 1
CAUSAL_WINDOWS = True
"""Partial-order reduction with causal windows and commuting arrivals (docs/model-checking.md; session 43).
False: the search as before them (the tests that compare state counts with earlier sessions' set it)."""
INVISIBLE = (Advance, ConsumerRead, Accumulate)
TOK_NONE, TOK_DONE, TOK_AGAIN = 0, 1, 2


@dataclass(frozen=True)
class Step:
    """One executed transition, for traces: who did what on which stage, and the outcome.
    ``detail`` (the touched barrier's state afterwards) is rendered only when printed."""

    actor: str
    action: Op | str
    stage: int | None = None
    phase: int | None = None
    detail: object = ""
    origin: object = None

    @property
    def op(self) -> str:
        return self.action if isinstance(self.action, str) else op_text(self.action)

    @property
    def barrier(self) -> str:
        return self.detail() if callable(self.detail) else self.detail


@dataclass
class Outcome:
    state: tuple | None
    step: Step
    violation: P.Violation | None = None


def op_text(op: Op) -> str:
    name = type(op).__name__
    fields = {k: v for k, v in vars(op).items()
              if k != "origin" and v is not None and v is not False}
    return f"{name}({', '.join(f'{k}={v}' for k, v in fields.items())})"


def _getter(indices: tuple[int, ...]):
    """A function picking ``indices`` from a tuple, as a tuple (also for 0 or 1 index)."""
    if len(indices) == 1:
        k = indices[0]
        return lambda t: (t[k],)
    if not indices:
        return lambda t: ()
    return itemgetter(*indices)


def flatten(acc: object) -> list:
    if isinstance(acc, tuple):
        return [leaf for part in acc for leaf in flatten(part)]
    return [] if acc is None else [acc]


class Machine:
    """The transition system of ``protocol`` with trip counts ``values``."""

    def __init__(self, protocol: Protocol, values: dict[str, int] | None = None,
                 symmetry: bool = True):
        self.protocol = protocol
        self.values = dict(values or {})
        self.fuse_invisible = True     # fire() runs an agent's invisible steps with it
        self.agents: tuple[Agent, ...] = protocol.agents
        self.programs = [unroll(a.program, self.values) for a in self.agents]
        self.pipe_index = {p.name: i for i, p in enumerate(protocol.pipelines)}
        self.stages = [p.stages for p in protocol.pipelines]
        self.ctas = protocol.ctas
        self.slot_base = []
        base = 0
        for s in self.stages:
            self.slot_base.append(base)
            base += s
        self.nslots = base
        self.seq_index = {b.name: i for i, b in enumerate(protocol.seqbars)}
        self.seq_base, self.turn_base = [], []
        nseq = nturn = 0
        for b in protocol.seqbars:
            self.seq_base.append(nseq)
            self.turn_base.append(nturn)
            nseq += b.depth * b.length
            nturn += b.depth
        self.nseq, self.nturn = nseq, nturn
        self.svar = [{d.name: i for i, d in enumerate(a.states)} for a in self.agents]
        self.ring = [[protocol.ring(d.pipe) for d in a.states] for a in self.agents]
        self.tokens = [self._token_names(prog) for prog in self.programs]
        self.uses_cluster = any(isinstance(op, (ClusterArrive, ClusterWait))
                                for prog in self.programs for op in prog)
        members = protocol.cluster_agents
        self.cluster_members = tuple(i for i, a in enumerate(self.agents)
                                     if members is None or a.name in members)
        self.next_pc = [[self._follow(prog, pc + 1) for pc in range(len(prog))]
                        for prog in self.programs]
        self.consumers = self._role_agents(ConsumerRead)
        self.writers = self._role_agents(ProducerWrite)
        traces = [self._slot_trace(i) for i in range(len(self.agents))]
        self.slots_at = [[at[0] for at in t] for t in traces]
        self.rounds_at = [[at[1] for at in t] for t in traces]
        self.named_op = [[self._named(i, pc) for pc in range(len(prog))]
                         for i, prog in enumerate(self.programs)]
        self.named_keys = sorted({n[0] for ops in self.named_op for n in ops if n is not None})
        self.named_at = {key: n for n, key in enumerate(self.named_keys)}
        self.object_bit: dict[tuple, int] = {}
        self.write_dsts = self._write_dsts()
        self.round_pipes = self._round_ordered_pipes()
        self.footprints = [[self._bits(self._footprint(i, pc)) for pc in range(len(prog))]
                           for i, prog in enumerate(self.programs)]
        self.arrives = [[self._bits((frozenset(), self._arrival_keys(i, pc)))[1] if CAUSAL_WINDOWS else 0
                         for pc in range(len(prog))] for i, prog in enumerate(self.programs)]
        self.parts = [self._parts(i) for i in range(len(self.agents))]
        self.suffix = [self._suffix(i) for i in range(len(self.agents))]
        self.required = self._required() if CAUSAL_WINDOWS else [[None] * len(p) for p in self.programs]
        self.requires_from = [{x for req in self.required[b] if req for x in req}
                              for b in range(len(self.agents))]
        self._window_memo: dict[tuple[int, int, int, int], tuple[int, int, int]] = {}
        # TMA issues touch no shared object (their bytes land in steps of their own) and check
        # only the agent's own ghost: fired with the agent's previous step, like INVISIBLE ops
        self.silent = [[isinstance(op, ProducerWrite) and self.footprints[i][pc] == (0, 0)
                        for pc, op in enumerate(prog)] for i, prog in enumerate(self.programs)]
        self._copy_bits: dict[tuple, int] = {}
        self._enabling_memo: dict[tuple[int, int, int], tuple[int, int]] = {}
        self.symmetry = self._symmetry_classes() if symmetry else []
        self.cta_perms = cta_permutations(self) if symmetry else []
        self._perm_getters = [
            (_getter(p.agents), _getter(p.barriers), _getter(p.landed), _getter(p.named),
             _getter(p.turns), p.pi) for p in self.cta_perms]
        self.compiled = CompiledSteps(self)
        self.is_branch = [[isinstance(op, Branch) for op in prog] for prog in self.programs]
        self._agent_choice = [("agent", i) for i in range(len(self.agents))]
        self._alt_choice = [("alt", i) for i in range(len(self.agents))]

    # --- static structure ----------------------------------------------------------------

    @staticmethod
    def _token_names(prog: list[Op]) -> dict[str, int]:
        names: dict[str, int] = {}
        for op in prog:
            tok = getattr(op, "token", None)
            if tok is not None and tok not in names:
                names[tok] = len(names)
        return names

    @staticmethod
    def _follow(prog: list[Op], pc: int) -> int:
        """``pc`` after skipping the :class:`Jump` s at it."""
        while pc < len(prog) and isinstance(prog[pc], Jump):
            pc += prog[pc].skip
        return pc

    def successors(self, i: int, pc: int) -> tuple[int, ...]:
        op = self.programs[i][pc]
        if isinstance(op, Branch):
            return (self.next_pc[i][pc], self._follow(self.programs[i], pc + op.skip))
        return (self.next_pc[i][pc],)

    def _dsts(self, agent: int, op: Op) -> tuple[int, ...]:
        dst = getattr(op, "dst", None)
        return (self.agents[agent].cta,) if dst is None else dst

    @staticmethod
    def write_shares(op: ProducerWrite, dsts: tuple[int, ...]) -> tuple[int, ...]:
        """Bytes the write lands in each destination CTA."""
        return op.nbytes if isinstance(op.nbytes, tuple) else (op.nbytes,) * len(dsts)

    def _role_agents(self, kind: type) -> dict[tuple[int, int], tuple[int, ...]]:
        """(pipe, cta) -> agents whose program has a ``kind`` op on that pipe for that CTA."""
        table: dict[tuple[int, int], set[int]] = {}
        for i, prog in enumerate(self.programs):
            for op in prog:
                if isinstance(op, kind):
                    for d in self._dsts(i, op):
                        table.setdefault((self.pipe_index[op.pipe], d), set()).add(i)
        return {k: tuple(sorted(v)) for k, v in table.items()}

    def _slot_trace(self, agent: int) -> list[tuple[int | None, int | None]]:
        """The (slot, round) each op of the agent touches: round = the state's count divided
        by the ring size.  States evolve only by Advance, and every branch of a choice
        advances each state by the same amount (the front end equalises them), so the count
        at a pc does not depend on the path to it."""
        a = self.agents[agent]
        prog = self.programs[agent]
        at: dict[int, tuple[int, ...]] = {0: (0,) * len(a.states)}
        out: list[tuple[int | None, int | None]] = [(None, None)] * len(prog)
        for pc, op in enumerate(prog):
            if pc not in at:
                continue
            count = list(at[pc])
            state = getattr(op, "state", None)
            if state is not None and not isinstance(op, Advance):
                v = self.svar[agent][state]
                out[pc] = divmod(count[v], self.ring[agent][v])[::-1]
            if isinstance(op, Advance):
                count[self.svar[agent][op.state]] += op.n
            for nxt in self.successors(agent, pc):
                at.setdefault(nxt, tuple(count))
        return out

    def _named(self, agent: int, pc: int) -> tuple[tuple[int, int], int] | None:
        """``((cta, id), thread count)`` of the named barrier the op at ``pc`` arrives on:
        ``bar.sync`` / ``bar.arrive``, or a handshake of a named-barrier pipeline (on the id
        of the slot it touches, which is static: see :meth:`_slot_trace`)."""
        op = self.programs[agent][pc]
        cta = self.agents[agent].cta
        if isinstance(op, (BarSync, BarArrive)):
            return (cta, op.barrier), op.count
        if not isinstance(op, (ProducerAcquire, ProducerCommit, ConsumerWait, ConsumerTryWait,
                               ConsumerRelease)):
            return None
        spec = self.protocol.pipeline(op.pipe)
        if spec.named_ids is None:
            return None
        if isinstance(op, ConsumerTryWait):
            raise ValueError(f"{op.pipe}: a named-barrier pipeline cannot be probed by "
                             "consumer_try_wait")
        full = isinstance(op, ProducerCommit) or (isinstance(op, ConsumerWait)
                                                  and op.barrier == "full")
        side = FULL if full else EMPTY
        count = spec.full_count if full else spec.empty_count
        return (cta, spec.named_ids[side] + self.slots_at[agent][pc]), count

    def _ea_key(self, pipe: str, slot: int, rnd: int) -> tuple:
        """The part of a mbarrier-arrival object's key after (kind, pipe, cta): the slot, and
        the round on a pipeline whose rounds are causally ordered (:meth:`_round_ordered_pipes`)."""
        return (slot, rnd) if pipe in self.round_pipes else (slot,)

    def _round_ordered_pipes(self) -> frozenset[str]:
        """The mbarrier pipelines whose arrivals may be indexed by round in the footprints.

        On such a pipeline, every run without a violation orders the handshakes of one slot
        as ``acquire(r) < commit(r) < wait(r) < release(r) < acquire(r + 1)`` for every
        producer and every consumer it serves: a commit lands in its own round's phase (else
        ``over-arrival``), a wait passes only when exactly its round's phase completed (else
        ``parity-aliasing``), and a producer's acquire of round r + 1 checks that every
        consumer of every CTA it fills released round r (else ``write-before-release``).  So a
        handshake of round r and one of another round on the same barrier are never both
        pending in a violation-free run: they are independent, and partial-order reduction
        need not interleave them.  The ordering rests on static facts checked here; a pipeline
        that lacks one keeps slot-only keys (every round dependent on every other):

        * no branches in any program, no ``try_*`` ops or tokens, no wait on the empty side,
          no named barriers;
        * per agent and slot, the producer side is ``acquire(0) commit(0) acquire(1) ...``
          (tail acquires last, never committed) and the consumer side ``wait(0) release(0)
          wait(1) ...``, rounds consecutive from 0 (a :attr:`ConsumerWait.again` wait right
          after the wait of the same round is that round's: it lies between the round's wait
          and release, which the step checks);
        * a commit arrives only on CTAs the committing agent writes, and every agent that waits
          on a CTA it commits to, or releases onto a CTA it acquires on, is a reader of a CTA
          whose writes it issues (so its acquire's ``write-before-release`` check covers it).
        """
        if any(isinstance(op, Branch) for prog in self.programs for op in prog):
            return frozenset()
        out = set()
        for spec in self.protocol.pipelines:
            if spec.named_ids is None and self._rounds_ordered(spec.name):
                out.add(spec.name)
        return frozenset(out)

    def _rounds_ordered(self, pipe: str) -> bool:
        p = self.pipe_index[pipe]
        waiters: dict[int, set[int]] = {}      # CTA -> agents waiting on its full barriers
        releasers: dict[int, set[int]] = {}    # CTA -> agents releasing onto its empty barriers
        acquirers, committers = [], []
        for i, prog in enumerate(self.programs):
            side: dict[tuple[str, int], list] = {}
            for pc, op in enumerate(prog):
                if getattr(op, "pipe", None) != pipe:
                    continue
                if isinstance(op, (ProducerTryAcquire, ConsumerTryWait)) or \
                        getattr(op, "token", None) is not None:
                    return False
                slot, rnd = self.slots_at[i][pc], self.rounds_at[i][pc]
                if isinstance(op, ProducerAcquire):
                    seq = side.setdefault(("p", slot), [])
                    if (seq and seq[-1][0] != "commit") or len([e for e in seq if e[0] != "commit"]) != rnd:
                        return False
                    seq.append(("tail" if op.tail else "acq", rnd))
                    if not op.tail:
                        acquirers.append(i)
                elif isinstance(op, ProducerCommit):
                    seq = side.setdefault(("p", slot), [])
                    if not seq or seq[-1] != ("acq", rnd):
                        return False
                    seq.append(("commit", rnd))
                    dsts = self._dsts(i, op)
                    if not set(dsts) <= set(self.write_dsts.get((i, p), ())):
                        return False
                    committers.append((i, dsts))
                elif isinstance(op, ConsumerWait):
                    if op.barrier != "full":
                        return False
                    seq = side.setdefault(("c", slot), [])
                    if op.again and seq and seq[-1] == ("wait", rnd):
                        continue  # a second wait on the round it holds (checked when it runs)
                    if (seq and seq[-1][0] != "rel") or len(seq) // 2 != rnd:
                        return False
                    seq.append(("wait", rnd))
                    waiters.setdefault(self.agents[i].cta, set()).add(i)
                elif isinstance(op, ConsumerRelease):
                    seq = side.setdefault(("c", slot), [])
                    if not seq or seq[-1] != ("wait", rnd):
                        return False
                    seq.append(("rel", rnd))
                    for d in self._dsts(i, op):
                        releasers.setdefault(d, set()).add(i)

        def served(a: int) -> set[int]:
            return {c for d in self.write_dsts.get((a, p), ())
                    for c in self.consumers.get((p, d), ())}

        for a in set(acquirers):
            ctas = {self.agents[a].cta, *self.write_dsts.get((a, p), ())}
            if not set().union(*(releasers.get(d, set()) for d in ctas)) <= served(a):
                return False
        for a, dsts in committers:
            if not set().union(*(waiters.get(d, set()) for d in dsts)) <= served(a):
                return False
        return True

    def _footprint(self, agent: int, pc: int) -> tuple[frozenset, frozenset]:
        op = self.programs[agent][pc]
        cta = self.agents[agent].cta
        slot, rnd = self.slots_at[agent][pc], self.rounds_at[agent][pc]
        reads: set = set()
        writes: set = set()
        named = self.named_op[agent][pc]
        if named is not None:
            reads.add(("N",) + named[0])
            writes.add(("N",) + named[0])
            if isinstance(op, ConsumerWait):      # the landed-data check of a full-side wait
                reads.update({("FT", op.pipe, cta, slot, rnd), ("FT", op.pipe, cta, slot, rnd + 1)})
            elif isinstance(op, ProducerCommit):  # bar.arrive may complete before bytes land
                writes.add(("FT", op.pipe, cta, slot, rnd))
        elif isinstance(op, (ProducerAcquire, ProducerTryAcquire)):
            ea = self._ea_key(op.pipe, slot, rnd - 1)
            reads.add(("EA", op.pipe, cta) + ea)
            reads.update(("EA", op.pipe, d) + ea
                         for d in self.write_dsts.get((agent, self.pipe_index[op.pipe]), ()))
        elif isinstance(op, ProducerWrite) and op.nbytes == 0:
            writes.update(("FT", op.pipe, d, slot, rnd) for d in self._dsts(agent, op))
        elif isinstance(op, ProducerCommit):
            writes.update(("FA", op.pipe, d) + self._ea_key(op.pipe, slot, rnd)
                          for d in self._dsts(agent, op))
            if not op.tx_bytes:     # a plain arrive may complete the phase before the bytes land
                writes.update(("FT", op.pipe, d, slot, rnd) for d in self._dsts(agent, op))
        elif isinstance(op, (ConsumerWait, ConsumerTryWait)):
            if getattr(op, "barrier", "full") == "empty":
                reads.add(("EA", op.pipe, cta, slot))
            else:
                reads.update({("FA", op.pipe, cta) + self._ea_key(op.pipe, slot, rnd),
                              ("FT", op.pipe, cta, slot, rnd)})
                if op.pipe not in self.round_pipes:    # the next round's bytes: ordered after
                    reads.add(("FT", op.pipe, cta, slot, rnd + 1))
        elif isinstance(op, ConsumerRelease):
            writes.update(("EA", op.pipe, d) + self._ea_key(op.pipe, slot, rnd)
                          for d in self._dsts(agent, op))
        elif isinstance(op, SeqWait):
            length = self.protocol.seqbars[self.seq_index[op.bar]].length
            reads.add(("Q", op.bar, cta, slot * length + op.group))
            writes.add(("QT", op.bar, cta, slot))
        elif isinstance(op, SeqArrive):
            length = self.protocol.seqbars[self.seq_index[op.bar]].length
            writes.add(("Q", op.bar, cta, slot * length + (op.group + 1) % length))
            writes.add(("QT", op.bar, cta, slot))
        elif isinstance(op, (ClusterArrive, ClusterWait)):
            reads.add(("C",))
            writes.add(("C",))
            if isinstance(op, ClusterArrive) and not op.relaxed:
                writes.add(("G",))      # release: publishes the agent's partial stores
            elif isinstance(op, ClusterWait):
                reads.add(("G",))       # acquire: snapshots the published partials
        elif isinstance(op, (StorePartial, ReducePartial, CounterAdd)):
            writes.add(("G",))
        elif isinstance(op, (LoadAddPartial, CounterWait)):
            reads.add(("G",))
        elif isinstance(op, Epilogue):
            writes.add(("OUT", op.tile))
        if (self.uses_cluster and agent in self.cluster_members
                and len(self.programs[agent]) in self.successors(agent, pc)):
            writes.add(("C",))      # the agent may exit here: a cluster wait may now pass
        return frozenset(reads), frozenset(writes)

    def _bit(self, key: tuple) -> int:
        return 1 << self.object_bit.setdefault(key, len(self.object_bit))

    def _bits(self, fp: tuple[frozenset, frozenset]) -> tuple[int, int]:
        """A (reads, writes) footprint as bit sets over the shared objects."""
        r = w = 0
        for key in fp[0]:
            r |= self._bit(key)
        for key in fp[1]:
            w |= self._bit(key)
        return r, w

    def _write_dsts(self) -> dict[tuple[int, int], tuple[int, ...]]:
        """(agent, pipe) -> the CTAs whose slots the agent's writes on that pipe fill."""
        table: dict[tuple[int, int], set[int]] = {}
        for i, prog in enumerate(self.programs):
            for op in prog:
                if isinstance(op, ProducerWrite):
                    key = (i, self.pipe_index[op.pipe])
                    table.setdefault(key, set()).update(self._dsts(i, op))
        return {k: tuple(sorted(v)) for k, v in table.items()}

    def _arrival_keys(self, agent: int, pc: int) -> frozenset:
        """The objects the op at ``pc`` writes only by *arriving* on a mbarrier of a round-ordered
        pipeline (a commit's full-barrier arrival, a release's empty-barrier arrivals): keyed by
        (slot, round), so two arrivals on one such object by different agents are arrivals of one
        round on one barrier, which commute (docs/model-checking.md, "Commuting arrivals")."""
        op = self.programs[agent][pc]
        if not isinstance(op, (ProducerCommit, ConsumerRelease)) or op.pipe not in self.round_pipes \
                or self.named_op[agent][pc] is not None or op.arrivals < 1:
            return frozenset()
        kind = "FA" if isinstance(op, ProducerCommit) else "EA"
        key = self._ea_key(op.pipe, self.slots_at[agent][pc], self.rounds_at[agent][pc])
        return frozenset((kind, op.pipe, d) + key for d in self._dsts(agent, op))

    def _parts(self, agent: int) -> list[tuple[int, int, int]]:
        """Per pc, ``(reads, other writes, arrivals)`` of the op and of the landings of the TMA
        copies it issues (the part of the agent's future a window or suffix unites)."""
        out = []
        for pc, op in enumerate(self.programs[agent]):
            r, w = self.footprints[agent][pc]
            a = self.arrives[agent][pc]
            wn = w & ~a
            if isinstance(op, ProducerWrite) and op.nbytes:
                slot, rnd = self.slots_at[agent][pc], self.rounds_at[agent][pc]
                for d in self._dsts(agent, op):
                    wn |= self._bit(("FT", op.pipe, d, slot, rnd))
            out.append((r, wn, a))
        return out

    def _suffix(self, agent: int) -> list[tuple[int, int, int]]:
        """Union of the footprints of the ops from each pc on (every later op, so a superset
        of what any path through forward branches executes), including the complete_tx of
        the TMA copies those ops will issue: ``(reads, other writes, arrivals)``."""
        parts = self.parts[agent]
        out = [(0, 0, 0)] * (len(parts) + 1)
        for pc in range(len(parts) - 1, -1, -1):
            r, wn, a = parts[pc]
            R, WN, A = out[pc + 1]
            out[pc] = (R | r, WN | wn, A | a)
        return out

    def _phase_trace(self, agent: int) -> list[int | None]:
        """The phase bit of the state each op of a branch-free program uses (as :meth:`_slot_trace`)."""
        a = self.agents[agent]
        phases = [d.phase for d in a.states]
        index = [0] * len(a.states)
        out: list[int | None] = []
        for op in self.programs[agent]:
            state = getattr(op, "state", None)
            v = None if state is None else self.svar[agent][state]
            out.append(None if v is None or isinstance(op, Advance) else phases[v])
            if isinstance(op, Advance):
                for _ in range(op.n):
                    index[v] += 1
                    if index[v] == self.ring[agent][v]:
                        index[v] = 0
                        phases[v] ^= 1 if op.flip else 0
        return out

    def _required(self) -> list[list[dict[int, int] | None]]:
        """Per agent b and pc: for a parity wait of a round-ordered pipeline, ``{x: pc}``, the last op of
        agent x (x != b) arriving on the waited barrier in the waited phase without which that phase
        cannot complete (the other possible arrivals of the round count fewer than the barrier
        expects); None elsewhere.  In a run without a violation such a wait passes only after that
        arrival (docs/model-checking.md, "Causal windows"), so the wait and b's later ops cannot
        happen while x has not executed it."""
        out: list[list[dict[int, int] | None]] = [[None] * len(p) for p in self.programs]
        if not self.round_pipes:
            return out
        arrivals: dict[tuple, list[tuple[int, int, int]]] = {}
        for i, prog in enumerate(self.programs):
            for pc, op in enumerate(prog):
                if isinstance(op, (ProducerCommit, ConsumerRelease)) and op.pipe in self.round_pipes:
                    side = FULL if isinstance(op, ProducerCommit) else EMPTY
                    for d in self._dsts(i, op):
                        key = (op.pipe, d, side, self.slots_at[i][pc], self.rounds_at[i][pc])
                        arrivals.setdefault(key, []).append((i, pc, op.arrivals))
        for b, prog in enumerate(self.programs):
            phases = self._phase_trace(b)
            for pc, op in enumerate(prog):
                if getattr(op, "pipe", None) not in self.round_pipes or getattr(op, "token", None) is not None \
                        or self.named_op[b][pc] is not None:
                    continue
                if isinstance(op, ProducerAcquire):
                    side, phase_index = EMPTY, self.rounds_at[b][pc] - 1
                elif isinstance(op, ConsumerWait) and op.barrier == "full" and not op.again:
                    side, phase_index = FULL, self.rounds_at[b][pc]
                else:
                    continue
                # the wait passes only once phase `phase_index` completed: its parity names that phase
                if phase_index < 0 or phases[pc] != phase_index & 1:
                    continue
                spec = self.protocol.pipeline(op.pipe)
                expected = spec.full_count if side == FULL else spec.empty_count
                if expected <= 0:
                    continue
                slot = self.slots_at[b][pc]
                cands = arrivals.get((op.pipe, self.agents[b].cta, side, slot, phase_index), [])
                total = sum(c for _a, _pc, c in cands)
                need: dict[int, int] = {}
                for x, xpc, c in cands:
                    if x != b and total - c < expected:
                        need[x] = max(need.get(x, -1), xpc)
                out[b][pc] = need or None
        return out

    def _window(self, b: int, pcb: int, x: int, pcx: int) -> tuple[int, int, int]:
        """``(reads, other writes, arrivals)`` of what agent b (at ``pcb``) may still do, and the
        copies it may issue, while agent x stays at ``pcx``: b's ops up to its first wait that
        cannot pass before an op of x at ``pcx`` or later (:meth:`_required`)."""
        if x not in self.requires_from[b]:
            return self.suffix[b][pcb]
        key = (b, pcb, x, pcx)
        got = self._window_memo.get(key)
        if got is None:
            req, parts = self.required[b], self.parts[b]
            R = WN = A = 0
            for pc in range(pcb, len(parts)):
                need = req[pc]
                if need is not None and need.get(x, -1) >= pcx:
                    break
                r, wn, a = parts[pc]
                R, WN, A = R | r, WN | wn, A | a
            got = self._window_memo[key] = (R, WN, A)
        return got

    def _symmetry_classes(self) -> list[tuple[int, ...]]:
        groups: dict[tuple, list[int]] = {}
        for i, a in enumerate(self.agents):
            key = (a.role, a.states, a.threads, a.cta, repr(a.partial), tuple(self.programs[i]))
            groups.setdefault(key, []).append(i)
        return [tuple(g) for g in groups.values() if len(g) > 1]

    # --- states --------------------------------------------------------------------------

    def barrier_slot(self, pipe: int, cta: int, side: int, slot: int) -> int:
        return ((cta * 2 + side) * self.nslots) + self.slot_base[pipe] + slot

    def seq_slot(self, bar: int, cta: int, flat: int) -> int:
        """Index in ``barriers`` of ``bar[flat // length][flat % length]`` of CTA ``cta``."""
        return self.ctas * 2 * self.nslots + cta * self.nseq + self.seq_base[bar] + flat

    def turn_slot(self, bar: int, cta: int, stage: int) -> int:
        return cta * self.nturn + self.turn_base[bar] + stage

    def initial(self) -> tuple:
        agents = []
        for i, a in enumerate(self.agents):
            ps = tuple((0, d.phase, 0) for d in a.states)
            ghost = tuple((0, 0, 0) for _ in range(self.nslots))
            acc = () if a.partial is None else a.partial     # hash(None) varies per process
            agents.append((0, ps, (TOK_NONE,) * len(self.tokens[i]), ghost, -1, acc,
                           (), (), -1, ((0, 0),) * self.nseq))
        barriers = []
        for _cta in range(self.ctas):
            for side in (FULL, EMPTY):
                for p in self.protocol.pipelines:
                    count = p.full_count if side == FULL else p.empty_count
                    unused = count == 0 or p.named_ids is not None     # elided, or named
                    barriers.extend([MBarrier(0, 0) if unused else MBarrier.init(count)]
                                    * p.stages)
        for _cta in range(self.ctas):
            for b in self.protocol.seqbars:
                barriers.extend([MBarrier.init(b.group_size)] * (b.depth * b.length))
        landed = (0,) * (self.ctas * self.nslots)
        named = tuple(NamedBarrier() for _ in self.named_keys)
        turns = ((0, -1, 0, 0),) * (self.ctas * self.nturn)
        return (tuple(agents), tuple(barriers), (), landed, named, GlobalMemory(), (), 0, turns)

    def _sort_agents(self, state: tuple) -> tuple:
        if not self.symmetry:
            return state
        agents = list(state[0])
        for group in self.symmetry:
            ordered = sorted((agents[i] for i in group), key=hash)
            for i, s in zip(group, ordered):
                agents[i] = s
        return (tuple(agents),) + state[1:]

    def _sorted_agents(self, agents: tuple, hashes: list[int]) -> tuple[tuple, tuple]:
        """``agents`` with every symmetry class sorted by the agents' hashes (given), and the
        hashes in that order."""
        if not self.symmetry:
            return agents, tuple(hashes)
        agents, hashes = list(agents), list(hashes)
        for group in self.symmetry:
            if len(group) == 2:             # the common case: a stable sort of two
                a, b = group
                if hashes[b] < hashes[a]:
                    agents[a], agents[b] = agents[b], agents[a]
                    hashes[a], hashes[b] = hashes[b], hashes[a]
                continue
            order = sorted(group, key=hashes.__getitem__)
            picked = [(agents[k], hashes[k]) for k in order]
            for i, (a, h) in zip(group, picked):
                agents[i], hashes[i] = a, h
        return tuple(agents), tuple(hashes)

    def canonical(self, state: tuple) -> tuple:
        """A representative of the state's orbit under the symmetries: interchangeable agents
        of one CTA (local states sorted by hash) and permutations of the cluster's CTAs that
        map the protocol onto itself (the candidate with the smallest key, a hash of the
        agents' hashes and the other components; every candidate is computed from the same
        orbit, so the choice depends only on the orbit)."""
        if not self.symmetry and not self.cta_perms:
            return state
        agents = state[0]
        hashes = [hash(a) for a in agents]
        best_agents, best_h = self._sorted_agents(agents, hashes)
        if not self.cta_perms:
            return (best_agents,) + state[1:]
        rest = state[1:]
        best_key = hash((best_h,) + rest)
        best_rest = rest
        barriers, inflight, landed, named, gmem, outputs, gen, turns = rest
        for get_agents, get_bar, get_landed, get_named, get_turns, pi in self._perm_getters:
            cand_agents, cand_h = self._sorted_agents(get_agents(agents), get_agents(hashes))
            cand_rest = (get_bar(barriers),
                         tuple(sorted([(pipe, pi[cta], slot, n, r)
                                       for pipe, cta, slot, n, r in inflight])),
                         get_landed(landed), get_named(named), gmem, outputs, gen,
                         get_turns(turns))
            key = hash((cand_h,) + cand_rest)
            if key < best_key:
                best_key, best_agents, best_rest = key, cand_agents, cand_rest
        return (best_agents,) + best_rest

    def finished(self, state: tuple) -> bool:
        return all(a[0] >= len(self.programs[i]) for i, a in enumerate(state[0])) and not state[2]

    # --- transitions ---------------------------------------------------------------------

    def transitions(self, state: tuple) -> list[tuple[str, int]]:
        """Enabled transitions: ("agent", i), ("alt", i) for the second arm of agent i's
        branch, or ("land", j) for in-flight transfer j."""
        out = []
        c = self.compiled
        length, en = c.length, c.en
        barriers = state[1]
        for i, a in enumerate(state[0]):
            pc = a[0]
            if pc >= length[i]:
                continue
            e = en[i][pc]
            if e[0] == PARITY:              # compiled mbarrier wait: CompiledSteps.enabled
                index, phase, _count = a[1][e[1]]
                if (barriers[e[2] + index][3] & 1) == (phase & 1):
                    continue
            elif e[0] != ALWAYS and not self.enabled(state, i):
                continue
            out.append(self._agent_choice[i])
            if self.is_branch[i][pc]:
                out.append(self._alt_choice[i])
        inflight = state[2]
        if inflight:
            seen = set()
            for j, t in enumerate(inflight):
                if t not in seen:
                    seen.add(t)
                    out.append(("land", j))
        return out

    def successor(self, state: tuple, choice: tuple[str, int]
                  ) -> tuple[tuple | None, P.Violation | None]:
        """(next state, violation) of :meth:`fire` without the trace step: the compiled fast
        path (:mod:`~tileorch.analysis.compiled`) when it applies, else :meth:`fire`."""
        kind, x = choice
        if kind == "land":
            nxt = self.compiled.land(state, x)
            if nxt is not None:
                return nxt, None
            out = self.fire(state, choice)  # more bytes than the phase expects: _land's violation
            return out.state, out.violation
        if kind == "agent" and self.fuse_invisible:
            nxt = self.compiled.step(state, x)
            if nxt is not None:
                return nxt, None
        out = self.fire(state, choice)
        return out.state, out.violation

    def persistent_subset(self, state: tuple, enabled: list[tuple[str, int]]
                          ) -> list[tuple[str, int]]:
        """A smallest persistent (stubborn) subset of ``enabled``.

        Built per agent: an enabled agent pulls in every agent or in-flight copy whose remaining
        ops may conflict with its next op; a blocked agent pulls in every agent or copy whose
        remaining ops may write what it waits on.  Transitions outside the set can then neither
        conflict with the set's enabled transitions nor enable its blocked ones.  The set
        depends only on program counters, in-flight copies and enabledness (not memoised:
        nearly every state has its own combination).  Both arms of a branch belong to their
        agent.
        """
        agents = state[0]
        bits = self._copy_bits
        copies = [bits[t] if t in bits else self._copy_bit(t) for t in state[2]]
        pcs = [a[0] for a in agents]
        length = self.compiled.length
        live = [b for b, pc in enumerate(pcs) if pc < length[b]]
        single = self._singleton(pcs, copies, enabled, live)
        if single is not None:
            return [t for t in enabled if t[1] == single[1] and (t[0] == "land") ==
                    (single[0] == "land")]
        movers = [t for t in enabled if t[0] != "alt"]
        moving = {t[1] for t in movers if t[0] == "agent"}
        needs = [self._enabling_bits(state, b) if b not in moving else 0 for b in live]
        members = self._stubborn(pcs, copies, movers, needs, live)
        return [t for t in enabled if (t if t[0] != "alt" else ("agent", t[1])) in members]

    def _copy_bit(self, copy: tuple) -> int:
        """The object an in-flight copy ``(pipe, cta, slot, nbytes, round)`` writes."""
        bit = self._copy_bits.get(copy)
        if bit is None:
            p, cta, slot, _n, rnd = copy
            bit = self._copy_bits[copy] = self._bit(
                ("FT", self.protocol.pipelines[p].name, cta, slot, rnd))
        return bit

    def _enabling_bits(self, state: tuple, i: int) -> int:
        """A necessary enabling set of blocked agent ``i``, as the objects some write to which
        must happen before it can move: the arrivals on a mbarrier that still has pending
        arrivals, else the transaction bytes it still expects, else everything it reads."""
        agent = state[0][i]
        pc = agent[0]
        e = self.compiled.en[i][pc]
        if e[0] == PARITY:                  # the same answer from the compiled tables
            index = agent[1][e[1]][0]
            b = state[1][e[2] + index]
            if b.pending > 0 or b.tx > 0:
                bits = self._enabling_memo.get((i, pc, index))
                if bits is None:
                    bits = self._enabling_memo[(i, pc, index)] = self._wait_bits(i, pc, index)
                return bits[0] if b.pending > 0 else bits[1]
            return self.footprints[i][pc][0]
        op = self.programs[i][pc]
        if isinstance(op, (ProducerAcquire, ConsumerWait)) and self.named_op[i][pc] is None:
            side = EMPTY if isinstance(op, ProducerAcquire) or op.barrier == "empty" else FULL
            b, _phase, _need, index = self._wait_target(state, i, op, side)
            cta = self.agents[i].cta
            if b.pending > 0:
                rnd = self.rounds_at[i][pc] - (side == EMPTY)
                return self._bit(("EA" if side == EMPTY else "FA", op.pipe, cta)
                                 + self._ea_key(op.pipe, index, rnd))
            if b.tx > 0:
                return self._bit(("FT", op.pipe, cta, index, self.rounds_at[i][pc]))
        return self.footprints[i][pc][0]

    def _wait_bits(self, i: int, pc: int, index: int) -> tuple[int, int]:
        """(arrivals object, bytes object) a blocked mbarrier wait of agent ``i`` at ``pc``
        on slot ``index`` needs written (:meth:`_enabling_bits`)."""
        op = self.programs[i][pc]
        side = EMPTY if isinstance(op, ProducerAcquire) or op.barrier == "empty" else FULL
        cta = self.agents[i].cta
        rnd = self.rounds_at[i][pc] - (side == EMPTY)
        return (self._bit(("EA" if side == EMPTY else "FA", op.pipe, cta)
                          + self._ea_key(op.pipe, index, rnd)),
                self._bit(("FT", op.pipe, cta, index, self.rounds_at[i][pc])))

    def _singleton(self, pcs: list[int], copies: list[int], enabled: list[tuple[str, int]],
                   live: list[int]) -> tuple[str, int] | None:
        """The first enabled transition that is a persistent set on its own (nothing any other
        agent or in-flight copy may still do conflicts with it); None if there is none.  The
        cheap first try of :meth:`persistent_subset` (it needs no enabling sets).  What another
        agent may still do is its causal window (:meth:`_window`) while the transition's agent
        has not moved; arrivals of one round on one barrier do not conflict with each other."""
        all_copies = 0
        for bit in copies:
            all_copies |= bit
        footprints, arrives, suffix, window = self.footprints, self.arrives, self.suffix, self._window
        for kind, x in enabled:
            if kind == "alt":
                continue
            if kind == "land":
                w = copies[x]
                if copies.count(w) > 1:     # another copy of the same object (one bit each)
                    continue
                for b in live:
                    R, WN, A = suffix[b][pcs[b]]
                    if w & (R | WN | A):
                        break
                else:
                    return kind, x
                continue
            pcx = pcs[x]
            r, w = footprints[x][pcx]
            if (r | w) & all_copies:
                continue
            a = arrives[x][pcx]
            wn = w & ~a
            for b in live:
                if b == x:
                    continue
                R, WN, A = window(b, pcs[b], x, pcx)
                if (r & (WN | A)) or (w & R) or (wn & (WN | A)) or (a & WN):
                    break
            else:
                return kind, x
        return None

    def _stubborn(self, pcs: list[int], copies: list[int], enabled: list[tuple[str, int]],
                  needs: list[int], live: list[tuple[int, int, int]]) -> frozenset:
        """The smallest closure over the "must join" graph of the live agents and in-flight
        copies (bit sets: agent b is node b, copy j node ``n + j``): an enabled agent or a
        copy joins everyone whose remaining ops may conflict with its next step, a blocked
        agent everyone who may write what it waits on (``needs``, one per ``live`` agent)."""
        n = len(pcs)
        need = {b: nd for b, nd in zip(live, needs)}
        movers = {x for kind, x in enabled if kind == "agent"}
        weight = 0                     # nodes that count: enabled agents and every copy
        for x in movers:
            weight |= 1 << x
        for j in range(len(copies)):
            weight |= 1 << (n + j)
        footprints, arrives, suffix, window = self.footprints, self.arrives, self.suffix, self._window
        edges: list[int | None] = [None] * (n + len(copies))
        by_object: dict[int, int] = {}      # a copy's object (one bit) -> the copies' nodes
        for j, bit in enumerate(copies):
            by_object[bit] = by_object.get(bit, 0) | 1 << (n + j)
        objects = list(by_object.items())
        copy_edges: dict[int, int] = {}     # copies of one object have the same edges
        best, best_size = None, len(enabled)
        for kind, x in enabled:
            start = x if kind == "agent" else n + x
            closure = 1 << start
            work = [start]
            while work:
                node = work.pop()
                e = edges[node]
                if e is None and node >= n and copies[node - n] in copy_edges:
                    e = edges[node] = copy_edges[copies[node - n]] & ~(1 << node)
                if e is None:       # who must join `node`: conflicts with its step / need
                    e = 0
                    if node >= n:               # a copy: whoever may still touch its bytes
                        r, w = 0, copies[node - n]
                        for b in live:
                            R, WN, A = suffix[b][pcs[b]]
                            if w & (R | WN | A):
                                e |= 1 << b
                    else:                       # an agent: who may act while it stays put
                        pcx = pcs[node]
                        if node in movers:
                            r, w = footprints[node][pcx]
                            a = arrives[node][pcx]
                        else:                   # blocked: who can unblock it?
                            r, w, a = need.get(node, 0), 0, 0
                        wn = w & ~a
                        for b in live:
                            if b != node:
                                R, WN, A = window(b, pcs[b], node, pcx)
                                if (r & (WN | A)) or (w & R) or (wn & (WN | A)) or (a & WN):
                                    e |= 1 << b
                    rw = r | w
                    if rw:
                        for bit, nodes in objects:
                            if bit & rw:
                                e |= nodes
                    if node >= n:
                        copy_edges[w] = e
                    e &= ~(1 << node)
                    edges[node] = e
                new = e & ~closure
                if not new:
                    continue
                closure |= new
                if (closure & weight).bit_count() >= best_size:
                    break
                while new:
                    low = new & -new
                    work.append(low.bit_length() - 1)
                    new ^= low
            size = (closure & weight).bit_count()
            if size < best_size:
                best, best_size = closure, size
                if size == 1:
                    break
        if best is None:
            return frozenset(enabled)
        members = {("agent", b) for b in range(n) if best >> b & 1}
        members |= {("land", j) for j in range(len(copies)) if best >> (n + j) & 1}
        return frozenset(members)

    def _wait_target(self, state: tuple, i: int, op: Op, side: int):
        agent = state[0][i]
        pipe = self.pipe_index[op.pipe]
        index, phase, _count = agent[1][self.svar[i][op.state]]
        cta = self.agents[i].cta
        b = state[1][self.barrier_slot(pipe, cta, side, index)]
        acquired = agent[3][self.slot_base[pipe] + index][0]
        need = acquired if side == EMPTY else acquired + 1
        return b, phase, need, index

    def seq_target(self, pstates: tuple, i: int, op: SeqWait | SeqArrive, arrive: bool):
        """(barrier index, stage, phase, flat index within the seq_bar) an op of agent ``i``
        with pipeline-state values ``pstates`` touches."""
        bar = self.seq_index[op.bar]
        length = self.protocol.seqbars[bar].length
        index, phase, _count = pstates[self.svar[i][op.state]]
        flat = index * length + ((op.group + 1) % length if arrive else op.group)
        return self.seq_slot(bar, self.agents[i].cta, flat), index, phase, flat

    def cluster_ready(self, state: tuple) -> bool:
        """Has every live agent arrived on the cluster barrier in the current generation?"""
        gen = state[7]
        return all(state[0][i][8] == gen for i in self.cluster_members
                   if state[0][i][0] < len(self.programs[i]))

    def enabled(self, state: tuple, i: int) -> bool:
        agent = state[0][i]
        op = self.programs[i][agent[0]]
        if isinstance(op, (ProducerAcquire, ConsumerWait)):
            if op.token is not None and agent[2][self.tokens[i][op.token]] == TOK_DONE:
                return True
            named = self.named_op[i][agent[0]]
            if named is not None:       # bar.sync: arrive first, then wait for the generation
                return agent[4] < 0 or state[4][self.named_at[named[0]]].generation > agent[4]
            side = EMPTY if isinstance(op, ProducerAcquire) or op.barrier == "empty" else FULL
            b, phase, _need, _ = self._wait_target(state, i, op, side)
            return b.test_wait(phase)
        if isinstance(op, SeqWait):
            k, _index, phase, _flat = self.seq_target(agent[1], i, op, arrive=False)
            return state[1][k].test_wait(phase)
        if isinstance(op, ClusterWait):
            return agent[8] >= 0 and (state[7] > agent[8] or self.cluster_ready(state))
        if isinstance(op, BarSync) and agent[4] >= 0:
            key = self.named_op[i][agent[0]][0]
            return state[4][self.named_at[key]].generation > agent[4]
        if isinstance(op, CounterWait):
            value = state[5].counter(op.counter)
            return value == op.value if op.cmp == "eq" else value >= op.value
        return True

    def fire(self, state: tuple, choice: tuple[str, int]) -> Outcome:
        """One transition.  An agent's step also runs the invisible steps that follow it
        (state advances, reads of a stage it holds and TMA issues: they touch nothing another
        agent or copy can see, are always enabled, and their checks read only the agent's own
        ghost; a TMA issue only adds copies, whose landings are steps of their own),
        so no state is stored between them; the step shown in traces is the first one."""
        if choice[0] == "land":
            return self._land(state, choice[1])
        i = choice[1]
        ex = _Exec(self, state, i, alt=choice[0] == "alt")
        ex.run()
        out = ex.outcome()
        prog = self.programs[i]
        while out.violation is None and self.fuse_invisible:
            pc = out.state[0][i][0]
            if pc >= len(prog) or not (isinstance(prog[pc], INVISIBLE) or self.silent[i][pc]):
                break
            nxt = _Exec(self, out.state, i)
            nxt.run()
            follow = nxt.outcome()
            out = Outcome(follow.state, out.step if follow.violation is None else follow.step,
                          follow.violation)
        return out

    def _land(self, state: tuple, j: int) -> Outcome:
        pipe, cta, slot, nbytes, _round = state[2][j]
        inflight = state[2][:j] + state[2][j + 1:]
        k = self.barrier_slot(pipe, cta, FULL, slot)
        barriers = list(state[1])
        barriers[k] = barriers[k].complete_tx(nbytes)
        landed = list(state[3])
        landed[cta * self.nslots + self.slot_base[pipe] + slot] += nbytes
        name = self.protocol.pipelines[pipe].name
        b = barriers[k]
        step = Step(f"tma->cta{cta}", f"complete_tx {nbytes} B on {name}.full[{slot}]", slot,
                    None, b.describe)
        nxt = (state[0], tuple(barriers), inflight, tuple(landed)) + state[4:]
        if b.pending == 0 and b.tx < 0:  # every arrival (and its expect_tx) is in: nothing can raise tx
            commit = self._commit_of(name)  # again, so the phase never completes
            return Outcome(nxt, step, P.Violation(
                P.OVER_ARRIVAL, f"{self.barrier_name(k)}: the copies landed {-b.tx} bytes more than the phase's "
                f"arrivals expect (tx-count {b.tx} with no arrival left: the phase never completes); the commit's "
                "transaction_bytes (or the init's transaction_size) is smaller than the bytes the stage's copies "
                "deliver", f"tma->cta{cta}", commit))
        return Outcome(nxt, step)

    def _commit_of(self, pipe: str) -> Op | None:
        """The first ``ProducerCommit`` of pipeline ``pipe`` in any agent (the op whose expected bytes a
        byte overflow names), None if there is none."""
        for program in self.programs:
            for op in program:
                if isinstance(op, ProducerCommit) and op.pipe == pipe:
                    return op
        return None

    # --- terminal checks -----------------------------------------------------------------

    def terminal_violation(self, state: tuple) -> P.Violation | None:
        """Checks on a state without enabled transitions: deadlock or an unclean exit."""
        if not self.finished(state):
            return self._classify_deadlock(state)
        for k, b in enumerate(state[1]):
            if b.pending != b.expected or b.tx != 0:
                return P.Violation(P.DRAIN, f"kernel exits with {self.barrier_name(k)} "
                                   f"mid-phase ({b.describe()})")
        for (cta, bid), nb in zip(self.named_keys, state[4]):
            if nb.arrived:
                where = f"cta{cta} " if self.ctas > 1 else ""
                return P.Violation(P.DRAIN, f"kernel exits with {where}named barrier {bid} "
                                   f"mid-generation ({nb.describe()})")
        return None

    def barrier_name(self, k: int) -> str:
        many = self.ctas > 1
        if k >= self.ctas * 2 * self.nslots:
            cta, flat = divmod(k - self.ctas * 2 * self.nslots, self.nseq)
            for b, base in enumerate(self.seq_base):
                spec = self.protocol.seqbars[b]
                if base <= flat < base + spec.depth * spec.length:
                    d, g = divmod(flat - base, spec.length)
                    return f"{'cta%d.' % cta if many else ''}{spec.name}.bar[{d}][{g}]"
        cta, rest = divmod(k, 2 * self.nslots)
        side, flat = divmod(rest, self.nslots)
        for p, base in enumerate(self.slot_base):
            if base <= flat < base + self.stages[p]:
                name = self.protocol.pipelines[p].name
                where = f"cta{cta}." if many else ""
                return f"{where}{name}.{'full' if side == FULL else 'empty'}[{flat - base}]"
        return f"barrier#{k}"

    def _all_parked_at(self, state: tuple, key: tuple[int, int]) -> bool:
        """Is every agent that may still arrive on named barrier ``key`` = (cta, id) already
        waiting on it (so no further thread can ever arrive)?"""
        for b, a in enumerate(state[0]):
            named = self.named_op[b]
            if not any(n is not None and n[0] == key for n in named[a[0]:]):
                continue
            if not (a[4] >= 0 and named[a[0]] is not None and named[a[0]][0] == key):
                return False
        return True

    def _classify_deadlock(self, state: tuple) -> P.Violation:
        blocked = []
        first_op = None
        for i, a in enumerate(state[0]):
            if a[0] >= len(self.programs[i]):
                continue
            op = self.programs[i][a[0]]
            name = self.agents[i].name
            first_op = first_op or op
            named = self.named_op[i][a[0]]
            if named is not None and isinstance(op, (ProducerAcquire, ConsumerWait, BarSync)):
                (_cta, bid), count = named
                nb = state[4][self.named_at[named[0]]]
                what = "" if isinstance(op, BarSync) else \
                    f" ({op.pipe} stage {self.slots_at[i][a[0]]})"
                if 0 < nb.arrived < count and self._all_parked_at(state, named[0]):
                    return P.Violation(
                        P.NAMED_BARRIER_COUNT,
                        f"bar.sync {bid}{what} waits for {count} threads but only "
                        f"{nb.arrived} ever arrive", name, op)
                blocked.append(f"{name} at {op_text(op)} (bar {bid}{what}: {nb.describe()})")
            elif isinstance(op, (ProducerAcquire, ConsumerWait)):
                side = EMPTY if isinstance(op, ProducerAcquire) or op.barrier == "empty" else FULL
                b, phase, need, index = self._wait_target(state, i, op, side)
                if b.completed >= need + 1:
                    return P.Violation(
                        P.PARITY_ALIASING,
                        f"waits on {op.pipe}.{'empty' if side else 'full'}[{index}] with parity "
                        f"{phase} for phase {need - 1} but the barrier has completed "
                        f"{b.completed} phases: the waiter lags by two phases", name, op)
                blocked.append(f"{name} at {op_text(op)} (stage {index}, phase {phase}; "
                               f"{b.describe()})")
            elif isinstance(op, SeqWait):
                k, index, phase, _flat = self.seq_target(a[1], i, op, arrive=False)
                blocked.append(f"{name} at {op_text(op)} ({self.barrier_name(k)} with parity "
                               f"{phase}: no group ever arrives for that phase; "
                               f"{state[1][k].describe()})")
            elif isinstance(op, ClusterWait):
                if a[8] < 0:
                    blocked.append(f"{name} at {op_text(op)} without its own barrier.cluster."
                                   f"arrive (end probe without a start probe)")
                else:
                    missing = [self.agents[b].name for b in self.cluster_members
                               if state[0][b][0] < len(self.programs[b]) and state[0][b][8] != state[7]]
                    blocked.append(f"{name} at {op_text(op)} (cluster barrier waits for "
                                   f"{', '.join(missing)})")
            else:
                blocked.append(f"{name} at {op_text(op)}")
        return P.Violation(P.DEADLOCK, "every unfinished agent is blocked: " + "; ".join(blocked),
                           op=first_op)


class _Exec:
    """Executes the next op of agent ``i`` on a copy of ``state``."""

    def __init__(self, m: Machine, state: tuple, i: int, alt: bool = False):
        self.m, self.i, self.alt = m, i, alt
        self.agents = list(state[0])
        (self.barriers, self.inflight, self.landed, self.named, self.gmem, self.outputs,
         self.cluster_gen, self.turns) = state[1:]
        (self.pc, ps, tok, ghost, self.bar_wait, self.acc, self.unpub,
         self.seen, self.cluster, seq) = self.agents[i]
        self.ps, self.tok, self.ghost, self.seq = list(ps), list(tok), list(ghost), list(seq)
        self.op = m.programs[i][self.pc]
        self.agent = m.agents[i]
        self.violation: P.Violation | None = None
        self.stage = self.phase = None
        self.barrier_text = ""
        self.advance_pc = True

    # helpers
    def fail(self, prop: str, msg: str) -> None:
        if self.violation is None:
            self.violation = P.Violation(prop, msg, self.agent.name, self.op)

    def _state(self):
        op = self.op
        pipe = self.m.pipe_index[op.pipe]
        v = self.m.svar[self.i][op.state]
        index, phase, count = self.ps[v]
        self.stage, self.phase = index, phase
        g = self.m.slot_base[pipe] + index
        return pipe, index, phase, g

    def _show(self, k: int, barrier: MBarrier) -> None:
        m = self.m
        self.barrier_text = lambda: f"{m.barrier_name(k)}: {barrier.describe()}"

    def _arrive(self, pipe: int, cta: int, side: int, slot: int, count: int, tx: int,
                phase: int) -> None:
        k = self.m.barrier_slot(pipe, cta, side, slot)
        barriers = list(self.barriers)
        result = barriers[k].arrive(count, tx, phase)
        barriers[k] = result.barrier
        self.barriers = tuple(barriers)
        self._show(k, result.barrier)
        if result.misplaced:
            self.fail(P.OVER_ARRIVAL, f"{self.m.barrier_name(k)}: {result.misplaced}")

    def _acquired(self, pipe: int, index: int, phase: int, g: int, side: int,
                  via_try: bool) -> None:
        """The agent now owns round ``acquired`` of the slot: check the parity lag."""
        acquired, done, _unfin = self.ghost[g]
        k = self.m.barrier_slot(pipe, self.agent.cta, side, index)
        b = self.barriers[k]
        need = acquired if side == EMPTY else acquired + 1
        how = "try-wait" if via_try else "wait"
        parity = self.m.protocol.pipelines[pipe].named_ids is None   # named: no parity
        if parity:
            self._show(k, b)
        if parity and b.completed >= need + 1:
            self.fail(P.PARITY_ALIASING,
                      f"{how} with parity {phase} on {self.m.barrier_name(k)} passed for phase "
                      f"{need - 1} after {b.completed} completed phases: the waiter lags by "
                      f"two phases")
        elif parity and b.completed < need:
            self.fail(P.PARITY_ALIASING,
                      f"{how} with parity {phase} on {self.m.barrier_name(k)} passed although "
                      f"phase {need - 1} has not completed ({b.completed} phases completed): "
                      f"the parity names an older phase")
        if side == EMPTY and not self.op_is_tail():
            self._check_released(pipe, index, g, acquired)
        elif side == FULL:
            self._check_landed(pipe, index, g, acquired)
        self.ghost[g] = (acquired + 1, done, 0)

    def op_is_tail(self) -> bool:
        return isinstance(self.op, ProducerAcquire) and self.op.tail

    def _blocking_wait(self, side: int, token: str | None) -> None:
        pipe, index, phase, g = self._state()
        if token is not None and self.tok[self.m.tokens[self.i][token]] == TOK_DONE:
            self.tok[self.m.tokens[self.i][token]] = TOK_NONE
            return
        if token is not None:
            self.tok[self.m.tokens[self.i][token]] = TOK_NONE
        named = self.m.named_op[self.i][self.pc]
        if named is not None and not self._first_pass() and not self._named_sync(*named):
            return
        self._acquired(pipe, index, phase, g, side, via_try=False)

    def _first_pass(self) -> bool:
        """A producer acquire in the ring's first pass (``count < stages``): the named-barrier
        lowering skips its ``bar.sync`` (no release to wait for yet)."""
        if not isinstance(self.op, (ProducerAcquire, ProducerTryAcquire)):
            return False
        v = self.m.svar[self.i][self.op.state]
        return self.ps[v][2] < self.m.ring[self.i][v]

    def _try(self, side: int, token: str) -> None:
        pipe, index, phase, g = self._state()
        k = self.m.barrier_slot(pipe, self.agent.cta, side, index)
        named = self.m.protocol.pipelines[pipe].named_ids is not None
        # a named barrier can only promise the first pass without waiting
        done = self._first_pass() if named else self.barriers[k].test_wait(phase)
        t = self.m.tokens[self.i][token]
        if done:
            self.tok[t] = TOK_DONE
            self._acquired(pipe, index, phase, g, side, via_try=True)
        else:
            self.tok[t] = TOK_AGAIN
            a, d, _ = self.ghost[g]
            self.ghost[g] = (a, d, 1)
            if not named:
                self._show(k, self.barriers[k])

    def _check_token(self, g: int, index: int, what: str) -> None:
        if self.ghost[g][2]:
            self.fail(P.TOKEN_PROTOCOL, f"{what} stage {index} after a try whose token said "
                      f"'not done', without the finalizing wait")

    # ops
    def run(self) -> None:
        op = self.op
        handler = getattr(self, "_" + type(op).__name__)
        handler(op)

    def _ProducerAcquire(self, op: ProducerAcquire) -> None:
        self._blocking_wait(EMPTY, op.token)

    def _ConsumerWait(self, op: ConsumerWait) -> None:
        if op.again and op.barrier == "full" and self._waits_again():
            return
        self._blocking_wait(EMPTY if op.barrier == "empty" else FULL, op.token)

    def _waits_again(self) -> bool:
        """A :attr:`ConsumerWait.again` wait on a round the agent acquired before: check that
        it still holds it (not released) and that the barrier has completed exactly that round's
        phase (the wait passed on it, not on a later one); True when so handled.  A wait on a
        round beyond the next one to acquire is a skipped round."""
        pipe, index, phase, g = self._state()
        acquired, released, _ = self.ghost[g]
        rnd = self.m.rounds_at[self.i][self.pc]
        if rnd > acquired:
            self.fail(P.READ_BEFORE_COMMIT,
                      f"waits on {self.op.pipe} stage {index} round {rnd} having acquired only {acquired} "
                      f"round(s) of it (a round skipped)")
            return True
        if rnd == acquired:
            return False
        k = self.m.barrier_slot(pipe, self.agent.cta, FULL, index)
        b = self.barriers[k]
        self._show(k, b)
        if rnd < released:
            self.fail(P.RELEASE_BEFORE_READ,
                      f"waits again on {self.op.pipe} stage {index} round {rnd} after releasing it")
        elif b.completed != rnd + 1:
            self.fail(P.PARITY_ALIASING,
                      f"waits again with parity {phase} on {self.m.barrier_name(k)} for round {rnd} it holds, "
                      f"but the barrier has completed {b.completed} phases")
        return True

    def _ProducerTryAcquire(self, op: ProducerTryAcquire) -> None:
        self._try(EMPTY, op.token)

    def _ConsumerTryWait(self, op: ConsumerTryWait) -> None:
        self._try(FULL, op.token)

    def _ProducerWrite(self, op: ProducerWrite) -> None:
        pipe, index, phase, g = self._state()
        self._check_token(g, index, "writes")
        acquired, committed, _ = self.ghost[g]
        if acquired <= committed:
            self.fail(P.WRITE_BEFORE_RELEASE,
                      f"writes {op.pipe} stage {index} without acquiring it for this round")
        dsts = self.m._dsts(self.i, op)
        rnd = self.m.rounds_at[self.i][self.pc]
        for d, nbytes in zip(dsts, self.m.write_shares(op, dsts)):
            if nbytes > 0:
                self.inflight = tuple(sorted(self.inflight + ((pipe, d, index, nbytes, rnd),)))
            else:
                landed = list(self.landed)
                landed[d * self.m.nslots + g] += 1
                self.landed = tuple(landed)

    def _check_released(self, pipe: int, index: int, g: int, rnd: int) -> None:
        """At a producer's acquire of round ``rnd``: every consumer of every CTA its writes
        fill has released round ``rnd - 1`` of the slot."""
        name = self.m.protocol.pipelines[pipe].name
        for d in self.m.write_dsts.get((self.i, pipe), ()):
            for c in self.m.consumers.get((pipe, d), ()):
                released = self.agents[c][3][g][1] if c != self.i else self.ghost[g][1]
                if released < rnd:
                    where = f" of cta{d}" if self.m.ctas > 1 else ""
                    self.fail(P.WRITE_BEFORE_RELEASE,
                              f"acquires {name} stage {index}{where} for round {rnd} while "
                              f"{self.m.agents[c].name} has released only {released} rounds "
                              f"of it (round {rnd - 1} still in use)")

    def _check_landed(self, pipe: int, index: int, g: int, rnd: int) -> None:
        """At a consumer's acquire of round ``rnd``: the round's data has fully landed."""
        spec = self.m.protocol.pipelines[pipe]
        if (pipe, self.agent.cta) not in self.m.consumers or self.i not in \
                self.m.consumers[(pipe, self.agent.cta)]:
            return
        cta = self.agent.cta
        unit = spec.stage_bytes if spec.stage_bytes > 0 else len(
            self.m.writers.get((pipe, cta), ()))
        have = self.landed[cta * self.m.nslots + g]
        want = (rnd + 1) * unit
        if have < want:
            self.fail(P.READ_BEFORE_COMMIT,
                      f"acquires {spec.name} stage {index} round {rnd} for reading with "
                      f"{have - rnd * unit} of {unit} {'bytes' if spec.stage_bytes else 'writes'}"
                      f" landed")
        elif have > want:
            self.fail(P.WRITE_BEFORE_RELEASE,
                      f"acquires {spec.name} stage {index} round {rnd} but round {rnd + 1} "
                      f"already overwrote it")

    def _signal(self, op, side, tx_bytes: int) -> None:
        """Signal ``side`` (FULL: commit, EMPTY: release) of the op's stage (through its named
        barrier when it has one) and count the signal in the group's ghost state; the round is
        the acquired one for a commit, the next unreleased one for a release."""
        pipe, index, phase, g = self._state()
        acquired, signalled, unfin = self.ghost[g]
        named = self.m.named_op[self.i][self.pc]
        if named is not None:
            self._bar_arrive(*named)
        rnd = acquired - 1 if side == FULL else signalled
        for d in self.m._dsts(self.i, op) if named is None else ():
            self._arrive(pipe, d, side, index, op.arrivals, tx_bytes, rnd)
        self.ghost[g] = (acquired, signalled + 1, unfin)

    def _ProducerCommit(self, op: ProducerCommit) -> None:
        self._signal(op, FULL, op.tx_bytes)

    def _ConsumerRead(self, op: ConsumerRead) -> None:
        pipe, index, phase, g = self._state()
        self._check_token(g, index, "reads")
        acquired, released, _ = self.ghost[g]
        if acquired == 0:
            self.fail(P.READ_BEFORE_COMMIT, f"reads {op.pipe} stage {index} without waiting")
        elif released >= acquired:
            self.fail(P.RELEASE_BEFORE_READ,
                      f"reads {op.pipe} stage {index} (round {acquired - 1}) after releasing it")

    def _ConsumerRelease(self, op: ConsumerRelease) -> None:
        self._signal(op, EMPTY, 0)

    def _Advance(self, op: Advance) -> None:
        v = self.m.svar[self.i][op.state]
        stages = self.m.ring[self.i][v]
        index, phase, count = self.ps[v]
        for _ in range(op.n):
            index += 1
            if index == stages:
                index = 0
                phase ^= 1 if op.flip else 0
            count += 1
        self.ps[v] = (index, phase, count)
        self.stage, self.phase = index, phase

    def _bar_arrive(self, key: tuple[int, int], count: int) -> bool:
        """The agent's threads arrive on named barrier ``key`` = (cta, id) declaring ``count``;
        True when that completes the generation."""
        j = self.m.named_at[key]
        named = list(self.named)
        before = named[j]
        named[j], error = before.arrive(self.agent.threads, count)
        self.named = tuple(named)
        nb = named[j]
        self.barrier_text = lambda: f"bar {key[1]}: {nb.describe()}"
        if error:
            self.fail(P.NAMED_BARRIER_COUNT, f"bar {key[1]}: {error}")
        return nb.generation > before.generation

    def _named_sync(self, key: tuple[int, int], count: int) -> bool:
        """``bar.sync``: arrive, then pass once the generation completed (at once if the arrival
        completed it, else in a later step); False while still waiting."""
        if self.bar_wait >= 0:
            self.bar_wait = -1
            return True
        generation = self.named[self.m.named_at[key]].generation
        if self._bar_arrive(key, count):
            return True
        self.bar_wait = generation
        self.advance_pc = False
        return False

    def _BarSync(self, op: BarSync) -> None:
        self._named_sync(*self.m.named_op[self.i][self.pc])

    def _BarArrive(self, op: BarArrive) -> None:
        self._bar_arrive(*self.m.named_op[self.i][self.pc])

    def _Branch(self, op: Branch) -> None:
        self.barrier_text = f"takes branch {2 if self.alt else 1}"

    def _seq_turn(self, op: SeqWait | SeqArrive, index: int) -> tuple[int, tuple]:
        k = self.m.turn_slot(self.m.seq_index[op.bar], self.agent.cta, index)
        return k, self.turns[k]

    def _set_turn(self, k: int, value: tuple) -> None:
        turns = list(self.turns)
        turns[k] = value
        self.turns = tuple(turns)

    def _SeqWait(self, op: SeqWait) -> None:
        m = self.m
        k, index, phase, flat = m.seq_target(self.ps, self.i, op, arrive=False)
        self.stage, self.phase = index, phase
        spec = m.protocol.seqbars[m.seq_index[op.bar]]
        b = self.barriers[k]
        self._show(k, b)
        j = m.seq_base[m.seq_index[op.bar]] + flat
        waits, arrivals = self.seq[j]
        start = self.agent.states[m.svar[self.i][op.state]].phase
        need = waits + (0 if start else 1)
        if b.completed != need:
            self.fail(P.PARITY_ALIASING,
                      f"wait with parity {phase} on {m.barrier_name(k)} passed after "
                      f"{b.completed} completed phases, meant for {need}")
        self.seq[j] = (waits + 1, arrivals)
        t, (turn, holder, entered, left) = self._seq_turn(op, index)
        threads = self.agent.threads
        if holder not in (-1, op.group):
            self.fail(P.SEQ_ORDER, f"group {op.group} enters {spec.name} stage {index} while "
                      f"group {holder} is still inside it")
        elif holder == -1 and turn != op.group:
            self.fail(P.SEQ_ORDER, f"group {op.group} enters {spec.name} stage {index} out of "
                      f"turn: group {turn} is next")
        self._set_turn(t, (turn, op.group, entered + threads, left))

    def _SeqArrive(self, op: SeqArrive) -> None:
        m = self.m
        k, index, phase, flat = m.seq_target(self.ps, self.i, op, arrive=True)
        self.stage, self.phase = index, phase
        spec = m.protocol.seqbars[m.seq_index[op.bar]]
        j = m.seq_base[m.seq_index[op.bar]] + flat
        waits, arrivals = self.seq[j]
        barriers = list(self.barriers)
        result = barriers[k].arrive(self.agent.threads, 0, arrivals)
        barriers[k] = result.barrier
        self.barriers = tuple(barriers)
        self._show(k, result.barrier)
        if result.misplaced:
            self.fail(P.OVER_ARRIVAL, f"{m.barrier_name(k)}: {result.misplaced}")
        self.seq[j] = (waits, arrivals + 1)
        t, (turn, holder, entered, left) = self._seq_turn(op, index)
        if holder != op.group:
            self.fail(P.SEQ_ORDER, f"group {op.group} arrives to leave {spec.name} stage "
                      f"{index} without having entered it")
            return
        left += self.agent.threads
        if left >= spec.group_size and left >= entered:
            self._set_turn(t, ((op.group + 1) % spec.length, -1, 0, 0))
        else:
            self._set_turn(t, (turn, holder, entered, left))

    def _ClusterArrive(self, op: ClusterArrive) -> None:
        if self.cluster >= 0:
            self.fail(P.OVER_ARRIVAL, "barrier.cluster.arrive again before the matching "
                      "barrier.cluster.wait")
        self.cluster = self.cluster_gen
        self.barrier_text = f"cluster barrier generation {self.cluster_gen}"
        if not op.relaxed and self.unpub:          # release: the partials stored so far
            self.gmem = self.gmem.publish(self.unpub)
            self.unpub = ()

    def _ClusterWait(self, op: ClusterWait) -> None:
        if self.cluster_gen == self.cluster:       # the last arrival completes the phase
            self.cluster_gen += 1
        self.cluster = -1
        if self.gmem.buffers:                       # acquire: what the arrivals released
            self.seen = self.gmem.snapshot()
        self.barrier_text = f"cluster barrier generation {self.cluster_gen}"
        if op.drain:
            self._drain_checks("reaches the MODS end probe")

    def _StorePartial(self, op: StorePartial) -> None:
        self.gmem = self.gmem.store(op.key, self.acc)
        self.unpub = tuple(sorted(set(self.unpub) | {op.key}))

    def _visible(self, key: str, atomic: bool) -> object | None:
        what = "atomically adds onto" if atomic else "reads"
        entry = self.gmem.buffer(key)
        if entry is None:
            self.fail(P.FIXUP_ORDER, f"{what} partial {key!r} before any split stored it")
            return None
        value, version, published, base = entry
        seen = dict(self.seen).get(key, 0)
        ordered = seen >= base if atomic else (published == version and seen == version)
        if key not in self.unpub and not ordered:
            self.fail(P.FIXUP_ORDER, f"{what} partial {key!r} that is not ordered before it "
                      f"(stored without release, or read without acquire after the release)")
        return value

    def _ReducePartial(self, op: ReducePartial) -> None:
        old = self._visible(op.key, atomic=True)
        self.gmem = self.gmem.store(op.key, (old, self.acc), plain=False)
        self.unpub = tuple(sorted(set(self.unpub) | {op.key}))

    def _LoadAddPartial(self, op: LoadAddPartial) -> None:
        value = self._visible(op.key, atomic=False)
        self.acc = (self.acc, value)

    def _CounterAdd(self, op: CounterAdd) -> None:
        gmem = self.gmem
        if op.release:
            gmem = gmem.publish(self.unpub)
            self.unpub = ()
        self.gmem = gmem.add(op.counter, op.value)
        self.barrier_text = f"{op.counter} = {self.gmem.counter(op.counter)}"

    def _CounterWait(self, op: CounterWait) -> None:
        if op.acquire:
            self.seen = self.gmem.snapshot()
        self.barrier_text = f"{op.counter} = {self.gmem.counter(op.counter)}"

    def _Accumulate(self, op: Accumulate) -> None:
        self.acc = op.label

    def _Epilogue(self, op: Epilogue) -> None:
        want = dict(self.m.protocol.partials).get(op.tile)
        if want is not None:
            got = sorted(map(repr, flatten(self.acc)))
            if got != sorted(map(repr, want)):
                self.fail(P.FIXUP_COUNT, f"output tile {op.tile!r} sums partials "
                          f"{flatten(self.acc)}; expected each of {list(want)} exactly once")
        self.outputs = tuple(sorted(self.outputs + ((op.tile, repr(self.acc)),)))

    def _finish_checks(self) -> None:
        """When an agent leaves: a producer must have seen every slot it filled released, and
        no cluster-barrier arrival may be left without its wait."""
        if self.cluster >= 0:
            self.fail(P.DRAIN, "exits after barrier.cluster.arrive (MODS start probe) without "
                      "the matching barrier.cluster.wait (end probe)")
        self._drain_checks("exits")

    def _drain_checks(self, what: str) -> None:
        for p, spec in enumerate(self.m.protocol.pipelines):
            for s in range(spec.stages):
                acquired, done, _ = self.ghost[self.m.slot_base[p] + s]
                commits = sum(1 for o in self.m.programs[self.i]
                              if isinstance(o, ProducerCommit) and o.pipe == spec.name)
                if commits and done and acquired <= done:
                    self.fail(P.DRAIN, f"{what} without waiting for the release of round "
                              f"{done - 1} of {spec.name} stage {s} (missing producer_tail)")

    def _agent_tuple(self, pc: int) -> tuple:
        return (pc, tuple(self.ps), tuple(self.tok), tuple(self.ghost), self.bar_wait,
                self.acc, self.unpub, self.seen, self.cluster, tuple(self.seq))

    def outcome(self) -> Outcome:
        pc = self.pc
        if self.advance_pc:
            pc = self.m.successors(self.i, self.pc)[1 if self.alt else 0]
        if pc >= len(self.m.programs[self.i]) and self.violation is None:
            self._finish_checks()
        self.agents[self.i] = self._agent_tuple(pc)
        state = (tuple(self.agents), self.barriers, self.inflight, self.landed, self.named,
                 self.gmem, self.outputs, self.cluster_gen, self.turns)
        step = Step(self.agent.name, self.op, self.stage, self.phase, self.barrier_text,
                    self.op.origin)
        return Outcome(state, step, self.violation)
