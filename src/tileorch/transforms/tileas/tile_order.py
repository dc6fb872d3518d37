"""Tile orders: how a program numbers the output tiles it computes, read from its scalar IR.

A tile program that runs on a 1-D grid (or walks a persistent loop) turns one linear index ``t``
into the coordinates of the tile it computes.  cuTile programs write two orders:

* **row-major (or column-major) raster**: ``t // X`` and ``t % X`` with ``X`` the number of tiles
  along one axis;
* **grouped raster** (the L2-friendly order of cuTile's and Triton's matmul samples): with ``G``
  rows per group, ``w = G * tiles_minor``, ``first = (t // w) * G``,
  ``size = min(tiles_major - first, G)``, the major coordinate ``first + t % size`` (or, as
  Triton's later tutorial writes it, ``first + (t % w) % size``) and the minor ``(t % w) // size``
  (floor division and modulo, as cuTile lowers ``//`` and ``%`` with their sign fix-ups).

For ``t`` in ``[0, tiles_major * tiles_minor)`` both are one-to-one onto the tile grid (grouped:
group ``g`` holds the ``size * tiles_minor`` indices ``g*w ..``; inside it ``u = t % w`` maps to
``(u % size, u // size)``, a bijection of ``[0, size*tiles_minor)`` onto
``[0, size) x [0, tiles_minor)``; ``t % size`` and ``u % size`` both run through every residue
once over each ``size`` consecutive ``u``, so either major coordinate is one-to-one).  So a kernel
whose tiles are independent computes the same result when the tiles are walked in any other
order, e.g. the kernel builder's persistent scheduler's.  :func:`grouped_coordinates` recognises
the grouped order (the raster form is read by ``tileas-program-loop-to-tiles`` itself).

Tile counts are read from the IR: ``get_dim_size`` of a tiled view, or ``ceildiv(extent, tile)``
of an array extent along the axis the coordinate indexes, with the tile extent of a view that
coordinate indexes (the program's arrays are assumed to agree on M and N, as for any GEMM).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.constants import constant_int
from tileorch.dialects.nv_tileaa.attrs import ints

FLOORDIV = ("arith.floordivsi", "arith.divsi", "arith.divui", "nv_tileaa.divi", "nv_tileaa.floordivi")
REM = ("arith.remsi", "arith.remui", "nv_tileaa.remi")
MUL = ("arith.muli", "nv_tileaa.muli")
ADD = ("arith.addi", "nv_tileaa.addi")
SUB = ("arith.subi", "nv_tileaa.subi")
MIN = ("arith.minsi", "arith.minui", "nv_tileaa.mini")
CEILDIV = ("arith.ceildivsi", "arith.ceildivui")


def _op(v: SSAValue, names: tuple[str, ...]) -> Operation | None:
    owner = v.owner
    return owner if isinstance(owner, Operation) and owner.name in names else None


def _strip(v: SSAValue) -> SSAValue:
    """Through ``nv_tileaa.assume`` (facts about a value are the same value)."""
    while isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.assume":
        v = v.owner.operands[0]
    return v


def _floor_rem(v: SSAValue) -> tuple[SSAValue, SSAValue] | None:
    """``(x, d)`` when ``v`` is ``x mod d`` with floor semantics: a plain remainder, or cuTile's
    sign fix-up ``select((r < 0) xor (d < 0) and r != 0, r + d, r)`` of ``r = x rem d``."""
    rem = _op(v, REM)
    if rem is not None:
        return rem.operands[0], rem.operands[1]
    sel = _op(v, ("arith.select",))
    if sel is None:
        return None
    r = sel.operands[2]
    rem = _op(r, REM)
    if rem is None:
        return None
    x, d = rem.operands
    add = _op(sel.operands[1], ADD)
    if add is None or {add.operands[0], add.operands[1]} != {r, d}:
        return None
    if not _is_sign_fixup(sel.operands[0], r, d):
        return None
    return x, d


def _is_lt_zero(v: SSAValue, x: SSAValue) -> bool:
    cmp = _op(v, ("arith.cmpi",))
    return cmp is not None and cmp.predicate.value.data == 2 and cmp.operands[0] == x \
        and constant_int(cmp.operands[1]) == 0


def _is_sign_fixup(cond: SSAValue, r: SSAValue, d: SSAValue) -> bool:
    and_ = _op(cond, ("arith.andi",))
    if and_ is None:
        return False
    for xor_v, ne_v in (and_.operands, and_.operands[::-1]):
        xor = _op(xor_v, ("arith.xori",))
        ne = _op(ne_v, ("arith.cmpi",))
        if xor is None or ne is None or ne.predicate.value.data != 1 or ne.operands[0] != r \
                or constant_int(ne.operands[1]) != 0:
            continue
        p, q = xor.operands
        if (_is_lt_zero(p, r) and _is_lt_zero(q, d)) or (_is_lt_zero(q, r) and _is_lt_zero(p, d)):
            return True
    return False


def _floor_div(v: SSAValue) -> tuple[SSAValue, SSAValue] | None:
    op = _op(v, FLOORDIV)
    return (op.operands[0], op.operands[1]) if op is not None else None


def _product(v: SSAValue) -> tuple[SSAValue, SSAValue] | None:
    op = _op(v, MUL)
    return (op.operands[0], op.operands[1]) if op is not None else None


@dataclass(frozen=True)
class Axis:
    """Where a coordinate is used: the arrays' memrefs and axes it indexes, with the tile extents."""

    uses: tuple[tuple[SSAValue, int, int], ...]
    """(memref, axis, tile extent) for each tiled load/store index the coordinate feeds."""


