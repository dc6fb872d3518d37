"""``tileas-view-order-to-reshape``: a dot operand loaded through a view whose dimension order is
neither the array's nor its last two swapped becomes a load in the array's order and a transpose.

``ct.load(K, index=(b, h, 0, j), shape=(1, 1, D, BN), order=(0, 2, 3, 1))`` reads ``K [B, S, H, D]``
(sequence-major) as ``[D, BN]`` tiles: view dimension ``i`` is array dimension ``order[i]``.  The
tensor-core tiers read a transposed operand as the last two dimensions of its view swapped (a TMA
box in the array's order, the transpose done by the WGMMA's operand major-ness), so such a load is
rewritten, when its tile has at most two dimensions of extent other than 1, as::

    %v' = nv_tileaa.block_tile %memref : view<tile', step', identity order>  (tile'[order[i]] = tile[i])
    %t', %tok = nv_tileaa.tiled_load %v'[idx'] (idx'[order[i]] = idx[i])   : tile' (the array's order)
    %s = nv_tileaa.reshape %t' : the non-unit extents, in the array's order
    %p = nv_tileaa.permute %s {1, 0}   (only when the view's order reverses the two)
    %r = nv_tileaa.reshape %p : the original tile shape

the same elements at the same tile positions (a view order only permutes which array dimension a
tile dimension walks; with at most two non-unit extents the permutation restricted to them is the
identity or a swap).  Only loads whose tile reaches an ``nv_tileaa.dot`` operand through reshapes,
permutes and layout-only ops; the load's properties (TMA, padding; ``in_bounds`` permuted alike)
and attributes are kept.  Anything else is left as written.  The SIMT fallback (cloned before the
tier) keeps the view."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, TensorType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from tileorch.diagnostics import copy_location
from tileorch.dialects.nv_tileaa import BlockTileOp, PermuteOp, ReshapeOp, TiledLoadOp, TiledViewType
from tileorch.dialects.nv_tileaa.attrs import ints
from tileorch.transforms.pass_kinds import ModuleTransform

_THROUGH = ("nv_tileaa.reshape", "nv_tileaa.permute", "nv_tileaa.convert_layout")


def _feeds_dot(v: SSAValue, depth: int = 0) -> bool:
    for use in v.uses:
        op = use.operation
        if op.name == "nv_tileaa.dot" and use.index in (0, 1):
            return True
        if op.name in _THROUGH and depth < 8 and _feeds_dot(op.results[0], depth + 1):
            return True
    return False


def reorderable(ld: Operation) -> bool:
    """Whether ``ld`` is a load the pass rewrites (module doc)."""
    if not isinstance(ld, TiledLoadOp) or not isinstance(ld.view.owner, BlockTileOp):
        return False
    vt = ld.view.type
    order, n = ints(vt.order), len(ints(vt.order))
    if order == list(range(n)) or (n >= 2 and order == list(range(n - 2)) + [n - 1, n - 2]):
        return False
    tile = ints(vt.tile)
    return sum(x != 1 for x in tile) <= 2 and ints(vt.step) == tile and _feeds_dot(ld.result)


def reorder(ld: TiledLoadOp) -> None:
    """Rewrite ``ld`` (module doc)."""
    vt = ld.view.type
    order, tile = ints(vt.order), ints(vt.tile)
    n = len(order)
    tile2 = [0] * n
    idx2: list[SSAValue] = [ld.indices[0]] * n
    for i, d in enumerate(order):
        tile2[d] = tile[i]
        idx2[d] = ld.indices[i]
    view = BlockTileOp(ld.view.owner.memref, TiledViewType(tile2, vt.memref))
    props = dict(ld.properties)
    if "in_bounds" in props:
        flags = list(props["in_bounds"].get_values())
        moved = [0] * n
        for i, d in enumerate(order):
            moved[d] = flags[i]
        props["in_bounds"] = DenseArrayBase.from_list(props["in_bounds"].elt_type, moved)
    rt = ld.result.type
    loaded = TiledLoadOp(view.result, idx2, TensorType(rt.element_type, tile2), ld.token)
    loaded.properties.update(props)
    loaded.attributes.update(ld.attributes)
    wide = [d for d in range(n) if tile2[d] != 1]  # array order
    in_view = [order[i] for i in range(n) if tile[i] != 1]  # the same dimensions, in the view's order
    ops: list[Operation] = [view, loaded]
    cur = loaded.results[0]
    squeezed = ReshapeOp(cur, TensorType(rt.element_type, [tile2[d] for d in wide]))
    ops.append(squeezed)
    cur = squeezed.result
    if in_view != wide:  # two dimensions, reversed
        perm = PermuteOp.create(operands=[cur], result_types=[TensorType(rt.element_type, [tile2[d] for d in in_view])],
                                properties={"permutation": DenseArrayBase.from_list(i32, [1, 0])})
        ops.append(perm)
        cur = perm.result
    back = ReshapeOp(cur, TensorType(rt.element_type, tile))
    ops.append(back)
    for op in ops:
        copy_location(ld, [op])
    old_view = ld.view.owner
    old_view.parent_block().insert_op_after(view, old_view)  # where the program's view is (before its loop)
    for op in ops[1:]:
        ld.parent_block().insert_op_before(op, ld)
    ld.results[0].replace_all_uses_with(back.result)
    ld.results[1].replace_all_uses_with(loaded.results[1])
    Rewriter.erase_op(ld)
    if not old_view.result.uses:
        Rewriter.erase_op(old_view)


def view_order_to_reshape(module: ModuleOp) -> int:
    """Rewrite every load of ``module`` :func:`reorderable` says; the number."""
    loads = [o for o in module.walk() if reorderable(o)]
    for ld in loads:
        reorder(ld)
    return len(loads)


class ViewOrderToReshape(ModuleTransform):
    """Dot operands read through a general view order become a load in the array's order and a
    transpose (module doc)."""

    name = "tileas-view-order-to-reshape"
    transform = staticmethod(view_order_to_reshape)


__all__ = ["ViewOrderToReshape", "reorder", "reorderable", "view_order_to_reshape"]
