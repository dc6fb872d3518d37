"""``tileaa-exp-below-lse``: ``exp(x - lse)`` over a row whose log-sum-exp an earlier loop took over the same tiles is
computed as ``ex2.approx.ftz((x - lse) * log2 e)`` (``TILEORCH_EXP_BELOW_LSE``, default on with
``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``).  A softmax / cross-entropy backward writes ``p = exp(x - lse)`` tile by tile
after the online max / sum loop; the spec's full-precision ``exp`` (``Emitter.exp_full``) spends ~8 instructions an
element on it, this form two (one multiply, one ``ex2``; the subtraction is the program's): the CE forward + backward over 32000 columns runs
at 0.77 of the copy rate on an H100 (session 32), its second loop's arithmetic on the critical path.

Contract.  An ``nv_tileaa.exp`` ``E`` of f32 elements directly in the body of an ``scf.for`` ``L2`` is rewritten when

* ``E``'s operand is ``subf(x2, b)``, ``b`` a shape-op chain (``broadcast`` / ``expand_dims`` / ``reshape``) of a
  one-element ``lse = addf(m, log(s))`` (either operand order), ``m`` and ``s`` results of one ``scf.for`` ``L1``
  before ``L2`` in the same block;
* ``m`` is ``L1``'s running max of tiles ``x1`` (folded by ``maxf`` with a ``maxf`` reduction of ``x1``), and ``s`` its running sum of exponentials against that max: its carried value is
  ``fma(s, exp(subf(m_old, m_new)), t)`` (or ``addf(mulf(...), t)``), ``m_old`` the max's iter arg, ``m_new`` its
  fold, ``t`` (a shape-op chain of) an ``addf`` reduction of ``exp(subf(x1, b1))``, ``b1`` a shape-op chain of
  ``m_new`` and ``x1`` the very tile the max reduced; ``s`` starts from a constant ``>= 0``;
* ``x1`` and ``x2`` are the same conversions of loads of the same tiles (``row_smem_cache.pair_refusal``, as
  ``sum_after_max.py`` asks), and ``x2``'s padding is ``x1``'s or ``NEG_INF`` -- or else ``E``'s value reaches only
  ``tiled_store`` s through elementwise ops (a padded element's value is then stored nowhere the loaded array
  has an element; see below).

Why the argument is at most 0.  At the iteration whose tile holds the row's max ``M`` (a finite one), ``t`` has the
term ``exp(M - M) = 1`` and every term is ``>= 0``, so ``s >= 1`` from then on (an iteration that keeps ``M``
multiplies ``s`` by ``exp(0) = 1``; rounding is monotone); ``log(s) >= 0`` and ``lse = M + log(s) >= M >= x``
for every element ``x`` of the row, so ``d = x - lse <= 0``.  (The online loop's exponentials may be the
``ex2.approx`` forms ``tileaa-hoist-online-softmax`` gives them: ``ex2(0) = 1`` exactly.)  A row whose max is
``-inf`` (all padding) or NaN gives ``lse = -inf`` or NaN, and both forms then agree (``inf`` / NaN / 0).

Error bound.  ``d = x - lse`` rounded as the program's own (at most ``|d| 2^-24``), ``t = d log2 e`` rounded once
(at most ``|t| 2^-24``), then ``ex2.approx.ftz`` (about ``2^-22`` relative): ``2^t'`` is within
``2^t (ln 2 |t| 2^-23 + 2^-22)`` of ``e^d``, first order; as ``d <= 0`` (``2^t <= 1``, ``ln 2 |t| 2^t <= 1 / e``):
**absolute error at most ``2^-24 + 2^-22``** (so within the looser ``(|lse| + 1) 2^-24 + 2^-22`` of the first,
folded form: ``fma(x, log2 e, -lse log2 e)`` rounded ``lse log2 e`` and carried ``|lse| 2^-24``, 3.3e-4 at ``|lse|``
= 1e4, session 34's review), and results below ``2^-126`` flushed to 0.  A softmax probability written as bf16 (``2^-9`` relative) or used in
``p - onehot`` (cancellation next to 1) keeps its accuracy.  An element padded with zeros where the max loop
padded with ``-inf`` is not covered by the proof (its ``d = -lse``): only accepted where its value is stored
alone, so it is observed only where the store's array is wider than the loaded one.

``TILEORCH_EXP_BELOW_LSE=0`` (or ``TILEORCH_ONLINE_SOFTMAX_EXP=full``) keeps the program's ``exp``.  Run on the
SIMT path on the loops as written (before ``tileaa-hoist-online-softmax``), beside ``tileaa-sum-after-max``.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, Float32Type, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileorch import settings
from tileorch.dialects.nv_tileaa.ops import ELEMENTWISE_OPS, Exp2Op, MulFOp
from tileorch.transforms.tileaa_to_simt.hoist_reductions import RESHAPES, combiner
from tileorch.transforms.tileaa_to_simt.row_smem_cache import _memref, pair_refusal
from tileorch.transforms.tileaa_to_simt.sum_after_max import (SPREADS, _owner, _padding, _same_conversions,
                                                              _source_load, _strip)

ENV = "TILEORCH_EXP_BELOW_LSE"
ELEMENTWISE = {c.name for c in ELEMENTWISE_OPS} | {"nv_tileaa.fp_to_fp", "nv_tileaa.extf", "nv_tileaa.truncf",
                                                  "nv_tileaa.select", "nv_tileaa.cmpf"}
"""Ops that map element ``i`` of their operands to element ``i`` of their result (same shape)."""


def enabled() -> bool:
    from tileorch.transforms.tileaa_to_simt.hoist_online_softmax import exp_form

    return exp_form() == "ex2" and settings.value(ENV) != "0"


def _is_const_at_least_zero(v: SSAValue) -> bool:
    """``v`` is a constant (or a splat / shape-op chain of one) whose elements are all ``>= 0``."""
    v = _strip(v, (*SPREADS, "nv_tileaa.splat"))
    op = _owner(v)
    if op is None or op.name != "arith.constant":
        return False
    val = op.value
    if isinstance(val, DenseIntOrFPElementsAttr):
        vals = [float(x) for x in val.get_values()]
    else:
        vals = [float(val.value.data)] if hasattr(val, "value") else []
    return bool(vals) and all(x >= 0.0 for x in vals)  # (NaN compares false: refused)


def _is_exp_of_difference(v: SSAValue, a: SSAValue, b: SSAValue) -> bool:
    """``v = exp(subf(a, b))``."""
    e = _owner(v)
    if e is None or e.name != "nv_tileaa.exp":
        return False
    d = _owner(e.operands[0])
    return d is not None and d.name == "nv_tileaa.subf" and d.operands[0] is a and d.operands[1] is b


def _running_max(m: SSAValue, before: list[Operation]) -> tuple[scf.ForOp, SSAValue] | None:
    """When ``m`` is a running max of a loop of ``before``: (the loop, the tile whose elements it is at least).
    As ``sum_after_max._max_tile``, but the max's iter arg may have other uses (the online sum's rescale reads it):
    ``m_new = maxf(m_old, max(x1))`` is at least every element of ``x1`` whatever else reads ``m_old``."""
    loop = _owner(m)
    if not isinstance(loop, scf.ForOp) or loop not in before:
        return None
    body = loop.body.blocks[0]
    k = list(loop.results).index(m)
    arg, fold = body.args[1 + k], _owner(body.last_op.operands[k])
    if fold is None or fold.name != "nv_tileaa.maxf" or fold.parent_block() is not body or arg not in fold.operands:
        return None
    other = fold.operands[1] if fold.operands[0] is arg else fold.operands[0]
    red = _owner(_strip(other, RESHAPES))
    if red is None or red.name != "nv_tileaa.reduce" or len(red.operands) != 1 or combiner(red) != "nv_tileaa.maxf":
        return None
    return loop, red.operands[0]


def _sum_refusal(loop: scf.ForOp, s_index: int, m_index: int, x1: SSAValue) -> str | None:
    """None when ``loop``'s result ``s_index`` is the running sum of ``exp(x1 - m_new)`` against its running max at
    ``m_index`` (the module's contract), else why not."""
    body = loop.body.blocks[0]
    s_arg, m_arg = body.args[1 + s_index], body.args[1 + m_index]
    yielded = body.last_op.operands
    m_new = yielded[m_index]
    fold = _owner(yielded[s_index])
    if fold is None or fold.parent_block() is not body or s_arg.uses.get_length() != 1:
        return "s is not the loop's running sum"
    if fold.name == "nv_tileaa.fma" and fold.operands[0] is s_arg:
        scale, term = fold.operands[1], fold.operands[2]
    elif fold.name == "nv_tileaa.addf":
        mul = next((_owner(o) for o in fold.operands if _owner(o) is not None and _owner(o).name == "nv_tileaa.mulf"
                    and s_arg in _owner(o).operands), None)
        if mul is None:
            return "s is not rescaled by the max's change"
        scale = mul.operands[1] if mul.operands[0] is s_arg else mul.operands[0]
        term = fold.operands[1] if _owner(fold.operands[0]) is mul else fold.operands[0]
    else:
        return "s is not folded by fma / addf"
    if not _is_exp_of_difference(scale, m_arg, m_new):
        return "s is not rescaled by exp(m_old - m_new)"
    red = _owner(_strip(term, RESHAPES))
    if red is None or red.name != "nv_tileaa.reduce" or len(red.operands) != 1 or combiner(red) != "nv_tileaa.addf":
        return "s does not add a sum of the tile's exponentials"
    e = _owner(red.operands[0])
    d = _owner(e.operands[0]) if e is not None and e.name == "nv_tileaa.exp" else None
    if d is None or d.name != "nv_tileaa.subf" or d.operands[0] is not x1 or _strip(d.operands[1], SPREADS) is not m_new:
        return "s's terms are not exp(x - m_new) of the tile the max reduced"
    if not _is_const_at_least_zero(loop.iter_args[s_index]):
        return "s does not start from a constant >= 0"
    return None


def _stored_alone(v: SSAValue) -> bool:
    """Every use of ``v`` reaches only ``tiled_store`` s (as the stored tile) through elementwise ops of the same
    shape."""
    shape = v.type.get_shape()
    todo, seen = [v], set()
    while todo:
        x = todo.pop()
        for use in x.uses:
            user = use.operation
            if user in seen:
                continue
            seen.add(user)
            if user.name == "nv_tileaa.tiled_store" and user.tile is x and x not in user.indices:
                continue
            if user.name not in ELEMENTWISE or user.regions or any(
                    not isinstance(r.type, TensorType) or r.type.get_shape() != shape for r in user.results):
                return False
            todo.extend(user.results)
    return True


def lse_refusal(exp: Operation, l2: scf.ForOp, before: list[Operation]) -> str | None:
    """None when ``exp`` (directly in ``l2``) is ``exp(x - lse)`` of the module's contract, else why not."""
    if not isinstance(exp.results[0].type, TensorType) or not isinstance(exp.results[0].type.element_type,
                                                                         Float32Type):
        return "not an f32 tile"
    sub = _owner(exp.operands[0])
    if sub is None or sub.name != "nv_tileaa.subf":
        return "not exp(x - lse)"
    x2, b = sub.operands
    lse = _strip(b, SPREADS)
    if not isinstance(lse.type, TensorType) or any(d != 1 for d in lse.type.get_shape()):
        return "lse is not one element"
    add = _owner(lse)
    if add is None or add.name != "nv_tileaa.addf":
        return "lse is not m + log(s)"
    logs = [o for o in add.operands if _owner(o) is not None and _owner(o).name == "nv_tileaa.log"]
    if len(logs) != 1:
        return "lse is not m + log(s)"
    m = add.operands[1] if add.operands[0] is logs[0] else add.operands[0]
    s = _owner(logs[0]).operands[0]
    found = _running_max(m, before)
    if found is None:
        return "m is not an earlier loop's running max"
    l1, x1 = found
    if _owner(s) is not l1:
        return "s is not a result of the max's loop"
    why = _sum_refusal(l1, list(l1.results).index(s), list(l1.results).index(m), x1)
    if why is not None:
        return why
    s1, s2 = _source_load(x1), _source_load(x2)
    if s1 is None or s2 is None or not _same_conversions(s1[1], s2[1]):
        return "x is not the max loop's tile, loaded again and converted alike"
    a, ld = s1[0], s2[0]
    mem = _memref(a)
    if mem is None or _memref(ld) is not mem:
        return "the loop reads another array than the max loop"
    if a.parent_op() is not l1 or ld.parent_op() is not l2 or not isinstance(pair_refusal(a, l1, ld, l2), int):
        return "the loop's load does not read the tiles the max loop read"
    if _padding(ld) not in (_padding(a), "neg_inf") and not _stored_alone(exp.results[0]):
        return "the loop's padding may exceed the max and the padded exponentials are used"
    return None


def _constant(t: TensorType, value: float) -> arith.ConstantOp:
    n = math.prod(t.get_shape())
    return arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [value] * n))


