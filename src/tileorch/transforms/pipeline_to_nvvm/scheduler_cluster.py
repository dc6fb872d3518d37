"""SM100 Stream-K on a multi-CTA cluster (seed 000 ``sub_R01``): the device side of
:mod:`tileorch.schedulers.sm100_cluster_streamk`, whose functions the lowering traces.

A ``cutlass.tile_scheduler.create_SM100_scheduler`` building a ``streamk`` scheduler from params
whose CGA is larger than one CTA (it must equal the module's ``cutlass.cluster_shape``, a verifier
rule; a params type without a CGA takes the module's) makes every scheduler op
*cluster-coordinated*:

=========================================  =========================================================
op                                         lowering
=========================================  =========================================================
``initial_work_tile_info``                 the body (traced with a one-CTA cluster) at the
                                           *cluster's* unit: ``cluster_linear_idx(%clusterid)``;
                                           the work tile is the cluster's piece, the same in every
                                           CTA of the cluster
``advance_to_next_work`` / ``fetch_...``   the unit's next piece (cluster-uniform), else invalid
``get_work_k_tile_start`` / ``_count``     this CTA's share of the piece: ``rank_share(...,
                                           %cluster_ctarank, size)`` (may be 0 tiles)
``work_tile_info_to_cta_coord``            (m, n, first K tile of the share, l)
``compute_epilogue``                       ``runs_epilogue``: rank 0 of the final split
``fixup ... smem(%buf : !llvm.ptr<3>)``    in-cluster reduction, then rank 0 alone runs the
                                           generic (workspace + lock) fix-up of the piece
``fixup_wait`` / ``fixup_increment``       located error (per-CTA protocol)
=========================================  =========================================================

The in-cluster reduction of one piece (every thread of every CTA; ``t = tid % 128``, warp group
``w = barrier_idx`` of ``num_barriers``; the buffer holds this CTA's partial in the fix-up's
striped layout, ``tile_bytes`` of :class:`.scheduler_fixup.PartialLayout`):

1. ranks ``1 .. n-1`` (``n = contributing_ranks(count, size)``: ranks holding K tiles) store
   their accumulator into their own buffer (``st.shared``);
2. ``barrier.cluster.arrive.aligned`` (release) + ``barrier.cluster.wait.aligned`` (acquire);
3. rank 0 adds the partial of each rank ``r < n``, in rank order (= increasing K), loaded from
   rank ``r``'s buffer through ``mapa`` + ``ld.shared::cluster`` (DSMEM);
4. ``barrier.cluster.arrive.aligned`` + ``barrier.cluster.wait.aligned``: no CTA reuses its buffer
   (next piece) or exits while the leader may still read it;
5. rank 0 runs the generic fix-up (:func:`.scheduler_fixup.emit_fixup`) with the cluster's sum:
   pass-through for a whole tile, else workspace partial + lock across clusters.

The cluster barrier counts every non-exited thread of the cluster, so the fix-up must run where
the whole CTA runs it (``mods.require_whole_cta``), a CTA of one warp group (128 threads, one
buffer slot per ``tid % 128``), and every CTA must reach it equally often:
the piece sequence is cluster-uniform, but a CTA's *share* may be empty, so a loop must test the
work tile (its ``k_tile_count`` field or validity), never the share; a loop condition fed by
``get_work_k_tile_count`` is a located error.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import VectorType, i8
from xdsl.ir import Attribute, Operation, SSAValue

from tileorch.analysis.fixup_buffer import check_fixup_buffer
from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm
from tileorch.dialects.cutlass.pipeline_facts import int_prop
from tileorch.dialects.cutlass.scheduler_context import cta_cluster_of
from tileorch.schedulers import sm100_cluster_streamk as coop
from tileorch.schedulers.sm100_streamk import Sm100StreamKParams
from tileorch.transforms.pipeline_to_nvvm import scheduler_bodies as bodies
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.context import cta_thread_bound
from tileorch.transforms.pipeline_to_nvvm.emit import CLUSTER_PTR, SMEM_PTR, Emitter
from tileorch.transforms.pipeline_to_nvvm.mods import require_whole_cta
from tileorch.transforms.pipeline_to_nvvm.scheduler_bodies import load_field, lowered, run
from tileorch.transforms.pipeline_to_nvvm.scheduler_fixup import (WARP_GROUP, PartialLayout, add_values, element_type,
                                                                  emit_fixup, extract_one, insert_one, partial_layout)

CLUSTER_SYNC = "barrier.cluster.arrive.aligned and barrier.cluster.wait.aligned"


def _rank(tracer, e: Emitter):
    return tracer.input(("sreg", "cluster.ctarank"), lambda: e.sreg("cluster.ctarank"))


def launch_index(tracer, e: Emitter, p):
    """The unit of this CTA's cluster (``p``: symbolic one-CTA-cluster stream-K params)."""
    x, y, z = (tracer.input(("sreg", f"clusterid.{d}"), lambda d=d: e.sreg(f"clusterid.{d}")) for d in "xyz")
    pb = (p.raster.blocks_m, p.raster.blocks_n, p.raster.blocks_l)
    return coop.cluster_linear_idx(Sm100StreamKParams(p, pb, (1, 1)), x, y, z)


