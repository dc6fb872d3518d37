"""Two K loops one after the other over the same range become one loop (``tileas-fuse-split-loops``'
second fusion).

A program may write two products as two K loops in sequence, each accumulating with dots::

    %r1 = scf.for %k = %a to %n step %s iter_args(%acc1 = %i1) { B1; yield %d1 }
    %r2 = scf.for %k = %a to %n step %s iter_args(%acc2 = %i2) { B2; yield %d2 }

(``acc1 += x @ w1`` then ``acc2 += z @ w2`` combined in the epilogue, or the second loop continuing the
first's accumulator, ``%i2 = %r1``: ``y = x1 @ w1 + x2 @ w2`` over one K).  When both loops run the same
iterations (the same lower bound, upper bound and step values; or, for two GEMM K loops whose carried values are
all sums of dot products, bounds that are the same function of the same extents of each loop's own operand arrays,
``cdiv(X1.shape[1], tk)`` and ``cdiv(X2.shape[1], tk)``: equal where the launcher finds the other A laid out as A,
one K, else it sends the launch to the SIMT path), neither body writes memory, the second
reads no result of the first except as the initial value of an accumulator it continues, and every
carried value that continues from the first loop into the second is a pure accumulation in both (the
iteration argument's only use is a dot's accumulator, and the yielded value is that dot chain's result),
the pair is one loop running ``B1`` then ``B2`` each iteration::

    %r = scf.for %k = %a to %n step %s iter_args(%acc1 = %i1, ...) { B1; B2 (its %acc2 = B1's %d1); yield ... }

The products are the same; an accumulator continued across the loops adds them in another order
(``((acc + p1_0) + p2_0) + p1_1 ...`` instead of all of the first loop's first: f32 sums reassociated, as
the WGMMA kernel's own K order does; integer sums exact).  The tier then sees one K loop with several
dots (:func:`tileorch.transforms.tileas.convert_to_cutlass.own_a_dots`).  :func:`why_not_fused` says, in
the program's terms, why a pair of dot loops is not fused.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tileorch.transforms.tileas.loop_pair_fusion import _pure, _same_scalar

K_SEGMENTS = "tileas.k_segments"
"""The function attribute :func:`fuse_same_range` sets where it fused two loops whose bounds are each its own
operands' (:func:`_same_up_to_operands`): the dots' pairs run their own K tile counts, one after the other
(``GemmConfig.k_segments``)."""

WRITES = ("store", "tiled_store", "atomic_rmw", "atomic_cas", "print")
"""The op name suffixes that write memory (or print): a body holding one is not reordered."""


def _writes(loop: scf.ForOp) -> Operation | None:
    return next((o for o in loop.walk() if o.name.split(".")[-1] in WRITES), None)


def _accumulation(arg: BlockArgument, yielded: SSAValue) -> bool:
    """``arg`` is used once, as the accumulator of the first of a chain of dots whose last result is
    ``yielded`` (each dot's accumulator the previous one's result)."""
    if len(list(arg.uses)) != 1:
        return False
    v = yielded
    while isinstance(v.owner, Operation) and v.owner.name.endswith(".dot"):
        v = v.owner.operands[2]
        if v is arg:
            return True
        if len(list(v.uses)) != 1:
            return False
    return False


def _continued(l1: scf.ForOp, l2: scf.ForOp) -> dict[int, int] | None:
    """``{slot of l2: slot of l1}`` for the accumulators ``l2`` continues from ``l1`` (its initial value one of
    ``l1``'s results, used nowhere else); None when ``l2`` reads ``l1``'s results otherwise (:func:`reads_first`)."""
    if reads_first(l1, l2):
        return None
    out = {}
    for r in l1.results:
        into = [u for u in r.uses if u.operation is l2]
        if into and len(list(r.uses)) != 1:  # (continued, and also read after the loops: its value in between)
            return None
        if into:
            out[into[0].index - 3] = r.index
    return out


def reads_first(l1: scf.ForOp, l2: Operation, results: list[SSAValue] | None = None) -> bool:
    """Whether ``l2`` (a later op of ``l1``'s block) reads ``l1``'s results (those in ``results`` when given)
    other than as a loop's initial values: inside its body, or through the ops between them
    (``a = relu(h).astype(f16)`` read by the second loop)."""
    derived = set(l1.results if results is None else results)
    op = l1.next_op
    while op is not None and op is not l2:
        if any(x in derived for sub in op.walk() for x in sub.operands):
            derived.update(op.results)
        op = op.next_op
    if any(x in derived for x in l2.operands[3:] if x not in l1.results):
        return True
    return any(x in derived for o in l2.regions[0].walk() for x in o.operands) if l2.regions else False


def _reduced_statistic(l1: scf.ForOp, l2: Operation) -> bool:
    """Whether a result of ``l1`` that ``l2`` reads (:func:`reads_first`) is carried as a reduction of a dot's
    result in ``l1``'s body (``m = max(m, ct.max(q @ k.T, axis=1))``: a two-pass softmax's row max), not a dot's
    accumulator: its yielded value depends on an ``nv_tileaa.reduce`` of a value that depends on a dot."""
    body = l1.body.block
    y = body.last_op
    for r in l1.results:
        if not reads_first(l1, l2, [r]):
            continue
        carried = y.operands[r.index]
        if isinstance(carried.owner, Operation) and carried.owner.name.endswith(".dot"):
            continue  # a dot's accumulator
        seen, todo = set(), [carried]
        while todo:
            op = todo.pop().owner
            if not isinstance(op, Operation) or op.parent_block() is not body or id(op) in seen:
                continue
            seen.add(id(op))
            if op.name == "nv_tileaa.reduce" and _depends_on_dot(op, body):
                return True
            todo.extend(op.operands)
    return False


def _depends_on_dot(op: Operation, body: Block) -> bool:
    """Whether an operand of ``op`` depends on a dot's result within ``body``."""
    seen, todo = set(), list(op.operands)
    while todo:
        o = todo.pop().owner
        if not isinstance(o, Operation) or o.parent_block() is not body or id(o) in seen:
            continue
        if o.name.endswith(".dot"):
            return True
        seen.add(id(o))
        todo.extend(o.operands)
    return False


TWO_PASS_WHY = ("the second loop reads a row statistic the first loop reduces from its dot's result (a two-pass "
                "softmax: the row max of Q K^T over every key tile, then exp, sum and P V): the tensor-core kernels "
                "run the dots of one loop, and no kernel runs the key tiles twice; written as the online softmax (one "
                "loop: the running max, the running sum and the accumulator rescaled by exp(m_old - m_new)) it takes "
                "the TMA + WGMMA chained kernel")
"""The refusal of a second dot loop that reads a row statistic the first loop reduces (:func:`reads_first_why`)."""


def reads_first_why(l1: scf.ForOp, l2: scf.ForOp) -> str | None:
    """The refusal of a second dot loop that reads the first's result (:func:`reads_first`), else None."""
    if not reads_first(l1, l2):
        return None
    if _reduced_statistic(l1, l2):
        return TWO_PASS_WHY
    return ("the second loop reads the first loop's result (e.g. acc2 += f(acc1) @ w2): its K steps need the "
            "first loop complete; write the second loop's index as the grid's axis 1 instead (j = ct.bid(1): after "
            "the first loop, one dot of f(acc1) with the second operand's tile j and its store), which the WGMMA "
            "kernel takes: it computes the first loop once per row tile and loops that dot over the output's "
            "column tiles (C = f(A B) E)")


def _operand_extents(loop: scf.ForOp) -> dict[int, tuple[int, int]]:
    """``{id(extent): (operand, dimension)}`` of the arrays ``loop``'s dots read their A (operand 0) and B (1) tiles
    from: each dynamic extent of the array's ``make_memref``, through ``assume``."""
    out = {}
    for d in (o for o in loop.walk() if o.name.endswith(".dot")):
        for operand in (0, 1):
            mk = _array_of(d.operands[operand])
            for dim, e in enumerate(mk.shape if mk is not None else ()):
                out[id(_strip_assume(e))] = (operand, dim)
    return out


def _array_of(v: SSAValue) -> Operation | None:
    """The ``make_memref`` of the tile load a dot operand reads (through transposes, reshapes and layout
    conversions, and the view's ``block_tile``), or None."""
    while isinstance(v.owner, Operation) and v.owner.name in ("nv_tileaa.permute", "nv_tileaa.reshape",
                                                               "nv_tileas.convert_layout"):
        v = v.owner.operands[0]
    ld = v.owner
    if not isinstance(ld, Operation) or not ld.name.endswith("tiled_load"):
        return None
    view = ld.operands[0]
    while isinstance(view.owner, Operation) and view.owner.name == "nv_tileaa.block_tile":
        view = view.owner.operands[0]
    return view.owner if isinstance(view.owner, Operation) and view.owner.name == "nv_tileaa.make_memref" else None


def _strip_assume(v: SSAValue) -> SSAValue:
    while isinstance(v.owner, Operation) and v.owner.name == "nv_tileaa.assume":
        v = v.owner.operands[0]
    return v


def _same_up_to_operands(x: SSAValue, y: SSAValue, e1: dict, e2: dict) -> bool:
    """``x`` (of the first loop) and ``y`` (of the second) are the same function of the same extents of the two
    loops' operand arrays (``cdiv(X1.shape[1], tk)`` and ``cdiv(X2.shape[1], tk)``, X1 and X2 each its loop's A):
    equal wherever the launcher finds each pair's operands laid out alike (the WGMMA kernel's other As and Bs,
    ``launchers/cutile.more_a_operands`` / ``more_b_operands``; else the SIMT path runs the launch)."""
    def extent(a: SSAValue, b: SSAValue) -> bool:
        return (isinstance(a, BlockArgument) and isinstance(b, BlockArgument) and id(a) in e1
                and e1[id(a)] == e2.get(id(b)))

    return _same_scalar(x, y, extent)


def _only_accumulations(loop: scf.ForOp) -> bool:
    """Every value ``loop`` carries is a sum of its dots' products (a GEMM's K loop: :func:`_accumulation`)."""
    y = loop.body.block.last_op
    return all(_accumulation(arg, v) for arg, v in zip(loop.body.block.args[1:], y.operands))


def _same_iterations(l1: scf.ForOp, l2: scf.ForOp) -> bool:
    """The two loops run the same iterations: the same bounds and step, or (GEMM K loops: every carried value a
    sum of dot products) bounds the same function of the same extents of their own operand arrays
    (:func:`_same_up_to_operands`)."""
    if _same_scalar(l1.lb, l2.lb) and _same_scalar(l1.ub, l2.ub) and _same_scalar(l1.step, l2.step):
        return True
    if not (_only_accumulations(l1) and _only_accumulations(l2)):
        return False
    e1, e2 = _operand_extents(l1), _operand_extents(l2)
    return all(_same_up_to_operands(x, y, e1, e2) for x, y in ((l1.lb, l2.lb), (l1.ub, l2.ub), (l1.step, l2.step)))


def why_not_fused(l1: scf.ForOp, l2: scf.ForOp) -> str | None:
    """Why two consecutive dot loops are not one loop (None: :func:`fuse_same_range` fuses them)."""
    if not _same_iterations(l1, l2):
        return ("they run different ranges of K tiles (another bound or step): loops over the same tiles are "
                "fused, and so are loops each over its own operands' K (range(ct.cdiv(X1.shape[1], tk)) then "
                "range(ct.cdiv(X2.shape[1], tk)): K segments of one pipeline), not other ranges yet (scalar trip "
                "counts such as range(n1) then range(n2)): bound each loop by its own operands' K where the arrays "
                "hold just the K tiles they sum, or write one loop over the longer K with both dots, their tiles "
                "zero-padded, or concatenate the operands along K")
    for lp in (l1, l2):
        w = _writes(lp)
        if w is not None:
            return f"a loop writes memory ({w.name.split('.')[-1]}), so the two loops' bodies cannot be interleaved"
    cont = _continued(l1, l2)
    if cont is None:
        return reads_first_why(l1, l2) or ("the first loop's accumulator is read after both loops and also "
                                           "continued by the second")
    y1, y2 = l1.body.block.last_op, l2.body.block.last_op
    for i, j in cont.items():
        if not (_accumulation(l1.body.block.args[1 + j], y1.operands[j])
                and _accumulation(l2.body.block.args[1 + i], y2.operands[i])):
            return ("the second loop continues a value of the first that is not only a sum of dot products "
                    "(acc = ct.mma(a, b, acc) in both loops), so the two loops' steps cannot be interleaved")
    return None


def fuse_same_range(l1: scf.ForOp, l2: scf.ForOp) -> bool:
    """Fuse ``l1`` and the loop ``l2`` right after it (module doc) in place; False (nothing changed) where
    :func:`why_not_fused` gives a reason."""
    if why_not_fused(l1, l2) is not None:
        return False
    cont = _continued(l1, l2)
    b1, b2 = l1.body.block, l2.body.block
    fresh = [i for i in range(len(l2.results)) if i not in cont]
    inits = [*l1.operands[3:], *(l2.operands[3 + i] for i in fresh)]
    body = Block(arg_types=[b1.args[0].type, *(v.type for v in inits)])
    n1 = len(l1.results)
    y1, y2 = b1.last_op, b2.last_op
    for old, new in zip(b1.args, body.args):
        old.replace_all_uses_with(new)
    b2.args[0].replace_all_uses_with(body.args[0])
    for k, i in enumerate(fresh):
        b2.args[1 + i].replace_all_uses_with(body.args[1 + n1 + k])
    for i, j in cont.items():  # the continued accumulator: B2 starts from B1's value of this iteration
        b2.args[1 + i].replace_all_uses_with(y1.operands[j])
    for block in (b1, b2):
        for o in list(block.ops):
            if o is block.last_op:
                break
            o.detach()
            body.add_op(o)
    out = list(y1.operands)
    for i, j in cont.items():
        out[j] = y2.operands[i]
    out += [y2.operands[i] for i in fresh]
    body.add_op(scf.YieldOp(*out))
    new = scf.ForOp(l1.lb, l1.ub, l1.step, inits, body)
    if not (_same_scalar(l1.lb, l2.lb) and _same_scalar(l1.ub, l2.ub) and _same_scalar(l1.step, l2.step)):
        # each loop's bound its own operands' (two K): the WGMMA kernel runs the pairs as K segments
        fn = l1.parent_op()
        while fn is not None and not hasattr(fn, "sym_name"):
            fn = fn.parent_op()
        if fn is not None:
            fn.attributes[K_SEGMENTS] = UnitAttr()
    block = l1.parent_block()
    block.insert_op_before(new, l1)
    from tileorch.diagnostics import copy_location

    copy_location(l1, [new])
    for i in range(len(l2.results)):
        slot = cont[i] if i in cont else n1 + fresh.index(i)
        l2.results[i].replace_all_uses_with(new.results[slot])
    for j in range(n1):
        if j not in cont.values():
            l1.results[j].replace_all_uses_with(new.results[j])
    for lp in (l2, l1):
        lp.detach()
        lp.erase()
    return True


def _next_dot_loop(l1: scf.ForOp) -> scf.ForOp | None:
    """The dot loop after ``l1`` in its block with only side-effect-free, region-free ops between them (the ones
    ``tileas-fuse-split-loops`` moves before ``l1``), else None."""
    op = l1.next_op
    while op is not None and not isinstance(op, scf.ForOp):
        if op.regions or not _pure(op):
            return None
        op = op.next_op
    return op if op is not None and any(o.name.endswith(".dot") for o in op.walk()) else None


def same_range_remarks(module: Operation) -> list[str]:
    """The remark of each pair of dot loops :func:`fuse_same_range` will fuse (read before the tier runs: the
    driver states them once the tier takes the kernel)."""
    out = []
    for l1 in [o for o in module.walk() if isinstance(o, scf.ForOp) and any(x.name.endswith(".dot") for x in o.walk())]:
        l2 = _next_dot_loop(l1)
        if l2 is not None and why_not_fused(l1, l2) is None:
            own = not (_same_scalar(l1.lb, l2.lb) and _same_scalar(l1.ub, l2.ub) and _same_scalar(l1.step, l2.step))
            out.append("remark: 2 K loops one after the other, each bounded by its own operands' K, are one dot kernel "
                       "of K segments (tileas-fuse-split-loops; GemmConfig.k_segments)" if own else
                       "remark: 2 K loops one after the other over the same K tiles run as one loop, each step both "
                       "loops' dots (tileas-fuse-split-loops; an accumulator continued from the first loop into the "
                       "second sums its products in another order)")
    return out
