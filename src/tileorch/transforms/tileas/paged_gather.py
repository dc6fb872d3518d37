"""``tileas-paged-gather``: a K / V tile of a paged KV cache gathered slot by slot becomes its pages, each one tile
load (TMA), joined by ``ct.cat`` — the form the chained kernel loads page by page (``chained_dots._joined_operand``).

Users port vLLM's paged attention with a per-row gather: key ``t = j BN + r`` (``r`` the tile's row) is slot
``t % BS`` of page ``Table[b, t // BS]``::

    t = j * BN + ct.arange(BN)
    k = ct.gather(Kc, (ct.gather(Table, (b, t // BS))[:, None], (t % BS)[:, None], h, ct.arange(D)[None, :]))

(or a flat ``[slots, H, D]`` cache at row ``Table[b, t // BS] * BS + t % BS``).  Hopper's TMA has no row gather,
so the tier refused it ("this dot operand is gathered").  But when ``BS`` divides ``BN`` and the tile's first key
``j BN`` is a multiple of ``BS``, rows ``[p BS, (p + 1) BS)`` of the tile are slots ``0 .. BS - 1`` of one page,
``P_p = Table[b, j BN / BS + p]``: the tile is ``BN / BS`` tiles ``[BS, D]`` of the cache, one per page.

Matched (on ``nv_tileaa``, as ``convert-cudatile-to-tileaa`` lowers a bounds-checked gather) in the body of an
``scf.for`` holding a dot: ``%v, %tok = nv_tileaa.load offset(broadcast(splat(%base)), %lin) mask %m other 0`` of a
``[R, C]`` tile whose token nothing reads, where ``%lin`` is ``sum_k idx_k * stride_k`` and ``%m`` the and of
``idx_k ult extent_k`` over the array's dimensions (each index broadcast from the array's own shape / stride
values; or no mask and no padding: ``check_bounds=False``, whose out-of-bounds reads are undefined, the extents then
the argument's), the last dimension's index is ``arange(C)`` along the columns with stride 1, the others are scalars
(broadcast) or row vectors, and the row vectors are either a page index and a slot index — the page index
*block-uniform* (computed by side-effect-free elementwise ops and gathers from values built only from ``t // BS``,
scalars and constants), the slot index ``t % BS`` (cuTile's floor modulo) — or one flat row index
``page * BS + t % BS``; ``t = broadcast(s) + arange(R)`` with ``s`` a multiple of ``BS`` (:func:`_multiple`:
``j * BN`` with ``BN % BS == 0``, sums of such), ``R % BS == 0``, ``BS % 8 == 0`` (the chained kernel's page boxes
start on TMA's 8-row swizzle atom), a float constant in a page index a splat, every page / scalar index a 32-bit value
(at most 32 bits or sign-extended from one: the tile loads' i32 indices keep it).  Rewritten: a ``make_memref`` of the gathered array from the same pointer, shape
and strides (before the loop), a ``block_tile`` of ``[BS, C]`` tiles (unit extents elsewhere) and per page ``p`` a
``tiled_load`` at the page's tile index, the page index evaluated as scalars at row ``p BS`` (the block table's
gather becomes a scalar gather, which the producer agent replays), reshaped to ``[BS, C]`` and joined by ``cat``
along rows.  The same values: in bounds the same elements; out of bounds the gather's mask gives 0 and the tile
load's padding 0 (TMA's fill), dimension by dimension.  A located remark at the gather says so.  Anything else is
left alone (the chained analysis then refuses the gathered operand, located).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, IntegerType, ModuleOp,
                                   TensorType, i32)
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, MemRefType, TiledViewType
from tileorch.dialects.nv_tileaa.ops import BlockTileOp, MakeMemrefOp, ReshapeOp, TiledLoadOp
from tileorch.dialects.nv_tileaa.pointer_ops import LoadOp, OffsetOp
from tileorch.dialects.nv_tileaa.tile_ops import CatOp
from tileorch.transforms.pass_kinds import ModuleTransform

REMARK = ("K / V rows gathered slot by slot from a paged cache ({pages} pages of {bs} slots a {rows}-row tile): "
          "loaded page by page as {pages} TMA tiles of {bs} x {cols} (the tile's first key a multiple of the page "
          "size), each at its page's index read from the block table")

_SCALAR_TWINS = {"nv_tileaa.addi": arith.AddiOp, "nv_tileaa.subi": arith.SubiOp, "nv_tileaa.muli": arith.MuliOp,
                 "nv_tileaa.select": arith.SelectOp, "nv_tileaa.cmpi": None}
"""Elementwise tile ops a block-uniform value may be computed by, and their scalar ops (``nv_tileaa.cmpi`` too:
``arith.cmpi`` with the same predicate)."""
_SPREAD = ("nv_tileaa.broadcast", "nv_tileaa.splat", "nv_tileaa.expand_dims")
_CASTS = ("arith.extsi", "nv_tileaa.extsi")


def _owner(v: SSAValue) -> Operation | None:
    return v.owner if isinstance(v.owner, Operation) else None


def _is_range(v: SSAValue) -> bool:
    o = _owner(v)
    return o is not None and o.name == "nv_tileaa.make_range"


def _strip(v: SSAValue, names=(*_SPREAD, *_CASTS)) -> SSAValue:
    while (o := _owner(v)) is not None and o.name in names and o.operands:
        v = o.operands[0]
    return v


def _const(v: SSAValue) -> int | None:
    """The integer ``v`` holds at every element (a scalar or splat constant, through spreads and casts)."""
    o = _owner(_strip(v))
    if isinstance(o, arith.ConstantOp):
        val = o.value
        if isinstance(val, IntegerAttr):
            return val.value.data
        if isinstance(val, DenseIntOrFPElementsAttr):
            xs = set(val.get_values())
            if len(xs) == 1:
                x = xs.pop()
                return int(x) if isinstance(x, int) else None
    return None


def _splat(o: arith.ConstantOp) -> bool:
    """The constant holds one value at every element (a scalar, or a dense tensor of one distinct value)."""
    val = o.value
    return not isinstance(val, DenseIntOrFPElementsAttr) or len(set(val.get_values())) == 1


def _fits32(v: SSAValue) -> bool:
    """The integer ``v`` (a scalar or tile) is a 32-bit value: at most 32 bits wide, a sign extension of one
    (through spreads), or a constant in the i32 range — so :func:`_i32` truncating it to i32 keeps its value (the
    gather's bounds compare it at its own width)."""
    t = v.type.element_type if isinstance(v.type, TensorType) else v.type
    if isinstance(t, IntegerType) and t.width.data <= 32:
        return True
    o = _owner(_strip(v, _SPREAD))
    if o is not None and o.name in _CASTS:
        return _fits32(o.operands[0])
    c = _const(v)
    return c is not None and -2**31 <= c < 2**31


def _terms(v: SSAValue, op_name: str) -> list[SSAValue]:
    """The leaves of a tree of ``op_name`` (``nv_tileaa.addi`` / ``arith.andi``) ops."""
    o = _owner(v)
    if o is not None and o.name in op_name:
        return [x for a in o.operands for x in _terms(a, op_name)]
    return [v]


def _multiple(v: SSAValue, bs: int) -> bool:
    """The scalar ``v`` is a multiple of ``bs``: a constant one, a product with such a factor, or a sum or
    difference of such values."""
    c = _const(v)
    if c is not None:
        return c % bs == 0
    o = _owner(v)
    if o is None:
        return False
    if o.name in ("arith.muli", "nv_tileaa.muli"):
        return any(_multiple(x, bs) for x in o.operands)
    if o.name in ("arith.addi", "nv_tileaa.addi", "arith.subi", "nv_tileaa.subi"):
        return all(_multiple(x, bs) for x in o.operands)
    return False


def _cmp(v: SSAValue, pred: str) -> tuple[SSAValue, SSAValue] | None:
    o = _owner(v)
    if o is not None and o.name == "nv_tileaa.cmpi" and o.predicate.data == pred:
        return o.operands[0], o.operands[1]
    return None


def _floor_fix(cond: SSAValue, rem: SSAValue) -> bool:
    """``cond`` is the test of a floor modulo by a positive constant: ``((rem < 0) xor (bs < 0)) and rem != 0``
    (``bs < 0`` a comparison of constants, or a constant false)."""
    o = _owner(cond)
    if o is None or o.name != "arith.andi":
        return False
    for x, ne in ((o.operands[0], o.operands[1]), (o.operands[1], o.operands[0])):
        n = _cmp(ne, "ne")
        xo = _owner(x)
        if n is None or n[0] is not rem or _const(n[1]) != 0 or xo is None or xo.name != "arith.xori":
            continue
        for a, c in ((xo.operands[0], xo.operands[1]), (xo.operands[1], xo.operands[0])):
            lt, sign = _cmp(a, "slt"), _cmp(c, "slt")
            if lt is None or lt[0] is not rem or _const(lt[1]) != 0:
                continue
            if (sign is not None and (_const(sign[0]) or 0) >= 0 and _const(sign[0]) is not None
                    and _const(sign[1]) == 0) or _const(c) == 0:
                return True
    return False


class _Rows:
    """The row vectors of one gather: ``t = s + arange(R)`` (``s`` a multiple of ``bs``), what is block-uniform."""

    def __init__(self, rows: int):
        self.rows, self.bs, self.t = rows, None, None  # the block size and the t value, found on the way

    def key_index(self, v: SSAValue) -> bool:
        """``v`` is ``broadcast(s) + arange(rows)``, ``s`` a multiple of the block size (checked in :meth:`fits`)."""
        o = _owner(v)
        if o is None or o.name != "nv_tileaa.addi":
            return False
        a, b = o.operands
        for rng, base in ((a, b), (b, a)):
            r = _owner(rng)
            if r is not None and r.name == "nv_tileaa.make_range" and \
                    (r.start.value.data, r.end.value.data) == (0, self.rows) and \
                    not isinstance(_strip(base, _SPREAD).type, TensorType):
                if self.t is not None and self.t is not v:
                    return False
                self.t = v
                return True
        return False

    def fits(self) -> bool:
        """The tile's first key ``s`` is a multiple of the block size: ``s = x * c`` or ``c``, ``c % bs == 0``."""
        if self.t is None or self.bs is None or self.rows % self.bs or self.bs % 8:
            return False
        o = _owner(self.t)
        base = _strip(o.operands[1] if _is_range(o.operands[0]) else o.operands[0], _SPREAD)
        return _multiple(base, self.bs)

    def block(self, v: SSAValue) -> int | None:
        """``v`` is ``t // bs`` (floor division by a constant): the block size, else None."""
        o = _owner(v)
        if o is None or o.name != "arith.floordivsi" or not self.key_index(o.operands[0]):
            return None
        return _const(o.operands[1])

    def slot(self, v: SSAValue) -> bool:
        """``v`` is ``t % bs`` as cuTile lowers a floor modulo (``r = t rem bs``; ``r + bs`` where ``r`` and
        ``bs`` differ in sign and ``r != 0``)."""
        o = _owner(v)
        if o is None or o.name != "nv_tileaa.select":
            return False
        rem = o.operands[2]
        r = _owner(rem)
        if r is None or r.name != "arith.remsi" or not self.key_index(r.operands[0]):
            return False
        bs = _const(r.operands[1])
        add = _owner(o.operands[1])
        if bs is None or bs <= 0 or add is None or add.name != "nv_tileaa.addi" or rem not in add.operands or \
                _const(next(x for x in add.operands if x is not rem) if add.operands[0] is not add.operands[1]
                       else rem) != bs or not _floor_fix(o.operands[0], rem):
            return False
        return self._size(bs)

    def _size(self, bs: int) -> bool:
        if self.bs is None:
            self.bs = bs
        return self.bs == bs

    def uniform(self, v: SSAValue, seen: dict | None = None) -> bool:
        """``v`` (a row vector or scalar) is the same on each row block: built from ``t // bs``, scalars and
        constants by side-effect-free elementwise ops, pointer offsets and masked loads (a block table's gather)."""
        seen = {} if seen is None else seen
        if id(v) in seen:
            return seen[id(v)]
        seen[id(v)] = False
        o = _owner(v)
        if not isinstance(v.type, TensorType):
            ok = True
        elif o is None:
            ok = False
        elif (bs := self.block(v)) is not None:
            ok = self._size(bs)
        elif o.name in _SPREAD or o.name in _CASTS:
            ok = self.uniform(o.operands[0], seen)
        elif isinstance(o, arith.ConstantOp):  # a splat (one value at every element; :func:`_scalar` reads one)
            ok = _const(v) is not None or (not isinstance(v.type.element_type, IntegerType) and _splat(o))
        elif o.name == "nv_tileaa.make_range" or o.regions:
            ok = False
        elif isinstance(o, LoadOp):
            ok = not o.results[1].uses and all(self.uniform(x, seen) for x in o.operands if x is not o.token)
        elif isinstance(o, OffsetOp) or o.name in _SCALAR_TWINS or (o.name.startswith("arith.") and o.results):
            ok = all(self.uniform(x, seen) for x in o.operands)
        else:
            ok = False
        seen[id(v)] = ok
        return ok


def _scalar(v: SSAValue, row: int, rows: _Rows, emit, memo: dict) -> SSAValue:
    """The scalar a block-uniform ``v`` (:meth:`_Rows.uniform`) holds at row ``row``, emitted before the gather."""
    if not isinstance(v.type, TensorType):
        return v
    if id(v) in memo:
        return memo[id(v)]
    o = _owner(v)
    elt = v.type.element_type
    if rows.block(v) is not None:  # (s + row) // bs
        t = _owner(o.operands[0])
        base = t.operands[1] if _is_range(t.operands[0]) else t.operands[0]
        s = _scalar(_strip(base, _SPREAD), row, rows, emit, memo)
        at = emit(arith.AddiOp(s, emit(arith.ConstantOp(IntegerAttr(row, s.type))).result)).result
        out = emit(arith.FloorDivSIOp(at, emit(arith.ConstantOp(IntegerAttr(rows.bs, s.type))).result)).result
    elif o.name in _SPREAD:
        out = _scalar(o.operands[0], row, rows, emit, memo)
    elif o.name in _CASTS:
        out = emit(arith.ExtSIOp(_scalar(o.operands[0], row, rows, emit, memo), elt)).result
    elif isinstance(o, arith.ConstantOp):
        c = _const(v)
        out = emit(arith.ConstantOp(IntegerAttr(c, elt)) if c is not None else
                   arith.ConstantOp.from_float_and_width(float(next(iter(o.value.get_values()))), elt)).result
    elif isinstance(o, LoadOp):
        mask = _scalar(o.mask, row, rows, emit, memo) if o.mask is not None else None
        other = _scalar(o.other, row, rows, emit, memo) if o.other is not None else None
        new = LoadOp(_scalar(o.ptr, row, rows, emit, memo), elt, mask=mask, other=other, token=o.token)
        for prop in ("mem_semantic", "mem_scope"):
            if prop in o.properties:
                new.properties[prop] = o.properties[prop]
        out = emit(new).result
    elif isinstance(o, OffsetOp):
        out = emit(OffsetOp(_scalar(o.operands[0], row, rows, emit, memo),
                            _scalar(o.operands[1], row, rows, emit, memo))).result
    elif o.name == "nv_tileaa.cmpi":
        out = emit(arith.CmpiOp(*(_scalar(x, row, rows, emit, memo) for x in o.operands), o.predicate.data)).result
    elif o.name in _SCALAR_TWINS:
        out = emit(_SCALAR_TWINS[o.name](*(_scalar(x, row, rows, emit, memo) for x in o.operands))).result
    else:  # an arith op: the same op on the scalars
        new = type(o).create(operands=[_scalar(x, row, rows, emit, memo) for x in o.operands],
                             result_types=[r.type.element_type if isinstance(r.type, TensorType) else r.type
                                           for r in o.results],
                             properties=dict(o.properties), attributes=dict(o.attributes))
        out = emit(new).results[0]
    memo[id(v)] = out
    return out


def _uniform_scalar(v: SSAValue, emit) -> SSAValue:
    """The scalar a tile that is the same at every element holds (:func:`_plan` checked it: a spread scalar or a
    splat constant)."""
    x = _strip(v)
    if not isinstance(x.type, TensorType):
        return x
    return emit(arith.ConstantOp(IntegerAttr(_const(x), i32))).result


def _i32(v: SSAValue, emit) -> SSAValue:
    if v.type == i32:
        return v
    if isinstance(v.type, IntegerType) and v.type.width.data > 32:
        return emit(arith.TruncIOp(v, i32)).result
    return emit(arith.ExtSIOp(v, i32)).result


def _match(ld: LoadOp):
    """(array pointer, per dimension (index tile, extent, stride), the rows helper) of a bounds-checked 2-D gather
    with a zero padding whose token nothing reads, else None."""
    res = ld.results[0].type
    if not isinstance(res, TensorType) or len(res.get_shape()) != 2 or (ld.mask is None) != (ld.other is None):
        return None
    if ld.results[1].uses or (ld.other is not None and _const(ld.other) not in (0, None)) or (
            ld.other is not None and _const(ld.other) is None and not _zero_float(ld.other)):
        return None
    off = _owner(ld.ptr)
    if not isinstance(off, OffsetOp):
        return None
    base = _strip(off.operands[0], _SPREAD)
    if isinstance(base.type, TensorType):
        return None
    dims = []
    for term in _terms(off.operands[1], ("nv_tileaa.addi",)):
        m = _owner(term)
        if m is None or m.name != "nv_tileaa.muli":
            return None
        dims.append((m.operands[0], m.operands[1]))
    if ld.mask is None:  # check_bounds=False: no bounds (out of bounds is undefined; the tile loads read zeros)
        return base, [(i, None, s) for i, s in dims], _Rows(res.get_shape()[0])
    bounds = {}
    for c in _terms(ld.mask, ("arith.andi",)):
        o = _owner(c)
        if o is None or o.name != "nv_tileaa.cmpi" or o.predicate.data != "ult":
            return None
        bounds[id(o.operands[0])] = o.operands[1]
    if len(bounds) != len(dims) or any(id(i) not in bounds for i, _ in dims):
        return None
    return base, [(i, bounds[id(i)], s) for i, s in dims], _Rows(res.get_shape()[0])


def _zero_float(v: SSAValue) -> bool:
    o = _owner(_strip(v))
    if isinstance(o, arith.ConstantOp) and isinstance(o.value, DenseIntOrFPElementsAttr):
        return set(o.value.get_values()) == {0.0}
    if isinstance(o, arith.ConstantOp) and isinstance(o.value, FloatAttr):
        return o.value.value.data == 0.0
    return False


def _function_argument(v: SSAValue) -> BlockArgument | None:
    """The function argument ``v`` is (through ``assume`` and integer casts), else None."""
    v = _strip(v, ("nv_tileaa.assume", *_CASTS, *_SPREAD))
    if isinstance(v, BlockArgument) and v.owner.parent_op() is not None and \
            v.owner.parent_op().name == "nv_tileaa.func":
        return v
    return None


def _argument_order(base: SSAValue, dims: list) -> bool:
    """The gather's terms are the array argument's dimensions in order (the memref is made from them): the base is
    a function argument ``i`` whose extents are arguments ``i + 1 ..`` and strides ``i + 1 + rank ..`` (the
    launcher's order), the term of dimension ``k`` reading extent ``k`` and stride ``k`` (a constant stride only
    for the last dimension, 1)."""
    ptr = _function_argument(base)
    if ptr is None:
        return False
    n = len(dims)
    for k, (_, e, st) in enumerate(dims):
        ext = _function_argument(e) if e is not None else None
        if e is not None and (ext is None or ext.owner is not ptr.owner or ext.index != ptr.index + 1 + k):
            return False
        if _const(st) is not None:
            if k != n - 1 or _const(st) != 1:
                return False
            continue
        arg = _function_argument(st)
        if arg is None or arg.owner is not ptr.owner or arg.index != ptr.index + 1 + n + k:
            return False
    return True


def _plan(ld: LoadOp):
    """The rewrite of gather ``ld`` (module doc) as (pointer, dims, rows, per dimension its kind), else None:
    kinds ``("col",)``, ``("uni", scalar)``, ``("page", page tile)``, ``("slot",)``, ``("flat", page tile)``."""
    found = _match(ld)
    if found is None:
        return None
    base, dims, rows = found
    r, c = ld.results[0].type.get_shape()
    kinds = []
    for k, (idx, _, stride) in enumerate(dims):
        src = _strip(idx, ("nv_tileaa.broadcast", *_CASTS))
        st = list(src.type.get_shape()) if isinstance(src.type, TensorType) else []
        if not isinstance(src.type, TensorType) or (st and all(x == 1 for x in st)):
            kinds.append(("uni", _strip(idx)))
            continue
        ex = _owner(src)
        if st == [1, c]:  # along the columns: arange(c) from 0, the last dimension, stride 1
            rng = _owner(_strip(src))
            if k != len(dims) - 1 or rng is None or rng.name != "nv_tileaa.make_range" or \
                    (rng.start.value.data, rng.end.value.data) != (0, c) or _const(stride) != 1:
                return None
            kinds.append(("col",))
            continue
        if st != [r, 1] or ex is None or ex.name != "nv_tileaa.expand_dims":
            return None
        vec = _strip(ex.operands[0], _CASTS)
        if rows.slot(vec):
            kinds.append(("slot",))
        elif rows.uniform(vec):
            kinds.append(("page", vec))
        else:  # page * bs + t % bs
            add = _owner(vec)
            if add is None or add.name != "nv_tileaa.addi":
                return None
            a, b = add.operands
            slot, mul = (a, b) if rows.slot(a) else (b, a) if rows.slot(b) else (None, None)
            m = _owner(mul) if mul is not None else None
            if m is None or m.name != "nv_tileaa.muli":
                return None
            p, q = m.operands
            page = p if _const(q) == rows.bs else q if _const(p) == rows.bs else None
            if page is None or not rows.uniform(page):
                return None
            kinds.append(("flat", page))
    for _, e, st in dims:  # extents and strides: scalars spread over the tile, or splat constants
        for x in (e, st):
            if x is not None and isinstance(_strip(x).type, TensorType) and _const(x) is None:
                return None
    if not _argument_order(base, dims):
        return None
    if not all(_fits32(k[1]) for k in kinds if k[0] in ("uni", "page", "flat")):
        return None  # a 64-bit index that is not a sign-extended 32-bit value: the tile index (i32) would wrap
    names = [k[0] for k in kinds]
    ok = (names.count("col") == 1 and names[-1] == "col" and
          ((names.count("page") == 1 and names.count("slot") == 1 and "flat" not in names) or
           (names.count("flat") == 1 and "page" not in names and "slot" not in names)))
    if not ok or not rows.fits():
        return None
    return base, dims, rows, kinds


def _rewrite(ld: LoadOp, loop: scf.ForOp, plan) -> str:
    base, dims, rows, kinds = plan
    r, c = ld.results[0].type.get_shape()
    elt = ld.results[0].type.element_type
    rw = Rewriter()

    def before(anchor):
        def emit(op):
            copy_location(ld, [op])
            rw.insert_op(op, InsertPoint.before(anchor))
            return op
        return emit

    outside, inside = before(loop), before(ld)
    shape_static = [DYNAMIC] * len(dims)
    strides_static = [DYNAMIC if _const(s) is None else _const(s) for _, _, s in dims]
    mt = MemRefType(elt, shape_static, strides_static, i32)
    ptr = _function_argument(base)
    shape_vals = [_i32(_uniform_scalar(e, outside) if e is not None else ptr.owner.args[ptr.index + 1 + k], outside)
                  for k, (_, e, _) in enumerate(dims)]
    stride_vals = [_i32(_uniform_scalar(s, outside), outside) for (_, _, s), st in zip(dims, strides_static)
                   if st == DYNAMIC]
    mm = outside(MakeMemrefOp(base, shape_vals, stride_vals, mt))
    tile = [c if k[0] == "col" else rows.bs if k[0] in ("slot", "flat") else 1 for k in kinds]
    view = outside(BlockTileOp(mm.result, TiledViewType(tile, mt))).result
    zero = inside(arith.ConstantOp(IntegerAttr(0, i32))).result
    parts = []
    for p in range(r // rows.bs):
        memo: dict = {}  # (the scalars of row p bs)
        idx = []
        for k in kinds:
            if k[0] in ("col", "slot"):
                idx.append(zero)
            elif k[0] == "uni":
                idx.append(_i32(k[1], inside))
            else:  # the page (its tile index: tile extent 1, or bs rows of a flat cache)
                idx.append(_i32(_scalar(k[1], p * rows.bs, rows, inside, memo), inside))
        t = inside(TiledLoadOp(view, idx, TensorType(elt, tile), token=ld.token))
        for prop in ("mem_semantic", "mem_scope"):
            if prop in ld.properties:
                t.properties[prop] = ld.properties[prop]
        parts.append(inside(ReshapeOp.create(operands=[t.result], result_types=[TensorType(elt, [rows.bs, c])]))
                     .results[0])
    while len(parts) > 1:
        nxt = []
        for a, b in zip(parts[::2], parts[1::2]):
            n = a.type.get_shape()[0] + b.type.get_shape()[0]
            nxt.append(inside(CatOp(a, b, 0, TensorType(elt, [n, c]))).result)
        if len(parts) % 2:
            nxt.append(parts[-1])
        parts = nxt
    said = format_error(ld, REMARK.format(pages=r // rows.bs, bs=rows.bs, rows=r, cols=c), "remark")
    ld.results[0].replace_all_uses_with(parts[0])
    work = [x.owner for x in ld.operands if isinstance(x.owner, Operation)]
    rw.erase_op(ld)
    _erase_unused(work, loop)
    return said


def _erase_unused(work: list[Operation], loop: scf.ForOp) -> None:
    """Erase the ops of ``loop``'s body the gather alone read (no result used any more): the index tiles and the
    block table's tile gather (a read whose token nothing reads), so the consumers keep no per-row page math."""
    body = loop.body.block
    while work:
        op = work.pop()
        if op.parent is not body or op.regions or any(r.uses for r in op.results):
            continue
        if not (isinstance(op, (LoadOp, OffsetOp)) or op.name in _SPREAD or op.name in _CASTS or
                op.name in _SCALAR_TWINS or op.name.startswith("arith.") or op.name == "nv_tileaa.make_range"):
            continue
        work += [x.owner for x in op.operands if isinstance(x.owner, Operation)]
        Rewriter.erase_op(op)


def paged_gather(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Rewrite the matched gathers of ``module`` (module doc); the number rewritten."""
    count = 0
    for loop in [o for o in module.walk() if isinstance(o, scf.ForOp)]:
        if not any(o.name == "nv_tileaa.dot" for o in loop.walk()):
            continue
        for ld in [o for o in loop.body.block.ops if isinstance(o, LoadOp)]:
            plan = _plan(ld)
            if plan is None:
                continue
            said = _rewrite(ld, loop, plan)
            count += 1
            if remarks is not None:
                remarks.append(said)
    return count


class PagedGather(ModuleTransform):
    """Slot-by-slot gathers of a paged cache's K / V tiles become page tile loads joined by cat (module doc)."""

    name = "tileas-paged-gather"
    transform = staticmethod(paged_gather)
    states_remarks = True


__all__ = ["PagedGather", "REMARK", "paged_gather"]
