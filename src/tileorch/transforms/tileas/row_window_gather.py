"""``tileas-row-window-gather``: a dot operand gathered at consecutive rows ``start + s + arange(R)`` whose mask only
bounds those rows (``s + arange(R) < n``) is a tile load of a *row window* of the array: rows ``[start, start + n)``.

The FlashAttention varlen form on packed ``[T, H, D]`` buffers with ``cu_seqlens`` (a Triton port's pointer loads)::

    start = ct.gather(CuSeq, b); n = ct.gather(CuSeq, b + 1) - start
    krow = j * BN + ct.arange(BN)
    k = ct.gather(K, (start + krow[:, None], h, ct.arange(D)[None, :]), mask=(krow < n)[:, None], padding_value=0)

reads a contiguous box of ``BN`` rows at row ``start + j BN`` (TMA can load it at that dynamic row coordinate, with the
tensor map of the whole packed buffer); rows ``krow >= n`` belong to the next sequence and read as 0.  The analysis is
of the gather's index, not of a program: matched (on ``nv_tileaa``, as ``convert-cudatile-to-tileaa`` lowers a
bounds-checked gather) where ``%v = nv_tileaa.load offset(spread(%base), %lin) mask %m other 0`` is a 2-D ``[R, C]``
tile whose token nothing reads and that a ``nv_tileaa.dot`` of a chain reads (through ``permute``; the dot in an
``scf.for`` holding two dots or more: a one-dot GEMM's gathered A stays the GEMM tier's), ``%lin`` the sum of
``idx_k * stride_k`` over the array argument's dimensions in order (its own extents and strides), ``idx_0`` the rows
``start + t`` (``start`` a scalar spread, ``t = spread(s) + arange(R)``, ``s`` a non-negative multiple ``x R`` of the
tile's rows: a constant, a program id or a loop index times ``R``), the last index ``arange(C)`` along the columns
(stride 1), the others scalars; ``%m`` the and of the bounds checks ``idx_k ult extent_k`` and at most one row mask
``t slt n`` (``n`` a scalar spread) on the same ``t``.  ``start`` and ``n`` must be defined outside the loop holding the
gather.

Rewritten: before the loop (or the gather, outside any loop) a ``make_memref`` of the array from
``offset(base, start * stride_0)`` with extents ``(limit, extent_1, ..)``, ``limit = max(0, min(n, extent_0 - start))``
(without a row mask ``max(0, extent_0 - start)``), the argument's strides, a ``block_tile`` of ``[R, 1.., C]`` tiles and
at the gather a ``tiled_load`` at tile index ``(x, idx_1, .., 0)`` reshaped to ``[R, C]``.  The same values: row ``r``
of the tile is array row ``start + s + r``, read where ``s + r < limit`` (in bounds of the array and of the mask) and 0
elsewhere — the tiled load's padding.  A row before the array (``start + s + r < 0``, a negative ``start``) the gather
reads as 0; the window view would address it before the array: the chained kernel reads it through the whole array's
tensor map, whose fill is 0 there too (TMA's out-of-bounds fill).

The chained kernel (``chained_dots.Operand.row_start`` / ``row_limit``) loads the window through the tensor map of the
whole argument at row ``start + x R`` and zeroes the rows ``>= limit - x R`` of the one tile that straddles the limit in
shared memory before a WGMMA reads it (the next sequence's rows may hold anything, Inf and NaN too).  A located remark
at each rewritten gather says so.  Anything else is left alone (the chained analysis then refuses the gathered operand,
located).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i32, i64
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, MemRefType, TiledViewType
from tileorch.dialects.nv_tileaa.ops import BlockTileOp, MakeMemrefOp, ReshapeOp, TiledLoadOp
from tileorch.dialects.nv_tileaa.pointer_ops import LoadOp, OffsetOp
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.paged_gather import (_CASTS, _SPREAD, _argument_order, _const, _fits32,
                                                     _erase_unused, _i32, _owner, _strip, _terms,
                                                     _zero_float)
from tileorch.transforms.tileas.scatter_row_store import _non_negative

REMARK = ("{what} rows gathered at consecutive rows start + {s} + arange({rows}) under a row mask: a window of the array "
          "(rows [start, start + n)) loaded as one {rows} x {cols} TMA tile at row start + {s} of the whole array's "
          "tensor map; the chained kernel zeroes the rows past the window's end in shared memory (the next "
          "sequence's) before its WGMMA reads them")

_ZERO_MASKED = "the rows past the window's end"


def _spread_scalar(v: SSAValue) -> SSAValue | None:
    """The scalar a tile spreads (splat / broadcast / expand_dims, through casts), else None."""
    x = _strip(v)
    return None if isinstance(x.type, TensorType) else x


def _range_plus(v: SSAValue, rows: int) -> SSAValue | None:
    """``s`` of ``spread(s) + arange(rows)`` (either order), else None."""
    o = _owner(v)
    if o is None or o.name != "nv_tileaa.addi":
        return None
    for rng, other in (o.operands, tuple(reversed(o.operands))):
        ro = _owner(rng)
        if ro is not None and ro.name == "nv_tileaa.make_range" and \
                (ro.start.value.data, ro.end.value.data) == (0, rows):
            return _spread_scalar(other)
    return None


def _iv_non_negative(v: SSAValue) -> bool:
    """``v`` is non-negative by construction (:func:`scatter_row_store._non_negative`, or the index of an
    ``scf.for`` from a non-negative lower bound)."""
    if _non_negative(v):
        return True
    if isinstance(v, BlockArgument) and isinstance(v.owner.parent_op(), scf.ForOp):
        loop = v.owner.parent_op()
        return v is loop.body.block.args[0] and _non_negative(loop.lb)
    return False


def _tile_index(s: SSAValue, rows: int, emit) -> SSAValue | None:
    """The tile index ``x`` of a tile's first row ``s = x * rows`` (``x`` non-negative by construction, 32 bits), else
    None."""
    c = _const(s)
    if c is not None:
        return emit(arith.ConstantOp(IntegerAttr(c // rows, i32))).result if c >= 0 and c % rows == 0 else None
    o = _owner(s)
    if o is None or o.name not in ("arith.muli", "nv_tileaa.muli"):
        return None
    a, b = o.operands
    for x, r in ((a, b), (b, a)):
        if _const(r) == rows and _fits32(x) and _iv_non_negative(x):
            return x
    return None


def _dotted(v: SSAValue) -> bool:
    """A ``nv_tileaa.dot`` of a chain reads ``v`` (directly or through ``permute``): the dot lies in an ``scf.for``
    holding two dots or more (a one-dot GEMM's gathered A is the GEMM tier's: left alone)."""
    for u in v.uses:
        if u.operation.name == "nv_tileaa.dot" and u.index < 2:
            loop = u.operation.parent_op()
            while loop is not None and not isinstance(loop, scf.ForOp):
                loop = loop.parent_op()
            if loop is not None and sum(o.name == "nv_tileaa.dot" for o in loop.walk()) >= 2:
                return True
        if u.operation.name == "nv_tileaa.permute" and _dotted(u.operation.results[0]):
            return True
    return False


def _outside(v: SSAValue, loop: Operation | None) -> bool:
    """``v`` is defined outside ``loop`` (None: anywhere)."""
    if loop is None:
        return True
    o = v.owner if isinstance(v.owner, Operation) else v.owner.parent_op()
    while o is not None:
        if o is loop:
            return False
        o = o.parent_op()
    return True


def _plan(ld: LoadOp):
    """``(base, dims, start, s, n, kinds)`` of a row-window gather (module doc), else None."""
    res = ld.results[0].type
    if not isinstance(res, TensorType) or len(res.get_shape()) != 2 or ld.mask is None or ld.other is None:
        return None
    if ld.results[1].uses or not (_const(ld.other) == 0 or _zero_float(ld.other)) or not _dotted(ld.results[0]):
        return None
    r, c = res.get_shape()
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
    if len(dims) < 2:
        return None
    # the row index: start + t, t = s + arange(r) (the [r, 1] tile through casts and broadcasts)
    rows = _strip(dims[0][0], ("nv_tileaa.broadcast", *_CASTS))
    if not isinstance(rows.type, TensorType) or list(rows.type.get_shape()) != [r, 1]:
        return None
    ro = _owner(rows)
    t = start = None
    if ro is not None and ro.name == "nv_tileaa.expand_dims" and ro.dim.value.data == 1:
        add = _owner(ro.operands[0])
        if add is not None and add.name == "nv_tileaa.addi":
            for a, b in (add.operands, tuple(reversed(add.operands))):
                if _range_plus(b, r) is not None and _spread_scalar(a) is not None:
                    t, start = b, _spread_scalar(a)
    elif ro is not None and ro.name == "nv_tileaa.addi":
        for a, b in (ro.operands, tuple(reversed(ro.operands))):
            e = _owner(b)
            if e is not None and e.name == "nv_tileaa.expand_dims" and e.dim.value.data == 1 and \
                    _range_plus(e.operands[0], r) is not None and _spread_scalar(a) is not None:
                t, start = e.operands[0], _spread_scalar(a)
    if t is None or not _fits32(start):
        return None
    s = _range_plus(t, r)
    # the other indices: scalars, the last one arange(c) along the columns with stride 1
    kinds = []
    for k, (idx, stride) in enumerate(dims[1:], 1):
        src = _strip(idx, ("nv_tileaa.broadcast", *_CASTS))
        if not isinstance(src.type, TensorType) or all(x == 1 for x in src.type.get_shape()):
            x = _strip(idx)
            if isinstance(x.type, TensorType) or not _fits32(x):
                return None
            kinds.append(x)
            continue
        rng = _owner(_strip(src))
        if k != len(dims) - 1 or list(src.type.get_shape()) != [1, c] or rng is None or \
                rng.name != "nv_tileaa.make_range" or (rng.start.value.data, rng.end.value.data) != (0, c) or \
                _const(stride) != 1:
            return None
        kinds.append(None)
    if kinds[-1] is not None or None in kinds[:-1]:
        return None
    # the mask: a bounds check per dimension and at most one row mask t slt n
    bounds, n = {}, None
    for term in _terms(ld.mask, ("arith.andi",)):
        o = _owner(_strip(term, ("nv_tileaa.broadcast",)))
        if o is not None and o.name == "nv_tileaa.cmpi" and o.predicate.data == "ult" and \
                any(o.operands[0] is i for i, _ in dims) and id(o.operands[0]) not in bounds:
            bounds[id(o.operands[0])] = o.operands[1]
            continue
        e = _owner(_strip(term, ("nv_tileaa.broadcast",)))
        if n is None and e is not None and e.name == "nv_tileaa.expand_dims" and e.dim.value.data == 1:
            cmp = _owner(e.operands[0])
            if cmp is not None and cmp.name == "nv_tileaa.cmpi" and cmp.predicate.data == "slt" and \
                    cmp.operands[0] is t and _spread_scalar(cmp.operands[1]) is not None and \
                    _fits32(_spread_scalar(cmp.operands[1])):
                n = _spread_scalar(cmp.operands[1])
                continue
        return None
    if len(bounds) != len(dims):
        return None
    full = [(i, bounds[id(i)], st) for i, st in dims]
    for _, e, st in full:
        for x in (e, st):
            if isinstance(_strip(x).type, TensorType) and _const(x) is None:
                return None
    if not _argument_order(base, full):
        return None
    return base, full, start, s, n, kinds


def _rewrite(ld: LoadOp, plan) -> str | None:
    base, dims, start, s, n, kinds = plan
    r, c = ld.results[0].type.get_shape()
    elt = ld.results[0].type.element_type
    loop = ld.parent_op()
    while loop is not None and not isinstance(loop, scf.ForOp):
        loop = loop.parent_op()
    if not all(_outside(v, loop) for v in (start, *([n] if n is not None else []))):
        return None
    rw = Rewriter()
    anchor = loop if loop is not None else ld

    def before(at):
        def emit(op):
            copy_location(ld, [op])
            rw.insert_op(op, InsertPoint.before(at))
            return op
        return emit

    outside, inside = before(anchor), before(ld)
    x = _tile_index(s, r, inside) if s is not None else inside(arith.ConstantOp(IntegerAttr(0, i32))).result
    if x is None:
        return None
    ext = [_i32(_strip(e, ("nv_tileaa.assume", *_CASTS, *_SPREAD)), outside) for _, e, _ in dims]
    st32 = _i32(start, outside)
    zero = outside(arith.ConstantOp(IntegerAttr(0, i32))).result
    limit = outside(arith.SubiOp(ext[0], st32)).result
    if n is not None:
        limit = outside(arith.MinSIOp(_i32(n, outside), limit)).result
    limit = outside(arith.MaxSIOp(limit, zero)).result
    stride0 = _strip(dims[0][2], ("nv_tileaa.assume", *_CASTS, *_SPREAD))
    off64 = outside(arith.MuliOp(outside(arith.ExtSIOp(st32, i64)).result,
                                 outside(arith.ExtSIOp(_i32(stride0, outside), i64)).result)).result
    wptr = outside(OffsetOp(base, off64)).result
    strides_static = [DYNAMIC if _const(st) is None else _const(st) for _, _, st in dims]
    mt = MemRefType(elt, [DYNAMIC] * len(dims), strides_static, i32)
    stride_vals = [_i32(_strip(st, ("nv_tileaa.assume", *_CASTS, *_SPREAD)), outside)
                   for (_, _, st), ss in zip(dims, strides_static) if ss == DYNAMIC]
    mm = outside(MakeMemrefOp(wptr, [limit, *ext[1:]], stride_vals, mt))
    tile = [r] + [1] * (len(dims) - 2) + [c]
    view = outside(BlockTileOp(mm.result, TiledViewType(tile, mt))).result
    zero_in = inside(arith.ConstantOp(IntegerAttr(0, i32))).result
    idx = [_i32(x, inside)] + [_i32(k, inside) for k in kinds[:-1]] + [zero_in]
    t = inside(TiledLoadOp(view, idx, TensorType(elt, tile), token=ld.token))
    for prop in ("mem_semantic", "mem_scope"):
        if prop in ld.properties:
            t.properties[prop] = ld.properties[prop]
    out = inside(ReshapeOp.create(operands=[t.result], result_types=[TensorType(elt, [r, c])])).results[0]
    what = "K / V" if loop is not None else "Q"
    said = format_error(ld, REMARK.format(what=what, s="s" if s is not None and _const(s) is None else
                                          (_const(s) if s is not None else 0), rows=r, cols=c), "remark")
    ld.results[0].replace_all_uses_with(out)
    work = [x.owner for x in ld.operands if isinstance(x.owner, Operation)]
    rw.erase_op(ld)
    if loop is not None:  # the index and mask tiles only the gather read (the consumers keep no per-row math)
        _erase_unused(work, loop)
    return said


def row_window_gather(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Rewrite the matched gathers of ``module`` (module doc); the number rewritten."""
    count = 0
    for ld in [o for o in module.walk() if isinstance(o, LoadOp)]:
        plan = _plan(ld)
        if plan is None:
            continue
        said = _rewrite(ld, plan)
        if said is None:
            continue
        count += 1
        if remarks is not None:
            remarks.append(said)
    return count


