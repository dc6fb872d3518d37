"""``tileas-slicing`` (seed 003, D20): materialise ``sliceCount`` on loops.

An ``scf.for`` carrying ``sliceCount = N`` (an integer attribute) becomes

* a main loop stepping ``N * step`` whose body is the old body ``N`` times (slice ``j`` runs at
  ``iv + j * step``; loop-carried values thread from slice to slice), and
* a residual loop over the iterations left (``ub - (ub - lb) mod (N * step)`` to ``ub``),
  omitted when the bounds are constants and the trip count is a multiple of ``N``.

Nested marked loops are sliced innermost first, so a marked loop inside a sliced one is sliced
in every copy (main-loop slices and residual loop alike) and no ``sliceCount`` survives.

Diagnostics (tileiras'): "The sliceCountneed to be aIntegerAttr" (sic) for a non-integer
``sliceCount``; "unsupported op in Slicing pass" for a ``sliceCount`` on a loop other than
``scf.for``; "... is not expected inside sliced part in SlicingPass" for an op that must not be
duplicated (agent switches, pipeline creation, allocations).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.dialects.constants import constant_int
from tileorch.transforms.pass_kinds import ModuleTransform

SLICE_COUNT = "sliceCount"
NOT_DUPLICABLE = ("nv_tileas.async.pipeline.agent_switch", "nv_tileas.async.pipeline.create_pipeline",
                  "nv_tileas.alloc_tensor", "nv_tileas.async.pipeline.create_iterator")


def slice_count(loop: Operation) -> int | None:
    attr = loop.attributes.get(SLICE_COUNT)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr):
        raise LocatedError(loop, "The sliceCountneed to be aIntegerAttr")
    return attr.value.data


def _const(value: int, typ) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, typ), typ)


def slice_loop(loop: scf.ForOp, n: int) -> None:
    del loop.attributes[SLICE_COUNT]
    if n <= 1:
        return
    for op in loop.body.walk():
        if op.name in NOT_DUPLICABLE:
            raise LocatedError(op, f"'{op.name}' is not expected inside sliced part in SlicingPass")
    t = loop.lb.type
    lb, ub, step = loop.lb, loop.ub, loop.step
    clb, cub, cstep = constant_int(lb), constant_int(ub), constant_int(step)
    exact = None not in (clb, cub, cstep) and cstep > 0 and ((cub - clb + cstep - 1) // cstep) % n == 0 \
        and (cub - clb) % cstep == 0
    pre: list[Operation] = []
    cn = _const(n, t)
    big = arith.MuliOp(step, cn.result)
    pre += [cn, big]
    if exact:
        main_ub = ub
    else:
        span = arith.SubiOp(ub, lb)
        rem = arith.RemSIOp(span.result, big.result)
        mub = arith.SubiOp(ub, rem.result)
        pre += [span, rem, mub]
        main_ub = mub.result
    copy_location(loop, pre)
    Rewriter.insert_op(pre, InsertPoint.before(loop))
    old = loop.body.block
    body = Block(arg_types=[a.type for a in old.args])
    iv = body.args[0]
    carried: list[SSAValue] = list(body.args[1:])
    for j in range(n):
        vmap: dict[SSAValue, SSAValue] = {}
        if j == 0:
            vmap[old.args[0]] = iv
        else:
            cj = _const(j, t)
            off = arith.MuliOp(step, cj.result)
            ivj = arith.AddiOp(iv, off.result)
            body.add_ops([cj, off, ivj])
            vmap[old.args[0]] = ivj.result
        for a, v in zip(old.args[1:], carried):
            vmap[a] = v
        for op in old.ops:
            if op is old.last_op:
                break
            body.add_op(op.clone(value_mapper=vmap))
        carried = [vmap.get(v, v) for v in old.last_op.operands]
    body.add_op(scf.YieldOp(*carried))
    main = scf.ForOp(lb, main_ub, big.result, list(loop.iter_args), Region(body))
    copy_location(loop, [main])
    Rewriter.insert_op(main, InsertPoint.before(loop))
    if exact:
        loop.results and [r.replace_all_uses_with(m) for r, m in zip(loop.results, main.results)]
        Rewriter.erase_op(loop, safe_erase=False)
        return
    # the old loop runs what is left
    loop.operands = [main_ub, ub, step, *main.results]


def run_slicing(root: Operation) -> None:
    """Slice every marked loop under ``root``, innermost first: an inner marked loop is sliced
    before the loop around it copies its body, so every copy is already sliced (no copy keeps a
    ``sliceCount``), and no loop is visited after an enclosing loop replaced (erased) it."""
    for op in list(root.walk(region_first=True)):
        n = slice_count(op)
        if n is None:
            continue
        if not isinstance(op, scf.ForOp):
            raise LocatedError(op, "unsupported op in Slicing pass")
        slice_loop(op, n)


@dataclass(frozen=True)
class Slicing(ModuleTransform):
    """Loops marked sliceCount = N run N slices per iteration plus a residual loop."""

    name = "tileas-slicing"
    transform = staticmethod(run_slicing)
