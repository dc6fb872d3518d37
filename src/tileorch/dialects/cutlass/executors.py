"""Which threads of a CTA run an op: executor masks as thread sets, shared by the verifiers.

An executor mask names units of one kind (thread, warp, warpgroup); a ``cta`` executor names the
whole CTA of ``threads(N)`` threads.  These helpers turn masks into Python-int thread sets (bit t
= thread t), find the CTA size in effect at an op (the innermost ``cta`` executor's ``threads(N)``,
else the kernel's ``nvvm.reqntid`` / ``nvvm.maxntid``) and the executor set that encloses an op
(the closest ``cutlass.async.exec`` or arm of ``cutlass.pipeline.switch_by_executor``).

The limits are the hardware's (not the seeds'): at most 1024 threads per CTA, so at most 32
warps and 8 warp groups; a thread mask is a 64-bit set, so it names threads 0..63.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr
from xdsl.ir import Operation

ASYNC_EXEC = "cutlass.async.exec"
SWITCH = "cutlass.pipeline.switch_by_executor"
MAX_CTA_THREADS = 1024
WARP = 32
WARPGROUP = 128
UNIT_THREADS = {"thread": 1, "warp": WARP, "warpgroup": WARPGROUP}
MAX_UNITS = {"thread": 64, "warp": MAX_CTA_THREADS // WARP, "warpgroup": MAX_CTA_THREADS // WARPGROUP}
UNIT_NAMES = {"thread": "threads", "warp": "warps", "warpgroup": "warp groups"}
MASK64 = (1 << 64) - 1
_EXPAND_CACHE: dict[tuple[int, int], int] = {}


def expand(mask: int, unit: int) -> int:
    """Thread set of a mask whose bit i selects threads [i * unit, (i + 1) * unit)."""
    key = (mask, unit)
    cached = _EXPAND_CACHE.get(key)
    if cached is not None:
        return cached
    block = (1 << unit) - 1
    threads, m = 0, mask & MASK64  # an unsigned bit set: a negative i64 must not loop forever
    for i in range(m.bit_length()):  # at most 64 units
        if (m >> i) & 1:
            threads |= block << (i * unit)
    if len(_EXPAND_CACHE) < 4096:
        _EXPAND_CACHE[key] = threads
    return threads


def highest_unit(mask: int) -> int:
    return mask.bit_length() - 1


def kernel_threads(op: Operation) -> tuple[int, str] | None:
    """(threads per CTA, where it comes from) declared by the function around ``op``."""
    parent = op.parent_op()
    while parent is not None:
        for name in ("nvvm.reqntid", "nvvm.maxntid"):
            attr = parent.attributes.get(name)
            try:
                if isinstance(attr, DenseArrayBase):
                    dims = [int(v) for v in attr.get_values()]
                    if dims and all(d >= 1 for d in dims):
                        return math.prod(dims), name
                elif isinstance(attr, IntegerAttr) and attr.value.data >= 1:
                    return attr.value.data, name
            except (TypeError, ValueError):
                pass
        parent = parent.parent_op()
    return None


def kind_of(op: Operation) -> str | None:
    """The executor kind of a ``cutlass.async.exec`` (None if the op lacks a valid one: it is
    reported by its own verifier, not by the ops nested in it)."""
    try:
        return op.executor_kind()
    except Exception:  # noqa: BLE001 - e.g. a generic-form exec without its executor property
        return None


def mask_of(op: Operation) -> int | None:
    try:
        return op.mask_bits()
    except Exception:  # noqa: BLE001
        return None


def exec_threads_prop(op: Operation) -> int | None:
    threads = op.properties.get("threads")
    return threads.value.data if isinstance(threads, IntegerAttr) else None


def cta_size(op: Operation) -> tuple[int, str] | None:
    """(threads of the CTA, source) at ``op``: an enclosing ``cta`` executor's ``threads(N)``,
    else the kernel's ``nvvm.reqntid`` / ``nvvm.maxntid``."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name == ASYNC_EXEC and kind_of(parent) == "cta":
            n = exec_threads_prop(parent)
            if n is not None and n >= 1:
                return n, f"threads({n}) of the enclosing cta executor"
        parent = parent.parent_op()
    found = kernel_threads(op)
    if found is not None:
        return found[0], f"the kernel's {found[1]}"
    return None


def exec_thread_set(op: Operation) -> int | None:
    """Threads of a ``cutlass.async.exec`` (None for a ``cta`` executor of unknown size)."""
    kind, mask = kind_of(op), mask_of(op)
    if kind is None or mask is None:
        return None
    if kind == "cta":
        n = exec_threads_prop(op)
        return (1 << n) - 1 if n is not None and 1 <= n <= MAX_CTA_THREADS else None
    return expand(mask, UNIT_THREADS[kind])


def nearest_exec_kind(op: Operation) -> str | None:
    parent = op.parent_op()
    while parent is not None:
        if parent.name == ASYNC_EXEC:
            return kind_of(parent)
        parent = parent.parent_op()
    return None


def enclosing_set(op: Operation) -> tuple[int, str, Operation] | None:
    """(threads, description, op) of the executor set that encloses ``op``: the closest
    ``cutlass.async.exec`` or arm of ``switch_by_executor``; None at kernel scope or when unknown."""
    child: Operation = op
    parent = op.parent_op()
    while parent is not None:
        if parent.name == ASYNC_EXEC:
            threads = exec_thread_set(parent)
            if threads is None:
                return None
            return threads, f"the enclosing {kind_of(parent)} executor (mask {mask_of(parent):#x})", parent
        if parent.name == SWITCH:
            region = child.parent_region()
            arm = next((i for i, r in enumerate(parent.arms) if r is region), None)
            kind = nearest_exec_kind(parent)
            if arm is None or kind is None or kind == "cta":
                return None
            try:
                masks = parent.arm_masks(arm)
            except Exception:  # noqa: BLE001 - a switch without valid masks reports itself
                return None
            union = 0
            for m in masks:
                union |= m
            return (expand(union, UNIT_THREADS[kind]),
                    f"arm {arm} of the enclosing switch_by_executor ({kind} mask {union:#x})", parent)
        child = parent
        parent = parent.parent_op()
    return None


def thread_range_text(threads: int) -> str:
    if not threads:
        return "no threads"
    low = (threads & -threads).bit_length() - 1
    high = threads.bit_length() - 1
    return f"threads {low}..{high}"


UNCONDITIONAL_REGION_OPS = ("scf.for", "scf.while", "scf.execute_region", "cutlass.pipeline.produce",
                            "cutlass.pipeline.consume")
"""Region ops whose body every thread that reaches them runs (loops may run zero times, but the
same threads run them)."""


def path_is_unconditional(op: Operation, ancestor: Operation) -> bool:
    """Only loops and the like (:data:`UNCONDITIONAL_REGION_OPS`, single-block) lie between ``op``
    and ``ancestor``: every thread of the ancestor's executor set runs ``op``."""
    parent = op.parent_op()
    while parent is not None and parent is not ancestor:
        if parent.name not in UNCONDITIONAL_REGION_OPS or any(len(r.blocks) > 1 for r in parent.regions):
            return False
        if op.parent_region() is not None and len(op.parent_region().blocks) > 1:
            return False
        op, parent = parent, parent.parent_op()
    return True
