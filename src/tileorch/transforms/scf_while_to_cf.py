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
from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
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


class PositiveStepFor(ForLowering):
    """xDSL's ``scf.for`` lowering (``iv < ub``, ``iv += step``) with two guards.

    Where the step is not a positive constant, the upper bound is replaced by ``step > 0 ? ub : lb``: a
    loop whose step is 0 or negative at run time (undefined in CUDA Tile IR, whose ``for`` needs a positive
    step; cuTile checks only a constant step) runs no iteration instead of never ending (``range(0, n, s)``
    with ``s = 0`` hung).

    Where ``iv + step`` can pass the largest value of the counter's type (a step other than the constant 1,
    unless a constant ``ub`` keeps every ``iv + step`` in range), the stepped counter is
    ``iv + step < iv ? ub : iv + step``: the increment that wraps ends the loop (``range(2**31 - 8, 2**31 - 1,
    4)`` wrapped to a negative counter and never ended; with step ``2**31 - 1`` LLVM's trip count wrapped to
    0 iterations).  The step is positive here (the guard above), so a signed wrap is exactly ``iv + step <
    iv``."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, scf.ForOp):
            return
        if not _positive_constant(op.step):
            t = op.step.type
            zero = arith.ConstantOp(IntegerAttr(0, t))
            positive = arith.CmpiOp(op.step, zero.result, "sgt")
            bound = arith.SelectOp(positive.result, op.ub, op.lb)
            guard = [zero, positive, bound]
            copy_location(op, guard)
            rewriter.insert(guard, InsertPoint.before(op))
            op.operands[1] = bound.result
        header, step, ub, may_wrap = op.body.first_block, op.step, op.ub, _may_wrap(op)
        super().match_and_rewrite(op, rewriter)
        if may_wrap and rewriter.has_done_action:
            iv = header.args[0]
            for back in [u.operation for u in iv.uses]:  # the latch's `iv + step`, then `cf.br ^header(iv + step, ...)`
                if not (isinstance(back, arith.AddiOp) and back.lhs is iv and back.rhs is step):
                    continue
                for branch in [u.operation for u in back.result.uses]:
                    if isinstance(branch, cf.BranchOp) and branch.successor is header and branch.operands[0] is back.result:
                        wrapped = arith.CmpiOp(back.result, iv, "slt")
                        following = arith.SelectOp(wrapped.result, ub, back.result)
                        copy_location(op, [wrapped, following])
                        rewriter.insert([wrapped, following], InsertPoint.before(branch))
                        branch.operands[0] = following.result


def _constant_int(v) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _positive_constant(v) -> bool:
    value = _constant_int(v)
    return value is not None and value > 0


def _may_wrap(op: scf.ForOp) -> bool:
    """Whether ``iv + step`` can pass the counter type's largest value for some ``iv < ub``: not for the
    constant step 1, nor for constants with ``ub - 1 + step`` in range."""
    step, ub = _constant_int(op.step), _constant_int(op.ub)
    if step == 1:
        return False
    if step is None or ub is None:
        return True
    width = op.step.type.width.data if isinstance(op.step.type, IntegerType) else 64  # index: 64 bits
    return ub - 1 + step > (1 << (width - 1)) - 1


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
                       (scf.ForOp, PositiveStepFor()))
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
