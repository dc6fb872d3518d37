"""A dot loop whose first step the program wrote out before it becomes one loop again, the step
as the loop's first iteration (part of ``tileas-fuse-split-loops``).

Attention with a sink key tile (StreamingLLM) computes key tile ``c`` (tile 0) before the loop,
with the state starting there (``m = max(s)``, ``l = sum(p)``, ``o = p @ v`` without a rescale),
then loops over the window's tiles from ``lb`` (not ``c + 1`` in general)::

    <step: the body's loads and dots at tile c, its own pure ops>   -> init values I
    %r = scf.for %j = %lb to %ub step 1 iter_args(%s = I) { B(j, s) }

The tier's schedule wants one loop (one TMA producer walking the tiles, one consumer loop).  When
the step's side effects (loads, dots) are the body's, in the same order, each load reading what
the body's load reads with ``c`` where the body reads ``j`` (op by op: a loop-invariant ``c``, any
value computed before the step), the pair becomes::

    %r = scf.for %t = 0 to 1 + max(%ub - %lb, 0) step 1 iter_args(%s = zeros) {
      %jj = select(%t == 0, %c, %lb - 1 + %t)              (the tile the iteration reads)
      the loads and dots once, reading %jj where the body read %j;
      each stretch of pure ops between them in an scf.if (%t >= 1) { B's } else { the step's }
    }

(:func:`~tileorch.transforms.tileas.fuse_split_loops.fuse_pure_differences` on the step wrapped as
a one-trip loop over ``[0, 1)`` and the body over ``[1, 1 + trip)``, both reading ``%jj``).  The
first iteration is the step: its branch reads none of the carried state, so the initial values
(zeros of each carried type) are never read.  The iterations, the tiles they read and the order
of the side effects are the program's.  Before matching, side-effect-free ops before the loop
that repeat an earlier one (cuTile emits a view or a constant again for the loop) are merged
(common subexpressions: the same op on the same operands).  Anything else is left alone: the
step must be the side effects immediately before the loop, its values read only by the step and
the loop's initial values, the loop's bounds not computed from it.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tileorch.diagnostics import copy_location, format_error
from tileorch.dialects.nv_tileaa.tile_ops import SelectOp as TileSelectOp
from tileorch.transforms.tileas.loop_pair_fusion import (_const_one, _free_operands,
                                                         _merged_properties, _NoFuse, _placeholder, _pure,
                                                         fuse_pure_differences, merge_repeats)

REMARKS_ATTR = "tileorch.remarks"
"""A function attribute: located remarks of the tier's rewrites, which the chained lowering puts in
its record (the driver prints them)."""


def _step_ops(loop: scf.ForOp, imp: list[Operation]) -> list[Operation] | None:
    """The side-effecting ops immediately before ``loop`` in its block pairing with the body's
    ``imp`` (same names, in order), or None."""
    found: list[Operation] = []
    op = loop.prev_op
    while op is not None and len(found) < len(imp):
        if not _pure(op):
            found.append(op)
        op = op.prev_op
    found.reverse()
    if len(found) < len(imp) or [o.name for o in found] != [o.name for o in imp]:
        return None
    if any(o.regions for o in found):
        return None
    return found


class _Alike:
    """Whether a value of the step is the body's value at tile ``c`` (the body's iv read as one
    loop-invariant value ``c`` of the step, the same everywhere)."""

    def __init__(self, loop: scf.ForOp, step: set):
        self.loop, self.step = loop, step
        self.iv = loop.body.block.args[0]
        self.c: SSAValue | None = None

    def inside(self, v: SSAValue) -> bool:
        owner = v.owner.parent_op() if isinstance(v, BlockArgument) else v.owner
        while owner is not None:
            if owner is self.loop:
                return True
            owner = owner.parent_op() if isinstance(owner, Operation) else None
        return False

    def __call__(self, xs: SSAValue, xb: SSAValue, depth: int = 24) -> bool:
        if xs is xb:
            return not self.inside(xb)
        if xb is self.iv:
            if isinstance(xs.owner, Operation) and xs.owner in self.step:
                return False  # c must be available before the step
            if self.c is None:
                self.c = xs
            return self.c is xs
        if isinstance(xs, BlockArgument) or isinstance(xb, BlockArgument) or depth == 0:
            return False
        a, b = xs.owner, xb.owner
        if a.name != b.name or a.regions or b.regions or len(a.operands) != len(b.operands) or not _pure(b):
            return False
        if list(a.results).index(xs) != list(b.results).index(xb) or \
                [r.type for r in a.results] != [r.type for r in b.results]:
            return False
        if a.properties != b.properties or a.attributes != b.attributes:
            return False
        return all(self(p, q, depth - 1) for p, q in zip(a.operands, b.operands))


def _other_array(s: Operation, b: Operation, alike: _Alike, step: set) -> bool:
    """Whether the step's load ``s`` reads a tile of another array than the body's load ``b`` (sink keys kept in
    their own array): both tile loads (``nv_tileaa.tiled_load``) of one tile type, ``s`` reading values defined
    before the step only (its view and indices loop-invariant: the load can run in any iteration), not the body's
    load at one tile (:class:`_Alike`), the same token."""
    if s.name != "nv_tileaa.tiled_load" or b.name != "nv_tileaa.tiled_load":
        return False
    if [r.type for r in s.results] != [r.type for r in b.results] or len(s.operands) != len(b.operands):
        return False
    if s.token is not b.token:
        return False
    if any(isinstance(x.owner, Operation) and x.owner in step or alike.inside(x) for x in s.operands):
        return False
    probe = _Alike(alike.loop, step)
    probe.c = alike.c
    return not all(probe(x, y) for x, y in zip(s.operands, b.operands))


def _drop(ops) -> None:
    for top in ops:
        for o in list(top.walk()):
            o.drop_all_references()


def fuse_peeled_first_step(loop: scf.ForOp) -> scf.ForOp | None:
    """Rewrite ``loop`` and the step before it as the module doc says: the new loop (in place), or
    None with nothing changed but merged repeats."""
    block = loop.parent_block()
    body = loop.body.block
    if block is None or not _const_one(loop.step) or not isinstance(body.args[0].type, IntegerType):
        return None
    if not any(o.name.endswith(".dot") for o in body.ops):
        return None
    imp = [o for o in body.ops if not _pure(o) and o is not body.last_op]
    if not imp or any(o.regions for o in imp) or _step_ops(loop, imp) is None:
        return None
    merge_repeats(block, loop)
    step_imp = _step_ops(loop, imp)
    if step_imp is None:
        return None
    # the step: its side effects and every op between them and the loop that reads them
    dependent: list[Operation] = []
    reads: set = set()
    op = step_imp[0]
    while op is not loop:
        if op in step_imp or any(x in reads for x in _free_operands(op)):
            dependent.append(op)
            reads.update(op.results)
        op = op.next_op
    dep = set(dependent)
    for o in dependent:
        for r in o.results:
            if any(u.operation not in dep and u.operation is not loop for u in r.uses):
                return None
    if any(x in reads for x in loop.operands[:3]):
        return None
    for u in (u for r in reads for u in r.uses if u.operation is loop):
        if u.index < 3:
            return None
    alike = _Alike(loop, dep)
    other: dict = {}  # a step load of another array -> the body's load it stands for (selected at iteration 0)
    for s, b in zip(step_imp, imp):
        if _other_array(s, b, alike, dep):
            other[s] = b
            continue
        if s.attributes != b.attributes or _merged_properties(s, b) is None or \
                [r.type for r in s.results] != [r.type for r in b.results] or len(s.operands) != len(b.operands):
            return None
        if not s.name.endswith(".dot") and not all(alike(x, y) for x, y in zip(s.operands, b.operands)):
            return None
    if alike.c is None and not other:
        return None  # the loads do not read the iv: not a step of this loop
    c = alike.c if alike.c is not None else loop.lb  # (every load of the step its own array: tile c is never read)
    ivt = body.args[0].type
    try:
        zeros = [_placeholder(a.type) for a in body.args[1:]]
    except _NoFuse:
        return None
    c0, c1 = arith.ConstantOp(IntegerAttr(0, ivt)), arith.ConstantOp(IntegerAttr(1, ivt))
    lbm1 = arith.SubiOp(loop.lb, c1.result)
    span = arith.MaxSIOp(arith.SubiOp(loop.ub, loop.lb).result, c0.result)
    end = arith.AddiOp(span.result, c1.result)
    outside = [c0, c1, lbm1, span.operands[0].owner, span, end, *zeros]

    def tile_of(blk: Block) -> SSAValue:
        """``select(t == 0, c, lb - 1 + t)``: the tile the iteration reads (the same ops in both bodies)."""
        t = blk.args[0]
        is0 = arith.CmpiOp(t, c0.result, "eq")
        later = arith.AddiOp(lbm1.result, t)
        jj = arith.SelectOp(is0.result, c, later.result)
        for o in (is0, later, jj):
            blk.add_op(o)
        return jj.result

    def first_or_body(blk: Block, step_load: Operation, body_load: Operation, mapper) -> tuple:
        """The step's load (its own operands, loop-invariant), the body's load (operands through
        ``mapper``) and ``select(t == 0, step tile, body tile)``: (the selected tile, the body load's token)."""
        first = step_load.clone()
        later = body_load.clone(value_mapper={x: mapper(x) for x in body_load.operands})
        is0 = arith.CmpiOp(blk.args[0], c0.result, "eq")
        sel = TileSelectOp(is0.result, first.results[0], later.results[0])
        for o in (first, later, is0, sel):
            blk.add_op(o)
        return sel.result, later.results[1]

    # the step as a one-trip loop over [0, 1): its loads read the body's operands at jj
    b1 = Block(arg_types=[a.type for a in body.args])
    jj1 = tile_of(b1)
    vmap: dict = {}
    bmap: dict = {body.args[0]: jj1}

    def body_value(x: SSAValue) -> SSAValue:
        """The body's value ``x`` computed in ``b1`` with the iv at jj (its pure ops cloned)."""
        if x in bmap:
            return bmap[x]
        if not alike.inside(x):
            return x
        o = x.owner
        new = o.clone(value_mapper={y: body_value(y) for y in o.operands})
        b1.add_op(new)
        bmap.update(zip(o.results, new.results))
        return bmap[x]

    pairs = dict(zip(step_imp, imp))
    for o in dependent:
        if o in other:
            vmap.update(zip(o.results, first_or_body(b1, o, other[o], body_value)))
            continue
        if o in pairs and not o.name.endswith(".dot"):
            new = o.clone(value_mapper={x: vmap.get(x, x) for x in _free_operands(o)})
            new.operands = [body_value(y) for y in pairs[o].operands]
        else:
            new = o.clone(value_mapper={x: vmap.get(x, x) for x in _free_operands(o)})
        b1.add_op(new)
        vmap.update(zip(o.results, new.results))
    b1.add_op(scf.YieldOp(*[vmap.get(x, x) for x in loop.operands[3:]]))
    l1 = scf.ForOp(c0.result, c1.result, c1.result, [z.result for z in zeros], b1)
    # the body over [1, 1 + trip), reading jj where it read the iv
    b2 = Block(arg_types=[a.type for a in body.args])
    jj2 = tile_of(b2)
    m2: dict = {body.args[0]: jj2, **dict(zip(body.args[1:], b2.args[1:]))}
    from_step = {b: s for s, b in other.items()}
    for o in body.ops:
        if o in from_step:
            m2.update(zip(o.results, first_or_body(b2, from_step[o], o, lambda x: m2.get(x, x))))
            continue
        new = o.clone(value_mapper={x: m2.get(x, x) for x in _free_operands(o)})
        b2.add_op(new)
        m2.update(zip(o.results, new.results))
    l2 = scf.ForOp(c1.result, end.result, c1.result, list(l1.results), b2)
    fused = fuse_pure_differences(l1, l2, c1.result, (c0.result, end.result))
    if fused is None:
        _drop([l2, l1, *reversed(outside)])
        return None
    copy_location(loop, [*outside, fused])
    for o in outside:
        block.insert_op_before(o, loop)
    block.insert_op_before(fused, loop)
    for old, new in zip(loop.results, fused.results):
        old.replace_all_uses_with(new)
    _drop([l2, l1])
    loop.detach()
    loop.erase(safe_erase=False)
    first_dot = next((o for o in step_imp if o.name.endswith(".dot")), step_imp[0])
    own = (f"; {len(other)} of its tile loads read {'another array' if len(other) == 1 else 'other arrays'} than "
           "the loop's (sink keys / values of their own): the iteration's tile is the step's at the first "
           "iteration, the loop's after it (one select; the producer loads one of the two)" if other else "")
    _remark(fused, format_error(first_dot, "the step before the loop (its loads and dots at one tile, its own "
                                           "state) runs as the loop's first iteration, the loop's over "
                                           "1 + max(stop - start, 0) iterations reading that tile first, then "
                                           "start, start + 1, ..., the step's own ops under a branch"
                                           f"{own} (tileas-fuse-split-loops)", "remark"))
    for o in reversed(dependent):
        o.detach()
        o.erase(safe_erase=False)
    return fused


def _remark(op: Operation, text: str) -> None:
    """Add ``text`` to the enclosing function's :data:`REMARKS_ATTR`."""
    f = op.parent_op()
    while f is not None and "sym_name" not in f.properties and "sym_name" not in f.attributes:
        f = f.parent_op()
    if f is None:
        return
    old = f.attributes.get(REMARKS_ATTR)
    items = list(old.data) if isinstance(old, ArrayAttr) else []
    f.attributes[REMARKS_ATTR] = ArrayAttr([*items, StringAttr(text)])


def fuse_peeled_first_steps(module: Operation) -> int:
    """Every dot loop of ``module`` that :func:`fuse_peeled_first_step` rewrites; how many."""
    count = 0
    for loop in [o for o in module.walk() if isinstance(o, scf.ForOp)]:
        if loop.parent is not None and fuse_peeled_first_step(loop) is not None:
            count += 1
    return count
