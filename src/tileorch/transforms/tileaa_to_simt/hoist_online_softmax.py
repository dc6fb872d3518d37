"""``tileaa-hoist-online-softmax``: a loop folding each tile into a running max and sum of
exponentials (online softmax / log-sum-exp: cross entropy, logsumexp, a vocabulary softmax) keeps a
running max and sum per thread (or per element) in registers and reduces them across threads once,
after the loop.

The form taken (``m``, ``s`` iter args; ``x`` a float tile of the body; the reductions may go
through unit-dimension reductions, ``extract``, ``reshape``, ``expand_dims``, ``splat``,
``broadcast``)::

    m_new = maxf(m, max(x))
    s_new = s * exp(m - m_new) + sum(exp(x - broadcast(m_new)))       (fma or mulf + addf)

Per iteration it reduces two tiles across threads (shuffles, shared memory and barriers, twice per
tile), the SIMT path's cost for a long row (a 32000-wide cross entropy spends more instructions on
them than on its exponentials).  Two rewritten forms (``TILEORCH_ONLINE_SOFTMAX_FORM``); both peel
the first iteration and compute it as written (``m1``, ``s1``), so special values come out as the
loop as written gives them: NaN when a NaN or a ``+inf`` is in the row or when its *first* tile is
all ``-inf`` (``exp(-inf - -inf)``), otherwise ``-inf`` elements add 0.  The later loop starts from
``m1`` (finite there: no ``-inf - -inf`` in it) and a zero sum; a NaN ``x`` makes its sum NaN, a
``+inf`` makes the running max ``+inf`` and the final rescale NaN.

**thread** (the default, :func:`_rewrite_thread`): the loop carries two f32 scalars per thread, the
running max ``mt`` of the elements the thread holds and their sum ``st`` of ``exp(x - mt)``; the
chains' reductions to one element fold only the thread's own elements
(``thread_partials.THREAD_PARTIAL``: no shuffle, shared memory or barrier), one more exponential per
thread and tile rescales ``st``::

    mn = maxf(mt, max_own(x));   st' = st * exp(mt - mn) + sum_own(exp(x - mn));   mt' = mn

and after the loop ``m = maxf(m1, max over threads of mt)``, ``s = s1 * exp(m1 - m) + sum over threads
of st * exp(mt - m)`` (two reductions across threads, once).  Two registers per thread: the
rewritten cross entropy assembles at 31 registers (32 as written), where the per-element form takes
56 (9 resident CTAs of 128 threads per SM instead of 16: its 4096-wide cross entropy lost 13% on an
H200, session 25).

**element** (session 24's, :func:`_rewrite`): the loop carries two tiles of ``x``'s type, ``M``
(running max of each element position) and ``S`` (its sum of ``exp(x - M)``), with one
exponential per element as before::

    d = x - M;   e = exp(-|d|)
    S' = d > 0 ? S * e + 1 : S + e          (a new max at this position: S rescaled to x)
    M' = maxf(M, x)

and after the loop ``m = maxf(m1, max(M))``, ``s = s1 * exp(m1 - m) + sum(S * exp(M - m))``.

**Exponentials** (``TILEORCH_ONLINE_SOFTMAX_EXP``; per-thread form): ``full`` (the default) computes
the form's ``exp`` as the program asks (its rounding: the spec's full precision by default,
``Emitter.exp_full``, nine instructions each); ``ex2`` marks them all (the peeled iteration's, the
loop's and the combine's: ``math_mode.SUM_TERM``) to be computed as ``ex2.approx.ftz(d * log2 e)``
(two).  Each such argument ``d`` is at most 0 (a value minus a max that includes it; ``-inf``
padding gives 0, NaN stays NaN) and each value only scales a term of the sum, so the sum's relative
error grows by at most ``2^-22 + 2^-24 E[|d|]`` (the MUFU's error and the product's rounding,
weighted by the terms: ``E[|d|]`` is the softmax-weighted distance below the max, at most ``ln n`` +
a few for ``n`` elements); results that would be subnormal (``d < -87.3``) are flushed, below a
sum of at least one term ``e^0`` by more than 2^-126.

In both, ``s`` is the loop's sum in exact arithmetic, reassociated (as any reduction order).  The
rewritten loop runs when the loop has at least ``TILEORCH_ONLINE_SOFTMAX=N`` iterations (a uniform
branch on ``lb + (N - 1) * step < ub``; a shorter one runs as written, in the other branch; at
``N = 1``, the default, the other branch is the loop that runs no iteration: its initial values, no
copy of the loop; a copy costs registers: the cross entropy with both loops assembles at 56); 0
keeps every such loop as written.  The per-thread form's combine runs only when the loop ran past
its peeled iteration, so a one-tile row costs what it did as written, and from three tiles on each
iteration saves its two cross-thread reductions (PTX emulator, ``benchmarks/rowred_traffic.py``,
thread-instructions per element as written / per-thread form: cross entropy 4100-wide 45.1 / 38.9,
32000-wide 27.6 / 19.3; logsumexp 32000-wide 45.6 / 24.2; log-softmax 32000-wide 35.9 / 27.3).
:data:`MIN_TRIPS` is the emulator's break-even of the element form.

Taken only when the body holds no memory write, no region but reductions' combiners, no load but
``tiled_load``, the loop carries nothing but ``m``, ``s`` and memory tokens, ``m`` and ``s`` are f32
scalars or one-element f32 tiles, and every intermediate value is used only by the form.  Run on the
SIMT path before ``tileaa-hoist-loop-reductions``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (DenseIntOrFPElementsAttr, Float32Type, FloatAttr, IntegerAttr, ModuleOp, TensorType,
                                   UnitAttr, f32)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch import settings
from tileorch.dialects.nv_tileaa.attrs import MemTokenType
from tileorch.dialects.nv_tileaa.ops import (AddFOp, ExpOp, ExtractOp, FmaOp, MaxFOp, MinFOp, MulFOp, NegFOp, SplatOp,
                                             SubFOp)
from tileorch.dialects.nv_tileaa.tile_ops import CmpFOp, SelectOp
from tileorch.transforms.math_mode import SUM_TERM
from tileorch.transforms.tileaa_to_simt.hoist_reductions import combiner
from tileorch.transforms.tileaa_to_simt.prefetch import WRITES
from tileorch.transforms.tileaa_to_simt.thread_partials import THREAD_COMBINE, THREAD_PARTIAL

SHAPE_OPS = ("nv_tileaa.extract", "nv_tileaa.reshape", "nv_tileaa.expand_dims", "nv_tileaa.splat",
             "nv_tileaa.broadcast")
"""Ops that move one value between shapes without changing it (one operand)."""
MIN_TRIPS = 8
"""Loops of fewer iterations run as written (a branch on the trip count picks): the rewrite costs a
final combine (an exponential per element and two reductions) besides the peeled iteration, and
saves about a quarter of each later iteration's instructions (PTX emulator, the cross entropy of
``benchmarks/rowred_traffic.py``'s kind at 1024-element tiles: thread-instructions per element
64.3 / 43.2 / 32.3 / 26.9 rewritten against 40.3 / 32.8 / 29.6 / 28.1 as written for 1 / 2 / 4 / 8
tiles a row)."""


def min_trips() -> int:
    """The fewest iterations a loop runs rewritten: ``TILEORCH_ONLINE_SOFTMAX=N`` (1, the default:
    whenever it runs; :data:`MIN_TRIPS` the element form's emulator break-even); 0: the rewrite is off,
    every loop as written (module docstring)."""
    return settings.integer("TILEORCH_ONLINE_SOFTMAX")


def form_name() -> str:
    """``TILEORCH_ONLINE_SOFTMAX_FORM``: ``thread`` (the default: a running max and sum per thread,
    :func:`_rewrite_thread`) or ``element`` (session 24's tiles of a running max and sum per element
    position, :func:`_rewrite`)."""
    return settings.value("TILEORCH_ONLINE_SOFTMAX_FORM")


def exp_form() -> str:
    """``TILEORCH_ONLINE_SOFTMAX_EXP``: ``full`` (the default: the per-thread form's exponentials as the
    program's ``exp``) or ``ex2`` (``ex2.approx.ftz`` of ``d * log2 e``: module docstring)."""
    return settings.value("TILEORCH_ONLINE_SOFTMAX_EXP")


def _as_sum_terms(exps: list[Operation]) -> None:
    """Mark ``exps`` (each ``exp(d)``, ``d <= 0``, entering only the running sum) as sum terms
    (``math_mode.SUM_TERM``) under ``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``."""
    if exp_form() == "ex2":
        for op in exps:
            op.attributes[SUM_TERM] = UnitAttr()


def remark(count: int) -> str:
    """The driver's remark for ``count`` loops rewritten under the current settings."""
    trips, name = min_trips(), form_name()
    how = ("keep a running max and sum per thread (each iteration folds the thread's own elements: no shuffle, "
           "shared memory or barrier) and combine the threads' once after the loop"
           if name == "thread" else "keep a running max and sum per element and reduce them once after the loop")
    when = ("when they run at least one iteration" if trips == 1 else
            f"when they run {trips} iterations or more (else as written)")
    exps = ""
    if name == "thread":
        exps = (", their exponentials ex2.approx.ftz of (x - max)*log2(e) (TILEORCH_ONLINE_SOFTMAX_EXP=ex2; full: "
                "the program's exp)" if exp_form() == "ex2" else
                ", their exponentials the program's exp (TILEORCH_ONLINE_SOFTMAX_EXP=ex2: ex2.approx.ftz of "
                "(x - max)*log2(e))")
    return (f"remark: {count} online max / sum-of-exp loop(s) {how}, the first iteration peeled, {when}{exps} "
            f"(tileaa-hoist-online-softmax; TILEORCH_ONLINE_SOFTMAX=N: from N iterations, 0: as written; "
            f"TILEORCH_ONLINE_SOFTMAX_FORM={'element' if name == 'thread' else 'thread'}: the other form)")


@dataclass
class _Form:
    m_index: int  # iter arg positions (after the induction variable)
    s_index: int
    x: SSAValue  # the folded tile
    max_chain: list[Operation]  # x -> max(x) (reductions and shape ops, in order)
    sum_chain: list[Operation]  # exp(x - b) -> sum(...)
    bcast_chain: list[Operation]  # m_new -> b (x's shape)
    exp: Operation  # exp(x - b): its rounding is the new exponentials'
    rescale: Operation  # exp(m - m_new)
    dead: list[Operation]  # the form's ops in the body, removed after the rewrite


def _owner(v: SSAValue) -> Operation | None:
    return v.owner if isinstance(v.owner, Operation) else None


def _single_use(v: SSAValue) -> bool:
    return v.uses.get_length() == 1


def _numel(t) -> int:
    n = 1
    for d in (t.get_shape() if isinstance(t, TensorType) else ()):
        n *= d
    return n


def _keeps_elements(op: Operation) -> bool:
    """A shape op that neither drops nor repeats elements (an ``extract`` of one element of several, a
    broadcast of one to several, change what a reduction after them folds)."""
    return _numel(op.operands[0].type) == _numel(op.results[0].type)


def _chain_to(v: SSAValue, target: SSAValue | None, fold: str | None) -> tuple[SSAValue, list[Operation]] | None:
    """Walk from ``v`` back through one-operand reductions whose combiner is ``fold`` and shape ops
    that keep every element once (:func:`_keeps_elements`: the chain folds every element of its
    source exactly once), or, when ``fold`` is None, through shape ops alone (a value spread from
    one element), up to ``target`` (None: as far as they go): (the source, the ops in program
    order), or None when ``target`` is not reached."""
    ops: list[Operation] = []
    while v is not target:
        op = _owner(v)
        shape_op = op is not None and op.name in SHAPE_OPS and (fold is None or _keeps_elements(op))
        if op is None or not (shape_op or (fold is not None and op.name == "nv_tileaa.reduce"
                                           and len(op.operands) == 1 and combiner(op) == fold)):
            if target is not None:
                return None
            break
        ops.append(op)
        v = op.operands[0]
    ops.reverse()
    return v, ops


def _is_f32_scalar_like(t) -> bool:
    if isinstance(t, Float32Type):
        return True
    return isinstance(t, TensorType) and isinstance(t.element_type, Float32Type) and all(
        d == 1 for d in t.get_shape())


def _match(loop: scf.ForOp) -> _Form | None:
    body = loop.body.blocks[0]
    yielded = body.last_op
    args = list(body.args[1:])
    for op in body.ops:
        if op.name in WRITES or op.name == "nv_tileaa.load" or (op.regions and op.name != "nv_tileaa.reduce"):
            return None
    kinds = []
    for a in args:
        kinds.append("token" if isinstance(a.type, MemTokenType) else "value" if _is_f32_scalar_like(a.type) else None)
    if None in kinds or kinds.count("value") != 2:
        return None
    for mi, si in ((i, j) for i in range(len(args)) for j in range(len(args)) if i != j):
        if kinds[mi] != "value" or kinds[si] != "value":
            continue
        form = _match_pair(body, yielded, mi, si)
        if form is not None:
            return form
    return None


def _match_pair(body, yielded, mi: int, si: int) -> _Form | None:
    m, s = body.args[1 + mi], body.args[1 + si]
    m_new, s_new = yielded.operands[mi], yielded.operands[si]
    mx_op = _owner(m_new)
    if mx_op is None or mx_op.name != "nv_tileaa.maxf" or mx_op.parent_block() is not body or m not in mx_op.operands:
        return None
    mx = mx_op.operands[1] if mx_op.operands[0] is m else mx_op.operands[0]
    # s_new = s * c + SX (fma(s, c, SX), fma(c, s, SX), addf(mulf(s, c), SX) in any order)
    top = _owner(s_new)
    if top is None or top.parent_block() is not body:
        return None
    if top.name == "nv_tileaa.fma":
        a, b, sx = top.operands
        scaled_ops = [top]
    elif top.name == "nv_tileaa.addf":
        mul = None
        for k in (0, 1):
            cand = _owner(top.operands[k])
            if cand is not None and cand.name == "nv_tileaa.mulf" and s in cand.operands:
                mul, sx = cand, top.operands[1 - k]
        if mul is None or not _single_use(mul.results[0]):
            return None
        a, b = mul.operands
        scaled_ops = [mul, top]
    else:
        return None
    if s not in (a, b) or not _single_use(s):
        return None
    c = b if a is s else a
    c_exp = _owner(c)
    if c_exp is None or c_exp.name != "nv_tileaa.exp" or not _single_use(c):
        return None
    c_sub = _owner(c_exp.operands[0])
    if (c_sub is None or c_sub.name != "nv_tileaa.subf" or list(c_sub.operands) != [m, m_new]
            or not _single_use(c_sub.results[0])):
        return None
    e, sum_chain = _chain_to(sx, None, "nv_tileaa.addf")
    e_exp = _owner(e)
    if not any(op.name == "nv_tileaa.reduce" for op in sum_chain) or e_exp is None or e_exp.name != "nv_tileaa.exp" or not _single_use(e):
        return None
    e_sub = _owner(e_exp.operands[0])
    if e_sub is None or e_sub.name != "nv_tileaa.subf" or not _single_use(e_sub.results[0]):
        return None
    x = e_sub.operands[0]
    back = _chain_to(mx, x, "nv_tileaa.maxf")
    if back is None or not back[1] or not any(op.name == "nv_tileaa.reduce" for op in back[1]):
        return None
    max_chain = back[1]
    src, bcast_chain = _chain_to(e_sub.operands[1], None, None)
    if src is not m_new:
        return None
    # m is used by the max and exp(m - m_new) only; m_new by the yield, that exp and the broadcast
    if m.uses.get_length() != 2 or m_new.uses.get_length() != 3:
        return None
    if not isinstance(x.type, TensorType) or x.type.element_type != f32 or x.type != e.type:
        return None
    inner = [*max_chain[1:], *sum_chain[1:], *bcast_chain[1:]]
    if any(not _single_use(op.operands[0]) for op in inner) or any(
            not all(_single_use(r) for r in op.results) for op in [*max_chain, *sum_chain, *bcast_chain]):
        return None
    if _owner(mx) is not max_chain[-1] or _owner(sx) is not sum_chain[-1]:
        return None
    dead = [*scaled_ops, c_exp, c_sub, *reversed(sum_chain), e_exp, e_sub, *reversed(bcast_chain), mx_op,
            *reversed(max_chain)]
    return _Form(mi, si, x, max_chain, sum_chain, bcast_chain, e_exp, c_exp, dead)


def _clone_chain(chain: list[Operation], start: SSAValue, at: InsertPoint) -> SSAValue:
    """``chain``'s ops applied to ``start`` instead of their source, inserted at ``at``."""
    v = start
    for op in chain:
        new = op.clone()
        new.operands[0] = v  # type: ignore[index]
        Rewriter.insert_op(new, at)
        v = new.results[0]
    return v


def _splat_const(t: TensorType, value: float) -> arith.ConstantOp:
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [value] * _numel(t)))


