"""``tileaa-sum-after-max``: a sum of ``exp(x - m)`` over a row whose max ``m`` an earlier loop took over the same
tiles marks its exponentials as sum terms (``math_mode.SUM_TERM``: ``ex2.approx.ftz`` of ``d * log2 e``), as
``tileaa-hoist-online-softmax`` marks the online form's, under the same switch (``TILEORCH_ONLINE_SOFTMAX_EXP=ex2``,
the default).  A softmax written as three loops (max, sum of exponentials, write) spends ~9 instructions an element on
the sum loop's full-precision ``exp`` (PTX emulator, 8192 bf16 columns: ~51 thread-instructions an element in all,
against ~40 that a 4-bytes-an-element row may spend at the H100's copy rate).

Contract.  An ``nv_tileaa.exp`` ``E`` directly in the body of an ``scf.for`` ``L2`` is marked when

* ``E``'s one use is a one-operand ``reduce`` whose combiner is ``addf``, whose result reaches (through
  ``expand_dims`` / ``reshape``, one use each) an ``addf`` that folds an iter arg of ``L2`` (the loop's running sum):
  ``E``'s value only enters the sum;
* ``E``'s operand is ``subf(x2, b)``, ``b`` a shape op chain (``broadcast`` / ``expand_dims`` / ``reshape``) of a
  one-element result ``m`` (one row's max: a max per row of a multi-row tile is not proven to meet its own row
  after the shape ops) of an ``scf.for`` ``L1`` before ``L2`` in the same block, whose iter arg at ``m``'s position is folded
  by ``maxf`` with the (shape-op chain of a) ``reduce`` with a ``maxf`` combiner of a tile ``x1``: ``m`` is at least
  every element of every ``x1`` the loop saw (whatever its initial value; NaN stays NaN);
* ``x1`` and ``x2`` are the same ops (``fp_to_fp`` / ``extf`` conversions, same result types and attributes, or
  none) of ``tiled_load`` s ``A`` in ``L1`` and ``B`` in ``L2`` (directly in their bodies) that
  ``row_smem_cache.pair_refusal`` accepts -- ``B`` reads, at ``L2``'s iteration ``k``, the tile ``A`` read at
  ``L1``'s ``k``, and nothing wrote it between -- and whose padding agrees, or ``B``'s is ``NEG_INF``
  (a padded element then gives ``exp(-inf) = 0``).

Then every argument ``d = x2 - m`` is at most 0 (or NaN), and ``tileaa-hoist-online-softmax``'s bound on the sum's
error holds as it states.  The proof does not use the row cache's marks (the kernel compiled with or without the
cache computes the same exponentials).  Run on the SIMT path before the hoisting passes (the loops as written).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, TensorType, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tileorch import settings
from tileorch.transforms.math_mode import SUM_TERM
from tileorch.transforms.tileaa_to_simt.cluster_split import carried_fold
from tileorch.transforms.tileaa_to_simt.hoist_reductions import RESHAPES, combiner
from tileorch.transforms.tileaa_to_simt.row_smem_cache import _memref, pair_refusal

SPREADS = (*RESHAPES, "nv_tileaa.broadcast")
"""Shape ops from the row's max to the tile it is subtracted from."""
CONVERSIONS = ("nv_tileaa.fp_to_fp", "nv_tileaa.extf")
"""Element conversions allowed between a load and the tile it gives (the same in both loops)."""


def _owner(v: SSAValue) -> Operation | None:
    return v.owner if isinstance(v.owner, Operation) else None


def _strip(v: SSAValue, names, single_use: bool = False) -> SSAValue:
    """``v`` walked back through ops of ``names`` (their first operand)."""
    while (op := _owner(v)) is not None and op.name in names and (not single_use or v.uses.get_length() == 1):
        v = op.operands[0]
    return v


def _source_load(v: SSAValue) -> tuple[Operation, list[Operation]] | None:
    """The ``tiled_load`` ``v`` is converted from (through :data:`CONVERSIONS`) and the conversions, or None."""
    convs: list[Operation] = []
    op = _owner(v)
    while op is not None and op.name in CONVERSIONS:
        convs.append(op)
        op = _owner(op.operands[0])
    if op is None or op.name != "nv_tileaa.tiled_load" or v is op.results[1]:
        return None
    return op, convs


def _same_conversions(a: list[Operation], b: list[Operation]) -> bool:
    return len(a) == len(b) and all(x.name == y.name and x.results[0].type == y.results[0].type
                                    and x.attributes == y.attributes and x.properties == y.properties
                                    for x, y in zip(a, b))


