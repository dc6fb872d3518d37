"""A program's reduction loop split over the CTAs of a cluster (SIMT path).

A program that walks a long axis in a loop and folds each tile into loop-carried accumulators
(a column sum over all rows, a row sum over all columns) runs on one SM.  When the grid has few
programs (a column sum of a 1024-wide matrix in 128-column tiles: 8 programs), most SMs idle
and each program is bounded by one SM's bandwidth.  The lowering compiles such a kernel so that
a *cluster* of ``S`` CTAs runs one program: CTA rank ``r`` runs iterations ``lb + r * step``,
``lb + (r + S) * step``, ... with the accumulators of ranks other than 0 starting at the fold's
identity; after the loop each CTA writes its accumulators to its shared memory, and rank 0
folds the other ranks' copies in (distributed shared memory: ``mapa``, between two cluster
barriers) and runs the rest of the program alone.  ``S`` is the launch's choice (``%cluster_
nctarank``; 1 when launched without a cluster), so one cubin serves every grid.  Floating-point
sums are reassociated (as any split reduction, the last bits may differ).

:func:`split_loop` says which loop, if any (the contract):

* the kernel body has exactly one top-level ``scf.for``; no op before it or inside it writes
  memory (``tiled_store``, ``store``, atomics), so ranks other than 0 have no visible effect;
* no access inside it has a memory order other than weak (an ``ACQUIRE`` load orders the later
  iterations' loads after it, which concurrent ranks would not);
* every loop-carried tile or scalar is folded by one associative, commutative op with an
  identity (:data:`IDENTITIES`): the yielded value is ``fold(arg, x)`` and ``arg`` has no other
  use (memory tokens and values yielded unchanged are carried as they are);
* program id x and the count along x become the cluster's (``%clusterid.x``, ``%nclusterid.x``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, SSAValue

from tileorch import settings
from tileorch.dialects.nv_tileaa.attrs import MemTokenType
from tileorch.dialects.nv_tileaa.ops import directed_rounding
from tileorch.transforms.tileaa_to_simt.prefetch import WRITES, ordered_access

CLUSTER_SPLIT_ATTR = "tileorch.cluster_split"
"""On a SIMT kernel: its reduction loop is split over the CTAs of a cluster (module docstring)."""
MAX_CLUSTER = 8
"""The largest cluster the launch uses (the portable size; :func:`max_cluster`)."""
NON_PORTABLE_CLUSTER = 16
"""The largest cluster sm_90 allows with the non-portable opt-in (the runtime sets it)."""
IDENTITIES = {
    "nv_tileaa.addf": 0.0, "nv_tileaa.mulf": 1.0, "nv_tileaa.maxf": -math.inf, "nv_tileaa.minf": math.inf,
    "nv_tileaa.addi": 0, "nv_tileaa.muli": 1,
}
"""Fold op -> its identity (the value ranks other than 0 start from; also the folds
``tileaa-hoist-loop-reductions`` takes)."""


def carried_fold(body: Block, arg: SSAValue, value: SSAValue) -> Operation | None:
    """The op of loop ``body`` that folds its iter arg ``arg`` into the yielded ``value``
    (``value = fold(arg, x)``, ``fold`` one of :data:`IDENTITIES`, ``arg`` and ``value`` used
    once), else None."""
    fold = value.owner
    if (not isinstance(fold, Operation) or fold.name not in IDENTITIES or fold.parent_block() is not body
            or arg not in fold.operands or arg.uses.get_length() != 1 or value.uses.get_length() != 1):
        return None
    return fold


@dataclass
class SplitLoop:
    """A reduction loop to split over a cluster's CTAs and the op folding each of its iter args."""

    loop: scf.ForOp
    folds: list[Operation | None]
    """Per iter arg: the op that folds it (None: a memory token or a value carried unchanged)."""


def enabled() -> bool:
    """``TILEORCH_CLUSTER_SPLIT=0`` compiles such loops as written (one CTA per program)."""
    return settings.value("TILEORCH_CLUSTER_SPLIT") != "0"


def max_cluster() -> int:
    """The largest cluster a split loop's launch may use: :data:`MAX_CLUSTER`;
    ``TILEORCH_CLUSTER_SPLIT_MAX=16`` allows the non-portable 16 (for measuring it)."""
    want = settings.integer("TILEORCH_CLUSTER_SPLIT_MAX") or MAX_CLUSTER
    return max(1, min(want, NON_PORTABLE_CLUSTER))


def _writes(op: Operation) -> bool:
    return any(inner.name in WRITES for inner in op.walk())


def _ordered(op: Operation) -> bool:
    """An access of ``op`` (or inside it) keeps its order (:func:`prefetch.ordered_access`): split, the
    loop's iterations would run concurrently on the cluster's CTAs, a later one's loads before an
    earlier one's acquire."""
    return any(ordered_access(inner) for inner in op.walk())


def split_loop(fn: Operation) -> SplitLoop | None:
    """The loop to split over a cluster (module docstring), or None."""
    if not enabled():
        return None
    top = list(fn.body.blocks[0].ops)
    loops = [op for op in top if isinstance(op, scf.ForOp)]
    if len(loops) != 1 or any(op.name == "scf.while" for op in top):
        return None
    loop = loops[0]
    for op in top:
        if op is loop:
            break
        if _writes(op):
            return None
    if _writes(loop) or _ordered(loop):
        return None
    if any(directed_rounding(inner) for inner in loop.walk()):  # split, the folds' order would change the
        return None  # bits a directed rounding keeps as written (the driver's remark says they are not rewritten)
    body = loop.body.blocks[0]
    yielded = body.last_op
    if not isinstance(yielded, scf.YieldOp):
        return None
    folds: list[Operation | None] = []
    for arg, value in zip(body.args[1:], yielded.operands):
        if isinstance(arg.type, MemTokenType) or value is arg:  # a token, or carried unchanged
            folds.append(None)
            continue
        fold = carried_fold(body, arg, value)
        if fold is None:
            return None
        folds.append(fold)
    if not any(f is not None for f in folds):
        return None
    return SplitLoop(loop, folds)


def identity(fold: Operation) -> float | int:
    """The identity of the fold op ``fold`` (:data:`IDENTITIES`)."""
    return IDENTITIES[fold.name]


__all__ = ["CLUSTER_SPLIT_ATTR", "IDENTITIES", "MAX_CLUSTER", "NON_PORTABLE_CLUSTER", "SplitLoop", "carried_fold",
           "identity", "max_cluster", "split_loop"]
