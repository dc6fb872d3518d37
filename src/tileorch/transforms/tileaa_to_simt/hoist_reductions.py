"""``tileaa-hoist-loop-reductions``: a loop that folds a reduction of each tile into its
accumulator folds the tiles instead and reduces once, after the loop.

``acc = acc + sum(t_i, axis=d)`` over a loop (a column sum walking the rows, a row sum walking
the columns) reduces every tile across threads (shuffles, a shared-memory exchange and two
barriers per iteration on the SIMT path), so the loop's speed is the reduction's latency, not
the memory's.  Since ``sum_i sum_d t_i = sum_d sum_i t_i`` the loop can add the tiles
element-wise into an accumulator of the tile's shape, in registers, and reduce it once:

    acc_tile = fold(acc_tile, t_i)            (in the loop; starts at the reduction's identity)
    acc      = fold(acc_init, reduce(acc_tile, axis=d))      (after the loop)

Taken for an ``scf.for`` iter arg ``a`` whose yielded value is ``fold(a, r)`` (``fold`` one of
:data:`FOLDS`, ``a`` used once), where ``r = nv_tileaa.reduce(t)`` has one operand and one use
and its combiner is the same op as ``fold`` applied to its two block arguments.  The old iter
arg is then carried unchanged (yielded as it is); the tile-shaped accumulator is a new iter arg.
Exact for integer folds and max/min; float sums and products are reassociated (as any
reduction order change).  Run on the SIMT path before ``convert-nv-tileaa-to-simt``.

The reduction may reach the fold through ``nv_tileaa.expand_dims`` / ``nv_tileaa.reshape`` ops (each
value of the chain used once, in the body): ``ct.sum(x, axis=1, keepdims=True)`` as users write it, the
reduction's ``(1,)`` expanded to the accumulator's ``(1, 1)``.  A reshape keeps the row-major order of
the elements, so it commutes with an element-wise fold: ``fold(reshape(a), reshape(b)) =
reshape(fold(a, b))``, and after the loop the chain is applied to the one reduction
(``acc = fold(acc_init, reshape(reduce(acc_tile)))``).  ``TILEORCH_HOIST_RESHAPED_REDUCTIONS=0`` keeps
such loops as written (before session 32 they were: a three-loop softmax reduced every tile across the
CTA twice, ~60 thread-instructions an element against ~37 for the cross entropy's two loops).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch import settings
from tileorch.transforms.tileaa_to_simt.cluster_split import IDENTITIES, carried_fold

FOLDS = tuple(IDENTITIES)
"""The fold ops taken: those with an identity (``cluster_split.IDENTITIES``)."""


RESHAPES = ("nv_tileaa.expand_dims", "nv_tileaa.reshape")
"""Ops between a reduction and its fold that only relabel the elements (row-major order kept)."""


def through_reshapes() -> bool:
    """``TILEORCH_HOIST_RESHAPED_REDUCTIONS`` (default 1): a reduction reaching its fold through
    :data:`RESHAPES` is hoisted too."""
    return settings.value("TILEORCH_HOIST_RESHAPED_REDUCTIONS") != "0"


@dataclass
class _Candidate:
    index: int  # iter arg position (after the induction variable)
    fold: Operation
    reduce: Operation
    chain: tuple[Operation, ...] = ()
    """The :data:`RESHAPES` ops from the reduction's result to the fold's operand, in order."""


def combiner(reduce: Operation) -> str | None:
    """The op name of a reduce whose combiner is one op of its two block arguments, else None."""
    block = reduce.regions[0].block
    ops = list(block.ops)
    if len(ops) != 2 or ops[1].name != "nv_tileaa.yield" or ops[1].operands[0] is not ops[0].results[0]:
        return None
    if set(ops[0].operands) != set(block.args) or len(ops[0].operands) != 2:
        return None
    return ops[0].name


def _candidates(loop: scf.ForOp) -> list[_Candidate]:
    body = loop.body.blocks[0]
    yielded = body.last_op
    out = []
    for k, (arg, value) in enumerate(zip(body.args[1:], yielded.operands)):
        fold = carried_fold(body, arg, value)
        if fold is None:
            continue
        other = fold.operands[1] if fold.operands[0] is arg else fold.operands[0]
        red = other.owner
        chain: list[Operation] = []
        while (through_reshapes() and isinstance(red, Operation) and red.name in RESHAPES
               and red.parent_block() is body and other.uses.get_length() == 1):
            chain.insert(0, red)
            other = red.operands[0]
            red = other.owner
        if (not isinstance(red, Operation) or red.name != "nv_tileaa.reduce" or red.parent_block() is not body
                or len(red.operands) != 1 or other.uses.get_length() != 1 or combiner(red) != fold.name):
            continue
        out.append(_Candidate(k, fold, red, tuple(chain)))
    return out


def _hoist(loop: scf.ForOp, cands: list[_Candidate]) -> scf.ForOp:
    """A new loop carrying one tile accumulator per candidate; the old results replaced."""
    body = loop.body.blocks[0]
    before = InsertPoint.before(loop)
    inits = []
    for c in cands:
        tile_type = c.reduce.operands[0].type
        assert isinstance(tile_type, TensorType)
        ident = c.reduce.identities.data[0].value.data
        n = 1
        for d in tile_type.get_shape():
            n *= d
        const = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(tile_type, [ident] * n))
        Rewriter.insert_op(const, before)
        inits.append(const.result)
    new_args = [body.insert_arg(c.reduce.operands[0].type, len(body.args)) for c in cands]
    yielded = body.last_op
    outs = list(yielded.operands)
    for c, acc in zip(cands, new_args):
        tile = c.reduce.operands[0]
        folded = type(c.fold).create(operands=[acc, tile], result_types=[tile.type],
                                     properties=dict(c.fold.properties), attributes=dict(c.fold.attributes))
        Rewriter.insert_op(folded, InsertPoint.before(yielded))
        outs[c.index] = body.args[1 + c.index]  # the old accumulator is carried unchanged
        outs.append(folded.results[0])
    new_yield = scf.YieldOp(*outs)
    Rewriter.replace_op(yielded, new_yield)
    for c in cands:  # the per-iteration fold, reshapes and reduce are dead now
        Rewriter.erase_op(c.fold)
        for op in reversed(c.chain):
            Rewriter.erase_op(op)
        Rewriter.erase_op(c.reduce)
    new_body = Block(arg_types=[a.type for a in body.args])
    for old, new in zip(body.args, new_body.args):
        old.replace_all_uses_with(new)
    for op in list(body.ops):
        op.detach()
        new_body.add_op(op)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits], Region(new_body))
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))
    after = InsertPoint.after(new_loop)
    for r_old, r_new in zip(loop.results, new_loop.results):
        r_old.replace_all_uses_with(r_new)
    tail: list[Operation] = []
    for c, acc in zip(cands, new_loop.results[len(loop.results):]):
        red = c.reduce.clone()
        red.operands[0] = acc  # type: ignore[index]
        made = [red]
        for op in c.chain:  # the reshapes, applied to the one reduction
            step = op.clone()
            step.operands[0] = made[-1].results[0]  # type: ignore[index]
            made.append(step)
        res = new_loop.results[c.index]
        final = type(c.fold).create(operands=[res, made[-1].results[0]], result_types=[res.type],
                                    properties=dict(c.fold.properties), attributes=dict(c.fold.attributes))
        res.replace_uses_with_if(final.results[0], lambda use, final=final: use.operation is not final)
        tail += [*made, final]
    for op in tail:  # `after` is the point before the op that followed the loop: in order
        Rewriter.insert_op(op, after)
    Rewriter.erase_op(loop)
    return new_loop


def hoist_loop_reductions(module: Operation) -> int:
    """Apply the rewrite (module docstring) to every ``scf.for`` in ``module``; loops rewritten."""
    count = 0
    for loop in [op for op in module.walk() if isinstance(op, scf.ForOp)]:
        cands = _candidates(loop)
        if cands:
            _hoist(loop, cands)
            count += 1
    return count


@dataclass(frozen=True)
class HoistLoopReductions(ModulePass):
    """Fold tiles in the loop and reduce once after it (module docstring)."""

    name = "tileaa-hoist-loop-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hoist_loop_reductions(op)


__all__ = ["FOLDS", "RESHAPES", "HoistLoopReductions", "combiner", "hoist_loop_reductions", "through_reshapes"]
