"""Static facts only the lowering patterns read: module target, enclosing executor and kernel,
the kernel's thread block, whole-CTA coverage, and an executor mask's thread ranges.

The pipeline facts that the model checker reads too (``pipeline_info``, cluster shape, property
readers) live below the transforms, in :mod:`tileorch.dialects.cutlass.pipeline_facts`.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr
from xdsl.ir import Operation

from tileorch.dialects.cutlass.pipeline_facts import (MAX_MASK_UNITS, UNIT_THREADS, enum_prop, mask_prop, module_of,
                                                      unsigned_mask)

ASYNC_EXEC_NAMES = ("cutlass.async.exec", "nv_tileas.async.exec")
FUNCTION_NAMES = ("func.func", "llvm.func", "nv_tileas.kernel")
SWITCH_NAMES = ("cutlass.pipeline.switch_by_executor", "nv_tileas.async.pipeline.agent_switch")


def target(op: Operation) -> str:
    mod = module_of(op)
    attr = mod.attributes.get("cutlass.target") if mod is not None else None
    return attr.data if attr is not None and hasattr(attr, "data") else "sm_90a"


def enclosing_exec(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent.name not in ASYNC_EXEC_NAMES:
        parent = parent.parent_op()
    return parent


def enclosing_function(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent.name not in FUNCTION_NAMES:
        parent = parent.parent_op()
    return parent


def block_dims(op: Operation, attr_name: str) -> tuple[int, ...] | None:
    """The ``nvvm.reqntid`` / ``nvvm.maxntid`` extents declared by the kernel around ``op``."""
    fn = enclosing_function(op)
    attr = fn.attributes.get(attr_name) if fn is not None else None
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    if isinstance(attr, IntegerAttr):
        return (attr.value.data,)
    return None


def is_1d_block(op: Operation) -> bool:
    """The kernel declares a 1-D ``nvvm.reqntid`` (exact extents): ``tid.x`` is the linear id.
    ``maxntid`` bounds only the product of the extents, so it proves nothing about ``tid.y``."""
    dims = block_dims(op, "nvvm.reqntid")
    return dims is not None and all(d == 1 for d in dims[1:])


def cta_thread_bound(op: Operation) -> int | None:
    """Upper bound of the kernel's threads per CTA (product of ``reqntid`` or ``maxntid``)."""
    for name in ("nvvm.reqntid", "nvvm.maxntid"):
        dims = block_dims(op, name)
        if dims:
            return math.prod(dims)
    return None


def covers_whole_cta(op: Operation) -> bool:
    """Every thread of the CTA executes ``op``, as far as executor regions tell: each enclosing
    ``async.exec`` is a ``cta`` executor or has a mask covering every unit below the kernel's
    declared thread bound, and no enclosing executor switch has more than one arm."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in SWITCH_NAMES and len(parent.regions) > 1:
            return False
        if parent.name in ASYNC_EXEC_NAMES and "cta" not in str(parent.properties.get("executor")):
            bound = cta_thread_bound(op)
            unit = UNIT_THREADS[enum_prop(parent, "executor", "warp")]
            if bound is None:
                return False
            needed = (1 << -(-bound // unit)) - 1
            if mask_prop(parent, "mask", 0) & needed != needed:
                return False
        parent = parent.parent_op()
    return True


def thread_range_of_mask(mask: int, unit_threads: int) -> list[tuple[int, int]]:
    """Contiguous [first, end) thread ranges covered by an executor mask (read as an unsigned
    64-bit set: a negative i64 such as ``0xffffffff00000000`` selects units 32..63)."""
    mask = unsigned_mask(mask)
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    for bit in range(MAX_MASK_UNITS + 1):  # bounded: one more step closes a run ending at bit 63
        if bit < MAX_MASK_UNITS and (mask >> bit) & 1:
            if start is None:
                start = bit
        elif start is not None:
            ranges.append((start * unit_threads, bit * unit_threads))
            start = None
    return ranges
