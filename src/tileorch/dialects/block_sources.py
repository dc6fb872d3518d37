"""The values a block argument is made of: the one walk of loop- and branch-carried values that the verifiers
(``cutlass.block_striped``: is a tile address the same for every thread) and the lowerings (the SIMT path's
token walks: ``tileaa_to_simt.store_barriers``, ``row_smem_cache``) follow.  Reads IR only.

It lives in the dialects layer, not in ``analysis/``, because a dialect's verifier uses it and dialects may import
nothing above their own layer (tests/unit/test_import_layers.py: dialects < transforms and analysis); transforms
and analysis import it from here, as they do :mod:`tileorch.dialects.register_budget`."""

from __future__ import annotations

from xdsl.ir import Block, SSAValue

BRANCH_OPERANDS = {"cf.br": ("arguments",), "llvm.br": ("arguments",),
                   "cf.cond_br": ("then_arguments", "else_arguments"),
                   "llvm.cond_br": ("then_arguments", "else_arguments")}
"""Per branch op, the operand group each of its successors (in order) receives as block arguments."""


def _entry(arg: SSAValue):
    """(block, the op holding its region, whether the block is its region's first) of block argument ``arg``, or
    None for a value that is not a block argument or a block outside any op."""
    block = arg.owner
    if not isinstance(block, Block) or block.parent is None:
        return None
    holder = block.parent_op()
    if holder is None:
        return None
    return block, holder, block is block.parent.blocks.first


def iteration_sources(arg: SSAValue) -> list[SSAValue] | None:
    """The values a loop-carried block argument takes: an ``scf.for`` iteration argument's initial and yielded
    values; an ``scf.while`` ``before`` argument's initial value and what the ``after`` region yields to it, an
    ``after`` argument what ``scf.condition`` forwards.  None for any other value (an ``scf.for`` induction
    variable included)."""
    found = _entry(arg)
    if found is None:
        return None
    block, holder, first = found
    if not first:
        return None
    if holder.name == "scf.for":
        lower, upper, step, *inits = holder.operands
        yielded = block.last_op
        if arg.index == 0 or yielded is None or yielded.name != "scf.yield" or arg.index - 1 >= len(inits) \
                or arg.index - 1 >= len(yielded.operands):
            return None
        return [inits[arg.index - 1], yielded.operands[arg.index - 1]]
    if holder.name == "scf.while" and len(holder.regions) == 2:
        before, after = (r.blocks.first for r in holder.regions)
        if block is before:  # (the initial values, then what the after region yields)
            back = after.last_op if after is not None else None
            if back is None or back.name != "scf.yield" or arg.index >= len(back.operands) \
                    or arg.index >= len(holder.operands):
                return None
            return [holder.operands[arg.index], back.operands[arg.index]]
        forward = before.last_op if before is not None else None
        if forward is None or forward.name != "scf.condition" or arg.index + 1 >= len(forward.operands):
            return None
        return [forward.operands[arg.index + 1]]
    return None


def block_argument_sources(arg: SSAValue) -> list[SSAValue] | None:
    """The values a block argument is made of: none for a function's parameter (given by the launch); an
    ``scf.for`` induction value's bounds and step; a loop-carried value's (:func:`iteration_sources`); a
    ``cf`` / ``llvm`` block's argument, what each branch to the block passes it.  None for any other block
    argument (not followed)."""
    found = _entry(arg)
    if found is None:
        return None
    block, holder, first = found
    if holder.name in ("func.func", "llvm.func", "gpu.func") and first:
        return []
    if holder.name == "scf.for" and first and arg.index == 0:
        return list(holder.operands[:3])
    if first:
        return iteration_sources(arg)
    sources: list[SSAValue] = []
    for other in block.parent.blocks:  # (the branches into ``block``: what each passes its argument)
        branch = other.last_op
        if branch is None or block not in branch.successors:
            continue
        groups = BRANCH_OPERANDS.get(branch.name)
        if groups is None:
            return None
        for successor, group in zip(branch.successors, groups):
            if successor is block:
                passed = getattr(branch, group)
                if arg.index >= len(passed):
                    return None
                sources.append(passed[arg.index])
    return sources


__all__ = ["BRANCH_OPERANDS", "block_argument_sources", "iteration_sources"]