def _rewrite(exp: Operation) -> None:
    """``exp(subf(x2, b))`` -> ``exp2(subf(x2, b) * log2 e)``: the difference kept as written (exact where ``x2``
    and ``b`` are close, so no error grows with ``|b|``: a folded ``fma(x2, log2 e, b * -log2 e)`` carried
    ``|lse| * 2^-24`` from rounding ``b * log2 e``, 3.3e-4 at ``|lse|`` = 1e4), one multiply, then ``ex2``."""
    sub = exp.operands[0].owner
    log2e = _constant(sub.results[0].type, math.log2(math.e))
    scaled = MulFOp(sub.results[0], log2e.result)
    e2 = Exp2Op(scaled.results[0])
    Rewriter.insert_op([log2e, scaled, e2], InsertPoint.before(exp))
    exp.results[0].replace_all_uses_with(e2.results[0])
    exp.detach()
    exp.erase()


def rewrite_module(module: Operation) -> int:
    """Rewrite the exponentials of :func:`lse_refusal` when :func:`enabled`; how many."""
    if not enabled():
        return 0
    done = 0
    for blk in [b for op in module.walk() for r in op.regions for b in r.blocks]:
        loops = [op for op in blk.ops if isinstance(op, scf.ForOp)]
        for j, l2 in enumerate(loops):
            for exp in [op for op in l2.body.blocks[0].ops if op.name == "nv_tileaa.exp"]:
                if lse_refusal(exp, l2, loops[:j]) is None:
                    _rewrite(exp)
                    done += 1
    return done


def remark(count: int) -> str:
    return (f"remark: {count} exponential(s) exp(x - lse) of a row whose log-sum-exp an earlier loop took over the "
            "same tiles computed as ex2.approx.ftz((x - lse) * log2 e) (their arguments are at most 0: "
            "absolute error at most 2^-24 + 2^-22, results below 2^-126 flushed; "
            f"tileaa_to_simt/exp_below_lse.py, {ENV}=0: the program's exp)")


class ExpBelowLse(ModulePass):
    """Rewrite the exponentials of the module's contract."""

    name = "tileaa-exp-below-lse"

    def apply(self, ctx, op: ModuleOp) -> None:
        rewrite_module(op)


__all__ = ["ENV", "ExpBelowLse", "enabled", "lse_refusal", "remark", "rewrite_module"]