def _peel(loop: scf.ForOp, exps: tuple[Operation, ...] = ()) -> list[SSAValue]:
    """The loop's first iteration, as written (``iv = lb``, iter args = inits), inserted before the
    loop: the values it yields.  The copies of ``exps`` are marked as sum terms (:func:`_as_sum_terms`)."""
    body = loop.body.blocks[0]
    before = InsertPoint.before(loop)
    mapping: dict[SSAValue, SSAValue] = {body.args[0]: loop.lb}
    mapping.update(zip(body.args[1:], loop.iter_args))
    for op in body.ops:
        if op is body.last_op:
            break
        copy = op.clone(value_mapper=mapping)
        if op in exps:
            _as_sum_terms([copy])
        Rewriter.insert_op(copy, before)
    return [mapping.get(v, v) for v in body.last_op.operands]


def _reloop(loop: scf.ForOp, form: _Form, peeled: list[SSAValue], lb: SSAValue, nexts, inits) -> scf.ForOp:
    """The loop's body (given its two new block arguments) in a new loop from ``lb``, inserted before
    the old one: ``m`` and ``s`` carried unchanged from the peeled iteration, the two new values
    yielded (``nexts``) from ``inits``; the form's old ops erased."""
    body = loop.body.blocks[0]
    yielded = body.last_op
    outs = list(yielded.operands)
    outs[form.m_index] = body.args[1 + form.m_index]  # carried unchanged (m1, s1)
    outs[form.s_index] = body.args[1 + form.s_index]
    Rewriter.replace_op(yielded, scf.YieldOp(*outs, *nexts))
    for op in form.dead:
        Rewriter.erase_op(op)
    new_loop = scf.ForOp(lb, loop.ub, loop.step, [*peeled, *inits], loop.detach_region(0))
    Rewriter.insert_op(new_loop, InsertPoint.before(loop))
    return new_loop