class RowWindowGather(ModuleTransform):
    """Dot operands gathered at ``start + s + arange(R)`` under a row mask become tile loads of a row window of the
    array (module doc)."""

    name = "tileas-row-window-gather"
    transform = staticmethod(row_window_gather)
    states_remarks = True


__all__ = ["REMARK", "RowWindowGather", "row_window", "row_window_gather"]


def row_window(kernel: Operation, view: SSAValue) -> tuple[int, SSAValue, SSAValue] | None:
    """``(argument, start, limit)`` of a tiled view of a row window :func:`row_window_gather` made (a ``make_memref``
    of ``offset(argument, start * stride_0)`` whose first extent ``limit`` is computed, the others and every stride
    the argument's own), else None: the chained kernel reads it through the whole argument's tensor map at row
    ``start + `` the tile's, the rows ``>= limit`` zeroed."""
    from tileorch.dialects.nv_tileaa import ops as aa

    v = view
    for _ in range(64):
        if not isinstance(v.owner, Operation) or isinstance(v.owner, aa.MakeMemrefOp) or not v.owner.operands:
            break
        v = v.owner.operands[0]
    mm = v.owner
    if not isinstance(mm, aa.MakeMemrefOp) or not isinstance(mm.ptr.owner, OffsetOp):
        return None
    entry = kernel.body.blocks.first
    ptr = _strip(mm.ptr.owner.operands[0], ("nv_tileaa.assume",))
    if not (isinstance(ptr, BlockArgument) and ptr.owner is entry):
        return None
    rank = len(mm.shape)
    mul = _owner(mm.ptr.owner.operands[1])
    if mul is None or mul.name != "arith.muli":
        return None
    start, stride = (_strip(x, (*_CASTS, "nv_tileaa.assume")) for x in mul.operands)
    args = list(entry.args)

    def arg(x: SSAValue, i: int) -> bool:
        x = _strip(x, (*_CASTS, "nv_tileaa.assume"))
        return 0 <= i < len(args) and x is args[i]

    if not arg(stride, ptr.index + 1 + rank) or \
            not all(arg(e, ptr.index + 1 + k) for k, e in enumerate(mm.shape) if k) or \
            not all(arg(st, ptr.index + 1 + rank + k) for k, st in enumerate(mm.strides)) or \
            len(mm.strides) != rank - 1:
        return None
    return ptr.index, start, mm.shape[0]
