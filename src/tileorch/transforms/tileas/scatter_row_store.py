"""``tileas-scatter-row-store``: a ``ct.scatter`` of a row vector at consecutive element indices that start on a
multiple of its length becomes the tile store it is (``ct.store`` of a ``[1, .., R]`` tile), which the chained
(attention) kernels lower like any row-vector store.

Users porting a Triton attention forward write the log-sum-exp with a pointer store; in cuTile that is::

    rows = qt * BM + ct.arange(BM)
    ct.scatter(LSE, (ct.full((BM,), 0, ct.int32) + b, ct.full((BM,), 0, ct.int32) + h, rows), lse)

Every element index but the last is the same for the whole vector (a scalar spread over it), the last is
``s + arange(R)`` with ``s`` a multiple of ``R`` and non-negative by construction (``qt * BM`` of a tile-block id, sums
of such; an argument's multiple may be negative, where the scatter's unsigned compare writes nothing): the elements written are tile
``(b, h, s / R)`` of the array cut in ``[1, .., 1, R]`` tiles, and the scatter's bounds mask (each index below its
extent) drops exactly the elements a tile store drops.  The chained-dots lowering writes output tiles and row
vectors, not computed addresses, so it refused the scatter ("a store at computed element indices") and the whole
attention ran on the SIMT path.

Matched (on ``nv_tileaa``, as ``convert-cudatile-to-tileaa`` lowers a bounds-checked scatter) at the top level of a
function that holds an ``scf.for`` with two dots or more (a chain: a one-dot GEMM's epilogue is left as it was): ``nv_tileaa.store %v, offset(broadcast(splat(%base)), %lin) mask
%m`` of a 1-D tile ``[R]`` whose token nothing reads, ``%lin = sum_k idx_k * stride_k`` over the array's dimensions
in the launcher's argument order (:func:`tileorch.transforms.tileas.paged_gather._argument_order`: the last stride
the constant 1), ``%m`` the and of ``idx_k ult extent_k`` over all of them (or no mask: ``check_bounds=False``,
whose out-of-bounds writes are undefined); ``idx_k`` for ``k`` below the last a 32-bit scalar spread over the
vector (or such a spread plus a zero constant: ``ct.full(.., 0) + b``), the last ``broadcast(s) + arange(R)`` (in
either order) with ``s`` a 32-bit multiple of ``R``.  Rewritten: a ``make_memref`` of the array from the same
pointer, extents and strides, a ``block_tile`` of ``[1, .., 1, R]`` tiles and a ``tiled_store`` of the vector
reshaped to that tile at ``(idx_0, .., s / R)`` with the scatter's token.  A located remark at the scatter says so.
Anything else is left alone (the chained analysis then refuses the scatter, located).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, MemRefType, TiledViewType
from tileorch.dialects.nv_tileaa.ops import BlockTileOp, MakeMemrefOp, ReshapeOp, TiledStoreOp
from tileorch.dialects.nv_tileaa.pointer_ops import OffsetOp, StoreOp
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.paged_gather import (_CASTS, _SPREAD, _argument_order, _const, _fits32,
                                                     _function_argument, _i32, _multiple, _owner, _strip, _terms)

REMARK = ("a row vector of {rows} elements scattered at consecutive indices starting on a multiple of {rows} "
          "(ct.scatter at (.., s + arange({rows})), s a multiple of {rows}): stored as the [{tile}] tile it is "
          "(the chained kernels store it like ct.store)")


def _spread_scalar(v: SSAValue) -> SSAValue | None:
    """The 32-bit scalar a 1-D index tile holds at every element: a scalar spread (splat / broadcast, through
    casts), or such a spread plus a zero constant (``ct.full(.., 0) + x``), else None."""
    o = _owner(v)
    if o is not None and o.name in _CASTS and isinstance(o.operands[0].type, TensorType):
        return _spread_scalar(o.operands[0])
    if o is not None and o.name == "nv_tileaa.addi":
        a, b = o.operands
        if _const(a) == 0:
            return _spread_scalar(b)
        if _const(b) == 0:
            return _spread_scalar(a)
        return None
    x = _strip(v)
    if isinstance(x.type, TensorType) or not _fits32(x):
        return None
    return x


def _non_negative(v: SSAValue) -> bool:
    """``v`` (a 32-bit scalar) is non-negative by construction: a non-negative constant, a tile-block id, or sums and
    products of such values (through sign extensions).  The scatter masks each index with an unsigned compare (a
    negative index writes nothing); the tile store it becomes is only its equal where no index can be negative."""
    c = _const(v)
    if c is not None:
        return c >= 0
    o = _owner(v)
    if o is None:
        return False
    if o.name in _CASTS or o.name in ("nv_tileaa.get_program_id", "arith.index_cast", "arith.extui"):
        return o.name == "nv_tileaa.get_program_id" or _non_negative(o.operands[0])
    if o.name in ("arith.muli", "nv_tileaa.muli", "arith.addi", "nv_tileaa.addi"):
        return all(_non_negative(x) for x in o.operands)
    return False


def _run_start(v: SSAValue, r: int) -> SSAValue | None:
    """``s`` of a last-dimension index ``broadcast(s) + arange(r)`` (through casts; either order) with ``s`` a
    32-bit multiple of ``r``, else None."""
    while (o := _owner(v)) is not None and o.name in _CASTS and isinstance(o.operands[0].type, TensorType):
        v = o.operands[0]
    o = _owner(v)
    if o is None or o.name != "nv_tileaa.addi":
        return None
    for rng, other in (o.operands, tuple(reversed(o.operands))):
        ro = _owner(rng)
        if ro is None or ro.name != "nv_tileaa.make_range" or (ro.start.value.data, ro.end.value.data) != (0, r):
            continue
        s = _spread_scalar(other)
        if s is not None and _multiple(s, r) and _non_negative(s):
            return s
    return None


def _plan(st: StoreOp):
    """(pointer, dims [(index, extent, stride)], leading scalars, run start) of a matched scatter, else None."""
    vt = st.value.type
    if not isinstance(vt, TensorType) or len(vt.get_shape()) != 1 or st.results[0].uses:
        return None
    r = vt.get_shape()[0]
    off = _owner(st.ptr)
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
        dims.append((m.operands[0], None, m.operands[1]))
    if st.mask is not None:
        bounds = {}
        terms = _terms(st.mask, ("arith.andi",))
        for c in terms:
            o = _owner(c)
            if o is None or o.name != "nv_tileaa.cmpi" or o.predicate.data != "ult":
                return None
            bounds[id(o.operands[0])] = o.operands[1]
        # one bound per index, nothing else: a second compare of an index (another limit) is a mask the tile
        # store would drop
        if len(terms) != len(dims) or len(bounds) != len(dims) or any(id(i) not in bounds for i, _, _ in dims):
            return None
        dims = [(i, bounds[id(i)], s) for i, _, s in dims]
    for _, e, s in dims:  # extents and strides: scalars spread over the vector, or splat constants
        for x in (e, s):
            if x is not None and isinstance(_strip(x).type, TensorType) and _const(x) is None:
                return None
    if not _argument_order(base, dims):
        return None
    lead = [_spread_scalar(i) for i, _, _ in dims[:-1]]
    start = _run_start(dims[-1][0], r)
    if any(x is None for x in lead) or start is None:
        return None
    return base, dims, lead, start


def _rewrite(st: StoreOp, plan) -> str:
    base, dims, lead, start = plan
    r = st.value.type.get_shape()[0]
    elt = st.value.type.element_type
    rw = Rewriter()

    def emit(op):
        copy_location(st, [op])
        rw.insert_op(op, InsertPoint.before(st))
        return op

    ptr = _function_argument(base)
    strides_static = [DYNAMIC if _const(s) is None else _const(s) for _, _, s in dims]
    mt = MemRefType(elt, [DYNAMIC] * len(dims), strides_static, i32)
    shape_vals = [_i32(_strip(e) if e is not None else ptr.owner.args[ptr.index + 1 + k], emit)
                  for k, (_, e, _) in enumerate(dims)]
    stride_vals = [_i32(_strip(s), emit) for (_, _, s), sst in zip(dims, strides_static) if sst == DYNAMIC]
    mm = emit(MakeMemrefOp(base, shape_vals, stride_vals, mt))
    tile = [1] * (len(dims) - 1) + [r]
    view = emit(BlockTileOp(mm.result, TiledViewType(tile, mt))).result
    rc = emit(arith.ConstantOp(IntegerAttr(r, i32))).result
    last = emit(arith.DivSIOp(_i32(start, emit), rc)).result  # (exact: the start is a multiple of r)
    idx = [_i32(x, emit) for x in lead] + [last]
    value = emit(ReshapeOp.create(operands=[st.value], result_types=[TensorType(elt, tile)])).results[0]
    ts = emit(TiledStoreOp(view, value, idx, token=st.token))
    for prop in ("mem_semantic", "mem_scope"):
        if prop in st.properties:
            ts.properties[prop] = st.properties[prop]
    said = format_error(st, REMARK.format(rows=r, tile=", ".join(map(str, tile))), "remark")
    work = [x.owner for x in st.operands if isinstance(x.owner, Operation)]
    rw.erase_op(st)
    _erase_unused(work)
    return said


def _erase_unused(work: list[Operation]) -> None:
    """Erase the address and mask ops only the scatter read."""
    while work:
        op = work.pop()
        if op.parent is None or op.regions or any(r.uses for r in op.results):
            continue
        if not (isinstance(op, OffsetOp) or op.name in _SPREAD or op.name in _CASTS or
                op.name in ("nv_tileaa.addi", "nv_tileaa.muli", "nv_tileaa.cmpi", "nv_tileaa.make_range") or
                op.name.startswith("arith.")):
            continue
        work += [x.owner for x in op.operands if isinstance(x.owner, Operation)]
        Rewriter.erase_op(op)


def scatter_row_store(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Rewrite the matched scatters of ``module`` (module doc); the number rewritten."""
    count = 0
    for func in [o for o in module.walk() if o.name == "nv_tileaa.func"]:
        if not any(isinstance(o, scf.ForOp) and sum(d.name == "nv_tileaa.dot" for d in o.walk()) >= 2
                   for o in func.walk()):
            continue  # (chained dots only: a GEMM's epilogue lowers C's tile, not other tile stores beside it)
        block = func.regions[0].blocks.first
        for st in [o for o in block.ops if isinstance(o, StoreOp)]:
            plan = _plan(st)
            if plan is None:
                continue
            said = _rewrite(st, plan)
            count += 1
            if remarks is not None:
                remarks.append(said)
    return count


class ScatterRowStore(ModuleTransform):
    """A row vector scattered at consecutive, tile-aligned indices becomes its tile store (module doc)."""

    name = "tileas-scatter-row-store"
    transform = staticmethod(scatter_row_store)
    states_remarks = True


__all__ = ["REMARK", "ScatterRowStore", "scatter_row_store"]
