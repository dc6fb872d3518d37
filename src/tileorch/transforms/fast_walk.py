"""xDSL's ``walk`` of an op, a region or a block with fewer generator frames.

``Operation.walk`` yields through a ``yield from`` chain of four generators per nesting level
(op, region, block, op ...): every op of a kernel nested four deep passes through some twelve
generator frames.  The lowering of a SIMT program walks its module about twenty times (the
passes' collection walks, the pattern rewriter's worklist, ``has_cutlass_ops``,
``check_known_intrinsics`` ...): 7.5 ms per walk of a lowered layernorm (4600 ops) against
1.5-2.7 ms here.

The forward pre-order and the reverse post-order walks (the passes' collection walks and the
pattern rewriter's worklist, nearly all of them) run in one generator with a stack of the
iterators (:func:`_pre_from`, :func:`_post_reverse_from`) instead of a generator per op with
regions, whose ``yield from`` handed every op up through one frame per nesting level; an op
without regions (most walks: the rewriter's and the verifier's of single ops) is walked by one
generator.  Session 20, one process, best of 5: a walk of a lowered chained-attention kernel
(6952 ops) 5.2 -> 4.1 ms, of one op without regions 0.52 -> 0.33 us.

The walks here visit the same ops in the same order with the same laziness as xDSL's: the
same iterators (``region.blocks``, ``block.ops`` and their ``reversed``, which fetch the next
block or op before the current one is handed out) are read at the same points, an op's
``regions`` are read after the op is yielded in pre-order and before it in post-order, exactly
where xDSL reads them; so a caller that erases, moves or adds ops while walking sees what it saw.
The three orders the code base uses are done here: pre-order forward (the default), post-order
reverse (``reverse=True, region_first=True``: the pattern rewriter's worklist) and pre-order
reverse (``reverse=True``: the worklist of a walker with ``walk_regions_first``, as
``convert-pipeline-to-nvvm``'s leaf and region walks); post-order forward goes to xDSL's own walk.

A block's ops (``for op in block.ops``, ``reversed(block.ops)``: the walks above and most
passes' loops) are iterated by a generator over the ops' links (:func:`block_ops_iter`) in place
of xDSL's iterator object, whose ``__next__`` reads two properties per op: 100 -> 28 ns an op.
Like xDSL's, it reads the block's first (last) op when the iteration is made and an op's
successor (predecessor) when it hands the op out, so an op erased, moved or added while a loop
holds it is seen as before.

:func:`install` puts them in place of ``Operation.walk``, ``Region.walk``, ``Block.walk`` and
``BlockOps``' iteration (once, only over the xDSL functions they mirror); :mod:`tileorch.transforms`
installs it.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.ir import Block, Operation, Region
from xdsl.ir import core as _core

from tileorch.transforms.xdsl_code import code_names

_XDSL_OP_WALK = Operation.walk
_XDSL_REGION_WALK = Region.walk
_XDSL_BLOCK_WALK = Block.walk
_XDSL_OPS_ITER = _core.BlockOps.__iter__
_XDSL_OPS_REVERSED = _core.BlockOps.__reversed__


def _ops_from(op: Operation | None) -> Iterator[Operation]:
    while op is not None:
        following = op._next_op  # (read as the op is handed out, as xDSL's iterator reads it)
        yield op
        op = following


def _ops_back_from(op: Operation | None) -> Iterator[Operation]:
    while op is not None:
        preceding = op._prev_op
        yield op
        op = preceding


def block_ops_iter(self) -> Iterator[Operation]:
    """``BlockOps.__iter__``: the block's ops from its first (read now) on."""
    return _ops_from(self.block._first_op)


def block_ops_reversed(self) -> Iterator[Operation]:
    """``BlockOps.__reversed__``: the block's ops from its last (read now) back."""
    return _ops_back_from(self.block._last_op)


_END = object()