def _rewrite(loop: scf.ForOp, form: _Form) -> None:
    body = loop.body.blocks[0]
    before = InsertPoint.before(loop)
    peeled = _peel(loop)
    m1, s1 = peeled[form.m_index], peeled[form.s_index]
    x_type = form.x.type
    rounding = form.exp.rounding.data if form.exp.rounding is not None else None
    # the tile phase: from lb + step, M starting at m1 (broadcast as the loop did), S at 0
    next_lb = arith.AddiOp(loop.lb, loop.step)
    zero, one = _splat_const(x_type, 0.0), _splat_const(x_type, 1.0)
    for op in (next_lb, zero, one):
        Rewriter.insert_op(op, before)
    m_init = _clone_chain(form.bcast_chain, m1, before)
    x, yielded = form.x, body.last_op
    M = body.insert_arg(x_type, len(body.args))
    S = body.insert_arg(x_type, len(body.args))
    at = InsertPoint.before(yielded)
    d = SubFOp(x, M)
    nd = NegFOp(d.result)
    ad = MinFOp(d.result, nd.result)
    e = ExpOp(ad.result, rounding=rounding)
    gt = CmpFOp(d.result, zero.result, "ogt")
    up = FmaOp(S, e.result, one.result)
    keep = AddFOp(S, e.result)
    s_next = SelectOp(gt.result, up.result, keep.result)
    m_next = MaxFOp(M, x)
    for op in (d, nd, ad, e, gt, up, keep, s_next, m_next):
        Rewriter.insert_op(op, at)
    new_loop = _reloop(loop, form, peeled, next_lb.result, (m_next.result, s_next.result), (m_init, zero.result))
    # after the loop: m = maxf(m1, max(M)), s = s1 * exp(m1 - m) + sum(S * exp(M - m))
    after = InsertPoint.after(new_loop)
    n = len(loop.results)
    Mf, Sf = new_loop.results[n], new_loop.results[n + 1]
    mt = _clone_chain(form.max_chain, Mf, after)
    mf = MaxFOp(new_loop.results[form.m_index], mt)
    Rewriter.insert_op(mf, after)
    bf = _clone_chain(form.bcast_chain, mf.result, after)
    diff = SubFOp(Mf, bf)
    scale = ExpOp(diff.result, rounding=rounding)
    weighted = MulFOp(Sf, scale.result)
    for op in (diff, scale, weighted):
        Rewriter.insert_op(op, after)
    sx = _clone_chain(form.sum_chain, weighted.result, after)
    m1c = new_loop.results[form.m_index]
    s1c = new_loop.results[form.s_index]
    dm = SubFOp(m1c, mf.result)
    cm = ExpOp(dm.result, rounding=rounding)
    sf = FmaOp(s1c, cm.result, sx)
    for op in (dm, cm, sf):
        Rewriter.insert_op(op, after)
    for k, (r_old, r_new) in enumerate(zip(loop.results, new_loop.results)):
        r_old.replace_all_uses_with(mf.result if k == form.m_index else sf.result if k == form.s_index else r_new)
    Rewriter.erase_op(loop)


