"""``convert-cf-to-llvm``: ``cf.br``/``cf.cond_br`` -> ``llvm.br``/``llvm.cond_br`` (1:1, block
arguments kept) and ``cf.switch`` -> a chain of ``llvm.icmp eq`` + ``llvm.cond_br`` blocks.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.transforms.index_to_llvm import ToLLVMPass

ICMP_EQ = 0


class LowerBranches(RewritePattern):
    NAME_PREFIX = "cf."  # acts on no other op (rewrite_once visits only these)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if isinstance(op, cf.BranchOp):
            new = llvm.BrOp(op.successor, *op.arguments)
        elif isinstance(op, cf.ConditionalBranchOp):
            new = llvm.CondBrOp(op.cond, op.then_block, op.then_arguments, op.else_block, op.else_arguments)
        elif isinstance(op, cf.AssertOp):
            raise LocatedError(op, "cf.assert has no device lowering in tileorch")
        else:
            return
        copy_location(op, [new])
        rewriter.replace(op, new)


class LowerSwitch(RewritePattern):
    """``cf.switch %x, ^d [v0: ^b0, ...]`` -> ``icmp eq %x, v0; cond_br ..., ^b0, ^next`` ..."""

    NAME_PREFIX = "cf."  # acts on no other op (rewrite_once visits only these)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, cf.SwitchOp):
            return
        block, region = op.parent_block(), op.parent_region()
        assert block is not None and region is not None
        values = list(op.case_values.get_values()) if op.case_values is not None else []
        sizes = list(op.case_operand_segments.get_values())
        operands, start = [], 0
        for n in sizes:
            operands.append(list(op.case_operands[start : start + n]))
            start += n
        current = block
        next_blocks = [Block() for _ in values]
        for i, (value, dest, args) in enumerate(zip(values, op.case_blocks, operands)):
            check = next_blocks[i]
            region.insert_block_after(check, current)
            const = llvm.ConstantOp(IntegerAttr(value, op.flag.type), op.flag.type)
            eq = llvm.ICmpOp(op.flag, const.result, IntegerAttr(ICMP_EQ, i64))
            br = llvm.CondBrOp(eq.res, dest, args, check, ())
            new = [const, eq, br]
            copy_location(op, new)
            rewriter.insert(new, InsertPoint.before(op) if current is block else InsertPoint.at_end(current))
            current = check
        default = llvm.BrOp(op.default_block, *op.default_operands)
        copy_location(op, [default])
        rewriter.insert(default, InsertPoint.at_end(current) if current is not block else InsertPoint.before(op))
        rewriter.erase(op)


class LowerCf(RewritePattern):
    """:class:`LowerSwitch`, then :class:`LowerBranches` on an op the first left, in one walk of
    the ``cf`` ops (two walks, one per pattern, before): they act on disjoint ops, create only
    ``llvm`` ops and blocks and move no existing op, so each op meets the same pattern on the
    same IR around it either way."""

    NAME_PREFIX = "cf."  # acts on no other op (rewrite_once visits only these)

    def __init__(self) -> None:
        self.patterns = (LowerSwitch(), LowerBranches())

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        for pattern in self.patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


@dataclass(frozen=True)
class ConvertCfToLLVM(ToLLVMPass):
    """Lower ``cf`` branches and switches to ``llvm`` branches."""

    name = "convert-cf-to-llvm"
    PATTERNS = (LowerCf,)
