"""An ``if`` that only chooses between two loads of the same tile, one of them padded: one load.

Users specialise the boundary the way they would in CUDA C::

    if bm == ct.num_blocks(0) - 1:
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
    else:
        a = ct.load(A, index=(bm, k), shape=(TM, TK))

Both branches read the same tile of the same tensor view at the same index; they differ only in what the load
gives for elements outside the array: the padding value, or -- without a padding mode -- an undefined value.  A
defined value is one of the values an undefined one may take, so the padded load alone computes what the program
computes, for every tile (in-bounds tiles read exactly the same elements).  :func:`chosen_loads` recognises such an
``if`` and names the load to run in its place; ``convert-cudatile-to-tileaa`` lowers that load (before the ``if``,
no branch), so the operand is one TMA tile load again and a dot on it stays on the tensor-core tier (before session
36 the tier refused "this dot operand is chosen by an if / else").  :func:`padded_load_choice_remarks` says so at
the ``if``'s line.  Only ``make_partition_view`` and ``load_view_tko`` ops may sit in the branches, each load's
token unused, the views of one tensor view with the same tile shape and dim map, the indices and the input token the
same values defined outside the ``if``, the memory ordering and hints the same, and the paddings equal or one of
them absent (two different padding values are two different programs: left as written).  It only reads the module.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import format_error
from tileorch.dialects.cuda_tile import ops as ct

_IF, _LOAD, _VIEW, _YIELD = (ct.op_name(c) for c in ("IfOp", "LoadViewTkoOp", "MakePartitionViewOp", "YieldOp"))


def _branch_loads(block) -> list[Operation] | None:
    """The loads ``block``'s yield returns, one per operand, when the block holds only partition views, loads
    whose tiles only the yield reads and whose tokens nothing reads, and the yield; else None."""
    ops = list(block.ops)
    term = ops[-1] if ops else None
    if term is None or term.name != _YIELD:
        return None
    loads = []
    for o in ops[:-1]:
        if o.name == _VIEW:
            if any(u.operation.name != _LOAD for u in o.results[0].uses):
                return None
        elif o.name == _LOAD:
            if o.results[1].uses or any(u.operation is not term for u in o.results[0].uses):
                return None
        else:
            return None
    for v in term.operands:
        owner = v.owner
        if not isinstance(owner, Operation) or owner.name != _LOAD or owner.parent_block() is not block:
            return None
        loads.append(owner)
    return loads


def _outside(value: SSAValue | None, if_op: Operation) -> bool:
    """``value`` is defined outside ``if_op`` (or absent)."""
    if value is None:
        return True
    owner = value.owner
    op = owner if isinstance(owner, Operation) else owner.parent_op()
    while op is not None:
        if op is if_op:
            return False
        op = op.parent_op()
    return True


def _view_source(view: SSAValue) -> SSAValue:
    """The tensor view a partition view made by ``make_partition_view`` partitions; else the view itself."""
    owner = view.owner
    return owner.operands[0] if isinstance(owner, Operation) and owner.name == _VIEW else view


def _padded_of(a: Operation, b: Operation, if_op: Operation) -> Operation | None:
    """Of two loads of the same tile differing at most in padding, the one to keep (the padded one; ``a`` when
    both pad alike); else None."""
    ta, tb = a.view.type, b.view.type
    if type(ta) is not type(tb) or not isinstance(ta, ct.PartitionViewType):
        return None
    if (ta.tile_shape_attr != tb.tile_shape_attr or ta.tensor_view != tb.tensor_view
            or ta.dim_map_attr != tb.dim_map_attr):
        return None
    if _view_source(a.view) is not _view_source(b.view) or not _outside(_view_source(a.view), if_op):
        return None
    if list(a.index) != list(b.index) or not all(_outside(i, if_op) for i in a.index):
        return None
    if a.token is not b.token or not _outside(a.token, if_op):
        return None
    if dict(a.properties) != dict(b.properties) or a.tile.type != b.tile.type:
        return None
    pa, pb = ta.padding_attr.data, tb.padding_attr.data
    if pa and pb and pa != pb:
        return None
    return b if pb and not pa else a


def chosen_loads(if_op: Operation) -> list[Operation] | None:
    """For an ``if`` whose branches only load the same tiles with paddings that refine each other (the module
    docstring's rule): per result, the load to run in its place; else None."""
    if if_op.name != _IF or not if_op.results:
        return None
    regions = [r for r in if_op.regions if r.blocks]
    if len(regions) != 2 or any(len(r.blocks) != 1 for r in regions):
        return None
    then, other = (_branch_loads(r.blocks[0]) for r in regions)
    if then is None or other is None or len(then) != len(other) or len(then) != len(if_op.results):
        return None
    chosen = [_padded_of(a, b, if_op) for a, b in zip(then, other)]
    return None if any(c is None for c in chosen) else chosen


def padded_load_choice_remarks(module: ModuleOp) -> list[str]:
    """One located ``remark:`` per ``if`` that :func:`chosen_loads` turns into one load."""
    out = []
    for op in module.walk():
        if op.name == _IF and (chosen := chosen_loads(op)) is not None:
            pads = sorted({c.view.type.padding_attr.data for c in chosen} - {""})
            how = (f"that differ in padding: compiled as one load padded with {', '.join(pads)} (in-bounds tiles "
                   "read the same elements; a load without a padding mode leaves out-of-bounds elements undefined)"
                   if pads else "(the same load in both branches): compiled as one load")
            out.append(format_error(op, f"this if / else only chooses between loads of the same tile {how}, no "
                                        "branch", "remark"))
    return out


__all__ = ["chosen_loads", "padded_load_choice_remarks"]
