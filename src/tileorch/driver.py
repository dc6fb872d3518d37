"""The compile driver: which pipeline each input kind takes, and the decisions on the way.

Input kinds and their routes (:data:`ROUTES`; ``tileorch compile``, ``tileorch.compile``,
``tileorch.cutile.launch`` and ``tileorch.gemm`` all come through here: :func:`compile_module`
lowers a tile program by its kind, then hands it to the backend,
:func:`tileorch.backend.compile.compile_lowered`):

==============  ===========================================================================
``cutlass``     the module as written (cutlass / nv_tileas / nvvm ops) -> the backend's pipeline
``nv_tileaa``   a tile program: :func:`lower_tileaa_program` -> the TileAS tier
                (``tileas-tier``, ``convert-nv-tileas-to-cutlass``) for kernels with dots, the SIMT
                lowering (``tileas-assign-load-store-layouts``, ``tileas-remove-layout-conversions``
                for its layouts, then ``convert-nv-tileaa-to-simt``) for the rest; a refusal is a remark
``cuda_tile``   a cuTile program (text or bytecode, :func:`tileorch.frontend.cutile.load`):
                ``convert-cudatile-to-tileaa``, then the ``nv_tileaa`` route
==============  ===========================================================================

Every decision (tier or SIMT, retiling, staging, the SIMT layout) is appended to the caller's
``remarks``; nothing switches paths silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import tileorch.dialects.lazy_formats  # noqa: F401,I001  (first: the op formats of dialects defined from here parse on first use)
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr

import tileorch.transforms  # noqa: F401  (the fast IRDL op builder, before any input is read)
from tileorch import settings
from tileorch.dialects.record_attr import decode_record
from tileorch.frontend.cutile import load, tile_program_kind

if TYPE_CHECKING:
    from tileorch.backend.compile import CompileResult

SCHEDULES = ("persistent", "streamk", "dp")

TIER_CLEANUP = "cse-constants"
"""Run after ``convert-nv-tileas-to-cutlass``: its epilogue builders make one constant per use (a
fused-epilogue GEMM: a third of the kernel's ops); one per value and block is left for the backend
(the LLVM IR and PTX are the same: LLVM has no constant instructions)."""


def front_passes(arch: str = "sm_90a", schedule: str = "persistent") -> str:
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    return (f"convert-cudatile-to-tileaa{{compute_capability={arch}}},tileaa-transpose-column-major,tileas-tier,"
            f"convert-nv-tileas-to-cutlass{{schedule={schedule}}},{TIER_CLEANUP}")


def lower_to_cutlass(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent") -> None:
    """Run :func:`front_passes` on ``module`` in place (GEMM-shaped kernels only)."""
    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.diagnostics import LocatedError
    from tileorch.dialects.nv_tileaa import FuncOp

    run_passes(ctx, module, parse_pipeline(front_passes(arch, schedule)))
    for f in module.walk():
        if isinstance(f, FuncOp):
            raise LocatedError(f, f"kernel @{f.sym_name.data} is not supported yet: the tile tier compiles only "
                                  "GEMM-shaped kernels (K loop of tiled loads and a dot, one tiled store) so far")


def _one_module(module: ModuleOp) -> None:
    """A located error when ``module`` is the parser's implicit module around several top-level modules (a file of
    two ``builtin.module`` texts: found by sweep 34, where the tier crashed and the backend said "builtin.module is
    still present")."""
    nested = [op for op in module.body.ops if isinstance(op, ModuleOp)]
    if len(nested) > 1:
        from tileorch.diagnostics import CompileError, format_error

        raise CompileError([format_error(
            nested[1], f"a second top-level builtin.module: this input holds {len(nested)} modules and tileorch "
                       "compiles one module per input; put their cuda_tile.module (nv_tileaa) ops in one "
                       "builtin.module, or compile each module from its own file")])


def lower_program(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent",
                  config: str = "", remarks: list[str] | None = None) -> tuple[str, ModuleOp]:
    """Lower a ``cuda_tile`` module to the tier the backend compiles; returns (kind, module).

    ``convert-cudatile-to-tileaa`` (its errors propagate, located), then
    :func:`lower_tileaa_program`; ``remarks`` also gets a located ``warning:`` per integer op whose
    constant operand makes its result undefined or surprising (``constant_warnings.py``) and per
    float op whose ``flush_to_zero`` is not applied (``ftz_warnings.py``), per float -> bool cast
    (``bool_cast_warnings.py``: truncation, not ``x != 0``), per integer dot whose product is truncated to the
    operands' width (``narrow_int_dot_warnings.py``: ``ct.matmul`` of int8 tiles), per attribute nothing
    reads (``ignored_attributes.py``) and per loop no path leaves (``endless_loops.py``)."""
    from tileorch import timing
    from tileorch.backend.compile import CompileError, verify_each_pass
    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.diagnostics import verify_located
    from tileorch.transforms.cudatile_to_tileaa.constant_warnings import constant_operand_warnings
    from tileorch.transforms.cudatile_to_tileaa.endless_loops import endless_loop_warnings
    from tileorch.transforms.cudatile_to_tileaa.bool_cast_warnings import bool_cast_warnings
    from tileorch.transforms.cudatile_to_tileaa.ftz_warnings import flush_to_zero_warnings
    from tileorch.transforms.cudatile_to_tileaa.ignored_attributes import ignored_attribute_warnings
    from tileorch.transforms.cudatile_to_tileaa.narrow_int_dot_warnings import narrow_int_dot_warnings
    from tileorch.transforms.cudatile_to_tileaa.padded_load_choice import padded_load_choice_remarks

    _one_module(module)
    remarks = remarks if remarks is not None else []
    remarks.extend(constant_operand_warnings(module))  # a division by 0, a shift by the width or more
    remarks.extend(flush_to_zero_warnings(module))  # a flush_to_zero the lowering does not apply
    remarks.extend(bool_cast_warnings(module))  # astype(bool) of a float: truncation, not x != 0
    remarks.extend(narrow_int_dot_warnings(module))  # ct.matmul of int8 tiles: the int32 product wrapped to 8 bits
    remarks.extend(ignored_attribute_warnings(module))  # {name = value} on an op: no property, dropped
    remarks.extend(endless_loop_warnings(module))  # a loop without a break: the kernel never finishes
    remarks.extend(padded_load_choice_remarks(module))  # an if choosing a padded or unpadded load: one load
    run_passes(ctx, module, parse_pipeline(f"convert-cudatile-to-tileaa{{compute_capability={arch}}}"))
    if verify_each_pass():  # else the compiled result is verified once, after the last pass
        with timing.timed("verify"):
            errors = verify_located(module)
        if errors:
            raise CompileError([f"{e} (after convert-cudatile-to-tileaa)" for e in errors])
    unapplied = _launch_hints(module)
    kind, lowered = lower_tileaa_program(module, ctx, arch, schedule, config, remarks)
    remarks.extend(line for line, simt_only in unapplied if kind == "simt" or not simt_only)
    return kind, lowered


def _launch_hints(module: ModuleOp) -> list[tuple[str, bool]]:
    """The kernels' launch hints tileorch does not apply, as located warnings: ``occupancy``
    above 1 (cuTile's CTAs per SM: no path sets ``.minnctapersm`` from it) and, on the SIMT path only
    (the bool), ``num_ctas`` above 1 (one CTA per program there)."""
    from tileorch.diagnostics import format_error
    from tileorch.dialects.nv_tileaa import FuncOp

    out = []
    for f in module.walk():
        if not isinstance(f, FuncOp):
            continue
        occupancy = f.attributes.get("nv_tileaa.occupancy")
        if occupancy is not None and occupancy.value.data > 1:  # 1: any kernel that launches has it
            out.append((format_error(f, f"occupancy={occupancy.value.data} (cuTile's hint of CTAs resident per SM) "
                                        "is not applied: the resident CTAs follow from the kernel's registers and "
                                        "shared memory", "warning"), False))
        spec = f.kernel_spec()
        if spec is not None and spec.num_ctas.data > 1:
            out.append((format_error(f, f"num_ctas={spec.num_ctas.data} (cuTile's CTAs per cluster) is not applied: "
                                        "the SIMT path runs one CTA per program", "warning"), True))
    return out


def _compute_capability(module: ModuleOp) -> int | None:
    """The SM the ``nv_tileaa`` module targets (``nv_tileaa.compute_capability``), if it says."""
    cc = module.attributes.get("nv_tileaa.compute_capability")
    return cc.sm.data if cc is not None and hasattr(cc, "sm") else None


def _simt_dots(module: ModuleOp) -> str:
    """How the SIMT path computes the dots of ``module`` (the refusal remark's last words): on
    ``mma.sync`` when every dot has an atom (``tileaa_to_simt/mma.py``), else slowly."""
    from tileorch.transforms.tileaa_to_simt.mma import MmaPlan, plan_dot

    sm = _compute_capability(module)
    if all(isinstance(plan_dot(op, sm), MmaPlan) for op in module.walk() if op.name == "nv_tileaa.dot"):
        return "the SIMT path compiles it, its dots on mma.sync tensor cores (no TMA/WGMMA pipeline)"
    return "the SIMT path compiles it, slowly (scalar FMA loops for a dot mma.sync does not take)"


_SIMT_ONLY = {
    "nv_tileaa.assert": "ct.assert_ is checked on the SIMT path only (the tensor-core kernels do not evaluate "
                        "assertions yet)",
    "nv_tileaa.print": "ct.printf/ct.print print on the SIMT path only (the tensor-core kernels do not print yet)",
}
"""Ops the tensor-core tier does not lower: a dot program with one takes the SIMT path, with a
located warning (never dropped silently)."""
TOWARD_ZERO = ("a conversion rounding toward zero (astype with rounding_mode=RZ) runs on the SIMT path only (the "
               "tensor-core kernels' epilogues round to nearest)")
"""The warning of a dot program taking the SIMT path for an ``fp_to_fp`` rounding toward zero."""


DIRECTED_ARITHMETIC = ("a directed rounding of add / sub / mul / fma (rounding_mode=RZ / RM / RP) runs on the SIMT "
                       "path only (the tensor-core kernels' epilogues round to nearest)")
"""The warning of a dot program taking the SIMT path for an ``addf`` / ``subf`` / ``mulf`` / ``fma`` rounded
toward zero, -inf or +inf."""
DIRECTED_NO_HOIST = ("remark: the loop reductions and online softmax are not rewritten: the kernel has arithmetic "
                     "with a directed rounding (rounding_mode=RZ / RM / RP), which their rewrites would not keep")


_DIRECTED_OPS = frozenset({"nv_tileaa.addf", "nv_tileaa.subf", "nv_tileaa.mulf", "nv_tileaa.fma"})


def _directed(op) -> bool:
    """``op`` is an ``addf`` / ``subf`` / ``mulf`` / ``fma`` with a directed rounding (by name: no dialect import on
    the walk of every op)."""
    return op.name in _DIRECTED_OPS and op.properties.get("rounding") is not None


def _simt_only_reason(op) -> str | None:
    """Why ``op`` keeps a dot program off the tensor-core tier (its kernels would drop it), or None."""
    if op.name in _SIMT_ONLY:
        return _SIMT_ONLY[op.name]
    if _rounds_toward_zero(op):
        return TOWARD_ZERO
    if _directed(op):
        return DIRECTED_ARITHMETIC
    return None


def _rounds_toward_zero(op) -> bool:
    """``op`` is a float conversion rounding toward zero (cuTile's ``astype(..., rounding_mode=RZ)``)."""
    rounding = op.properties.get("rounding") if op.name == "nv_tileaa.fp_to_fp" else None
    return rounding is not None and rounding.value.data == "rz"

_F32_DOT_REMARK = ("this dot multiplies f32 tiles, which cuTile computes in f32: it runs to f32 accuracy on the SIMT "
                   "path (3xTF32 mma.sync); the TMA/WGMMA kernels multiply tf32 (10-bit mantissas): convert the "
                   "operands with .astype(ct.tfloat32) to take them, or set TILEORCH_F32_DOT=tf32")
"""Why a dot of f32 tiles takes the SIMT path (``tileaa_to_simt/mma.py``'s 3xTF32), at its line."""


def lower_tileaa_program(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent",
                         config: str = "", remarks: list[str] | None = None) -> tuple[str, ModuleOp]:
    """:func:`_lower_tileaa_program`; a program whose query-head loop ``tileas-stack-query-heads`` would stack and
    which the tier then does not take stacked is lowered again with the rewrite off (each head its own chain, as
    before the rewrite), with a warning saying so: the rewrite never moves a program off the tensor cores."""
    _one_module(module)
    remarks = remarks if remarks is not None else []
    if config or schedule == "simt" or not arch.startswith("sm_90"):
        return _lower_tileaa_program(module, ctx, arch, schedule, config, remarks)
    from tileorch.transforms.tileas.stack_query_heads import ENV, stack_query_heads_remarks

    if settings.value(ENV) == "0" or not any(
            "remark" in r and "are not stacked" not in r for r in stack_query_heads_remarks(module)):
        return _lower_tileaa_program(module, ctx, arch, schedule, config, remarks)
    before, mine, failed = module.clone(), [], None
    try:
        kind, out = _lower_tileaa_program(module, ctx, arch, schedule, config, mine)
    except Exception as exc:  # noqa: BLE001 - the program as written is lowered below; the reason is in the warning
        if settings.raise_internal_errors():
            raise
        kind, out, failed = "simt", None, exc
    if kind != "simt":
        remarks.extend(mine)
        return kind, out
    with settings.overridden(ENV, "0"):
        kind, out = _lower_tileaa_program(before, ctx, arch, schedule, config, remarks)
    remarks.append(stacked_fallback_note(mine, failed))
    return kind, out


def stacked_fallback_note(remarks: list[str], failed: Exception | None) -> str:
    """What :func:`lower_tileaa_program` says when the program with two query heads stacked a chain did not take
    the tensor cores and was compiled as written instead, by cause: the lowering of the stacked program raised
    ``failed`` (a tileorch bug: a warning asking for a report), or the tier refused it (its refusal among
    ``remarks``: an ordinary refusal, a remark on the performance the stacking would have given)."""
    head = "the query-head loop stacked two heads a chain (tileas-stack-query-heads)"
    if failed is not None:
        return (f"warning: {head} and lowering it raised {type(failed).__name__}: {str(failed).strip()[:300]}; "
                "compiled with each head its own chain (this is a tileorch bug, please report it)")
    why = next((r for r in remarks if "warning:" in r or "error:" in r), None)
    because = f" ({why.strip()[:300]})" if why else " (it gave no reason)"
    return (f"remark: {head} and the tensor-core tier refused it{because}; compiled with each head its own chain, "
            "as written (performance: the heads' chains are not shared; the program's results are the same)")


def _lower_tileaa_program(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent",
                          config: str = "", remarks: list[str] | None = None) -> tuple[str, ModuleOp]:
    """Lower an ``nv_tileaa`` module (a tile program: ``examples/tile_gemm.mlir``, the
    ``tileorch.frontend.tile`` builder, or a cuTile program after ``convert-cudatile-to-tileaa``)
    to the tier the backend compiles; returns (kind, module).

    Column-major arrays are first read as their transposes (``tileaa-transpose-column-major``), and an f32 dot of
    two widened f16 (bf16) tiles multiplies the 16-bit tiles (``tileaa-narrow-widened-dot-operands``, a remark each).
    ``"gemm"``: the kernel has a dot and goes through the TileAS tier to the warp-specialized
    TMA/WGMMA kernel (``convert-nv-tileas-to-cutlass``, the program's epilogue compiled in the
    accumulator's registers; ``config`` retiles it, see that pass); ``"simt"``: any other kernel
    goes through ``convert-nv-tileaa-to-simt``.  A dot kernel the tensor-core lowering refuses
    also takes the SIMT path, and the refusal (a located error) is appended to ``remarks`` (and
    printed by the CLI), never dropped.  ``schedule="simt"`` forces the SIMT path.  Errors of
    the SIMT lowering propagate (located)."""
    from tileorch import timing
    from tileorch.backend.compile import CompileError, verify_each_pass
    from tileorch.backend.pipeline import apply_pass, parse_pipeline, run_passes
    from tileorch.diagnostics import LocatedError, verify_located
    from tileorch.dialects.nv_tileaa import FuncOp
    remarks = remarks if remarks is not None else []
    from tileorch.transforms.math_mode import math_counts, math_remarks

    # exp/tanh: full precision or the fast form, and why: counted here (the tier's lowering consumes the ops),
    # placed here once the path is known (the SIMT path's softmax passes may still take some as ex2)
    math_at, math_before = len(remarks), math_counts(module)
    # a column-major array (its unit stride on dimension -2, stated by the signature) is read as its
    # transpose through transposed views, on both paths: the tier's TMA loads need the unit stride last
    from tileorch.transforms.transpose_column_major import transpose_column_major

    if transpose_column_major(module):
        remarks.append("remark: column-major arrays read as their row-major transposes through transposed views "
                       "(tileaa-transpose-column-major)")
    # an f32 dot of two f16 (two bf16) tiles widened to f32 multiplies the 16-bit tiles (exact products), on both
    # paths: the tier's WGMMA takes it, the SIMT path's mma.sync runs one product instead of 3xTF32
    from tileorch.transforms.narrow_widened_dot import narrow_widened_dot_operands

    narrow_widened_dot_operands(module, remarks)
    has_dot = any(op.name == "nv_tileaa.dot" for op in module.walk())
    hopper = arch.startswith("sm_90") and schedule != "simt"  # the tier's GEMM is TMA + WGMMA: sm_90a only
    fallback = module  # a kernel the tensor-core path does not try goes to the SIMT path as it is
    if has_dot and hopper:
        with timing.timed("clone"):  # the SIMT path's copy, should the tensor-core path refuse the kernel
            fallback = module.clone()
    if has_dot and not hopper:
        remarks.append(f"remark: dot kernel compiled by the SIMT path: "
                       f"{'asked for (schedule=simt)' if schedule == 'simt' else f'the WGMMA lowering targets sm_90a, not {arch}'}")
    debug = next((op for op in module.walk() if _simt_only_reason(op) is not None), None)
    if has_dot and hopper and debug is not None:  # the tier's kernels do not check/print these: not dropped
        from tileorch.diagnostics import format_error

        remarks.append(_refused(format_error(debug, _simt_only_reason(debug), "warning"), fallback))
        hopper = False
    if has_dot and hopper:
        from tileorch.transforms.tileaa_to_simt.mma import f32_dots_as_tf32, is_f32_dot

        f32_dot = next((op for op in module.walk() if op.name == "nv_tileaa.dot" and is_f32_dot(op)), None)
        if f32_dot is not None and not f32_dots_as_tf32():
            from tileorch.diagnostics import format_error

            remarks.append(_refused(format_error(f32_dot, _F32_DOT_REMARK, "remark"), fallback))
            hopper = False
    kernels = [op for op in module.walk() if isinstance(op, FuncOp)] if has_dot and hopper else []
    if len(kernels) > 1:  # the tier's kernel names and analyses are per module (sweep 34: a crash or a wrong reason)
        from tileorch.diagnostics import format_error

        names = ", ".join(f"@{k.sym_name.data}" for k in kernels)
        remarks.append(_refused(format_error(
            kernels[1], f"this module defines {len(kernels)} kernels ({names}): the tensor-core tier compiles a "
                        "module of one kernel, so the SIMT path compiles them all; compile each dot kernel from its "
                        "own module to take the TMA/WGMMA kernel", "remark"), fallback))
        hopper = False
    if has_dot and hopper:
        _choose_clusters(module)
        from tileorch.transforms.tileas.fuse_split_loops import innermost_dot_loops

        from tileorch.transforms.tileas.same_range_loops import same_range_remarks

        same_range = same_range_remarks(module)  # (fused too: not pairs of consecutive ranges)
        split_loops = len(innermost_dot_loops(module)) - len(same_range)
        opts = f"schedule={schedule}" + (f' config="{config}"' if config else "")
        try:
            from tileorch.transforms.tileas.while_to_for import while_to_for_remarks

            from tileorch.transforms.tileas.transpose_computed_operand import transpose_computed_operand_remarks

            from tileorch.transforms.tileas.guarded_k_loop import guarded_k_loop_remarks

            from tileorch.transforms.tileas.split_chains import split_chains_remarks

            from tileorch.transforms.tileas.row_statistics_chain import row_statistics_remarks

            from tileorch.transforms.tileas.stack_query_heads import stack_query_heads_remarks

            # stated once the tier takes the kernel (the SIMT code keeps the copies): these from analyses of the
            # module as the tier receives it, the rewrites' own below (remark_sink: said by each pass as it runs)
            while_loops, guarded = while_to_for_remarks(module), guarded_k_loop_remarks(module)
            transposed = transpose_computed_operand_remarks(module)
            split_chains = split_chains_remarks(module)
            chains = split_chains + row_statistics_remarks(module) + stack_query_heads_remarks(module)
            tier = f"tileas-tier,convert-nv-tileas-to-cutlass{{{opts}}},{TIER_CLEANUP}"
            from tileorch.transforms import remark_sink

            with remark_sink.collecting() as said:
                run_passes(ctx, module, parse_pipeline(tier))
            column_loops = said.get("tileas-column-loop-to-tiles", [])
            split_loops -= len(column_loops)  # (a column loop becomes the grid's axis 1: no range of the K loop)
            rerolled = (while_loops + said.get("tileas-reroll-unrolled-loops", []) + guarded
                        + said.get("tileas-paged-gather", []) + said.get("tileas-row-window-gather", [])
                        + said.get("tileas-flatten-nested-k-loops", [])
                        + said.get("tileas-scatter-row-store", [])  # a row vector scattered: its tile store
                        + transposed
                        + said.get("tileas-fold-dot-accumulate", [])  # a 16-bit product accumulated unrounded in f32
                        + said.get("tileas-fold-tf32-operands", [])  # tf32 operands truncated by the WGMMA
                        + said.get("tileas-program-loop-to-tiles", [])  # a loopless chain given its key loop
                        + chains + column_loops + same_range)
            from tileorch.transforms.tileas.chained_detect import CHAINED_ATTR

            chained, has_func = [], False  # (one walk for both: nothing below changes the module)
            for f in module.walk():
                if isinstance(f, FuncOp):
                    has_func = True
                    break
                if CHAINED_ATTR in f.attributes:
                    chained.append(f)
            if not has_func:
                remarks.extend(rerolled)

                if split_loops > 1:
                    remarks.append(f"remark: {split_loops} dot loops over consecutive ranges (range(a, X) then "
                                   "range(X, n), or cuTile's split of a branch on the iv) run as one loop with a "
                                   "branch at X (tileas-fuse-split-loops)")

                if chained:
                    record = decode_record(chained[0].attributes[CHAINED_ATTR])
                    persistent = record.get("persistent")
                    per_sm = int((persistent or {}).get("ctas_per_sm", 1))
                    where = (f"a persistent kernel: at most {'one CTA' if per_sm == 1 else f'{per_sm} CTAs'} per SM, "
                             "each running program instances in turn "
                             f"({persistent['q_slots']} Q slot(s): the next instance's loads overlap this one's end)"
                             if persistent else "one CTA per program instance")
                    remarks.append("remark: chained dots compiled through the TileAS tier to TMA + WGMMA (the "
                                   f"second dot's A from registers), {where}")
                    remarks.extend(record.get("remarks", []))  # the kernel's choices at the user's lines
                    if record.get("exp2_fma"):
                        fma = record["exp2_fma"]
                        remarks.append(f"remark: one exp2 column group in {fma['period']} of the loop runs on the FMA "
                                       "pipe (a polynomial) instead of the MUFU, "
                                       + ("which the softmax of dots reducing over d + dv <= 128 saturates"
                                          if fma["default"] else "as TILEORCH_ATTN_EXP2_FMA asks"))
                    if record.get("q_prologue"):
                        remarks.append("remark: the first dot's A (Q) is its tile load mapped by elementwise ops ("
                                       + ", ".join(record["q_prologue"]) + "): applied in place to the Q tile in "
                                       "shared memory after each Q load, then fence.proxy.async and a warp-group "
                                       "barrier before the first WGMMA")
                    if record.get("k_prologue"):
                        remarks.append("remark: the first dot's B (K) is its tile load mapped by ops with row "
                                       "reductions (" + ", ".join(record["k_prologue"]) + "): the consumer threads "
                                       "apply it in place to each K tile in its stage (a share of 16-byte units of "
                                       "a row per thread, shfl.xor across the row's threads), then "
                                       "fence.proxy.async and a barrier of the consumers before the WGMMAs read it; "
                                       "the consumer loop runs without overlap and ping-pong")
                    if record.get("row_div_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_ROW_DIV not applied: {record['row_div_off']}")
                    if persistent and persistent.get("schedule"):
                        order = ("the heavy-first axis fastest, heaviest first" if persistent["schedule"] == "snake"
                                 else "heaviest first over the whole grid")
                        why = ("by default for a heavy-first grid (TILEORCH_ATTN_SCHEDULE=off: the round-robin "
                               "dealing, causal programs one CTA per instance)" if persistent.get("schedule_default")
                               else f"as TILEORCH_ATTN_SCHEDULE={persistent['schedule']} asks")
                        remarks.append(f"remark: the persistent kernel deals its instances in snake order ({order}; "
                                       f"a CTA's odd rounds backwards), {why}"
                                       + ("; each launch runs one CTA per SM where the model of its grid's balance "
                                          "allows, else one CTA per instance (schedulers/chained_balance.py)"
                                          if record.get("heavy_first") is not None else ""))
                    if persistent and persistent.get("early_q"):
                        remarks.append("remark: each instance releases its Q slot right after the consumer loop, "
                                       "before the last tile's second dot (TILEORCH_ATTN_EARLY_Q)")
                    if persistent and persistent.get("kv_ahead"):
                        remarks.append(f"remark: the producer loads each instance's first {persistent['kv_ahead']} "
                                       "K/V tile(s) before its Q, in ring stages the previous instance releases "
                                       "inside its loop (TILEORCH_ATTN_KV_AHEAD)")
                    if record.get("kv_ahead_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_KV_AHEAD not applied: {record['kv_ahead_off']}")
                    if record.get("early_tma"):
                        remarks.append(f"remark: thread 0 issues the first instance's Q and first {record['early_tma']} "
                                       "K/V tile(s) right after the mbarriers' initialisation, before the CTA barrier "
                                       "and setmaxnreg; the producer's first instance skips them "
                                       "(TILEORCH_ATTN_EARLY_TMA)")
                    if record.get("early_tma_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_EARLY_TMA not applied: {record['early_tma_off']}")
                    if record.get("row_div"):
                        remarks.append("remark: the epilogue's IEEE divisions use one reciprocal per divisor value "
                                       "(rcp + a Newton step) and three instructions per element, with one branch per "
                                       "thread to div.rn where an operand lies outside [2^-60, 2^60] "
                                       "(TILEORCH_ATTN_ROW_DIV, row_division.py)")
                    if record.get("loop_uniform_div"):
                        remarks.append(f"remark: {record['loop_uniform_div']} IEEE division(s) of the consumer loop "
                                       "by a value shared by the whole tile use one reciprocal per thread and three "
                                       "instructions per element, one branch per thread and tile to div.rn where an "
                                       "operand lies outside [2^-60, 2^60] (bit for bit div.rn; loop_division.py, "
                                       "TILEORCH_UNIFORM_DIV=0: div.rn per element)")
                    if record.get("loop_tanh_branch"):
                        remarks.append(f"remark: {record['loop_tanh_branch']} full-precision tanh(s) of the consumer "
                                       "loop take their polynomial alone where every |x| of the warp's elements is "
                                       "below 0.9 (vote.sync.all, one warp-uniform branch per tile; bit for bit the "
                                       "full form; loop_tanh.py, TILEORCH_ATTN_TANH_BRANCH=0: both forms for every "
                                       "element)")
                    if record.get("loop_softmax_exp"):
                        remarks.append(f"remark: {record['loop_softmax_exp']} online-softmax exp(s) of the consumer "
                                       "loop (argument a value minus a max including it: at most 0) computed by "
                                       "ex2.approx.ftz of x*log2(e) (TILEORCH_ATTN_SOFTMAX_EXP=ex2; about 2^-22 + "
                                       "2^-24 |x| relative, results below 2^-126 flushed; that difference times a "
                                       "uniform scale c: ex2.approx.ftz of x*(c*log2(e)), "
                                       "TILEORCH_ATTN_SOFTMAX_EXP_SCALED; loop_softmax_exp.py)")
                    if record.get("interior_masks") and not record.get("pipelined"):
                        remarks.append(f"remark: the plain (not overlapped) consumer loop runs each key tile on which "
                                       f"its {record['interior_masks']} mask comparison(s) hold for every element "
                                       "without them (one scalar test per tile; TILEORCH_ATTN_PLAIN_MASKS=0: the "
                                       "masks on every tile)")
                    if record.get("loop_row_prefetch"):
                        remarks.append(f"remark: {record['loop_row_prefetch']} load(s) of the consumer loop's "
                                       "producer-loaded tiles (a bias row per key tile) issued before the wait for "
                                       "the tile's first dot (TILEORCH_ATTN_ROW_PREFETCH=1, loop_row_prefetch.py)")
                    if record.get("k_ahead"):
                        remarks.append("remark: the K prologue (applied in place to each K tile in its stage) runs "
                                       "on tile j+1 while tile j's first dot runs, tile 0's before the loop "
                                       "(TILEORCH_ATTN_K_AHEAD=1, the default; =0: each tile's in its own "
                                       "iteration)")
                    if record.get("k_ahead_off"):
                        remarks.append("remark: the K prologue runs in each tile's own iteration, not one tile ahead "
                                       f"(TILEORCH_ATTN_K_AHEAD): {record['k_ahead_off']}")
                    if record.get("late_rescale"):
                        remarks.append("remark: the second dot's C (the accumulator times a row vector) is computed "
                                       "after the next tile's first dot is issued, before the second dot "
                                       "(TILEORCH_ATTN_LATE_RESCALE)")
                    if record.get("skip_rescale"):
                        remarks.append("remark: the second dot's C skips its multiplies where every row factor of the "
                                       "warp is 1 (vote.sync.all; exact: TILEORCH_ATTN_SKIP_RESCALE)")
                    if record.get("late_pack"):
                        remarks.append("remark: each tile's P is carried in f32 and packed behind the next tile's first "
                                       "dot, before its own second dot (TILEORCH_ATTN_LATE_PACK)")
                    for key in ("late_rescale", "skip_rescale", "late_pack"):
                        if record.get(f"{key}_off"):
                            remarks.append(f"remark: TILEORCH_ATTN_{key.upper()} not applied: {record[f'{key}_off']}")
                    if record.get("stages_cap"):
                        remarks.append(f"remark: the K/V ring takes at most {record['stages_cap']} stages "
                                       f"(TILEORCH_ATTN_STAGES): {record['stages']} here")
                    if persistent and persistent.get("pingpong"):
                        remarks.append("remark: the consumer warp groups' ping-pong turns run on across the "
                                       "persistent kernel's instances: the first turn given and the last hand-over "
                                       "taken once per kernel (TILEORCH_ATTN_PINGPONG=kernel, FlashAttention-3's "
                                       "protocol)")
                    if record.get("pingpong_kernel_off"):
                        remarks.append("remark: TILEORCH_ATTN_PINGPONG=kernel not applied: "
                                       f"{record['pingpong_kernel_off']}")
                    if record.get("next_s_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_NEXT_S not applied: {record['next_s_off']}")
                    if record.get("s_ahead"):
                        remarks.append("remark: the consumer loop issues tile j+1's first dot right behind tile "
                                       "j-1's second dot, before tile j's softmax, so both run while P is computed "
                                       + ("(TILEORCH_ATTN_S_AHEAD=2: two tiles per trip)"
                                          if record.get("s_ahead_unrolled") else "(TILEORCH_ATTN_S_AHEAD)"))
                    if record.get("s_ahead_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_S_AHEAD not applied: {record['s_ahead_off']}")
                    if record.get("early_q_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_EARLY_Q not applied: {record['early_q_off']}")
                    if persistent and persistent.get("stagger"):
                        remarks.append(f"remark: consumer warp group w starts the CTA's first instance w x "
                                       f"{persistent['stagger']} cycles after its Q landed, so that the groups' "
                                       "per-instance serial parts fall apart (TILEORCH_ATTN_STAGGER)")
                    if record.get("q_regs"):
                        remarks.append(f"remark: the first dot reads Q from registers: each consumer thread loads "
                                       f"its {record['q_regs']} A-fragment registers of the instance's Q tile once, "
                                       "after its wait, and every key tile's wgmma.mma_async takes A from them "
                                       "(TILEORCH_ATTN_Q_REGS)")
                    if record.get("q_regs_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_Q_REGS not applied: {record['q_regs_off']}")
                    if record.get("stagger_off"):
                        remarks.append(f"remark: TILEORCH_ATTN_STAGGER not applied: {record['stagger_off']}")
                    if persistent and persistent.get("next_s"):
                        remarks.append("remark: each instance's epilogue runs while the next instance's first dot is "
                                       "in flight (TILEORCH_ATTN_NEXT_S, "
                                       + ("issued right behind the last second dot)" if persistent["next_s"]
                                          == "back_to_back" else "issued once the last second dot completed)"))
                    heavy = record.get("heavy_first")
                    if record.get("k_range"):
                        remarks.append(f"remark: the loop {record['k_range']} runs as range(trip count) from 0 "
                                       "(trip = ceil(max(stop - start, 0) / step), evaluated per program instance; "
                                       "its body reads start + step * i as the iv: rebase_k_loop.py)")
                    if record.get("guarded"):
                        remarks.append("remark: the chain runs under a branch of the program (instances that skip it): "
                                       "one CTA per program instance, not the persistent kernel")
                    if record.get("interior_masks"):
                        remarks.append(f"remark: {record['interior_masks']} mask comparison(s) of the loop hold on "
                                       "whole tiles in its interior iterations: those run a copy of the iteration "
                                       "without them (a scalar test per iteration, mask_bounds.py)")
                    if heavy is not None:
                        remarks.append(f"remark: the loop's trip count grows with program id {heavy}: programs "
                                       f"along axis {heavy} start heaviest first (reversed block order)")
                    remarks[math_at:math_at] = math_remarks(counts=math_before,
                                                            ex2_terms=int(record.get("loop_softmax_exp") or 0))
                    return "chained", module
                if split_chains:  # (only the chained kernel's record carries the grid split)
                    raise LocatedError(next((o for o in fallback.walk() if o.name in ("scf.for", "scf.while")), fallback),
                                       "the program's independent chains were split into programs of one chain "
                                       "(tileas-split-chains), but the tier compiled it to a GEMM kernel, whose "
                                       "launch does not multiply the grid")
                remarks.append("remark: dot kernel compiled through the TileAS tier to the warp-specialized "
                               "TMA/WGMMA kernel")
                remarks[math_at:math_at] = math_remarks(counts=math_before)
                return "gemm", module
            remarks.append(_unlowered_remark(fallback))
        except LocatedError as exc:
            if config:
                raise
            # a warning, not an error: the program compiles (an error line would read as a failure)
            remarks.append(_refused(_as_warning(str(exc)), fallback))
        except Exception as exc:  # noqa: BLE001 - a tier bug must not stop a program the SIMT path compiles
            if config or settings.raise_internal_errors():
                raise
            names = ", ".join(f.sym_name.data for f in fallback.walk() if isinstance(f, FuncOp))
            remarks.append(f"warning: internal error in the TileAS tier on {names or 'the kernel'} "
                           f"({type(exc).__name__}: {exc}); this is a tileorch bug, please report it "
                           f"[the tensor-core path refused this kernel: {_simt_dots(fallback)}]")
    from tileorch.transforms.tileaa_to_simt.hoist_online_softmax import hoist_online_softmax
    from tileorch.transforms.tileaa_to_simt.hoist_reductions import hoist_loop_reductions

    from tileorch.transforms.tileaa_to_simt import row_smem_cache

    if row_smem_cache.enabled():  # before the hoisting: it peels the first loop (the marks travel with the loads)
        with timing.timed("tileaa-row-smem-cache"):
            row_smem_cache.mark_module(fallback)
        remarks.extend(row_smem_cache.remarks(fallback))
    online = hoisted = 0
    if any(_directed(op) for op in fallback.walk()):
        if any(op.name == "scf.for" for op in fallback.walk()):  # (else there is nothing they would rewrite)
            remarks.append(DIRECTED_NO_HOIST)
    else:
        from tileorch.transforms.tileaa_to_simt import sum_after_max

        with timing.timed("tileaa-sum-after-max"):  # on the loops as written (before the hoisting)
            sum_terms = sum_after_max.mark_sum_terms(fallback)
        if sum_terms:
            remarks.append(sum_after_max.remark(sum_terms))
        from tileorch.transforms.tileaa_to_simt import exp_below_lse

        with timing.timed("tileaa-exp-below-lse"):  # (also on the loops as written)
            below = exp_below_lse.rewrite_module(fallback)
        if below:
            remarks.append(exp_below_lse.remark(below))
        with timing.timed("tileaa-hoist-online-softmax"):
            online = hoist_online_softmax(fallback)
        with timing.timed("tileaa-hoist-loop-reductions"):
            hoisted = hoist_loop_reductions(fallback)
    # the layout passes decide the SIMT route's register layouts (#nv_tileaa.blocked attributes,
    # transforms/tileas/simt_layouts.py); convert-nv-tileaa-to-simt holds the tiles so
    from tileorch.transforms.tileas.assign_load_store_layouts import AssignLoadStoreLayouts
    from tileorch.transforms.tileas.remove_layout_conversions import RemoveLayoutConversions
    from tileorch.transforms.tileas.simt_layouts import layout_remarks

    for layout_pass in (AssignLoadStoreLayouts(), RemoveLayoutConversions()):
        apply_pass(ctx, fallback, layout_pass)
        if verify_each_pass():  # the attached layouts obey the verifier's rules
            with timing.timed("verify"):
                errors = verify_located(fallback)
            if errors:
                from tileorch.diagnostics import suffixed

                raise CompileError([suffixed(e, f" (after {layout_pass.name})") for e in errors])
    remarks.extend(layout_remarks(fallback))
    from tileorch.transforms.tileaa_to_simt.ordered_views import ordered_view_remarks

    remarks.extend(ordered_view_remarks(fallback))
    if has_dot:
        from tileorch.transforms.tileaa_to_simt.mma import dot_remarks

        remarks.extend(dot_remarks(fallback, _compute_capability(fallback)))
    refusal = [r for r in remarks if "tensor-core path refused" in r]
    if hoisted:
        remarks.append("remark: a loop folding per-tile reductions now folds the tiles and reduces once after "
                       "the loop (tileaa-hoist-loop-reductions)")
    if online:
        from tileorch.transforms.tileaa_to_simt.hoist_online_softmax import remark as online_remark

        remarks.append(online_remark(online))
    remarks[math_at:math_at] = math_remarks(fallback)  # the kernel as the SIMT conversion lowers it
    from tileorch.transforms.tileaa_to_simt.convert import ConvertNvTileaaToSimt  # (the SIMT path only: issue 22)

    try:
        apply_pass(ctx, fallback, ConvertNvTileaaToSimt())
    except LocatedError as exc:
        if not refusal:
            raise
        # the SIMT path was the fallback: its error alone would hide why the tensor cores were not used
        raise LocatedError(exc.op, f"{exc.message}\n{_refusal_note(refusal[0])}") from None
    fallback.attributes["cutlass.target"] = StringAttr(arch)
    return "simt", fallback


def _unlowered_remark(module: ModuleOp) -> str:
    """Why the TileAS tier left a dot kernel unlowered (no refusal raised), at the user's line where
    the reason has one: a dot operand loaded with a padding other than zeros (the tier's TMA pads
    with zeros) or with ``allow_tma=False`` (the tier reads A and B through TMA), dots outside any loop
    or in a ``while`` loop only (the tier's kernels pipeline a counted loop over K or key tiles)."""
    from xdsl.dialects import scf

    from tileorch.diagnostics import LocatedError

    from tileorch.transforms.tileas.convert_to_cutlass import (NO_TMA_OPERAND, no_tma_operand, padded_operand,
                                                               padded_operand_message)
    from tileorch.transforms.tileas.gathered_operand import gathered_operand, gathered_operand_message

    dots = [op for op in module.walk() if op.name == "nv_tileaa.dot"]
    padded = padded_operand(dots)
    if padded is not None:
        located = str(LocatedError(padded[0], padded_operand_message(padded[1])))
        return _refused(_as_warning(located), module)
    no_tma = no_tma_operand(dots)
    if no_tma is not None:
        located = str(LocatedError(no_tma, NO_TMA_OPERAND))
        return _refused(_as_warning(located), module)
    gathered = gathered_operand(dots)
    if gathered is not None:  # every operand tile of the loop gathered: no TMA load, no pipeline was built
        located = str(LocatedError(gathered[0], gathered_operand_message(gathered[1], gathered[2],
                                                                         _gathered_why(gathered[1], dots))))
        return _refused(_as_warning(located), module)
    for op in module.walk():
        if op.name != "nv_tileaa.dot":
            continue
        parent = op.parent_op()
        in_while = False
        while parent is not None and not isinstance(parent, scf.ForOp):
            in_while = in_while or isinstance(parent, scf.WhileOp)
            parent = parent.parent_op()
        guard = op.parent_op()
        while guard is not None and guard is not parent and not isinstance(guard, scf.IfOp):
            guard = guard.parent_op()
        if parent is not None and isinstance(guard, scf.IfOp):
            why = ("this dot runs under a condition inside its loop (an if around ct.mma, e.g. a block-sparse "
                   "product skipping zero blocks): the tensor-core kernels (TMA + WGMMA) run the dot of every "
                   "step of a counted loop; loop over the blocks that run instead (a range from a block count), "
                   "or keep the dot unconditional")
            located = str(LocatedError(op, why))
            return _refused(_as_warning(located), module)
        if parent is None:
            why = ("this dot is in a while loop: the tensor-core kernels (TMA + WGMMA) pipeline a counted loop "
                   "over K or key tiles (write it as 'for k in range(...)')" if in_while else
                   "this dot is not in a loop: the tensor-core kernels (TMA + WGMMA) pipeline a loop over K or key "
                   "tiles")
            located = str(LocatedError(op, why))
            return _refused(_as_warning(located), module)
    return "remark: the TileAS tier left a kernel unlowered; the SIMT path compiles it"


def _gathered_why(role: str, dots: list) -> str:
    """Why the tier built no pipeline for a kernel whose dot operand is gathered (``role``: "A" / "B") and whose
    loop has no tile load left to pipeline: for chained dots (attention over a paged cache) the remedy."""
    if len(dots) > 1:
        return ("the chained (attention) kernels read every K / V tile through TMA tile loads; gathered rows are "
                "taken only as whole pages of a paged KV cache (tileas-paged-gather: the row index the block table's "
                "page of t // BS and the slot t % BS, or page * BS + t % BS, the tile's first key a multiple of BS, "
                "BS a multiple of 8 dividing the tile, bounds-checked with zero padding and no other mask); a cache "
                "whose pages hold a whole key tile, read by ct.load at the page's index (the page number from the "
                "block table by ct.load(...).item()), or pages joined by ct.cat, takes the tensor cores too")
    return ("the loop has no tile load (ct.load) left for TMA to pipeline" if role == "A" else
            "a gathered B is not taken (WGMMA reads B from shared memory only; only A may be gathered)")


def _refused(diagnostic: str, module: ModuleOp) -> str:
    """``diagnostic`` (``FILE:L:C: warning: MSG``, maybe followed by ``note: called from`` lines) as the remark of
    the tensor-core path's refusal: `` [the tensor-core path refused this kernel: ...]`` ends its first line (the
    notes stay under it)."""
    first, nl, notes = diagnostic.partition("\n")
    return f"{first} [the tensor-core path refused this kernel: {_simt_dots(module)}]{nl}{notes}"


def _as_warning(located: str) -> str:
    """``FILE:L:C: error: MSG`` (a refusal the program survives) as ``FILE:L:C: warning: MSG``."""
    return re.sub(r"^([^\s:][^:]*:\d+:\d+): error: ", r"\1: warning: ", located, count=1)


def _refusal_note(refusal: str) -> str:
    """The tier's refusal ``FILE:L:C: warning: MSG [...]`` as a located note under the SIMT path's
    error (``FILE:L:C: note: ...``): an ``error:`` inside a note line would read as a second,
    unlocated error."""
    # ("compiles it": not here; the bracket ends the first line, above any "called from" notes)
    refusal = re.sub(r" \[the tensor-core path refused this kernel: [^\]]*\]$", "", refusal, count=1, flags=re.M)
    m = re.match(r"(?s)([^\s:][^:]*:\d+:\d+): (?:error|warning): (.*)", refusal)
    if m:
        return f"{m[1]}: note: the SIMT path was taken because the tensor-core path refused the kernel here: {m[2]}"
    return f"note: the SIMT path was taken because {refusal.replace(' error: ', ' ').replace(' warning: ', ' ')}"


HOPPER_GEMM_CLUSTER = 2
"""CTAs per cluster tileorch picks for a GEMM-shaped kernel that leaves it to the compiler on
sm_90 (CUTLASS's usual 2x1: B is multicast to both CTAs, halving its L2 traffic)."""


def _choose_clusters(module: ModuleOp) -> None:
    from tileorch.dialects.nv_tileaa import FuncOp, KernelSpecAttr
    from tileorch.transforms.cudatile_to_tileaa import NUM_CTAS_AUTO

    for f in module.walk():
        if isinstance(f, FuncOp) and NUM_CTAS_AUTO in f.attributes:
            spec = f.kernel_spec()
            warps = spec.num_worker_warps.data if spec is not None else 4
            # a cluster splits the tile's rows over its CTAs: each CTA's share must stay >= 64 rows
            # (a whole m64 WGMMA atom per warp group); smaller tiles stay on one CTA
            rows = [op.results[0].type.get_shape()[-2] for op in f.walk() if op.name == "nv_tileaa.dot"]
            ctas = HOPPER_GEMM_CLUSTER if rows and min(rows) // HOPPER_GEMM_CLUSTER >= 64 else 1
            f.attributes["nv_tileaa.kernel_spec"] = KernelSpecAttr(ctas, warps)


@dataclass
class CutileProgram:
    """A compiled cuTile program.  ``kind == "simt"``: the kernel's parameters are the cuTile
    entry's, in order; block = (threads, 1, 1), grid = the tile grid.  ``kind == "gemm"``: launch
    with :mod:`tileorch.launchers.gemm_host` (``gemm_config``); ``gemm_args`` are the indices of
    the A, B, C array arguments of the cuTile kernel when the lowering reports them, then those of
    the other B operands of dots sharing A (``gemm_config.b_operands > 1``)."""

    kind: str
    ptx: str
    cubin: bytes | None
    kernel: str
    threads: int
    gemm_config: object = None
    gemm_args: tuple[int, ...] | None = None
    seconds: float = 0.0
    epilogue_ops: bool = False
    """The GEMM kernel runs the program's epilogue: it takes the cuTile entry's parameters after
    the GEMM's own (see ``convert-nv-tileas-to-cutlass``)."""
    retile_safe: bool = True
    remarks: list = None
    chained: dict | None = None
    """``kind == "chained"``: the launch record of ``tileorch.transforms.tileas.chained_dots``
    (threads, shared memory, the tensor maps to build: base-pointer parameter, box rows, rank); the
    kernel takes the tensor maps, then the cuTile entry's parameters, on the program's grid."""
    timings: dict | None = None
    """Wall seconds per phase and pass (:mod:`tileorch.timing`)."""
    single_tile: dict | None = None
    """``kind == "gemm"``: ``{"m": extent or 0, "n": extent or 0}`` when the program computes only tile
    0 along those output axes (valid for outputs of at most that extent; the launcher checks)."""
    grid_axes: dict | None = None
    """``kind == "gemm"``: how the launch grid maps onto the output's tiles
    (:func:`tileorch.transforms.tileas.convert_to_cutlass.launch_grid_record`): the launcher computes the tiles of
    the programs launched (:mod:`tileorch.launchers.user_grid`); None: not recorded (a program-grid kernel reads
    the launch grid itself)."""
    operand_views: dict | None = None
    """``kind == "gemm"``: ``{"a" | "b": leading indices}`` for an operand the kernel reads as one matrix
    of its argument at indices the host computes at launch (``["arg", entry parameter]`` or
    ``["const", value]`` each: :mod:`tileorch.transforms.tileas.operand_views`), applied by the
    launcher (:mod:`tileorch.launchers.operand_views`); ``b1``, ``b2``...: the Bs of the later dots sharing A."""
    c_view: dict | None = None
    """``kind == "gemm"``: C is a column slice of a wider array (``{"start", "extent", "arg"}``: host
    linear forms of the slice's first column and width, :func:`tileorch.transforms.tileas.operand_views.column_slice`),
    which the launcher addresses (:func:`tileorch.launchers.operand_views.column_slice_view`)."""
    smem: int = 0
    """``kind == "simt"``: bytes of dynamic shared memory the launch gives the kernel (its scratch,
    when more than the 48 KiB of static shared memory)."""
    row_cache: list | None = None
    """``kind == "simt"`` with a row kept in shared memory (``tileaa_to_simt/row_cache_lowering.py``):
    ``[parameter index, elements per slot, slot bytes, bulk-filled (0/1)]``; the launch gives ``smem`` plus a slot per tile of
    the parameter's extent (:func:`tileorch.launchers.row_cache_smem.launch_smem`)."""
    cluster_split: int = 0
    """``kind == "simt"``: when > 0, the kernel's reduction loop is split over the CTAs of a cluster
    of up to this many (``transforms/tileaa_to_simt/cluster_split.py``): the launch multiplies the
    grid's x by its cluster size and launches clusters of that size along x."""
    warp_programs: int = 0
    """``kind == "simt"``: when > 0, the kernel runs one program per warp, up to this many per CTA
    (``transforms/tileaa_to_simt/warp_programs.py``: an extra trailing ``i32`` parameter, the
    programs along x; the launch picks the warps per CTA and divides the grid's x)."""
    programs_per_warp: int = 1
    """``kind == "simt"`` with ``warp_programs``: the programs each warp runs (the launch divides
    the grid's x by the warps per CTA times this)."""
    cta_programs: int = 0
    """``kind == "simt"``: when > 0, the kernel runs several program instances along x per CTA, its final atomics
    combined (``transforms/tileaa_to_simt/combined_atomics.py``: two extra trailing ``i32`` parameters, the
    programs along x and the instances per CTA; the launch picks the latter and divides the grid's x by it)."""
    pdl: bool = False
    """The kernel was compiled for programmatic dependent launch (``TILEORCH_PDL=1``: it waits,
    ``griddepcontrol.wait``, before its first global access on every path): the launchers launch it with
    programmatic stream serialization; a kernel without the wait never is (transforms/gdc_insertion.py)."""
    written: list | None = None
    """The entry parameters the kernel writes (:func:`tileorch.analysis.written_params.written_parameters`, read
    before lowering): ``[parameter index, 1 when a plain store writes it (0: atomics only), "file:line:col" of its
    first writing op]`` each; the launcher refuses an output array that cannot be written correctly (read-only,
    elements sharing memory, overlapping another array); None: not known (no single entry)."""
    read: list | None = None
    """The entry parameters whose memory the kernel loads from (sorted indices; None: not known): an output
    overlapping an array the kernel neither reads nor writes (one passed for its extents only) is taken."""
    deferred: bool = False
    """``kind == "gemm"`` compiled with ``codegen=False``: lowered through the tier (its configuration,
    operands and epilogue known: what the launcher needs to choose the tiles it runs) but with no
    PTX or cubin; the launcher compiles the configuration it runs."""
    tier_output: TierOutput | None = field(default=None, repr=False, compare=False)
    """A ``deferred`` program compiled in this process: the tier's lowered module, kept for
    :func:`compile_deferred` (the same configuration in full without loading and lowering the
    bytecode again); None once used, and on a program read back from the disk cache."""

    def __getstate__(self) -> dict:
        """What a pickle or a deep copy keeps: everything but :attr:`tier_output` (an xDSL module of this
        process, neither picklable nor worth copying: the copy resumes nothing and compiles in full)."""
        state = dict(self.__dict__)
        state["tier_output"] = None
        return state


@dataclass
class TierOutput:
    """What a deferred GEMM program's tier leaves for its full compile (:func:`compile_deferred`):
    the lowered module and its context, the kernel's name and block size, and the remarks made
    up to the tier's end."""

    module: ModuleOp
    ctx: Context
    kernel: str
    threads: int
    remarks: list[str]


def simt_kernel_remarks(kernel) -> list[str]:
    """The remarks a lowered SIMT ``kernel`` (``func.func``, or None) carries as attributes: its
    reduction loop split over a cluster, one program per warp, several programs per warp,
    recomputed broadcasts, divisions by a shared divisor, reductions without an exchange, dynamic
    shared memory (shared by
    :func:`compile_program` and ``tileorch compile --remarks``)."""
    if kernel is None:
        return []
    attrs, name = kernel.attributes, kernel.sym_name.data
    cached = "tileorch.row_cache" in attrs  # (its dynamic shared memory: the scratch, then the row's slots)
    out = [f"remark: @{name}: " + text.format(n=attrs[attr].value.data)
           for attr, text in _SIMT_KERNEL_REMARKS if attr in attrs and not (cached and attr == "tileorch.dynamic_smem")]
    if cached:
        slot = attrs["tileorch.row_cache"].data[2].value.data
        out.append(f"remark: @{name}: a row kept in shared memory between its loops: {slot} bytes a tile after "
                   f"{attrs['tileorch.dynamic_smem'].value.data} bytes of scratch, the launch "
                   "gives a slot per tile of the row (dynamic shared memory, at most 227 KiB; a tile past them "
                   "reloads from global memory) (tileaa_to_simt/row_cache_lowering.py, TILEORCH_ROW_SMEM_CACHE)")
    if "tileorch.row_bulk_fill" in attrs:
        out.append(f"remark: @{name}: the row's whole tiles are bulk-copied into their slots before the first loop "
                   f"(cp.async.bulk, {attrs['tileorch.row_bulk_fill'].data}; a row not 16-byte aligned, its tail "
                   "tile and the slots past the launch's shared memory take the loaded path) "
                   "(tileaa_to_simt/row_bulk_fill.py, TILEORCH_ROW_BULK_FILL=1)")
    if "tileorch.row_bulk_fill_dropped" in attrs:
        out.append(f"remark: @{name}: the row cache is not bulk-filled: {attrs['tileorch.row_bulk_fill_dropped'].data} "
                   "(tileaa_to_simt/row_bulk_fill.py)")
    if "tileorch.store_barriers_dropped" in attrs:
        from tileorch.transforms.tileaa_to_simt.store_barriers import remark as store_remark

        out.append(store_remark(name, attrs["tileorch.store_barriers_dropped"].value.data))
    if "tileorch.combined_atomics" in attrs:
        from tileorch.transforms.tileaa_to_simt.combined_atomics import remark

        out.append(remark(name, attrs["tileorch.combined_atomics"].value.data,
                          attrs["tileorch.reassociated_atomics"].value.data))
    if "tileorch.combined_atomics_off" in attrs:
        out.append(f"remark: @{name}: one program instance per CTA: its final atomics are not combined over "
                   f"several: {attrs['tileorch.combined_atomics_off'].data} (tileaa_to_simt/combined_atomics.py)")
    if "tileorch.row_cache_dropped" in attrs:
        out.append(f"remark: @{name}: the row is not kept in shared memory: "
                   f"{attrs['tileorch.row_cache_dropped'].data} (tileaa_to_simt/row_cache_lowering.py)")
    return out


# (kernel attribute, remark text with {n} for its value), in the order the remarks are printed
_SIMT_KERNEL_REMARKS = (
    ("tileorch.cluster_split", "its reduction loop is split over a cluster of up to {n} CTAs when the grid leaves "
     "SMs idle (the accumulators folded through distributed shared memory; floating-point sums reassociated)"),
    ("tileorch.prefetched_past_stores", "{n} loop(s) that store issue their next iteration's loads before this "
     "iteration's stores (the loads' tokens are not tied to the stores: cuTile leaves them unordered; "
     "tileaa_to_simt/prefetch.py, TILEORCH_PREFETCH_PAST_STORES=1)"),
    ("tileorch.warp_programs", "one program per warp, up to {n} per CTA (a one-warp program: more warps in flight "
     "per SM)"),
    ("tileorch.rematerialized", "{n} broadcast/reshape(s) of a range, splat or tile load recomputed by each "
     "thread (a load: loaded again) instead of exchanged through shared memory (tileaa_to_simt/rematerialize.py; "
     "TILEORCH_REMATERIALIZE=0: the exchange; TILEORCH_REMATERIALIZE_FLOAT_LOADS=0: float loads exchanged)"),
    ("tileorch.uniform_divisions", "{n} tile division(s) by a value shared by the whole tile (a row's sum) use one "
     "reciprocal per thread and three FMA per element, one branch per thread to div.rn where an operand lies "
     "outside [2^-60, 2^60] (zero numerators, such as a ragged row's padding, stay on the fast path; "
     "tileaa_to_simt/uniform_division.py; TILEORCH_UNIFORM_DIV=0: div.rn per element)"),
    ("tileorch.thread_local_reductions", "{n} reduction(s) whose every thread already holds the result elements "
     "the output's layout gives it: no shared-memory exchange and no barrier for them "
     "(tileaa_to_simt/thread_local_reduce.py; TILEORCH_SIMT_REDUCE_EXCHANGE=1: the exchange)"),
    ("tileorch.programs_per_warp", "{n} programs per warp, the loads of all issued before the first is reduced (a "
     "program that loads under 2 KiB per warp: more bytes in flight per warp)"),
    ("tileorch.gather_min_ctas", "a gather without a loop: ptxas asked to keep {n} CTAs resident per SM "
     "(.minnctapersm; more warps hide the index load's and then the rows' latency; "
     "tileaa_to_simt/gather_occupancy.py; TILEORCH_GATHER_WARPS=0: no hint)"),
    ("tileorch.combined_min_ctas", "several instances a CTA: ptxas asked to keep {n} CTAs resident per SM "
     "(.minnctapersm: the instance loop's registers would cut the resident CTAs the launch's one wave counts; "
     "dropped where ptxas spills to meet it; tileaa_to_simt/combined_atomics.py)"),
    ("tileorch.store_chunk", "stores interleaved with the loads: each group of {n} runs of a tile store issued right "
     "after the loads it needs (fewer registers live; tileaa_to_simt/store_chunks.py; TILEORCH_SIMT_STORE_CHUNK, "
     "default off)"),
    ("tileorch.ctas_per_sm", "at most {n} CTAs per SM: each asks for the shared memory that leaves room for no more "
     "(tileaa_to_simt/occupancy_cap.py; TILEORCH_SIMT_CTAS_PER_SM, default unset)"),
    ("tileorch.row_cache_others", "{n} more pair(s) of loads of a row read twice reload from global memory (one "
     "row kept in shared memory per kernel: tileaa_to_simt/row_cache_lowering.py)"),
    ("tileorch.dynamic_smem", "{n} bytes of shared scratch, as dynamic shared memory (more than the 48 KiB a "
     "kernel may declare statically)"),
)


def compile_program(data: bytes, name: str = "<cuTile program>", arch: str = "sm_90a",
                    schedule: str = "persistent", ptxas: bool = True, config: str = "",
                    codegen: bool = True) -> CutileProgram:
    """Compile cuTile bytecode (or ``cuda_tile`` text) to PTX and (with ``ptxas``) a cubin.
    ``codegen=False``: a program the tier compiles to a GEMM stops after the tier (``deferred``: no
    PTX; the launcher compiles the tiles it chooses); every other kind compiles in full.
    Raises :class:`BytecodeError`, ``SourceError``/``LocatedError``/``CompileError`` on bad input."""
    import time

    from tileorch import timing

    from tileorch.gc_deferral import gc_deferred

    start = time.perf_counter()
    with timing.collect() as timer, gc_deferred():  # the bytecode's load and the tile program's lowering too
        program = _compile_program(data, name, arch, schedule, ptxas, config, start, codegen)
    program.timings = timer.as_dict()
    return program


def _compile_program(data: bytes, name: str, arch: str, schedule: str, ptxas: bool, config: str,
                     start: float, codegen: bool = True, assembled: list | None = None) -> CutileProgram:
    import time

    from xdsl.dialects import func

    from tileorch import timing
    from tileorch.registry import make_context

    ctx = make_context()
    module = load(data, name, ctx)
    written, read = _written(module), _read(module)
    remarks: list[str] = []
    with timing.timed("tile-program"):
        kind, lowered = lower_program(module, ctx, arch, schedule, config, remarks)
    kernels = [op for op in lowered.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes]
    gemm_config = gemm_args = None
    record: dict = {}
    if kind == "gemm":
        from tileorch.transforms.tileas.convert_to_cutlass import CONFIG_ATTR, read_config

        fn = next(op for op in lowered.walk() if CONFIG_ATTR in op.attributes)
        gemm_config, record = read_config(fn)
        remarks.extend(r if ": remark: " in r else f"remark: {r}" for r in record.get("remarks", []))
        args = record.get("args")
        gemm_args = tuple(args) if args is not None else None
    chained = None
    if kind == "chained":
        from tileorch.transforms.tileas.chained_detect import CHAINED_ATTR

        fn = next(op for op in lowered.walk() if CHAINED_ATTR in op.attributes)
        chained = decode_record(fn.attributes[CHAINED_ATTR])
    kernel = kernels[0] if kernels else None
    threads = smem = 0
    if kernel is not None and "nvvm.maxntid" in kernel.attributes:
        threads = int(list(kernel.attributes["nvvm.maxntid"].get_values())[0])
    remarks.extend(simt_kernel_remarks(kernel))
    attrs = kernel.attributes if kernel is not None else {}
    cluster_split = attrs["tileorch.cluster_split"].value.data if "tileorch.cluster_split" in attrs else 0
    warp_programs = attrs["tileorch.warp_programs"].value.data if "tileorch.warp_programs" in attrs else 0
    programs_per_warp = attrs["tileorch.programs_per_warp"].value.data if "tileorch.programs_per_warp" in attrs else 1
    cta_programs = int("tileorch.combined_atomics" in attrs)
    smem = attrs["tileorch.dynamic_smem"].value.data if "tileorch.dynamic_smem" in attrs else smem
    row_cache = [a.value.data for a in attrs["tileorch.row_cache"].data] if "tileorch.row_cache" in attrs else None
    if row_cache is not None:  # a fourth entry: 1 when the row's tiles are bulk-copied into their slots
        row_cache.append(int("tileorch.row_bulk_fill" in attrs))
    if kind == "gemm" and not codegen:  # the launcher compiles the configuration it chooses
        tier = TierOutput(lowered, ctx, kernel.sym_name.data if kernel is not None else "", threads, list(remarks))
        remarks.append("remark: lowered through the tier only (its GEMM configuration read to choose the launch's "
                       "tiles; the chosen configuration is compiled to a cubin)")
        return CutileProgram(kind, "", None, "", 0, gemm_config, gemm_args, time.perf_counter() - start,
                             bool(record.get("epilogue_ops", False)), bool(record.get("retile_safe", True)),
                             remarks, None, single_tile=record.get("single_tile"),
                             grid_axes=record.get("grid_axes"),
                             operand_views=record.get("views"), c_view=record.get("c_view"), deferred=True,
                             tier_output=tier, written=written, read=read)
    result = _backend(kind, lowered, ctx, arch, ptxas, remarks)
    if assembled is not None:  # (the caller's: its ptxas result)
        assembled.append(result.ptxas)
    if cta_programs and result.ptxas is not None:
        plain = _without_combined_atomics(result.ptxas, kernel.sym_name.data, data, name, arch, schedule, ptxas,
                                          config, start, codegen)
        if plain is not None:
            return plain
    if chained and (chained.get("persistent") or {}).get("row_groups_default") and result.ptxas is not None:
        plain = _without_row_groups(result.ptxas, kernel.sym_name.data, data, name, arch, schedule, ptxas, config,
                                    start, codegen)
        if plain is not None:
            return plain
        _row_groups_spill_as_remark(remarks, kernel.sym_name.data, result.ptxas)
    return CutileProgram(kind, result.ptx, result.ptxas.cubin if result.ptxas is not None else None,
                         kernel.sym_name.data if kernel is not None else "", threads, gemm_config, gemm_args,
                         time.perf_counter() - start, bool(record.get("epilogue_ops", False)),
                         bool(record.get("retile_safe", True)), remarks, chained, smem=smem,
                         single_tile=record.get("single_tile"), grid_axes=record.get("grid_axes"),
                         operand_views=record.get("views"),
                         c_view=record.get("c_view"),
                         warp_programs=warp_programs,
                         cluster_split=cluster_split, programs_per_warp=programs_per_warp, row_cache=row_cache,
                         cta_programs=cta_programs, written=written, read=read,
                         pdl=kernel is not None and kernel.sym_name.data in result.pdl)  # (this kernel waits)


def _written(module: ModuleOp) -> list | None:
    """:attr:`CutileProgram.written` of a loaded cuTile module (None: not one entry)."""
    from tileorch.analysis.written_params import module_written_parameters

    found = module_written_parameters(module)
    if found is None:
        return None
    return [[index, int(plain), where] for index, (plain, where) in sorted(found.items())]


def _read(module: ModuleOp) -> list | None:
    """:attr:`CutileProgram.read` of a loaded cuTile module (None: not one entry)."""
    from tileorch.analysis.written_params import module_read_parameters

    found = module_read_parameters(module)
    return None if found is None else sorted(found)


def _spill_bytes(assembled, kernel: str) -> int:
    """Bytes of spill stores and loads ptxas reported for ``kernel`` (``assembled``: its ptxas result)."""
    used = assembled.resources.get(kernel, {})
    return used.get("spill_stores", 0) + used.get("spill_loads", 0)


def _compiled_again_without(env: str, spill: int, data: bytes, name: str, arch: str, schedule: str, ptxas: bool,
                            config: str, start: float, codegen: bool,
                            refused=lambda plain: False) -> tuple[CutileProgram, str] | None:
    """The program compiled again with ``env=0`` (a default that made a kernel spill ``spill`` bytes): (that
    compile, what it spills in words) where it has a cubin, is not ``refused`` and spills fewer bytes; else None."""
    got: list = []
    with settings.overridden(env, "0"):
        plain = _compile_program(data, name, arch, schedule, ptxas, config, start, codegen, got)
    if plain.cubin is None or refused(plain) or not got or got[0] is None:
        return None
    plain_bytes = _spill_bytes(got[0], plain.kernel)
    if plain_bytes >= spill:
        return None
    return plain, "no spill" if not plain_bytes else f"{plain_bytes} B of spills"


def _without_combined_atomics(assembled, kernel: str, data: bytes, name: str, arch: str, schedule: str,
                              ptxas: bool, config: str, start: float, codegen: bool) -> CutileProgram | None:
    """The spill-aware refusal of combined atomics (``transforms/tileaa_to_simt/combined_atomics.py``): where ptxas
    still spills the registers of ``kernel`` (several instances per CTA, ``assembled`` its ptxas result, after the
    backend dropped the resident-CTA hint), the program compiled again with ``TILEORCH_COMBINE_ATOMICS=0`` when that
    kernel spills fewer bytes (a spill costs more than the atomics saved), with a remark saying so; else None (the
    combined kernel kept).  Costs a second compile only where the first spilled (none of the programs measured:
    the hint's spills are the backend's to drop)."""
    from tileorch.backend.ptxas import spilled
    from tileorch.transforms.tileaa_to_simt.combined_atomics import ENV

    if not spilled(assembled, {kernel}):
        return None
    used = assembled.resources[kernel]
    again = _compiled_again_without(ENV, _spill_bytes(assembled, kernel), data, name, arch, schedule, ptxas, config,
                                    start, codegen, refused=lambda plain: bool(plain.cta_programs))
    if again is None:
        return None
    plain, spills = again
    plain.remarks.append(
        f"remark: @{kernel}: one program instance per CTA: with its final atomics combined over several "
        f"(tileaa_to_simt/combined_atomics.py) ptxas spilled {used.get('spill_stores', 0)} B stores / "
        f"{used.get('spill_loads', 0)} B loads ({used.get('registers', 0)} registers) even without the resident-CTA "
        f"hint; compiled again without (TILEORCH_COMBINE_ATOMICS=0 for this program: {spills})")
    return plain


def _row_groups_spill_as_remark(remarks: list[str], kernel: str, assembled) -> None:
    """The default row groups' kernel kept with a spill within
    :data:`~tileorch.transforms.tileas.row_groups.SPILL_LIMIT` (:func:`_without_row_groups` returned None): ptxas's
    spill warning of ``kernel`` becomes a remark naming the choice -- the compiler's own choice, measured faster with
    that spill (the d64 128x64 kernel at ragged lengths, 8 B + 8 B), is no performance warning to the user (a launch
    turns ``warning: ptxas spilled`` into a PerformanceWarning)."""
    from tileorch.transforms.tileas.row_groups import ROW_GROUPS_ENV, SPILL_LIMIT

    if _spill_bytes(assembled, kernel) > SPILL_LIMIT:
        return  # (kept past the limit: the two-group kernel spilled no less -- the warning stands)
    head = f"warning: ptxas spilled registers of {kernel}:"
    for i, r in enumerate(remarks):
        if r.startswith(head):
            remarks[i] = (f"remark: ptxas spilled registers of {kernel}:{r[len(head):]}, within the {SPILL_LIMIT} B "
                          f"the default four row groups are kept with ({ROW_GROUPS_ENV}=0: the two-group kernel)")


def _without_row_groups(assembled, kernel: str, data: bytes, name: str, arch: str, schedule: str, ptxas: bool,
                        config: str, start: float, codegen: bool) -> CutileProgram | None:
    """The spill check of the default row groups (``TILEORCH_ATTN_ROW_GROUPS=auto``,
    :mod:`tileorch.transforms.tileas.row_groups`): where ptxas spills more than
    :data:`~tileorch.transforms.tileas.row_groups.SPILL_LIMIT` bytes of the four-group kernel ``kernel`` (its 112
    registers: the rule counts S, P and the carried tiles, not a program's other work per element, e.g. a soft
    cap's tanh: 140 B stores / 284 B loads at d64 128x64), the program compiled again with
    ``TILEORCH_ATTN_ROW_GROUPS=0``, kept where it spills less, with a remark saying so; else None.  A second compile
    only where the first spilled past the limit (none of the programs the rule was measured on)."""
    from tileorch.transforms.tileas.row_groups import ROW_GROUPS_ENV, SPILL_LIMIT

    spill = _spill_bytes(assembled, kernel)
    if spill <= SPILL_LIMIT:
        return None
    again = _compiled_again_without(ROW_GROUPS_ENV, spill, data, name, arch, schedule, ptxas, config, start, codegen)
    if again is None:
        return None
    plain, spills = again
    used = assembled.resources.get(kernel, {})
    plain.remarks.append(
        f"remark: @{kernel}: the kernel of 128-row instances ({plain.kernel}) instead of the default's row groups: "
        f"ptxas spilled {used.get('spill_stores', 0)} B stores / {used.get('spill_loads', 0)} B loads of the four "
        f"groups' registers, more than {SPILL_LIMIT} B ({ROW_GROUPS_ENV}=0 for this program: {spills})")
    return plain


def _backend(kind: str, lowered: ModuleOp, ctx: Context, arch: str, ptxas: bool, remarks: list[str]):
    """The backend's compile of a tile program's lowering (in place), its remarks added to ``remarks``."""
    result = compile_module(lowered, ctx, arch=arch, emit="ptx", ptxas=ptxas, isolate=True, kind=kind)
    remarks.extend(result.remarks)  # the backend's own (a dropped occupancy hint)
    if result.ptxas is not None:
        from tileorch.backend.ptxas import resource_remarks, wgmma_serialization_warnings

        remarks.extend(resource_remarks(result.ptxas.resources))
        remarks.extend(wgmma_serialization_warnings(result.ptxas.info + result.ptxas.messages))
    return result


def compile_deferred(program: CutileProgram, arch: str = "sm_90a", ptxas: bool = True) -> CutileProgram | None:
    """The full compile of a ``deferred`` GEMM program (``compile_program(codegen=False)``) for the
    configuration it was lowered with, from the tier output it kept (:class:`TierOutput`): the
    program :func:`compile_program` would return for the same bytecode, schedule and override
    (the same module through the same backend: the same PTX), without loading the bytecode and
    running the tier a second time.  None when ``program`` kept no tier output (not deferred,
    read back from the disk cache, or compiled in full from it already: the backend lowers the
    module in place, so it serves once).  ``timings`` hold the backend's phases only."""
    import time

    from tileorch import timing
    from tileorch.gc_deferral import gc_deferred

    tier = getattr(program, "tier_output", None)
    if tier is None:
        return None
    program.tier_output = None
    start = time.perf_counter()
    remarks = list(tier.remarks)
    with timing.collect() as timer, gc_deferred():
        result = _backend(program.kind, tier.module, tier.ctx, arch, ptxas, remarks)
    return replace(program, ptx=result.ptx, cubin=result.ptxas.cubin if result.ptxas is not None else None,
                   kernel=tier.kernel, threads=tier.threads, seconds=program.seconds + time.perf_counter() - start,
                   remarks=remarks, timings=timer.as_dict(), deferred=False, pdl=tier.kernel in result.pdl)


ROUTES = {
    "cutlass": "the module as written -> tileorch.backend.pipeline",
    "nv_tileaa": "lower_tileaa_program: TileAS tier (dots) or SIMT lowering -> tileorch.backend.pipeline",
    "cuda_tile": "convert-cudatile-to-tileaa -> the nv_tileaa route",
}
"""Input kind -> its route (the table the module docstring draws)."""


def input_kind(module: ModuleOp) -> str:
    """``cuda_tile``, ``nv_tileaa`` or ``cutlass`` (anything else: the backend's own pipeline)."""
    return tile_program_kind(module) or "cutlass"


def lower_tile_module(module: ModuleOp, ctx: Context, arch: str = "sm_90a", schedule: str = "persistent",
                      config: str = "", remarks: list[str] | None = None) -> tuple[str, ModuleOp]:
    """Route a tile program by its kind (:data:`ROUTES`); returns (the path taken, the module the
    backend compiles).  A ``cutlass`` module is returned as it is, with path ``""``."""
    kind = input_kind(module)
    if kind == "cuda_tile":
        return lower_program(module, ctx, arch, schedule, config, remarks)
    if kind == "nv_tileaa":
        return lower_tileaa_program(module, ctx, arch, schedule, config, remarks)
    return "", module


def compile_module(
    module: ModuleOp,
    ctx: Context | None = None,
    *,
    arch: str | None = None,
    ptx_version: int | None = None,
    emit: str = "ptx",
    ptxas: bool = True,
    extra_pipeline: str = "",
    isolate: bool = False,
    schedule: str | None = None,
    kind: str = "",
    debug_timeout: int = 0,
) -> CompileResult:
    """Compile ``module`` (modified in place) up to ``emit`` (``mlir``, ``llvm`` or ``ptx``).

    ``arch`` defaults to the module's ``cutlass.target`` (else sm_90a).  ``isolate`` runs
    LLVM code generation in a child process, so an LLVM abort becomes an error.
    ``ptx_version`` defaults to :data:`tileorch.backend.ptx.DEFAULT_PTX_VERSION`.

    A tile program (``nv_tileaa`` or ``cuda_tile``) first takes the route cuTile programs take
    (:func:`lower_tile_module`: the TileAS tier for GEMM-shaped kernels, with ``schedule``, else
    the SIMT lowering); ``result.kind`` and ``result.remarks`` say which.  ``schedule`` on any
    other module is an error (its scheduler is in its IR).  The rest is the backend's
    (:func:`tileorch.backend.compile.compile_lowered`).

    ``kind`` is the route a caller that lowered the tile program itself took (the kind
    :func:`lower_program` returned: ``"simt"``, ``"gemm"``, ``"chained"``): the backend then
    treats ``module`` as this function's own lowering of it (verified once, after the pipeline;
    the SIMT lowering's output skips the cutlass passes).

    ``debug_timeout`` > 0 (polls) is a debug build: every mbarrier wait and spin loop of the
    kernel, whichever path emitted it, traps after that many unsuccessful polls with a line that
    names what it waited on (``bound-barrier-waits``).
    """
    from tileorch import timing
    from tileorch.backend.compile import STAGES, compile_lowered
    from tileorch.backend.ptx import DEFAULT_PTX_VERSION
    from tileorch.gc_deferral import gc_deferred
    from tileorch.registry import make_context

    if emit not in STAGES:
        raise ValueError(f"emit must be one of {STAGES}, got {emit!r}")
    with timing.collect() as timer, gc_deferred():
        ctx = ctx or make_context()
        remarks: list[str] = []
        module, lowered_kind = _lower_tile_program(module, ctx, arch, schedule, remarks)
        kind = lowered_kind or kind
        result = compile_lowered(module, ctx, arch, DEFAULT_PTX_VERSION if ptx_version is None else ptx_version,
                                 emit, ptxas, extra_pipeline, isolate, kind, remarks, debug_timeout)
    result.timings = timer.as_dict()  # a caller's enclosing scope (compile_text, the API) refreshes it
    return result


def compile_text(text: str, name: str = "<input>", **kwargs) -> CompileResult:
    """:func:`tileorch.backend.compile.parse_text` then :func:`compile_module` (same keyword arguments).

    >>> result = compile_text(open("k.mlir").read(), "k.mlir")       # doctest: +SKIP
    >>> result.ptx, result.ptxas.messages                             # doctest: +SKIP
    """
    from tileorch import timing
    from tileorch.backend.compile import parse_text
    from tileorch.gc_deferral import gc_deferred
    from tileorch.registry import make_context

    with timing.collect() as timer, gc_deferred():
        ctx = make_context()
        result = compile_module(parse_text(ctx, text, name), ctx, **kwargs)
    result.timings = timer.as_dict()
    return result


def _lower_tile_program(module: ModuleOp, ctx: Context, arch: str | None, schedule: str | None,
                        remarks: list[str]) -> tuple[ModuleOp, str]:
    """(module, kind): a tile program lowered to the tier the backend compiles, else ``module``
    unchanged and kind ``""`` (``schedule`` set on it is an error)."""
    from tileorch import timing
    from tileorch.backend.compile import _verify
    from tileorch.diagnostics import CompileError, format_error

    program = tile_program_kind(module)  # one walk (the CLI passes the lowered kernel here)
    cuda_tile = program == "cuda_tile"
    if not program:
        if schedule is not None:
            raise CompileError([format_error(
                module, f"a schedule ({schedule}) applies only to tile programs (nv_tileaa or cuda_tile input); this "
                        "module's tile scheduler, if any, is written in its IR (cutlass.tile_scheduler)")])
        return module, ""
    if schedule is not None and schedule not in (*SCHEDULES, "simt"):
        raise CompileError([format_error(module, f"unknown schedule {schedule!r}; choose one of "
                                                 f"{', '.join((*SCHEDULES, 'simt'))}")])
    _verify(module, "input")  # the tile lowerings assume a verified program
    with timing.timed("tile-program"):
        return _lower_tile_program_verified(module, ctx, arch, schedule, remarks, cuda_tile)


def _lower_tile_program_verified(module: ModuleOp, ctx: Context, arch: str | None, schedule: str | None,
                                 remarks: list[str], cuda_tile: bool) -> tuple[ModuleOp, str]:
    from xdsl.utils.exceptions import DiagnosticException

    from tileorch.backend.ptx import DEFAULT_ARCH
    from tileorch.diagnostics import CompileError, format_error, format_exception
    from tileorch.frontend.cutile import tile_program_arch

    if not cuda_tile:
        named = tile_program_arch(module, arch or DEFAULT_ARCH)
        if arch is not None and named.rstrip("a") != arch.rstrip("a"):
            raise CompileError([format_error(
                module, f"the target given ({arch}) differs from the module's nv_tileaa.compute_capability "
                        f"({named}); drop --arch or make them agree")])
        arch = arch or named
    arch = arch or DEFAULT_ARCH
    lower = lower_program if cuda_tile else lower_tileaa_program
    try:
        kind, lowered = lower(module, ctx, arch, schedule or "persistent", remarks=remarks)
    except (DiagnosticException, NotImplementedError, ValueError) as exc:
        if isinstance(exc, CompileError):
            raise
        raise CompileError(format_exception(exc, module)) from None
    if schedule is not None and schedule != "simt" and kind == "simt":
        remarks.append(format_error(module, f"schedule {schedule} not applied: the kernel has no GEMM the TileAS "
                                            "tier compiles, so the SIMT path compiled it (a schedule picks the tile "
                                            "scheduler of the tier's GEMM)", "remark"))
    lowered.attributes.setdefault("cutlass.target", StringAttr(arch))
    return lowered, kind


__all__ = ["ROUTES", "SCHEDULES", "CutileProgram", "TierOutput", "compile_deferred", "compile_module",
           "compile_program", "compile_text", "front_passes", "input_kind",
           "lower_program", "lower_tile_module", "lower_tileaa_program", "lower_to_cutlass"]