def _clone_tagged(chain: list[Operation], start: SSAValue, at: InsertPoint, tag: str, first_only: bool) -> SSAValue:
    """:func:`_clone_chain`, ``tag`` set on the chain's first reduction (``first_only``) or on its first
    reduction to one element (``thread_partials.py``)."""
    v, tagged = start, False
    for op in chain:
        new = op.clone()
        new.operands[0] = v  # type: ignore[index]
        if not tagged and new.name == "nv_tileaa.reduce" and (first_only or _numel(new.results[0].type) == 1):
            new.attributes[tag] = UnitAttr()
            tagged = True
        Rewriter.insert_op(new, at)
        v = new.results[0]
    return v


def _scalar(v: SSAValue, at: InsertPoint) -> SSAValue:
    """``v`` (f32, or a one-element f32 tile) as an f32 scalar."""
    if not isinstance(v.type, TensorType):
        return v
    op = ExtractOp(v, [0] * len(v.type.get_shape()), f32)
    Rewriter.insert_op(op, at)
    return op.results[0]


def _like(v: SSAValue, t, at: InsertPoint) -> SSAValue:
    """The f32 scalar ``v`` as a value of type ``t`` (f32, or a one-element f32 tile)."""
    if not isinstance(t, TensorType):
        return v
    op = SplatOp.create(operands=[v], result_types=[t])
    Rewriter.insert_op(op, at)
    return op.results[0]


