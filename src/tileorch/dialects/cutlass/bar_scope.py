"""Shared verifier rules of the "Bar" ops (``cutlass.named_barrier.*``, ``cutlass.generic_barrier.*``).

Bar ops are warp-cooperative (tileiras' BarOpLowering diagnostic):

* if an enclosing ``cutlass.async.exec`` exists, its executor kind must be warp-granular
  (``warp``, ``warpgroup`` or ``cta``; not ``thread``) and its mask non-empty;
* the arrive count is the op's explicit ``num_threads`` or, when absent, the thread count of
  the enclosing ``cutlass.async.exec``; with neither, the op is rejected;
* the arrive count is a positive multiple of the warp size (32) and at most 1024 (CTA size).

Static named-barrier ids address the 16 hardware barriers ``0..15`` (PTX ``bar.sync``).
The executor op is found by name so that this module does not import ``async_exec``.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

WARP_SIZE = 32
MAX_CTA_THREADS = 1024
HW_NAMED_BARRIERS = 16
WARP_GRANULAR_KINDS = ("warp", "warpgroup", "cta")
ASYNC_EXEC = "cutlass.async.exec"


def enclosing_async_exec(op: Operation) -> Operation | None:
    """The closest ``cutlass.async.exec`` strictly enclosing ``op``, or None."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name == ASYNC_EXEC:
            return parent
        parent = parent.parent_op()
    return None


def warp_cooperative_arrive_count(op: Operation, explicit: int | None) -> int:
    """Check the warp-cooperative rules for ``op``; return its arrive count (threads)."""
    executor = enclosing_async_exec(op)
    if executor is not None:
        try:
            kind = executor.executor_kind()
            executor.mask_bits()
        except Exception:  # noqa: BLE001 - an exec without valid properties reports itself
            executor = None
    if executor is not None:
        kind = executor.executor_kind()
        if kind not in WARP_GRANULAR_KINDS:
            raise VerifyException(
                f"'{op.name}' op is warp-cooperative: expected an enclosing {ASYNC_EXEC} "
                f"of executor kind warp, warpgroup or cta, found kind '{kind}'"
            )
        if executor.mask_bits() == 0:
            raise VerifyException(
                f"'{op.name}' op is warp-cooperative: expected a non-empty executor mask "
                f"on the enclosing {ASYNC_EXEC}, found an empty mask"
            )
    if explicit is not None:
        count, source = explicit, "num_threads"
    elif executor is not None:
        count, source = executor.num_threads(), f"the enclosing {ASYNC_EXEC}"
    else:
        raise VerifyException(
            f"'{op.name}' op needs an explicit num_threads: there is no enclosing "
            f"{ASYNC_EXEC} from which the arrive count can be computed"
        )
    check_thread_count(op, count, source)
    return count


def check_thread_count(op: Operation, count: int, source: str = "num_threads") -> None:
    """A barrier thread count is a positive multiple of 32, at most 1024."""
    if count <= 0 or count % WARP_SIZE:
        raise VerifyException(
            f"'{op.name}' op arrive count (from {source}) must be a positive multiple of "
            f"the warp size {WARP_SIZE}, found {count}"
        )
    if count > MAX_CTA_THREADS:
        raise VerifyException(
            f"'{op.name}' op arrive count (from {source}) must be at most "
            f"{MAX_CTA_THREADS} (threads per CTA), found {count}"
        )
    from tileorch.dialects.cutlass.executors import cta_size

    cta = cta_size(op)
    if cta is not None and count > cta[0]:
        raise VerifyException(
            f"'{op.name}' op arrive count (from {source}) is {count}, more than the {cta[0]} threads "
            f"of the CTA ({cta[1]}): the barrier could never complete"
        )


def check_named_barrier_id(op: Operation, barrier_id: int) -> None:
    """A static named-barrier id addresses one of the 16 hardware barriers."""
    if not 0 <= barrier_id < HW_NAMED_BARRIERS:
        raise VerifyException(
            f"'{op.name}' op barrier_id must be a hardware named barrier in "
            f"[0, {HW_NAMED_BARRIERS - 1}], found {barrier_id}"
        )
