"""``convert-tileaa-to-tileas``: the TileAA → TileAS step, as tileiras runs it first on a
tile kernel.

* every tile (``tensor`` without encoding) becomes a register tile with a layout still to be
  chosen, ``#nv_tileas.layout<reg>`` (function arguments, block arguments, loop results,
  constants included);
* memory tokens disappear (TileAS orders memory through its pipelines): ``create_mem_token`` /
  ``join_mem_token`` are erased, token operands dropped;
* ``tiled_load`` / ``tiled_store`` become ``nv_tileas.tiled_load`` / ``tiled_store`` with the
  placeholder ``#nv_tileas.unknown_copy_atom``;
* ``dot`` becomes ``convert_layout`` on each operand (the hooks where layout assignment puts the
  MMA operand layouts) and ``nv_tileas.dot(a, b, c, true)`` with the placeholder atom
  ``#nv_tileas.fma<[1, 1, 1]>``;
* ``broadcast`` / ``expand_dims`` become ``nv_tileas.broadcast`` / ``nv_tileas.expand_dim``;
  elementwise ops, ``fp_to_fp``, ``extract`` etc. stay in nv_tileaa on the retyped tiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.transforms.tileas.common import retype_values

REG = ts.LayoutAttr("reg")


def to_tileas_type(t: Attribute) -> Attribute:
    if isinstance(t, TensorType) and not isinstance(t.encoding, ts.LayoutAttr):
        return TensorType(t.element_type, t.get_shape(), REG)
    return t


def _retype_values(func: Operation) -> None:
    retype_values(func, to_tileas_type)


def convert_function(func: aa.FuncOp) -> None:
    ftype = func.function_type
    if any(isinstance(t, aa.MemTokenType) for t in (*ftype.inputs.data, *ftype.outputs.data)):
        raise LocatedError(func, "memory tokens cannot cross a function boundary in TileAS")
    func.function_type = FunctionType.from_lists([to_tileas_type(t) for t in ftype.inputs.data],
                                                 [to_tileas_type(t) for t in ftype.outputs.data])
    _retype_values(func)
    # reverse order: a token's later readers are converted (and let go of it) first
    for op in reversed(list(func.walk())):
        new: list[Operation] = []
        if isinstance(op, aa.TiledLoadOp):
            load = ts.TiledLoadOp(op.view, list(op.indices), op.result.type, ts.UnknownCopyAtomAttr(),
                                  allow_tma=op.allow_tma.value.data if op.allow_tma is not None else True)
            if op.padding_value is not None:
                load.padding_value = op.padding_value
            if op.mem_semantic is not None and op.mem_semantic.value.data != "weak":
                load.attributes["mem_semantic"] = op.mem_semantic
            new = [load]
            Rewriter.insert_op(load, _before(op))
            op.result.replace_all_uses_with(load.result)
        elif isinstance(op, aa.TiledStoreOp):
            store = ts.TiledStoreOp(op.view, op.tile, list(op.indices), ts.UnknownCopyAtomAttr(),
                                    allow_tma=op.allow_tma.value.data if op.allow_tma is not None else True)
            if op.mem_semantic is not None and op.mem_semantic.value.data != "weak":
                store.attributes["mem_semantic"] = op.mem_semantic
            new = [store]
            Rewriter.insert_op(store, _before(op))
        elif isinstance(op, aa.DotOp):
            ca = ts.ConvertLayoutOp(op.lhs, op.lhs.type)
            cb = ts.ConvertLayoutOp(op.rhs, op.rhs.type)
            cc = ts.ConvertLayoutOp(op.acc, op.acc.type)
            true = arith.ConstantOp.from_int_and_width(1, 1)
            dot = ts.DotOp(ca.result, cb.result, cc.result, ts.FmaAtomAttr([1, 1, 1]), true.result)
            for key in ("matmul_fast_accum", "signedness_a", "signedness_b"):
                if key in op.properties:
                    dot.properties[key] = op.properties[key]
            new = [ca, cb, cc, true, dot]
            Rewriter.insert_op(new, _before(op))
            op.result.replace_all_uses_with(dot.result)
        elif isinstance(op, aa.BroadcastOp):
            new = [ts.BroadcastOp(op.source, op.result.type)]
            Rewriter.insert_op(new, _before(op))
            op.result.replace_all_uses_with(new[0].result)
        elif isinstance(op, aa.ExpandDimsOp):
            new = [ts.ExpandDimOp(op.source, op.dim.value.data, op.result.type)]
            Rewriter.insert_op(new, _before(op))
            op.result.replace_all_uses_with(new[0].result)
        else:
            continue
        copy_location(op, new)
        _erase_keep_tokens(op)
    _drop_loop_tokens(func)
    _drop_read_only_if_tokens(func)
    # pointer-tile memory ops (gather/scatter/atomics: the epilogue's element-wise accesses) stay
    # in nv_tileaa; their token operand goes (its result token is read by joins only)
    from tileorch.dialects.nv_tileaa import pointer_ops as po

    for op in list(func.walk()):
        if isinstance(op, po.AtomicRMWOp | po.AtomicCASOp | po.StoreOp | po.LoadOp) and op.token is not None:
            for r in op.results:
                if isinstance(r.type, aa.MemTokenType):
                    for u in r.uses:
                        if u.operation.name != "nv_tileaa.join_mem_token":
                            raise token_use_error(u.operation)
            op.operands = [v for v in op.operands if v is not op.token]
            segments = op.properties.get("operandSegmentSizes")
            if segments is not None:
                sizes = list(segments.get_values())
                sizes[-1] = 0
                from xdsl.dialects.builtin import DenseArrayBase, i32

                op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, sizes)
    # tokens: nothing reads them any more
    for op in reversed(list(func.walk())):
        if isinstance(op, aa.JoinMemTokenOp | aa.CreateMemTokenOp):
            for u in [u for r in op.results for u in r.uses]:
                if u.operation.name != "nv_tileaa.join_mem_token":
                    raise token_use_error(u.operation)
    for op in reversed(list(func.walk())):
        if isinstance(op, aa.JoinMemTokenOp):
            Rewriter.erase_op(op, safe_erase=False)
    for op in list(func.walk()):
        if isinstance(op, aa.CreateMemTokenOp):
            Rewriter.erase_op(op, safe_erase=False)


def _drop_loop_tokens(func: Operation) -> None:
    """``scf.for`` loops stop carrying memory tokens (a program whose epilogue orders its memory ops
    after the loop's loads threads them through the loop); uses of a carried token read the
    loop's initial token instead (all tokens are erased next)."""
    from xdsl.dialects import scf

    for loop in [o for o in func.walk() if isinstance(o, scf.ForOp)]:
        inits = list(loop.iter_args)
        drop = [i for i, v in enumerate(inits) if isinstance(v.type, aa.MemTokenType)]
        if not drop:
            continue
        keep = [i for i in range(len(inits)) if i not in drop]
        body = loop.body.block
        old_yield = body.last_op
        for i in drop:
            body.args[i + 1].replace_all_uses_with(inits[i])
            loop.results[i].replace_all_uses_with(inits[i])
        new_yield = scf.YieldOp(*[old_yield.operands[i] for i in keep])
        body.insert_op_before(new_yield, old_yield)
        old_yield.detach()
        old_yield.erase()
        for i in reversed(drop):
            body.erase_arg(body.args[i + 1])
        region = loop.detach_region(loop.body)
        new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [inits[i] for i in keep], region)
        new_loop.attributes.update(loop.attributes)
        loop.parent_block().insert_op_before(new_loop, loop)
        for j, i in enumerate(keep):
            loop.results[i].replace_all_uses_with(new_loop.results[j])
        copy_location(loop, [new_loop])
        loop.detach()
        loop.erase()


