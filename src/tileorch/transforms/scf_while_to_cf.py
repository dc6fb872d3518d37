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
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering, SwitchLowering
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from tileorch.diagnostics import copy_location
from tileorch.transforms import block_split

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
        """``PatternRewriteWalker(..., apply_recursively=True).rewrite_module(op)``, the walks
        to a fixpoint made as that walker makes them, except the last one: a walk after the
        first is made only if the module holds an op a walk would act on (:func:`_acted_on`:
        a structured op the patterns lower, or an op the applier's dead-code elimination
        erases); otherwise it would change nothing (the walk that confirmed the fixpoint was a
        whole second walk of the module, with every pattern tried on every op)."""
        patterns = [LowerWhile(), SwitchLowering(), IfLowering(), ForLowering()]
        walker = PatternRewriteWalker(GreedyRewritePatternApplier(patterns), apply_recursively=True)
        if not (hasattr(walker, "_populate_worklist") and hasattr(walker, "_process_worklist")
                and hasattr(walker, "_get_rewriter_listener")):  # not the xDSL walker this was written for
            walker.rewrite_module(op)
            return
        region = op.body
        listener = walker._get_rewriter_listener()
        walker._populate_worklist(region)
        changed = walker._process_worklist(listener)
        while changed and any(_acted_on(o) for o in region.walk()):
            walker._populate_worklist(region)
            changed = walker._process_worklist(listener)


_LOWERED = (scf.WhileOp, scf.IfOp, scf.ForOp, scf.IndexSwitchOp)


def _acted_on(op: Operation) -> bool:
    """Whether a walk of :class:`ConvertScfWhileToCf`'s applier would act on ``op``: one of its
    patterns lowers it, or its dead-code elimination (``is_trivially_dead``) erases it."""
    if isinstance(op, _LOWERED):
        return True
    for result in op.results:  # a used result: not dead (is_trivially_dead's first test, inlined)
        if result.first_use is not None:
            return False
    return is_trivially_dead(op)
