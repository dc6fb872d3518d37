"""The loop-pair fusion of ``tileas-fuse-split-loops`` (the module doc of
:mod:`~tileorch.transforms.tileas.fuse_split_loops` states what it fuses and when): the split
point of two consecutive dot loops (:func:`split_point`), their bodies matched
(:func:`match_bodies`) and fused (:func:`fuse`, :func:`fuse_pure_differences`), a last step
written out after a loop taken as a second loop (:func:`wrap_peeled_step`), and the
side-effect-free ops between two loops moved before the first (:func:`hoist_between`).  Shared
by that pass and :mod:`~tileorch.transforms.tileas.peeled_first_step`; it rewrites only the
loops it is given."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, Region, SSAValue

from tileorch.diagnostics import copy_location

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


def _same_scalar(x: SSAValue, y: SSAValue, leaf=None) -> bool:
    """``x`` and ``y`` are one value: the same SSA value, or the same pure op (casts, arithmetic,
    constants) of the same operands, compared recursively (cuTile may emit a bound twice); ``leaf(x, y)``:
    values other than one SSA value that count as the same (e.g. the same extent of two arrays)."""
    if x is y or (leaf is not None and leaf(x, y)):
        return True
    ox, oy = x.owner, y.owner
    if not (isinstance(ox, Operation) and isinstance(oy, Operation)) or ox.regions or oy.regions:
        return False
    if ox.name != oy.name or not _pure(ox) or x.type != y.type or len(ox.results) != 1:
        return False
    if ox.properties != oy.properties or ox.attributes != oy.attributes or len(ox.operands) != len(oy.operands):
        return False
    return all(_same_scalar(a, b, leaf) for a, b in zip(ox.operands, oy.operands))


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


# --- bodies that share their side effects and differ in their pure ops ------------------------------


def _local_pure(v: SSAValue, block: Block) -> bool:
    o = v.owner
    return isinstance(o, Operation) and o.parent_block() is block and _pure(o)


def _closure(values, block: Block, taken: set) -> list[Operation]:
    """The pure ops of ``block`` (not in ``taken``) that compute ``values``, in block order."""
    seen: set = set()
    stack = [v.owner for v in values if _local_pure(v, block)]
    while stack:
        o = stack.pop()
        if o in seen or o in taken:
            continue
        seen.add(o)
        stack.extend(x.owner for x in _free_operands(o) if _local_pure(x, block))
    return [o for o in block.ops if o in seen]


def _merged_properties(o1: Operation, o2: Operation) -> dict | None:
    """The properties of one op standing for ``o1`` and ``o2``: theirs when equal; for two loads one
    of which pads out-of-bounds elements and the other leaves them undetermined, the padding one
    (the same elements in bounds; a refinement of the undetermined ones); else None."""
    if o1.properties == o2.properties:
        return dict(o1.properties)
    p1, p2 = dict(o1.properties), dict(o2.properties)
    pad1, pad2 = p1.pop("padding_value", None), p2.pop("padding_value", None)
    if "load" not in o1.name or p1 != p2 or (pad1 is not None and pad2 is not None):
        return None
    return {**p1, "padding_value": pad1 if pad1 is not None else pad2}


def _placeholder(t) -> Operation:
    """A constant of type ``t`` (zero) that a branch yields for a slot its own body never reads (a
    value only the other body reads later); :class:`_NoFuse` for a type without one."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, TensorType

    if isinstance(t, TensorType):
        n = 1
        for d in t.get_shape():
            n *= d
        zero = 0 if isinstance(t.element_type, IntegerType) else 0.0
        return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [zero] * n))
    if isinstance(t, IntegerType):
        return arith.ConstantOp(IntegerAttr(0, t))
    try:
        return arith.ConstantOp(FloatAttr(0.0, t))
    except Exception:  # noqa: BLE001 - a type without a constant
        raise _NoFuse from None


class _NoFuse(Exception):
    """The bodies do not fuse after all (found while building the fused body)."""