_WRITES = ("store", "atomic_rmw", "atomic_cas")


def _drop_read_only_if_tokens(func: Operation) -> None:
    """``scf.if`` ops whose branches only read memory stop yielding memory tokens (an epilogue term
    under a condition on the program id, ``if ct.bid(2) == 0: acc += ct.load(Bias, ...)``, threads
    the load's token out of the if); uses of such a token read a fresh token made before the if
    (all tokens are erased next).  An if whose branches write memory keeps its tokens: their uses
    are refused in the program's terms (:func:`token_use_error`, :data:`IF_STORE`)."""
    from xdsl.dialects import scf

    for old in [o for o in func.walk() if isinstance(o, scf.IfOp)]:
        drop = [i for i, r in enumerate(old.results) if isinstance(r.type, aa.MemTokenType)]
        if not drop or any(o.name.endswith(_WRITES) for o in old.walk() if o is not old):
            continue
        keep = [i for i in range(len(old.results)) if i not in drop]
        fresh = aa.CreateMemTokenOp()
        old.parent_block().insert_op_before(fresh, old)
        for i in drop:
            old.results[i].replace_all_uses_with(fresh.results[0])
        regions = []
        for region in (old.true_region, old.false_region):
            if region.blocks:
                y = region.block.last_op
                region.block.insert_op_before(scf.YieldOp(*[y.operands[i] for i in keep]), y)
                y.detach()
                y.erase()
            regions.append(old.detach_region(region))
        new = scf.IfOp(old.cond, [old.results[i].type for i in keep], regions[0], regions[1])
        new.attributes.update(old.attributes)
        old.parent_block().insert_op_before(new, old)
        for j, i in enumerate(keep):
            old.results[i].replace_all_uses_with(new.results[j])
        copy_location(old, [new, fresh])
        old.detach()
        old.erase()