def _pre_from(regions, blocks, ops) -> Iterator[Operation]:
    """Pre-order, forward, from the given iterators on (the ops left of ``ops``, then of the
    blocks left of ``blocks``, then of the regions left of ``regions``; None: none left there),
    with one generator and a stack of iterators in place of a generator per op with regions
    (``yield from`` handed each op up through one frame per nesting level: a fifth of the walk).
    The iterators are read at the points the nested loops read them::

        for region in regions: for block in region.blocks: for child in block.ops:
            yield child; if child.regions: <the same for child.regions>
    """
    stack = []
    while True:
        if ops is not None:
            child = None
            for child in ops:
                yield child
                if child.regions:  # (read after the caller had the op, as the loop reads it)
                    break
            else:
                child = None
            if child is not None:  # into the op's regions; this block's remaining ops after them
                stack.append((regions, blocks, ops))
                regions, blocks, ops = iter(child.regions), None, None
                continue
            ops = None
        if blocks is not None:
            block = next(blocks, _END)
            if block is not _END:
                ops = iter(block.ops)
                continue
            blocks = None
        region = next(regions, _END)
        if region is not _END:
            blocks = iter(region.blocks)
            continue
        if not stack:
            return
        regions, blocks, ops = stack.pop()


def _pre(op: Operation) -> Iterator[Operation]:
    """The ops nested in ``op``, pre-order, forward (``op`` itself not included)."""
    return _pre_from(iter(op.regions), None, None)


def _post_reverse_from(regions, blocks, ops) -> Iterator[Operation]:
    """Post-order, last op first, from the given iterators on (as :func:`_pre_from`), one
    generator for all levels; the iterators are read where the nested loops read them::

        for region in regions: for block in reversed(region.blocks): for child in reversed(block.ops):
            if child.regions: <the same for reversed(child.regions)>
            yield child
    """
    stack = []
    while True:
        if ops is not None:
            nested = None
            for child in ops:
                if child.regions:
                    nested = child
                    break
                yield child
            if nested is not None:  # its regions first; the op itself when they are done
                stack.append((regions, blocks, ops, nested))
                regions, blocks, ops = reversed(nested.regions), None, None
                continue
            ops = None
        if blocks is not None:
            block = next(blocks, _END)
            if block is not _END:
                ops = reversed(block.ops)
                continue
            blocks = None
        region = next(regions, _END)
        if region is not _END:
            blocks = reversed(region.blocks)
            continue
        if not stack:
            return
        regions, blocks, ops, nested = stack.pop()
        yield nested


def _post_reverse(op: Operation) -> Iterator[Operation]:
    """The ops nested in ``op``, post-order, last op first (``op`` itself not included)."""
    return _post_reverse_from(reversed(op.regions), None, None)


def _pre_reverse(op: Operation) -> Iterator[Operation]:
    """The ops nested in ``op``, pre-order, last op first (``op`` itself not included)."""
    for region in reversed(op.regions):
        for block in reversed(region.blocks):
            for child in reversed(block.ops):
                yield child
                if child.regions:
                    yield from _pre_reverse(child)


def _op_pre(op: Operation) -> Iterator[Operation]:
    yield op
    if op.regions:  # (most walks are of an op without regions: no second generator for them)
        yield from _pre_from(iter(op.regions), None, None)


def _op_post_reverse(op: Operation) -> Iterator[Operation]:
    if op.regions:
        yield from _post_reverse_from(reversed(op.regions), None, None)
    yield op


def _op_pre_reverse(op: Operation) -> Iterator[Operation]:
    yield op
    yield from _pre_reverse(op)


def _region_pre(region: Region) -> Iterator[Operation]:
    yield from _pre_from(iter(()), iter(region.blocks), None)  # (region.blocks read at the first next())


def _region_post_reverse(region: Region) -> Iterator[Operation]:
    yield from _post_reverse_from(iter(()), reversed(region.blocks), None)  # (read at the first next())


def _region_pre_reverse(region: Region) -> Iterator[Operation]:
    for block in reversed(region.blocks):
        for child in reversed(block.ops):
            yield child
            if child.regions:
                yield from _pre_reverse(child)