def _sum_only(exp: Operation, loop: scf.ForOp) -> bool:
    """``exp``'s value enters only the running sum of ``loop`` (the module's first condition)."""
    body = loop.body.blocks[0]
    if exp.results[0].uses.get_length() != 1:
        return False
    red = next(iter(exp.results[0].uses)).operation
    if red.name != "nv_tileaa.reduce" or len(red.operands) != 1 or combiner(red) != "nv_tileaa.addf":
        return False
    v = red.results[0]
    while v.uses.get_length() == 1 and (user := next(iter(v.uses)).operation).name in RESHAPES:
        v = user.results[0]
    if v.uses.get_length() != 1:
        return False
    fold = next(iter(v.uses)).operation
    if fold.name != "nv_tileaa.addf" or fold.parent_block() is not body:
        return False
    yielded = body.last_op.operands
    for k, arg in enumerate(body.args[1:]):
        if arg in fold.operands and k < len(yielded) and carried_fold(body, arg, yielded[k]) is fold:
            return True
    return False


def _max_tile(m: SSAValue, before: list[Operation]) -> tuple[scf.ForOp, SSAValue] | None:
    """When ``m`` is a running max of a loop of ``before`` (the module's second condition): (the loop, the tile
    whose elements it is at least)."""
    loop = _owner(m)
    if not isinstance(loop, scf.ForOp) or loop not in before:
        return None
    body = loop.body.blocks[0]
    k = list(loop.results).index(m)
    fold = carried_fold(body, body.args[1 + k], body.last_op.operands[k])
    if fold is None or fold.name != "nv_tileaa.maxf":
        return None
    other = fold.operands[1] if fold.operands[0] is body.args[1 + k] else fold.operands[0]
    red = _owner(_strip(other, RESHAPES))
    if red is None or red.name != "nv_tileaa.reduce" or len(red.operands) != 1 or combiner(red) != "nv_tileaa.maxf":
        return None
    return loop, red.operands[0]


def _padding(load: Operation) -> str:
    return str(load.padding_value.value.data) if load.padding_value is not None else "zero"


def sum_term_refusal(exp: Operation, l2: scf.ForOp, before: list[Operation]) -> str | None:
    """None when ``exp`` (directly in ``l2``) is a sum term after a max (the module's contract), else why not."""
    if not _sum_only(exp, l2):
        return "not only a term of the loop's running sum"
    sub = _owner(exp.operands[0])
    if sub is None or sub.name != "nv_tileaa.subf":
        return "not exp(x - m)"
    x2, b = sub.operands
    m = _strip(b, SPREADS)
    if not isinstance(m.type, TensorType) or any(d != 1 for d in m.type.get_shape()):
        return "m is not one element (a max per row of several rows is not proven to meet its row)"
    found = _max_tile(m, before)
    if found is None:
        return "m is not an earlier loop's running max"
    l1, x1 = found
    s1, s2 = _source_load(x1), _source_load(x2)
    if s1 is None or s2 is None or not _same_conversions(s1[1], s2[1]):
        return "x is not the max loop's tile, loaded again and converted alike"
    a, ld = s1[0], s2[0]
    mem = _memref(a)
    if mem is None or _memref(ld) is not mem:  # (pair_refusal compares the views, not the arrays they tile)
        return "the sum loop reads another array than the max loop"
    if a.parent_op() is not l1 or ld.parent_op() is not l2 or not isinstance(pair_refusal(a, l1, ld, l2), int):
        return "the sum loop's load does not read the tiles the max loop read"
    if _padding(ld) not in (_padding(a), "neg_inf"):
        return "the sum loop's padding may exceed the max"
    return None


def mark_sum_terms(module: Operation) -> int:
    """Mark the exponentials of :func:`sum_term_refusal` (``math_mode.SUM_TERM``) when
    ``TILEORCH_ONLINE_SOFTMAX_EXP=ex2`` (the default) and not ``TILEORCH_SUM_AFTER_MAX=0``; how many."""
    from tileorch.transforms.tileaa_to_simt.hoist_online_softmax import exp_form

    if exp_form() != "ex2" or settings.value("TILEORCH_SUM_AFTER_MAX") == "0":
        return 0
    marked = 0
    for blk in [b for op in module.walk() for r in op.regions for b in r.blocks]:
        loops = [op for op in blk.ops if isinstance(op, scf.ForOp)]
        for j, l2 in enumerate(loops):
            for exp in [op for op in l2.body.blocks[0].ops if op.name == "nv_tileaa.exp"]:
                if SUM_TERM not in exp.attributes and sum_term_refusal(exp, l2, loops[:j]) is None:
                    exp.attributes[SUM_TERM] = UnitAttr()
                    marked += 1
    return marked


def remark(count: int) -> str:
    return (f"remark: {count} exponential(s) of a sum of exp(x - max) over a row whose max an earlier loop took "
            "over the same tiles computed as ex2.approx.ftz of (x - max)*log2(e) (their arguments are at most 0; "
            "tileaa-sum-after-max, TILEORCH_ONLINE_SOFTMAX_EXP=full: the program's exp)")


class SumAfterMax(ModulePass):
    """Mark the sum terms (the module's contract)."""

    name = "tileaa-sum-after-max"

    def apply(self, ctx, op: ModuleOp) -> None:
        mark_sum_terms(op)


__all__ = ["SumAfterMax", "mark_sum_terms", "remark", "sum_term_refusal"]
