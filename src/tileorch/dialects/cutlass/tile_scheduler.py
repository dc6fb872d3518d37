"""``cutlass.tile_scheduler.*``: the 31 tile-scheduler ops plus four helpers.

The ops state CUTLASS's tile-scheduler protocol (``cutlass/gemm/kernel/*tile_scheduler*.hpp``)
as IR; the host-side scheduler math lives in :mod:`tileorch.schedulers`.  Roles:

* param builders ``make_{dp,static_persistent,streamk}_params``: host ``Params::initialize``
  from the problem shape (Pure);
* scheduler constructors ``create_{dp,static_persistent,streamk}_params`` and
  ``create_SM100_scheduler``: a device-side scheduler handle built from params (the handle's
  state is fresh per op: allocation effect, so CSE never merges two schedulers);
* work-tile-info values are immutable: ``create_*_work_tile_info`` gives the invalid tile,
  ``work_tile_info_set_value`` returns an updated copy (Pure);
* scheduler-state ops (``advance_to_next_work``, ``fetch_next_work``, ``static_fetch_next_work``,
  ``query_next_work``) read and write the scheduler state; ``get_current_work`` reads it;
* the Stream-K fix-up trio and ``initialize_workspace`` read and write the workspace.

Verifier rules are listed in ``docs/dialect-conventions.md`` (tile scheduler section).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import ClassVar

from xdsl.dialects.builtin import (I32, BoolAttr, DenseArrayBase, IndexType, IntegerAttr, IntegerType, Signedness,
                                   UnitAttr, i1, i32)
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (AnyAttr, AttrSizedOperandSegments, AttrSizedResultSegments, IRDLOperation, ParsePropInAttrDict,
                       VarConstraint, irdl_op_definition, irdl_to_attr_constraint, operand_def, opt_operand_def,
                       opt_prop_def, opt_result_def, prop_def, result_def, traits_def, var_operand_def)
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int
from tileorch.dialects.cutlass.bar_scope import enclosing_async_exec
from tileorch.dialects.cutlass.scheduler_attrs import (DecompModeAttr, DpParamFieldAttr, DpWorkTileInfoFieldAttr,
                                                       ModsInstrumentationFieldAttr, RasterOrderAttr,
                                                       StaticPersistentParamFieldAttr,
                                                       StaticPersistentWorkTileInfoFieldAttr, StreamKParamFieldAttr,
                                                       StreamKWorkTileInfoFieldAttr, field_value_kind)
from tileorch.dialects.cutlass.scheduler_context import (check_cga_shape, cluster_shape, known_alignment, target_name,
                                                         target_sm, value_name)
from tileorch.dialects.cutlass.scheduler_types import (SCHEDULER_FAMILY, DpParamsType, DpWorkTileInfoType,
                                                       ModsInstrumentationType, ParamsType, StaticPersistentParamsType,
                                                       StaticPersistentWorkTileInfoType, StreamKParamsType,
                                                       StreamKWorkTileInfoType, TileSchedulerType, WorkTileInfoType)
from tileorch.dialects.nvvm_common import address_space

# CUTLASS: CLCResponse slots are 16 B aligned; MinWorkspaceAlignment = 16 (cutlass/workspace.h).
RESPONSE_ALIGNMENT = 16
WORKSPACE_ALIGNMENT = 16
SHARED_ADDRESS_SPACE = 3
SM100 = 100
I32_MAX = (1 << 31) - 1
MAX_SWIZZLE_SIZE = 8
"""CUTLASS ``get_log_swizzle_size``: the swizzle is 1, 2, 4 or 8 CGAs; a larger maximum selects 8."""
MAX_STREAMK_FIXUP_GROUPS = 2
"""CUTLASS reserves two Stream-K named barriers (``StreamkBarrier0``, ``StreamkBarrier1``, ids 4
and 5): one per consumer warp group that runs the fix-up."""
MIN_SIZE_BITS = 32
"""Workspace sizes are byte counts read from the 32-bit fields of the params record."""

PARAM_FIELD_ATTR = {
    "dp": DpParamFieldAttr,
    "static_persistent": StaticPersistentParamFieldAttr,
    "streamk": StreamKParamFieldAttr,
}
WORK_TILE_INFO_FIELD_ATTR = {
    "dp": DpWorkTileInfoFieldAttr,
    "static_persistent": StaticPersistentWorkTileInfoFieldAttr,
    "streamk": StreamKWorkTileInfoFieldAttr,
}
ParamFieldAttr = DpParamFieldAttr | StaticPersistentParamFieldAttr | StreamKParamFieldAttr
WorkTileInfoFieldAttr = (
    DpWorkTileInfoFieldAttr | StaticPersistentWorkTileInfoFieldAttr | StreamKWorkTileInfoFieldAttr
)
PULL_MODEL_KINDS = ("dp", "dynamic_persistent")
_SAME_WORK_TILE_INFO = VarConstraint("W", irdl_to_attr_constraint(WorkTileInfoType))
"""A work-tile-info result of the same type as the op's work-tile-info operand."""


class AllocatesHandle(MemoryEffect):
    """The op creates a fresh stateful object (its first result): never merged by CSE,
    removed by DCE when unused."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.ALLOC, op.results[0])}


# ----------------------------------------------------------------------------- helpers


def _kind(value: SSAValue) -> str:
    typ = value.type
    assert isinstance(typ, TileSchedulerType)
    return typ.kind_name


def check_work_tile_info(sched: SSAValue, work_tile_info_type: Attribute) -> None:
    """The work-tile-info type must be the one of the scheduler's kind."""
    kind = _kind(sched)
    family = SCHEDULER_FAMILY[kind]
    if getattr(work_tile_info_type, "FAMILY", None) != family:
        raise VerifyException(
            f"work-tile-info type {work_tile_info_type} does not match scheduler kind '{kind}': "
            f"expected !cutlass.{family}_work_tile_info"
        )


