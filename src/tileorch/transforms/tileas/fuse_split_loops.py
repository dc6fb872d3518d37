"""``tileas-fuse-split-loops``: two loops that one source loop was split into become one loop
with a branch again.

cuTile splits a loop whose body branches on ``j >= X`` (a loop-invariant X) into two loops over
consecutive ranges — the FlashAttention samples' ``if (CAUSAL or not EVEN_K) and j >= mask_start:
mask`` becomes a loop without the mask followed by a loop with it::

    %r1 = scf.for %j = %a to minsi(%n, %X) iter_args(%init)   { B1 }
    %r2 = scf.for %j = maxsi(%a, %X) to %n iter_args(%r1)     { B2 = B1 plus pure ops }

The tier's schedule (one TMA producer, one consumer loop) wants one loop.  When ``B2`` is ``B1``
with extra side-effect-free ops whose results take the place of some ``B1`` values ``v`` (the
masked scores instead of the raw ones), the pair becomes::

    %r2 = scf.for %j = %a to %n iter_args(%init) {
      B1, where each replaced v is  scf.if (%j >= maxsi(%a, %X)) { extra ops; yield w } else { yield v }
    }

over the same iterations in the same order (``[a, min(n, X))`` then ``[max(a, X), n)`` is
``[a, n)`` split at ``max(a, X)``, empty pieces included).  The same pair written by hand,
``range(a, X)`` then ``range(X, n)`` (FlashAttention-2's causal loops: the key tiles below the
diagonal, then the masked diagonal ones), is fused over ``[min(a, X), max(X, n))`` with the branch
at X; the side-effect-free ops between the two loops (the second loop's views, ranges and bounds)
move before the first, and repeated ones are merged, so that the bodies can match.  Two dot loops
left after this are a located error (the tier's kernels run one dot loop; the driver then takes the
SIMT path with the error as a warning).  Pairs of any other shape are left
alone.  Only loops holding a dot are fused (the tier's consumer loops); ``B1``'s ops must all
reappear in ``B2`` in order (a body with ops only the first loop has is left alone).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from tileorch.diagnostics import copy_location
from tileorch.transforms.pass_kinds import ModuleTransform

_IMPURE = ("load", "store", "atomic", "print", "assert", "dot", "token", "barrier", "scf.", "call")


def _defined_before(v: SSAValue, op: Operation) -> bool:
    """``v`` dominates ``op``: a block argument of a block enclosing ``op``, or the result of an op
    that comes before ``op`` (or before the op enclosing it) in an enclosing block."""
    owner = v.owner
    cur: Operation | None = op
    while cur is not None:
        block = cur.parent_block()
        if block is None:
            return False
        if owner is block:
            return True
        if isinstance(owner, Operation) and owner.parent_block() is block:
            return block.get_operation_index(owner) < block.get_operation_index(cur)
        cur = block.parent_op()
    return False


def _const_one(v: SSAValue) -> bool:
    o = v.owner
    return isinstance(o, arith.ConstantOp) and isinstance(o.value, IntegerAttr) and o.value.value.data == 1


def _other(minmax: Operation, kind: type, known: SSAValue) -> SSAValue | None:
    """The operand of ``minmax`` (an ``arith`` ``kind`` op) other than ``known``."""
    if not isinstance(minmax, kind):
        return None
    a, b = minmax.operands
    return b if a is known else a if b is known else None


def _same_scalar(x: SSAValue, y: SSAValue) -> bool:
    """``x`` and ``y`` are one value: the same SSA value, or the same pure op (casts, arithmetic,
    constants) of the same operands, compared recursively (cuTile may emit a bound twice)."""
    if x is y:
        return True
    ox, oy = x.owner, y.owner
    if not (isinstance(ox, Operation) and isinstance(oy, Operation)) or ox.regions or oy.regions:
        return False
    if ox.name != oy.name or not _pure(ox) or x.type != y.type or len(ox.results) != 1:
        return False
    if ox.properties != oy.properties or ox.attributes != oy.attributes or len(ox.operands) != len(oy.operands):
        return False
    return all(_same_scalar(a, b) for a, b in zip(ox.operands, oy.operands))


def split_point(l1: scf.ForOp, l2: scf.ForOp) -> tuple[SSAValue, SSAValue | None, SSAValue | None] | None:
    """``(split, lb, ub)`` when ``l1``, ``l2`` are the halves of one loop split at ``split`` (the
    second loop's first iteration); ``lb`` / ``ub``: the fused loop's bounds, None where they are
    ``l1``'s lower and ``l2``'s upper bound.  Two forms (step 1):

    * cuTile's split (see the module doc): ``[a, min(n, X))`` then ``[max(a, X), n)``: ``split`` is
      ``max(a, X)``, the range ``[a, n)``;
    * written by hand, ``range(a, X)`` then ``range(X, n)`` (FlashAttention-2's causal loops: the
      key tiles below the diagonal, then the diagonal ones): ``split`` is X and the range
      ``[min(a, X), max(X, n))`` (the union of the two ranges whatever the order of a, X and n: for
      X < a the first is empty and the second starts at X; for n < X the second is empty)."""
    if l2.operands[3:] != tuple(l1.results) or len(l1.results) != len(l2.results):
        return None
    if not (l1.step is l2.step or (_const_one(l1.step) and _const_one(l2.step))):
        return None
    if not _const_one(l1.step):
        return None  # at step 1 the two ranges meet exactly at max(a, X)
    a, n = l1.lb, l2.ub
    x = _other(l1.ub.owner, arith.MinSIOp, n) if isinstance(l1.ub.owner, Operation) else None
    lb2 = l2.lb
    if x is not None and isinstance(lb2.owner, arith.MaxSIOp) and {id(o) for o in lb2.owner.operands} == {id(a), id(x)}:
        return (lb2, None, None) if _defined_before(lb2, l1) else None
    if _same_scalar(l1.ub, lb2) and _defined_before(l1.ub, l1) and _defined_before(n, l1):
        return l1.ub, a, n  # the bounds min(a, X) / max(X, n) are made by fuse()
    return None


@dataclass
class Match:
    """How ``B2``'s ops relate to ``B1``'s: ``context`` maps each matched ``B2`` value to its
    ``B1`` twin; ``extra`` are ``B2``'s own ops; ``subst`` maps an extra value ``w`` to the ``B1``
    value ``v`` it stands in for."""

    context: dict
    extra: list[Operation]
    subst: dict


def _pure(op: Operation) -> bool:
    return not any(w in op.name for w in _IMPURE)


def match_bodies(b1: Block, b2: Block) -> Match | None:
    ctx: dict = {b2: b1}
    for x, y in zip(b2.args, b1.args):
        if x.type != y.type:
            return None
        ctx[x] = y
    ops1 = list(b1.ops)
    extra: list[Operation] = []
    extra_values: set = set()
    subst: dict = {}
    i = 0

    def same(op2: Operation, op1: Operation) -> bool:
        if [r.type for r in op2.results] != [r.type for r in op1.results]:
            return False
        trial = dict(ctx)
        return op2.is_structurally_equivalent(op1, trial) and (ctx.update(trial) or True)

    for op2 in b2.ops:
        if op2 is b2.last_op:
            break
        if i < len(ops1) - 1 and same(op2, ops1[i]):
            i += 1
            continue
        # an op of B1 whose operands are B2's extra values in place of B1's
        if i < len(ops1) - 1:
            op1 = ops1[i]
            swaps = {o2: o1 for o2, o1 in zip(op2.operands, op1.operands)
                     if o2 in extra_values and o1.type == o2.type and (o2 not in subst or subst[o2] is o1)}
            if swaps:
                saved = dict(ctx)
                ctx.update(swaps)
                if same(op2, op1):
                    subst.update(swaps)
                    i += 1
                    continue
                ctx.clear()
                ctx.update(saved)
        if not _pure(op2):
            return None
        extra.append(op2)
        extra_values.update(op2.results)
    if i != len(ops1) - 1:
        return None
    y1, y2 = b1.last_op, b2.last_op
    for o2, o1 in zip(y2.operands, y1.operands):
        if ctx.get(o2, o2) is not o1 and subst.get(o2) is not o1:
            return None
    if len(y1.operands) != len(y2.operands) or not subst:
        return None
    return Match(ctx, extra, subst)


def fuse(l1: scf.ForOp, l2: scf.ForOp, lb2: SSAValue, m: Match, bounds: tuple = (None, None)) -> scf.ForOp:
    """The fused loop (not inserted): ``lb2`` the split point, ``bounds`` its ``(lb, ub)`` (None:
    ``l1``'s lower and ``l2``'s upper bound)."""
    b1, b2 = l1.body.block, l2.body.block
    body = Block(arg_types=[a.type for a in b1.args])
    vmap: dict = dict(zip(b1.args, body.args))  # B1 value -> merged value
    cond = arith.CmpiOp(body.args[0], lb2, "sge")
    body.add_op(cond)
    merged_w: dict = {}  # extra value w -> the merged scf.if result standing for it
    extra_set = set(m.extra)

    def b2_to_merged(v: SSAValue, local: dict) -> SSAValue:
        if v in local:
            return local[v]
        if v in m.context:
            t = m.context[v]
            return vmap.get(t, t)
        return v

    def emit_if(w: SSAValue) -> SSAValue:
        chain: list[Operation] = []
        seen: set = set()
        stack = [w.owner]
        while stack:
            o = stack.pop()
            if o in seen or o not in extra_set:
                continue
            seen.add(o)
            chain.append(o)
            for sub in o.walk():
                stack.extend(x.owner for x in sub.operands if isinstance(x.owner, Operation))
        then = Block()
        local: dict = {}
        for o in [x for x in m.extra if x in seen]:  # B2 order
            new = o.clone(value_mapper={x: b2_to_merged(x, local) for x in _free_operands(o)})
            then.add_op(new)
            local.update(zip(o.results, new.results))
        then.add_op(scf.YieldOp(local[w]))
        other = Block()
        v = m.subst[w]
        other.add_op(scf.YieldOp(vmap.get(v, v)))
        op = scf.IfOp(cond.result, [w.type], Region(then), Region(other))
        body.add_op(op)
        return op.results[0]

    inv = {}  # B1 op -> B2 op
    for o2 in b2.ops:
        if o2.results and o2.results[0] in m.context and isinstance(m.context[o2.results[0]], SSAValue):
            t = m.context[o2.results[0]].owner
            inv[t] = o2
    for o1 in b1.ops:
        o2 = inv.get(o1)
        if o2 is not None:
            for x in o2.operands:
                if x in m.subst and x not in merged_w:
                    merged_w[x] = emit_if(x)
            mapper = {}
            for x1, x2 in zip(o1.operands, o2.operands):
                mapper[x1] = merged_w[x2] if x2 in m.subst else vmap.get(x1, x1)
            for x in _free_operands(o1):
                mapper.setdefault(x, vmap.get(x, x))
        else:
            mapper = {x: vmap.get(x, x) for x in _free_operands(o1)}
        if o1 is b1.last_op:
            y2 = b2.last_op
            for x2 in y2.operands:
                if x2 in m.subst and x2 not in merged_w:
                    merged_w[x2] = emit_if(x2)
            vals = [merged_w[x2] if x2 in m.subst else vmap.get(x1, x1) for x1, x2 in zip(o1.operands, y2.operands)]
            body.add_op(scf.YieldOp(*vals))
            break
        new = o1.clone(value_mapper=mapper)
        body.add_op(new)
        vmap.update(zip(o1.results, new.results))
    lb, ub = bounds
    return scf.ForOp(l1.lb if lb is None else lb, l2.ub if ub is None else ub, l1.step, list(l1.operands[3:]), body)


def _free_operands(op: Operation) -> list[SSAValue]:
    """Operands of ``op`` and of the ops nested in it that are defined outside ``op``."""
    inner = {r for o in op.walk() for r in o.results} | {a for o in op.walk() for reg in o.regions
                                                         for b in reg.blocks for a in b.args}
    return [x for o in op.walk() for x in o.operands if x not in inner]


def _equivalent(x: Operation, y: Operation) -> bool:
    """Two region-free ops computing the same values: same name, operands, types and attributes."""
    return (x.name == y.name and not x.regions and not y.regions and tuple(x.operands) == tuple(y.operands)
            and [r.type for r in x.results] == [r.type for r in y.results] and x.properties == y.properties
            and x.attributes == y.attributes)


def hoist_between(l1: scf.ForOp) -> scf.ForOp | None:
    """The dot loop after ``l1`` in its block when only side-effect-free, region-free ops that do
    not read ``l1``'s results stand between them (a hand-written second loop's views, ranges and
    bounds): those ops move before ``l1``, and every side-effect-free op before ``l1`` that repeats
    an earlier one (same name, operands, attributes) is replaced by it, so that the two bodies read
    the same values; else None, nothing moved."""
    between: list[Operation] = []
    op = l1.next_op
    while op is not None and not isinstance(op, scf.ForOp):
        if op.regions or not _pure(op) or any(_defined_in(x, l1) for x in op.operands):
            return None
        between.append(op)
        op = op.next_op
    if op is None or not any(o.name.endswith(".dot") for o in op.walk()):
        return None
    block = l1.parent_block()
    for o in between:
        o.detach()
        block.insert_op_before(o, l1)
    # cuTile emits a constant (and a view, a splat) where each use is: the two bodies read twins
    kept: list[Operation] = []
    for o in list(block.ops):
        if o is l1:
            break
        twin = next((e for e in kept if _equivalent(e, o)), None) if not o.regions and _pure(o) else None
        if twin is not None:
            for old, r in zip(o.results, twin.results):
                old.replace_all_uses_with(r)
            o.detach()
            o.erase()
        else:
            kept.append(o)
    return op


def _defined_in(v: SSAValue, loop: Operation) -> bool:
    return v in loop.results


def fuse_split_loops(module: Operation) -> int:
    """Fuse every such pair of dot loops; returns how many."""
    count = 0
    changed = True
    while changed:
        changed = False
        for l1 in list(module.walk()):
            if not isinstance(l1, scf.ForOp) or not any(o.name.endswith(".dot") for o in l1.walk()):
                continue
            if not isinstance(l1.next_op, scf.ForOp) and hoist_between(l1) is None:
                continue
            l2 = l1.next_op
            split = split_point(l1, l2)
            m = match_bodies(l1.body.block, l2.body.block) if split is not None else None
            if m is None:
                continue
            lb2, a, n = split
            bounds_ops: list[Operation] = []
            if a is not None:  # range(a, X) then range(X, n): the fused loop runs [min(a, X), max(X, n))
                bounds_ops = [arith.MinSIOp(a, lb2), arith.MaxSIOp(lb2, n)]
            new = fuse(l1, l2, lb2, m, tuple(o.results[0] for o in bounds_ops) if bounds_ops else (None, None))
            copy_location(l1, [*bounds_ops, new])
            block = l1.parent_block()
            for o in bounds_ops:
                block.insert_op_before(o, l1)
            block.insert_op_before(new, l1)
            for old, r in zip(l2.results, new.results):
                old.replace_all_uses_with(r)
            l2.detach()
            l2.erase()
            l1.detach()
            l1.erase()
            count += 1
            changed = True
            break
    return count


def innermost_dot_loops(module: Operation) -> list[scf.ForOp]:
    """The ``scf.for`` loops holding a dot and no inner loop that holds one, in program order."""
    loops = [o for o in module.walk() if isinstance(o, scf.ForOp) and any(x.name.endswith(".dot") for x in o.walk())]
    return [lp for lp in loops if not any(o is not lp and o in loops for o in lp.walk())]


def check_one_dot_loop(module: Operation) -> None:
    """A located error at the second of two dot loops of a function left after fusion: the tier's
    kernels run the dots of one loop (its schedule: one TMA producer loop, one consumer loop)."""
    for func in (module.ops if isinstance(module, ModuleOp) else [module]):
        _check_function(func)


def _check_function(func: Operation) -> None:
    from tileorch.diagnostics import LocatedError

    loops = innermost_dot_loops(func)
    if len(loops) > 1:
        raise LocatedError(loops[1], f"{len(loops)} loops with dots one after another: the tensor-core kernels run "
                                     "the dots of one loop (two loops over consecutive ranges, range(a, X) then "
                                     "range(X, n) with bodies that differ only by side-effect-free ops such as a "
                                     "mask, are fused into one; these are not: write one loop, the mask under "
                                     "ct.where on the tile index)")


def _fuse_and_check(module: Operation) -> int:
    count = fuse_split_loops(module)
    check_one_dot_loop(module)
    return count


@dataclass(frozen=True)
class FuseSplitLoops(ModuleTransform):
    """Two dot loops over the halves of one range (cuTile's split of a ``j >= X`` branch) become
    one loop with the branch (see the module doc)."""

    name = "tileas-fuse-split-loops"
    transform = staticmethod(_fuse_and_check)