def size_of(cfg: bodies.SchedulerConfig) -> int:
    return cfg.cta_cluster[0] * cfg.cta_cluster[1]


def share(e: Emitter, cfg: bodies.SchedulerConfig, wti: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(first K tile, K tiles) of this CTA's share of the piece ``wti`` (lowered struct)."""

    def compute(tracer):
        fields = bodies.unpack_wti(tracer, e, wti, "streamk")
        return coop.rank_share(fields["k_tile_start"], fields["k_tile_count"], _rank(tracer, e), size_of(cfg))

    tracer, (start, count) = run(e, compute)
    return tracer.as_int(tracer.lift(start)).value, tracer.as_int(tracer.lift(count)).value


def runs_epilogue(e: Emitter, cfg: bodies.SchedulerConfig, params: SSAValue, wti: SSAValue) -> SSAValue:
    def compute(tracer):
        work = bodies.host_wti(bodies.unpack_wti(tracer, e, wti, "streamk"), "streamk")
        kt = tracer.input("kt", lambda: load_field(e, params, "k_tiles_per_output_tile", True))
        return coop.runs_epilogue(work, _rank(tracer, e), kt)

    tracer, result = run(e, compute)
    return tracer.lift(result).value


def check_share_not_loop_condition(op: Operation) -> None:
    """A share may be 0 K tiles while the cluster's piece is not: a loop that stops on it would
    leave the cluster barrier short of this CTA's arrivals."""
    frontier = [r for r in op.results]
    seen = 0
    while frontier and seen < 64:
        value = frontier.pop()
        seen += 1
        for use in value.uses:
            user = use.operation
            if isinstance(user, scf.ConditionOp) and use.index == 0:
                raise LocatedError(op, "on the SM100 Stream-K scheduler of a multi-CTA cluster, get_work_k_tile_count "
                                       "is this CTA's share of the piece, which may be 0 while the cluster's piece is "
                                       "not: a loop that stops on it skips the cluster barriers of the fix-up; test "
                                       "the work tile instead (work_tile_info_get_value {field = k_tile_count} or "
                                       "the is_valid result of advance_to_next_work)")
            if isinstance(user, arith.CmpiOp | arith.AndIOp | arith.OrIOp | arith.XOrIOp):
                frontier.extend(user.results)


# ------------------------------------------------------------------ the in-cluster reduction


def _at(e: Emitter, base: SSAValue, offset: int, ptr: Attribute) -> SSAValue:
    if offset == 0:
        return base
    return e.emit(llvm.GEPOp.from_mixed_indices(base, [offset], i8, result_type=ptr))


def _scalar(typ: Attribute) -> bool:
    return not isinstance(typ, VectorType | llvm.LLVMStructType)


def store_partial(e: Emitter, base: SSAValue, layout: PartialLayout, value: SSAValue) -> None:
    if _scalar(value.type):
        e.add_op(llvm.StoreOp(value, base))
        return
    for i in range(layout.values):
        e.add_op(llvm.StoreOp(extract_one(e, value, i), _at(e, base, layout.element_bytes(i), SMEM_PTR)))


def load_partial(e: Emitter, base: SSAValue, layout: PartialLayout, typ: Attribute) -> SSAValue:
    """The partial at ``base`` (a ``shared::cluster`` address): one ``ld.shared::cluster`` each."""
    if _scalar(typ):
        return e.emit(llvm.LoadOp(base, typ))
    value = e.undef(typ)
    for i in range(layout.values):
        x = e.emit(llvm.LoadOp(_at(e, base, layout.element_bytes(i), CLUSTER_PTR), element_type(typ)))
        value = insert_one(e, value, x, i)
    return value


def cta_threads(op: Operation) -> int | None:
    """Threads of the CTA running ``op``: the kernel's declared block size, else an enclosing
    ``cta`` executor's ``threads(N)``."""
    bound = cta_thread_bound(op)
    if bound is not None:
        return bound
    parent = op.parent_op()
    while parent is not None:
        threads = parent.properties.get("threads") if parent.name == "cutlass.async.exec" else None
        if threads is not None and "cta" in str(parent.properties.get("executor")):
            return threads.value.data
        parent = parent.parent_op()
    return None


def cluster_sync(e: Emitter) -> None:
    """``barrier.cluster.arrive.aligned`` (release) then ``barrier.cluster.wait.aligned`` (acquire)."""
    e.add_op(nvvm.ClusterArriveOp(aligned=True))
    e.add_op(nvvm.ClusterWaitOp(aligned=True))


def emit_cluster_fixup(op: Operation, e: Emitter,
                       generic: Callable[[Operation, Emitter, SSAValue], SSAValue]) -> SSAValue:
    shape = cta_cluster_of(op.operands[0])
    assert shape is not None
    size = shape[0] * shape[1]
    require_whole_cta(op, CLUSTER_SYNC)
    threads = cta_threads(op)
    if threads != WARP_GROUP:
        found = "an undeclared number of" if threads is None else str(threads)
        raise LocatedError(op, f"the SM100 Stream-K fix-up on a cluster runs on one warp group per CTA "
                               f"({WARP_GROUP} threads: each thread's partial has one slot, tid % 128), found "
                               f"{found} threads; declare nvvm.reqntid = array<i32: 128, 1, 1> (or threads(128) "
                               "on the cta executor)")
    if len(op.operands) < 4:
        raise LocatedError(op, f"the SM100 Stream-K fix-up on a {shape[0]}x{shape[1]} cluster reduces each piece "
                               "through the cluster's shared memory: add smem(%buf : !llvm.ptr<3>), a buffer of "
                               "this CTA's whole partial tile (num_barriers * 128 threads * accumulator bytes)")
    acc, smem = op.operands[2], op.operands[3]
    typ = acc.type
    groups, group = int_prop(op, "num_barriers", 1), int_prop(op, "barrier_idx", 0)
    layout = partial_layout(op, typ, groups)
    check_fixup_buffer(op)  # (sweep 34: compiled, and `tileorch check` said OK; check refuses it too since s42)
    wti = lowered(e, op.operands[1])

    def contributors(tracer):
        count = bodies.unpack_wti(tracer, e, wti, "streamk")["k_tile_count"]
        return coop.contributing_ranks(count, size)

    tracer, n = run(e, contributors)
    n = tracer.lift(n).value
    rank = e.sreg("cluster.ctarank")
    thread = e.urem(e.thread_id(op), e.const(WARP_GROUP))
    offset = e.add(e.const(layout.slice_bytes(group)), e.mul(thread, e.const(layout.thread_stride)))
    mine = e.emit(llvm.GEPOp.from_mixed_indices(smem, [offset], i8, result_type=SMEM_PTR))
    leader = e.icmp("eq", rank, e.const(0))

    publish = e.and_(e.icmp("ne", rank, e.const(0)), e.icmp("slt", rank, n))
    e.if_(publish, lambda inner: store_partial(inner, mine, layout, acc))
    cluster_sync(e)

    def fold(inner: Emitter):
        total = acc
        for r in range(1, size):
            def add_peer(body: Emitter, r=r, total=total):
                remote = body.emit(nvvm.MapaOp(mine, body.const(r), CLUSTER_PTR))
                return [add_values(body, total, load_partial(body, remote, layout, typ))]

            total = inner.if_(inner.icmp("slt", inner.const(r), n), add_peer, lambda body, total=total: [total],
                              result_types=[typ])[0]
        return [total]

    reduced = e.if_(leader, fold, lambda inner: [acc], result_types=[typ])[0]
    cluster_sync(e)
    return e.if_(leader, lambda inner: [generic(op, inner, reduced)], lambda inner: [reduced], result_types=[typ])[0]


class FixupLowering(OpLowering):
    OP = "cutlass.tile_scheduler.fixup"

    """``cutlass.tile_scheduler.fixup``: inside the cluster on an SM100 cluster of CTAs
    (:func:`emit_cluster_fixup`), else the per-CTA fix-up (:func:`.scheduler_fixup.emit_fixup`)."""

    def lower(self, op: Operation, e: Emitter):
        if cta_cluster_of(op.operands[0]) is not None:
            return [emit_cluster_fixup(op, e, emit_fixup)]
        if op.operands[3:]:
            raise LocatedError(op, "smem(...) is only used by the SM100 Stream-K scheduler on a cluster of more "
                                   "than one CTA (module cutlass.cluster_shape)")
        return [emit_fixup(op, e, op.operands[2])]


PATTERNS = [FixupLowering()]
