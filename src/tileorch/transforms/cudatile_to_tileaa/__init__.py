"""``convert-cudatile-to-tileaa``: CUDA Tile IR (``cuda_tile``) into the tile tier (``nv_tileaa``).

Each ``cuda_tile.entry`` of a ``cuda_tile.module`` becomes an ``nv_tileaa.func`` kernel whose
``nv_tileaa.kernel_spec`` comes from the entry's optimization hints (``num_cta_in_cga``,
``num_worker_warps_per_cta``; default ``<1, 4>``; ``occupancy`` is kept as the attribute
``nv_tileaa.occupancy``).  Types: rank-0 tiles become scalars (``tile<i32>`` -> ``i32``,
``tile<ptr<f16>>`` -> ``!nv_tileaa.ptr<f16>``), other tiles ``tensor<...>``, ``token`` ->
``!nv_tileaa.mem_token``, ``tensor_view`` -> ``!nv_tileaa.memref``, ``partition_view`` ->
``!nv_tileaa.tiled_view``.  What lowers is listed in :data:`LOWERED` (and docs/cuda-tile.md);
any other op stops the pass with a located "not supported yet" error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (BoolAttr, DenseArrayBase, DenseIntOrFPElementsAttr, FloatAttr, FunctionType,
                                   IntegerAttr, IntegerType, ModuleOp, StringAttr, TensorType, UnitAttr, i32, i64)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile import ops as ct
from tileorch.dialects.cuda_tile import types as T
from tileorch.dialects.cuda_tile.float_bits import is_exact_conversion
from tileorch.dialects.nv_tileaa import tile_ops as tops
from tileorch.lazy_import import lazy_module

math = lazy_module("xdsl.dialects.math")
"""xDSL's math dialect (43 op classes), imported by the first program that uses one of its ops: a
cold compile of a program without them (a softmax, a GEMM) does not define them."""

_SCOPES = {"tl_blk": "cta", "device": "gpu", "sys": "sys"}
_ROUNDING = {"nearest_even": "rn", "zero": "rz", "negative_inf": "rm", "positive_inf": "rp"}
_CMPI = {("equal", "signed"): "eq", ("not_equal", "signed"): "ne", ("less_than", "signed"): "slt",
         ("less_than_or_equal", "signed"): "sle", ("greater_than", "signed"): "sgt",
         ("greater_than_or_equal", "signed"): "sge", ("equal", "unsigned"): "eq", ("not_equal", "unsigned"): "ne",
         ("less_than", "unsigned"): "ult", ("less_than_or_equal", "unsigned"): "ule",
         ("greater_than", "unsigned"): "ugt", ("greater_than_or_equal", "unsigned"): "uge"}
_CMPF_PRED = {"equal": "eq", "not_equal": "ne", "less_than": "lt", "less_than_or_equal": "le",
              "greater_than": "gt", "greater_than_or_equal": "ge"}


_WHY_NOT = {"cuda_tile.mmaf_scaled": "block-scaled MMA (ct.mma_scaled) is a Blackwell (sm_100) instruction and the "
                                     "tiers here target sm_90: multiply the operands by their block scales and use "
                                     "ct.mma"}
"""Why an op with no lowering has none, where docs/cuda-tile.md's table of ops not lowered says (the error says it
at the user's line)."""


def _unsupported(op: Operation, what: str | None = None) -> LocatedError:
    why = f": {_WHY_NOT[op.name]}" if what is None and op.name in _WHY_NOT else ""
    return LocatedError(op, f"'{op.name}'{' ' + what if what else ''} is not supported yet by "
                            f"convert-cudatile-to-tileaa{why}")


def _arch_key(cc: str) -> str:
    return cc.rstrip("a")  # sm_90a -> sm_90


class _Lowering:
    def __init__(self, compute_capability: str):
        self.cc = compute_capability
        self.vm: dict[SSAValue, SSAValue] = {}
        self.block: Block | None = None
        self._current: Operation | None = None  # the op being lowered (run_block): where a bad use is reported

    # ------------------------------------------------------------------ types
    def type(self, t: Attribute, op: Operation) -> Attribute:
        if isinstance(t, T.TileType):
            e = t.element_type
            if t.rank == 0:
                return aa.PointerType(e.pointee) if isinstance(e, T.PointerType) else e
            if isinstance(e, T.PointerType):  # a tile of pointers (gather/scatter/atomics)
                return TensorType(aa.PointerType(e.pointee), list(t.shape))
            return TensorType(e, list(t.shape))
        if isinstance(t, T.TokenType):
            return aa.MemTokenType()
        raise _unsupported(op, f"with a value of type {t.short_str() if hasattr(t, 'short_str') else t}")

    # ------------------------------------------------------------------ helpers
    def emit(self, new: Operation, old: Operation) -> Operation:
        copy_location(old, [new])
        self.block.add_op(new)
        return new

    def v(self, value: SSAValue) -> SSAValue:
        try:
            return self.vm[value]
        except KeyError:
            owner = value.owner if isinstance(value.owner, Operation) else None
            what = f"the result of '{owner.name}'" if owner is not None else "a block argument"
            user = self._current
            if user is not None and value in user.operands:  # located at the use (a block argument has no line)
                raise LocatedError(user, f"convert-cudatile-to-tileaa: operand #{list(user.operands).index(value)} "
                                         f"of '{user.name}' ({what}) is not available here: it is defined in "
                                         "another region or after this use, or is of a kind not lowered") from None
            raise LocatedError(owner, f"convert-cudatile-to-tileaa: {what} is used where it was not lowered "
                                      "(a value of an unsupported kind, or one defined in another region)") from None

    def bind(self, old: Operation, new: Operation) -> None:
        for a, b in zip(old.results, new.results):
            self.vm[a] = b

    def run_block(self, src: Block, dst: Block) -> None:
        saved = self.block
        self.block = dst
        self.run_ops(src.ops)
        self.block = saved

    def run_ops(self, ops) -> None:
        """Lower ``ops`` (in order) into the current block."""
        saved_current = self._current
        for op in ops:
            handler = _HANDLERS.get(op.name)
            if handler is None:
                raise _unsupported(op)
            self._current = op
            try:
                handler(self, op)
            except VerifyException as exc:  # an attribute or op built from out-of-range input
                raise LocatedError(op, str(exc)) from None
        self._current = saved_current

    # ------------------------------------------------------------------ entry
    def entry(self, e: ct.EntryOp) -> aa.FuncOp:
        if not _PTX_IDENTIFIER.fullmatch(e.sym_name.data):
            # the kernel's name is its PTX name (LLVM aborts on anything else)
            raise LocatedError(e, f"kernel name {e.sym_name.data!r} is not a valid PTX identifier (letters, digits, "
                                  "'_' and '$', not starting with a digit)")
        ins = [self.type(t, e) for t in e.function_type.inputs.data]
        block = Block(arg_types=ins)
        for a, b in zip(e.body.block.args, block.args):
            self.vm[a] = b
        if any(isinstance(op, ct.IfOp) and _has_return(op) for op in e.body.block.ops):
            saved, self.block = self.block, block
            _exit_seq(self, list(e.body.block.ops), top=True)
            self.block = saved
        else:
            self.run_block(e.body.block, block)
        hints = e.optimization_hints
        arch = _arch_key(self.cc)
        nctas = hints.get("num_cta_in_cga", arch) if hints is not None else None
        warps = hints.get("num_worker_warps_per_cta", arch) if hints is not None else None
        occupancy = hints.get("occupancy", arch) if hints is not None else None
        for key, value, rule, ok in (
                ("num_cta_in_cga", nctas, "a power of two in [1, 16]", lambda n: 1 <= n <= 16 and not n & (n - 1)),
                ("num_worker_warps_per_cta", warps, "in [1, 32]", lambda n: 1 <= n <= 32),
                ("occupancy", occupancy, "in [1, 32]", lambda n: 1 <= n <= 32)):
            # tileiras only warns about such hints (an error with -Werr-hints): this kernel needs them
            if value is not None and not ok(int(value)):
                raise LocatedError(e, f"optimization hint {key} = {int(value)} for {arch} must be {rule}")
        spec = aa.KernelSpecAttr(int(nctas or 1), int(warps or 4))
        f = aa.FuncOp(e.sym_name.data, FunctionType.from_lists(ins, []), Region(block), kernel_spec=spec)
        if occupancy is not None:
            f.attributes["nv_tileaa.occupancy"] = IntegerAttr(int(occupancy), 32)
        if nctas is None:  # cuTile's num_ctas=None: the compiler chooses the cluster size
            f.attributes[NUM_CTAS_AUTO] = UnitAttr()
        if warps is None:  # no num_worker_warps hint: the SIMT lowering may size the CTA to the tiles
            f.attributes[NUM_WARPS_AUTO] = UnitAttr()
        copy_location(e, [f])
        return f


_PTX_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")

NUM_CTAS_AUTO = "tileorch.num_ctas_auto"
"""Set on a kernel whose program left the CTAs per cluster to the compiler (no
``num_cta_in_cga`` hint for the target)."""

NUM_WARPS_AUTO = "tileorch.num_warps_auto"
"""Set on a kernel whose program gave no ``num_worker_warps_per_cta`` hint for the target: the
kernel_spec's 4 warps are a default the SIMT route's layouts may change
(``transforms/tileas/simt_layouts.py``, ``choose_threads``)."""


