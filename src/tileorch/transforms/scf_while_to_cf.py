"""``convert-scf-while-to-cf``: ``scf.while`` -> blocks and ``cf`` branches (xDSL's
``convert-scf-to-cf`` handles ``for``/``if``/``index_switch`` but not ``while``).  The pass runs
xDSL's three patterns together with the while pattern: a ``while`` nested in an ``if``/``for``
(or the reverse) turns a single-block region into several blocks, which only verifies once the
enclosing structured op is gone too.

::

    ^pre:    ...; cf.br ^before(%init...)
    ^before(%a...):  <before region>; cf.cond_br %c, ^after(%v...), ^cont(%v...)
    ^after(%b...):   <after region>;  cf.br ^before(%y...)
    ^cont(%r...):    <ops after the loop, using %r as the while results>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering

from tileorch.diagnostics import copy_location
from tileorch.transforms import block_split
from tileorch.transforms.dead_ops import GreedyApplier
from tileorch.transforms.fixpoint import rewrite_to_fixpoint

block_split.install()  # xDSL's if/for patterns split blocks: in O(1) per block, not O(blocks)


class LowerWhile(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, scf.WhileOp):
            return
        block = op.parent_block()
        assert block is not None
        rest = block.split_before(op)
        region = block.parent_region()
        assert region is not None
        cont = Block(arg_types=op.result_types)
        region.insert_block_before(cont, rest)
        to_rest = cf.BranchOp(rest)
        copy_location(op, [to_rest])
        rewriter.insert(to_rest, InsertPoint.at_end(cont))

        before_entry = op.before_region.first_block
        after_entry = op.after_region.first_block
        assert before_entry is not None and after_entry is not None
        for blk in op.before_region.blocks:
            term = blk.last_op
            if isinstance(term, scf.ConditionOp):
                br = cf.ConditionalBranchOp(term.condition, after_entry, term.args, cont, term.args)
                copy_location(term, [br])
                rewriter.replace(term, br)
        for blk in op.after_region.blocks:
            term = blk.last_op
            if isinstance(term, scf.YieldOp):
                br = cf.BranchOp(before_entry, *term.arguments)
                copy_location(term, [br])
                rewriter.replace(term, br)
        rewriter.inline_region(op.after_region, BlockInsertPoint.before(cont))
        rewriter.inline_region(op.before_region, BlockInsertPoint.before(after_entry))
        enter = cf.BranchOp(before_entry, *op.arguments)
        copy_location(op, [enter])
        rewriter.insert(enter, InsertPoint.at_end(block))
        rewriter.replace(op, [], list(cont.args))


@dataclass(frozen=True)
class ConvertScfWhileToCf(ModulePass):
    """Lower every ``scf.while`` (and ``scf.for``/``if``/``index_switch``) to ``cf`` control flow."""

    name = "convert-scf-while-to-cf"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        """``PatternRewriteWalker(..., apply_recursively=True).rewrite_module(op)`` without the
        walk that only confirms the fixpoint (:func:`rewrite_to_fixpoint`)."""
        walker = PatternRewriteWalker(GreedyApplier([_ByClass()]), apply_recursively=True)
        rewrite_to_fixpoint(walker, op.body, frozenset(c.name for c in _LOWERED))  # (by name: no subclasses)


_LOWERED = (scf.WhileOp, scf.IfOp, scf.ForOp, scf.IndexSwitchOp)
"""The ops :class:`ConvertScfWhileToCf`'s patterns act on."""


class _ByClass(RewritePattern):
    """The pass's patterns, in their order (while, index_switch, if, for), each tried only on
    the ops of its class: each acts on one class of :data:`_LOWERED` and returns at once on any
    other op (``op_type_rewrite_pattern``, ``LowerWhile``'s test), so trying only the matching
    one is trying them all.  The greedy walk visits every op of the module (for its dead-code
    erasure): four pattern calls and class tests per op were most of the pass's own time."""

    def __init__(self) -> None:
        self._pairs = ((scf.WhileOp, LowerWhile()), (scf.IndexSwitchOp, SwitchLowering()), (scf.IfOp, IfLowering()),
                       (scf.ForOp, ForLowering()))
        self._by_class: dict[type, tuple[RewritePattern, ...]] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        cls = type(op)
        found = self._by_class.get(cls)
        if found is None:
            found = self._by_class[cls] = tuple(p for c, p in self._pairs if issubclass(cls, c))
        for pattern in found:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return