def _check_params_family(params_type: Attribute, family: str, what: str) -> None:
    if getattr(params_type, "FAMILY", None) != family:
        raise VerifyException(
            f"{what} expects !cutlass.tile_scheduler_{family}_params, found {params_type}"
        )


def _check_field(field: Attribute, family: str, table: dict, container: Attribute) -> str:
    expected = table[family]
    if not isinstance(field, expected):
        raise VerifyException(
            f"field {field} does not belong to {container}: expected a #cutlass<{expected.name[8:]} ...> field"
        )
    return field.data.value


def _check_field_access(field: Attribute, container: Attribute, table: dict, value_type: Attribute) -> None:
    """``field`` names a member of ``container``'s family (``table``: family -> field attribute)
    and ``value_type`` is what that member holds."""
    family = container.FAMILY  # type: ignore[attr-defined]
    check_field_value_type(_check_field(field, family, table, container), value_type)


def check_field_value_type(field: str, typ: Attribute) -> None:
    """The value type of a field member: i1 flags, i32 counts, any integer sizes, pointers."""
    kind = field_value_kind(field)
    if kind == "size":  # a byte or nanosecond count
        if "workspace" in field:
            check_workspace_size_type(typ, f"field '{field}'")
        else:
            _check_count_type(field, typ)
        return
    ok = {
        "i1": typ == i1,
        "i32": typ == i32,
        "ptr": isinstance(typ, LLVMPointerType),
    }[kind]
    if not ok:
        expected = {"i1": "i1", "i32": "i32", "ptr": "!llvm.ptr"}[kind]
        raise VerifyException(f"field '{field}' holds {expected}, found {typ}")


def _check_count_type(field: str, typ: Attribute) -> None:
    if isinstance(typ, IndexType) or (
        isinstance(typ, IntegerType) and typ.signedness.data is Signedness.SIGNLESS and typ.width.data >= MIN_SIZE_BITS
    ):
        return
    raise VerifyException(
        f"field '{field}' holds a count: a signless integer of at least {MIN_SIZE_BITS} bits (e.g. i64) or index, "
        f"found {typ}"
    )


def _check_alignment(pointer: SSAValue, required: int, what: str) -> None:
    align = known_alignment(pointer)
    if align is not None and align < required:
        raise VerifyException(
            f"{what} must be {required}-byte aligned, found a constant address aligned to {align} bytes"
        )


def check_params_cga(op: Operation, params_type: Attribute) -> None:
    """A params type that fixes the CGA shape (``cga = [x, y, z]``) fixes the cluster the scheduler
    body divides the grid by (shifts: powers of two) and maps tiles onto: the target must launch it
    and it must be the kernel's / module's declared launch cluster (``check_cga_shape``)."""
    cga = params_type.cga() if hasattr(params_type, "cga") else None  # type: ignore[attr-defined]
    if cga is None:
        return
    _check_power_of_two_cga(cga)
    check_cga_shape(op, cga, f"the CGA shape of {params_type}")


def _require_async_exec(op: Operation, why: str) -> None:
    if enclosing_async_exec(op) is None:
        raise VerifyException(f"{op.name} must be nested in a cutlass.async.exec region ({why})")


# ------------------------------------------------------------------ param builders (host)


class _MakeParamsOp(IRDLOperation):
    """Host ``Params::initialize``: params from the problem shape (M, N, K, L in elements),
    the SM count, the CTA tile shape and the CGA shape / raster order.

    The CGA shape comes from the ``cga(...)`` operands or the result type's ``cga``
    parameter, the raster order from the ``raster_order`` property or the type's ``raster``
    parameter: at least one of each, equal when both are given.
    """

    m = operand_def(I32)
    n = operand_def(I32)
    k = operand_def(I32)
    l = operand_def(I32)  # noqa: E741 (CUTLASS's batch mode is named L)
    sm_count = operand_def(I32)
    cgaShape = var_operand_def(I32)
    tile_shape = prop_def(DenseArrayBase)
    raster_order = opt_prop_def(RasterOrderAttr)
    max_swizzle_size = opt_prop_def(IntegerAttr[I32])

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = (
        "$m `,` $n `,` $k `,` $l `sms` `(` $sm_count `)` (`cga` `(` $cgaShape^ `)`)? "
        "attr-dict `:` type($tileSchedulerParams)"
    )

    def verify_(self) -> None:
        params_type = self.tileSchedulerParams.type  # type: ignore[attr-defined]
        self._verify_tile_shape()
        self._verify_cga(params_type)
        self._verify_raster(params_type)
        if self.max_swizzle_size is not None:
            check_swizzle_size(self.max_swizzle_size.value.data)

    def _verify_tile_shape(self) -> None:
        shape = tuple(self.tile_shape.get_values())
        if len(shape) != 3:
            raise VerifyException(f"tile_shape must have 3 extents (M, N, K), found {len(shape)}")
        for dim, extent in zip("MNK", shape):
            if extent < 0:
                raise VerifyException(
                    f"CGA tile shapes must be static: tile_shape extent {dim} is dynamic ({extent})"
                )
            if extent == 0:
                raise VerifyException(f"tile_shape extent {dim} must be positive, found 0")
            if extent > I32_MAX:
                raise VerifyException(
                    f"tile_shape extent {dim} = {extent} does not fit the i32 the scheduler divides the i32 "
                    f"problem extents by (its params record holds 32-bit tile counts): at most {I32_MAX}"
                )

    def _verify_cga(self, params_type: Attribute) -> None:
        from_type = params_type.cga()  # type: ignore[attr-defined]
        operands = tuple(self.cgaShape)
        if not operands and from_type is None:
            raise VerifyException(
                "CGA shape missing: give cga(%x, %y, %z) operands or a `cga = [x, y, z]` "
                f"parameter on the result type {params_type}"
            )
        if not operands:
            _check_power_of_two_cga(from_type)
            check_cga_shape(self, from_type, "the scheduler's CGA shape")
            return
        if len(operands) != 3:
            raise VerifyException(f"cga(...) takes 3 operands (x, y, z), found {len(operands)}")
        values = [constant_int(v) for v in operands]
        for axis, (operand, value) in enumerate(zip(operands, values)):
            if value is None:
                raise VerifyException(
                    f"CGA shapes must be static: cga operand {axis} ({value_name(operand)}) "
                    "is not defined by a constant"
                )
        if from_type is not None and tuple(values) != from_type:
            raise VerifyException(
                f"CGA shape operands {values} disagree with the result type's cga = {list(from_type)}"
            )
        _check_power_of_two_cga(tuple(values))  # type: ignore[arg-type]
        check_cga_shape(self, tuple(values), "the scheduler's CGA shape")

    def _verify_raster(self, params_type: Attribute) -> None:
        from_type = params_type.raster()  # type: ignore[attr-defined]
        from_prop = self.raster_order.data.value if self.raster_order is not None else None
        if from_prop is None and from_type is None:
            raise VerifyException(
                "raster order missing: set the raster_order property or a `raster = ...` "
                f"parameter on the result type {params_type}"
            )
        if from_prop is not None and from_type is not None and from_prop != from_type:
            raise VerifyException(
                f"raster_order {from_prop} disagrees with the result type's raster = {from_type}"
            )


