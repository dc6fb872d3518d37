"""``tileaa-transpose-column-major``: an array whose unit stride is on its next-to-last dimension
(a column-major matrix, or a batch of them) is read as its transpose, so its unit stride is last.

A ``nv_tileaa.make_memref`` whose result type has a static stride 1 on dimension ``-2`` and a
last stride that is not statically 1 (``b = w.t()`` of a row-major ``[N, K]`` weight, launched
as ``[K, N]`` with strides ``(1, K)``: ``tileorch.cutile.launch`` states that unit stride in the
signature it compiles for) becomes the ``make_memref`` of the transposed array: the last two
extents and strides swapped (the same operands, the unit stride now last and static), and

* every ``block_tile`` of it composes the swap into its view's dimension order (tile dimension
  ``i`` read memref dimension ``order[i]``, it now reads ``swap(order[i])``: ``[0, 1]`` becomes
  ``[1, 0]``, what ``ct.load(..., order=(1, 0))`` produces), tile shape, step and the loads' and
  stores' tile indices unchanged;
* ``get_dim_size`` / ``get_dim_stride`` of the memref (memref dimensions) and ``get_dim_stride``
  of a view (memref dimensions too) take the swapped index; ``get_dim_size`` of a view counts
  tiles along a tile dimension and is unchanged.

The program reads the same elements at the same addresses: the rewrite is exact.  It is taken
only when every use of the memref is one of the above and every use of its views is a
``tiled_load``/``tiled_store`` (as the view) or one of the queries above; any other use (a view
carried through a loop, element-wise pointer math) leaves the array as it is.  The TileAS tier
then sees an operand read through a transposed view, with a unit innermost stride TMA takes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileaa.attrs import DYNAMIC, MemRefType, TiledViewType, ints
from tileorch.transforms.pass_kinds import ModuleTransform

_QUERIES = (aa.GetDimSizeOp, aa.GetDimStrideOp)


def is_column_major(mt: MemRefType) -> bool:
    """Rank >= 2, static unit stride on dimension -2, last stride not statically 1."""
    strides = mt.get_strides()
    return len(strides) >= 2 and strides[-2] == 1 and strides[-1] != 1


def _swap(rank: int, d: int) -> int:
    return rank - 1 if d == rank - 2 else rank - 2 if d == rank - 1 else d


def _view_use_ok(op: Operation, view: SSAValue) -> bool:
    if isinstance(op, _QUERIES):
        return True
    if isinstance(op, aa.TiledLoadOp | aa.TiledStoreOp):
        return op.view is view and sum(1 for v in op.operands if v is view) == 1
    return False


def rewritable(op: aa.MakeMemrefOp) -> bool:
    """Whether ``op`` is column-major and every use of it and of its views is one the rewrite keeps exact."""
    if not is_column_major(op.result.type):
        return False
    for use in op.result.uses:
        user = use.operation
        if isinstance(user, _QUERIES):
            continue
        if not isinstance(user, aa.BlockTileOp):
            return False
        if not all(_view_use_ok(u.operation, user.result) for u in user.result.uses):
            return False
    return True


def _split(static: list[int], dynamic: list[SSAValue]) -> list[int | SSAValue]:
    it = iter(dynamic)
    return [next(it) if s == DYNAMIC else s for s in static]


def _join(per_dim: list[int | SSAValue]) -> tuple[list[int], list[SSAValue]]:
    static = [DYNAMIC if isinstance(v, SSAValue) else v for v in per_dim]
    return static, [v for v in per_dim if isinstance(v, SSAValue)]


def _swap_last(xs: list) -> list:
    return [*xs[:-2], xs[-1], xs[-2]]


def _reindex(query: Operation, rank: int) -> None:
    query.properties["index"] = IntegerAttr(_swap(rank, query.index.value.data), i32)


def transpose(op: aa.MakeMemrefOp) -> aa.MakeMemrefOp:
    """Rewrite ``op`` (:func:`rewritable`) and its uses; returns the new ``make_memref``."""
    mt: MemRefType = op.result.type
    rank = mt.rank()
    shape, shape_ops = _join(_swap_last(_split(mt.get_shape(), list(op.shape))))
    strides, stride_ops = _join(_swap_last(_split(mt.get_strides(), list(op.strides))))
    new_mt = MemRefType(mt.element, shape, strides, mt.index_type)
    new = aa.MakeMemrefOp(op.ptr, shape_ops, stride_ops, new_mt)
    new.attributes.update(op.attributes)
    Rewriter.insert_op(new, InsertPoint.before(op))
    for use in list(op.result.uses):
        user = use.operation
        if isinstance(user, _QUERIES):
            _reindex(user, rank)
            user.operands[use.index] = new.result
            continue
        vt: TiledViewType = user.result.type
        new_vt = TiledViewType(ints(vt.tile), new_mt, ints(vt.step), [_swap(rank, d) for d in ints(vt.order)])
        tile = aa.BlockTileOp(new.result, new_vt)
        tile.attributes.update(user.attributes)
        Rewriter.insert_op(tile, InsertPoint.before(user))
        for vuse in list(user.result.uses):
            if isinstance(vuse.operation, aa.GetDimStrideOp):
                _reindex(vuse.operation, rank)
        user.result.replace_all_uses_with(tile.result)
        Rewriter.erase_op(user)
    Rewriter.erase_op(op)
    return new


def transpose_column_major(module: Operation) -> int:
    """Apply the rewrite to every rewritable ``make_memref`` under ``module``; returns how many."""
    todo = [op for op in module.walk() if isinstance(op, aa.MakeMemrefOp) and rewritable(op)]
    for op in todo:
        transpose(op)
    return len(todo)


@dataclass(frozen=True)
class TransposeColumnMajor(ModuleTransform):
    """Read column-major arrays as their row-major transposes through transposed views."""

    name = "tileaa-transpose-column-major"
    transform = staticmethod(transpose_column_major)
