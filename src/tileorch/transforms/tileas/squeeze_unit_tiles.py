"""``tileas-squeeze-unit-tiles``: a chained-dots program written on tiles with a leading extent-1
dimension (attention on ``(1, BM, D)`` tiles: ``ct.mma`` of 3-D tiles, reductions along axis 2,
no reshape) computes on the 2-D tiles its reshaped form would, so the chained tier takes it as
it takes that form.

Applies to a function with at least two ``nv_tileaa.dot`` ops, each on rank-3 tiles of leading
extent 1.  The *unit tiles* are the tensor values connected to those dots through the ops that
compute them (operands and results, loop-carried values included) that have rank 2 or more and a
leading extent of 1; every one loses that dimension:

* element-wise ops, ``splat``, ``broadcast``, ``fp_to_fp``, ``dot``, ``select``, constants and
  ``scf.for`` iteration values are retyped; ``reduce`` / ``scan`` / ``expand_dims`` take
  ``dim - 1`` and ``permute`` drops its first (fixed) axis;
* a ``tiled_load`` keeps its tile and is followed by a ``reshape`` to the squeezed tile; a
  ``tiled_store`` is preceded by the ``reshape`` back; a ``reshape`` between a unit tile and the
  squeezed shape is dropped, and so is an ``expand_dims`` adding the leading axis (``[n] -> [1, n]``,
  cuTile's reshape of an ``arange`` to ``(1, n, 1)``).

Any other op reading or producing a unit tile, a ``reduce`` / ``scan`` / ``expand_dims`` on the
leading dimension, or a ``permute`` moving it, leaves the function as it is (the tier then says
why it refuses it).  The batch index stays in the loads' and stores' indices.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseArrayBase, DenseIntOrFPElementsAttr, IntegerAttr, TensorType, i32
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.transforms.pass_kinds import FunctionTransform
from tileorch.transforms.tileas.common import set_type

_DIMMED = ("nv_tileaa.reduce", "nv_tileaa.scan", "nv_tileaa.expand_dims")
_RETYPED = ("nv_tileaa.splat", "nv_tileaa.broadcast", "nv_tileaa.fp_to_fp", "nv_tileaa.dot", "arith.select",
            "arith.constant", "scf.for", "scf.yield", "nv_tileaa.permute", "nv_tileaa.reshape")


def _unit(t) -> bool:
    return isinstance(t, TensorType) and len(t.get_shape()) >= 2 and t.get_shape()[0] == 1


def _squeezed(t: TensorType) -> TensorType:
    return TensorType(t.element_type, list(t.get_shape())[1:], t.encoding)


def _elementwise(op: Operation) -> bool:
    """Same-shape element-wise math (the tile tier's float / int ops, ``arith`` compares and logic)."""
    if op.regions or op.name in _DIMMED or op.name in _RETYPED:
        return False
    if not (op.name.startswith("nv_tileaa.") or op.name.startswith("arith.") or op.name.startswith("math.")):
        return False
    shapes = {tuple(v.type.get_shape()) for v in (*op.operands, *op.results) if isinstance(v.type, TensorType)}
    return len(shapes) <= 1


def _leading_expand(op: Operation) -> bool:
    """An ``expand_dims`` adding the leading extent-1 axis to a tile without one (``[n] -> [1, n]``:
    cuTile's ``reshape`` of an ``arange`` to ``(1, n, 1)``): a boundary, dropped by the rewrite."""
    return op.name == "nv_tileaa.expand_dims" and op.dim.value.data == 0 and not _unit(op.operands[0].type)


def _component(fn: Operation, dots: list[Operation]) -> set[SSAValue] | None:
    """The unit tiles connected to ``dots`` (the module doc), or None when an op the rewrite does
    not know touches one."""
    comp: set[SSAValue] = set()
    work = [v for d in dots for v in (*d.operands, *d.results)]
    while work:
        v = work.pop()
        if v in comp or not _unit(v.type):
            continue
        comp.add(v)
        # the op defining v and the ops reading it: their other unit tiles join
        ops = [use.operation for use in v.uses]
        if isinstance(v.owner, Operation):
            ops.append(v.owner)
        else:  # a block argument: a loop's iteration value (its init and yielded value, the result)
            loop = v.owner.parent_op()
            if not isinstance(loop, scf.ForOp) or v.index == 0:
                return None
            i = v.index - 1
            work += [loop.iter_args[i], loop.results[i], loop.body.block.last_op.operands[i]]
        for op in ops:
            if isinstance(op, scf.ForOp):
                for i, init in enumerate(op.iter_args):
                    if init is v or op.results[i] is v:
                        work += [init, op.results[i], op.body.block.args[i + 1]]
                continue
            if isinstance(op, scf.YieldOp):
                loop = op.parent_op()
                if not isinstance(loop, scf.ForOp):
                    return None
                i = list(op.operands).index(v)
                work += [loop.results[i], loop.body.block.args[i + 1]]
                continue
            if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store"):
                continue  # the memory boundary: reshapes
            if op.name == "nv_tileaa.reshape" or _leading_expand(op):
                continue  # a boundary too (dropped or kept, see _rewrite)
            if op.name == "nv_tileaa.reduce" and len(op.results) != 1:
                return None
            if not (_elementwise(op) or op.name in _RETYPED or op.name in _DIMMED):
                return None
            work += [x for x in (*op.operands, *op.results) if isinstance(x.type, TensorType)]
    # every op touching the component must keep its arity of unit tiles consistent
    for v in list(comp):
        for op in [u.operation for u in v.uses] + ([v.owner] if isinstance(v.owner, Operation) else []):
            if op.name in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store", "nv_tileaa.reshape", "scf.for",
                           "scf.yield") or _leading_expand(op):
                continue
            tensors = [x for x in (*op.operands, *op.results) if isinstance(x.type, TensorType)]
            if any(x not in comp for x in tensors):
                return None  # a non-unit tile beside a unit one (e.g. a reduction over the leading axis)
            if op.name in _DIMMED and op.dim.value.data == 0:
                return None
            if op.name == "nv_tileaa.permute" and list(op.permutation.get_values())[0] != 0:
                return None
    return comp


