"""Which dot kernels the chained-dots lowering takes (issue 22: the detection without the lowering).

``convert-nv-tileas-to-cutlass`` asks of every dot kernel whether its dots chain (a dot's A
computed from another dot's result: attention, an MLP's two GEMMs) and refuses, located, the
chains no lowering takes; only a kernel that chains imports the lowering itself
(:mod:`tileorch.transforms.tileas.chained_dots`, ~4,000 lines and the modules only it uses: a
GEMM compile no longer imports them).  :mod:`.chained_dots` re-exports every name defined here.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects import nv_tileas_tile as ts
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.tileas.common import enclosing_for

PASS = "convert-nv-tileas-to-cutlass"
CHAINED_ATTR = "tileorch.chained_config"
"""The chained kernel's record (its function attribute), read by the driver and the launcher."""


def _fail(op: Operation, why: str):
    raise LocatedError(op, f"{PASS}: chained dots: {why}")


def _depends_on(v: SSAValue, target: SSAValue, limit: int = 4096) -> bool:
    stack, seen = [v], set()
    while stack and len(seen) < limit:
        x = stack.pop()
        if x is target:
            return True
        if id(x) in seen or not isinstance(x.owner, Operation):
            continue
        seen.add(id(x))
        for o in x.owner.walk():  # an op with regions (scf.if) depends on what its regions read
            stack.extend(o.operands)
    return False


def chained_dot_groups(kernel: aa.FuncOp) -> tuple[list[Operation], Operation] | None:
    """(the first dots, in program order; the second dot: the last of :func:`chained_dot_sets`'s
    second dots) of a chained kernel; else None."""
    sets = chained_dot_sets(kernel)
    return None if sets is None else (sets[0], sets[1][-1])


def chained_dot_sets(kernel: aa.FuncOp) -> tuple[list[Operation], list[Operation]] | None:
    """(the first dots, the second dots, each in program order) when the kernel's agent switch has
    two dots or more and either

    * exactly one of them (the second dot) has an A operand computed from every other dot's
      result, and no other dot reads another's result (two dots: attention, a two-GEMM MLP; three:
      a SwiGLU MLP, ``silu(x W1) * (x W3)``, then ``@ W2``), or
    * several dots (the second dots) have A operands computed from other dots' results, the first
      dots (the others) read no dot's result, every first dot feeds a second dot's A, no dot's B
      is computed from a dot, and no second dot's A or C reads another second dot's result (one
      chain feeding several accumulators: FlashAttention's backward dK/dV, ``dV += P^T dO`` and
      ``dK += dS^T Q``; two online softmax chains over one V, each second dot's C rescaled by its
      chain's running max);

    else None.  Whether the first dots share their A operand and the second dots' operands fit
    the kernel is :func:`analyze_chained_dots`'s to check (a located refusal)."""
    switches = [o for o in kernel.walk() if isinstance(o, AgentSwitchOp)]
    if len(switches) != 1:
        return None
    dots = [o for o in switches[0].walk() if isinstance(o, ts.DotOp)]
    if len(dots) < 2:
        return None
    for d2 in reversed(dots):
        firsts = [d for d in dots if d is not d2]
        if all(_depends_on(d2.lhs, d.result) for d in firsts):
            if any(_depends_on(a.lhs, b.result) or _depends_on(a.rhs, b.result) or _depends_on(a.acc, b.result)
                   for a in firsts for b in firsts if a is not b):
                return None
            return firsts, [d2]
    reads = {id(b): {id(a) for a in dots if a is not b and _depends_on(b.lhs, a.result)} for b in dots}
    seconds = [b for b in dots if reads[id(b)]]
    firsts = [d for d in dots if not reads[id(d)]]
    if len(seconds) < 2 or not firsts:
        return None
    if any(_depends_on(x, a.result) for b in dots for a in dots if a is not b
           for x in ((b.rhs, b.acc) if id(b) in {id(f) for f in firsts} else (b.rhs,))):
        return None  # a first dot's B or C, or a second dot's B, computed from a dot
    if any(id(a) in reads[id(b)] or _depends_on(b.acc, a.result) for a in seconds for b in seconds if a is not b):
        return None  # a second dot's A or C from another second dot
    if any(all(id(a) not in reads[id(b)] for b in seconds) for a in firsts):
        return None
    return firsts, seconds


