"""The WorkID pull model on the device (data-parallel ``{runtime_pull}`` and dynamic persistent
schedulers): CUTLASS-style dynamic persistence with an L2-atomic tile counter.

State.  A pull-model handle's state is its WorkID response slot (``workid(%slot : !llvm.ptr<3>)``,
one i32 in shared memory): the linear work id this CTA currently holds.  The constructor seeds
it with the CTA's launch linear index (every thread stores the same value, so no barrier is
needed: a thread reads back its own store or an identical one).

Claim (``query_next_work``, and the pull path of ``fetch_next_work`` / ``advance_to_next_work``)::

    bar.sync 0                       // every thread has read the previous response (WAR)
    if (thread == 0)                 // the CTA's leader
      slot = total_ctas + atomicrmw add(counter, 1) monotonic, syncscope device
    bar.sync 0                       // publish the response to the CTA

The counter is the i32 at the record's ``workspace_ptr`` (the host zeroes it before the launch).
The first tile of a CTA is its launch index (no claim), so claimed ids start at the grid size.
A relaxed atomic suffices: it orders nothing but the claim itself; the shared-memory hand-off is
ordered by ``bar.sync``.  Decoding (``get_current_work``) calls the kind's shared body
``(Params*, linear_id) -> WorkTileInfo`` on the slot's id, so host and device share one copy of
the formulas.

Whole-CTA rule: ``bar.sync 0`` must be executed by every thread of the CTA (MODS and the barrier
init share id 0 with one thread count), so a claim whose executor may not cover the CTA is a
located error.  Work is claimed per CTA, so the pull model needs a 1x1 cluster (a larger cluster
would need its leader CTA to claim for, and multicast to, every CTA of the cluster).
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import i32
from xdsl.ir import Operation, SSAValue

from tileorch.diagnostics import LocatedError
from tileorch.dialects import llvm_ext, nvvm
from tileorch.transforms.pipeline_to_nvvm.context import covers_whole_cta
from tileorch.transforms.pipeline_to_nvvm.emit import GLOBAL_PTR, Emitter
from tileorch.transforms.pipeline_to_nvvm.scheduler_bodies import SchedulerConfig, load_field

CLAIM_ORDERING = "monotonic"
CLAIM_SCOPE = "device"
LEADER_THREAD = 0


def response_slot(handle: SSAValue) -> SSAValue | None:
    """The WorkID response slot of the constructor behind ``handle`` (None: not a pull model)."""
    owner = handle.owner
    if isinstance(owner, Operation) and len(owner.operands) > 1:
        return owner.operands[1]
    return None


def require_claimable(op: Operation, cfg: SchedulerConfig) -> None:
    """The claim's barrier needs the whole CTA, and claims are per CTA (1x1 cluster)."""
    if cfg.cluster != (1, 1):
        raise LocatedError(op, f"{op.name}: the WorkID pull model claims work per CTA and needs a 1x1 cluster "
                               f"(the params type has cga = [{cfg.cluster[0]}, {cfg.cluster[1]}, 1])")
    if not covers_whole_cta(op):
        raise LocatedError(op, f"{op.name} claims a WorkID with bar.sync 0 (the CTA-wide barrier), which every "
                               "thread of the CTA must execute, but its executor region may not cover the whole "
                               "CTA; run it in a `cutlass.async.exec cta` region, or declare the kernel's block "
                               "size (nvvm.reqntid or nvvm.maxntid) so that the executor mask covers every thread")


def seed(e: Emitter, slot: SSAValue, launch_id: SSAValue) -> None:
    e.add_op(llvm.StoreOp(launch_id, slot, alignment=4))


def current_id(e: Emitter, slot: SSAValue) -> SSAValue:
    return e.emit(llvm.LoadOp(slot, i32, alignment=4))


def claim(op: Operation, e: Emitter, cfg: SchedulerConfig, params: SSAValue, slot: SSAValue) -> None:
    """The leader claims the next linear work id and publishes it in ``slot`` (see module doc)."""
    require_claimable(op, cfg)
    e.add_op(nvvm.BarrierOp())

    def leader(inner: Emitter) -> None:
        counter = inner.emit(llvm.IntToPtrOp.create(operands=[load_field(inner, params, "workspace_ptr", False)],
                                                    result_types=[GLOBAL_PTR]))
        taken = inner.emit(llvm_ext.AtomicRMWOp("add", counter, inner.const(1), CLAIM_ORDERING, CLAIM_SCOPE))
        grid = load_field(inner, params, "total_ctas", False)
        inner.add_op(llvm.StoreOp(inner.add(grid, taken), slot, alignment=4))

    e.if_(e.icmp("eq", e.thread_id(op), e.const(LEADER_THREAD)), leader)
    e.add_op(nvvm.BarrierOp())