def _rewrite_thread(loop: scf.ForOp, form: _Form) -> None:
    """The per-thread form (module docstring): after the peeled first iteration (``m1``, ``s1``, as
    :func:`_rewrite`), the loop carries two f32 scalars per thread, ``mt`` (from ``m1``) and ``st``
    (from 0): each iteration folds the thread's own elements of ``x`` (``thread_partials.THREAD_PARTIAL``
    on the chains' reductions to one element: no shuffle, shared memory or barrier),

        mn = maxf(mt, max_own(x));   st' = st * exp(mt - mn) + sum_own(exp(x - mn));   mt' = mn

    and after the loop, when it ran (``lb + step < ub``; else ``m1``, ``s1``), ``m = maxf(m1, max over
    threads of mt)`` (the max chain over ``mt`` broadcast to ``x``'s shape), ``s = s1 * exp(m1 - m) + sum
    over threads of st * exp(mt - m)`` (the sum chain over that product broadcast, one value per
    thread: ``THREAD_COMBINE``)."""
    body = loop.body.blocks[0]
    before = InsertPoint.before(loop)
    peeled = _peel(loop, (form.exp, form.rescale))
    m1 = peeled[form.m_index]
    m_type = m1.type
    rounding = form.exp.rounding.data if form.exp.rounding is not None else None
    next_lb = arith.AddiOp(loop.lb, loop.step)
    zero = arith.ConstantOp(FloatAttr(0.0, f32))
    for op in (next_lb, zero):
        Rewriter.insert_op(op, before)
    mt_init = _scalar(m1, before)
    x, yielded = form.x, body.last_op
    mt = body.insert_arg(f32, len(body.args))
    st = body.insert_arg(f32, len(body.args))
    at = InsertPoint.before(yielded)
    own_max = _scalar(_clone_tagged(form.max_chain, x, at, THREAD_PARTIAL, False), at)
    mn = MaxFOp(mt, own_max)
    dm = SubFOp(mt, mn.result)
    scale = ExpOp(dm.result, rounding=rounding)
    for op in (mn, dm, scale):
        Rewriter.insert_op(op, at)
    b = _clone_chain(form.bcast_chain, _like(mn.result, m_type, at), at)
    d = SubFOp(x, b)
    ex = ExpOp(d.result, rounding=rounding)
    for op in (d, ex):
        Rewriter.insert_op(op, at)
    _as_sum_terms([scale, ex])
    own_sum = _scalar(_clone_tagged(form.sum_chain, ex.result, at, THREAD_PARTIAL, False), at)
    st_next = FmaOp(st, scale.result, own_sum)
    Rewriter.insert_op(st_next, at)
    new_loop = _reloop(loop, form, peeled, next_lb.result, (mn.result, st_next.result), (mt_init, zero.result))
    n = len(loop.results)
    mt_f, st_f = new_loop.results[n], new_loop.results[n + 1]
    m1c, s1c = new_loop.results[form.m_index], new_loop.results[form.s_index]
    # the combine only when the loop ran past the peeled iteration (else m1, s1 as they are)
    ran = arith.CmpiOp(next_lb.result, loop.ub, "slt")
    combine, keep = Block(), Block()
    keep.add_op(scf.YieldOp(m1c, s1c))
    joined = scf.IfOp(ran.result, [m1c.type, s1c.type], Region(combine), Region(keep))
    Rewriter.insert_op(ran, InsertPoint.after(new_loop))
    Rewriter.insert_op(joined, InsertPoint.after(ran))
    after = InsertPoint.at_end(combine)
    every_mt = _clone_chain(form.max_chain, _clone_chain(form.bcast_chain, _like(mt_f, m_type, after), after), after)
    mf = MaxFOp(m1c, every_mt)
    Rewriter.insert_op(mf, after)
    mf_s = _scalar(mf.result, after)
    dt = SubFOp(mt_f, mf_s)
    et = ExpOp(dt.result, rounding=rounding)
    wt = MulFOp(st_f, et.result)
    for op in (dt, et, wt):
        Rewriter.insert_op(op, after)
    w_tile = _clone_chain(form.bcast_chain, _like(wt.result, m_type, after), after)
    sx = _clone_tagged(form.sum_chain, w_tile, after, THREAD_COMBINE, True)
    dm1 = SubFOp(m1c, mf.result)
    cm = ExpOp(dm1.result, rounding=rounding)
    _as_sum_terms([et, cm])
    sf = FmaOp(s1c, cm.result, sx)
    for op in (dm1, cm, sf, scf.YieldOp(mf.result, sf.result)):
        Rewriter.insert_op(op, after)
    for k, (r_old, r_new) in enumerate(zip(loop.results, new_loop.results)):
        r_old.replace_all_uses_with(joined.results[0] if k == form.m_index else joined.results[1]
                                    if k == form.s_index else r_new)
    Rewriter.erase_op(loop)


