"""MODS sidecar lowering (seed 004 "Lowering"): the four ``cutlass.tile_scheduler.mods_*`` ops.

================================  ==================================================================
op                                emit set
================================  ==================================================================
``mods_report_mainloop_start``    participant test, then ``nvvm.cluster.arrive`` (participant:
                                  release) or ``nvvm.cluster.arrive.relaxed`` (non-participant);
                                  ``nvvm.read.ptx.sreg.globaltimer`` when the timestamp is used
``mods_report_mainloop_end``      ``nvvm.cp.async.bulk.wait_group 0`` (drain the tail's bulk
                                  stores), ``nvvm.cluster.wait``; when the elapsed time is used a
                                  second ``globaltimer`` read and ``llvm.sub`` of the start stamp
``mods_report_smid``              ``nvvm.read.ptx.sreg.smid``
``mods_throttle``                 profile 0: dropped; 1: ``nvvm.nanosleep`` :data:`THROTTLE_SLEEP_NS`;
                                  2: cooperative cluster throttle (below)
================================  ==================================================================

Throttle profile 2 (seed 004: "a participation point in a per-cluster barrier whose count adapts
to current hardware queue pressure measured at runtime").  The per-cluster barrier is the MODS
cluster barrier itself, whose phase the start probe opened with its arrive:

1. ``%t0 = globaltimer``; ``nvvm.cluster.wait aligned`` closes the current phase: this CTA
   continues only once every CTA of the cluster reached the window or its own throttle point;
2. ``%lag = globaltimer - %t0``: how long this CTA waited for the slowest CTA of its cluster, the
   runtime measure of queue pressure (the slowest CTA measures ~0);
3. ``nvvm.cluster.arrive aligned`` opens the next phase, closed by the next throttle point or by
   the end probe's wait (so per thread arrive and wait still alternate, as PTX requires);
4. ``nvvm.nanosleep min(%lag, THROTTLE_SLEEP_NS[1])``: a CTA that ran ahead backs off by the lag
   it just measured (at most profile 1's fixed sleep), leaving the memory queues to the CTAs that
   fell behind; CTAs that did not wait do not sleep.

Every CTA of the cluster must therefore pass the same number of profile-2 points inside the
window (cluster-uniform trip counts, as in a persistent kernel that schedules whole clusters).

Whole-CTA rule.  ``barrier.cluster.arrive/wait.aligned`` must be executed by every non-exited
thread of the cluster.  The probes and throttle profile 2 are therefore
lowered only where every thread of the CTA runs them (:func:`covers_whole_cta`: a ``cta``
executor, or masks covering every unit below the kernel's ``nvvm.reqntid`` / ``nvvm.maxntid``);
elsewhere they are located errors (a launch with threads outside the executor would deadlock).

Participants.  ``barrier.cluster`` counts every non-exited thread of the cluster, so every CTA
must arrive or the end probe's wait never completes; the participant mask therefore selects the
*ordering* of the arrive: a participant arrives with release semantics (its mainloop-entry writes
become visible to the cluster at the end probe), a non-participant with ``.relaxed``.  The
participant index is CTA-uniform, so both arms stay ``.aligned``:

* ``is_2cta_mma = false`` (one bit per CTA): index = ``%cluster_ctarank``;
* ``is_2cta_mma = true`` (one bit per cluster half, the CTA pair of a 2-CTA MMA): index =
  ``%cluster_ctarank >> 1`` -- the extra shift is the "different emit set" of seed 004.

No thread id enters the computation: the arrive contribution of a CTA does not depend on which of
its threads executes the probe (``barrier.cluster`` is per thread and all of them arrive).
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32, i64
from xdsl.ir import Operation

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nvvm
from tileorch.dialects.cutlass.pipeline_facts import int_prop, prop
from tileorch.transforms.pipeline_to_nvvm.base import OpLowering
from tileorch.transforms.pipeline_to_nvvm.context import covers_whole_cta
from tileorch.transforms.pipeline_to_nvvm.emit import Emitter

THROTTLE_SLEEP_NS = {1: 1000}
"""Profile 1's fixed back-off: 1000 ns = 1 us, about the issue time of one 128x128x64 BF16 tile
step of an H100 SM (2 * 128*128*64 FLOP / ~1 TFLOP/s per SM ~= 2 us), so a throttle point at
most halves the tile issue rate; ``nanosleep`` treats it as an upper bound (0..2x in practice)."""

WHOLE_CTA_HINT = (
    "run it in a `cutlass.async.exec cta` region, or declare the kernel's block size (nvvm.reqntid or "
    "nvvm.maxntid) so that the executor mask can be seen to cover every thread of the CTA"
)


def require_whole_cta(op: Operation, what: str) -> None:
    """``op`` lowers to ``what``, which every thread of the CTA must execute."""
    if not covers_whole_cta(op):
        raise LocatedError(
            op,
            f"{op.name} lowers to {what}, which every thread of the CTA must execute, but its executor "
            f"region may not cover the whole CTA; {WHOLE_CTA_HINT}",
        )


def _used(value) -> bool:
    return value is not None and bool(value.uses)


def two_cta(op: Operation) -> bool:
    flag = prop(op, "is_2cta_mma")
    return flag is not None and bool(flag.value.data)


def emit_is_participant(e: Emitter, op: Operation):
    """i1: bit (this CTA's participant index) of the participant mask is set."""
    rank = e.sreg("cluster.ctarank")
    if two_cta(op):
        rank = e.lshr(rank, e.const(1))
    mask = op.operands[1]
    width = mask.type.width.data
    if width != 32:
        rank = e.zext(rank, mask.type) if width > 32 else e.trunc(rank, mask.type)
    bit = e.lshr(mask, rank)
    return e.icmp("ne", e.and_(bit, e.const(1, mask.type)), e.const(0, mask.type))


def _arrive_release(e: Emitter) -> None:
    e.add_op(nvvm.ClusterArriveOp(aligned=True))


def _arrive_relaxed(e: Emitter) -> None:
    e.add_op(nvvm.ClusterArriveRelaxedOp(aligned=True))


class ModsReportMainloopStartLowering(OpLowering):
    OP = "cutlass.tile_scheduler.mods_report_mainloop_start"

    def lower(self, op: Operation, e: Emitter):
        require_whole_cta(op, "barrier.cluster.arrive.aligned")
        e.if_(emit_is_participant(e, op), _arrive_release, _arrive_relaxed)
        if op.results:
            return [e.sreg("globaltimer") if _used(op.results[0]) else e.const(0, i64)]
        return None


class ModsReportMainloopEndLowering(OpLowering):
    OP = "cutlass.tile_scheduler.mods_report_mainloop_end"

    def lower(self, op: Operation, e: Emitter):
        require_whole_cta(op, "barrier.cluster.wait.aligned")
        e.add_op(nvvm.CpAsyncBulkWaitGroupOp(0))
        e.add_op(nvvm.ClusterWaitOp(aligned=True))
        if not op.results:
            return None
        if not _used(op.results[0]):
            return [e.const(0, i64)]
        return [e.sub(e.sreg("globaltimer"), op.operands[2])]


class ModsReportSmidLowering(OpLowering):
    OP = "cutlass.tile_scheduler.mods_report_smid"

    def lower(self, op: Operation, e: Emitter):
        return [e.sreg("smid")]


COOPERATIVE_BACKOFF_CAP_NS = THROTTLE_SLEEP_NS[1]
"""Profile 2's back-off is the measured lag, at most profile 1's fixed sleep."""


def emit_cooperative_throttle(e: Emitter) -> None:
    """Profile 2: wait on the MODS cluster barrier, measure the wait, re-arrive, back off."""
    t0 = e.sreg("globaltimer")
    e.add_op(nvvm.ClusterWaitOp(aligned=True))
    lag = e.sub(e.sreg("globaltimer"), t0)
    e.add_op(nvvm.ClusterArriveOp(aligned=True))
    cap = e.const(COOPERATIVE_BACKOFF_CAP_NS, i64)
    bounded = e.select(e.icmp("ult", lag, cap), lag, cap)
    e.add_op(nvvm.NanosleepOp(e.trunc(bounded, i32)))


class ModsThrottleLowering(OpLowering):
    OP = "cutlass.tile_scheduler.mods_throttle"

    def lower(self, op: Operation, e: Emitter):
        profile = int_prop(op, "profile", 0)
        if profile in THROTTLE_SLEEP_NS:
            e.add_op(nvvm.NanosleepOp(e.const(THROTTLE_SLEEP_NS[profile])))
        elif profile == 2:
            require_whole_cta(op, "barrier.cluster.wait.aligned and barrier.cluster.arrive.aligned "
                              "(a participation point in the MODS cluster barrier)")
            emit_cooperative_throttle(e)
        return None


PATTERNS = [
    ModsReportMainloopStartLowering(),
    ModsReportMainloopEndLowering(),
    ModsReportSmidLowering(),
    ModsThrottleLowering(),
]