# ---------------------------------------------------------------------- op handlers
_HANDLERS: dict[str, Callable[[_Lowering, Operation], None]] = {}
"""Op name (``cuda_tile.addf``) -> its handler.  Keyed by name, not class: the cuda_tile op classes
are defined on first use (:mod:`tileorch.dialects.cuda_tile.ops`), and this table names every op
the pass lowers, while a program has a few of them."""


def handles(*class_names: str):
    """Register the decorated function as the handler of the ops of these classes (by name:
    ``@handles("AddFOp")``; a name that is no cuda_tile op is a ``KeyError`` at import)."""
    def deco(fn):
        for c in class_names:
            _HANDLERS[ct.op_name(c)] = fn
        return fn

    return deco


@handles("ReturnOp")
def _return(L: _Lowering, op: ct.ReturnOp) -> None:
    if op.operands_:
        raise _unsupported(op, "with values")
    L.emit(aa.ReturnOp(), op)


@handles("AssertOp")
def _assert(L, op):
    L.emit(tops.AssertOp(L.v(op.condition), op.message.data), op)


@handles("PrintTkoOp")
def _print(L, op):
    """``ct.printf``/``ct.print``: ``nv_tileaa.print`` (the format checked here, located at the
    print); its token is a fresh one (the op is ordered by its memory effect)."""
    from tileorch.dialects.nv_tileaa.print_format import FormatError, check

    args = [L.v(a) for a in op.args]
    try:
        check(op.str_.data, [a.type.element_type if isinstance(a.type, TensorType) else a.type for a in args])
    except FormatError as exc:
        raise LocatedError(op, f"{exc} ('{op.name}')") from None
    L.emit(tops.PrintOp(op.str_.data, args), op)
    L.vm[op.result_token] = L.emit(aa.CreateMemTokenOp(), op).results[0]


@handles("MakeTokenOp")
def _make_token(L, op):
    L.bind(op, L.emit(aa.CreateMemTokenOp(), op))


@handles("JoinTokensOp")
def _join(L, op):
    L.bind(op, L.emit(aa.JoinMemTokenOp.build(operands=[[L.v(t) for t in op.tokens]],
                                              result_types=[aa.MemTokenType()]), op))


@handles("GetTileBlockIdOp")
def _bid(L, op):
    for axis, r in enumerate(op.results):
        new = L.emit(aa.GetProgramIdOp(axis), op)
        L.vm[r] = new.results[0]


@handles("GetNumTileBlocksOp")
def _nbid(L, op):
    for axis, r in enumerate(op.results):
        new = L.emit(aa.GetNumProgramsOp.build(properties={"axis": IntegerAttr(axis, 32)}, result_types=[i32]), op)
        L.vm[r] = new.results[0]


@handles("ConstantOp")
def _constant(L, op):
    c = op.value
    t = L.type(op.result.type, op)
    et = c.element_type
    vals = c.values()
    if isinstance(t, TensorType):
        if isinstance(et, IntegerType):
            vals = [int(v) for v in vals]
        attr = DenseIntOrFPElementsAttr.from_list(t, vals)
    elif isinstance(et, IntegerType):
        attr = IntegerAttr(int(vals[0]), et)
    else:
        attr = FloatAttr(vals[0], et)
    L.bind(op, L.emit(arith.ConstantOp(attr, t), op))


@handles("AssumeOp")
def _assume(L, op):
    src = L.v(op.value)
    p = op.predicate
    fact = None
    scalar = not isinstance(src.type, TensorType)
    if isinstance(p, A.DivByAttr) and scalar and p.every.data < 0:
        fact = aa.DivByAttr(p.divisor.data)
    elif isinstance(p, A.BoundedAttr) and scalar and isinstance(src.type, IntegerType):
        fact = aa.BoundedAttr(p.bound("lb"), p.bound("ub"))
    if fact is None:  # a fact the tile tier cannot state yet: keep the value, drop the fact
        L.vm[op.result] = src
        return
    L.bind(op, L.emit(aa.AssumeOp(src, fact), op))


@handles("MakeTensorViewOp")
def _tensor_view(L, op):
    tv = op.result.type
    dyn = [L.v(v) for v in op.dynamicShape] + [L.v(v) for v in op.dynamicStrides]
    index_type = dyn[0].type if dyn else i32
    conv = lambda ds: [aa.DYNAMIC if d == T.DYNAMIC else d for d in ds]  # noqa: E731
    mt = aa.MemRefType(tv.element_type, conv(tv.shape), conv(tv.strides), index_type)
    new = aa.MakeMemrefOp(L.v(op.base), [L.v(v) for v in op.dynamicShape], [L.v(v) for v in op.dynamicStrides], mt)
    L.bind(op, L.emit(new, op))


@handles("MakePartitionViewOp")
def _partition_view(L, op):
    pv = op.result.type
    memref = L.v(op.tensor_view)
    vt = aa.TiledViewType(list(pv.tile_shape), memref.type, step=list(pv.tile_shape), order=list(pv.dim_map))
    L.bind(op, L.emit(aa.BlockTileOp(memref, vt), op))


@handles("MakeStridedViewOp")
def _strided_view(L, op):
    """``Array.tiled_view(tile, traversal_steps=...)``: tiles ``tile`` whose origins are
    ``traversal_strides`` elements apart (overlapping or with gaps): a ``block_tile`` whose step
    is not its tile (the SIMT lowering reads tile ``i`` at element ``i * step``; the tiers refuse
    such a view; the number of tiles of such a view is refused where it is asked for)."""
    sv = op.result.type
    memref = L.v(op.tensor_view)
    vt = aa.TiledViewType(list(sv.tile_shape), memref.type, step=list(sv.traversal_strides), order=list(sv.dim_map))
    L.bind(op, L.emit(aa.BlockTileOp(memref, vt), op))


@handles("GetIndexSpaceShapeOp", "GetTensorShapeOp")
def _shape(L, op):
    src = L.v(op.src)
    for i, r in enumerate(op.result):
        new = L.emit(aa.GetDimSizeOp(src, i, L.type(r.type, op)), op)
        L.vm[r] = new.results[0]


def _mem_props(L, op, new) -> None:
    new.properties["mem_semantic"] = aa.MemSemanticAttr(op.memory_ordering_semantics.data.value)
    if op.memory_scope is not None:
        new.properties["mem_scope"] = aa.MemScopeAttr(_SCOPES[op.memory_scope.data.value])
    if op.inbounds is not None:
        new.properties["in_bounds"] = op.inbounds
    if op.optimization_hints is not None:
        allow = op.optimization_hints.get("allow_tma", _arch_key(L.cc))
        if allow is not None:
            new.properties["allow_tma"] = BoolAttr.from_bool(bool(allow))


# ---------------------------------------------------------------------- gather/scatter views
# cuTile 1.7's load_advanced_indexing / store_advanced_indexing: a view whose sparse dimension is
# indexed by a 1-D tile of element indices and whose other dimensions by element offsets; lowered
# to a pointer tile (base + sum of index * stride) and a masked pointer load/store, each element in
# bounds on every dimension or masked (a load's masked elements take the view's padding value)
_PADDING = {"zero": 0.0, "neg_zero": -0.0, "nan": float("nan"), "pos_inf": float("inf"), "neg_inf": float("-inf")}


@handles("MakeGatherScatterViewOp")
def _gather_scatter_view(L, op):
    """Nothing to emit: its loads and stores read the view's tensor view (:func:`_gather_pointers`)."""


def _full(L, x: SSAValue, shape: list, op) -> SSAValue:
    """Scalar ``x`` as a tensor of ``shape``."""
    one = L.emit(aa.SplatOp.build(operands=[x], result_types=[TensorType(x.type, [1] * len(shape))]), op).results[0]
    return L.emit(aa.BroadcastOp.build(operands=[one], result_types=[TensorType(x.type, shape)]), op).results[0]


def _along(L, v: SSAValue, d: int, shape: list, op) -> SSAValue:
    """The 1-D tensor ``v`` (extent ``shape[d]``) along dimension ``d`` of a ``shape`` tensor."""
    cur, cur_shape = v, [shape[d]]
    for i in range(len(shape)):
        if i != d:
            cur_shape.insert(i, 1)
            cur = L.emit(aa.ExpandDimsOp.build(operands=[cur], result_types=[TensorType(v.type.element_type,
                                                                                        list(cur_shape))],
                                               properties={"dim": IntegerAttr(i, 32)}), op).results[0]
    if cur_shape != list(shape):
        cur = L.emit(aa.BroadcastOp.build(operands=[cur], result_types=[TensorType(v.type.element_type, shape)]),
                     op).results[0]
    return cur


def _i64(L, x: SSAValue, op) -> SSAValue:
    t = x.type
    e = t.element_type if isinstance(t, TensorType) else t
    if e == i64:
        return x
    if isinstance(t, TensorType):
        return L.emit(tops.ExtSIOp(x, TensorType(i64, list(t.get_shape()))), op).results[0]
    return L.emit(arith.ExtSIOp(x, i64), op).results[0]


_VIEW_MAKERS = tuple(ct.op_name(c) for c in ("MakeGatherScatterViewOp", "MakePartitionViewOp", "MakeStridedViewOp"))
"""The view-making ops, by name (classes defined on first use)."""


