"""``tileas-flatten-nested-k-loops``: a K loop split by the program into blocks of K steps becomes
one loop over every step.

Programs sometimes walk K in two levels, an outer loop over blocks and an inner loop over the
steps of a block (``for kb in range(nkb): for ki in range(KB): k = kb * KB + ki``), or unroll the
steps of a block with ``ct.static_iter`` (re-rolled into an inner loop by
``tileas-reroll-unrolled-loops``)::

    %r = scf.for %o = %lo to %uo step %so iter_args(%a = %init) {
      (side-effect-free ops of %o)
      %s = scf.for %i = %li to %ui step %si iter_args(%b = %a) { ... nv_tileaa.dot ... }
      scf.yield %s
    }

The tier pipelines one K loop, so this becomes ``scf.for %t = 0 to n_o * n_i step 1
iter_args(%a = %init)`` whose body recomputes ``%o = %lo + (%t / n_i) * %so`` and ``%i = %li +
(%t % n_i) * %si`` (``n_x = max(0, ceil((u - l) / s))``), clones the outer loop's ops and the
inner loop's body and yields what the inner body yields.  Where the body reads the two ivs only as
``%o * n_i + %i`` (both loops from 0 by 1, ``n_i`` a constant) or ``%o + %i`` (the outer loop
stepping by ``n_i``), that sum is ``%t`` itself (a K index the tier's K-range analysis reads).  The same computation, when and only when: the outer
loop's body holds nothing but side-effect-free ops (no regions), plain (weak) reads whose token nothing reads in
a loop that writes no memory (a paged cache's page number: read again at each step of its block), and the inner
loop, none of those ops reading the outer loop's carried values (they see the block's start value, a flat step
would see the step's), and yields the
inner loop's results in order; the inner loop's initial values are the outer loop's carried
values in order; the inner bounds are defined outside the outer loop; the inner loop holds a dot.
Steps are positive (cuTile's ``range`` takes positive steps only).  Anything else is left alone.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import Rewriter

from tileorch.diagnostics import copy_location, format_error
from tileorch.transforms.pass_kinds import ModuleTransform
from tileorch.transforms.tileas.common import constant_int, defined_inside

_BODY_OPS = ("arith.", "math.", "nv_tileaa.")
_EFFECTS = ("store", "atomic", "print", "assert", "barrier", "scatter", "load", "gather")

REMARK = ("nested K loops (a loop over blocks of K steps around the loop over a block's steps) flattened into "
          "one K loop for the tensor-core tier")




def _pure(op: Operation) -> bool:
    return not op.regions and op.name.startswith(_BODY_OPS) and not any(e in op.name for e in _EFFECTS)


_READS = ("nv_tileaa.load", "nv_tileaa.tiled_load")
_WRITES = ("store", "atomic", "scatter")


def _read_again(op: Operation, writes: bool) -> bool:
    """A read the flattened loop may repeat at every step of a block (a paged cache's page number read from the
    block table once per page, now once per key tile): a load with no region whose token result nothing reads,
    in an outer loop that writes no memory (every read of a step then sees what the block's first read saw), and
    a plain (weak) read: an acquire/relaxed read is ordered against other CTAs, whose writes may land between
    two steps of a block."""
    sem = op.properties.get("mem_semantic")
    weak = sem is None or sem.value.data == "weak"
    return (not writes and weak and op.name in _READS and not op.regions
            and not any(r.uses for r in op.results[1:]))


def nested_pair(outer: scf.ForOp) -> scf.ForOp | None:
    """The inner loop of ``outer`` when the two flatten (module doc), else None."""
    body = outer.body.block
    ops = list(body.ops)
    if len(ops) < 2 or not isinstance(ops[-1], scf.YieldOp) or not isinstance(ops[-2], scf.ForOp):
        return None
    inner = ops[-2]
    writes = any(any(w in o.name for w in _WRITES) for o in outer.walk())
    if not all(_pure(o) or _read_again(o, writes) for o in ops[:-2]) or not outer.iter_args:
        return None
    if list(ops[-1].operands) != list(inner.results):
        return None
    if list(inner.iter_args) != list(body.args[1:]):
        return None
    carried = set(body.args[1:])
    if any(v in carried for o in ops[:-2] for v in o.operands):
        return None  # an op before the inner loop reads a block's start value; flattened it would read the step's
    if any(defined_inside(v, outer) and constant_int(v) is None for v in (inner.lb, inner.ub, inner.step)):
        return None
    if not any(o.name == "nv_tileaa.dot" for o in inner.walk()):
        return None
    for s in (outer.step, inner.step):
        c = constant_int(s)
        if c is not None and c <= 0:
            return None
    return inner


class _Emit:
    """Ops appended before ``anchor`` (located at ``loc``)."""

    def __init__(self, block: Block, anchor: Operation | None, loc: Operation):
        self.block, self.anchor, self.loc = block, anchor, loc

    def v(self, op: Operation) -> SSAValue:
        copy_location(self.loc, [op])
        if self.anchor is None:
            self.block.add_op(op)
        else:
            self.block.insert_op_before(op, self.anchor)
        return op.results[0]

    def const(self, c: int, t) -> SSAValue:
        return self.v(arith.ConstantOp(IntegerAttr(c, t)))


def _trip(e: _Emit, lb: SSAValue, ub: SSAValue, step: SSAValue) -> SSAValue:
    t = lb.type
    span = e.v(arith.MaxSIOp(e.v(arith.SubiOp(ub, lb)), e.const(0, t)))
    if constant_int(step) == 1:
        return span
    return e.v(arith.DivSIOp(e.v(arith.AddiOp(span, e.v(arith.SubiOp(step, e.const(1, t))))), step))


def _linear_uses(outer: scf.ForOp, inner: scf.ForOp, n_in: int) -> list[Operation] | None:
    """The ops computing the flat step ``o * n_in + i`` (outer step 1) or ``o + i`` (outer step
    ``n_in``), the sums then the products, when every use of the two ivs is one of them (both
    loops from 0, the inner by 1), else None."""
    step_o = constant_int(outer.step)
    if not all(constant_int(v) == c for v, c in ((outer.lb, 0), (inner.lb, 0), (inner.step, 1))) \
            or step_o not in (1, n_in):
        return None
    o_iv, i_iv = outer.body.block.args[0], inner.body.block.args[0]
    sums: list[Operation] = []
    muls: list[Operation] = []

    def add_of_inner(v: SSAValue) -> bool:
        for u in list(v.uses):
            add = u.operation
            if add.name not in ("arith.addi", "nv_tileaa.addi") or add.operands[1 - u.index] is not i_iv:
                return False
            sums.append(add)
        return True

    for use in list(o_iv.uses):
        op = use.operation
        if step_o == n_in and n_in != 1:
            if op.name not in ("arith.addi", "nv_tileaa.addi") or op.operands[1 - use.index] is not i_iv:
                return None
            sums.append(op)
            continue
        if op.name not in ("arith.muli", "nv_tileaa.muli") or constant_int(op.operands[1 - use.index]) != n_in:
            return None
        muls.append(op)
        if not add_of_inner(op.results[0]):
            return None
    if not sums or any(u.operation not in sums for u in i_iv.uses):
        return None
    return sums + muls


def flatten(outer: scf.ForOp) -> bool:
    """Rewrite ``outer`` and its inner loop as the module doc says; whether it did."""
    inner = nested_pair(outer)
    if inner is None:
        return False
    block = outer.parent_block()
    e = _Emit(block, outer, outer)
    t = outer.lb.type
    n_in_c = None
    if all(constant_int(v) is not None for v in (inner.lb, inner.ub, inner.step)):
        li, ui, si = constant_int(inner.lb), constant_int(inner.ub), constant_int(inner.step)
        n_in_c = max(0, -(-(ui - li) // si))
    linear = _linear_uses(outer, inner, n_in_c) if n_in_c else None
    n_out = _trip(e, outer.lb, outer.ub, outer.step)
    n_in = e.const(n_in_c, t) if n_in_c is not None else _trip(e, inner.lb, inner.ub, inner.step)
    total = e.v(arith.MuliOp(n_out, n_in))
    zero, one = e.const(0, t), e.const(1, t)
    body = Block(arg_types=[t, *[a.type for a in outer.body.block.args[1:]]])
    new = scf.ForOp(zero, total, one, list(outer.iter_args), Region(body))
    copy_location(outer, [new])
    block.insert_op_before(new, outer)
    tv = body.args[0]
    b = _Emit(body, None, inner)
    values: dict[SSAValue, SSAValue] = {}
    if linear is not None:
        for s in linear:
            if s.name.endswith("addi"):
                values[s.results[0]] = tv
    else:
        q = b.v(arith.DivSIOp(tv, n_in))
        r = b.v(arith.RemSIOp(tv, n_in))
        li, si = (b.const(constant_int(v), t) if defined_inside(v, outer) else v for v in (inner.lb, inner.step))
        values[outer.body.block.args[0]] = b.v(arith.AddiOp(outer.lb, b.v(arith.MuliOp(q, outer.step))))
        values[inner.body.block.args[0]] = b.v(arith.AddiOp(li, b.v(arith.MuliOp(r, si))))
    for old, arg in zip(outer.body.block.args[1:], body.args[1:]):
        values[old] = arg
    for old, arg in zip(inner.body.block.args[1:], body.args[1:]):
        values[old] = arg
    skip = set(linear or ())
    for op in list(outer.body.block.ops)[:-2]:
        if op not in skip:
            body.add_op(op.clone(values))
    for op in inner.body.block.ops:
        if op in skip:
            continue
        body.add_op(op.clone(values))
    Rewriter.replace_op(outer, [], list(new.results))
    return True


def flatten_nested_k_loops(module: ModuleOp, remarks: list[str] | None = None) -> int:
    """Every loop pair of ``module`` :func:`flatten` rewrites (outermost first); the number."""
    count = 0
    for loop in [o for o in module.walk() if isinstance(o, scf.ForOp)]:
        if loop.parent is None:
            continue
        inner = nested_pair(loop)
        dot = next((o for o in inner.walk() if o.name == "nv_tileaa.dot"), None) if inner else None
        said = format_error(dot, REMARK, "remark") if dot is not None else ""
        if flatten(loop):
            count += 1
            if remarks is not None:
                remarks.append(said)
    return count


class FlattenNestedKLoops(ModuleTransform):
    """Nested K loops (blocks of K steps) become one K loop (module doc)."""

    name = "tileas-flatten-nested-k-loops"
    transform = staticmethod(flatten_nested_k_loops)
    states_remarks = True


__all__ = ["REMARK", "FlattenNestedKLoops", "flatten", "flatten_nested_k_loops", "nested_pair"]
