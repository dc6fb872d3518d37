"""``tileas-reroll-unrolled-loops``: N straight-line copies of a loop body become an ``scf.for`` again.

``for k in ct.static_iter(range(KT))`` makes cuTile unroll the loop at compile time: the Tile IR
holds KT copies of the body one after another, each reading the values the one before computed
(the accumulator of a GEMM, attention's running max / sum / output, memory tokens) and differing
from it only in integer constants (``k``).  The tier pipelines one loop over K, so such a chain::

    %c0, %c1, %c2 = arith.constant 0, 1, 2
    segment 0:  %a0 = load(A, (x, %c0)) ... %acc1 = dot(%a0, %b0, %acc0)
    segment 1:  %a1 = load(A, (x, %c1)) ... %acc2 = dot(%a1, %b1, %acc1)
    segment 2:  %a2 = load(A, (x, %c2)) ... %acc3 = dot(%a2, %b2, %acc2)

becomes ``%r = scf.for %i = 0 to 3 step 1 iter_args(%acc = %acc0) { segment 1 with %acc for %acc1
and c_0 + s * %i for each varying constant; yield %acc2's copy }`` and ``%acc3``'s uses read ``%r``.

What is matched (nothing GEMM-specific): a block's ops ``[s, s + N*L)`` cut into N contiguous
segments of L ops (N >= 2) such that, op by op (nested regions included, walked in order), the
segments have the same op names, properties, attributes, result types and operand structure: an
operand is (a) a value of the same segment (the same op and result in every segment), (b) a result
of the segment before (the same op and result in every segment from 1 on: a *carried* value; in
segment 0 the same operand position reads one value defined before the chain, of the same type:
the carried value's initial value), (c) a value defined before the chain, the same in every
segment or computed alike (side-effect-free ops of the same name, attributes and types on such
values: the per-copy views cuTile hoists out of an enclosing loop), or (d) an integer
``arith.constant`` (a scalar, or a tile of one value: ``j * TILE_N + cols`` of a static ``j``
folds to one) whose values c_j form an arithmetic progression ``c_0 + s*j`` (likewise a segment's
own integer ``arith.constant`` ops); the loop computes ``c_0 + s*i`` from its induction variable
``i`` (splat and broadcast for a tile).  At least one value must be carried; a segment must hold
an ``nv_tileaa.dot`` (the pass exists for the tensor-core tiers: other unrolled code is left as
written); results of a segment may be read only by that segment, by the next one as carried
values, and (last segment only, carried values only) after the chain; the varying constants must
all have one integer element type (the induction variable's; i32 when none vary).

Segment boundaries are searched for with the period L taken from the distances between equal
dots at most 8 apart (one copy of the body per segment), smallest L first, each rotation of the
periodic stretch (ops that repeat with period L) tried whose copies hold every dot of the
stretch.  A stretch that fails any condition (a non-constant difference, constants that are not
a progression over all copies) is left entirely as it is: no shorter loop over some copies.

The loop runs the segments' ops in the same order on the same values, so the rewrite preserves
the program's meaning whether or not the tier then takes it; the compile driver runs the tier on a
module whose SIMT fallback is cloned beforehand, so a program the tier still refuses keeps its
straight-line code on the SIMT path.  The pass states, per chain, the remark the driver prints when
the tier takes the kernel (:mod:`tileorch.transforms.remark_sink`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects.nv_tileaa import BroadcastOp, SplatOp
from tileorch.transforms.pass_kinds import ModuleTransform

_DOT = "nv_tileaa.dot"
_EQUAL_DOTS = 8
"""The most dots of one signature a loop body may hold (bounds the periods tried)."""


def _int_const(op: Operation) -> tuple[int, IntegerType | TensorType] | None:
    """(value, type) of an integer ``arith.constant`` (not i1): a scalar, or a tile of one value
    (``j * TILE_N`` of a static ``j`` added to a tile folds to one), else None."""
    if not isinstance(op, arith.ConstantOp):
        return None
    typ = op.result.type
    elem = typ.element_type if isinstance(typ, TensorType) else typ
    if not isinstance(elem, IntegerType) or elem.width.data <= 1:
        return None
    if isinstance(op.value, IntegerAttr) and not isinstance(typ, TensorType):
        return op.value.value.data, typ
    if isinstance(op.value, DenseIntOrFPElementsAttr) and isinstance(typ, TensorType) and op.value.is_splat():
        return int(next(iter(op.value.iter_values()))), typ
    return None


def _scalar(typ: IntegerType | TensorType) -> IntegerType:
    return typ.element_type if isinstance(typ, TensorType) else typ


def _sig(op: Operation) -> tuple:
    """What segments must agree on op by op, cheap to compare (the full check is :func:`_check`):
    an integer constant's value left out."""
    if _int_const(op) is not None:
        return ("const", op.result.type)
    nested = tuple(o.name for o in op.walk()) if op.regions else ()
    return (op.name, tuple(r.type for r in op.results), tuple(v.type for v in op.operands), nested)