def check_swizzle_size(value: int) -> None:
    """``max_swizzle_size`` is CUTLASS's ``int max_swizzle_size``: at least 0, as its
    ``can_implement`` asks (0 and 1 both select no swizzle); an i32 literal such as 4294967295 is
    the signed value -1, as the lowering reads it."""
    if value < 0:
        raise VerifyException(
            f"max_swizzle_size must be >= 0, found {value} (use 1, 2, 4 or 8; 0 behaves like 1, larger values "
            f"select {MAX_SWIZZLE_SIZE})"
        )


def _check_power_of_two_cga(cga: tuple[int, ...]) -> None:
    """CUTLASS divides by the cluster extents with shift/mask (FastDivmodU64Pow2)."""
    if any(v < 1 or v & (v - 1) for v in cga):
        raise VerifyException(
            f"CGA shape extents must be powers of two (the scheduler divides by them with shifts), "
            f"found {list(cga)}"
        )


@irdl_op_definition
class MakeDpParamsOp(_MakeParamsOp):
    name = "cutlass.tile_scheduler.make_dp_params"
    tileSchedulerParams = result_def(DpParamsType)


@irdl_op_definition
class MakeStaticPersistentParamsOp(_MakeParamsOp):
    name = "cutlass.tile_scheduler.make_static_persistent_params"
    tileSchedulerParams = result_def(StaticPersistentParamsType)


@irdl_op_definition
class MakeStreamKParamsOp(_MakeParamsOp):
    """Stream-K params; ``decomp_mode`` (default heuristic) and ``splits`` (default 1)
    follow CUTLASS's ``Arguments``: splits > 1 needs the heuristic or split_k mode."""

    name = "cutlass.tile_scheduler.make_streamk_params"
    tileSchedulerParams = result_def(StreamKParamsType)
    decomp_mode = opt_prop_def(DecompModeAttr)
    splits = opt_prop_def(IntegerAttr[I32])

    def verify_(self) -> None:
        super().verify_()
        splits = self.splits.value.data if self.splits is not None else 1
        mode = self.decomp_mode.data.value if self.decomp_mode is not None else "heuristic"
        if splits < 1:
            raise VerifyException(f"splits must be >= 1, found {splits}")
        if splits > 1 and mode not in ("heuristic", "split_k"):
            raise VerifyException(
                f"splits = {splits} needs decomp_mode heuristic or split_k, found {mode}"
            )


@irdl_op_definition
class CreateSelectSwizzleSizeOp(IRDLOperation):
    """The swizzle size (1, 2, 4 or 8 CGAs) for a problem of ``tiles_m`` x ``tiles_n`` CGA
    tiles, at most ``max_swizzle_size`` (CUTLASS ``get_log_swizzle_size``)."""

    name = "cutlass.tile_scheduler.create_select_swizzle_size"
    tiles_m = operand_def(I32)
    tiles_n = operand_def(I32)
    swizzle_size = result_def(I32)
    max_swizzle_size = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$tiles_m `,` $tiles_n attr-dict"

    def verify_(self) -> None:
        check_swizzle_size(self.max_swizzle_size.value.data)


# ------------------------------------------------------------- scheduler constructors


class _CreateSchedulerOp(IRDLOperation):
    """A scheduler handle from params, with an optional WorkID response buffer (a 16-byte
    aligned shared-memory slot that the runtime pull model writes)."""

    tileSchedulerParams = operand_def(ParamsType)
    workIdResponsePtr = opt_operand_def(LLVMPointerType)
    tileScheduler = result_def(TileSchedulerType)

    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(AllocatesHandle())
    assembly_format = (
        "$tileSchedulerParams (`workid` `(` $workIdResponsePtr^ `:` type($workIdResponsePtr) `)`)? "
        "attr-dict `:` type($tileSchedulerParams) `->` type($tileScheduler)"
    )

    def _check_kind_and_params(self, allowed: tuple[str, ...]) -> str:
        kind = _kind(self.tileScheduler)
        if kind not in allowed:
            raise VerifyException(
                f"{self.name} builds a {' or '.join(allowed)} scheduler, found result "
                f"{self.tileScheduler.type}"
            )
        _check_params_family(
            self.tileSchedulerParams.type, SCHEDULER_FAMILY[kind], f"a '{kind}' scheduler"
        )
        return kind

    def _check_response_pointer(self, kind: str, needs_pointer: bool, why: str) -> None:
        pointer = self.workIdResponsePtr
        if needs_pointer and pointer is None:
            raise VerifyException(
                f"a '{kind}' scheduler {why} needs a WorkID response source: add workid(%ptr : !llvm.ptr<3>)"
            )
        if not needs_pointer and pointer is not None:
            raise VerifyException(
                f"a '{kind}' scheduler {why} must not use the WorkID response pointer path; "
                "remove workid(...)"
            )
        if pointer is None:
            return
        if address_space(pointer) != SHARED_ADDRESS_SPACE:
            raise VerifyException(
                f"workIdResponsePtr must point to shared memory (!llvm.ptr<3>), found {pointer.type}"
            )
        _check_alignment(pointer, RESPONSE_ALIGNMENT, "workIdResponsePtr")


