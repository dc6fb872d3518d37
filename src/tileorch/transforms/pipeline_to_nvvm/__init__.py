"""``convert-pipeline-to-nvvm``: cutlass pipeline/barrier/scheduler ops and the nv_tileas async
family become nvvm + llvm + scf.

The pass runs in five steps:

0. stage regions (``produce``/``consume``, TileAS producer/consumer regions) are expanded into
   their handshake ops;
1. leaf patterns (one per op; see the ``PATTERNS`` list of each module), innermost first, so
   executor regions are still in place when a pattern asks which threads run it, then the
   definitions (pipeline/seq_bar create and init) whose properties the leaf patterns read;
2. region patterns (executor regions, executor switches, produce/consume and TileAS stage
   regions) inline their bodies under the right thread guards;
3. the wait-group dedup walker (:mod:`.dedup`);
4. remaining cutlass/nv_tileas/scheduler types become llvm types (one walk,
   :class:`LowerRemainingTypes`) and the conversion casts are reconciled.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker

from tileorch.transforms.arrive_counts import pin_multicast
from tileorch.transforms.pipeline_to_nvvm import (async_ops, barriers, block_striped, consumer, dedup, init, mods,
                                                  producer, regions, scheduler, state)
from tileorch.transforms.pipeline_to_nvvm.base import OpNameDispatch
from tileorch.transforms.pipeline_to_nvvm.grid_constant import mark_byval_params
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.types import ElementwiseTypeConversion, LowerTypes, OnlyConverting
from tileorch.transforms.dead_ops import GreedyApplier
from tileorch.transforms.fixpoint import reconcile_unrealized_casts, rewrite_to_fixpoint
from tileorch.transforms.rewrite_once import rewrite_once


def leaf_patterns(options: LoweringOptions) -> list:
    return [
        *state.PATTERNS,
        *producer.patterns(options),
        *consumer.patterns(options),
        *barriers.patterns(options),
        *async_ops.patterns(options),
        *block_striped.PATTERNS,
        *mods.PATTERNS,
        *scheduler.patterns(),
    ]


def _rewrite(module: ModuleOp, patterns: list, walk_regions_first: bool = False, always: bool = False) -> None:
    """One greedy walk of ``patterns`` (tried by op name, :class:`OpNameDispatch`), skipped
    unless ``always`` when no op of the module is one they lower: the leaf walk (``always``)
    runs the greedy applier's dead-code elimination to a fixed point, so a skipped walk would
    have changed nothing.  The walk visits only the ops a pattern names, the dead ones and what
    the rewrites create or touch, and a walk that would only confirm the fixpoint is not made
    (:func:`rewrite_to_fixpoint`)."""
    dispatch = OpNameDispatch(patterns)
    walker = PatternRewriteWalker(GreedyApplier([dispatch]), apply_recursively=True,
                                  walk_regions_first=walk_regions_first)
    names = dispatch.op_names()
    rewrite_to_fixpoint(walker, module.body, (lambda o: bool(dispatch.candidates(o.name))) if names is None else names,
                        skip_without_candidate=not always)


class LowerRemainingTypes(ElementwiseTypeConversion):
    """:class:`LowerTypes` then :class:`scheduler.LowerSchedulerTypes`, in one walk of the module
    (two walks were a tenth of the pass on a GEMM).  The two convert disjoint types
    (cutlass/nv_tileas pipeline, barrier and async types; tile-scheduler types) to llvm types,
    which neither converts, so composing them per type is applying them in sequence."""

    @staticmethod
    def lower(typ: Attribute) -> Attribute | None:
        first = LowerTypes.lower(typ)
        second = scheduler.LowerSchedulerTypes.lower(typ if first is None else first)
        return first if second is None else second


MAX_DEBUG_TIMEOUT = 2**32 - 1
"""The most polls ``debug-timeout`` counts (an i32 counter compared unsigned)."""


@dataclass(frozen=True)
class ConvertPipelineToNVVM(ModulePass):
    """Lower cutlass.pipeline/seq_bar/barrier/block_striped/MODS/tile_scheduler ops and the
    nv_tileas async family to nvvm; ``debug-timeout=N`` (N > 0) makes every mbarrier and
    semaphore wait print the barrier it waits on and trap after N unsuccessful polls."""

    name = "convert-pipeline-to-nvvm"
    debug_timeout: int = 0

    def __post_init__(self) -> None:
        # the poll counter is an i32 compared unsigned: 2**32 + 5 trapped after 5 polls while its
        # message said 4294967301
        if not 0 <= self.debug_timeout <= MAX_DEBUG_TIMEOUT:
            raise ValueError(f"convert-pipeline-to-nvvm: debug-timeout must be in [0, {MAX_DEBUG_TIMEOUT}] (0 = off; "
                             f"the polls are counted in 32 bits), got {self.debug_timeout}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        options = LoweringOptions(debug_timeout=self.debug_timeout)
        # the four preparation steps share one walk: each reads the ops it needs off it (pin and
        # fold add or erase no op the others look for; fold's erased queries and the dropped
        # functions are recognized as gone)
        census = list(op.walk())
        pin_multicast(op, census)
        scheduler.fold_static_queries(op, census)
        scheduler.drop_host_functions(op, census)
        mark_byval_params(op, census)
        _rewrite(op, regions.expansion_patterns())
        _rewrite(op, leaf_patterns(options), walk_regions_first=True, always=True)
        _rewrite(op, [*init.patterns(options), *scheduler.constructor_patterns()])
        _rewrite(op, regions.patterns(options), walk_regions_first=True)
        dedup.dedup_wait_groups(op)
        # one walk: each op's conversion reads only its own types and attributes, and converted
        # types convert no further (a recursive walker would walk the whole module again to find
        # nothing left)
        # (only on the ops that carry such a type: OnlyConverting)
        rewrite_once(OnlyConverting(LowerRemainingTypes(recursive=True)), op.body)
        reconcile_unrealized_casts(op)  # xDSL's pass, without its confirming walk