_IMPURE = ("load", "store", "atomic", "print", "assert", "barrier", "scatter", "gather", "token", "dot", "call",
           "alloc", "wait", "random")


def _equivalent(a: SSAValue, b: SSAValue, depth: int = 8) -> bool:
    """``a`` and ``b`` (defined before the chain) are the same value: the same SSA value, or results
    of side-effect-free ops without regions alike in name, properties, attributes and types whose
    operands are equivalent (cuTile computes a copy's views once per copy, hoisted out of a loop)."""
    if a is b:
        return True
    if depth == 0 or isinstance(a, BlockArgument) or isinstance(b, BlockArgument) or a.index != b.index:
        return False
    x, y = a.owner, b.owner
    if x.name != y.name or x.regions or y.regions or any(w in x.name for w in _IMPURE) \
            or len(x.operands) != len(y.operands) or x.properties != y.properties or x.attributes != y.attributes \
            or [r.type for r in x.results] != [r.type for r in y.results]:
        return False
    return all(_equivalent(u, v, depth - 1) for u, v in zip(x.operands, y.operands))


def _has_dot(op: Operation) -> bool:
    return op.name == _DOT or (bool(op.regions) and any(o.name == _DOT for o in op.walk()))


@dataclass
class Chain:
    """A matched chain: ``count`` segments of ``period`` ops from ``start`` of ``block``."""

    block: Block
    ops: list[Operation]
    start: int
    period: int
    count: int
    slots: list[tuple[int, int]] = field(default_factory=list)
    """Carried values: (flat index of the op in a segment, result index)."""
    inits: list[SSAValue] = field(default_factory=list)
    """The initial value of each slot (read by segment 0)."""
    operand_steps: dict[tuple[int, int], tuple[int, int, Attribute]] = field(default_factory=dict)
    """(flat op index, operand index) -> (c_0, s, type): an outside constant operand varying by segment."""
    const_steps: dict[int, tuple[int, int, Attribute]] = field(default_factory=dict)
    """flat op index -> (c_0, s, type): a segment's own integer constant varying by segment."""
    iv_type: IntegerType = field(default_factory=lambda: IntegerType(32))

    def segment(self, j: int) -> list[Operation]:
        return self.ops[self.start + j * self.period:self.start + (j + 1) * self.period]

    def first_dot(self) -> Operation:
        return next(o for top in self.segment(0) for o in top.walk() if o.name == _DOT)


class _Mismatch(Exception):
    pass


def _flat(segment: list[Operation]) -> list[Operation]:
    return [o for top in segment for o in top.walk()]