LOOP_STORE = ("the tile is stored inside a loop around its computation, which the tensor-core tier does not "
              "take (one output tile per program): a persistent loop over the output tiles is taken when it "
              "starts at ct.bid(a), steps by ct.num_blocks(a), runs to tiles_m * tiles_n and reads its index "
              "only as t // n and t % n or in the grouped raster of the matmul samples "
              "(tileas-program-loop-to-tiles); this one does not")


WHILE_STORE = ("memory is written inside a while loop (a tile store, scatter or atomic: e.g. the samples' "
               "persistent grouped GEMM or a spin lock), which the tensor-core tier does not take: it runs one "
               "output tile per program, or a persistent for loop over the output tiles "
               "(tileas-program-loop-to-tiles)")
IF_STORE = ("memory is written under an if whose branches differ (a store, scatter or atomic in one branch, or "
            "different ones in each), which the tensor-core tier's epilogue does not take: it stores the output "
            "tile once, unconditionally (an early return before the K loop is taken)")


def token_use_error(user: Operation) -> LocatedError:
    """The located refusal for a memory token read by ``user`` (an op TileAS does not order), in the
    program's terms: a for loop carrying a store's token is a tile loop the tier did not turn into
    its grid (:data:`LOOP_STORE`), a while loop around memory writes :data:`WHILE_STORE` (at the
    while), an if whose branches write memory :data:`IF_STORE` (at the if); anything else names the op."""
    from xdsl.dialects import scf

    if isinstance(user, scf.YieldOp | scf.ConditionOp):
        if isinstance(user.parent_op(), scf.ForOp):
            return LocatedError(user.parent_op(), LOOP_STORE)
        op = user.parent_op()
        while op is not None and not isinstance(op, scf.WhileOp):
            op = op.parent_op()
        if op is not None:
            return LocatedError(op, WHILE_STORE)
        if isinstance(user.parent_op(), scf.IfOp):
            return LocatedError(user.parent_op(), IF_STORE)
    return LocatedError(user, f"a memory token is used by '{user.name}', an op TileAS does not order")


def _before(op: Operation):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


def _erase_keep_tokens(op: Operation) -> None:
    for r in op.results:
        if isinstance(r.type, aa.MemTokenType):
            for use in list(r.uses):
                user = use.operation
                if user.name == "nv_tileaa.join_mem_token":
                    continue
                raise token_use_error(user)
    # drop token uses by join ops first (they are erased with the tokens)
    for r in op.results:
        for use in list(r.uses):
            use.operation.operands = [v for v in use.operation.operands if v is not r]
    op.detach()
    op.erase()


@dataclass(frozen=True)
class ConvertTileAAToTileAS(ModulePass):
    """nv_tileaa → nv_tileas: register-layout placeholders, placeholder atoms, tokens removed."""

    name = "convert-tileaa-to-tileas"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, aa.FuncOp)]:
            if func.body.blocks:
                convert_function(func)
