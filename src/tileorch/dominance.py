"""SSA dominance: every use of a value must be dominated by its definition (MLIR's
``operand #N does not dominate this use``), which xDSL 0.74 does not check.

:func:`dominance_errors` walks a module once, top down, keeping the set of values visible at
each op: the values of the enclosing blocks defined before the op's ancestor there, the block
arguments of those blocks, and in a region of several blocks the values of the blocks that
dominate the op's block (the dominator tree of the region's control-flow graph, Cooper, Harvey
and Kennedy's iterative algorithm over the blocks in reverse post-order).  Ops in a block that
the region's entry does not reach are not checked (as in MLIR: nothing runs there), nor the order
of the values in a graph region (``builtin.module``'s body, as in MLIR).

Without this, a value used before its definition in the same block, or defined in a block that
does not dominate the use (``cf.br ^a`` / ``^a: use %z`` / ``^b: %z = ...``), passed the verifier
and failed in LLVM translation with a ``KeyError``.  Stdlib and xDSL only.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue


GRAPH_REGION_OPS = ("builtin.module",)
"""Ops whose region is a graph region (MLIR's ``builtin.module``): no order among its values."""


DIRECT_FIELDS = ({"_operands", "_successors", "results"} <= set(getattr(Operation, "__dataclass_fields__", ()))
                 and "_type" in getattr(SSAValue, "__dataclass_fields__", ())
                 and getattr(Operation.operands.fget, "__code__", None) is not None
                 and Operation.operands.fget.__code__.co_names == ("OpOperands",)
                 and Operation.successors.fget.__code__.co_names == ("OpSuccessors",)
                 and SSAValue.type.fget.__code__.co_names == ("_type",))
"""Whether this xDSL keeps an op's operands and successors in the tuples ``_operands`` and
``_successors`` (what ``op.operands`` / ``op.successors`` wrap: views whose items are fetched one call
each) and a value's type in ``_type`` (what ``value.type`` returns): then :func:`_block` and
:mod:`tileorch.diagnostics` read those fields directly."""


def _successors(block: Block) -> tuple[Block, ...]:
    last = block.last_op
    return tuple(last.successors) if last is not None else ()


def immediate_dominators(region: Region) -> dict[Block, Block | None]:
    """The immediate dominator of every block the entry reaches (the entry: None)."""
    entry = region.first_block
    if entry is None:
        return {}
    order: list[Block] = []  # post-order, iteratively (regions of hundreds of blocks)
    seen = {entry}
    stack = [(entry, iter(_successors(entry)))]
    while stack:
        block, succs = stack[-1]
        nxt = next((s for s in succs if s not in seen), None)
        if nxt is None:
            stack.pop()
            order.append(block)
        else:
            seen.add(nxt)
            stack.append((nxt, iter(_successors(nxt))))
    number = {b: i for i, b in enumerate(order)}  # post-order number: the entry is the largest
    preds: dict[Block, list[Block]] = {b: [] for b in order}
    for b in order:
        for s in _successors(b):
            if s in preds:
                preds[s].append(b)
    idom: dict[Block, Block | None] = {entry: entry}

    def intersect(a: Block, b: Block) -> Block:
        while a is not b:
            while number[a] < number[b]:
                a = idom[a]
            while number[b] < number[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in reversed(order):
            if b is entry:
                continue
            new = None
            for p in preds[b]:
                if p in idom:
                    new = p if new is None else intersect(p, new)
            if new is not None and idom.get(b) is not new:
                idom[b] = new
                changed = True
    idom[entry] = None
    return idom


def dominance_errors(root: Operation, where: Callable[[Operation], str] = lambda op: op.name
                     ) -> list[tuple[Operation, str]]:
    """(op, message) for every operand of an op nested in ``root`` whose definition does not
    dominate the op (root's own operands are not checked); ``where(op)`` names the position of
    a defining op in the message (``file:line:col``)."""
    found: list[tuple[Operation, int, object]] = []
    _regions(root, set(), found)
    return [(op, _message(op, i, value, where)) for op, i, value in found]


def _regions(op: Operation, visible: set[int], errors: list) -> None:
    """Check the regions of ``op`` given the ids of the values visible at ``op``; ``visible``
    is as it was on return.  Recursion depth: the region nesting (the parser's limit is lower);
    the blocks of a region are walked down its dominator tree without recursion."""
    for region in op.regions:
        first = region.first_block
        if first is None:
            continue
        if first is region.last_block:
            graph: list[int] = []
            if op.name in GRAPH_REGION_OPS:  # every value of the block is visible in all of it
                graph = [id(r) for o in first.ops for r in o.results if id(r) not in visible]
                visible.update(graph)
            visible.difference_update(_block(first, visible, errors))
            visible.difference_update(graph)
            continue
        idom = immediate_dominators(region)
        children: dict[Block, list[Block]] = {b: [] for b in idom}
        for b, d in idom.items():
            if d is not None:
                children[d].append(b)
        stack: list[tuple[Block, list[int] | None]] = [(first, None)]
        while stack:
            block, defined = stack.pop()
            if defined is not None:  # leaving the block's dominator subtree
                visible.difference_update(defined)
                continue
            stack.append((block, _block(block, visible, errors)))
            stack.extend((child, None) for child in reversed(children[block]))


def _block(block: Block, visible: set[int], errors: list) -> list[int]:
    """Check the ops of ``block`` (its arguments and each op's results becoming visible after
    it); the ids it added to ``visible``."""
    defined: list[int] = [id(a) for a in block.args]
    visible.update(defined)
    direct = DIRECT_FIELDS
    add, define = visible.add, defined.append
    for op in block.ops:
        for i, operand in enumerate(op._operands if direct else op.operands):
            if id(operand) not in visible:
                errors.append((op, i, operand))
                add(id(operand))  # one error per value in this scope
                define(id(operand))
        if op.regions:
            _regions(op, visible, errors)
        for r in op.results:
            add(id(r))
            define(id(r))
    return defined


def _message(op: Operation, index: int, value, where: Callable[[Operation], str]) -> str:
    if isinstance(value, BlockArgument):
        block = value.owner
        parent = block.parent_op()
        if block.parent is not None and block is block.parent.first_block and parent is not None:
            owner, what = parent, f"argument #{value.index} of a region of the {parent.name} at"
        else:
            owner = parent if block.first_op is None else block.first_op
            what = f"argument #{value.index} of the block that starts at"
    else:
        owner = value.op
        what = f"result of the {owner.name} at"
    name = f" (%{value.name_hint})" if value.name_hint else ""
    return (f"operand #{index}{name} of {op.name} does not dominate this use: it is the {what} "
            f"{where(owner) if owner is not None else '?'}, which does not come before this op on every path to it")
