"""``cutlass.tile_scheduler.*`` on the device: every op becomes field accesses of the lowered
values or calls of the kind's shared body (:mod:`.scheduler_bodies`); the per-op glue (advance,
epilogue test) runs the host functions symbolically as well.

=======================================  =========================================================
type                                     lowered type
=======================================  =========================================================
``!cutlass.tile_scheduler_*_params``     ``!llvm.ptr<1>``: the device params record
``!cutlass.tile_scheduler<kind>``        ``!llvm.ptr<1>``: the same record (the handle is
                                         stateless: a work tile carries its own position)
``!cutlass.*_work_tile_info``            ``!llvm.struct<(i32 x N)>`` (``WTI_FIELDS``)
=======================================  =========================================================

Host code.  ``make_*_params``, ``initialize_workspace``, ``get_grid_shape`` and
``create_select_swizzle_size`` are CUTLASS host API (``Params::initialize``, workspace setup,
launch configuration).  ``get_workspace_sizes``/``get_grid_shape`` of params built from constant
shapes fold to constants (:func:`fold_static_queries`); a function still holding host-only ops
afterwards is host code and is left out of the device module (:func:`drop_host_functions`), as
nvcc's device pass leaves out ``__host__`` functions.  Its work is done on the host by
:mod:`tileorch.schedulers` (``pack_device_params`` builds the record the kernel receives).

Device ops: constructors return the record; ``initial_work_tile_info`` calls the body with the
CTA's launch linear index (``raster.launch_linear_idx``; SM100: ``sm100_streamk.block_linear_idx``);
``advance_to_next_work``/``fetch_next_work`` continue the stream-K unit (``continue_work``) or
call the body at ``linearized_id + grid size`` (persistent kinds: ``persistent_advance``); an SM100
stream-K CTA owns one grid position (cluster launch control is not modelled), so its next work
after the unit is the invalid tile.

Pull-model handles (``workid(%slot)``: data-parallel ``{runtime_pull}``, dynamic persistent) keep
their state, the current linear work id, in the response slot (:mod:`.scheduler_pull`): the
constructor seeds it with the launch index, ``query_next_work`` claims the next id from the
workspace counter and publishes it, ``get_current_work`` decodes the slot with the shared body,
``get_workid_response_ptr`` is the slot, and ``advance_to_next_work`` / ``fetch_next_work`` claim
then decode.  ``get_current_work`` on a closed-form (stateless) handle is a located error.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp, i1, i32
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import llvm_ext
from tileorch.dialects.constants import constant_int
from tileorch.dialects.cutlass.pipeline_facts import module_of
from tileorch.dialects.cutlass.scheduler_context import cta_cluster_of
from tileorch.dialects.cutlass.scheduler_types import SCHEDULER_FAMILY, TileSchedulerType
from tileorch.schedulers import streamk_work
from tileorch.schedulers.sm100_streamk import Sm100StreamKParams
from tileorch.schedulers.work_tile import WorkTileInfo
from tileorch.transforms.pipeline_to_nvvm import scheduler_bodies as bodies
from tileorch.transforms.pipeline_to_nvvm import scheduler_cluster, scheduler_fixup, scheduler_pull
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter
from tileorch.transforms.pipeline_to_nvvm.scheduler_bodies import (WTI_FIELDS, SchedulerConfig, load_field, lowered,
                                                                   lowered_scheduler_type, run, wti_type)
from tileorch.transforms.pipeline_to_nvvm.types import ElementwiseTypeConversion

PREFIX = "cutlass.tile_scheduler."
HOST_ONLY = tuple(PREFIX + n for n in ("make_dp_params", "make_static_persistent_params", "make_streamk_params",
                                       "initialize_workspace", "get_grid_shape", "create_select_swizzle_size"))
CONSTRUCTORS = tuple(PREFIX + n for n in ("create_dp_params", "create_static_persistent_params",
                                          "create_streamk_params", "create_SM100_scheduler"))
FIELD_ALIASES = {"m_idx": "m", "n_idx": "n", "l_idx": "l"}


# ------------------------------------------------------------------ types


def family_of(typ: Attribute) -> str | None:
    if isinstance(typ, TileSchedulerType):
        return SCHEDULER_FAMILY[typ.kind_name]
    return getattr(typ, "FAMILY", None)


class LowerSchedulerTypes(ElementwiseTypeConversion):
    """Block arguments, loop values and signatures still holding scheduler types."""

    lower = staticmethod(lowered_scheduler_type)


# ------------------------------------------------------------------ configuration


def scheduler_config(op: Operation, handle: SSAValue) -> SchedulerConfig:
    """Compile-time facts of the scheduler behind ``handle`` (from its constructor's params type)."""
    owner = handle.owner
    if not isinstance(owner, Operation) or owner.name not in CONSTRUCTORS:
        raise LocatedError(op, "the scheduler handle must come straight from a cutlass.tile_scheduler.create_* op "
                               "(its params type fixes the cluster shape and raster order of the body)")
    return constructor_config(owner)


def constructor_config(constructor: Operation) -> SchedulerConfig:
    """The body a constructor's handle uses; dynamic persistent (family ``dp``) uses the SM90
    persistent body with its pulled ids (cluster launch control is not modelled)."""
    params_type = constructor.operands[0].type
    cga = params_type.cga() or (1, 1, 1)
    raster = params_type.raster()
    along_n = {"along_n": True, "along_m": False}.get(raster or "heuristic")
    family = family_of(constructor.results[0].type)
    sm100 = constructor.name == PREFIX + "create_SM100_scheduler" and family != "dp"
    cta_cluster = cta_cluster_of(constructor.results[0])
    if cta_cluster is not None:  # whole clusters are the Stream-K workers
        return SchedulerConfig(family, (1, 1), along_n, sm100=True, cta_cluster=cta_cluster)
    return SchedulerConfig(family, (cga[0], cga[1]), along_n, sm100=sm100)


class _SchedulerLowering(OpLowering):
    def handle(self, op: Operation) -> tuple[SchedulerConfig, SSAValue]:
        e_handle = op.operands[0]
        return scheduler_config(op, e_handle), e_handle


# ------------------------------------------------------------------ constructors and work tiles


class CreateSchedulerLowering(OpLowering):
    """The handle is the params record itself; a pull-model constructor also seeds its response
    slot with the CTA's launch linear index (the state ``get_current_work`` reads)."""

    def __init__(self, name: str):
        super().__init__()
        self.OP = name

    def lower(self, op: Operation, e: Emitter):
        params = lowered(e, op.operands[0])
        slot = scheduler_pull.response_slot(op.results[0])
        if slot is not None:
            scheduler_pull.seed(e, slot, launch_linear_index(e, constructor_config(op), params))
        return [params]


class CreateInvalidWorkTileInfoLowering(OpLowering):
    """The invalid tile: the host's ``INVALID_WORK`` (stream-K) or an invalid persistent tile."""

    def __init__(self, name: str, family: str):
        super().__init__()
        self.OP, self.family = name, family

    def lower(self, op: Operation, e: Emitter):
        if self.family == "streamk":
            values = bodies.wti_fields_of(streamk_work.INVALID_WORK, "streamk")
        else:
            values = {"m": -1, "n": -1, "l": -1, "linearized_id": -1, "tile_idx": 0, "is_valid_tile": 0}
        return [e.pack(wti_type(self.family), [e.const(int(values[n])) for n in WTI_FIELDS[self.family]])]


def field_index(op: Operation, family: str) -> int:
    name = str(op.properties["field"].data.value)
    return WTI_FIELDS[family].index(FIELD_ALIASES.get(name, name))


class WorkTileInfoGetValueLowering(OpLowering):
    OP = PREFIX + "work_tile_info_get_value"

    def lower(self, op: Operation, e: Emitter):
        family = op.operands[0].type.FAMILY
        value = e.extract(lowered(e, op.operands[0]), field_index(op, family))
        typ = op.results[0].type
        if typ == i1:
            return [e.icmp("ne", value, e.const(0))]
        if isinstance(typ, IntegerType) and typ.width.data > 32:
            return [e.zext(value, typ)]
        return [value]


class WorkTileInfoSetValueLowering(OpLowering):
    OP = PREFIX + "work_tile_info_set_value"

    def lower(self, op: Operation, e: Emitter):
        family = op.operands[0].type.FAMILY
        value = op.operands[1]
        if value.type == i1:
            value = e.zext(value, i32)
        elif value.type != i32:
            value = e.trunc(value, i32)
        return [e.insert(lowered(e, op.operands[0]), value, field_index(op, family))]


def k_tile_start(e: Emitter, family: str, wti: SSAValue) -> SSAValue:
    return e.extract(wti, WTI_FIELDS["streamk"].index("k_tile_start")) if family == "streamk" else e.const(0)


class _Coordinates(OpLowering):
    """(m, n, k, l); SM90 coordinates already include the CTA's offset in its cluster, so the
    CTA coordinate equals the tile coordinate; k is the first K tile (stream-K) or 0."""

    WTI_OPERAND = 0

    def lower(self, op: Operation, e: Emitter):
        source = op.operands[self.WTI_OPERAND]
        family = source.type.FAMILY
        wti = lowered(e, source)
        m, n, l = (e.extract(wti, WTI_FIELDS[family].index(f)) for f in ("m", "n", "l"))
        return [m, n, k_tile_start(e, family, wti), l]


class ToCoordMNKLLowering(_Coordinates):
    OP = PREFIX + "work_tile_info_to_coord_mnkl"


class ToCtaCoordLowering(_Coordinates):
    """SM100 Stream-K on a multi-CTA cluster: k is the first K tile of this CTA's share."""

    OP = PREFIX + "work_tile_info_to_cta_coord"
    WTI_OPERAND = 1

    def lower(self, op: Operation, e: Emitter):
        m, n, k, l = super().lower(op, e)
        cfg = scheduler_config(op, op.operands[0])
        if cfg.cooperative and op.operands[1].type.FAMILY == "streamk":
            k = scheduler_cluster.share(e, cfg, lowered(e, op.operands[1]))[0]
        return [m, n, k, l]


class GetWorkKTileCountLowering(_SchedulerLowering):
    """Stream-K: the piece's ``k_tile_count``; other kinds: the whole K extent of the params."""

    OP = PREFIX + "get_work_k_tile_count"

    def lower(self, op: Operation, e: Emitter):
        cfg, handle = self.handle(op)
        if cfg.cooperative:
            scheduler_cluster.check_share_not_loop_condition(op)
            return [scheduler_cluster.share(e, cfg, lowered(e, op.operands[1]))[1]]
        if cfg.streamk:
            return [e.extract(lowered(e, op.operands[1]), WTI_FIELDS["streamk"].index("k_tile_count"))]
        return [load_field(e, lowered(e, handle), "k_tiles_per_output_tile", False)]


class GetWorkKTileStartLowering(_SchedulerLowering):
    OP = PREFIX + "get_work_k_tile_start"

    def lower(self, op: Operation, e: Emitter):
        cfg, _ = self.handle(op)
        if cfg.cooperative:
            return [scheduler_cluster.share(e, cfg, lowered(e, op.operands[1]))[0]]
        return [k_tile_start(e, cfg.family, lowered(e, op.operands[1]))]


class ComputeEpilogueLowering(_SchedulerLowering):
    """Stream-K: the host's ``WorkTileInfo.is_final_split``; other kinds always run it."""

    OP = PREFIX + "compute_epilogue"

    def lower(self, op: Operation, e: Emitter):
        cfg, handle = self.handle(op)
        if not cfg.streamk:
            return [e.true()]
        params, wti = lowered(e, handle), lowered(e, op.operands[1])
        if cfg.cooperative:
            return [scheduler_cluster.runs_epilogue(e, cfg, params, wti)]

        def final(tracer):
            work = bodies.host_wti(bodies.unpack_wti(tracer, e, wti, "streamk"), "streamk")
            kt = tracer.input("kt", lambda: load_field(e, params, "k_tiles_per_output_tile", True))
            return WorkTileInfo.is_final_split(work, kt)

        tracer, result = run(e, final)
        return [tracer.lift(result).value]


# ------------------------------------------------------------------ position: initial and next work


def launch_linear_index(e: Emitter, cfg: SchedulerConfig, params: SSAValue) -> SSAValue:
    """This CTA's first linear work index, from the host's launch-order formula."""

    def compute(tracer):
        p = bodies.symbolic_params(tracer, e, params, cfg)
        if cfg.cooperative:
            return scheduler_cluster.launch_index(tracer, e, p)
        bx, by, bz = (tracer.input(("sreg", d), lambda d=d: e.sreg(f"ctaid.{d}")) for d in "xyz")
        if cfg.sm100:
            pb = (p.raster.blocks_m, p.raster.blocks_n, p.raster.blocks_l)
            return bodies.SM100_BLOCK_LINEAR_IDX(Sm100StreamKParams(p, pb, cfg.cluster), bx, by, bz)
        return bodies.LAUNCH_LINEAR_IDX(p.raster.along_n, bx, by, p.grid)

    tracer, lin = run(e, compute)
    return tracer.lift(lin).value


class InitialWorkTileInfoLowering(_SchedulerLowering):
    OP = PREFIX + "initial_work_tile_info"

    def lower(self, op: Operation, e: Emitter):
        cfg, handle = self.handle(op)
        params = lowered(e, handle)
        module = module_of(op)
        return [bodies.call_body(e, module, cfg, params, launch_linear_index(e, cfg, params))]


def emit_pulled_work(op: Operation, e: Emitter, cfg: SchedulerConfig, params: SSAValue, slot: SSAValue):
    """The work tile of the id in the response slot (the shared body on the pulled id)."""
    return bodies.call_body(e, module_of(op), cfg, params, scheduler_pull.current_id(e, slot))


def emit_next_work(op: Operation, e: Emitter, cfg: SchedulerConfig, params: SSAValue, wti: SSAValue):
    """(next work-tile struct, i1 is_valid, i1 increment_pipe)."""
    slot = scheduler_pull.response_slot(op.operands[0])
    if slot is not None:
        scheduler_pull.claim(op, e, cfg, params, slot)
        fresh = emit_pulled_work(op, e, cfg, params, slot)
        valid = e.extract(fresh, WTI_FIELDS[cfg.family].index("is_valid_tile"))
        return fresh, e.icmp("ne", valid, e.const(0)), e.true()
    module = module_of(op)
    family = cfg.family
    lin = e.extract(wti, WTI_FIELDS[family].index("linearized_id"))
    fresh = None
    if not cfg.sm100:
        grid = load_field(e, params, "total_ctas", cfg.streamk)
        fresh = bodies.call_body(e, module, cfg, params, e.add(lin, grid))

    def compute(tracer):
        p = bodies.symbolic_params(tracer, e, params, cfg)
        fields = bodies.unpack_wti(tracer, e, wti, family)
        if cfg.streamk:
            start = fields["unit_iter_start"]
            nxt = bodies.CONTINUE_WORK(p, bodies.host_wti(fields, "streamk"), start)
            if nxt is not None:
                return bodies.wti_fields_of(nxt, "streamk", start), nxt.is_valid, False
            if fresh is None:
                invalid = bodies.wti_fields_of(streamk_work.INVALID_WORK, "streamk")
                return invalid, False, True
            new = bodies.unpack_wti(tracer, e, fresh, family)
            return new, bodies.host_wti(new, "streamk").is_valid, True
        new = bodies.unpack_wti(tracer, e, fresh, family)
        if family == "static_persistent":
            advanced = bodies.PERSISTENT_ADVANCE(p, bodies.host_wti(fields, family), (0, 0))
            new = {**new, "tile_idx": advanced.tile.tile_idx}
            return new, new["is_valid_tile"], advanced.increment_pipe
        return new, new["is_valid_tile"], True

    tracer, (fields, valid, increment) = run(e, compute)
    struct = bodies.pack_wti(tracer, e, family, fields)
    return struct, tracer.lift(valid).value, tracer.lift(increment).value


class AdvanceToNextWorkLowering(_SchedulerLowering):
    OP = PREFIX + "advance_to_next_work"

    def lower(self, op: Operation, e: Emitter):
        cfg, handle = self.handle(op)
        return list(emit_next_work(op, e, cfg, lowered(e, handle), lowered(e, op.operands[1])))


class FetchNextWorkLowering(_SchedulerLowering):
    def __init__(self, name: str):
        super().__init__()
        self.OP = name

    def lower(self, op: Operation, e: Emitter):
        cfg, handle = self.handle(op)
        struct, _valid, increment = emit_next_work(op, e, cfg, lowered(e, handle), lowered(e, op.operands[1]))
        return [struct, increment]


class _PullModelLowering(_SchedulerLowering):
    """An op on a pull-model handle: (config, handle, response slot)."""

    def pull(self, op: Operation) -> tuple[SchedulerConfig, SSAValue, SSAValue]:
        cfg, handle = self.handle(op)
        slot = scheduler_pull.response_slot(handle)
        if slot is None:
            raise LocatedError(op, f"'{op.name}' reads the scheduler state, which only a WorkID pull-model handle "
                                   "(created with workid(...)) keeps; a closed-form scheduler's work tile carries "
                                   "its own position: use the tile returned by advance/fetch")
        return cfg, handle, slot


class GetCurrentWorkLowering(_PullModelLowering):
    """The tile of the id the CTA holds (the slot), decoded by the shared body; no advance."""

    OP = PREFIX + "get_current_work"

    def lower(self, op: Operation, e: Emitter):
        cfg, handle, slot = self.pull(op)
        return [emit_pulled_work(op, e, cfg, lowered(e, handle), slot)]


class QueryNextWorkLowering(_PullModelLowering):
    """The leader claims the next linear work id and publishes it in the slot."""

    OP = PREFIX + "query_next_work"

    def lower(self, op: Operation, e: Emitter):
        cfg, handle, slot = self.pull(op)
        scheduler_pull.claim(op, e, cfg, lowered(e, handle), slot)
        return None


class GetWorkIdResponsePtrLowering(_PullModelLowering):
    """The response slot itself (cast when the result names another address space)."""

    OP = PREFIX + "get_workid_response_ptr"

    def lower(self, op: Operation, e: Emitter):
        _cfg, _handle, slot = self.pull(op)
        typ = op.results[0].type
        return [slot if typ == slot.type else e.emit(llvm_ext.AddrSpaceCastOp(slot, typ))]


# ------------------------------------------------------------------ params queries


class GetWorkspaceSizesLowering(OpLowering):
    """From the record: total = reduction + barrier bytes (Stream-K); other kinds need none."""

    OP = PREFIX + "get_workspace_sizes"

    def lower(self, op: Operation, e: Emitter):
        typ = op.results[0].type
        if family_of(op.operands[0].type) != "streamk":
            return [e.const(0, typ)]
        params = lowered(e, op.operands[0])
        red, bar = (load_field(e, params, f, True) for f in ("reduction_bytes", "barrier_bytes"))
        widen = (lambda v: e.zext(v, typ)) if typ.width.data > 32 else (lambda v: v)
        return [widen(e.add(red, bar)), widen(red), widen(bar)][: len(op.results)]


class ParamsGetValueLowering(OpLowering):
    OP = PREFIX + "params_get_value"
    CLOSED_FORM_FIELDS = ("blocks_m", "blocks_n", "blocks_l", "k_tiles_per_output_tile")
    """The record fields a data-parallel or static-persistent scheduler's params hold."""
    FIELDS = {"n_cga_tiles_m": "blocks_m", "n_cga_tiles_n": "blocks_n", "n_cga_tiles_l": "blocks_l",
              "n_k_tiles_per_tile": "k_tiles_per_output_tile", "n_units": "units_per_problem",
              "n_sk_units": "sk_units", "n_big_units": "big_units", "n_splits": "splits", "n_sk_tiles": "sk_tiles",
              "num_groups": "sk_groups", "n_k_tiles_per_small_unit": "k_tiles_per_sk_unit",
              "reduc_workspace_size": "reduction_bytes", "bar_workspace_size": "barrier_bytes"}

    def lower(self, op: Operation, e: Emitter):
        name = str(op.properties["field"].data.value)
        streamk = family_of(op.operands[0].type) == "streamk"
        record_field = self.FIELDS.get(name)
        if record_field is None or (not streamk and record_field not in self.CLOSED_FORM_FIELDS):
            held = sorted(k for k, v in self.FIELDS.items() if streamk or v in self.CLOSED_FORM_FIELDS)
            raise LocatedError(op, f"params field '{name}' is not in the device params record, which holds "
                                   f"{', '.join(held)} for a {family_of(op.operands[0].type)} scheduler: compute "
                                   "it on the host and pass it as a kernel argument")
        value = load_field(e, lowered(e, op.operands[0]), record_field, streamk)
        typ = op.results[0].type
        return [e.zext(value, typ) if isinstance(typ, IntegerType) and typ.width.data > 32 else value]


# ------------------------------------------------------------------ host code


def _static_request(make: Operation) -> tuple | None:
    """(problem, tile, cluster, sms, options) of a ``make_*_params`` with constant operands."""
    values = [constant_int(v) for v in make.operands]
    if any(v is None for v in values):
        return None
    m, n, k, l, sms = values[:5]
    cga = make.results[0].type.cga() or tuple(values[5:8])
    tile = tuple(int(v) for v in make.properties["tile_shape"].get_values())
    return (m, n, k, l), tile, (cga[0], cga[1]), sms


def _fold(op: Operation) -> list[int] | None:
    """Constant results of ``get_workspace_sizes`` / ``get_grid_shape`` on statically built params."""
    from tileorch.dialects.cutlass.scheduler_context import target_sm
    from tileorch.dialects.cutlass.tile_scheduler import SM100
    from tileorch.schedulers import persistent_grid_shape, streamk_params, workspace_sizes
    from tileorch.schedulers.workspace import sufficient_workspace_sizes
    from tileorch.schedulers.raster import tiled_cta_shape_mnl
    from tileorch.schedulers.sm100_cluster_streamk import cluster_streamk_params, cluster_workspace_sizes
    from tileorch.schedulers.streamk_params import streamk_grid_shape

    make = op.operands[0].owner
    if not isinstance(make, Operation) or not make.name.startswith(PREFIX + "make_"):
        return None
    request = _static_request(make)
    if request is None:
        return None
    problem, tile, cluster, sms = request
    swizzle = make.properties.get("max_swizzle_size")
    max_swizzle = swizzle.value.data if swizzle is not None else 1
    raster = make.results[0].type.raster() or str(make.properties["raster_order"].data.value)
    streamk = make.results[0].type.FAMILY == "streamk"
    mode = make.properties.get("decomp_mode")
    splits = make.properties.get("splits")
    sk_options = {"max_swizzle": max_swizzle, "raster": raster,
                  "decomposition": str(mode.data.value) if mode is not None else "heuristic",
                  "splits": splits.value.data if splits is not None else 1}
    sm100 = streamk and target_sm(make) >= SM100
    if op.name == PREFIX + "get_workspace_sizes":
        if not streamk:
            return [0]
        if sm100:  # the SM100 body (cluster-coordinated on a multi-CTA cluster)
            sizes = cluster_workspace_sizes(problem, tile, cluster, sms, **sk_options)
        else:  # at least what the params address (CUTLASS under-allocates in rare raster flips)
            sizes = sufficient_workspace_sizes(streamk_params(problem, tile, cluster, sms, **sk_options),
                                               workspace_sizes(problem, tile, cluster, sms, **sk_options), tile)
        return [sizes.total, sizes.reduction, sizes.barrier][: len(op.results)]
    blocks = tiled_cta_shape_mnl(problem, tile, cluster)
    sms = constant_int(op.operands[1]) if len(op.operands) > 1 else sms
    if sms is None:
        return None
    if sm100:
        return list(cluster_streamk_params(problem, tile, cluster, sms, **sk_options).grid)
    shape = streamk_grid_shape if streamk else persistent_grid_shape
    return list(shape(blocks, cluster, sms, max_swizzle, raster))


def fold_static_queries(module: ModuleOp, ops: Sequence[Operation] | None = None) -> None:
    """Replace workspace-size and grid-shape queries of constant-shape params by constants.
    ``ops``: the module's ops in walk order when the caller has them (no walk of its own)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    for op in list(module.walk()) if ops is None else ops:
        if op.name not in (PREFIX + "get_workspace_sizes", PREFIX + "get_grid_shape"):
            continue
        try:
            values = _fold(op)
        except ValueError as exc:  # the constant request lies outside what the scheduler computes exactly
            from tileorch.diagnostics import LocatedError

            raise LocatedError(op, f"cannot fold {op.name}: {exc}") from None
        if values is None:
            continue
        consts = [arith.ConstantOp(IntegerAttr(v, r.type)) for v, r in zip(values, op.results, strict=True)]
        parent = op.parent_block()
        for c in consts:
            parent.insert_op_before(c, op)
        for r, c in zip(op.results, consts, strict=True):
            r.replace_all_uses_with(c.result)
        op.detach()
        op.erase()


def drop_host_functions(module: ModuleOp, ops: Iterable[Operation] | None = None) -> None:
    """Leave out of the device module every function that still holds host-only scheduler ops.
    ``ops``: every op of the module in walk order, taken before :func:`fold_static_queries` (the
    ops that erased are no longer in a block and are passed over), instead of a walk of each
    function."""
    if ops is None:
        hosts = [fn for fn in module.body.block.ops
                 if isinstance(fn, func.FuncOp) and any(inner.name in HOST_ONLY for inner in fn.walk())]
    else:
        held = set()
        for inner in ops:
            if inner.name in HOST_ONLY and inner.parent is not None:
                top = inner
                while (up := top.parent_op()) is not None and up is not module:
                    top = up
                if up is module and isinstance(top, func.FuncOp):
                    held.add(top)
        hosts = [fn for fn in module.body.block.ops if fn in held]  # in block order, as the walk finds them
    for fn in hosts:
        fn.detach()
        fn.erase()


def constructor_patterns() -> list[OpLowering]:
    """Run after the leaf patterns: those read the compile-time facts off the constructors."""
    return [CreateSchedulerLowering(name) for name in CONSTRUCTORS]


def patterns() -> list[OpLowering]:
    return [
        CreateInvalidWorkTileInfoLowering(PREFIX + "create_dp_work_tile_info", "dp"),
        CreateInvalidWorkTileInfoLowering(PREFIX + "create_static_persistent_work_tile_info", "static_persistent"),
        CreateInvalidWorkTileInfoLowering(PREFIX + "create_streamk_work_tile_info", "streamk"),
        WorkTileInfoGetValueLowering(),
        WorkTileInfoSetValueLowering(),
        ToCoordMNKLLowering(),
        ToCtaCoordLowering(),
        GetWorkKTileCountLowering(),
        GetWorkKTileStartLowering(),
        ComputeEpilogueLowering(),
        InitialWorkTileInfoLowering(),
        AdvanceToNextWorkLowering(),
        FetchNextWorkLowering(PREFIX + "fetch_next_work"),
        FetchNextWorkLowering(PREFIX + "static_fetch_next_work"),
        GetWorkspaceSizesLowering(),
        ParamsGetValueLowering(),
        *scheduler_fixup.PATTERNS,
        *scheduler_cluster.PATTERNS,
        GetCurrentWorkLowering(),
        QueryNextWorkLowering(),
        GetWorkIdResponsePtrLowering(),
    ]