def _check(chain: Chain) -> bool:
    """Fill ``chain``'s slots, initial values and progressions; whether it is a chain (module doc)."""
    n, count = chain.period, chain.count
    flats = [_flat(chain.segment(j)) for j in range(count)]
    if len({len(f) for f in flats}) != 1 or not any(o.name == _DOT for o in flats[0]):
        return False
    where: dict[Operation, tuple[int, int]] = {}  # op -> (segment, flat index)
    for j, flat in enumerate(flats):
        for x, o in enumerate(flat):
            where[o] = (j, x)
    tops = [set(chain.segment(j)) for j in range(count)]

    def describe(v: SSAValue, j: int) -> tuple:
        if isinstance(v, BlockArgument):
            parent = v.owner.parent_op()
            if parent in where:
                pj, px = where[parent]
                if pj != j:
                    raise _Mismatch
                region = next(r for r, reg in enumerate(parent.regions) if v.owner in reg.blocks)
                block = list(parent.regions[region].blocks).index(v.owner)
                return ("arg", px, region, block, v.index)
            return ("out", v)
        owner = v.owner
        if owner not in where:
            return ("out", v)
        oj, ox = where[owner]
        r = v.index
        if oj == j:
            return ("local", ox, r)
        if oj == j - 1 and owner in tops[oj]:
            return ("prev", ox, r)
        raise _Mismatch

    try:
        ref = flats[1]
        const_types: set = set()
        slots: dict[tuple[int, int], SSAValue] = {}
        for x, o1 in enumerate(ref):
            for j in range(count):
                oj = flats[j][x]
                if oj.name != o1.name or len(oj.operands) != len(o1.operands) or len(oj.regions) != len(o1.regions) \
                        or [r.type for r in oj.results] != [r.type for r in o1.results] or oj.successors:
                    return False
                for ra, rb in zip(oj.regions, o1.regions):
                    if len(ra.blocks) != len(rb.blocks) or any([a.type for a in ba.args] != [a.type for a in bb.args]
                                                               for ba, bb in zip(ra.blocks, rb.blocks)):
                        return False
                if _int_const(o1) is not None:
                    if _int_const(oj) is None or oj.attributes != o1.attributes:
                        return False
                    continue
                if oj.properties != o1.properties or oj.attributes != o1.attributes:
                    return False
            if _int_const(o1) is not None:
                values = [_int_const(flats[j][x])[0] for j in range(count)]
                if len(set(values)) > 1:
                    step = _progression(values)
                    if step is None:
                        return False
                    chain.const_steps[x] = (*step, o1.result.type)
                    const_types.add(_scalar(o1.result.type))
                continue
            for k in range(len(o1.operands)):
                descs = [describe(flats[j][x].operands[k], j) for j in range(count)]
                d1 = descs[1]
                if d1[0] == "prev":
                    d0 = descs[0]
                    if d0[0] != "out" or slots.setdefault(d1[1:], d0[1]) is not d0[1] \
                            or d0[1].type != o1.operands[k].type:
                        return False
                    if any(d != d1 for d in descs[2:]):
                        return False
                    continue
                if all(d == d1 for d in descs):
                    continue
                if any(d[0] != "out" for d in descs):
                    return False
                if all(_equivalent(d[1], d1[1]) for d in descs):
                    continue  # (the loop reads segment 1's)
                consts = [_int_const(d[1].owner) if isinstance(d[1].owner, Operation) else None for d in descs]
                if any(c is None for c in consts) or len({c[1] for c in consts}) != 1:
                    return False
                values = [c[0] for c in consts]
                if len(set(values)) == 1:
                    continue  # equal constants, different ops: invariant
                step = _progression(values)
                if step is None:
                    return False
                chain.operand_steps[(x, k)] = (*step, consts[0][1])
                const_types.add(_scalar(consts[0][1]))
    except _Mismatch:
        return False
    if not slots or len(const_types) > 1:
        return False
    if const_types:
        chain.iv_type = const_types.pop()
    half = 1 << (chain.iv_type.width.data - 1)
    if not all(-half <= v < half for c0, step, _ in (*chain.const_steps.values(), *chain.operand_steps.values())
               for v in (c0, step, count)):
        return False  # (the loop's step or trip count would not fit the type)
    chain.slots = sorted(slots)
    chain.inits = [slots[s] for s in chain.slots]
    # a segment's results: read by itself, by the next segment (carried), or, the last one's carried
    # values only, after the chain
    end = chain.start + count * n
    after = set(chain.ops[end:])
    slot_set = set(chain.slots)
    for j in range(count):
        for x, o in enumerate(flats[j]):
            for r in o.results:
                for use in r.uses:
                    user = use.operation
                    top = user
                    while top is not None and top.parent_block() is not chain.block:
                        top = top.parent_op()
                    if top in tops[j]:
                        continue
                    if j + 1 < count and top in tops[j + 1]:
                        continue  # checked as a carried operand above
                    if j == count - 1 and top in after and (x, r.index) in slot_set:
                        continue
                    return False
    return True


