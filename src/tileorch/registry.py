"""The dialects, passes and targets tileorch adds to xDSL, as lazy ``module:attr`` references.

Add one line per new entry; ``tileorch-opt`` and :func:`make_context` read these tables.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

import tileorch.dialects.lazy_formats  # noqa: F401,I001  (first: the op formats of dialects defined from here parse on first use)
import tileorch.dialects.mro_checks  # noqa: F401,I001  (then: IR classes answer isinstance from their MRO)
from xdsl.context import Context

# dialect name -> "module:Dialect object" (an entry named like an xDSL dialect replaces it)
DIALECTS: dict[str, str] = {
    "cutlass": "tileorch.dialects.cutlass:Cutlass",
    "cuda_tile": "tileorch.dialects.cuda_tile:CudaTile",
    "nv_tileas": "tileorch.dialects.nv_tileas_tile:NvTileasAll",
    "nv_tileaa": "tileorch.dialects.nv_tileaa:NvTileaa",
    "llvm": "tileorch.dialects.llvm_ext:ExtendedLLVM",
    "nvvm": "tileorch.dialects.nvvm:NVVM",
    "atom": "tileorch.dialects.atoms:Atom",
    "cute_nvgpu": "tileorch.dialects.cute_nvgpu:CuteNvgpu",
}

# pass name -> "module:ModulePass subclass"
PASSES: dict[str, str] = {
    "verify-pipelines": "tileorch.transforms.verify_pipelines:VerifyPipelines",
    "convert-cudatile-to-tileaa": "tileorch.transforms.cudatile_to_tileaa:ConvertCudaTileToTileAA",
    "convert-nv-tileaa-to-simt": "tileorch.transforms.tileaa_to_simt.convert:ConvertNvTileaaToSimt",
    "tileaa-transpose-column-major": "tileorch.transforms.transpose_column_major:TransposeColumnMajor",
    "tileaa-narrow-widened-dot-operands": "tileorch.transforms.narrow_widened_dot:NarrowWidenedDotOperands",
    "tileaa-hoist-loop-reductions": "tileorch.transforms.tileaa_to_simt.hoist_reductions:HoistLoopReductions",
    "tileaa-hoist-online-softmax": "tileorch.transforms.tileaa_to_simt.hoist_online_softmax:HoistOnlineSoftmax",
    "tileaa-row-smem-cache": "tileorch.transforms.tileaa_to_simt.row_smem_cache:RowSmemCache",
    "tileaa-sum-after-max": "tileorch.transforms.tileaa_to_simt.sum_after_max:SumAfterMax",
    "tileaa-exp-below-lse": "tileorch.transforms.tileaa_to_simt.exp_below_lse:ExpBelowLse",
    "convert-atoms-to-nvvm": "tileorch.transforms.atoms_to_nvvm:ConvertAtomsToNVVM",
    "cutlass-stamp-arrive-counts": "tileorch.transforms.arrive_counts:StampArriveCounts",
    "cutlass-allocate-barrier-ids": "tileorch.transforms.barrier_ids:AllocateBarrierIds",
    "convert-gpu-ids-to-nvvm": "tileorch.transforms.gpu_ids_to_nvvm:ConvertGpuIdsToNVVM",
    "convert-nvvm-to-llvm": "tileorch.transforms.nvvm_to_llvm:ConvertNVVMToLLVM",
    "convert-blackwell-cluster-emitters": "tileorch.transforms.blackwell_cluster_emitters:ConvertBlackwellClusterEmitters",
    "convert-arith-to-llvm": "tileorch.transforms.arith_to_llvm:ConvertArithToLLVM",
    "convert-cf-to-llvm": "tileorch.transforms.cf_to_llvm:ConvertCfToLLVM",
    "convert-func-to-llvm": "tileorch.transforms.func_to_llvm:ConvertFuncToLLVM",
    "convert-index-to-llvm": "tileorch.transforms.index_to_llvm:ConvertIndexToLLVM",
    "convert-scf-while-to-cf": "tileorch.transforms.scf_while_to_cf:ConvertScfWhileToCf",
    "reconcile-unrealized-casts": "tileorch.transforms.fixpoint:ReconcileUnrealizedCasts",  # xDSL's, visiting only casts
    "cse-constants": "tileorch.transforms.cse_constants:CseConstants",
    "lower-to-llvm": "tileorch.backend.pipeline:LowerToLLVM",
    "convert-pipeline-to-nvvm": "tileorch.transforms.pipeline_to_nvvm:ConvertPipelineToNVVM",
    "bound-barrier-waits": "tileorch.transforms.bound_waits:BoundBarrierWaits",
    "nvvm-auto-gdc-insertion": "tileorch.transforms.gdc_insertion:NvvmAutoGdcInsertion",
    "verify-gdc-wait": "tileorch.transforms.gdc_insertion:VerifyGdcWait",
    "lower-cutlass-pipeline-to-tileas": "tileorch.transforms.cutlass_to_tileas:LowerCutlassPipelineToTileas",
    # the TileAS tier (docs/tileas-tier.md), under tileiras' pass names
    "convert-tileaa-to-tileas": "tileorch.transforms.tileaa_to_tileas:ConvertTileAAToTileAS",
    "tileas-assign-dot-layouts": "tileorch.transforms.tileas.assign_dot_layouts:AssignDotLayouts",
    "tileas-assign-load-store-layouts": "tileorch.transforms.tileas.assign_load_store_layouts:AssignLoadStoreLayouts",
    "tileas-remove-layout-conversions": "tileorch.transforms.tileas.remove_layout_conversions:RemoveLayoutConversions",
    "tileas-materialize-schedule": "tileorch.transforms.tileas.materialize_schedule:MaterializeSchedule",
    "optimize-execution-unit-mapping": "tileorch.transforms.tileas.optimize_execution_unit_mapping:OptimizeExecutionUnitMapping",
    "propagate-execution-unit": "tileorch.transforms.tileas.propagate_execution_unit:PropagateExecutionUnit",
    "tileas-insert-OCG-knobs": "tileorch.transforms.tileas.insert_ocg_knobs:InsertOCGKnobs",
    "sink-negf-through-shapes": "tileorch.transforms.tileas.sink_negf_through_shapes:SinkNegFThroughShapes",
    "tileas-split-batch-tiles": "tileorch.transforms.tileas.split_batch_tiles:SplitBatchTiles",
    "tileas-squeeze-unit-batch-dots": "tileorch.transforms.tileas.squeeze_unit_batch:SqueezeUnitBatchDots",
    "tileas-column-loop-to-tiles": "tileorch.transforms.tileas.column_loop_to_tiles:ColumnLoopToTiles",
    "tileas-program-loop-to-tiles": "tileorch.transforms.tileas.program_loop_to_tiles:ProgramLoopToTiles",
    "tileas-fold-dot-accumulate": "tileorch.transforms.tileas.fold_dot_accumulate:FoldDotAccumulate",
    "tileas-fold-tf32-operands": "tileorch.transforms.tileas.fold_tf32_operands:FoldTf32Operands",
    "tileas-fuse-split-loops": "tileorch.transforms.tileas.fuse_split_loops:FuseSplitLoops",
    "tileas-unpeel-k-loop": "tileorch.transforms.tileas.unpeel_k_loop:UnpeelKLoop",
    "tileas-view-order-to-reshape": "tileorch.transforms.tileas.view_order:ViewOrderToReshape",
    "tileas-while-to-for": "tileorch.transforms.tileas.while_to_for:WhileToFor",
    "tileas-guarded-k-loop": "tileorch.transforms.tileas.guarded_k_loop:GuardedKLoop",
    "tileas-scalar-tile-loads": "tileorch.transforms.tileas.scalar_tile_loads:ScalarTileLoads",
    "tileas-paged-gather": "tileorch.transforms.tileas.paged_gather:PagedGather",
    "tileas-row-window-gather": "tileorch.transforms.tileas.row_window_gather:RowWindowGather",
    "tileas-scatter-row-store": "tileorch.transforms.tileas.scatter_row_store:ScatterRowStore",
    "tileas-transpose-computed-operand": "tileorch.transforms.tileas.transpose_computed_operand:TransposeComputedOperand",
    "tileas-flatten-nested-k-loops": "tileorch.transforms.tileas.flatten_nested_k_loops:FlattenNestedKLoops",
    "tileas-reroll-unrolled-loops": "tileorch.transforms.tileas.reroll_unrolled_loops:RerollUnrolledLoops",
    "tileas-split-chains": "tileorch.transforms.tileas.split_chains:SplitChains",
    "tileas-stack-query-heads": "tileorch.transforms.tileas.stack_query_heads:StackQueryHeads",
    "tileas-row-statistics-chain": "tileorch.transforms.tileas.row_statistics_chain:RowStatisticsChain",
    "tileas-squeeze-unit-tiles": "tileorch.transforms.tileas.squeeze_unit_tiles:SqueezeUnitTiles",
    "tileas-dynamic-persistent": "tileorch.transforms.tileas.dynamic_persistent:DynamicPersistent",
    "tileas-plan-cta": "tileorch.transforms.tileas.plan_cta:PlanCTA",
    "tileas-rewrite-pipeline-iterator-types": "tileorch.transforms.tileas.rewrite_pipeline_iterators:RewritePipelineIteratorTypes",
    "tileas-remove-buffer-alias": "tileorch.transforms.tileas.remove_buffer_alias:RemoveBufferAlias",
    "tileas-slicing": "tileorch.transforms.tileas.slicing:Slicing",
    "tileas-prepare-for-scheduling": "tileorch.transforms.tileas.prepare_for_scheduling:PrepareForScheduling",
    "tileas-resolve-agent-boundary": "tileorch.transforms.tileas.resolve_agent_boundary:ResolveAgentBoundary",
    "tileas-tier": "tileorch.transforms.tileas.tier:TileASTier",
    "convert-nv-tileas-to-cutlass": "tileorch.transforms.tileas.nv_tileas_to_cutlass:ConvertNvTileasToCutlass",
}

# checks :func:`tileorch.diagnostics.verify_located` runs on every op after its own verifier
# (attributes any op may carry, rules of upstream dialects that xDSL does not check)
OP_CHECKS: list[str] = [
    "tileorch.dialects.kernel_attrs:verify_kernel_attributes",
    "tileorch.dialects.kernel_attrs:verify_kernel_calls",
    "tileorch.dialects.nvptx_rules:verify_nvptx_rules",
    "tileorch.dialects.upstream_rules:verify_upstream_rules",
]

# target name (for ``tileorch-opt -t``) -> "module:Target subclass"
TARGETS: dict[str, str] = {
    "llvm-ir": "tileorch.backend.targets:LLVMIRTarget",
    "ptx": "tileorch.backend.targets:PTXTarget",
}


def resolve(ref: str) -> Any:
    """Import ``module:attr``."""
    module, _, attr = ref.partition(":")
    return getattr(import_module(module), attr)


def _lazy(ref: str) -> Callable[[], Any]:
    return lambda: resolve(ref)


def dialect_factories() -> dict[str, Callable[[], Any]]:
    """Every xDSL dialect plus ours; ours win on a name clash (e.g. an extended ``llvm``).

    xDSL's own tables, not ``Universe.get_multiverse()``: the multiverse scans every installed
    distribution's entry points (importlib.metadata), a tenth of a second of a cold compile, to
    find plugin dialects that tileorch never reads."""
    from xdsl.dialects import get_all_dialects

    factories = dict(get_all_dialects())
    factories.update({name: _lazy(ref) for name, ref in DIALECTS.items()})
    return factories


def pass_factories() -> dict[str, Callable[[], Any]]:
    return {name: _lazy(ref) for name, ref in PASSES.items()}


def target_factories() -> dict[str, Callable[[], Any]]:
    return {name: _lazy(ref) for name, ref in TARGETS.items()}


def op_checks() -> list[Callable[[Any], None]]:
    """The functions :data:`OP_CHECKS` names (imported now)."""
    return [resolve(ref) for ref in OP_CHECKS]


def make_context(allow_unregistered: bool = False) -> Context:
    """A context with every dialect registered (loaded lazily on first use)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in dialect_factories().items():
        ctx.register_dialect(name, factory)
    return ctx
