"""``tileas-split-batch-tiles``: a batched dot program whose 3-D tiles hold ``tb > 1`` matrices of
the batch per program (``ct.load(A, index=(b, m, k), shape=(tb, tm, tk))``) becomes the same
program with a batch tile of 1, program id ``p`` now naming one matrix instead of one group of
``tb``.  The result is the same: every matrix of the batch is computed by exactly one program
either way, provided the program treats its ``tb`` matrices alike and independently.

The rewrite is taken when all of these hold (else the kernel is left as it is, and the WGMMA
lowering names the reason):

* every tensor with a leading extent ``tb`` (rank >= 3) is produced and used only by ops that act
  on each batch row alone: tiled loads/stores, dots, ``fp_to_fp``, elementwise math, splat
  constants, broadcasts whose operand has no batch extent > 1, ``convert_layout``/``assume``,
  ``scf.for``/``scf.yield`` carries;
* every tiled view with such a tile has tile = step = ``tb`` along dimension 0 and is indexed there
  by program id ``p`` (one axis for all);
* program id ``p`` is used by nothing else (a program that computes with its batch tile index
  would see another value), and no ``get_dim_size`` of a batch dimension is used.

The kernel gets ``tileorch.split_batch_tile = tb`` (the WGMMA lowering reports it as a remark).
A split program whose batch index is program id 0 or 1 and whose M and N tile indices are the
constant 0 (cuTile's ``ct.load(A, index=(b, 0, k), shape=(tb, tm, tk))`` with M and N one tile
each) is then numbered the way the GEMM host side walks a batched GEMM
(``program_loop_to_tiles.batch_axis_to_2``, ``single_tile_axes``: the batch on axis 2, M and N
tile 0 on program ids 0 and 1, recorded in ``tileorch.single_tile_axes`` for the launcher to check
that the output has one tile there, ``tileorch.tile_grid_ids`` set).
Contract: runs before ``tileas-squeeze-unit-batch-dots``, on ``nv_tileaa``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, TensorType, UnitAttr, i64
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileaa.attrs import TiledViewType, ints
from tileorch.transforms.pass_kinds import OpTransform
from tileorch.lazy_import import lazy_module
# the SIMT lowering's scalar ops and views, read when a kernel needs them (issue 22: a GEMM without
# an epilogue of its own does not define the SIMT lowering)
_simt = lazy_module("tileorch.transforms.tileaa_to_simt.convert")
from tileorch.transforms.tileas.common import set_type
from tileorch.transforms.tileas import launch_grid_axes as grid_axes
from tileorch.transforms.tileas.program_loop_to_tiles import TILE_GRID_IDS, batch_axis_to_2, single_tile_axes
from tileorch.transforms.dense_splat import splat_value

ATTR = "tileorch.split_batch_tile"
ROW_WISE = {"nv_tileaa.tiled_load", "nv_tileaa.tiled_store", "nv_tileaa.dot", "nv_tileaa.fp_to_fp",
            "nv_tileas.convert_layout", "nv_tileaa.assume", "scf.for", "scf.yield", "arith.constant",
            "nv_tileaa.broadcast"}


def _batch_tile(t) -> int | None:
    if isinstance(t, TensorType):
        shape = list(t.get_shape())
        return shape[0] if len(shape) >= 3 and shape[0] > 1 else None
    if isinstance(t, TiledViewType):
        tile = ints(t.tile)
        return tile[0] if len(tile) >= 3 and tile[0] > 1 else None
    return None


def _retyped(t, tb: int):
    if isinstance(t, TensorType) and _batch_tile(t) == tb:
        return TensorType(t.element_type, [1, *list(t.get_shape())[1:]])
    if isinstance(t, TiledViewType) and _batch_tile(t) == tb:
        tile, step = ints(t.tile), ints(t.step)
        return TiledViewType([1, *tile[1:]], t.memref, [1, *step[1:]], ints(t.order))
    return t


def _values(fn: Operation):
    for op in fn.walk():
        yield from op.results
        for region in op.regions:
            for block in region.blocks:
                yield from block.args


def _plan(fn: Operation) -> tuple[int, int] | None:
    """(tb, program axis) when ``fn`` can be rewritten, else None."""
    sizes = {_batch_tile(v.type) for v in _values(fn)} - {None}
    if len(sizes) != 1:
        return None
    tb = sizes.pop()
    if not any(isinstance(o, aa.DotOp) and _batch_tile(o.results[0].type) == tb for o in fn.walk()):
        return None
    axes = set()
    for op in fn.walk():
        touched = [v for v in (*op.operands, *op.results) if _batch_tile(v.type) == tb]
        if not touched:
            continue
        name = op.name
        if name == "nv_tileaa.block_tile":
            view = op.results[0].type
            if ints(view.step)[0] != tb:
                return None
            continue
        if name == "nv_tileaa.get_dim_size":
            if op.index.value.data == 0 and op.results[0].uses:
                return None
            continue
        if name in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store"):
            idx = op.indices[0]
            owner = idx.owner
            while isinstance(owner, Operation) and owner.name == "nv_tileaa.assume":
                idx = owner.operands[0]
                owner = idx.owner
            if not (isinstance(owner, Operation) and owner.name == "nv_tileaa.get_program_id"):
                return None
            axes.add(owner.axis.value.data)
            continue
        if name == "nv_tileaa.broadcast":
            src = op.operands[0].type
            if isinstance(src, TensorType) and len(src.get_shape()) >= 3 and src.get_shape()[0] != 1:
                return None
            continue
        if name == "arith.constant":
            value = op.value
            if not splat_value(value)[0]:
                return None
            continue
        if name in ROW_WISE or name in _simt.ELEMENTWISE or (name.startswith("arith.") and not op.regions):
            continue
        return None
    if len(axes) != 1:
        return None
    axis = axes.pop()
    for op in fn.walk():  # the batch program id feeds batch indices only
        if op.name == "nv_tileaa.get_program_id" and op.axis.value.data == axis:
            for use in _all_uses(op.results[0]):
                user = use.operation
                if user.name not in ("nv_tileaa.tiled_load", "nv_tileaa.tiled_store") or use.index != _first_index(user):
                    return None
                if _batch_tile(user.operands[_view_index(user)].type) != tb:
                    return None
    return tb, axis


def _all_uses(v: SSAValue):
    for use in list(v.uses):
        if use.operation.name == "nv_tileaa.assume":
            yield from _all_uses(use.operation.results[0])
        else:
            yield use


def _view_index(op: Operation) -> int:
    return 0 if op.name == "nv_tileaa.tiled_load" else 1


def _first_index(op: Operation) -> int:
    return _view_index(op) + 1


def split_batch_tiles(fn: Operation) -> int | None:
    """Rewrite ``fn`` (see the module docstring); returns the batch tile it split, or None."""
    plan = _plan(fn)
    if plan is None:
        return None
    tb, axis = plan
    for op in list(fn.walk()):
        if op.name == "arith.constant" and any(_batch_tile(r.type) == tb for r in op.results):
            t = _retyped(op.results[0].type, tb)
            x = op.value.get_values()[0]
            new = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [x]))
            op.parent_block().insert_op_before(new, op)
            op.results[0].replace_all_uses_with(new.results[0])
            op.detach()
            op.erase()
            continue
    for v in list(_values(fn)):
        t = _retyped(v.type, tb)
        if t is not v.type:
            set_type(v, t)
    fn.attributes[ATTR] = IntegerAttr(tb, i64)
    grid_axes.scaled(fn, axis, tb)  # a launched program along the axis: tb matrices of the batch
    if batch_axis_to_2(fn):
        single_tile_axes(fn)
        fn.attributes[TILE_GRID_IDS] = UnitAttr()
    return tb


@dataclass(frozen=True)
class SplitBatchTiles(OpTransform):
    """Batch tiles of ``tb > 1`` matrices per program -> one matrix per program (module docstring)."""

    name = "tileas-split-batch-tiles"
    OP = aa.FuncOp
    transform = staticmethod(split_batch_tiles)
