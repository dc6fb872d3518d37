"""Precomputed per-op transition tables: the model checker's fast path.

:class:`~tileorch.analysis.machine.Machine` interprets an op by dispatching on its type
(:class:`~tileorch.analysis.machine._Exec`), which builds traces and violation messages.  The
search only needs the successor state, and on almost every transition no check fails.  This
module compiles each (agent, pc) once into a small tuple (what kind of step, which state
variable, which barriers, the program counter after it) and executes the common pipeline ops
(mbarrier acquire / wait / commit / release, TMA issue, read, advance) directly on the state
tuples.

Contract: :meth:`CompiledSteps.step` returns exactly the state :meth:`Machine.fire` returns for
the same transition, or ``None`` whenever it is not sure: an op it does not compile (named
barriers, tokens, seq_bar, the cluster barrier, global memory, branches), or any check that
would fail.  The caller then runs :meth:`Machine.fire`, which produces the violation with its
message.  So the fast path changes how fast a state is reached, never which states or
violations are found; ``tests/unit/test_checker_compiled.py`` compares both on every explored
transition of several protocols.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tileorch.analysis.protocol import (Accumulate, Advance, ConsumerRead, ConsumerRelease, ConsumerWait,
                                        ProducerAcquire, ProducerCommit, ProducerWrite)

if TYPE_CHECKING:
    from tileorch.analysis.machine import Machine

_FULL, _EMPTY = 0, 1
# step kinds
ACQ, WAIT, COMMIT, RELEASE, WRITE, READ, ADV = range(7)
# enabledness kinds
ALWAYS, PARITY, SLOW = range(3)


class CompiledSteps:
    """Per-op tables of one :class:`Machine` and the fast successor / enabledness functions."""

    def __init__(self, m: Machine):
        self.m = m
        self.nslots = m.nslots
        self.ops: list[list[tuple | None]] = []
        self.en: list[list[tuple]] = []
        self.fuse: list[list[bool]] = []
        self.length = [len(p) for p in m.programs]
        self.drain_slots: list[tuple[int, ...]] = []
        for i, prog in enumerate(m.programs):
            self.ops.append([self._compile(i, pc) for pc in range(len(prog))])
            self.en.append([self._enabling(i, pc) for pc in range(len(prog))])
            self.fuse.append([isinstance(op, (Advance, ConsumerRead, Accumulate))
                              or m.silent[i][pc] for pc, op in enumerate(prog)])
            committed = {op.pipe for op in prog if isinstance(op, ProducerCommit)}
            self.drain_slots.append(tuple(
                m.slot_base[p] + s for p, spec in enumerate(m.protocol.pipelines)
                if spec.name in committed for s in range(spec.stages)))

    # --- compilation ---------------------------------------------------------------------

    def _plain(self, i: int, pc: int) -> bool:
        """An op on a mbarrier pipeline without token or named barrier."""
        m = self.m
        op = m.programs[i][pc]
        return (m.named_op[i][pc] is None and getattr(op, "token", None) is None
                and m.protocol.pipeline(op.pipe).named_ids is None)

    def _compile(self, i: int, pc: int) -> tuple | None:
        m = self.m
        op = m.programs[i][pc]
        nxt = m.next_pc[i][pc]
        cta = m.agents[i].cta
        if isinstance(op, Advance):
            v = m.svar[i][op.state]
            return (ADV, nxt, v, op.n, 1 if op.flip else 0, m.ring[i][v])
        kinds = (ProducerAcquire, ConsumerWait, ProducerCommit, ConsumerRelease, ProducerWrite,
                 ConsumerRead)
        if not isinstance(op, kinds) or not self._plain(i, pc):
            return None
        p = m.pipe_index[op.pipe]
        v = m.svar[i][op.state]
        base = m.slot_base[p]
        if isinstance(op, ProducerAcquire):
            readers = ()
            if not op.tail:
                readers = tuple(sorted({c for d in m.write_dsts.get((i, p), ())
                                        for c in m.consumers.get((p, d), ())}))
            return (ACQ, nxt, v, base, (cta * 2 + _EMPTY) * self.nslots, readers)
        if isinstance(op, ConsumerWait):
            if op.barrier != "full" or op.again:  # a wait that may name a held round: the machine's step
                return None
            unit = None
            if i in m.consumers.get((p, cta), ()):
                spec = m.protocol.pipelines[p]
                unit = spec.stage_bytes if spec.stage_bytes > 0 else len(
                    m.writers.get((p, cta), ()))
            return (WAIT, nxt, v, base, (cta * 2 + _FULL) * self.nslots, unit,
                    cta * self.nslots)
        if isinstance(op, ProducerCommit):
            return (COMMIT, nxt, v, base,
                    tuple((d * 2 + _FULL) * self.nslots for d in m._dsts(i, op)),
                    op.arrivals, op.tx_bytes)
        if isinstance(op, ConsumerRelease):
            return (RELEASE, nxt, v, base,
                    tuple((d * 2 + _EMPTY) * self.nslots for d in m._dsts(i, op)),
                    op.arrivals)
        if isinstance(op, ProducerWrite):
            dsts = m._dsts(i, op)
            return (WRITE, nxt, v, base, p, m.rounds_at[i][pc],
                    tuple(zip(dsts, m.write_shares(op, dsts))))
        return (READ, nxt, v, base)

    def _enabling(self, i: int, pc: int) -> tuple:
        m = self.m
        op = m.programs[i][pc]
        if isinstance(op, (ProducerAcquire, ConsumerWait)):
            if not self._plain(i, pc):
                return (SLOW,)
            side = _EMPTY if isinstance(op, ProducerAcquire) or op.barrier == "empty" else _FULL
            p = m.pipe_index[op.pipe]
            return (PARITY, m.svar[i][op.state],
                    (m.agents[i].cta * 2 + side) * self.nslots + m.slot_base[p])
        if type(op) in _ALWAYS_ENABLED:
            return (ALWAYS,)
        return (SLOW,)

    # --- execution -----------------------------------------------------------------------

    def enabled(self, state: tuple, i: int) -> bool:
        """:meth:`Machine.enabled` for an agent that has not finished."""
        agent = state[0][i]
        e = self.en[i][agent[0]]
        if e[0] == ALWAYS:
            return True
        if e[0] == PARITY:
            index, phase, _count = agent[1][e[1]]
            return (state[1][e[2] + index][3] & 1) != (phase & 1)
        return self.m.enabled(state, i)

    def step(self, state: tuple, i: int) -> tuple | None:
        """The successor of agent ``i``'s step (with its fused invisible steps, as
        :meth:`Machine.fire`), or None when the op is not compiled or a check would fail."""
        agents = state[0]
        agent = agents[i]
        pc = agent[0]
        ops = self.ops[i]
        fuse = self.fuse[i]
        end = self.length[i]
        ps = agent[1]
        ghost = agent[3]
        barriers = state[1]
        inflight = state[2]
        landed = state[3]
        nslots = self.nslots
        ps_l = ghost_l = bar_l = land_l = None
        new_copies = None
        while True:
            c = ops[pc]
            if c is None:
                return None
            kind = c[0]
            if kind == ADV:
                if ps_l is None:
                    ps_l = list(ps)
                _k, _n, v, n, flip, stages = c
                index, phase, count = ps_l[v]
                for _ in range(n):
                    index += 1
                    if index == stages:
                        index = 0
                        phase ^= flip
                    count += 1
                ps_l[v] = (index, phase, count)
            else:
                v, base = c[2], c[3]
                index = (ps_l or ps)[v][0]
                g = base + index
                acquired, done, unfin = (ghost_l or ghost)[g]
                if kind == ACQ or kind == WAIT:
                    b = (bar_l or barriers)[c[4] + g]
                    if kind == ACQ:
                        if b[3] != acquired:
                            return None
                        for r in c[5]:
                            released = (ghost_l or ghost)[g][1] if r == i else agents[r][3][g][1]
                            if released < acquired:
                                return None
                    else:
                        if b[3] != acquired + 1:
                            return None
                        unit = c[5]
                        if unit is not None and \
                                (land_l or landed)[c[6] + g] != (acquired + 1) * unit:
                            return None
                    if ghost_l is None:
                        ghost_l = list(ghost)
                    ghost_l[g] = (acquired + 1, done, 0)
                elif kind == COMMIT or kind == RELEASE:
                    if bar_l is None:
                        bar_l = list(barriers)
                    if kind == COMMIT:
                        count, tx, ph = c[5], c[6], acquired - 1
                    else:
                        count, tx, ph = c[5], 0, done
                    for off in c[4]:
                        res = bar_l[off + g].arrive(count, tx, ph)
                        if res.misplaced:
                            return None
                        bar_l[off + g] = res.barrier
                    if ghost_l is None:
                        ghost_l = list(ghost)
                    ghost_l[g] = (acquired, done + 1, unfin)
                elif kind == WRITE:
                    if unfin or acquired <= done:
                        return None
                    p, rnd = c[4], c[5]
                    for d, nbytes in c[6]:
                        if nbytes > 0:
                            if new_copies is None:
                                new_copies = list(inflight)
                            new_copies.append((p, d, index, nbytes, rnd))
                        else:
                            if land_l is None:
                                land_l = list(landed)
                            land_l[d * nslots + g] += 1
                else:       # READ
                    if unfin or acquired == 0 or done >= acquired:
                        return None
            pc = c[1]
            if pc >= end:
                # the agent leaves: the drain check of Machine (a cluster arrival left open
                # or a slot filled and not seen released) goes to the slow path
                if agent[8] >= 0:
                    return None
                gh = ghost_l or ghost
                for s in self.drain_slots[i]:
                    acq, dn, _ = gh[s]
                    if dn and acq <= dn:
                        return None
                break
            if not fuse[pc]:
                break
        new_agent = (pc, ps if ps_l is None else tuple(ps_l), agent[2],
                     ghost if ghost_l is None else tuple(ghost_l)) + agent[4:]
        new_agents = agents[:i] + (new_agent,) + agents[i + 1:]
        return (new_agents,
                barriers if bar_l is None else tuple(bar_l),
                inflight if new_copies is None else tuple(sorted(new_copies)),
                landed if land_l is None else tuple(land_l)) + state[4:]

    def land(self, state: tuple, j: int) -> tuple | None:
        """:meth:`Machine._land` without the trace step; None where its check fails (more bytes
        than the phase expects, with no arrival left)."""
        pipe, cta, slot, nbytes, _round = state[2][j]
        g = self.m.slot_base[pipe] + slot
        k = cta * 2 * self.nslots + g
        barriers = list(state[1])
        b = barriers[k] = barriers[k].complete_tx(nbytes)
        if b.pending == 0 and b.tx < 0:
            return None
        landed = list(state[3])
        landed[cta * self.nslots + g] += nbytes
        return (state[0], tuple(barriers), state[2][:j] + state[2][j + 1:],
                tuple(landed)) + state[4:]


_ALWAYS_ENABLED = frozenset({
    ProducerWrite, ProducerCommit, ConsumerRead, ConsumerRelease, Advance, Accumulate,
})