def _dispatch(loop: scf.ForOp, form: _Form, trips: int, name: str) -> None:
    """``if lb + (trips - 1) * step < ub`` the rewritten loop (:func:`_rewrite_thread`, or :func:`_rewrite`
    for ``TILEORCH_ONLINE_SOFTMAX_FORM=element``), else the loop as written (for ``trips`` 1, a loop that
    runs no iteration: its initial values, no second copy of the loop)."""
    before = InsertPoint.before(loop)
    if trips == 1:
        long = arith.CmpiOp(loop.lb, loop.ub, "slt")
        Rewriter.insert_op(long, before)
    else:
        span = arith.ConstantOp(IntegerAttr(trips - 1, loop.step.type))
        last = arith.MuliOp(span.result, loop.step)
        at_last = arith.AddiOp(loop.lb, last.result)
        long = arith.CmpiOp(at_last.result, loop.ub, "slt")
        for op in (span, last, at_last, long):
            Rewriter.insert_op(op, before)
    types = [r.type for r in loop.results]
    then_block, else_block = Block(), Block()
    branch = scf.IfOp(long.result, types, Region(then_block), Region(else_block))
    Rewriter.insert_op(branch, before)
    for r_old, r_new in zip(loop.results, branch.results):
        r_old.replace_all_uses_with(r_new)
    if trips == 1:
        else_block.add_op(scf.YieldOp(*loop.iter_args))
    else:
        as_written = loop.clone()
        else_block.add_ops([as_written, scf.YieldOp(*as_written.results)])
    loop.detach()
    then_block.add_ops([loop, scf.YieldOp(*loop.results)])
    (_rewrite if name == "element" else _rewrite_thread)(loop, form)


def hoist_online_softmax(module: Operation) -> int:
    """Apply the rewrite (module docstring) to every ``scf.for`` of ``module``; loops rewritten."""
    trips, name = min_trips(), form_name()
    if trips == 0:
        return 0
    count = 0
    for loop in [op for op in module.walk() if isinstance(op, scf.ForOp)]:
        form = _match(loop)
        if form is not None:
            _dispatch(loop, form, trips, name)
            count += 1
    return count


@dataclass(frozen=True)
class HoistOnlineSoftmax(ModulePass):
    """A per-thread (or per-element) running max and sum in an online softmax loop (module docstring)."""

    name = "tileaa-hoist-online-softmax"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hoist_online_softmax(op)


__all__ = ["HoistOnlineSoftmax", "hoist_online_softmax"]
