"""``cutlass.named_barrier.*``: CTA-local hardware named barriers (CUTLASS ``arch::NamedBarrier``).

``arrive`` is PTX ``bar.arrive id, n`` (signal, do not wait); ``arrive_and_wait`` is
``bar.sync id, n`` (signal, then wait until ``n`` threads have arrived).  The barrier id is
either static (``barrier_id = 8``, a hardware id in 0..15) or a dynamic i32 operand; the
arrive count ``n`` is ``num_threads`` or, when absent, the thread count of the enclosing
``cutlass.async.exec``.  Both ops follow the warp-cooperative rules of :mod:`bar_scope`::

    cutlass.named_barrier.arrive barrier_id = 8 num_threads = 256
    cutlass.named_barrier.arrive_and_wait %id
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, IntegerAttr
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, opt_operand_def, opt_prop_def, traits_def
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int
from tileorch.dialects.cutlass.bar_scope import check_named_barrier_id, warp_cooperative_arrive_count


class NamedBarrierOp(IRDLOperation):
    """Common operands, format and verifier of the two named-barrier ops."""

    id = opt_operand_def(I32)
    barrier_id = opt_prop_def(IntegerAttr[I32])
    num_threads = opt_prop_def(IntegerAttr[I32])

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "($id^)? (`barrier_id` `=` $barrier_id^)? (`num_threads` `=` $num_threads^)? attr-dict"
    )

    def __init__(
        self,
        barrier_id: int | None = None,
        num_threads: int | None = None,
        dynamic_id: SSAValue | None = None,
    ):
        props = {}
        if barrier_id is not None:
            props["barrier_id"] = IntegerAttr(barrier_id, 32)
        if num_threads is not None:
            props["num_threads"] = IntegerAttr(num_threads, 32)
        super().__init__(operands=[[] if dynamic_id is None else [dynamic_id]], properties=props)

    def static_barrier_id(self) -> int | None:
        """The hardware barrier id when known at compile time (property or constant operand)."""
        if self.barrier_id is not None:
            return self.barrier_id.value.data
        return constant_int(self.id) if self.id is not None else None

    def arrive_count(self) -> int:
        """Threads the hardware barrier waits for (``n`` of ``bar.sync id, n``)."""
        explicit = None if self.num_threads is None else self.num_threads.value.data
        return warp_cooperative_arrive_count(self, explicit)

    def verify_(self) -> None:
        if (self.id is None) == (self.barrier_id is None):
            raise VerifyException(
                f"'{self.name}' op expected exactly one barrier id: a static barrier_id "
                f"or a dynamic i32 operand, found "
                f"{'both' if self.id is not None else 'neither'}"
            )
        static_id = self.static_barrier_id()
        if static_id is not None:
            check_named_barrier_id(self, static_id)
        self.arrive_count()
        if static_id is not None:
            from tileorch.dialects.cutlass.barrier_pool import check_use

            check_use(self, static_id)


@irdl_op_definition
class NamedBarrierArriveOp(NamedBarrierOp):
    """``bar.arrive id, n``: the executing threads signal barrier ``id`` and continue."""

    name = "cutlass.named_barrier.arrive"


@irdl_op_definition
class NamedBarrierArriveAndWaitOp(NamedBarrierOp):
    """``bar.sync id, n``: the executing threads signal barrier ``id`` and wait for ``n``."""

    name = "cutlass.named_barrier.arrive_and_wait"


OPS: list[type] = [NamedBarrierArriveOp, NamedBarrierArriveAndWaitOp]