def fuse_pure_differences(l1: scf.ForOp, l2: scf.ForOp, lb2: SSAValue, bounds: tuple = (None, None)
                          ) -> scf.ForOp | None:
    """:func:`_fuse_pure_differences`; None, and nothing left reading the module's values, when the
    bodies do not fuse."""
    built: list[Block] = []
    try:
        return _fuse_pure_differences(l1, l2, lb2, bounds, built)
    except _NoFuse:
        for blk in built:  # the partly built body: its ops read the loops' outside values
            for op in list(blk.walk()):
                op.drop_all_references()
        return None


def _fuse_pure_differences(l1: scf.ForOp, l2: scf.ForOp, lb2: SSAValue, bounds: tuple, built: list
                           ) -> scf.ForOp | None:
    """The fused loop (not inserted) for two bodies whose side-effecting ops (loads, dots, stores)
    are the same ops in the same order, reading the same values where they read a block argument,
    each other's results or a value from outside, and differing in the pure ops between them (the
    Triton tutorial's two stages of causal attention: the scale applied after the max in one, a
    mask added before it in the other).  Each stretch of pure ops before a side effect (and before
    the yield) becomes one ``scf.if (j >= split)`` whose branches compute ``B2``'s and ``B1``'s ops and
    yield, slot by slot, the operands that side effect reads and the values a later stretch reads
    (a slot carries a ``B2`` value in the then branch and a ``B1`` value of the same type in the else
    branch: a body's later ops read only their own body's slots, and both branches of every ``if``
    in one iteration take the same side).  A pure value both bodies compute alike (a tile index, a
    reshaped tile) is computed once, outside the branches.  None (nothing built) when the side
    effects do not pair up, a side effect has regions, or the later values' types do not pair up."""
    b1, b2 = l1.body.block, l2.body.block
    if any(o.regions and not _pure(o) for b in (b1, b2) for o in b.ops):
        return None
    imp1 = [o for o in b1.ops if not _pure(o) and o is not b1.last_op]
    imp2 = [o for o in b2.ops if not _pure(o) and o is not b2.last_op]
    if len(imp1) != len(imp2) or len(b1.last_op.operands) != len(b2.last_op.operands):
        return None
    pair: dict = dict(zip(b2.args, b1.args))  # B2 value -> its B1 twin (block args, side-effect results)
    for x, y in zip(b1.args, b2.args):
        if x.type != y.type:
            return None
    props: dict = {}  # side effect of B1 -> the properties of the fused one
    for o1, o2 in zip(imp1, imp2):
        merged = _merged_properties(o1, o2)
        if (o1.name != o2.name or merged is None or o1.attributes != o2.attributes
                or [r.type for r in o1.results] != [r.type for r in o2.results]
                or len(o1.operands) != len(o2.operands)):
            return None
        props[o1] = merged
        pair.update(zip(o2.results, o1.results))
    steps = [(o1, o2) for o1, o2 in zip(imp1, imp2)] + [(b1.last_op, b2.last_op)]
    for o1, o2 in steps:
        for x1, x2 in zip(o1.operands, o2.operands):
            if x1.type != x2.type:
                return None
            if (not _local_pure(x1, b1) and not _local_pure(x2, b2) and pair.get(x2, x2) is not x1
                    and not _same_scalar(x1, x2)):
                return None

    body = Block(arg_types=[a.type for a in b1.args])
    built.append(body)
    cond = arith.CmpiOp(body.args[0], lb2, "sge")
    body.add_op(cond)
    m1: dict = dict(zip(b1.args, body.args))  # B1 value -> fused value
    m2: dict = dict(zip(b2.args, body.args))
    built: list[Operation] = [cond]

    def shared(x1: SSAValue, x2: SSAValue) -> bool:
        """x1 and x2 are computed alike from values both bodies share."""
        if x1 in m1 and x2 in m2:
            return m1[x1] is m2[x2]
        if not _local_pure(x1, b1):
            return pair.get(x2, x2) is x1 or (x1 in m1 and m1[x1] is m2.get(x2))
        if not _local_pure(x2, b2):
            return False
        a, b = x1.owner, x2.owner
        if a.regions or b.regions:  # (a reduction's combiner: not compared here)
            return False
        if (a.name != b.name or a.properties != b.properties or a.attributes != b.attributes
                or [r.type for r in a.results] != [r.type for r in b.results] or len(a.operands) != len(b.operands)
                or list(a.results).index(x1) != list(b.results).index(x2)):
            return False
        return all(shared(p, q) for p, q in zip(a.operands, b.operands))

    def emit_shared(x1: SSAValue, x2: SSAValue) -> SSAValue:
        if x1 in m1:
            return m1[x1]
        if not _local_pure(x1, b1):
            return x1  # from outside the loop
        a, b = x1.owner, x2.owner
        operands = [emit_shared(p, q) for p, q in zip(a.operands, b.operands)]
        new = a.clone(value_mapper=dict(zip(a.operands, operands)))
        body.add_op(new)
        m1.update(zip(a.results, new.results))
        m2.update(zip(b.results, new.results))
        return m1[x1]

    done1: set = set()
    done2: set = set()
    for o1, o2 in steps:
        wants, at = [], {}  # at: operand position -> its branch slot
        for i, (x1, x2) in enumerate(zip(o1.operands, o2.operands)):
            if not _local_pure(x1, b1) and not _local_pure(x2, b2) or x1 in m1 and x2 in m2 and m1[x1] is m2[x2]:
                continue
            if shared(x1, x2):
                emit_shared(x1, x2)
            else:
                at[i] = len(wants)
                wants.append((x1, x2))
        if wants and o1 is not b1.last_op and not o1.name.endswith(".dot"):
            raise _NoFuse  # a load or store reading a value of one stage: left as two loops (the producer
            # agent replays the loads' index computations, not a branch)
        if wants:
            seg1 = _closure([w[0] for w in wants], b1, done1 | {o for o in b1.ops if o.results and o.results[0] in m1})
            seg2 = _closure([w[1] for w in wants], b2, done2 | {o for o in b2.ops if o.results and o.results[0] in m2})
            done1.update(seg1)
            done2.update(seg2)
            slots1 = [w[0] for w in wants]
            slots2 = [w[1] for w in wants]
            later1 = [r for o in seg1 for r in o.results
                      if r not in slots1 and any(u.operation not in seg1 and u.operation is not o1 for u in r.uses)]
            later2 = [r for o in seg2 for r in o.results
                      if r not in slots2 and any(u.operation not in seg2 and u.operation is not o2 for u in r.uses)]
            fill1: list[Operation] = []  # placeholders of the branch whose body has no such later value
            fill2: list[Operation] = []
            for r in later1:  # pair each later-read value with one of the other body's, by type
                twin = next((s for s in later2 if s.type == r.type), None)
                if twin is None:  # B2 has none of this type: its branch yields a placeholder (never read)
                    fill2.append(_placeholder(r.type))
                    twin = fill2[-1].results[0]
                else:
                    later2.remove(twin)
                slots1.append(r)
                slots2.append(twin)
            for r in later2:  # read later by B2's ops only: B1's branch yields a placeholder (never read)
                fill1.append(_placeholder(r.type))
                slots1.append(fill1[-1].results[0])
                slots2.append(r)

            def branch(seg, mapping, slots, fill):
                blk, local = Block(), dict(mapping)
                for o in fill:
                    blk.add_op(o)
                for o in seg:
                    new = o.clone(value_mapper={x: local.get(x, x) for x in _free_operands(o)})
                    blk.add_op(new)
                    local.update(zip(o.results, new.results))
                blk.add_op(scf.YieldOp(*[local.get(s, s) for s in slots]))
                return blk

            br = scf.IfOp(cond.result, [s.type for s in slots1], Region(branch(seg2, m2, slots2, fill2)),
                          Region(branch(seg1, m1, slots1, fill1)))
            body.add_op(br)
            # (a slot of a value the body does not compute, a block argument passed through on one
            # side, is read by position below: that value keeps its own mapping elsewhere)
            m1.update((x, r) for x, r in zip(slots1, br.results) if _local_pure(x, b1))
            m2.update((x, r) for x, r in zip(slots2, br.results) if _local_pure(x, b2))
            slot_at = {i: br.results[k] for i, k in at.items()}
        else:
            slot_at = {}
        operands = [slot_at.get(i, m1.get(x, x)) for i, x in enumerate(o1.operands)]
        if o1 is b1.last_op:
            body.add_op(scf.YieldOp(*operands))
            break
        new = o1.clone(value_mapper={x: m1.get(x, x) for x in o1.operands})
        new.operands = operands
        new.properties = dict(props[o1])
        body.add_op(new)
        m1.update(zip(o1.results, new.results))
        m2.update(zip(o2.results, new.results))
    lb, ub = bounds
    return scf.ForOp(l1.lb if lb is None else lb, l2.ub if ub is None else ub, l1.step, list(l1.operands[3:]), body)


