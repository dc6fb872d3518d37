"""K-indexed vectors of a computed GEMM operand loaded one K step ahead (``TILEORCH_COMPUTED_OPERAND=prefetch``,
:mod:`~tileorch.transforms.tileas.computed_operand_switches`).

A computed operand's map may read vectors indexed by the K tile (``a * gamma[k]``, a group's scale
row ``S[k // g, n]``).  :func:`~tileorch.transforms.tileas.convert_to_cutlass.stage_computed_b`
loads them from global memory at the top of the consumer's K step, before its wait on the stage.
When the pipeline is full that wait returns at once, so the loads' latency (an L2 round trip,
several hundred cycles) stands between the wait and the transform, in series with the fence, the
named barrier and the WGMMA issue of every K step.

:func:`prefetch_k_vectors` turns those loads into a software pipeline of depth one: the consumer's
K loop carries the values the transform reads (``iter_args``); the first K step's are loaded before
the loop (at the loop's lower bound), and step ``kt`` loads step ``kt + 1``'s at its top, a whole K
step before they are read.  The loads are bounds-checked as before (an index past the array reads
element 0 and selects the padding), so the last step's load of the K tile after the range is
harmless.  The transform and everything else is unchanged.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation


def prefetch_k_vectors(kloop: scf.ForOp, head_ops: list[Operation]) -> scf.ForOp:
    """Load ``head_ops`` (straight-line ops at the top of ``kloop``'s body computing K-indexed
    vector values from the induction variable and values defined before the loop) one iteration
    ahead: their results read by the rest of the body become carried values.  Returns the new loop
    (``kloop`` is replaced), or ``kloop`` itself when there is nothing to carry."""
    body = kloop.body.block
    kt = body.args[0]
    inside = {id(op) for op in head_ops}
    outs = [r for op in head_ops for r in op.results if any(id(u.operation) not in inside for u in r.uses)]
    if not outs:
        return kloop
    # the first K step's values, before the loop, at its lower bound
    mapper = {kt: kloop.lb}
    parent = kloop.parent_block()
    for op in head_ops:
        parent.insert_op_before(op.clone(value_mapper=mapper), kloop)
    inits = [mapper[r] for r in outs]
    # in the loop: the next K step's values
    one = arith.ConstantOp(IntegerAttr(1, kt.type))
    nxt = arith.AddiOp(kt, one.result)
    body.insert_ops_before([one, nxt], head_ops[0])
    for op in head_ops:
        for i, x in enumerate(op.operands):
            if x is kt:
                op.operands[i] = nxt.result
    carried = [body.insert_arg(r.type, len(body.args)) for r in outs]
    for r, a in zip(outs, carried):
        r.replace_uses_with_if(a, lambda use: id(use.operation) not in inside)
    yield_op = body.last_op
    yield_op.operands = [*yield_op.operands, *outs]
    new = scf.ForOp(kloop.lb, kloop.ub, kloop.step, [*kloop.iter_args, *inits], kloop.detach_region(kloop.body))
    parent.insert_op_before(new, kloop)
    for old, res in zip(kloop.results, new.results):
        res.name_hint = old.name_hint
        old.replace_all_uses_with(res)
    kloop.detach()
    kloop.erase()
    return new
