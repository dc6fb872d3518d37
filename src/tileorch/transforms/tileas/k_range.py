"""The K-loop range of a tier dot kernel: an analysis (it changes no IR).

A K loop ``scf.for %iv = start to stop step step`` (``scf.for``'s step is positive) runs
``trip = ceil(max(stop - start, 0) / step)`` iterations; iteration ``i`` has ``iv = start + step * i``.
An operand load's K tile coordinate is read as an affine map of the iv,
``(scale * iv + offset) // divisor`` (:class:`TileMap`): ``k``, ``k * 2 + 1``, ``k - lo``,
``k0 // tk`` of a loop over element offsets ``range(0, K, tk)``, with ``offset`` a constant plus
loop-invariant program values (block ids, arguments).  Iteration ``i`` then reads K tile
``first + stride * i`` with ``first = (scale * start + offset) // divisor`` and
``stride = scale * step / divisor``; the division is exact for every ``i`` when ``divisor`` divides
``scale * step`` (a constant step), which :func:`k_loop` requires.

:func:`k_loop` gives the lowerings (``convert-nv-tileas-to-cutlass``'s GEMM, the chained-dots
kernel) a :class:`KLoop`: what the producer needs for its TMA coordinates (``first``, ``stride``)
and every agent for its trip count; :meth:`KLoop.emit` evaluates them in registers, given how to
evaluate a program value (the lowering's own scalar evaluation).  A constant range from tile 0 in
steps of one tile covers the first :meth:`KLoop.tiles_from_zero` K tiles (a GEMM runs such a
program as a plain GEMM over that much of K).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from tileorch.dialects.constants import constant_int

PASS_THROUGH = ("arith.index_cast", "arith.extsi", "arith.extui", "arith.trunci", "nv_tileaa.assume")
"""Ops a K tile index passes through unchanged (integer casts, value assumptions)."""


def strip(v: SSAValue) -> SSAValue:
    """``v`` without the casts and assumptions of :data:`PASS_THROUGH`."""
    while isinstance(v.owner, Operation) and v.owner.name in PASS_THROUGH:
        v = v.owner.operands[0]
    return v


def constant(v: SSAValue) -> int | None:
    """The integer constant ``v`` holds (through casts), else None."""
    return constant_int(strip(v))


def _loop_of(v: SSAValue) -> scf.ForOp | None:
    """The ``scf.for`` whose induction variable ``v`` is, else None."""
    if isinstance(v, BlockArgument) and v.index == 0 and isinstance(v.owner.parent_op(), scf.ForOp):
        return v.owner.parent_op()
    return None


def _invariant(v: SSAValue, loop: scf.ForOp) -> bool:
    """``v`` is defined outside ``loop`` (the same in every iteration)."""
    owner = v.owner.parent_op() if isinstance(v, BlockArgument) else v.owner
    return owner is None or not (owner is loop or loop.is_ancestor(owner))


@dataclass(frozen=True)
class TileMap:
    """``(scale * iv + const + sum(c * v for c, v in terms)) // divisor``: a K tile coordinate as a
    function of the loop's iv; ``terms`` are loop-invariant program values (stripped of casts) with
    their integer coefficients."""

    scale: int = 1
    const: int = 0
    terms: tuple[tuple[int, SSAValue], ...] = ()
    divisor: int = 1

    @property
    def identity(self) -> bool:
        return self == TileMap()

    def same(self, other: TileMap) -> bool:
        """The same map (terms compared as values)."""
        return (self.scale, self.const, self.divisor) == (other.scale, other.const, other.divisor) and \
            _coefficients(self.terms) == _coefficients(other.terms)

    def describe(self) -> str:
        text = "k" if self.scale == 1 else f"{self.scale} * k"
        if self.const:
            text += f" {'+' if self.const > 0 else '-'} {abs(self.const)}"
        text += "".join(f" {'+' if c > 0 else '-'} {'' if abs(c) == 1 else f'{abs(c)} * '}a program value"
                        for c, _ in _collect(self.terms).values())
        return text if self.divisor == 1 else f"({text}) // {self.divisor}"


def _collect(terms) -> dict:
    """``{id(value): (coefficient, value)}`` of ``terms``, like terms summed, zeros dropped."""
    out: dict = {}
    for c, v in terms:
        c0 = out.get(id(v), (0, v))[0]
        out[id(v)] = (c0 + c, v)
    return {k: cv for k, cv in out.items() if cv[0]}


def _coefficients(terms) -> dict:
    return {k: c for k, (c, _) in _collect(terms).items()}


def tile_map(v: SSAValue) -> tuple[scf.ForOp, TileMap] | None:
    """(the loop, the map) when the tile index ``v`` is an affine function of one ``scf.for``'s
    iv (:class:`TileMap`), else None (no iv, or not affine: ``k * k``, ``k // n`` of a runtime n)."""
    found: list[scf.ForOp] = []

    def walk(x: SSAValue) -> TileMap | None:  # None: not affine; TileMap(scale=0): invariant
        x = strip(x)
        loop = _loop_of(x)
        if loop is not None:
            if found and found[0] is not loop:
                return None
            found[:1] = [loop]
            return TileMap()
        c = constant_int(x)
        if c is not None:
            return TileMap(scale=0, const=c)
        op = x.owner
        name = op.name.replace("nv_tileaa.", "arith.") if isinstance(op, Operation) else ""
        if name in ("arith.addi", "arith.subi"):
            lhs, rhs = walk(op.operands[0]), walk(op.operands[1])
            if lhs is None or rhs is None:
                return None
            if lhs.divisor != 1 or rhs.divisor != 1:
                return None
            if name == "arith.subi":
                rhs = TileMap(-rhs.scale, -rhs.const, tuple((-c, t) for c, t in rhs.terms))
            return TileMap(lhs.scale + rhs.scale, lhs.const + rhs.const, lhs.terms + rhs.terms)
        if name == "arith.muli":
            lhs, rhs = walk(op.operands[0]), walk(op.operands[1])
            if lhs is None or rhs is None:
                return None
            for a, b in ((lhs, rhs), (rhs, lhs)):
                if b.scale == 0 and not b.terms and b.divisor == 1 and a.divisor == 1:
                    return TileMap(a.scale * b.const, a.const * b.const, tuple((c * b.const, t) for c, t in a.terms))
            return None
        if name == "arith.floordivsi":
            inner, d = walk(op.operands[0]), constant(op.operands[1])
            if inner is None or d is None or d <= 0 or inner.divisor != 1:
                return None
            if inner.scale == 0 and not inner.terms:
                return TileMap(scale=0, const=inner.const // d)
            return TileMap(inner.scale, inner.const, inner.terms, d)
        # any other value: a program value, invariant when defined outside the loop (checked below)
        return TileMap(scale=0, terms=((1, x),))

    m = walk(v)
    if m is None or not found or m.scale == 0 or not all(_invariant(t, found[0]) for _, t in m.terms):
        return None
    return found[0], TileMap(m.scale, m.const, tuple(_collect(m.terms).values()), m.divisor)


@dataclass
class KLoop:
    """A K loop's range and the tile map its operand loads share."""

    loop: scf.ForOp
    start: SSAValue
    stop: SSAValue
    step: SSAValue
    map: TileMap

    @property
    def step_c(self) -> int | None:
        return constant(self.step)

    @property
    def start_c(self) -> int | None:
        return constant(self.start)

    @property
    def stop_c(self) -> int | None:
        return constant(self.stop)

    @property
    def stride_c(self) -> int | None:
        """K tiles between two iterations, when constant."""
        step = self.step_c
        return None if step is None else self.map.scale * step // self.map.divisor

    @property
    def trip_c(self) -> int | None:
        """The trip count when the bounds are constants."""
        a, b, s = self.start_c, self.stop_c, self.step_c
        return None if None in (a, b, s) else -(-max(b - a, 0) // s)

    @property
    def first_c(self) -> int | None:
        """The first iteration's K tile when constant."""
        a = self.start_c
        if a is None or self.map.terms:
            return None
        return (self.map.scale * a + self.map.const) // self.map.divisor

    def tiles_from_zero(self) -> int | None:
        """``T`` when the loop reads K tiles ``0, 1, .., T - 1`` in order, whatever the program ids
        and arguments (constant bounds, first tile 0, stride 1), else None."""
        if self.first_c == 0 and self.stride_c == 1 and self.trip_c is not None:
            return self.trip_c
        return None

    @property
    def identity(self) -> bool:
        """``range(0, stop)`` with the iv as the tile index."""
        return self.start_c == 0 and self.step_c == 1 and self.map.identity

    def values(self) -> list[SSAValue]:
        """The program values the range reads (to check the lowering can evaluate them)."""
        return [self.start, self.stop, self.step, *(t for _, t in self.map.terms)]

    def describe(self) -> str:
        def show(v, c):
            return str(c) if c is not None else "a program value"
        return (f"range({show(self.start, self.start_c)}, {show(self.stop, self.stop_c)}, "
                f"{show(self.step, self.step_c)}) with K tile {self.map.describe()}")

    def emit(self, e, scalar: Callable[[SSAValue], SSAValue]) -> tuple[SSAValue, SSAValue, SSAValue]:
        """(trip count, first K tile, K tiles per iteration) as i32 registers, emitted by ``e`` (an
        :class:`~tileorch.transforms.tileaa_to_simt.emit.Emitter`); ``scalar(v)`` evaluates program
        value ``v`` as an i32 register."""
        start, stop = scalar(self.start), scalar(self.stop)
        step_c = self.step_c
        step = e.const(step_c) if step_c is not None else scalar(self.step)
        span = e.v(arith.MaxSIOp(e.v(arith.SubiOp(stop, start)), e.const(0)))
        trip = span if step_c == 1 else e.v(arith.DivSIOp(e.add_i(span, e.v(arith.SubiOp(step, e.const(1)))),
                                                          step))
        m = self.map
        x = start if m.scale == 1 else e.mul_i(start, e.const(m.scale))
        if m.const:
            x = e.add_i(x, e.const(m.const))
        for c, t in m.terms:
            x = e.add_i(x, scalar(t) if c == 1 else e.mul_i(scalar(t), e.const(c)))
        first = x if m.divisor == 1 else floor_div(e, x, m.divisor)
        stride_c = self.stride_c
        stride = e.const(stride_c) if stride_c is not None else (step if m.scale == 1 else
                                                                  e.mul_i(step, e.const(m.scale)))
        return trip, first, stride


def floor_div(e, x: SSAValue, d: int) -> SSAValue:
    """``floor(x / d)`` of a signed i32 ``x`` and a constant ``d > 0``."""
    neg = e.v(arith.CmpiOp(x, e.const(0), "slt"))
    biased = e.v(arith.SelectOp(neg, e.v(arith.SubiOp(x, e.const(d - 1))), x))
    return e.v(arith.DivSIOp(biased, e.const(d)))


class KRangeError(ValueError):
    """A K loop :func:`k_loop` cannot describe; ``op`` is where, the message says why."""

    def __init__(self, op: Operation, why: str):
        super().__init__(why)
        self.op = op


def k_loop(loop: scf.ForOp, indices: list[SSAValue]) -> KLoop:
    """The range of ``loop`` and the one map its operand loads' K tile ``indices`` share (each read
    through the iv of ``loop`` or of a loop with the same bounds: a producer agent's copy).  A
    :class:`KRangeError` says why not: an index that is not affine in the iv, maps that differ, a
    runtime step with a divided index, a division that is not exact on the loop's lattice."""
    maps = []
    for v in indices:
        found = tile_map(v)
        if found is None:
            raise KRangeError(loop, "a K tile index is not an affine function of the loop's iv "
                                    "(scale * k + offset, optionally // a constant)")
        other, m = found
        if other is not loop and (other.lb, other.ub, other.step) != (loop.lb, loop.ub, loop.step):
            raise KRangeError(other, "a K tile index reads the iv of a loop other than the K loop")
        maps.append(m)
    if not maps:
        raise KRangeError(loop, "no K tile index reads the loop's iv")
    if any(not m.same(maps[0]) for m in maps[1:]):
        raise KRangeError(loop, "the operands' K tile indices are different functions of the iv ("
                                + ", ".join(m.describe() for m in maps) + ")")
    kl = KLoop(loop, loop.lb, loop.ub, loop.step, maps[0])
    m = kl.map
    if m.divisor != 1:
        step = kl.step_c
        if step is None or (m.scale * step) % m.divisor:
            raise KRangeError(loop, f"the K tile index {m.describe()} does not advance by a whole number of tiles "
                                    "per iteration (the step must be a constant multiple of the divisor)")
    return kl


__all__ = ["KLoop", "KRangeError", "TileMap", "floor_div", "k_loop", "tile_map"]
