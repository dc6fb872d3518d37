"""Barrier primitives the pipeline patterns compose: stage barrier addresses, the parity wait
(blocking, or a counted spin loop that reports and traps under ``debug-timeout``),
thread-selection predicates, remote (cluster) arrives and shared-memory barrier storage."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import i64
from xdsl.ir import Operation, SSAValue

from tileorch.dialects import nvvm
from tileorch.transforms.pipeline_to_nvvm.emit import CLUSTER_PTR, SMEM_PTR, WAIT_SUSPEND_HINT_NS, Emitter
from tileorch.transforms.pipeline_to_nvvm.options import LoweringOptions
from tileorch.transforms.pipeline_to_nvvm.timeout import WaitSite, fresh_symbol, report_and_trap

FUTURE_SUSPEND_HINT_NS = 0x1000  # shorter suspend hint of the future-handle spin form


def full_barrier(e: Emitter, base: SSAValue, index: SSAValue) -> SSAValue:
    return e.barrier_addr(base, index)


def empty_barrier(e: Emitter, base: SSAValue, stages: int, index: SSAValue) -> SSAValue:
    return e.barrier_addr(base, e.add(index, e.const(stages)))


def parity_wait(
    e: Emitter,
    addr: SSAValue,
    phase: SSAValue,
    options: LoweringOptions,
    site: WaitSite,
    ticks: int = WAIT_SUSPEND_HINT_NS,
) -> None:
    """Block until the phase of parity ``phase`` of the barrier at ``addr`` has completed.

    Release builds use the blocking ``nvvm.mbarrier.try_wait.parity`` (CUTLASS's try_wait loop
    with the 0x989680 suspend hint); ``debug-timeout`` builds poll ``nvvm.mbarrier.try_wait``
    in an ``scf.while`` that reports ``site`` and traps after ``options.debug_timeout`` polls.
    """
    parity = e.and_(phase, e.const(1))
    hint = e.const(ticks)
    if not options.debug_timeout:
        e.add_op(nvvm.MBarrierTryWaitParityOp(addr, parity, hint))
        return
    spin_parity(e, addr, parity, hint, options, site)


def spin_parity(e: Emitter, addr: SSAValue, parity: SSAValue, hint: SSAValue, options: LoweringOptions,
                site: WaitSite | None) -> None:
    """``while (!try_wait(addr, parity, hint)) {}``, bounded by ``debug-timeout`` when ``site``."""
    bounded = options.debug_timeout > 0 and site is not None
    e.spin_until(
        lambda inner: inner.emit(nvvm.MBarrierTryWaitOp(addr, parity, hint)),
        on_timeout=(lambda inner: report_and_trap(inner, site, options.debug_timeout)) if bounded else None,
        limit=options.debug_timeout,
    )


def in_thread_range(e: Emitter, tid: SSAValue, first: int, count: int) -> SSAValue:
    """``first <= tid < first + count`` as one unsigned compare."""
    return e.icmp("ult", e.sub(tid, e.const(first)), e.const(count))


def any_of(e: Emitter, preds: Sequence[SSAValue]) -> SSAValue:
    result = preds[0]
    for p in preds[1:]:
        result = e.or_(result, p)
    return result


def local_arrive(e: Emitter, addr: SSAValue) -> None:
    e.add_op(nvvm.MBarrierArriveOp(addr, with_state=False))


def remote_arrive(e: Emitter, addr: SSAValue, cta_rank: SSAValue) -> None:
    """Arrive on the barrier at the same shared-memory offset in CTA ``cta_rank`` of the cluster."""
    remote = e.emit(nvvm.MapaOp(addr, cta_rank, CLUSTER_PTR))
    e.add_op(nvvm.MBarrierArriveOp(remote, with_state=False))


def same_row_or_col(e: Emitter, dst: SSAValue, my_rank: SSAValue, cx: int, direction: str = "row_col") -> SSAValue:
    """CUTLASS ``is_same_row_or_col``: CTA ``dst`` shares this CTA's x or y cluster coordinate;
    ``direction`` ``row`` tests the x only, ``col`` the y only (``pipeline.multicast_peers``)."""
    ncx = e.const(cx)
    if direction != "col":
        same_x = e.icmp("eq", e.urem(dst, ncx), e.urem(my_rank, ncx))
        if direction == "row":
            return same_x
    same_y = e.icmp("eq", e.udiv(dst, ncx), e.udiv(my_rank, ncx))
    return same_y if direction == "col" else e.or_(same_x, same_y)


def smem_storage(e: Emitter, anchor: Operation, prefix: str, words: int) -> SSAValue:
    """Address of a fresh module-level shared array of ``words`` i64 barrier words."""
    name = fresh_symbol(e, anchor, prefix)
    glob = llvm.GlobalOp(
        llvm.LLVMArrayType(words, i64), name, "internal", addr_space=3, alignment=8
    )
    e.globals.append(glob)
    return e.emit(llvm.AddressOfOp(name, SMEM_PTR))