def _rewrite(comp: set[SSAValue]) -> None:
    done: set[int] = set()
    for v in list(comp):
        op = v.owner if isinstance(v.owner, Operation) else None
        if op is not None and id(op) not in done:
            done.add(id(op))
            if _leading_expand(op):
                continue  # dropped below
            if op.name in _DIMMED:
                op.properties["dim"] = IntegerAttr(op.dim.value.data - 1, op.dim.type)
            elif op.name == "nv_tileaa.permute":
                perm = list(op.permutation.get_values())
                op.properties["permutation"] = DenseArrayBase.from_list(i32, [p - 1 for p in perm[1:]])
            elif isinstance(op, arith.ConstantOp) and isinstance(op.value, DenseIntOrFPElementsAttr):
                op.properties["value"] = DenseIntOrFPElementsAttr(_squeezed(op.value.type), op.value.data)
    loads = [v for v in comp if isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.tiled_load"]
    stores = [(u.operation, v) for v in comp for u in list(v.uses) if u.operation.name == "nv_tileaa.tiled_store"]
    reshapes = {id(o): o for v in comp for o in [u.operation for u in v.uses] + [v.owner]
                if isinstance(o, Operation) and (o.name == "nv_tileaa.reshape" or _leading_expand(o))}
    for v in comp:
        set_type(v, _squeezed(v.type))
    for v in loads:  # the load keeps its tile: a reshape to the squeezed tile after it
        load = v.owner
        full = TensorType(v.type.element_type, [1, *v.type.get_shape()], v.type.encoding)
        r = aa.ReshapeOp(v, v.type)
        load.parent_block().insert_op_after(r, load)
        v.replace_all_uses_with(r.result)
        r.operands = [v]
        set_type(v, full)
    for store, v in stores:  # and a store the reshape back
        full = TensorType(v.type.element_type, [1, *v.type.get_shape()], v.type.encoding)
        r = aa.ReshapeOp(v, full)
        store.parent_block().insert_op_before(r, store)
        store.operands = [r.result if x is v else x for x in store.operands]
    for r in reshapes.values():
        src, res = r.operands[0], r.results[0]
        if src.type == res.type:
            res.replace_all_uses_with(src)
            r.detach()
            r.erase()


def squeeze_unit_tiles(fn: Operation) -> bool:
    """Rewrite ``fn`` as the module doc says; whether it did."""
    dots = [op for op in fn.walk() if op.name == "nv_tileaa.dot"]
    if len(dots) < 2 or not all(len(d.operands[0].type.get_shape()) == 3 and
                                all(_unit(x.type) for x in (*d.operands, *d.results)) for d in dots):
        return False
    comp = _component(fn, dots)
    if comp is None:
        return False
    _rewrite(comp)
    return True


class SqueezeUnitTiles(FunctionTransform):
    """Chained dots on leading-extent-1 tiles compute on the squeezed 2-D tiles (module doc)."""

    name = "tileas-squeeze-unit-tiles"
    transform = staticmethod(squeeze_unit_tiles)


__all__ = ["SqueezeUnitTiles", "squeeze_unit_tiles"]