@irdl_op_definition
class CreateDpParamsOp(_CreateSchedulerOp):
    """Data-parallel scheduler; ``runtime_pull`` selects the runtime pull model, which
    reads WorkIDs from ``workIdResponsePtr``."""

    name = "cutlass.tile_scheduler.create_dp_params"
    runtime_pull = opt_prop_def(UnitAttr)

    def verify_(self) -> None:
        kind = self._check_kind_and_params(("dp",))
        if self.runtime_pull is not None:
            self._check_response_pointer(kind, True, "with the runtime pull model")
        else:
            self._check_response_pointer(kind, False, "without runtime_pull")
        check_params_cga(self, self.tileSchedulerParams.type)


@irdl_op_definition
class CreateStaticPersistentParamsOp(_CreateSchedulerOp):
    name = "cutlass.tile_scheduler.create_static_persistent_params"

    def verify_(self) -> None:
        kind = self._check_kind_and_params(("static_persistent",))
        self._check_response_pointer(kind, False, "(closed-form iterator)")
        check_params_cga(self, self.tileSchedulerParams.type)


@irdl_op_definition
class CreateStreamKParamsOp(_CreateSchedulerOp):
    """The generic (Hopper-style, per-CTA atomics) Stream-K scheduler; on sm_100 and later
    ``create_SM100_scheduler`` supersedes it."""

    name = "cutlass.tile_scheduler.create_streamk_params"

    def verify_(self) -> None:
        kind = self._check_kind_and_params(("streamk",))
        if target_sm(self) >= SM100:
            raise VerifyException(
                f"the generic Stream-K scheduler is illegal on {target_name(self)} "
                "(module cutlass.target): use cutlass.tile_scheduler.create_SM100_scheduler"
            )
        self._check_response_pointer(kind, False, "(Stream-K)")
        check_params_cga(self, self.tileSchedulerParams.type)


@irdl_op_definition
class CreateSM100SchedulerOp(_CreateSchedulerOp):
    """Blackwell schedulers: dynamic persistent (cluster launch control; needs the WorkID
    response slot), static persistent, or SM100 Stream-K (cluster-barrier fix-up)."""

    name = "cutlass.tile_scheduler.create_SM100_scheduler"

    def verify_(self) -> None:
        kind = self._check_kind_and_params(("dynamic_persistent", "static_persistent", "streamk"))
        if target_sm(self) < SM100:
            raise VerifyException(
                f"the SM100 '{kind}' scheduler is illegal on {target_name(self)} (module "
                "cutlass.target): it needs an sm_100 family target"
            )
        if kind == "dynamic_persistent":
            self._check_response_pointer(kind, True, "(dynamic persistent)")
        else:
            self._check_response_pointer(kind, False, "(not dynamic persistent)")
        if kind == "streamk":
            self._check_launch_cluster()
        check_params_cga(self, self.tileSchedulerParams.type)

    def _check_launch_cluster(self) -> None:
        """SM100 Stream-K shares each piece among the CTAs of the launched cluster
        (``%cluster_ctarank``), so its CGA shape (when the params type states one; else the
        module's is used) must be the module's cluster shape."""
        shape = cluster_shape(self)
        cga = self.tileSchedulerParams.type.cga() or shape  # type: ignore[attr-defined]
        if tuple(cga) != tuple(shape):
            raise VerifyException(
                f"the SM100 Stream-K scheduler's CGA shape {list(cga)} differs from the launch cluster "
                f"(module cutlass.cluster_shape {list(shape)}): its CTAs split each piece by cluster rank"
            )
        if cga[2] != 1:
            raise VerifyException(
                f"the SM100 Stream-K scheduler needs a 2-D cluster (z = 1), found CGA shape {list(cga)}"
            )


# ------------------------------------------------------------------ work-tile info


class _CreateWorkTileInfoOp(IRDLOperation):
    """The invalid work tile (CUTLASS ``WorkTileInfo::invalid_work_tile()``)."""

    traits = traits_def(Pure())
    assembly_format = "attr-dict"


@irdl_op_definition
class CreateDpWorkTileInfoOp(_CreateWorkTileInfoOp):
    name = "cutlass.tile_scheduler.create_dp_work_tile_info"
    workTileInfo = result_def(DpWorkTileInfoType)


@irdl_op_definition
class CreateStaticPersistentWorkTileInfoOp(_CreateWorkTileInfoOp):
    name = "cutlass.tile_scheduler.create_static_persistent_work_tile_info"
    workTileInfo = result_def(StaticPersistentWorkTileInfoType)


@irdl_op_definition
class CreateStreamKWorkTileInfoOp(_CreateWorkTileInfoOp):
    name = "cutlass.tile_scheduler.create_streamk_work_tile_info"
    workTileInfo = result_def(StreamKWorkTileInfoType)