def _tensor_view_facts(L, view: SSAValue, op) -> tuple[SSAValue, list, list]:
    """(base pointer, extents, strides) of the tensor view under a gather/scatter, partition or
    strided view, each extent and stride an i64 scalar (a static one a constant)."""
    owner = view.owner
    mtv = owner.tensor_view.owner if isinstance(owner, Operation) and owner.name in _VIEW_MAKERS else None
    if not isinstance(mtv, ct.MakeTensorViewOp):
        raise _unsupported(op, "on a view of a tensor view that is not made in the kernel")
    tv = mtv.result.type
    dyn = {"shape": iter(mtv.dynamicShape), "strides": iter(mtv.dynamicStrides)}

    def values(static, kind):
        return [_i64(L, L.v(next(dyn[kind])), op) if v == T.DYNAMIC else
                L.emit(arith.ConstantOp(IntegerAttr(v, i64), i64), op).results[0] for v in static]

    return L.v(mtv.base), values(tv.shape, "shape"), values(tv.strides, "strides")


def _gather_pointers(L, op) -> tuple[SSAValue, SSAValue]:
    """(pointer tile, in-bounds mask) of a load/store ``op`` on a gather/scatter view."""
    vt = op.view.type
    shape = list(vt.tile_shape)
    base, extents, strides = _tensor_view_facts(L, op.view, op)
    offset = mask = None
    for d, index in enumerate(op.index):
        if d == vt.sparse_dim:
            idx = _i64(L, L.v(index), op)
        else:  # an element offset: offset + 0, 1, ..., shape[d] - 1
            span = {"start": IntegerAttr(0, 32), "end": IntegerAttr(shape[d], 32)}
            rng = L.emit(aa.MakeRangeOp.build(properties=span, result_types=[TensorType(i32, [shape[d]])]),
                         op).results[0]
            idx = L.emit(aa.AddIOp(_i64(L, rng, op), _full(L, _i64(L, L.v(index), op), [shape[d]], op)), op).results[0]
        inside = L.emit(tops.CmpIOp(idx, _full(L, extents[d], [shape[d]], op), "ult"), op).results[0]
        term = L.emit(aa.MulIOp(idx, _full(L, strides[d], [shape[d]], op)), op).results[0]
        term, inside = _along(L, term, d, shape, op), _along(L, inside, d, shape, op)
        offset = term if offset is None else L.emit(aa.AddIOp(offset, term), op).results[0]
        mask = inside if mask is None else L.emit(arith.AndIOp(mask, inside), op).results[0]
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    ptrs = L.emit(po.OffsetOp(_full(L, base, shape, op), offset), op).results[0]
    return ptrs, mask


