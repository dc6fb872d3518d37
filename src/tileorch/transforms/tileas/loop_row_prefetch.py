"""A tile the producer loads in the consumer loop besides the dots' operands (a bias row ``[1, BN]`` per key tile:
Hugging Face's additive mask, ALiBi's key positions) read from global memory before the wait for the tile's S,
not after it (``TILEORCH_ATTN_ROW_PREFETCH=1``; default off until measured).

``FragmentLowering`` reads such a tile element by element, each thread its own elements
(``epilogue.EpilogueLowering._load``: address, bounds test, ``ld.global``, padding select), where the
program's softmax first needs them: after ``wgmma.wait_group`` for the tile's first dot, so every key tile
waits for the first dot and then for the loads' latency in turn.  :func:`record` notes the ops each such
read emitted; :func:`hoist` moves every noted group whose operands are all defined before the wait (the
loop's iteration variable, the kernel's arguments, the thread's coordinates; constants are cloned) to just
before it, merging the identical groups of the loop's two copies (the whole-tile and the masked one,
``chained_dots._versioned``) into one.  The loads then run while the tensor core computes S.  Values are the
same (the same loads of the same addresses, no store in between: the loop writes no global memory).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Block, Operation, SSAValue

from tileorch import settings

ROW_PREFETCH_ENV = "TILEORCH_ATTN_ROW_PREFETCH"


def enabled() -> bool:
    """``TILEORCH_ATTN_ROW_PREFETCH=1`` (default off)."""
    return settings.value(ROW_PREFETCH_ENV) == "1"


def record(groups: list | None, block: Block, read):
    """``read()``, appending the ops it emitted at the end of ``block`` to ``groups`` (when not None)."""
    if groups is None:
        return read()
    last = block.last_op
    r = read()
    op = last.next_op if last is not None else block.first_op
    ops = []
    while op is not None:
        ops.append(op)
        op = op.next_op
    if ops:
        groups.append(ops)
    return r


def _defined_after(block: Block, wait: Operation) -> set[int]:
    """ids of the values defined by ``wait`` and the ops after it in ``block`` (their regions included)."""
    late: set[int] = set()
    op = wait
    while op is not None:
        for o in op.walk():
            late.update(id(r) for r in o.results)
            for region in o.regions:
                for b in region.blocks:
                    late.update(id(a) for a in b.args)
        op = op.next_op
    return late


def _key(op: Operation, operands) -> tuple:
    return (op.name, tuple(id(x) for x in operands), str(sorted((k, str(v)) for k, v in op.properties.items())),
            str(sorted((k, str(v)) for k, v in op.attributes.items())), tuple(str(r.type) for r in op.results))


def hoist(groups: list, block: Block, wait: Operation) -> int:
    """Move each group of :func:`record` whose every operand is available before ``wait`` (an op of
    ``block``) to just before it (module docstring); returns the number of loads moved."""
    late = _defined_after(block, wait)
    seen: dict[tuple, Operation] = {}
    clones: dict[str, SSAValue] = {}
    moved = 0
    for ops in groups:
        if any(o.regions or o.parent_block() is None for o in ops):
            continue
        inside = {id(r) for o in ops for r in o.results}
        ok = all(id(x) not in late or id(x) in inside or isinstance(x.owner, arith.ConstantOp)
                 for o in ops for x in o.operands)
        if not ok:
            continue
        for o in ops:
            for i, x in enumerate(o.operands):
                if id(x) in late and id(x) not in inside and isinstance(x.owner, arith.ConstantOp):
                    k = str(x.owner.value) + str(x.type)
                    if k not in clones:
                        c = x.owner.clone()
                        block.insert_op_before(c, wait)
                        clones[k] = c.results[0]
                    o.operands[i] = clones[k]
            key = _key(o, o.operands)
            twin = seen.get(key)
            if twin is not None and o.results:
                for a, b in zip(o.results, twin.results):
                    a.replace_all_uses_with(b)
                o.detach()
                o.erase()
                continue
            o.detach()
            block.insert_op_before(o, wait)
            late.difference_update(id(r) for r in o.results)
            if o.results:
                seen[key] = o
            moved += o.name.endswith("load")
    return moved


__all__ = ["ROW_PREFETCH_ENV", "enabled", "hoist", "record"]