@irdl_op_definition
class WorkTileInfoGetValueOp(IRDLOperation):
    name = "cutlass.tile_scheduler.work_tile_info_get_value"
    workTileInfo = operand_def(WorkTileInfoType)
    value = result_def(AnyAttr())
    field = prop_def(WorkTileInfoFieldAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$workTileInfo attr-dict `:` type($workTileInfo) `->` type($value)"

    def verify_(self) -> None:
        _check_field_access(self.field, self.workTileInfo.type, WORK_TILE_INFO_FIELD_ATTR, self.value.type)


@irdl_op_definition
class WorkTileInfoSetValueOp(IRDLOperation):
    """A copy of ``workTileInfo`` with ``field`` replaced by ``value``."""

    name = "cutlass.tile_scheduler.work_tile_info_set_value"
    W: ClassVar = _SAME_WORK_TILE_INFO
    workTileInfo = operand_def(W)
    value = operand_def(AnyAttr())
    newWorkTileInfo = result_def(W)
    field = prop_def(WorkTileInfoFieldAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$workTileInfo `,` $value attr-dict `:` type($workTileInfo) `,` type($value)"

    def verify_(self) -> None:
        _check_field_access(self.field, self.workTileInfo.type, WORK_TILE_INFO_FIELD_ATTR, self.value.type)


_SCHEDULER_AND_TILE_FORMAT = (
    "$tileScheduler `,` $workTileInfo attr-dict `:` type($tileScheduler) `,` type($workTileInfo)"
)
"""Custom form of the ops whose operands are a scheduler and one of its work tiles."""


class _SchedulerAndTileOp(IRDLOperation):
    """``op %sched, %wti : sched, wti``: operands a scheduler and a work tile of its kind."""

    tileScheduler = operand_def(TileSchedulerType)
    workTileInfo = operand_def(WorkTileInfoType)
    assembly_format = _SCHEDULER_AND_TILE_FORMAT

    def verify_(self) -> None:
        check_work_tile_info(self.tileScheduler, self.workTileInfo.type)


class _CoordMNKLOp(IRDLOperation):
    """Pure ops returning (M, N, K, L) coordinates as four i32 (each declares its operands)."""

    m_idx = result_def(I32)
    n_idx = result_def(I32)
    k_idx = result_def(I32)
    l_idx = result_def(I32)
    traits = traits_def(Pure())


@irdl_op_definition
class WorkTileInfoToCoordMNKLOp(_CoordMNKLOp):
    """TileCoordMNKL: the (M, N, K, L) tile coordinates of a work tile."""

    name = "cutlass.tile_scheduler.work_tile_info_to_coord_mnkl"
    workTileInfo = operand_def(WorkTileInfoType)
    assembly_format = "$workTileInfo attr-dict `:` type($workTileInfo)"


@irdl_op_definition
class WorkTileInfoToCtaCoordOp(_SchedulerAndTileOp, _CoordMNKLOp):
    """CtaCoordMNKL: the work tile's coordinates plus this CTA's offset in its cluster
    (CUTLASS ``work_tile_to_cta_coord``; the offset is constant per CTA)."""

    name = "cutlass.tile_scheduler.work_tile_info_to_cta_coord"


class _SchedulerWorkQueryOp(_SchedulerAndTileOp):
    """``op %sched, %wti : sched, wti`` -> a value computed from the work tile alone."""

    traits = traits_def(Pure())


@irdl_op_definition
class GetWorkKTileCountOp(_SchedulerWorkQueryOp):
    """kTileCount: the K tiles of this work piece (the whole K extent unless Stream-K)."""

    name = "cutlass.tile_scheduler.get_work_k_tile_count"
    kTileCount = result_def(I32)


@irdl_op_definition
class GetWorkKTileStartOp(_SchedulerWorkQueryOp):
    """kTileStart: the first K tile of this work piece (0 unless Stream-K / split-K)."""

    name = "cutlass.tile_scheduler.get_work_k_tile_start"
    kTileStart = result_def(I32)


@irdl_op_definition
class ComputeEpilogueOp(_SchedulerWorkQueryOp):
    """Whether this CTA runs the epilogue for the work tile (the final K split)."""

    name = "cutlass.tile_scheduler.compute_epilogue"
    computeEpilogue = result_def(i1)


@irdl_op_definition
class InitialWorkTileInfoOp(IRDLOperation):
    """initialWorkTileInfo: the first tile of this CTA (from its block id; no state read)."""

    name = "cutlass.tile_scheduler.initial_work_tile_info"
    tileScheduler = operand_def(TileSchedulerType)
    initialWorkTileInfo = result_def(WorkTileInfoType)
    traits = traits_def(Pure())
    assembly_format = "$tileScheduler attr-dict `:` type($tileScheduler) `->` type($initialWorkTileInfo)"

    def verify_(self) -> None:
        check_work_tile_info(self.tileScheduler, self.initialWorkTileInfo.type)


@irdl_op_definition
class GetCurrentWorkOp(IRDLOperation):
    """The work tile at the scheduler's current position (reads the scheduler state)."""

    name = "cutlass.tile_scheduler.get_current_work"
    tileScheduler = operand_def(TileSchedulerType)
    workTileInfo = result_def(WorkTileInfoType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$tileScheduler attr-dict `:` type($tileScheduler) `->` type($workTileInfo)"

    def verify_(self) -> None:
        check_work_tile_info(self.tileScheduler, self.workTileInfo.type)


# ------------------------------------------------------------ scheduler-state mutators


class _SchedulerStepOp(_SchedulerAndTileOp):
    """Moves the scheduler past ``workTileInfo``; each op declares its results, the first being
    the next tile (``newWorkTileInfo``, of the operand's type: constraint ``W``)."""

    W: ClassVar = _SAME_WORK_TILE_INFO
    # both operands again (xDSL lists a class's fields before its bases'): the work tile binds W
    tileScheduler = operand_def(TileSchedulerType)
    workTileInfo = operand_def(W)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class AdvanceToNextWorkOp(_SchedulerStepOp):
    """Step the scheduler past ``workTileInfo``: the next tile, whether it is valid
    (isValidTile) and whether the scheduler pipeline advanced (incrementPipe).  Must be
    inside ``cutlass.async.exec``: it advances the scheduler and may clock the pipeline."""

    name = "cutlass.tile_scheduler.advance_to_next_work"
    newWorkTileInfo = result_def(_SAME_WORK_TILE_INFO)
    isValidTile = result_def(i1)
    incrementPipe = result_def(i1)

    def verify_(self) -> None:
        super().verify_()
        _require_async_exec(self, "it advances the scheduler and may clock the enclosing pipeline")


class _AdvanceOp(_SchedulerStepOp):
    """The fetch ops: the next tile and incrementPipe."""

    newWorkTileInfo = result_def(_SAME_WORK_TILE_INFO)
    incrementPipe = result_def(i1)


@irdl_op_definition
class FetchNextWorkOp(_AdvanceOp):
    """Continue the current unit (Stream-K) or take the next tile, pulling the WorkID
    response for dynamic schedulers; returns the tile and incrementPipe."""

    name = "cutlass.tile_scheduler.fetch_next_work"


@irdl_op_definition
class StaticFetchNextWorkOp(_AdvanceOp):
    """``fetch_next_work`` for schedulers that compute the next tile in closed form."""

    name = "cutlass.tile_scheduler.static_fetch_next_work"

    def verify_(self) -> None:
        super().verify_()
        if _kind(self.tileScheduler) == "dynamic_persistent":
            raise VerifyException(
                "static_fetch_next_work needs a closed-form scheduler, found "
                f"{self.tileScheduler.type}: use fetch_next_work"
            )


@irdl_op_definition
class QueryNextWorkOp(IRDLOperation):
    """Issue the WorkID request (cluster launch control query) whose answer lands in the
    scheduler's response slot.  Only for pull-model schedulers."""

    name = "cutlass.tile_scheduler.query_next_work"
    tileScheduler = operand_def(TileSchedulerType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = "$tileScheduler attr-dict `:` type($tileScheduler)"

    def verify_(self) -> None:
        _check_pull_model(self, self.tileScheduler)


@irdl_op_definition
class GetWorkIdResponsePtrOp(IRDLOperation):
    """workIdResponsePtr: the shared-memory WorkID response slot of a pull-model scheduler."""

    name = "cutlass.tile_scheduler.get_workid_response_ptr"
    tileScheduler = operand_def(TileSchedulerType)
    workIdResponsePtr = result_def(LLVMPointerType)
    traits = traits_def(Pure())
    assembly_format = "$tileScheduler attr-dict `:` type($tileScheduler) `->` type($workIdResponsePtr)"

    def verify_(self) -> None:
        _check_pull_model(self, self.tileScheduler)


def _check_pull_model(op: Operation, sched: SSAValue) -> None:
    kind = _kind(sched)
    if kind not in PULL_MODEL_KINDS:
        raise VerifyException(
            f"{op.name} needs a WorkID pull-model scheduler (dp or dynamic_persistent); "
            f"'{kind}' schedulers do not use the WorkID response pointer path"
        )
    creator = sched.owner
    if isinstance(creator, CreateDpParamsOp) and creator.runtime_pull is None:
        raise VerifyException(
            f"{op.name} needs a WorkID pull-model scheduler: {value_name(sched)} is a "
            "data-parallel scheduler created without runtime_pull"
        )


# --------------------------------------------------------------------- Stream-K fix-up


class _FixupOp(IRDLOperation):
    """Stream-K fix-up on the reduction / barrier workspace (CUTLASS ``fixup``).

    ``barrier_idx`` / ``num_barriers``: this consumer warp group and the number of them
    (lock index = tile * num_barriers + barrier_idx); default 0 / 1.
    """

    tileScheduler = operand_def(TileSchedulerType)
    workTileInfo = operand_def(WorkTileInfoType)
    barrier_idx = opt_prop_def(IntegerAttr[I32])
    num_barriers = opt_prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = _SCHEDULER_AND_TILE_FORMAT

    def verify_(self) -> None:
        if _kind(self.tileScheduler) != "streamk":
            raise VerifyException(
                f"{self.name} needs a Stream-K scheduler, found {self.tileScheduler.type}"
            )
        check_work_tile_info(self.tileScheduler, self.workTileInfo.type)
        index = self.barrier_idx.value.data if self.barrier_idx is not None else 0
        count = self.num_barriers.value.data if self.num_barriers is not None else 1
        if count < 1 or not 0 <= index < count:
            raise VerifyException(
                f"barrier_idx must be in [0, num_barriers), found barrier_idx = {index}, "
                f"num_barriers = {count}"
            )
        if count > MAX_STREAMK_FIXUP_GROUPS:
            raise VerifyException(
                f"num_barriers = {count}: each fix-up warp group synchronises on a reserved Stream-K named "
                f"barrier of its own and CUTLASS reserves {MAX_STREAMK_FIXUP_GROUPS} (StreamkBarrier0/1, "
                f"barrier ids 4 and 5); use at most {MAX_STREAMK_FIXUP_GROUPS} warp groups"
            )
        self._verify_groups_in_cta(count)

    def _verify_groups_in_cta(self, count: int) -> None:
        """The ``num_barriers`` fix-up warp groups (128 threads each, warp group ``barrier_idx`` at
        threads ``128 * barrier_idx`` on) are threads of the CTA."""
        from tileorch.dialects.cutlass.executors import WARPGROUP, cta_size

        cta = cta_size(self)
        if cta is not None and count * WARPGROUP > cta[0]:
            raise VerifyException(
                f"num_barriers = {count} fix-up warp groups need {count * WARPGROUP} threads, but the CTA has "
                f"{cta[0]} ({cta[1]})"
            )


@irdl_op_definition
class FixupOp(_FixupOp):
    """The whole fix-up of one accumulator: store/reduce partials for a non-final split,
    wait and fold in the partials for the final one; returns the (updated) accumulator."""

    name = "cutlass.tile_scheduler.fixup"
    A: ClassVar = VarConstraint("A", AnyAttr())
    tileScheduler = operand_def(TileSchedulerType)
    workTileInfo = operand_def(WorkTileInfoType)
    accumulator = operand_def(A)
    # SM100 Stream-K on a multi-CTA cluster: this CTA's shared-memory buffer for its partial,
    # read by the cluster leader through DSMEM (docs/blackwell.md, "SM100 Stream-K")
    smem = opt_operand_def(LLVMPointerType)
    newAccumulator = result_def(A)
    assembly_format = (
        "$tileScheduler `,` $workTileInfo `,` $accumulator (`smem` `(` $smem^ `:` type($smem) `)`)? "
        "attr-dict `:` type($tileScheduler) `,` type($workTileInfo) `,` type($accumulator)"
    )

    def verify_(self) -> None:
        super().verify_()
        if self.smem is None:
            return
        if address_space(self.smem) != SHARED_ADDRESS_SPACE:
            raise VerifyException(
                f"the fix-up's smem buffer must point to shared memory (!llvm.ptr<3>), found {self.smem.type}"
            )
        creator = self.tileScheduler.owner
        if not isinstance(creator, CreateSM100SchedulerOp):
            raise VerifyException(
                "smem(...) is the cluster-reduction buffer of the SM100 Stream-K scheduler: "
                f"{value_name(self.tileScheduler)} does not come from cutlass.tile_scheduler.create_SM100_scheduler"
            )


@irdl_op_definition
class FixupWaitOp(_FixupOp):
    """Acquire-wait until the tile's lock counts all K tiles before this piece."""

    name = "cutlass.tile_scheduler.fixup_wait"


@irdl_op_definition
class FixupIncrementOp(_FixupOp):
    """Release-increment the tile's lock by this piece's K-tile count."""

    name = "cutlass.tile_scheduler.fixup_increment"


# ------------------------------------------------------------------------ workspace


@irdl_op_definition
class GetWorkspaceSizesOp(IRDLOperation):
    """total_size of the scheduler workspace; Stream-K params also give the reduction and
    barrier region sizes (reduc_workspace_size, bar_workspace_size; one type)."""

    name = "cutlass.tile_scheduler.get_workspace_sizes"
    tileSchedulerParams = operand_def(ParamsType)
    # byte counts: the type rule is check_workspace_size_type (a constraint here would reject a
    # float or a pointer with a message that does not say what a workspace size is)
    total_size = result_def(AnyAttr())
    reduc_workspace_size = opt_result_def(AnyAttr())
    bar_workspace_size = opt_result_def(AnyAttr())
    irdl_options = (AttrSizedResultSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(Pure())
    assembly_format = (
        "$tileSchedulerParams attr-dict `:` type($tileSchedulerParams) `->` type($total_size) "
        "(`,` type($reduc_workspace_size)^ `,` type($bar_workspace_size))?"
    )

    def verify_(self) -> None:
        for name in ("total_size", "reduc_workspace_size", "bar_workspace_size"):
            value = getattr(self, name)
            if value is not None:
                check_workspace_size_type(value.type, f"result '{name}'")
        _check_workspace_components(
            self.tileSchedulerParams.type,
            self.reduc_workspace_size,
            self.bar_workspace_size,
            "results",
        )
        check_params_cga(self, self.tileSchedulerParams.type)


@irdl_op_definition
class InitializeWorkspaceOp(IRDLOperation):
    """Zero the barrier region of the workspace (Stream-K: at ``workspace +
    reduc_workspace_size``; static persistent: its counter region)."""

    name = "cutlass.tile_scheduler.initialize_workspace"
    tileSchedulerParams = operand_def(ParamsType)
    workspace = operand_def(LLVMPointerType)
    reduc_workspace_size = opt_operand_def(AnyAttr())
    bar_workspace_size = opt_operand_def(AnyAttr())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$tileSchedulerParams `,` $workspace (`sizes` `(` $reduc_workspace_size^ `,` "
        "$bar_workspace_size `:` type($reduc_workspace_size) `,` type($bar_workspace_size) `)`)? "
        "attr-dict `:` type($tileSchedulerParams) `,` type($workspace)"
    )

    def verify_(self) -> None:
        params = self.tileSchedulerParams.type
        for name in ("reduc_workspace_size", "bar_workspace_size"):
            value = getattr(self, name)
            if value is not None:
                check_workspace_size_type(value.type, f"operand '{name}'")
        if getattr(params, "FAMILY", None) == "dp":
            raise VerifyException(
                f"data-parallel schedulers have no workspace to initialize ({params})"
            )
        _check_workspace_components(
            params, self.reduc_workspace_size, self.bar_workspace_size, "operands"
        )
        if address_space(self.workspace) not in (0, 1):
            raise VerifyException(
                "the scheduler workspace must be global memory (!llvm.ptr<1>, or a generic "
                f"!llvm.ptr to it): every CTA of the grid reads and writes it, found {self.workspace.type}"
            )
        _check_alignment(self.workspace, WORKSPACE_ALIGNMENT, "the scheduler workspace")
        check_params_cga(self, params)


def check_workspace_size_type(typ: Attribute, what: str) -> None:
    """A workspace size is a byte count: a signless integer of at least 32 bits (the record's
    32-bit size fields, zero-extended to a wider result) or index; never a float, pointer or a
    narrower integer that would truncate the size."""
    if isinstance(typ, IndexType):
        return
    if isinstance(typ, IntegerType) and typ.signedness.data is Signedness.SIGNLESS and typ.width.data >= MIN_SIZE_BITS:
        return
    raise VerifyException(
        f"workspace sizes are byte counts: {what} must be a signless integer of at least {MIN_SIZE_BITS} bits "
        f"(e.g. i64) or index, found {typ}"
    )


def _check_workspace_components(
    params: Attribute, reduc: SSAValue | None, bar: SSAValue | None, where: str
) -> None:
    streamk = getattr(params, "FAMILY", None) == "streamk"
    given = (reduc is not None, bar is not None)
    if streamk and given != (True, True):
        raise VerifyException(
            f"Stream-K workspace sizes: {params} needs both reduc_workspace_size and "
            f"bar_workspace_size {where}"
        )
    if not streamk and any(given):
        raise VerifyException(
            f"workspace sizes disagree with the scheduler kind: only Stream-K has reduction and "
            f"barrier workspace {where}, found {params}"
        )
    if reduc is not None and bar is not None and reduc.type != bar.type:
        raise VerifyException(
            "reduction and barrier workspace sizes must share one type, found "
            f"{reduc.type} and {bar.type}"
        )


@irdl_op_definition
class GetGridShapeOp(IRDLOperation):
    """The launch grid (x, y, z) for ``sm_count`` SMs; ``is_upperbound_requested`` asks for
    the untruncated one-wave grid (Stream-K's sizing grid)."""

    name = "cutlass.tile_scheduler.get_grid_shape"
    tileSchedulerParams = operand_def(ParamsType)
    sm_count = operand_def(I32)
    grid_x = result_def(I32)
    grid_y = result_def(I32)
    grid_z = result_def(I32)
    is_upperbound_requested = opt_prop_def(UnitAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$tileSchedulerParams `,` $sm_count attr-dict `:` type($tileSchedulerParams)"

    def verify_(self) -> None:
        check_params_cga(self, self.tileSchedulerParams.type)


@irdl_op_definition
class ParamsGetValueOp(IRDLOperation):
    name = "cutlass.tile_scheduler.params_get_value"
    tileSchedulerParams = operand_def(ParamsType)
    value = result_def(AnyAttr())
    field = prop_def(ParamFieldAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$tileSchedulerParams attr-dict `:` type($tileSchedulerParams) `->` type($value)"

    def verify_(self) -> None:
        params = self.tileSchedulerParams.type
        _check_field_access(self.field, params, PARAM_FIELD_ATTR, self.value.type)
        check_params_cga(self, params)


# ------------------------------------------------------------ MODS instrumentation record


@irdl_op_definition
class CreateModsInstrumentationOp(IRDLOperation):
    """The MODS throttle configuration: a ``pulse_ns`` sleep every ``period_ns``, never
    shorter than ``min_sleep`` ns; ``mainloop_count`` starts at 0."""

    name = "cutlass.tile_scheduler.create_mods_instrumentation"
    instrumentation = result_def(ModsInstrumentationType)
    period_ns = prop_def(IntegerAttr[IntegerType])
    pulse_ns = prop_def(IntegerAttr[IntegerType])
    min_sleep = prop_def(IntegerAttr[IntegerType])
    is_2cta_mma = opt_prop_def(BoolAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def verify_(self) -> None:
        for name in ("period_ns", "pulse_ns", "min_sleep"):
            attr = getattr(self, name)
            width = attr.type.width.data
            if width > 64 or attr.value.data >= 1 << (width - 1) or width < MIN_SIZE_BITS:
                raise VerifyException(
                    f"{name} = {attr.value.data} : {attr.type} is a nanosecond count held in a signed integer of "
                    f"{MIN_SIZE_BITS} to 64 bits (the %globaltimer clock is 64-bit): use a value in "
                    f"[0, {(1 << 63) - 1}] of type i32 or i64 that fits its type"
                )
        period = self.period_ns.value.data
        pulse = self.pulse_ns.value.data
        min_sleep = self.min_sleep.value.data
        if period <= 0 or not 0 <= pulse <= period:
            raise VerifyException(
                f"expected 0 <= pulse_ns <= period_ns and period_ns > 0, found pulse_ns = {pulse}, "
                f"period_ns = {period}"
            )
        if min_sleep < 0:
            raise VerifyException(f"min_sleep must be >= 0, found {min_sleep}")


@irdl_op_definition
class ModsGetValueOp(IRDLOperation):
    name = "cutlass.tile_scheduler.mods_get_value"
    instrumentation = operand_def(ModsInstrumentationType)
    value = result_def(AnyAttr())
    field = prop_def(ModsInstrumentationFieldAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$instrumentation attr-dict `:` type($value)"

    def verify_(self) -> None:
        check_field_value_type(self.field.data.value, self.value.type)


@irdl_op_definition
class ModsSetValueOp(IRDLOperation):
    """A copy of the instrumentation record with ``field`` replaced by ``value``."""

    name = "cutlass.tile_scheduler.mods_set_value"
    instrumentation = operand_def(ModsInstrumentationType)
    value = operand_def(AnyAttr())
    newInstrumentation = result_def(ModsInstrumentationType)
    field = prop_def(ModsInstrumentationFieldAttr)
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())
    assembly_format = "$instrumentation `,` $value attr-dict `:` type($value)"

    def verify_(self) -> None:
        check_field_value_type(self.field.data.value, self.value.type)


SCHEDULER_OPS: list[type[IRDLOperation]] = [
    CreateDpParamsOp,
    CreateStaticPersistentParamsOp,
    CreateStreamKParamsOp,
    CreateSM100SchedulerOp,
    MakeDpParamsOp,
    MakeStaticPersistentParamsOp,
    MakeStreamKParamsOp,
    CreateDpWorkTileInfoOp,
    CreateStaticPersistentWorkTileInfoOp,
    CreateStreamKWorkTileInfoOp,
    WorkTileInfoGetValueOp,
    WorkTileInfoSetValueOp,
    WorkTileInfoToCoordMNKLOp,
    WorkTileInfoToCtaCoordOp,
    InitialWorkTileInfoOp,
    FixupOp,
    FixupIncrementOp,
    FixupWaitOp,
    AdvanceToNextWorkOp,
    QueryNextWorkOp,
    FetchNextWorkOp,
    StaticFetchNextWorkOp,
    GetCurrentWorkOp,
    GetWorkIdResponsePtrOp,
    InitializeWorkspaceOp,
    GetWorkspaceSizesOp,
    GetGridShapeOp,
    GetWorkKTileCountOp,
    GetWorkKTileStartOp,
    ComputeEpilogueOp,
    ParamsGetValueOp,
]
EXTRA_OPS: list[type[IRDLOperation]] = [
    CreateSelectSwizzleSizeOp,
    CreateModsInstrumentationOp,
    ModsGetValueOp,
    ModsSetValueOp,
]
OPS: list[type[IRDLOperation]] = [*SCHEDULER_OPS, *EXTRA_OPS]
