"""``tileas-while-to-for``: a ``while`` loop that counts (``j = lo; while j < n: ...; j += s``) becomes
the ``scf.for`` it spells, so the tier pipelines its dots.

cuTile exports ``while cond: body`` as a ``cuda_tile.loop`` whose body tests ``cond`` and breaks;
``convert-cudatile-to-tileaa`` turns it into::

    %r:(T, R) = scf.while (%it = %init) {
      (side-effect-free ops)
      %c = arith.cmpi slt, X, %ub
      %f, %t:T, %x:R = scf.if %c {  body ...; scf.yield true, %next:T, (anything):R }
                         else    {  scf.yield false, %it:T, %out:R }
      (or, for ``while True: if j >= n: break; body``, the branches the other way round on the
      negated test: ``cmpi sge`` / ``sgt``, the break in the then-region)
      scf.condition(%f) %t, %x
    } do { ^bb(%a:T, %b:R): scf.yield %a }

Matched (nothing attention-specific; anything else is left as written): one carried value ``%i``
is the counter: the then-branch yields ``addi(%i, s)`` for it with ``s`` a positive integer
constant, and the condition is ``X < %ub`` (``slt``) or ``X <= %ub`` (``sle``) with ``X`` being
``%i`` or ``%i * c`` (``%i`` read directly or through ``nv_tileaa.assume``: cuTile states the
divisibility of a counter stepped by a constant) (``c`` a positive integer constant; ``%i * c < ub`` iff ``%i < ceil(ub / c)``);
``%ub`` is defined outside the loop or computed in the before-region by side-effect-free ops from
values defined outside it (those ops are hoisted before the loop); the other before-region ops are
side-effect-free (cloned into the body, where the then-branch may read them); the else-branch's
values for the loop's results that are read are carried values other than the counter or values
defined outside the loop; the do-region yields its first block arguments in order.

The result: ``scf.for %i = %init_i to %ub' step s iter_args(the other carried values)`` whose body
is the before-region's ops and the then-branch's ops, yielding the then-branch's next values.  The
loop runs the same iterations on the same values (``%i`` takes the same sequence and the test is
the same), so the meaning is the program's whether or not the tier then takes the kernel; the
compile driver runs the tier on a module whose SIMT fallback is cloned beforehand (that path keeps
the ``while``).  :func:`while_to_for_remarks` states, per loop with a dot, the remark the driver
prints when the tier takes the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import constant_int, defined_inside

REMARK = ("this while loop counts (a counter compared with a bound and stepped by a constant): it runs as the "
          "counted loop it spells, pipelined by the tensor-core tier (tileas-while-to-for)")

_BODY_OPS = ("arith.", "math.", "nv_tileaa.")
_EFFECTS = ("store", "atomic", "print", "assert", "barrier", "scatter", "load", "gather")
_SLT, _SLE = 2, 3  # arith.cmpi predicates
_NEGATED = {5: _SLT, 4: _SLE}  # not (a >= b): a < b; not (a > b): a <= b


def _pure(op: Operation) -> bool:
    return not op.regions and op.name.startswith(_BODY_OPS) and not any(e in op.name for e in _EFFECTS)




def _facts(v: SSAValue) -> SSAValue:
    """``v`` read through ``nv_tileaa.assume`` ops (cuTile states a counter's divisibility)."""
    while isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.assume":
        v = v.owner.operands[0]
    return v


def _is(op: Operation | None, name: str) -> bool:
    return isinstance(op, Operation) and op.name.split(".")[-1] == name and op.name.startswith(("arith.", "nv_tileaa."))


@dataclass
class CountedWhile:
    """What :func:`match` found in a ``while`` (module doc)."""

    loop: scf.WhileOp
    branch: scf.IfOp
    counter: int  # the counter's position among the carried values
    step: SSAValue
    bound: SSAValue  # the comparison's right side (before the division / increment)
    scale: SSAValue | None  # c of ``%i * c``
    inclusive: bool  # ``<=``
    pre: list[Operation]  # the before-region's ops ahead of the branch
    hoisted: list[Operation]  # those of them computed from values outside the loop only
    body_first: bool = True  # the body in the branch's then-region (else: ``if j >= n: break`` first)
    more: list = None  # further (bound, scale, inclusive) tests joined by ``and`` (the loop runs to the least)


def _conjuncts(c: SSAValue, pre: list[Operation]) -> list[SSAValue]:
    """The tests ``c`` joins with ``arith.andi`` computed in the before-region (``c`` itself if none)."""
    op = c.owner
    if _is(op, "andi") and op in pre and op.results[0].type == IntegerType(1):
        return [x for v in op.operands for x in _conjuncts(v, pre)]
    return [c]


def _bound_test(c: SSAValue, body_first: bool, pre: list[Operation], before: Block):
    """``(counter, bound, scale, inclusive)`` of a test ``i < ub``, ``i <= ub``, ``i * c < ub`` (``c`` a
    positive constant; ``>=`` / ``>`` of a break negated), else None."""
    cmp = c.owner
    if not isinstance(cmp, arith.CmpiOp):
        return None
    pred = cmp.predicate.value.data if body_first else _NEGATED.get(cmp.predicate.value.data)
    if pred not in (_SLT, _SLE):
        return None
    lhs, bound = _facts(cmp.lhs), cmp.rhs
    scale = None
    if _is(lhs.owner, "muli") and lhs.owner in pre:
        a, b = (_facts(x) for x in lhs.owner.operands)
        if constant_int(b) is not None and constant_int(b) > 0:
            lhs, scale = a, b
        elif constant_int(a) is not None and constant_int(a) > 0:
            lhs, scale = b, a
        else:
            return None
    if not isinstance(lhs, BlockArgument) or lhs.block is not before or not isinstance(lhs.type, IntegerType):
        return None
    return lhs, bound, scale, pred == _SLE


_SHORT_CIRCUIT_OPS = ("arith.cmpi", "arith.constant", "arith.extsi", "arith.andi", "nv_tileaa.muli",
                      "nv_tileaa.addi", "nv_tileaa.subi", "nv_tileaa.assume", "arith.muli", "arith.addi",
                      "arith.subi")


def fold_short_circuit_and(loop: scf.WhileOp) -> int:
    """``c = a and b`` as cuTile exports it in a while's condition, ``scf.if %a -> i1 {ops; yield %b}
    else {yield %a}`` (or ``yield false``), becomes ``ops`` (comparisons and wrapping integer
    arithmetic only: computing them when ``a`` is false changes nothing) and ``andi(%a, %b)``; the
    number folded."""
    count = 0
    block = loop.before_region.block
    for op in list(block.ops):
        if not isinstance(op, scf.IfOp) or len(op.results) != 1 or op.results[0].type != IntegerType(1):
            continue
        if not op.false_region.blocks or not op.true_region.blocks:
            continue
        then_ops = list(op.true_region.block.ops)
        else_y = op.false_region.block.last_op
        if len(list(op.false_region.block.ops)) != 1 or not isinstance(else_y, scf.YieldOp):
            continue
        if else_y.operands[0] != op.cond and constant_int(else_y.operands[0]) != 0:
            continue
        if not all(o.name in _SHORT_CIRCUIT_OPS and not o.regions for o in then_ops[:-1]):
            continue
        taken = then_ops[-1].operands[0]
        for o in then_ops[:-1]:
            o.detach()
            block.insert_op_before(o, op)
        both = arith.AndIOp(op.cond, taken)
        copy_location(op, [both])
        block.insert_op_before(both, op)
        op.results[0].replace_all_uses_with(both.result)
        Rewriter.erase_op(op)
        count += 1
    return count


def match(loop: scf.WhileOp) -> CountedWhile | None:
    """The counted loop ``loop`` spells (module doc), else None."""
    before = loop.before_region.block
    ops = list(before.ops)
    if len(ops) < 3 or not isinstance(ops[-1], scf.ConditionOp) or not isinstance(ops[-2], scf.IfOp):
        return None
    cond, branch = ops[-1], ops[-2]
    pre = ops[:-2]
    n = len(before.args)
    if not all(_pure(o) for o in pre) or cond.condition != branch.results[0]:
        return None
    if list(cond.args) != list(branch.results[1:]):
        return None
    after = loop.after_region.block
    last = after.last_op
    if not isinstance(last, scf.YieldOp) or list(last.operands) != list(after.args[:n]):
        return None
    if not branch.false_region.blocks:
        return None
    then_y, else_y = branch.true_region.block.last_op, branch.false_region.block.last_op
    if not isinstance(then_y, scf.YieldOp) or not isinstance(else_y, scf.YieldOp):
        return None
    flags = (constant_int(then_y.operands[0]), constant_int(else_y.operands[0]))  # i1 true prints as -1 or 1
    if flags[0] in (1, -1) and flags[1] == 0:
        body_first = True
    elif flags[0] == 0 and flags[1] in (1, -1):  # ``if j >= n: break`` first: the body in the else-branch
        body_first = False
        then_y, else_y = else_y, then_y
    else:
        return None
    # the comparison (the test that continues the loop: ``>=`` / ``>`` of a break negated), or a
    # conjunction of such tests of one counter (``while j < n and j * BN < m``)
    leaves = _conjuncts(branch.cond, pre) if body_first else [branch.cond]
    tests = [_bound_test(c, body_first, pre, before) for c in leaves]
    if not tests or any(t is None for t in tests) or len({t[0] for t in tests}) != 1:
        return None
    lhs = tests[0][0]
    counter = lhs.index
    # the counter's step
    nxt = then_y.operands[1 + counter].owner
    if not _is(nxt, "addi"):
        return None
    a, b = nxt.operands
    step = b if _facts(a) == lhs else a if _facts(b) == lhs else None
    if step is None or constant_int(step) is None or constant_int(step) <= 0:
        return None
    # values the bound reads: outside the loop, or pre-ops of outside values (hoisted)
    hoisted: list[Operation] = []
    free: set[Operation] = set()
    for o in pre:
        if all(not defined_inside(v, loop) or v.owner in free for v in o.operands):
            free.add(o)
            hoisted.append(o)
    if any(defined_inside(t[1], loop) and t[1].owner not in free for t in tests):
        return None
    # the loop's results: carried values (not the counter's, unless unused) or outside values
    for k, r in enumerate(loop.results):
        x = else_y.operands[1 + k]
        if not r.uses:
            continue
        if isinstance(x, BlockArgument) and x.block is before:
            if x.index == counter:
                return None
        elif defined_inside(x, loop):
            return None
    cmps = {id(c.owner) for c in leaves} | {id(o) for o in pre if _is(o, "andi")}
    return CountedWhile(loop, branch, counter, step, tests[0][1], tests[0][2], tests[0][3], pre,
                        [o for o in hoisted if id(o) not in cmps], body_first, [t[1:] for t in tests[1:]])


def rewrite(m: CountedWhile) -> scf.ForOp:
    """Replace ``m.loop`` by its ``scf.for`` (module doc)."""
    loop, before = m.loop, m.loop.before_region.block
    block = loop.parent_block()
    values: dict[SSAValue, SSAValue] = {}

    def emit(op: Operation) -> Operation:
        block.insert_op_before(op, loop)
        copy_location(loop, [op])
        return op

    for o in m.hoisted:
        values.update(zip(o.results, emit(o.clone(values)).results))
    def count_bound(bound, scale, inclusive):
        ub = values.get(bound, bound)
        t = ub.type
        if scale is not None:  # i * c < ub  <=>  i < ceil(ub / c);  i * c <= ub  <=>  i < floor(ub / c) + 1
            c = values.get(scale, scale)
            if inclusive:
                return emit(arith.AddiOp(emit(arith.FloorDivSIOp(ub, c)).results[0],
                                         emit(arith.ConstantOp(IntegerAttr(1, t))).results[0])).results[0]
            return emit(arith.CeilDivSIOp(ub, c)).results[0]
        if inclusive:
            return emit(arith.AddiOp(ub, emit(arith.ConstantOp(IntegerAttr(1, t))).results[0])).results[0]
        return ub

    ub = count_bound(m.bound, m.scale, m.inclusive)
    for more in m.more or []:  # i < a and i < b  <=>  i < min(a, b)
        ub = emit(arith.MinSIOp(ub, count_bound(*more))).results[0]
    t = ub.type
    step = emit(arith.ConstantOp(IntegerAttr(constant_int(m.step), t))).results[0]
    others = [k for k in range(len(before.args)) if k != m.counter]
    body = Block(arg_types=[t, *[before.args[k].type for k in others]])
    new = scf.ForOp(loop.arguments[m.counter], ub, step, [loop.arguments[k] for k in others], Region(body))
    emit(new)
    values[before.args[m.counter]] = body.args[0]
    for k, arg in zip(others, body.args[1:]):
        values[before.args[k]] = arg
    for o in m.pre:
        if o not in m.hoisted:
            body.add_op(o.clone(values))
    then = (m.branch.true_region if m.body_first else m.branch.false_region).block
    for o in list(then.ops)[:-1]:
        body.add_op(o.clone(values))
    then_y = then.last_op
    body.add_op(scf.YieldOp(*[values.get(then_y.operands[1 + k], then_y.operands[1 + k]) for k in others]))
    copy_location(then_y, [body.last_op])
    for o in reversed(list(body.ops)[:-1]):  # the cloned comparison and what only it read
        if _pure(o) and not any(r.uses for r in o.results):
            body.erase_op(o)
    else_y = (m.branch.false_region if m.body_first else m.branch.true_region).block.last_op
    for k, r in enumerate(loop.results):
        x = else_y.operands[1 + k]
        if not r.uses:
            continue
        r.replace_all_uses_with(new.results[others.index(x.index)] if isinstance(x, BlockArgument) and x.block is before
                                else x)
    Rewriter.erase_op(loop)
    return new


@dataclass
class DoWhile:
    """A ``while True: body; j += s; if j >= n: break`` loop (:func:`match_do_while`)."""

    loop: scf.WhileOp
    branch: scf.IfOp
    counter: int
    step: SSAValue
    bound: SSAValue
    inclusive: bool  # continue while ``j <= n`` (break on ``j > n``)
    body: list[Operation]  # the before-region's ops ahead of the test


def match_do_while(loop: scf.WhileOp) -> DoWhile | None:
    """The body first, then the counter stepped by a positive constant, then ``if next >= n: break``
    (or ``>``) with ``n`` defined outside the loop: the before-region ends ``%next = addi(%j, s)``,
    ``%c = cmpi sge/sgt %next, %n``, ``scf.if %c {yield false, (anything), %new...} else {yield true,
    %new..., (anything)}``, ``scf.condition``; the do-region yields its first block arguments; the values
    carried on (else-branch) are the values the loop returns (then-branch), ``%next`` for the counter."""
    before = loop.before_region.block
    ops = list(before.ops)
    n = len(before.args)
    if len(ops) < 4 or not isinstance(ops[-1], scf.ConditionOp) or not isinstance(ops[-2], scf.IfOp):
        return None
    cond, branch = ops[-1], ops[-2]
    if cond.condition != branch.results[0] or list(cond.args) != list(branch.results[1:]):
        return None
    after = loop.after_region.block
    if not isinstance(after.last_op, scf.YieldOp) or list(after.last_op.operands) != list(after.args[:n]):
        return None
    if not branch.false_region.blocks or not branch.true_region.blocks:
        return None
    for region in (branch.true_region, branch.false_region):  # constants and the yield only
        if any(o.name != "arith.constant" for o in list(region.block.ops)[:-1]):
            return None
    brk, cont = branch.true_region.block.last_op, branch.false_region.block.last_op
    if constant_int(brk.operands[0]) != 0 or constant_int(cont.operands[0]) not in (1, -1):
        return None
    nxt_carried = list(cont.operands[1:1 + n])
    returned = list(brk.operands[1 + n:])
    if len(returned) != n or nxt_carried != returned:
        return None
    cmp = branch.cond.owner
    if not isinstance(cmp, arith.CmpiOp) or cmp.predicate.value.data not in _NEGATED:
        return None
    nxt = _facts(cmp.lhs).owner
    if not _is(nxt, "addi") or nxt.parent_block() is not before:
        return None
    a, b = nxt.operands
    j, step = (_facts(a), b) if isinstance(_facts(a), BlockArgument) else (_facts(b), a)
    if not isinstance(j, BlockArgument) or j.block is not before or constant_int(step) is None or \
            constant_int(step) <= 0:
        return None
    if nxt_carried[j.index] is not nxt.results[0] or defined_inside(cmp.rhs, loop):
        return None
    results = list(loop.results)
    if len(results) != 2 * n or any(r.uses for r in results[:n]) or results[n + j.index].uses:
        return None  # read after the loop: the values the last iteration started from, or the counter
    body = ops[:-2]
    if any(o is not cmp and o.regions and o.name.startswith("scf.") for o in body):
        return None  # a nested loop or branch: left as written
    return DoWhile(loop, branch, j.index, step, cmp.rhs, _NEGATED[cmp.predicate.value.data] == _SLE,
                   [o for o in body if o is not cmp])


def rewrite_do_while(m: DoWhile) -> scf.ForOp:
    """``scf.for j = j0 to max(n', j0 + s) step s`` (``n' = n`` or ``n + 1`` for ``<=``): the body runs
    for ``j0`` and then while the stepped counter passes the test, as the loop did."""
    loop, before = m.loop, m.loop.before_region.block
    block = loop.parent_block()

    def emit(op: Operation) -> Operation:
        block.insert_op_before(op, loop)
        copy_location(loop, [op])
        return op

    j0 = loop.arguments[m.counter]
    t = j0.type
    s = emit(arith.ConstantOp(IntegerAttr(constant_int(m.step), t))).results[0]
    ub = m.bound
    if m.inclusive:
        ub = emit(arith.AddiOp(ub, emit(arith.ConstantOp(IntegerAttr(1, t))).results[0])).results[0]
    ub = emit(arith.MaxSIOp(ub, emit(arith.AddiOp(j0, s)).results[0])).results[0]
    others = [k for k in range(len(before.args)) if k != m.counter]
    body = Block(arg_types=[t, *[before.args[k].type for k in others]])
    new = scf.ForOp(j0, ub, s, [loop.arguments[k] for k in others], Region(body))
    emit(new)
    values: dict[SSAValue, SSAValue] = {before.args[m.counter]: body.args[0]}
    for k, arg in zip(others, body.args[1:]):
        values[before.args[k]] = arg
    for o in m.body:
        body.add_op(o.clone(values))
    cont = m.branch.false_region.block.last_op
    body.add_op(scf.YieldOp(*[values.get(cont.operands[1 + k], cont.operands[1 + k]) for k in others]))
    copy_location(cont, [body.last_op])
    for o in reversed(list(body.ops)[:-1]):  # the counter's step, unless the body reads it
        if _pure(o) and not any(r.uses for r in o.results):
            body.erase_op(o)
    n = len(before.args)
    for k, r in enumerate(loop.results[n:]):  # the values the body computed last (match: none other read)
        if r.uses:
            r.replace_all_uses_with(new.results[others.index(k)])
    Rewriter.erase_op(loop)
    return new


def _dot_in(loop: scf.WhileOp) -> Operation | None:
    return next((o for o in loop.walk() if o.name == "nv_tileaa.dot"), None)


def while_to_for(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Rewrite every counted ``while`` of ``module`` that holds a dot (outermost first); the number."""
    count = 0
    for o in list(module.walk()):
        if isinstance(o, scf.WhileOp) and _dot_in(o) is not None:
            fold_short_circuit_and(o)
    while True:  # one at a time: a rewrite clones the loops nested in the one it replaces
        m = next((m for o in module.walk() if isinstance(o, scf.WhileOp) and _dot_in(o) is not None
                  for m in [match(o) or match_do_while(o)] if m is not None), None)
        if m is None:
            return count
        if remarks is not None:
            remarks.append(format_error(_dot_in(m.loop), REMARK, "remark"))
        if isinstance(m, DoWhile):
            rewrite_do_while(m)
        else:
            rewrite(m)
        count += 1


def while_to_for_remarks(module: Operation) -> list[str]:
    """The located remark (at the loop's first dot) for each ``while`` the pass would rewrite
    (matched, not rewritten: ``module`` is left as it is)."""
    out = []
    for o in module.walk():
        if isinstance(o, scf.WhileOp) and _dot_in(o) is not None:
            c = o.clone()  # a short-circuit ``and`` folded on a copy
            fold_short_circuit_and(c)
            if match(c) is not None or match_do_while(c) is not None:
                out.append(format_error(_dot_in(o), REMARK, "remark"))
            c.erase(safe_erase=False)
    return out


class WhileToFor(ModuleTransform):
    """Counted ``while`` loops holding dots become ``scf.for`` loops (module doc)."""

    name = "tileas-while-to-for"
    transform = staticmethod(while_to_for)


__all__ = ["REMARK", "CountedWhile", "WhileToFor", "match", "rewrite", "while_to_for", "while_to_for_remarks"]