def _gather_load(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    ptrs, mask = _gather_pointers(L, op)
    rt = L.type(op.tile.type, op)
    pad = op.view.type.padding_value
    other = None
    if pad is not None:
        et = rt.element_type
        value = FloatAttr(_PADDING[pad], et) if not isinstance(et, IntegerType) else IntegerAttr(0, et)
        other = _full(L, L.emit(arith.ConstantOp(value, et), op).results[0], list(rt.get_shape()), op)
    new = po.LoadOp(ptrs, rt, mask, other, L.v(op.token) if op.token is not None else None)
    _set_order(new, *_ptr_order(op))
    L.bind(op, L.emit(new, op))


def _gather_store(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    ptrs, mask = _gather_pointers(L, op)
    new = po.StoreOp(ptrs, L.v(op.tile), mask, L.v(op.token) if op.token is not None else None)
    _set_order(new, *_ptr_order(op))
    L.bind(op, L.emit(new, op))


def _through_pointers(op) -> bool:
    """Does the view load/store ``op`` go through pointers (a gather/scatter view), not a tiled
    access of a partition or strided view?"""
    return isinstance(op.view.type, T.GatherScatterViewType)


@handles("LoadViewTkoOp")
def _load(L, op):
    if _through_pointers(op):
        return _gather_load(L, op)
    tok = L.v(op.token) if op.token is not None else None
    new = aa.TiledLoadOp(L.v(op.view), [L.v(i) for i in op.index], L.type(op.tile.type, op), tok)
    _mem_props(L, op, new)
    pad = op.view.type.padding_value
    if pad is not None:
        new.properties["padding_value"] = aa.PaddingValueAttr(pad)
    L.bind(op, L.emit(new, op))


@handles("StoreViewTkoOp")
def _store(L, op):
    if _through_pointers(op):
        return _gather_store(L, op)
    tok = L.v(op.token) if op.token is not None else None
    new = aa.TiledStoreOp(L.v(op.view), L.v(op.tile), [L.v(i) for i in op.index], tok)
    _mem_props(L, op, new)
    L.bind(op, L.emit(new, op))


# ---------------------------------------------------------------------- pointer tiles
def _ptr_order(op, default_scope: str = "gpu") -> tuple[str, str | None]:
    """(mem_semantic, mem_scope) of a pointer access: the op's ordering, its scope in the tile
    tier's words (``tl_blk`` -> ``cta``, ``device`` -> ``gpu``, ``sys``); an ordered access
    without a scope gets ``default_scope``."""
    sem = op.memory_ordering_semantics.data.value
    if sem == "weak":
        return sem, None
    scope = _SCOPES[op.memory_scope.data.value] if op.memory_scope is not None else default_scope
    return sem, scope


def _opt(L, v):
    return L.v(v) if v is not None else None


@handles("OffsetOp")
def _offset(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    L.bind(op, L.emit(po.OffsetOp(L.v(op.ptr), L.v(op.offset)), op))


@handles("IntToPtrOp")
def _int_to_ptr(L, op):
    """An i64 address read as a pointer (a list-of-arrays parameter's array: its data pointer is a
    word of the list's table)."""
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    L.bind(op, L.emit(po.IntToPtrOp(L.v(op.source), L.type(op.result.type, op)), op))


def _set_order(new, sem: str, scope: str) -> None:
    """A pointer load/store's memory ordering and scope (a weak access keeps the defaults)."""
    if sem != "weak":
        new.properties["mem_semantic"] = aa.MemSemanticAttr(sem)
        new.properties["mem_scope"] = aa.MemScopeAttr(scope)


@handles("LoadPtrTkoOp")
def _load_ptr(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    sem, scope = _ptr_order(op)
    # a padding value without a mask pads nothing (cuTile's gather from a 0-d array): dropped
    padding = _opt(L, op.paddingValue) if op.mask is not None else None
    new = po.LoadOp(L.v(op.source), L.type(op.result.type, op), _opt(L, op.mask), padding, _opt(L, op.token))
    _set_order(new, sem, scope)
    L.bind(op, L.emit(new, op))


@handles("StorePtrTkoOp")
def _store_ptr(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    sem, scope = _ptr_order(op)
    new = po.StoreOp(L.v(op.destination), L.v(op.value), _opt(L, op.mask), _opt(L, op.token))
    _set_order(new, sem, scope)
    L.bind(op, L.emit(new, op))


@handles("AtomicRMWTkoOp")
def _atomic_rmw(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    sem, scope = _ptr_order(op)
    new = po.AtomicRMWOp(L.v(op.pointers), L.v(op.arg), op.mode.data.value, sem, scope, _opt(L, op.mask),
                         _opt(L, op.token))
    L.bind(op, L.emit(new, op))


@handles("AtomicRedViewTkoOp")
def _atomic_red_view(L, op):
    """``TiledView.atomic_store_<mode>(index, tile)``: tile element ``c`` goes to view element
    ``index * step + c`` (tile dimension ``i`` along the tensor's dimension ``dim_map[i]``, the
    partition view's step its tile, a strided view's its traversal stride): the pointer tile of the
    view's tile and the in-bounds mask (elements past an edge are skipped, as a view store skips
    them), then the pointer tiles' ``nv_tileaa.atomic_rmw`` (its old values unused)."""
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    vt = op.view.type
    shape = list(vt.tile_shape)
    steps = list(getattr(vt, "traversal_strides", shape))
    base, extents, strides = _tensor_view_facts(L, op.view, op)
    offset = mask = None
    for i, index in enumerate(op.index):
        d = vt.dim_map[i]
        span = {"start": IntegerAttr(0, 32), "end": IntegerAttr(shape[i], 32)}
        rng = L.emit(aa.MakeRangeOp.build(properties=span, result_types=[TensorType(i32, [shape[i]])]), op).results[0]
        # the range laid along dimension i first: the arithmetic below is elementwise on whole tiles
        # (a 1-D i64 or i1 tile broadcast to 2-D would be an exchange through shared memory)
        rng = _along(L, rng, i, shape, op)
        origin = L.emit(arith.MuliOp(_i64(L, L.v(index), op),
                                     L.emit(arith.ConstantOp(IntegerAttr(steps[i], i64), i64), op).results[0]),
                        op).results[0]
        g = L.emit(aa.AddIOp(_i64(L, rng, op), _full(L, origin, shape, op)), op).results[0]
        # ult: an element before the view's start (a negative tile index) is out of bounds too
        inside = L.emit(tops.CmpIOp(g, _full(L, extents[d], shape, op), "ult"), op).results[0]
        term = L.emit(aa.MulIOp(g, _full(L, strides[d], shape, op)), op).results[0]
        offset = term if offset is None else L.emit(aa.AddIOp(offset, term), op).results[0]
        mask = inside if mask is None else L.emit(arith.AndIOp(mask, inside), op).results[0]
    ptrs = L.emit(po.OffsetOp(_full(L, base, shape, op), offset), op).results[0]
    sem, scope = _ptr_order(op)
    new = L.emit(po.AtomicRMWOp(ptrs, L.v(op.value), op.mode.data.value, sem, scope, mask, _opt(L, op.token)), op)
    L.vm[op.result_token] = new.results[1]


@handles("AtomicCASTkoOp")
def _atomic_cas(L, op):
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    sem, scope = _ptr_order(op)
    new = po.AtomicCASOp(L.v(op.pointers), L.v(op.cmp), L.v(op.val), sem, scope, _opt(L, op.mask),
                         _opt(L, op.token))
    L.bind(op, L.emit(new, op))


@handles("MmaFOp")
def _mma(L, op):
    new = aa.DotOp(L.v(op.lhs), L.v(op.rhs), L.v(op.acc))
    new.properties["matmul_fast_accum"] = BoolAttr.from_bool(op.fast_acc is not None)
    L.bind(op, L.emit(new, op))


@handles("MmaIOp")
def _mmai(L, op):
    """``mmai`` (int8/uint8 tiles, i32 accumulator): the integer ``nv_tileaa.dot``, each operand's
    signedness kept (``signedness_a``/``signedness_b``)."""
    new = aa.DotOp(L.v(op.lhs), L.v(op.rhs), L.v(op.acc))
    for key, attr in (("signedness_a", op.signedness_lhs), ("signedness_b", op.signedness_rhs)):
        new.properties[key] = aa.SignednessAttr("signed" if _signed_attr(attr) else "unsigned")
    L.bind(op, L.emit(new, op))


def _signed_attr(attr) -> bool:
    return attr.data == A.Signedness.SIGNED


_AA_ELEMENTWISE = {"AddFOp": aa.AddFOp, "SubFOp": aa.SubFOp, "MulFOp": aa.MulFOp, "DivFOp": aa.DivFOp,
                   "MaxFOp": aa.MaxFOp, "MinFOp": aa.MinFOp, "FmaOp": aa.FmaOp, "NegFOp": aa.NegFOp,
                   "ExpOp": aa.ExpOp, "Exp2Op": aa.Exp2Op, "SqrtOp": aa.SqrtOp, "RsqrtOp": aa.RsqrtOp,
                   "TanHOp": aa.TanhOp, "LogOp": aa.LogOp, "Log2Op": aa.Log2Op, "AddIOp": aa.AddIOp,
                   "SubIOp": aa.SubIOp, "MulIOp": aa.MulIOp}
"""cuda_tile op class name -> the nv_tileaa op it becomes (the handlers test the class by name:
no cuda_tile class is defined for a program that does not have the op)."""


_DIRECTED = {A.RoundingMode.ZERO: "rz", A.RoundingMode.NEGATIVE_INF: "rm", A.RoundingMode.POSITIVE_INF: "rp"}
"""The directed roundings of ``cuda_tile.sqrt`` / ``divf`` / ``addf`` / ``subf`` / ``mulf`` / ``fma`` and their PTX
modifiers (``sqrt.rz`` / ``.rm`` / ``.rp``, ``div.rz`` / ..., ``add.rz`` / ...)."""


def _in_combiner(op) -> bool:
    """``op`` is inside the body of a ``cuda_tile.reduce`` or ``scan`` (its combiner)."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in ("cuda_tile.reduce", "cuda_tile.scan"):
            return True
        parent = parent.parent_op()
    return False


def _elementwise(L, op):
    rm = getattr(op, "rounding_mode", None)
    kind = type(op).__name__
    arith_directed = None
    if kind in ("AddFOp", "SubFOp", "MulFOp", "FmaOp") and rm is not None and \
            rm.data != A.RoundingMode.NEAREST_EVEN:
        arith_directed = _DIRECTED.get(rm.data)
        if arith_directed is None or _in_combiner(op):
            # (a reduction's or scan's combiner: the SIMT folds and loop rewrites do not keep a rounding)
            raise _unsupported(op, f"with rounding<{rm.data.value}>")
        if str(op.result.type.element_type) not in ("f32", "f64"):
            # (f16 / bf16 compute in f32: the conversion back would round to nearest a second time)
            raise _unsupported(op, f"with rounding<{rm.data.value}> of {op.result.type.element_type}")
    if kind == "DivFOp" and rm.data not in (A.RoundingMode.NEAREST_EVEN, A.RoundingMode.APPROX,
                                            A.RoundingMode.FULL, *_DIRECTED):
        raise _unsupported(op, f"with rounding<{rm.data.value}>")
    directed = _DIRECTED.get(rm.data) if kind in ("SqrtOp", "DivFOp") and rm is not None else None
    if directed is not None and str(op.result.type.element_type) not in ("f32", "f64"):
        # (f16 / bf16 compute in f32: the conversion back would round to nearest a second time)
        raise _unsupported(op, f"with rounding<{rm.data.value}> of {op.result.type.element_type}")
    if kind in ("MaxFOp", "MinFOp") and op.propagate_nan is not None:  # NaN in, NaN out
        new = (arith.MaximumfOp if kind == "MaxFOp" else arith.MinimumfOp)(L.v(op.lhs), L.v(op.rhs))
    elif kind == "DivFOp" and rm.data in (A.RoundingMode.APPROX, A.RoundingMode.FULL):
        mode = "approx" if rm.data == A.RoundingMode.APPROX else "full"
        ftz = ".ftz" if op.flush_to_zero is not None else ""
        new = aa.DivFOp(*[L.v(v) for v in op.operands], rounding=mode + ftz)
    elif kind in ("TanHOp", "ExpOp") and rm is not None and rm.data == A.RoundingMode.APPROX:
        new = (aa.TanhOp if kind == "TanHOp" else aa.ExpOp)(L.v(op.source), rounding="approx")
    elif arith_directed is not None:
        new = _AA_ELEMENTWISE[kind](*[L.v(v) for v in op.operands], rounding=arith_directed)
    elif directed is not None and kind == "DivFOp":
        new = aa.DivFOp(*[L.v(v) for v in op.operands],
                        rounding=directed + (".ftz" if op.flush_to_zero is not None else ""))
    elif directed is not None:
        new = aa.SqrtOp(L.v(op.source), rounding=directed)
    else:
        new = _AA_ELEMENTWISE[kind](*[L.v(v) for v in op.operands])
    L.bind(op, L.emit(new, op))


for _c in _AA_ELEMENTWISE:
    _HANDLERS[ct.op_name(_c)] = _elementwise


def _signed(op) -> bool:
    return op.signedness.data == A.Signedness.SIGNED


_ARITH_BINARY = {
    "AndIOp": lambda op: arith.AndIOp, "OrIOp": lambda op: arith.OrIOp, "XOrIOp": lambda op: arith.XOrIOp,
    "ShLIOp": lambda op: arith.ShLIOp,
    "ShRIOp": lambda op: arith.ShRSIOp if _signed(op) else arith.ShRUIOp,
    "MaxIOp": lambda op: arith.MaxSIOp if _signed(op) else arith.MaxUIOp,
    "MinIOp": lambda op: arith.MinSIOp if _signed(op) else arith.MinUIOp,
    "RemIOp": lambda op: arith.RemSIOp if _signed(op) else arith.RemUIOp,
    "RemFOp": lambda op: aa.RemFOp,
}
"""cuda_tile op class name -> the op it becomes (by its signedness)."""


def _arith_binary(L, op):
    kind = type(op).__name__
    cls = _ARITH_BINARY[kind](op)
    lhs, rhs = L.v(op.operands[0]), L.v(op.operands[1])
    if kind in ("ShLIOp", "ShRIOp"):
        width = _element_type(lhs.type).width.data
        amount = _uniform_int(op.operands[1])
        if amount is not None and amount % (1 << width) >= width:
            # a constant shift by the width or more (the amount is unsigned): PTX's shl/shr
            # clamp it to the width (0, or the sign for an arithmetic right shift), while
            # LLVM's shl/lshr/ashr make it poison and drop the stores of the result
            if cls is arith.ShRSIOp:
                rhs = _splat_const(L, width - 1, rhs.type, op)
            else:
                L.vm[op.result] = _splat_const(L, 0, lhs.type, op)
                return
    L.bind(op, L.emit(cls(lhs, rhs), op))


def _element_type(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


for _c in _ARITH_BINARY:
    _HANDLERS[ct.op_name(_c)] = _arith_binary


@handles("DivIOp")
def _divi(L, op):
    rm = (op.rounding or A.RoundingModeAttr(A.RoundingMode.ZERO)).data
    if rm == A.RoundingMode.ZERO or (rm == A.RoundingMode.NEGATIVE_INF and not _signed(op)):
        # unsigned: the floor of a non-negative quotient is its truncation (cuTile's `//` of unsigned tiles)
        cls = arith.DivSIOp if _signed(op) else arith.DivUIOp
    elif rm == A.RoundingMode.POSITIVE_INF:
        cls = arith.CeilDivSIOp if _signed(op) else arith.CeilDivUIOp
    else:
        cls = arith.FloorDivSIOp
    L.bind(op, L.emit(cls(L.v(op.lhs), L.v(op.rhs)), op))


# comparisons and selects: arith on scalars, nv_tileaa on tiles (xDSL's arith.cmpi/cmpf type their
# result i1 and arith.select takes an i1 condition, even for tensor operands)
@handles("CmpIOp")
def _cmpi(L, op):
    pred = _CMPI[(op.comparison_predicate.data.value, op.signedness.data.value)]
    lhs, rhs = L.v(op.lhs), L.v(op.rhs)
    new = tops.CmpIOp(lhs, rhs, pred) if isinstance(lhs.type, TensorType) else arith.CmpiOp(lhs, rhs, pred)
    L.bind(op, L.emit(new, op))


@handles("CmpFOp")
def _cmpf(L, op):
    prefix = "o" if op.comparison_ordering.data == A.ComparisonOrdering.ORDERED else "u"
    pred = prefix + _CMPF_PRED[op.comparison_predicate.data.value]
    lhs, rhs = L.v(op.lhs), L.v(op.rhs)
    new = tops.CmpFOp(lhs, rhs, pred) if isinstance(lhs.type, TensorType) else arith.CmpfOp(lhs, rhs, pred)
    L.bind(op, L.emit(new, op))


@handles("SelectOp")
def _select(L, op):
    cond, a, b = L.v(op.cond), L.v(op.val_if_true), L.v(op.val_if_false)
    new = tops.SelectOp(cond, a, b) if isinstance(a.type, TensorType) else arith.SelectOp(cond, a, b)
    L.bind(op, L.emit(new, op))


# elementwise math without an nv_tileaa op: the math dialect's op on the tile (or scalar); the
# SIMT lowering and the tier's epilogue take them element by element (tileaa_to_simt.ELEMENTWISE)
_MATH = {"FloorOp": "FloorOp", "CeilOp": "CeilOp", "SinOp": "SinOp", "CosOp": "CosOp", "TanOp": "TanOp",
         "SinHOp": "SinhOp", "CosHOp": "CoshOp", "PowOp": "PowFOp", "Atan2Op": "Atan2Op"}
"""cuda_tile op class name -> the name of its ``math`` op class (read from the lazily imported dialect)."""


def _math(L, op):
    L.bind(op, L.emit(getattr(math, _MATH[type(op).__name__])(*[L.v(v) for v in op.operands]), op))


for _c in _MATH:
    _HANDLERS[ct.op_name(_c)] = _math


def _uniform_int(v: SSAValue) -> int | None:
    """The one integer every element of the ``cuda_tile`` value ``v`` holds when it is a constant
    (through broadcasts and reshapes), else None."""
    through = (ct.op_name("BroadcastOp"), ct.op_name("ReshapeOp"))  # (by name: asking for a class defines it)
    while isinstance(v.owner, Operation) and v.owner.name in through:
        v = v.owner.source
    if not isinstance(v.owner, ct.ConstantOp):
        return None
    vals = {int(x) for x in v.owner.value.values()}
    return vals.pop() if len(vals) == 1 else None


FPOWI_MULTIPLIES = 16
"""``fpowi`` by a constant exponent of at most this magnitude: multiplications (square and
multiply), exact as cuTile's ``x * x * ...``; other exponents: ``pow(x, float(n))``."""


@handles("FPowIOp")
def _fpowi(L, op):
    """``x ** n`` with an integer ``n`` (cuTile 1.7 writes it for ``x ** n`` and ``ct.pow`` with an
    integer exponent): a constant ``n`` of magnitude at most :data:`FPOWI_MULTIPLIES` is square
    and multiply (a reciprocal for a negative one); another ``n`` is ``math.powf`` of ``x`` and
    ``n`` converted to ``x``'s float type (powf of an integral exponent keeps a negative base's
    sign; the conversion is exact for magnitudes up to 2**24 in f32, 2**11 in f16, 2**8 in bf16:
    larger ones round, which only a base near 1 in magnitude can show)."""
    x, e = L.v(op.source), L.v(op.exponent)
    n = _uniform_int(op.exponent)
    if n is None or abs(n) > FPOWI_MULTIPLIES:
        to_float = tops.SIToFPOp if isinstance(e.type, TensorType) else arith.SIToFPOp
        f = L.emit(to_float(e, x.type), op).results[0]
        L.bind(op, L.emit(math.PowFOp(x, f), op))
        return
    et = x.type.element_type if isinstance(x.type, TensorType) else x.type
    one = FloatAttr(1.0, et)
    one = L.emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(x.type, [1.0] * _numel(x.type))
                                  if isinstance(x.type, TensorType) else one, x.type), op).results[0]
    result, power, k = None, x, abs(n)
    while k:
        if k & 1:
            result = power if result is None else L.emit(aa.MulFOp(result, power), op).results[0]
        k >>= 1
        if k:
            power = L.emit(aa.MulFOp(power, power), op).results[0]
    if result is None:
        result = one
    if n < 0:
        result = L.emit(aa.DivFOp(one, result), op).results[0]
    L.vm[op.result] = result


@handles("GdcWaitTkoOp", "GdcLaunchDependentsTkoOp")
def _gdc(L, op):
    """tileorch launches without programmatic dependent launch (a kernel starts when the one
    before it in the stream has finished and its writes are visible), so waiting for the grids
    this one depends on and letting dependents start are no-ops: the token passes through."""
    L.vm[op.result_token] = L.v(op.token) if op.token is not None else L.emit(aa.CreateMemTokenOp(), op).results[0]


@handles("BitcastOp")
def _bitcast(L, op):
    L.bind(op, L.emit(arith.BitcastOp(L.v(op.source), L.type(op.result.type, op)), op))


@handles("AbsFOp")
def _absf(L, op):
    L.bind(op, L.emit(math.AbsFOp(L.v(op.source)), op))


RZ_CONVERSIONS = {("f32", "f16"), ("f32", "bf16")}
"""(from, to) float conversions taken rounding toward zero (cuTile's ``astype(..., rounding_mode=RZ)``):
the SIMT path's ``cvt.rz``; the tensor-core tiers leave such a kernel to it.  A conversion that
rounds nothing (float_bits.is_exact_conversion: f16 -> f32, e4m3 -> bf16, ...) takes any rounding
mode, lowered as the default one."""


@handles("FToFOp")
def _ftof(L, op):
    rm = (op.rounding_mode or A.RoundingModeAttr(A.RoundingMode.NEAREST_EVEN)).data.value
    if is_exact_conversion(op.from_.type.element_type, op.to.type.element_type):
        rm = "nearest_even"  # (no value rounds: every mode gives the same result)
    if rm not in _ROUNDING:
        raise _unsupported(op, f"with rounding<{rm}>")
    if rm != "nearest_even" and (rm != "zero" or (str(op.from_.type.element_type), str(op.to.type.element_type))
                                 not in RZ_CONVERSIONS):
        raise _unsupported(op, f"with rounding<{rm}> from {op.from_.type.element_type} to {op.to.type.element_type}")
    new = aa.FpToFpOp(L.v(op.from_), L.type(op.to.type, op))
    new.properties["rounding"] = aa.RoundingModeAttr(_ROUNDING[rm])
    L.bind(op, L.emit(new, op))


def _cast(cls_fn):
    """A cast: ``arith`` on scalars (rank-0 tiles), the ``nv_tileaa`` cast of the same name on
    tiles (xDSL's ``arith`` casts take scalars only)."""

    def handler(L, op):
        scalar_cls, tile_cls = cls_fn(op)
        src = L.v(op.from_)
        cls = tile_cls if isinstance(src.type, TensorType) else scalar_cls
        L.bind(op, L.emit(cls(src, L.type(op.to.type, op)), op))

    return handler


_HANDLERS[ct.op_name("ExtIOp")] = _cast(lambda op: (arith.ExtSIOp, tops.ExtSIOp) if _signed(op) else
                             (arith.ExtUIOp, tops.ExtUIOp))
_HANDLERS[ct.op_name("TruncIOp")] = _cast(lambda op: (arith.TruncIOp, tops.TruncIOp))
_HANDLERS[ct.op_name("IToFOp")] = _cast(lambda op: (arith.SIToFPOp, tops.SIToFPOp) if _signed(op) else
                             (arith.UIToFPOp, tops.UIToFPOp))


def _splat_const(L, value: int, t: Attribute, op: Operation) -> SSAValue:
    """An integer constant of type ``t`` (a tile of it when ``t`` is a tensor)."""
    if isinstance(t, TensorType):
        attr = DenseIntOrFPElementsAttr.from_list(t, [value] * _numel(t))
    else:
        attr = IntegerAttr(value, t)
    return L.emit(arith.ConstantOp(attr, t), op).results[0]


NARROW_FTOI_WIDTH = 16
"""``ftoi`` to an integer narrower than this converts through i32 and clamps (see :func:`_ftoi`)."""


def _nan_to_zero_unsafe(src_type, width: int) -> bool:
    """Whether PTX ``cvt.rzi`` of NaN to a ``width``-bit integer may not give 0 (so the lowering
    selects 0 after it).  Measured on an H200 (sweep 19's GPU test): f32 -> s32 gives 0, f32 -> s64
    and f64 -> s32 give the sign-bit pattern (INT_MIN); an f64 source or a 64-bit result is treated
    as unsafe for every width."""
    elt = src_type.element_type if isinstance(src_type, TensorType) else src_type
    return width == 64 or getattr(elt, "bitwidth", 32) == 64


def _select_nan_to_zero(L, op, src, converted, to):
    """``converted`` with the elements whose ``src`` is NaN replaced by 0 (``to``'s type)."""
    tile = isinstance(src.type, TensorType)
    nan = L.emit((tops.CmpFOp if tile else arith.CmpfOp)(src, src, "uno"), op).results[0]
    zero = _splat_const(L, 0, to, op)
    return L.emit((tops.SelectOp if tile else arith.SelectOp)(nan, zero, converted), op).results[0]


@handles("FToIOp")
def _ftoi(L, op):
    """``ftoi`` saturates (the Tile IR spec: a rounded value outside the integer type's range becomes
    the closest representable one; NaN becomes 0).  PTX ``cvt.rzi`` saturates for 16-, 32- and 64-bit
    results, so those are one ``fptosi`` / ``fptoui``; NaN gives 0 only from an f32 (or narrower)
    source to a result of at most 32 bits: a 64-bit result (f32 -> s64) and an f64 source (f64 -> s32)
    give the sign-bit pattern (measured on an H200: sweep 19's GPU test), so NaN is selected to 0
    after those (:func:`_nan_to_zero_unsafe`).  An i8 (or i1) result has no such ``cvt`` (LLVM
    converts to 16 bits and keeps the low byte: 300.0 became 44), so it converts to i32 (saturating,
    NaN 0 as above), clamps to the narrow range (signed ``[-2^(w-1), 2^(w-1)-1]``, unsigned
    ``[0, 2^w-1]``) and truncates."""
    signed = _signed(op)
    src, to = L.v(op.from_), L.type(op.to.type, op)
    tile = isinstance(src.type, TensorType)
    width = (to.element_type if isinstance(to, TensorType) else to).width.data
    convert = ((tops.FPToSIOp if tile else arith.FPToSIOp) if signed else
               (tops.FPToUIOp if tile else arith.FPToUIOp))
    if width >= NARROW_FTOI_WIDTH:
        converted = L.emit(convert(src, to), op).results[0]
        if _nan_to_zero_unsafe(src.type, width):
            converted = _select_nan_to_zero(L, op, src, converted, to)
        L.vm[op.results[0]] = converted
        return
    wide_t = TensorType(i32, to.get_shape()) if tile else i32
    wide = L.emit(convert(src, wide_t), op).results[0]
    if _nan_to_zero_unsafe(src.type, 32):
        wide = _select_nan_to_zero(L, op, src, wide, wide_t)
    if signed:
        low = _splat_const(L, -(1 << (width - 1)), wide_t, op)
        wide = L.emit(arith.MaxSIOp(wide, low), op).results[0]
        high = _splat_const(L, (1 << (width - 1)) - 1, wide_t, op)
        wide = L.emit(arith.MinSIOp(wide, high), op).results[0]
    else:  # fptoui to i32 is already >= 0
        high = _splat_const(L, (1 << width) - 1, wide_t, op)
        wide = L.emit(arith.MinUIOp(wide, high), op).results[0]
    L.bind(op, L.emit((tops.TruncIOp if tile else arith.TruncIOp)(wide, to), op))


@handles("NegIOp")
def _negi(L, op):
    src = L.v(op.source)
    L.bind(op, L.emit(aa.SubIOp(_splat_const(L, 0, src.type, op), src), op))


@handles("AbsIOp")
def _absi(L, op):
    src = L.v(op.source)
    neg = L.emit(aa.SubIOp(_splat_const(L, 0, src.type, op), src), op).results[0]
    L.bind(op, L.emit(arith.MaxSIOp(src, neg), op))


@handles("BroadcastOp")
def _broadcast(L, op):
    src = L.v(op.source)
    rt = L.type(op.result.type, op)
    if src.type == rt:
        L.vm[op.result] = src
        return
    L.bind(op, L.emit(aa.BroadcastOp.build(operands=[src], result_types=[rt]), op))


@handles("ReshapeOp")
def _reshape(L, op):
    src = L.v(op.source)
    s, r = list(op.source.type.shape), list(op.result.type.shape)
    rt = L.type(op.result.type, op)
    if s == r:
        L.vm[op.result] = src
        return
    if not s:  # scalar -> tile of one element
        L.bind(op, L.emit(aa.SplatOp.build(operands=[src], result_types=[rt]), op))
        return
    if not r:  # tile of one element -> scalar
        L.bind(op, L.emit(aa.ExtractOp(src, [0] * len(s), rt), op))
        return
    # insert unit dimensions one at a time
    if [d for d in r if d != 1] == [d for d in s if d != 1] and len(r) > len(s):
        cur, shape = src, list(s)
        i = 0
        while len(shape) < len(r):
            while i < len(shape) and shape[i] == r[i]:
                i += 1
            shape.insert(i, 1)
            t = TensorType(op.source.type.element_type, shape)
            new = L.emit(aa.ExpandDimsOp.build(operands=[cur], result_types=[t],
                                               properties={"dim": IntegerAttr(i, 32)}), op)
            cur = new.results[0]
        if list(cur.type.get_shape()) == r:
            L.vm[op.result] = cur
            return
    # any other reshape keeps the row-major element order
    L.bind(op, L.emit(aa.ReshapeOp(src, rt), op))


@handles("IotaOp")
def _iota(L, op):
    n = op.result.type.shape[0]
    new = aa.MakeRangeOp.build(properties={"start": IntegerAttr(0, 32), "end": IntegerAttr(n, 32)},
                               result_types=[L.type(op.result.type, op)])
    L.bind(op, L.emit(new, op))


@handles("ForOp")
def _for(L, op):
    if op.unsignedCmp is not None:
        raise _unsupported(op, "with unsigned comparison")
    step = op.step.owner
    if isinstance(step, ct.ConstantOp) and isinstance(step.value.element_type, IntegerType):
        value = int(step.value.values()[0])
        if value <= 0:  # scf.for (and the loop on the GPU) needs a positive step
            raise LocatedError(op, f"the step of this for loop is the constant {value}: it must be positive "
                                   "(a loop from lower to upper bound would never end, or never run)")
    src = op.region.block
    body = Block(arg_types=[L.type(a.type, op) for a in src.args])
    for a, b in zip(src.args, body.args):
        L.vm[a] = b
    if any(isinstance(o, ct.IfOp) and _exits_early(o, ct.ContinueOp) for o in src.ops):
        # an early continue (cuTile's ``break`` in a ``for``: a flag and ``if flag: continue``)
        saved, L.block = L.block, body
        body.add_op(scf.YieldOp(*_continue_seq(L, list(src.ops), [t for t in body.arg_types[1:]])))
        L.block = saved
    else:
        L.run_block(src, body)
    new = scf.ForOp(L.v(op.lowerBound), L.v(op.upperBound), L.v(op.step), [L.v(v) for v in op.initValues], body)
    L.bind(op, L.emit(new, op))


@handles("ContinueOp")
def _continue(L, op):
    if not isinstance(op.parent_op(), ct.ForOp):
        raise _unsupported(op, "inside an 'if' of a 'for' (early continue)")
    L.emit(scf.YieldOp(*[L.v(v) for v in op.operands_]), op)


@handles("YieldOp")
def _yield(L, op):
    if not isinstance(op.parent_op(), ct.IfOp):
        raise _unsupported(op, "in this region")
    L.emit(scf.YieldOp(*[L.v(v) for v in op.operands_]), op)


@handles("IfOp")
def _if(L, op):
    from tileorch.transforms.cudatile_to_tileaa.padded_load_choice import chosen_loads

    chosen = chosen_loads(op)
    if chosen is not None:  # the same tile loaded with or without padding: the padded load, no branch
        for load in chosen:
            if load.tile in L.vm:  # (a load yielded twice: lowered once)
                continue
            view = load.view.owner
            inside = isinstance(view, Operation) and view.parent_op() is op
            L.run_ops([view, load] if inside and load.view not in L.vm else [load])
        for r, load in zip(op.results_, chosen):
            L.vm[r] = L.v(load.tile)
        return
    regions = []
    for src in (op.thenRegion, op.elseRegion):
        if not src.blocks:
            regions.append(Region())
            continue
        term = src.blocks[0].last_op
        if not isinstance(term, ct.YieldOp):
            raise _unsupported(op, f"whose region ends with '{term.name}' (early exit)")
        b = Block()
        L.run_block(src.blocks[0], b)
        regions.append(Region(b))
    if not regions[1].blocks and op.results_:
        raise _unsupported(op, "without else")
    new = scf.IfOp(L.v(op.condition), [L.type(r.type, op) for r in op.results_], regions[0],
                   regions[1] if regions[1].blocks else None)
    L.bind(op, L.emit(new, op))


def _combine(L, op):
    from tileorch.dialects.nv_tileaa import reduce_scan as rs

    src = op.body.block
    body = Block(arg_types=[L.type(a.type, op) for a in src.args])
    for a, b in zip(src.args, body.args):
        L.vm[a] = b
    saved = L.block
    L.block = body
    for inner in src.ops:
        if isinstance(inner, ct.YieldOp):
            L.emit(rs.YieldOp.build(operands=[[L.v(v) for v in inner.operands_]]), inner)
            continue
        handler = _HANDLERS.get(inner.name)
        if handler is None:
            raise _unsupported(inner)
        handler(L, inner)
    L.block = saved
    props = {"dim": IntegerAttr(op.dim.value.data, 32), "identities": op.identities}
    cls = rs.ReduceOp
    if isinstance(op, ct.ScanOp):
        cls = rs.ScanOp
        props["reverse"] = op.reverse
    # a reduction of a 1-D tile (ct.sum(t) of a row, layernorm's mean) gives a rank-0 tile: the
    # scalar the rest of the program uses is element [] of the reduce's rank-0 tensor result
    result_types = [TensorType(r.type.element_type, list(r.type.shape)) for r in op.results_]
    new = cls.build(operands=[[L.v(v) for v in op.operands_]], properties=props,
                    result_types=[result_types], regions=[Region(body)])
    L.emit(new, op)
    for old, res in zip(op.results_, new.results):
        if old.type.rank == 0:
            res = L.emit(aa.ExtractOp(res, [], old.type.element_type), op).results[0]
        L.vm[old] = res


_HANDLERS[ct.ReduceOp.name] = _combine
_HANDLERS[ct.ScanOp.name] = _combine


@handles("PermuteOp")
def _permute(L, op):
    from tileorch.dialects.nv_tileaa import reduce_scan as rs

    new = rs.PermuteOp.build(operands=[L.v(op.source)], properties={"permutation": op.permutation},
                             result_types=[L.type(op.result.type, op)])
    L.bind(op, L.emit(new, op))


@handles("CatOp")
def _cat(L, op):
    new = tops.CatOp(L.v(op.lhs), L.v(op.rhs), op.dim.value.data, L.type(op.result.type, op))
    L.bind(op, L.emit(new, op))


@handles("ExtractOp")
def _extract(L, op):
    src = L.v(op.source)
    rt = L.type(op.result.type, op)
    if not isinstance(src.type, TensorType):  # a rank-0 tile: itself
        L.vm[op.result] = src
        return
    indices = [L.v(i) for i in op.indices]
    if src.type == rt:  # the whole tile (index 0 in every dimension)
        L.vm[op.result] = src
        return
    L.bind(op, L.emit(tops.ExtractSliceOp(src, indices, rt), op))


def _byte_shifts(L, rows: int, k: int, ib: IntegerType, op) -> SSAValue:
    """The ``[rows, k]`` tile of ``ib`` shift amounts ``8 * c`` of byte column ``c``."""
    span = {"start": IntegerAttr(0, 32), "end": IntegerAttr(k, 32)}
    rng = L.emit(aa.MakeRangeOp.build(properties=span, result_types=[TensorType(i32, [k])]), op).results[0]
    cols = _along(L, rng, 1, [rows, k], op)
    if ib.width.data > 32:
        cols = L.emit(tops.ExtUIOp(cols, TensorType(ib, [rows, k])), op).results[0]
    elif ib.width.data < 32:
        cols = L.emit(tops.TruncIOp(cols, TensorType(ib, [rows, k])), op).results[0]
    eight = _full(L, L.emit(arith.ConstantOp(IntegerAttr(8, ib), ib), op).results[0], [rows, k], op)
    return L.emit(aa.MulIOp(cols, eight), op).results[0]


def _byte_width(op, t: Attribute) -> IntegerType:
    """The integer type of ``t``'s width, whole bytes only (sub-byte element types: a located
    "not supported yet" error)."""
    bits = t.width.data if isinstance(t, IntegerType) else t.bitwidth
    if bits % 8:
        raise _unsupported(op, f"of {t} elements (sub-byte element types)")
    return IntegerType(bits)


@handles("PackOp")
def _pack(L, op):
    """``ct.pack_to_bytes``: the ``[n]`` tile's little-endian bytes as an ``[n * k]`` i8 tile
    (``k`` bytes per element): byte ``c`` of element ``i`` is ``bits(x[i]) >> 8c`` truncated,
    laid out ``[n, k]`` then reshaped row-major."""
    src = L.v(op.source)
    et = src.type.element_type
    ib = _byte_width(op, et)
    n, k = src.type.get_shape()[0], ib.width.data // 8
    bits = src if et == ib else L.emit(arith.BitcastOp(src, TensorType(ib, [n])), op).results[0]
    wide = L.emit(aa.ExpandDimsOp.build(operands=[bits], result_types=[TensorType(ib, [n, 1])],
                                        properties={"dim": IntegerAttr(1, 32)}), op).results[0]
    wide = L.emit(aa.BroadcastOp.build(operands=[wide], result_types=[TensorType(ib, [n, k])]), op).results[0]
    shifted = L.emit(arith.ShRUIOp(wide, _byte_shifts(L, n, k, ib, op)), op).results[0]
    i8 = IntegerType(8)
    byte = L.emit(tops.TruncIOp(shifted, TensorType(i8, [n, k])), op).results[0]
    L.bind(op, L.emit(aa.ReshapeOp(byte, L.type(op.result.type, op)), op))


@handles("UnpackOp")
def _unpack(L, op):
    """``ct.unpack_from_bytes``: the ``[m]`` i8 tile read as ``m / k`` little-endian elements of
    ``k`` bytes: the bytes reshaped ``[m / k, k]``, column ``c`` zero-extended and shifted left by
    ``8c``, the columns OR-ed, the bits cast to the element type."""
    src = L.v(op.source)
    rt = L.type(op.result.type, op)
    et = rt.element_type
    ib = _byte_width(op, et)
    k = ib.width.data // 8
    n = rt.get_shape()[0]
    rows = L.emit(aa.ReshapeOp(src, TensorType(src.type.element_type, [n, k])), op).results[0]
    wide = L.emit(tops.ExtUIOp(rows, TensorType(ib, [n, k])), op).results[0]
    shifted = L.emit(arith.ShLIOp(wide, _byte_shifts(L, n, k, ib, op)), op).results[0]
    acc = None
    zero = L.emit(arith.ConstantOp(IntegerAttr(0, i32), i32), op).results[0]
    for c in range(k):
        at = L.emit(arith.ConstantOp(IntegerAttr(c, i32), i32), op).results[0]
        col = L.emit(tops.ExtractSliceOp(shifted, [zero, at], TensorType(ib, [n, 1])), op).results[0]
        col = L.emit(aa.ReshapeOp(col, TensorType(ib, [n])), op).results[0]
        acc = col if acc is None else L.emit(arith.OrIOp(acc, col), op).results[0]
    L.vm[op.result] = acc if et == ib else L.emit(arith.BitcastOp(acc, rt), op).results[0]


@handles("InsertOp")
def _insert(L, op):
    src, dst = L.v(op.source), L.v(op.destination)
    if not isinstance(dst.type, TensorType):  # rank 0: the source replaces it
        L.vm[op.result] = src
        return
    if not isinstance(src.type, TensorType):  # a rank-0 source: a unit sub-tile
        shape = [1] * len(dst.type.get_shape())
        src = L.emit(aa.SplatOp.build(operands=[src], result_types=[TensorType(src.type, shape)]), op).results[0]
    if src.type == dst.type:  # the whole tile
        L.vm[op.result] = src
        return
    L.bind(op, L.emit(tops.InsertSliceOp(src, dst, [L.v(i) for i in op.indices]), op))


def _zero(L, t: Attribute, op: Operation) -> SSAValue:
    """A placeholder value of type ``t`` (results of a loop iteration that does not break)."""
    if isinstance(t, aa.MemTokenType):
        return L.emit(aa.CreateMemTokenOp(), op).results[0]
    if isinstance(t, TensorType):
        et = t.element_type
        attr = DenseIntOrFPElementsAttr.from_list(t, [0 if isinstance(et, IntegerType) else 0.0] * _numel(t))
        return L.emit(arith.ConstantOp(attr, t), op).results[0]
    if isinstance(t, IntegerType):
        return L.emit(arith.ConstantOp(IntegerAttr(0, t), t), op).results[0]
    try:
        return L.emit(arith.ConstantOp(FloatAttr(0.0, t), t), op).results[0]
    except Exception:  # noqa: BLE001
        raise _unsupported(op, f"carrying a value of type {t}") from None


def _numel(t: TensorType) -> int:
    n = 1
    for d in t.get_shape():
        n *= d
    return n


def _has_exit(region_or_op) -> bool:
    """Does a region (or an if's regions) end with break/continue somewhere inside ifs?"""
    regions = region_or_op.regions if isinstance(region_or_op, Operation) else [region_or_op]
    for r in regions:
        for b in r.blocks:
            for o in b.ops:
                if isinstance(o, (ct.BreakOp, ct.ContinueOp)):
                    return True
                if isinstance(o, ct.IfOp) and _has_exit(o):
                    return True
    return False


class _LoopState:
    def __init__(self, loop: ct.LoopOp, iters: list, iter_types: list, res_types: list):
        self.loop, self.iters, self.iter_types, self.res_types = loop, iters, iter_types, res_types


def _loop_seq(L, ops: list, st: _LoopState) -> list:
    """Emit ``ops`` (a loop body suffix); return the (go_on, iters..., results...) values."""
    i1 = IntegerType(1)
    for j, op in enumerate(ops):
        if isinstance(op, ct.ContinueOp):
            go = L.emit(arith.ConstantOp(IntegerAttr(1, i1), i1), op).results[0]
            return [go] + [L.v(v) for v in op.operands_] + [_zero(L, t, op) for t in st.res_types]
        if isinstance(op, ct.BreakOp):
            go = L.emit(arith.ConstantOp(IntegerAttr(0, i1), i1), op).results[0]
            return [go] + list(st.iters) + [L.v(v) for v in op.operands_]
        if isinstance(op, ct.IfOp) and _has_exit(op):
            rest = ops[j + 1:]
            types = [i1] + st.iter_types + st.res_types
            regions = []
            for src in (op.thenRegion, op.elseRegion):
                b = Block()
                saved = L.block
                L.block = b
                src_ops = list(src.blocks[0].ops) if src.blocks else []
                if src_ops and isinstance(src_ops[-1], ct.YieldOp):  # falls through: run the rest after it
                    y = src_ops[-1]
                    for inner in src_ops[:-1]:
                        if isinstance(inner, ct.IfOp) and _has_exit(inner):
                            raise _unsupported(inner, "with a nested early exit before a fall-through")
                        _convert(L, inner)
                    for r, v in zip(op.results_, y.operands_):
                        L.vm[r] = L.v(v)
                    vals = _loop_seq(L, rest, st)
                elif not src_ops:
                    vals = _loop_seq(L, rest, st)
                else:
                    vals = _loop_seq(L, src_ops, st)
                L.emit(scf.YieldOp(*vals), op)
                L.block = saved
                regions.append(Region(b))
            new = L.emit(scf.IfOp(L.v(op.condition), types, regions[0], regions[1]), op)
            return list(new.results)
        _convert(L, op)
    raise _unsupported(st.loop, "whose body does not end with 'continue' or 'break'")


def _convert(L, op) -> None:
    handler = _HANDLERS.get(op.name)
    if handler is None:
        raise _unsupported(op)
    try:
        handler(L, op)
    except VerifyException as exc:  # an attribute or op built from out-of-range input
        raise LocatedError(op, str(exc)) from None


def _exits_early(op: ct.IfOp, exit_class: type) -> bool:
    """Does an ``if`` end one of its regions (directly or in a nested ``if``) with ``exit_class``
    (``return``: leaves the kernel; ``continue``: ends the loop iteration)?"""
    for r in op.regions:
        for b in r.blocks:
            for o in b.ops:
                if isinstance(o, exit_class) or (isinstance(o, ct.IfOp) and _exits_early(o, exit_class)):
                    return True
    return False


def _has_return(op: ct.IfOp) -> bool:
    return _exits_early(op, ct.ReturnOp)


def _bind_if_results(L, op: ct.YieldOp) -> None:
    """The end of a flattened ``if``'s branch: the ``if``'s results are its values from here on."""
    for r, v in zip(op.parent_op().results_, op.operands_):
        L.vm[r] = L.v(v)


def _continue_seq(L, ops: list, iter_types: list) -> list:
    """Emit the ``ops`` of a ``for`` body with early continues; return the next iteration's
    values.  At an ``if`` that continues, the ops after it move into its branches (as
    :func:`_exit_seq` does for returns) and the ``if`` yields the next values of both."""
    for j, op in enumerate(ops):
        if isinstance(op, ct.ContinueOp):
            return [L.v(v) for v in op.operands_]
        if isinstance(op, ct.YieldOp):
            _bind_if_results(L, op)
            continue
        if isinstance(op, ct.IfOp) and _exits_early(op, ct.ContinueOp):
            rest = ops[j + 1:]
            regions = []
            for src in (op.thenRegion, op.elseRegion):
                b = Block()
                saved, L.block = L.block, b
                b.add_op(scf.YieldOp(*_continue_seq(L, (list(src.blocks[0].ops) if src.blocks else []) + rest,
                                                    iter_types)))
                L.block = saved
                regions.append(Region(b))
            return list(L.emit(scf.IfOp(L.v(op.condition), iter_types, regions[0], regions[1]), op).results)
        _convert(L, op)
    # unreachable: a verified for body ends with its terminator, and only 'continue' may end one (break, yield
    # and return name other parents); a path here is a bug of this pass, not the user's error
    raise AssertionError("convert-cudatile-to-tileaa: a loop body path that does not end with 'continue'")


def _exit_seq(L, ops: list, top: bool) -> None:
    """Emit the kernel-level ``ops`` of a kernel with early exits (``if c: return``): at an ``if``
    that returns, the ops after it move into the branches that fall through, so each path ends at
    its ``return``; an ``if``'s ``yield`` in such a sequence binds the ``if``'s results to its
    values for the ops that follow it.  ``top``: ``ops`` end the kernel's body (its ``return``
    is the function's), else an ``scf.if`` branch (the ``return`` ends the branch)."""
    for j, op in enumerate(ops):
        if isinstance(op, ct.ReturnOp):
            if op.operands_:
                raise _unsupported(op, "with values")
            L.emit(aa.ReturnOp() if top else scf.YieldOp(), op)
            return
        if isinstance(op, ct.YieldOp):  # the end of a flattened if's branch: its results
            _bind_if_results(L, op)
            continue
        if isinstance(op, ct.IfOp) and _has_return(op):
            rest = ops[j + 1:]
            regions = []
            for src in (op.thenRegion, op.elseRegion):
                b = Block()
                saved, L.block = L.block, b
                _exit_seq(L, (list(src.blocks[0].ops) if src.blocks else []) + rest, top=False)
                L.block = saved
                regions.append(Region(b))
            L.emit(scf.IfOp(L.v(op.condition), [], regions[0], regions[1]), op)
            L.emit(aa.ReturnOp() if top else scf.YieldOp(), op)
            return
        _convert(L, op)
    # unreachable: a verified entry body ends with its terminator, and only 'return' may end one; a path here is
    # a bug of this pass (reported as an internal error in the pass), not the user's error
    raise AssertionError("convert-cudatile-to-tileaa: a kernel path that does not end with 'return'")


@handles("LoopOp")
def _loop(L, op):
    src = op.region.block
    iter_types = [L.type(a.type, op) for a in src.args]
    res_types = [L.type(r.type, op) for r in op.resultValues]
    before = Block(arg_types=iter_types)
    for a, b in zip(src.args, before.args):
        L.vm[a] = b
    saved = L.block
    L.block = before
    vals = _loop_seq(L, list(src.ops), _LoopState(op, list(before.args), iter_types, res_types))
    L.emit(scf.ConditionOp(vals[0], *vals[1:]), op)
    L.block = saved
    after = Block(arg_types=iter_types + res_types)
    after.add_op(scf.YieldOp(*after.args[:len(iter_types)]))
    new = L.emit(scf.WhileOp([L.v(v) for v in op.initValues], iter_types + res_types, Region(before),
                             Region(after)), op)
    copy_location(op, [after.last_op])
    for r, v in zip(op.resultValues, new.results[len(iter_types):]):
        L.vm[r] = v


def _first_invalid(root: Operation) -> tuple[Operation, str] | None:
    """The first op under ``root`` (children before parents) that does not verify, and why."""
    from tileorch.diagnostics import format_error, post_order, verify_op_located

    for op in post_order(root):
        line = verify_op_located(op)
        if line is not None:
            prefix = format_error(op, "")
            return op, line[len(prefix):] if line.startswith(prefix) else line
    return None


def _check_output(module: ct.ModuleOp, funcs: list[aa.FuncOp]) -> None:
    """Every op this pass built verifies.  One that does not is this pass's bug, not the
    program's: it is reported as an internal error at the op (located in the program's source),
    unless the ``cuda_tile`` input itself does not verify (then that is the error)."""
    for f in funcs:
        bad = _first_invalid(f)
        if bad is None:
            continue
        src = _first_invalid(module)
        if src is not None:
            raise LocatedError(src[0], f"{src[1]} (the cuda_tile input does not verify)")
        op, why = bad
        raise LocatedError(op, f"internal error in convert-cudatile-to-tileaa: it built '{op.name}' that does "
                               f"not verify ({why}); this is a tileorch bug, not an error in the program")


LOWERED = sorted({name.split(".", 1)[1] for name in _HANDLERS} | {"entry", "module", "break"})
"""The ``cuda_tile`` ops this pass lowers."""


@dataclass(frozen=True)
class ConvertCudaTileToTileAA(ModulePass):
    """Lower ``cuda_tile`` kernels to ``nv_tileaa`` (see the module docstring)."""

    name = "convert-cudatile-to-tileaa"
    compute_capability: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sm = self.compute_capability.removeprefix("sm_")
        features = 2 if sm.endswith("a") else 0
        try:
            sm_num = int(sm.rstrip("a"))
        except ValueError:
            raise ValueError(f"invalid compute-capability {self.compute_capability!r} (expected e.g. sm_90a)") \
                from None
        modules = [m for m in op.walk() if isinstance(m, ct.ModuleOp)]
        for m in modules:
            funcs = []
            for inner in m.body.block.ops:
                if isinstance(inner, ct.EntryOp):
                    funcs.append(_Lowering(self.compute_capability).entry(inner))
                else:
                    raise _unsupported(inner)
            parent = m.parent_block()
            for f in funcs:
                parent.insert_op_before(f, m)
            _check_output(m, funcs)
            m.detach()
            m.erase()
        if modules:
            op.attributes["nv_tileaa.compute_capability"] = aa.ComputeCapabilityAttr(sm_num, features)
