"""``cutlass.generic_barrier.*``: global-memory semaphores (CUTLASS ``GenericBarrier<Sync>``).

A semaphore is an ``int`` flag ``lock[flag_idx]`` in global memory (initially 0).  The
participating threads first (arrive) or last (wait) synchronise among themselves with the
``sync`` policy; one leader thread touches the flag:

* ``arrive_increment``: sync, then the leader does ``fence.acq_rel.gpu`` +
  ``red.relaxed.gpu.global.add.s32 [flag], value`` (``value`` defaults to 1);
* ``wait_eq``: the leader spins on ``ld.global.acquire.gpu`` until ``flag == value``
  (default 1), then sync;
* ``wait_less_than``: the leader spins while ``flag < count`` (i.e. waits until
  ``flag >= count``), then sync.

``lock`` is an ``!llvm.ptr`` in the generic (0) or global (1) address space, or a rank-1
``memref`` of i32 (a constant ``flag_idx`` is bounds-checked against a static size).  The
``sync`` policy (``#cutlass<generic_barrier_sync ...>``, default ``syncthreads``) fixes the
arrive count: ``syncwarp`` is 32 threads; ``syncthreads`` and ``named_barrier`` take
``num_threads`` or the enclosing executor's thread count; ``named_barrier`` also needs a static
``barrier_id`` (raw hardware id 0..15).  All three ops follow the warp-cooperative rules of
:mod:`bar_scope`::

    cutlass.generic_barrier.arrive_increment %lock[%i] sync = named_barrier barrier_id = 4 : !llvm.ptr<1>
    cutlass.generic_barrier.wait_less_than %lock[%i], %n : memref<64xi32>
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, IntegerAttr, IntegerType, MemRefType
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute
from xdsl.irdl import (IRDLOperation, base, irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def,
                       traits_def)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int
from tileorch.dialects.cutlass.bar_scope import WARP_SIZE, check_named_barrier_id, warp_cooperative_arrive_count
from tileorch.dialects.cutlass.barrier_attrs import GenericBarrierSync, GenericBarrierSyncAttr
from tileorch.dialects.cutlass.pointer_operands import check_pointer_space

GLOBAL_ADDRESS_SPACES = (0, 1)
_SYNCTHREADS = GenericBarrierSyncAttr(GenericBarrierSync.SYNCTHREADS)

_SYNC_FORMAT = (
    "(`sync` `=` $sync^)? (`barrier_id` `=` $barrier_id^)? "
    "(`num_threads` `=` $num_threads^)? attr-dict `:` type($lock)"
)


class GenericBarrierOp(IRDLOperation):
    """The properties, traits and verifier shared by the three semaphore ops.

    Each op declares its operands itself (xDSL lists a subclass's fields before its bases', and
    the operands print in the order lock, flag_idx, value): ``lock``, ``flag_idx`` and its value
    operand.
    """

    sync = prop_def(GenericBarrierSyncAttr, default_value=_SYNCTHREADS)
    barrier_id = opt_prop_def(IntegerAttr[I32])
    num_threads = opt_prop_def(IntegerAttr[I32])
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def sync_kind(self) -> GenericBarrierSync:
        return self.sync.data

    def arrive_count(self) -> int:
        """Threads that synchronise through the ``sync`` policy."""
        explicit = None if self.num_threads is None else self.num_threads.value.data
        if self.sync_kind() == GenericBarrierSync.SYNCWARP:
            if explicit is not None and explicit != WARP_SIZE:
                raise VerifyException(
                    f"'{self.name}' op with sync = syncwarp synchronises one warp: expected "
                    f"num_threads = {WARP_SIZE} or none, found {explicit}"
                )
            explicit = WARP_SIZE
        if self.sync_kind() == GenericBarrierSync.SYNCTHREADS and explicit is not None:
            self._check_syncthreads_count(explicit)
        return warp_cooperative_arrive_count(self, explicit)

    def _check_syncthreads_count(self, explicit: int) -> None:
        """``sync = syncthreads`` is ``bar.sync 0`` over every thread of the CTA: inside a ``cta`` executor of
        N threads a ``num_threads`` other than N would be a count the code does not keep (the lowering emits
        the whole-CTA barrier; the checker would count ``num_threads`` arrivals)."""
        from tileorch.dialects.cutlass.bar_scope import enclosing_async_exec

        executor = enclosing_async_exec(self)
        if executor is None or executor.executor_kind() != "cta":
            return
        cta = executor.num_threads()
        if explicit != cta:
            raise VerifyException(
                f"'{self.name}' op with sync = syncthreads synchronises the whole CTA (bar.sync 0: the enclosing "
                f"cta executor's {cta} threads), but num_threads = {explicit}: drop num_threads, or use sync = "
                f"named_barrier with a barrier_id to synchronise {explicit} threads"
            )

    def verify_(self) -> None:
        self._verify_lock()
        if self.sync_kind() == GenericBarrierSync.NAMED_BARRIER:
            if self.barrier_id is None:
                raise VerifyException(
                    f"'{self.name}' op with sync = named_barrier needs a static barrier_id"
                )
            check_named_barrier_id(self, self.barrier_id.value.data)
        elif self.barrier_id is not None:
            raise VerifyException(
                f"'{self.name}' op takes a barrier_id only with sync = named_barrier, "
                f"found sync = {self.sync_kind().value}"
            )
        self.arrive_count()
        if self.barrier_id is not None:
            from tileorch.dialects.cutlass.barrier_pool import check_use

            check_use(self, self.barrier_id.value.data)

    def _verify_lock(self) -> None:
        expected = "the semaphore in global memory (!llvm.ptr or !llvm.ptr<1>)"
        if check_pointer_space(self, self.lock, GLOBAL_ADDRESS_SPACES, expected):
            return
        lock_type: Attribute = self.lock.type
        assert isinstance(lock_type, MemRefType)
        if lock_type.get_num_dims() != 1 or lock_type.element_type != IntegerType(32):
            raise VerifyException(
                f"'{self.name}' op expected the semaphore memref to be rank-1 of i32 flags, "
                f"found {lock_type}"
            )
        size = lock_type.get_shape()[0]
        idx = constant_int(self.flag_idx)
        if size >= 0 and idx is not None and not 0 <= idx < size:
            raise VerifyException(
                f"'{self.name}' op flag_idx out of bounds: expected 0 <= flag_idx < {size}, "
                f"found {idx}"
            )


class _FlagValueOp(GenericBarrierOp):
    """The semaphore ops with an optional value operand (default 1)."""

    lock = operand_def(base(LLVMPointerType) | base(MemRefType))
    flag_idx = operand_def(I32)
    value = opt_operand_def(I32)


@irdl_op_definition
class GenericBarrierArriveIncrementOp(_FlagValueOp):
    """Sync, then the leader adds ``value`` (default 1) to the flag with release semantics."""

    name = "cutlass.generic_barrier.arrive_increment"
    assembly_format = "$lock `[` $flag_idx `]` (`add` $value^)? " + _SYNC_FORMAT


@irdl_op_definition
class GenericBarrierWaitEqOp(_FlagValueOp):
    """The leader waits (acquire) until the flag equals ``value`` (default 1), then sync."""

    name = "cutlass.generic_barrier.wait_eq"
    assembly_format = "$lock `[` $flag_idx `]` (`,` $value^)? " + _SYNC_FORMAT


@irdl_op_definition
class GenericBarrierWaitLessThanOp(GenericBarrierOp):
    """The leader waits (acquire) while the flag is below ``count``, then sync."""

    name = "cutlass.generic_barrier.wait_less_than"
    lock = operand_def(base(LLVMPointerType) | base(MemRefType))
    flag_idx = operand_def(I32)
    count = operand_def(I32)
    assembly_format = "$lock `[` $flag_idx `]` `,` $count " + _SYNC_FORMAT


OPS: list[type] = [
    GenericBarrierArriveIncrementOp,
    GenericBarrierWaitEqOp,
    GenericBarrierWaitLessThanOp,
]
