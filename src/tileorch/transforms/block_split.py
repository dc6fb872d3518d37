"""``Block.split_before`` in constant time per block (plus the ops it moves).

xDSL's ``Block.split_before`` finds the block's position in its region by counting the blocks
before it (``Region.get_block_index``) and then walks to that position again to insert the new
block (``Region.insert_block``): O(B) per split.  Lowering ``scf.if``/``scf.for``/``scf.while``
to ``cf`` splits a block per structured op, so a function that ends with B blocks took O(B^2)
(a lowered layernorm: ~860 splits over up to ~600 blocks, a fifth of ``convert-scf-while-to-cf``).

:func:`split_before` does the same (the ops from ``op`` to the block's end move, in order, to a
new block placed right after the block; the same errors) and inserts the new block after the
block through the region's block links.  :func:`install` makes it ``Block.split_before`` (xDSL's
own ``scf`` -> ``cf`` patterns call that method); it is installed where the passes that split
blocks are imported, and only over the xDSL method it was written against (one that calls
``get_block_index``).
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Attribute, Block, Operation


def split_before(self: Block, b_first: Operation, *, arg_types: Iterable[Attribute] = ()) -> Block:
    """Move ``b_first`` and the ops after it to a new block (with ``arg_types`` arguments)
    inserted right after ``self`` in its region; return the new block.  ``self`` keeps the ops
    before ``b_first`` (none if ``b_first`` was its first op) and has no terminator after."""
    if b_first.parent is not self:
        raise ValueError("Cannot split block on operation outside of the block.")
    region = self.parent
    if region is None:
        raise ValueError("Cannot split block with no parent.")
    tail = self._last_op
    head_last = b_first.prev_op
    new = Block(arg_types=arg_types)
    region.insert_block_after(new, self)
    # unlink [b_first, tail] from self
    if head_last is None:
        self._first_op = None
        self._last_op = None
    else:
        head_last._next_op = None
        self._last_op = head_last
    b_first._prev_op = None
    # link it into the new block
    new._first_op = b_first
    new._last_op = tail
    op: Operation | None = b_first
    while op is not None:  # (the link field, as above: the ``next_op`` property was a call per moved op)
        op.parent = new
        op = op._next_op
    return new


_XDSL_SPLIT_BEFORE = Block.split_before


def install() -> None:
    """Make :func:`split_before` ``Block.split_before`` (once; only over the xDSL version that
    counts the region's blocks)."""
    if Block.split_before is split_before:
        return
    if "get_block_index" in getattr(_XDSL_SPLIT_BEFORE, "__code__").co_names:
        Block.split_before = split_before


__all__ = ["install", "split_before"]