def _block_pre(block: Block) -> Iterator[Operation]:
    yield from _pre_from(iter(()), None, iter(block.ops))  # (block.ops read at the first next())


def _block_post_reverse(block: Block) -> Iterator[Operation]:
    yield from _post_reverse_from(iter(()), None, reversed(block.ops))  # (read at the first next())


def _block_pre_reverse(block: Block) -> Iterator[Operation]:
    for child in reversed(block.ops):
        yield child
        if child.regions:
            yield from _pre_reverse(child)


def operation_walk(self: Operation, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
    """``Operation.walk``."""
    if not reverse and not region_first:
        return _op_pre(self)
    if reverse and region_first:
        return _op_post_reverse(self)
    if reverse:
        return _op_pre_reverse(self)
    return _XDSL_OP_WALK(self, reverse=reverse, region_first=region_first)


def region_walk(self: Region, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
    """``Region.walk``."""
    if not reverse and not region_first:
        return _region_pre(self)
    if reverse and region_first:
        return _region_post_reverse(self)
    if reverse:
        return _region_pre_reverse(self)
    return _XDSL_REGION_WALK(self, reverse=reverse, region_first=region_first)


def block_walk(self: Block, *, reverse: bool = False, region_first: bool = False) -> Iterator[Operation]:
    """``Block.walk``."""
    if not reverse and not region_first:
        return _block_pre(self)
    if reverse and region_first:
        return _block_post_reverse(self)
    if reverse:
        return _block_pre_reverse(self)
    return _XDSL_BLOCK_WALK(self, reverse=reverse, region_first=region_first)


def _mirrors_xdsl() -> bool:
    """Whether xDSL's walks are the ones written above (op: regions, then its regions' walks;
    region: blocks, then their walks; block: ops, then their walks)."""
    expected = ((_XDSL_OP_WALK, {"regions", "walk"}), (_XDSL_REGION_WALK, {"blocks", "walk"}),
                (_XDSL_BLOCK_WALK, {"ops", "walk"}))
    for fn, names in expected:
        code = getattr(fn, "__code__", None)
        if code is None or not names <= set(code.co_names) or not code.co_flags & 0x20:  # a generator
            return False
    return True


def _ops_iteration_mirrors_xdsl() -> bool:
    """Whether ``BlockOps``' iteration is xDSL 0.74's: an iterator object made from the block's
    first (last) op whose ``__next__`` steps to the op's ``next_op`` (``prev_op``), the
    ``_next_op`` (``_prev_op``) link, before handing the op out."""
    forward, backward = _core._BlockOpsIterator, _core._BlockOpsReverseIterator
    return (code_names(_XDSL_OPS_ITER) == {"_BlockOpsIterator", "first"}
            and code_names(_core.BlockOps.first.fget) == {"block", "first_op"}
            and code_names(Block.first_op.fget) == {"_first_op"} and code_names(Block.last_op.fget) == {"_last_op"}
            and code_names(forward.__next__) == {"next_op", "StopIteration"}
            and code_names(Operation.next_op.fget) == {"_next_op"}
            and code_names(_XDSL_OPS_REVERSED) == {"_BlockOpsReverseIterator", "block", "last_op"}
            and code_names(backward.__next__) == {"prev_op", "StopIteration"}
            and code_names(Operation.prev_op.fget) == {"_prev_op"})


def install() -> bool:
    """Use these walks from now on (idempotent); False, with xDSL's left in place, when xDSL's
    walks are not the ones they mirror."""
    if Operation.walk is operation_walk:
        return True
    if not _mirrors_xdsl():
        return False
    Operation.walk = operation_walk
    Region.walk = region_walk
    Block.walk = block_walk
    if _ops_iteration_mirrors_xdsl():
        _core.BlockOps.__iter__ = block_ops_iter
        _core.BlockOps.__reversed__ = block_ops_reversed
    return True


def installed() -> bool:
    return Operation.walk is operation_walk
