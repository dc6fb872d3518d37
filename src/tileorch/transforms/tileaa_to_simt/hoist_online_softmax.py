"""``tileaa-hoist-online-softmax``: a loop folding each tile into a running max and sum of
exponentials (online softmax / log-sum-exp: cross entropy, logsumexp, a vocabulary softmax) keeps a
running max and sum *per element* in registers and reduces them once, after the loop.

The form taken (``m``, ``s`` iter args; ``x`` a float tile of the body; the reductions may go
through unit-dimension reductions, ``extract``, ``reshape``, ``expand_dims``, ``splat``,
``broadcast``)::

    m_new = maxf(m, max(x))
    s_new = s * exp(m - m_new) + sum(exp(x - broadcast(m_new)))       (fma or mulf + addf)

Per iteration it reduces two tiles across threads (shuffles, shared memory and barriers, twice per
tile), the SIMT path's cost for a long row (a 32000-wide cross entropy spends more instructions on
them than on its exponentials).  Rewritten, the loop carries two tiles of ``x``'s type, ``M``
(running max of each element position) and ``S`` (its sum of ``exp(x - M)``), with one
exponential per element as before:

    d = x - M;   e = exp(-|d|)
    S' = d > 0 ? S * e + 1 : S + e          (a new max at this position: S rescaled to x)
    M' = maxf(M, x)

and after the loop ``m = maxf(m1, max(M))``, ``s = s1 * exp(m1 - m) + sum(S * exp(M - m))``
(``m1``, ``s1`` below).  ``S`` is ``sum exp(x - M)`` over the position's values in exact arithmetic,
so ``s`` is the loop's value reassociated (as any reduction order).

Special values as the original loop: it yields NaN when a NaN or a ``+inf`` is in the row or
when its *first* tile is all ``-inf`` (``exp(-inf - -inf)``); otherwise ``-inf`` elements add 0.
To keep that, the first iteration is *peeled* and computed as written (``m1``, ``s1``: NaN in the
last case), and the tiles start at ``M = m1`` (finite there: no ``-inf - -inf`` in the loop),
``S = 0``; a NaN ``x`` makes its ``S`` NaN, a ``+inf`` makes ``M`` ``+inf`` and the final
``exp(M - m)`` NaN.

The rewritten loop runs when the loop has at least :data:`MIN_TRIPS` iterations (a uniform branch
on ``lb + (MIN_TRIPS - 1) * step < ub``); a shorter one runs as written, in the other branch.

Taken only when the body holds no memory write, no region but reductions' combiners, no load but
``tiled_load``, the loop carries nothing but ``m``, ``s`` and memory tokens, ``m`` and ``s`` are f32
scalars or one-element f32 tiles, and every intermediate value is used only by the form.
**Opt-in until a GPU measures it**: the rewrite runs only with ``TILEORCH_ONLINE_SOFTMAX=N`` (loops
of at least ``N`` iterations; :data:`MIN_TRIPS` is the emulator's break-even); unset or ``0`` keeps
such loops as written.  The CPU evidence is fewer instructions and barriers per element, but the
rewritten cross entropy needs 56 registers a thread instead of 32 (9 resident CTAs of 128 threads
per SM instead of 16: fewer bytes in flight, which a memory-bound loop may need more than the
instructions it saves); ``benchmarks/session24_rowred.sh`` is the A/B that decides.  Run on the SIMT path
before ``tileaa-hoist-loop-reductions``.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, Float32Type, IntegerAttr, ModuleOp, TensorType, f32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch import settings
from tileorch.dialects.nv_tileaa.attrs import MemTokenType
from tileorch.dialects.nv_tileaa.ops import (AddFOp, ExpOp, FmaOp, MaxFOp, MinFOp, MulFOp, NegFOp, SubFOp)
from tileorch.dialects.nv_tileaa.tile_ops import CmpFOp, SelectOp
from tileorch.transforms.tileaa_to_simt.hoist_reductions import combiner
from tileorch.transforms.tileaa_to_simt.prefetch import WRITES

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
    """The fewest iterations a loop runs rewritten: ``TILEORCH_ONLINE_SOFTMAX=N`` (1: always
    rewritten; :data:`MIN_TRIPS` the emulator's break-even); 0, the default: the rewrite is off,
    every loop as written (opt-in until measured on a GPU, module docstring)."""
    return settings.integer("TILEORCH_ONLINE_SOFTMAX")


@dataclass
class _Form:
    m_index: int  # iter arg positions (after the induction variable)
    s_index: int
    x: SSAValue  # the folded tile
    max_chain: list[Operation]  # x -> max(x) (reductions and shape ops, in order)
    sum_chain: list[Operation]  # exp(x - b) -> sum(...)
    bcast_chain: list[Operation]  # m_new -> b (x's shape)
    exp: Operation  # exp(x - b): its rounding is the new exponentials'
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
    return _Form(mi, si, x, max_chain, sum_chain, bcast_chain, e_exp, dead)


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


def _rewrite(loop: scf.ForOp, form: _Form) -> None:
    body = loop.body.blocks[0]
    before = InsertPoint.before(loop)
    # the peeled first iteration, as written (iv = lb, iter args = inits)
    mapping: dict[SSAValue, SSAValue] = {body.args[0]: loop.lb}
    mapping.update(zip(body.args[1:], loop.iter_args))
    for op in body.ops:
        if op is body.last_op:
            break
        Rewriter.insert_op(op.clone(value_mapper=mapping), before)
    peeled = [mapping.get(v, v) for v in body.last_op.operands]
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
    outs = list(yielded.operands)
    outs[form.m_index] = body.args[1 + form.m_index]  # carried unchanged (m1, s1)
    outs[form.s_index] = body.args[1 + form.s_index]
    Rewriter.replace_op(yielded, scf.YieldOp(*outs, m_next.result, s_next.result))
    for op in form.dead:
        Rewriter.erase_op(op)
    inits = list(peeled)
    new_loop = scf.ForOp(next_lb.result, loop.ub, loop.step, [*inits, m_init, zero.result], loop.detach_region(0))
    Rewriter.insert_op(new_loop, before)
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


def _dispatch(loop: scf.ForOp, form: _Form, trips: int) -> None:
    """``if lb + (trips - 1) * step < ub`` the rewritten loop (:func:`_rewrite`), else the loop as written."""
    before = InsertPoint.before(loop)
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
    as_written = loop.clone()
    else_block.add_ops([as_written, scf.YieldOp(*as_written.results)])
    loop.detach()
    then_block.add_ops([loop, scf.YieldOp(*loop.results)])
    _rewrite(loop, form)


def hoist_online_softmax(module: Operation) -> int:
    """Apply the rewrite (module docstring) to every ``scf.for`` of ``module``; loops rewritten."""
    trips = min_trips()
    if trips == 0:
        return 0
    count = 0
    for loop in [op for op in module.walk() if isinstance(op, scf.ForOp)]:
        form = _match(loop)
        if form is not None:
            _dispatch(loop, form, trips)
            count += 1
    return count


@dataclass(frozen=True)
class HoistOnlineSoftmax(ModulePass):
    """Per-element running max and sum in an online softmax loop (module docstring)."""

    name = "tileaa-hoist-online-softmax"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        hoist_online_softmax(op)


__all__ = ["HoistOnlineSoftmax", "hoist_online_softmax"]