def coordinate_axes(value: SSAValue, scope: list[Operation]) -> Axis:
    uses = []
    for op in scope:
        if isinstance(op, aa.TiledLoadOp | aa.TiledStoreOp):
            view = op.view
            tile = ints(view.type.tile)
            for axis, idx in enumerate(op.indices):
                if idx == value and isinstance(view.owner, Operation) and view.owner.operands:
                    uses.append((view.owner.operands[0], axis, int(tile[axis])))
    return Axis(tuple(uses))


def is_tile_count(v: SSAValue, axis: Axis) -> bool:
    """``v`` counts the tiles along the axis the coordinate indexes (see the module doc)."""
    if not axis.uses:
        return False
    v = _strip(v)
    if isinstance(v.owner, aa.GetDimSizeOp):
        view = v.owner.operands[0]
        index = v.owner.index.value.data
        tile = ints(view.type.tile)[index]
        base = view.owner.operands[0] if isinstance(view.owner, Operation) and view.owner.operands else None
        return any(base == m and index == ax and tile == t for m, ax, t in axis.uses)
    cd = _op(v, CEILDIV)
    if cd is None:  # an array extent itself counts the tiles of an axis of tile extent 1 (a batch axis)
        return any(t == 1 and _array_extent(memref, ax) == v for memref, ax, t in axis.uses)
    extent, tile = _strip(cd.operands[0]), constant_int(cd.operands[1])
    return any(tile == t and _array_extent(memref, ax) == extent for memref, ax, t in axis.uses)


def _array_extent(memref: SSAValue, ax: int) -> SSAValue | None:
    """The value of the dynamic extent ``ax`` of ``memref`` (an ``nv_tileaa.make_memref``), through
    ``assume``; None for a static extent or another memref."""
    if not isinstance(memref.owner, aa.MakeMemrefOp):
        return None
    dims = [d.data for d in memref.type.shape.data] if isinstance(memref.type, aa.MemRefType) else []
    if ax >= len(dims) or dims[ax] != aa.DYNAMIC:
        return None
    dynamic = [i for i, d in enumerate(dims) if d == aa.DYNAMIC]
    return _strip(memref.owner.shape[dynamic.index(ax)])


@dataclass(frozen=True)
class GroupedOrder:
    """The grouped raster of ``t``: ``major``/``minor`` are the coordinate values, ``ops`` the
    scalar ops computing them, ``count`` the tile counts (major, minor)."""

    major: SSAValue
    minor: SSAValue
    count: tuple[SSAValue, SSAValue]
    group: int


def grouped_coordinates(t: SSAValue, a: SSAValue, b: SSAValue, scope: list[Operation]) -> GroupedOrder | None:
    """The grouped order (module doc) when one of ``a``/``b`` is its major coordinate and the other
    its minor coordinate, both of index ``t``; None otherwise."""
    for major, minor in ((a, b), (b, a)):
        found = _grouped(t, major, minor, scope)
        if found is not None:
            return found
    return None


def _grouped(t: SSAValue, major: SSAValue, minor: SSAValue, scope: list[Operation]) -> GroupedOrder | None:
    add = _op(major, ADD)
    if add is None:
        return None
    for first, local in (add.operands, add.operands[::-1]):
        fr = _floor_rem(local)
        prod = _product(first)
        if fr is None or prod is None:
            continue
        inner = _floor_rem(fr[0])  # Triton's later form: (t % w) % size (w checked below)
        if fr[0] != t and (inner is None or inner[0] != t):
            continue
        size = fr[1]
        for quot, g in (prod, prod[::-1]):
            group = constant_int(g)
            fd = _floor_div(quot)
            if group is None or group <= 0 or fd is None or fd[0] != t:
                continue
            width = fd[1]
            wp = _product(width)
            if wp is None or (fr[0] != t and inner[1] != width):
                continue
            minor_count = wp[1] if constant_int(wp[0]) == group else (wp[0] if constant_int(wp[1]) == group else None)
            if minor_count is None:
                continue
            mn = _op(size, MIN)
            if mn is None:
                continue
            if constant_int(mn.operands[1]) == group:
                diff = mn.operands[0]
            elif constant_int(mn.operands[0]) == group:
                diff = mn.operands[1]
            else:
                continue
            sub = _op(diff, SUB)
            if sub is None or sub.operands[1] != first:
                continue
            major_count = sub.operands[0]
            # the minor coordinate: (t mod width) floordiv size
            md = _floor_div(minor)
            if md is None or md[1] != size:
                continue
            mr = _floor_rem(md[0])
            if mr is None or mr[0] != t or mr[1] != width:
                continue
            if not (is_tile_count(major_count, coordinate_axes(major, scope))
                    and is_tile_count(minor_count, coordinate_axes(minor, scope))):
                continue
            return GroupedOrder(major, minor, (major_count, minor_count), group)
    return None