# --- a last step peeled after the loop -------------------------------------------------------------


def _twin(y: SSAValue, v: SSAValue, pairs: dict, body: Block, step: set) -> bool:
    """``v`` (a value of the step after the loop) plays the part of the loop body's yielded ``y``:
    the same op (name, attributes, result types, result index) reading, where ``y``'s op reads an
    iteration argument or the induction variable, the loop's result or upper bound ``pairs`` gives,
    a value from outside the loop where it does, and any value of the body / of the step where it
    reads one (the step's own mask may sit between: the updated max, normaliser and accumulator of
    attention's last key tile are found by the op that makes them and the state it reads)."""
    a, b = y.owner, v.owner
    if not isinstance(a, Operation) or not isinstance(b, Operation) or a.regions or b.regions:
        return False
    if (a.name != b.name or a.properties != b.properties or a.attributes != b.attributes
            or [r.type for r in a.results] != [r.type for r in b.results] or len(a.operands) != len(b.operands)
            or list(a.results).index(y) != list(b.results).index(v)):
        return False
    for p, q in zip(a.operands, b.operands):
        if p in pairs:
            if pairs[p] is not q:
                return False
        elif isinstance(p.owner, Operation) and p.owner.parent_block() is body:
            if not (isinstance(q.owner, Operation) and q.owner in step):
                return False
        elif not (p is q or _same_scalar(p, q)):
            return False
    return True


