"""The consumer program of a chained-dots kernel whose consumer loop waits on the K/V ring's full
barriers more than once per iteration (``TILEORCH_ATTN_K_AHEAD``: tile ``j``'s wait at the loop's
top and, under ``scf.if j + 1 < n``, tile ``j + 1``'s while tile ``j``'s first dot runs; tile 0's
under ``scf.if n > 0`` before the loop), read from the IR in program order for one consumer warp
group (used by :mod:`tileorch.analysis.extract_chained`).

What is read, and how:

* Every ring op names a *tile*: its barrier address is ``getelementptr %smem[remui(X, S) * 8 +
  base]`` and a wait's parity ``andi(divui(X, S), 1)`` of the same ``X`` (a wait whose stage and
  parity name different tiles is a located error: the stage and parity of one round never
  disagree in a sound ring), ``X`` being ``iv + d`` / ``iv`` (in the loop), a constant ``c``, each
  plus the work loop's ring count in a persistent kernel.
* A full-barrier wait becomes ``ConsumerWait(again=True)`` + ``ConsumerRead`` on the state of its
  tile; an empty-barrier arrive ``ConsumerRead`` + ``ConsumerRelease``; a named barrier
  ``BarSync`` / ``BarArrive`` with its id evaluated for the warp group.  States: one per tile
  offset ``d`` (``t<d>``, at tile ``lower + d`` before the loop; every state advances once per
  iteration); a constant tile ``c`` before the loop is state ``t<c - lower>``.
* Guards: ``scf.if n > c`` outside the loop runs its side once when ``k > c``; ``scf.if j + d <
  n`` in the loop splits the iterations into segments (all guards true up to ``n - max d``, then
  one segment per distinct offset, each ``Trip`` capped), so each segment's body is straight-line.
  A guard on the warp group (``tid / 128``) is evaluated for it.  Anything else around a ring op or
  a named barrier is a located error.

Whether a wait acquires the tile's round or waits again on one the warp group holds is not
decided here: the checker decides it per step from the state's round
(:attr:`~tileorch.analysis.protocol.ConsumerWait.again`), and reports a wait on a round the group
released, a skipped round, or parity aliasing."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch.analysis.protocol import (Advance, BarArrive, BarSync, ConsumerRead, ConsumerRelease, ConsumerWait,
                                        Loop, StateDecl, Trip)
from tileorch.diagnostics import LocatedError


def _is(v: SSAValue, name: str) -> Operation | None:
    o = v.owner
    return o if isinstance(o, Operation) and o.name == name else None


class TileReader:
    """Reads the consumer side (``root``: the block holding the consumer loop, or a persistent
    kernel's work-loop body) of one chained kernel; :meth:`program` per warp group."""

    def __init__(self, ex, cons_loop: Operation, root, full: int, empty: int, ring: SSAValue | None,
                 consumer_threads: int, pipe: str, wg_threads: int):
        from tileorch.analysis import extract_chained as X

        self.X, self.ex = X, ex
        self.loop, self.root, self.full, self.empty, self.ring = cons_loop, root, full, empty, ring
        self.C, self.pipe, self.WG = consumer_threads, pipe, wg_threads
        self.S = ex.stages
        self.n = cons_loop.operands[1]
        self.iv = cons_loop.regions[0].blocks.first.args[0]
        lb, step = X._const(cons_loop.operands[0]), X._const(cons_loop.operands[2])
        if lb is None or step != 1:
            raise LocatedError(cons_loop, "check: a consumer loop with several full waits must run from a constant "
                                          "tile with step 1")
        self.lower = lb
        self.offsets: set[int] = set()

    # -- reading ring addresses ---------------------------------------------------------------------
    def _tile(self, x: SSAValue, at: Operation) -> tuple[bool, int]:
        """(in the loop's iv, constant) of the ring tile index ``x``."""
        if self.ring is not None:
            add = _is(x, "arith.addi")
            if add is None or add.operands[1] is not self.ring:
                raise LocatedError(at, "check: a persistent consumer's ring op whose tile is not `t + ring`")
            x = add.operands[0]
        if x is self.iv:
            return True, 0
        c = self.X._const(x)
        if c is not None:
            return False, c
        add = _is(x, "arith.addi")
        if add is not None and add.operands[0] is self.iv and self.X._const(add.operands[1]) is not None:
            return True, self.X._const(add.operands[1])
        raise LocatedError(at, "check: a consumer ring op whose tile is not the loop's iv plus a constant or a "
                               "constant")

    def _stage_of(self, addr: SSAValue, at: Operation) -> SSAValue:
        gep = _is(addr, "llvm.getelementptr")
        add = _is(gep.operands[1], "arith.addi") if gep is not None and len(gep.operands) >= 2 else None
        mul = _is(add.operands[0], "arith.muli") if add is not None else None
        rem = _is(mul.operands[0], "arith.remui") if mul is not None and self.X._const(mul.operands[1]) == 8 \
            else None
        if rem is None or self.X._const(rem.operands[1]) != self.S:
            raise LocatedError(at, f"check: a consumer ring barrier address that is not `remui(t, {self.S}) * 8 + "
                                   "base`")
        return rem.operands[0]

    def _parity_of(self, par: SSAValue, at: Operation) -> SSAValue:
        andi = _is(par, "arith.andi")
        div = _is(andi.operands[0], "arith.divui") if andi is not None and self.X._const(andi.operands[1]) == 1 \
            else None
        if div is None or self.X._const(div.operands[1]) != self.S:
            raise LocatedError(at, f"check: a consumer full wait whose parity is not `(t / {self.S}) & 1`")
        return div.operands[0]

    def _state(self, op: Operation, wait: bool) -> str:
        x = self._stage_of(op.operands[0], op)
        in_loop, c = self._tile(x, op)
        if wait:
            y = self._parity_of(op.operands[1], op)
            if y is not x and self._tile(y, op) != (in_loop, c):
                raise LocatedError(op, f"check: a full-barrier wait on the stage of tile {self._name(in_loop, c)} "
                                       f"with the parity of tile {self._name(*self._tile(y, op))}: the phase it "
                                       "waits for is not that tile's round")
        inside = self.loop.is_ancestor(op)
        if in_loop != inside:
            raise LocatedError(op, "check: a consumer ring op " + ("in the loop on a constant tile" if inside else
                                                                   "outside the loop on the loop's iv"))
        d = c if in_loop else c - self.lower
        if d < 0:
            raise LocatedError(op, f"check: a consumer ring op on tile {c}, before the loop's first tile "
                                   f"{self.lower}")
        self.offsets.add(d)
        return f"t{d}"

    @staticmethod
    def _name(in_loop: bool, c: int) -> str:
        return (f"j + {c}" if c else "j") if in_loop else str(c)

    # -- guards -------------------------------------------------------------------------------------
    def _interesting(self, op: Operation) -> bool:
        X = self.X
        return any((o.name == X.WAIT and X._ring_base(o.operands[0]) == self.full)
                   or (o.name == X.ARRIVE and X._ring_base(o.operands[0]) == self.empty)
                   or (o.name in (X.SYNC, X.HANDOFF) and len(o.operands) >= 2) for o in op.walk())

    def _guard(self, cond: SSAValue, wg: int, at: Operation):
        """1 / 0, ``("n>", c)`` (outside the loop) or ``("j<", d)`` (``j + d < n`` in the loop)."""
        X = self.X
        cmp = _is(cond, "arith.cmpi")
        if cmp is not None:
            a, b, pred = cmp.operands[0], cmp.operands[1], cmp.predicate.value.data  # 2 slt, 4 sgt
            if pred == 2:
                a, b, pred = b, a, 4
            if pred == 4 and a is self.n and X._const(b) is not None:
                return ("n>", X._const(b))
            if pred == 4 and a is self.n:
                if b is self.iv:
                    return ("j<", 0)
                add = _is(b, "arith.addi")
                if add is not None and add.operands[0] is self.iv and X._const(add.operands[1]) is not None:
                    return ("j<", X._const(add.operands[1]))
        v = X._agent_value(cond, wg, self.n, at, self.lower)
        if v == X.HAS_TILES:
            return ("n>", self.lower)
        return int(bool(v))

    # -- programs -----------------------------------------------------------------------------------
    def program(self, wg: int, count_ok) -> tuple:
        """The warp group's ops (without the states' initial advances: :meth:`prelude`; each loop
        iteration's advances are added by :func:`resolve` once every state is known)."""
        return tuple(self._block(self.root, wg, count_ok, None))

    def prelude(self) -> tuple:
        """The advances that put each state ``t<d>`` at tile ``lower + d`` (once per kernel)."""
        return tuple(Advance(f"t{d}", n=self.lower + d, origin=self.loop) for d in sorted(self.offsets)
                     if self.lower + d)

    def states(self) -> tuple[StateDecl, ...]:
        return tuple(StateDecl(f"t{d}", self.pipe, 0) for d in sorted(self.offsets))

    def _block(self, block, wg: int, count_ok, truth: dict | None) -> list:
        X, out = self.X, []
        for op in block.ops:
            if op is self.loop:
                out.extend(self._loop(wg, count_ok))
            elif op.name == X.WAIT and X._ring_base(op.operands[0]) == self.full:
                s = self._state(op, wait=True)
                out += [ConsumerWait(self.pipe, s, again=True, origin=op), ConsumerRead(self.pipe, s, origin=op)]
            elif op.name == X.ARRIVE and X._ring_base(op.operands[0]) == self.empty:
                s = self._state(op, wait=False)
                out += [ConsumerRead(self.pipe, s, origin=op),
                        ConsumerRelease(self.pipe, s, arrivals=self.WG, origin=op)]
            elif op.name in (X.SYNC, X.HANDOFF) and len(op.operands) >= 2:
                bid = X._agent_value(op.operands[0], wg, self.n, op, self.lower)
                count = X._const(op.operands[1])
                if not isinstance(bid, int) or bid == X.HAS_TILES or count is None or not count_ok(count):
                    raise LocatedError(op, f"check: a consumer named barrier with id {bid} and thread count {count} "
                                           "is not read")
                out.append((BarSync if op.name == X.SYNC else BarArrive)(bid, count, origin=op))
            elif not op.regions or not self._interesting(op):
                continue
            elif op.name == "scf.if":
                out.extend(self._if(op, wg, count_ok, truth))
            else:
                raise LocatedError(op, f"check: a ring op or named barrier of the consumer inside '{op.name}' is not "
                                       "read")
        return out

    def _if(self, op: Operation, wg: int, count_ok, truth: dict | None) -> list:
        g = self._guard(op.operands[0], wg, op)
        sides = [r.blocks.first if r.blocks else None for r in op.regions]
        if isinstance(g, int):
            return self._block(sides[1 - g], wg, count_ok, truth) if sides[1 - g] is not None else []
        kind, c = g
        if kind == "j<":
            if truth is None:
                raise LocatedError(op, "check: a guard on the loop's iv outside the loop")
            side = sides[0 if truth[c] else 1]
            return self._block(side, wg, count_ok, truth) if side is not None else []
        if truth is not None:
            raise LocatedError(op, "check: a guard on the tile count inside the consumer loop is not read")
        if sides[1] is not None and any(self._interesting(o) for o in sides[1].ops):
            if c != 0:
                raise LocatedError(op, f"check: ring ops or named barriers run when the trip count is at most {c}")
            # n <= 0: an instance without tiles (the model's instances have k >= 1)
        body = tuple(self._block(sides[0], wg, count_ok, None)) if sides[0] is not None else ()
        return [Loop(Trip("k", lower=c, cap=1), body, origin=op)] if body else []

    def _loop(self, wg: int, count_ok) -> list:
        body = self.loop.regions[0].blocks.first
        offs = set()
        for o in self.loop.walk():
            if o.name == "scf.if" and o is not self.loop and self._interesting(o):
                g = self._guard(o.operands[0], wg, o)
                if isinstance(g, tuple) and g[0] == "j<":
                    offs.add(g[1])
        ds = sorted(offs | {0}, reverse=True)
        segments = [(Trip("k", lower=self.lower + ds[0]), ds[0])]
        segments += [(Trip("k", lower=self.lower + d, cap=prev - d), d) for prev, d in zip(ds, ds[1:])]
        out = []
        for trip, top in segments:
            truth = {d: d <= top for d in offs | {0}}
            ops = self._block(body, wg, count_ok, truth)
            out.append(Loop(trip, tuple(ops), origin=self.loop))  # advances: resolve()
        return out


def resolve(ops: tuple, reader: TileReader) -> tuple:
    """``ops`` with each loop body's per-iteration advances filled in (one ``Advance`` per state)."""
    out = []
    for op in ops:
        if isinstance(op, Loop):
            body = resolve(op.body, reader)
            if op.origin is reader.loop:
                body = (*body, *(Advance(f"t{d}", origin=reader.loop) for d in sorted(reader.offsets)))
            out.append(Loop(op.trip, body, origin=op.origin))
        else:
            out.append(op)
    return tuple(out)