def _progression(values: list[int]) -> tuple[int, int] | None:
    """(c_0, s) when ``values[j] == c_0 + s*j`` for every j, else None."""
    step = values[1] - values[0]
    if any(v != values[0] + step * j for j, v in enumerate(values)):
        return None
    return values[0], step


def _candidates(block: Block) -> Chain | None:
    """The first chain of ``block`` (smallest period first, then the earliest start), or None."""
    ops = list(block.ops)
    dots = [i for i, o in enumerate(ops) if _has_dot(o)]
    if len(dots) < 2:
        return None
    sigs = [_sig(o) for o in ops]
    by_sig: dict[tuple, list[int]] = {}
    for d in dots:
        by_sig.setdefault(sigs[d], []).append(d)
    # one copy per segment: the period is the distance from a dot to one of the next few equal dots
    # (a body may hold several equal dots: attention's two at equal tile sizes)
    periods = sorted({same[x + m] - same[x] for same in by_sig.values() for x in range(len(same))
                      for m in range(1, _EQUAL_DOTS + 1) if x + m < len(same)})
    for period in periods:
        k = 0
        limit = len(ops) - period
        while k < limit:
            if sigs[k] != sigs[k + period]:
                k += 1
                continue
            a = k
            while k < limit and sigs[k] == sigs[k + period]:
                k += 1
            # ops [a, k + period) repeat with this period: the chain holds every dot of the stretch
            inside = [d for d in dots if a <= d < k + period]
            if not inside:
                continue  # a stretch without a dot: not the pass's business
            for start in range(a, min(a + period, k)):
                count = (k + period - start) // period
                if count < 2:
                    break
                if inside[0] < start or inside[-1] >= start + count * period:
                    continue
                chain = Chain(block, ops, start, period, count)
                if _check(chain):
                    return chain
    return None


def find_chains(module: Operation) -> list[Chain]:
    """Every chain the pass would re-roll first in each block (analysis only; the module is unchanged)."""
    out = []
    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                chain = _candidates(block)
                if chain is not None:
                    out.append(chain)
    return out


REMARK = ("{n} unrolled copies of a loop body re-rolled into a loop for the tensor-core tier "
          "(tileas-reroll-unrolled-loops)")