@dataclass
class PeeledStep:
    """A peeled last step as a one-trip loop (:func:`wrap_peeled_step`): ``loop`` is built, its
    bounds inserted before the first loop; :meth:`commit` puts it in place of the step's ops,
    :meth:`abort` takes the bounds out again."""

    first: scf.ForOp
    loop: scf.ForOp
    bounds: list
    step: list
    dependent: list
    twins: list

    def commit(self) -> None:
        block, dep = self.first.parent_block(), set(self.dependent)
        for o in self.step:
            if o not in dep:  # views and constants the step made: before the loops
                o.detach()
                block.insert_op_before(o, self.bounds[0])
        block.insert_op_after(self.loop, self.first)
        for t, r in zip(self.twins, self.loop.results):
            if t is not None:
                t.replace_uses_with_if(r, lambda u: u.operation not in dep)
        for o in reversed(self.dependent):
            o.detach()
            o.erase(safe_erase=False)

    def abort(self) -> None:
        self.loop.erase(safe_erase=False)
        for o in reversed(self.bounds):
            o.detach()
            o.erase()


def wrap_peeled_step(l1: scf.ForOp) -> PeeledStep | None:
    """A dot loop ``for j in range(a, X)`` followed by one more step written out after it (the ragged
    last key tile of attention, masked there): the ops after the loop up to the last of the loop
    body's side effects repeated in the same order, with ``X`` where the body reads ``j``, as a loop
    ``for j in range(X, X + 1)`` carrying the first loop's results (built, not yet in place: see
    :class:`PeeledStep`), so that :func:`fuse_pure_differences` can fuse the pair.  Its yield: for
    each of the first loop's results the step's value computed like the body's (:func:`_twin`), else
    the result unchanged.  None (nothing changed) when the ops after the loop are not such a step,
    the first loop's results are read elsewhere, or a value of the step other than those twins is
    read after it."""
    block, b1 = l1.parent_block(), l1.body.block
    if block is None or not _const_one(l1.step) or not isinstance(l1.ub.type, IntegerType):
        return None
    imp = [o for o in b1.ops if not _pure(o) and o is not b1.last_op]
    if not imp:
        return None
    step: list[Operation] = []
    k = 0
    op = l1.next_op
    while op is not None and k < len(imp):
        if not _pure(op):
            if op.name != imp[k].name or op.regions:
                return None
            k += 1
        step.append(op)
        op = op.next_op
    if k < len(imp):
        return None
    inside = set(step)
    if any(u.operation not in inside for r in l1.results for u in r.uses):
        return None
    # the step's ops that do not read the loop (views, constants) stay outside the new loop
    reads: set = set(l1.results) | {l1.ub}
    dependent: list[Operation] = []
    for o in step:
        if any(x in reads for x in _free_operands(o)) or not _pure(o):
            dependent.append(o)
            reads.update(o.results)
    dep = set(dependent)
    pairs = {b1.args[0]: l1.ub, **dict(zip(b1.args[1:], l1.results))}
    step_imp = [o for o in dependent if not _pure(o)]
    twins = []
    for y in b1.last_op.operands:
        if isinstance(y.owner, Operation) and y.owner in imp:  # a side effect's result: the step's at that place
            twin = step_imp[imp.index(y.owner)].results[list(y.owner.results).index(y)]
        else:
            found = [r for o in dependent if _pure(o) for r in o.results if _twin(y, r, pairs, b1, dep)]
            twin = found[0] if len(found) == 1 else None  # (none, or not one: the result left unchanged)
        twins.append(twin)
    for o in dependent:  # what is read after the step must be a twin
        for r in o.results:
            if any(u.operation not in dep for u in r.uses) and r not in twins:
                return None
    one = arith.ConstantOp(IntegerAttr(1, l1.ub.type))
    end = arith.AddiOp(l1.ub, one.result)
    body = Block(arg_types=[a.type for a in b1.args])
    vmap = {l1.ub: body.args[0], **dict(zip(l1.results, body.args[1:]))}
    for o in dependent:
        new = o.clone(value_mapper={x: vmap.get(x, x) for x in _free_operands(o)})
        body.add_op(new)
        vmap.update(zip(o.results, new.results))
    body.add_op(scf.YieldOp(*[vmap[t] if t is not None else a for t, a in zip(twins, body.args[1:])]))
    loop = scf.ForOp(l1.ub, end.result, l1.step, list(l1.results), body)
    copy_location(l1, [one, end, loop])
    block.insert_op_before(one, l1)
    block.insert_op_before(end, l1)
    return PeeledStep(l1, loop, [one, end], step, dependent, twins)


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
    merge_repeats(block, l1, results_only=False)
    return op


def merge_repeats(block: Block, stop: Operation, results_only: bool = True) -> None:
    """Merge each side-effect-free, region-free op of ``block`` before ``stop`` that repeats an
    earlier one (same name, operands, types, attributes: :func:`_equivalent`) into it, in block
    order, so that chains of repeats merge; ``results_only``: ops without results are kept."""
    reps: dict[str, list[Operation]] = {}
    op = block.first_op
    while op is not None and op is not stop:
        nxt = op.next_op
        if _pure(op) and not op.regions and (op.results or not results_only):
            same = next((r for r in reps.get(op.name, []) if _equivalent(r, op)), None)
            if same is not None:
                for old, new in zip(op.results, same.results):
                    old.replace_all_uses_with(new)
                op.detach()
                op.erase()
            else:
                reps.setdefault(op.name, []).append(op)
        op = nxt


def _defined_in(v: SSAValue, loop: Operation) -> bool:
    return v in loop.results