def check_dots_outside_the_chain_loop(kernel: aa.FuncOp, peeled_only: bool = False) -> None:
    """When a dot reads another dot's result (a chain) and the kernel's dots are not all in one
    loop (a key step peeled before or after the loop, as attention with its ragged last key tile
    masked after the loop, or a sink tile before it), a located refusal at the first dot outside
    the loop that holds the most; else nothing.  ``peeled_only`` (a kernel
    :func:`chained_dot_groups` takes, whose chains may span two loops: causal attention's
    unmasked and diagonal loops): only a dot outside every loop is refused.  Without it the GEMM
    lowering refused such a kernel as dots "in one K loop" that do not share A, and the chained
    lowering a peeled first step as "the epilogue op 'nv_tileas.dot'"."""
    dots = [o for o in kernel.walk() if isinstance(o, ts.DotOp)]
    if not any(_depends_on(b.lhs, a.result) or _depends_on(b.rhs, a.result)
               for a in dots for b in dots if a is not b):
        return
    loops = [enclosing_for(d) for d in dots]
    counted = [lp for lp in loops if lp is not None]
    if not counted:
        return
    main = max(counted, key=counted.count)
    order = {id(o): i for i, o in enumerate(kernel.walk())}
    for d, lp in zip(dots, loops):
        if peeled_only and lp is not None:
            continue
        if lp is not main and not (lp is not None and main.is_ancestor(lp)):
            where = "before" if order[id(d)] < order[id(main)] else "after"
            _fail(d, f"{len(dots)} dots, this one {where} the loop that holds the others: the chained-dots lowering "
                     "takes a chain whose dots are all inside one loop (a step peeled out of the loop, or a dot on "
                     "the loop's result, is not supported; a ragged or special key tile can be masked inside the "
                     "loop instead)")


def check_several_second_dots(kernel: aa.FuncOp) -> None:
    """A located refusal (at the second of them) when two dots or more of one loop read other dots'
    results and :func:`chained_dot_sets` does not take the kernel (several accumulators fed by chains
    that are not one set of first dots feeding second dots: two softmax chains whose second dots read
    each first dot once, as differential attention's): the chained-dots lowering takes those kernels
    only.  Without it the GEMM lowering's dots-sharing-A checks answered (an accumulator shape, a
    register count or "do not read the same A tile"), which named no chain.  The message keeps "N dots
    in one K loop that do not read the same A tile", the GEMM lowering's words for such kernels."""
    from tileorch.diagnostics import source_position

    dots = [o for o in kernel.walk() if isinstance(o, ts.DotOp)]
    readers = [b for b in dots if any(_depends_on(b.lhs, a.result) or _depends_on(b.rhs, a.result)
                                      for a in dots if a is not b)]
    if len(readers) < 2 or len({id(enclosing_for(d)) for d in dots}) != 1:
        return
    lines = [source_position(d.location) for d in readers]
    at = ", ".join(str(p.line.data) for p in lines if p is not None)
    _fail(readers[1], f"{len(dots)} dots in one K loop that do not read the same A tile: {len(readers)} of them "
                      f"(lines {at}) compute an operand from other dots' results (several accumulators fed by one "
                      "chain, as FlashAttention's backward dV += P^T dO and dK += dS^T Q); the chained-dots "
                      "lowering takes one second dot per loop, whose A is computed from first dots that read one "
                      "A tile: split the kernel (one accumulator per kernel), or the SIMT path runs it")


def chained_dots(kernel: aa.FuncOp) -> tuple[Operation, Operation] | None:
    """(the first dot, the second dot) of :func:`chained_dot_groups` (the first of the first dots
    when there are several); else None."""
    groups = chained_dot_groups(kernel)
    return None if groups is None else (groups[0][0], groups[1])