def reroll(chain: Chain) -> scf.ForOp:
    """Replace ``chain``'s segments by the loop the module doc describes; returns it."""
    seg1 = chain.segment(1)
    flat1 = _flat(seg1)
    first = chain.segment(0)[0]
    typ = chain.iv_type
    bounds = [arith.ConstantOp(IntegerAttr(v, typ)) for v in (0, chain.count, 1)]
    body = Block(arg_types=[typ, *(flat1[x].results[r].type for x, r in chain.slots)])
    iv = body.args[0]
    exprs: dict[tuple, SSAValue] = {}

    def progression(c0: int, s: int, of: Attribute) -> SSAValue:
        """``c0 + s * iv`` (of type ``of``: a tile of it splat and broadcast as cuTile writes it)."""
        if (c0, s, of) not in exprs:
            value: SSAValue = iv
            new: list[Operation] = []
            if s != 1:
                new += [k := arith.ConstantOp(IntegerAttr(s, typ)), m := arith.MuliOp(iv, k.result)]
                value = m.result
            if c0 != 0:
                new += [c := arith.ConstantOp(IntegerAttr(c0, typ)), a := arith.AddiOp(value, c.result)]
                value = a.result
            if isinstance(of, TensorType):
                ones = TensorType(typ, [1] * len(of.get_shape()))
                new.append(splat := SplatOp(operands=[value], result_types=[ones]))
                value = splat.result
                if list(of.get_shape()) != [1] * len(of.get_shape()):
                    new.append(grown := BroadcastOp(operands=[value], result_types=[of]))
                    value = grown.result
            copy_location(first, new)
            body.add_ops(new)
            exprs[(c0, s, of)] = value
        return exprs[(c0, s, of)]

    for step in (*chain.const_steps.values(), *chain.operand_steps.values()):
        progression(*step)  # at the body's start, before the ops that read them
    mapper: dict[SSAValue, SSAValue] = {}
    seg0_flat = _flat(chain.segment(0))
    for (x, r), arg in zip(chain.slots, body.args[1:]):
        mapper[seg0_flat[x].results[r]] = arg
    cloned = [top.clone(value_mapper=mapper) for top in seg1]
    body.add_ops(cloned)
    flat_new = _flat(cloned)
    for (x, k), step in chain.operand_steps.items():
        flat_new[x].operands[k] = progression(*step)
    for x, step in chain.const_steps.items():
        const = flat_new[x]
        const.result.replace_all_uses_with(progression(*step))
        const.detach()
        const.erase()
    yielded = [flat_new[x].results[r] for x, r in chain.slots]
    iv.name_hint = None  # (a replaced constant's name moves to its replacement)
    body.add_op(scf.YieldOp(*yielded))
    loop = scf.ForOp(bounds[0].result, bounds[1].result, bounds[2].result, list(chain.inits), body)
    copy_location(first, [*bounds, loop])
    for o in (*bounds, loop):
        chain.block.insert_op_before(o, first)
    last = _flat(chain.segment(chain.count - 1))
    for (x, r), result in zip(chain.slots, loop.results):
        last[x].results[r].replace_all_uses_with(result)
    varying = {_flat(chain.segment(j))[x].operands[k].owner for j in range(chain.count) for x, k in chain.operand_steps}
    for top in reversed(chain.ops[chain.start:chain.start + chain.count * chain.period]):
        top.detach()
    for top in reversed(chain.ops[chain.start:chain.start + chain.count * chain.period]):
        top.erase(safe_erase=False)
    for const in varying:  # the copies' K indices, now unread
        if not const.result.uses:
            const.detach()
            const.erase()
    return loop


def reroll_unrolled_loops(module: Operation, remarks: list[str] | None = None) -> int:
    """Re-roll every chain (module doc) until none is left; the number re-rolled.  Each one's
    remark is appended to ``remarks`` when given."""
    count = 0
    while True:
        chains = find_chains(module)
        if not chains:
            return count
        if remarks is not None:
            remarks.append(format_error(chains[0].first_dot(), REMARK.format(n=chains[0].count), "remark"))
        reroll(chains[0])
        count += 1


class RerollUnrolledLoops(ModuleTransform):
    """Straight-line copies of a dot loop's body (``ct.static_iter``) become an ``scf.for`` (module doc)."""

    name = "tileas-reroll-unrolled-loops"
    transform = staticmethod(reroll_unrolled_loops)
    states_remarks = True


__all__ = ["REMARK", "Chain", "RerollUnrolledLoops", "find_chains", "reroll",
           "reroll_unrolled_loops"]
