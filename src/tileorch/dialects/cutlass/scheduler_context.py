"""What the tile-scheduler and MODS verifiers read from an op's surroundings.

Module attributes (project convention, absent = sm_90a and a 1x1x1 cluster):
``cutlass.target = "sm_90a"`` and ``cutlass.cluster_shape = array<i32: X, Y, Z>``, taken from
the closest enclosing op that carries them.  Also: the enclosing ``cutlass.async.exec``,
statically known integer constants, and statically known pointer alignments.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import DenseArrayBase, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int

ASYNC_EXEC = "cutlass.async.exec"
DEFAULT_TARGET = "sm_90a"


def _module_attr(op: Operation, name: str):
    parent = op.parent_op()
    while parent is not None:
        if name in parent.attributes:
            return parent.attributes[name]
        parent = parent.parent_op()
    return None


def target_name(op: Operation) -> str:
    """The ``cutlass.target`` string in effect at ``op``."""
    attr = _module_attr(op, "cutlass.target")
    return attr.data if isinstance(attr, StringAttr) else DEFAULT_TARGET


def target_sm(op: Operation) -> int:
    """The SM number of the target in effect at ``op`` (``sm_100a`` -> 100)."""
    match = re.match(r"sm_(\d+)", target_name(op))
    return int(match.group(1)) if match else 90


MAX_CLUSTER_CTAS = 16
"""The largest (non-portable) thread-block cluster of sm_90/sm_100 (hardware)."""


def cluster_shape(op: Operation) -> tuple[int, int, int]:
    """The ``cutlass.cluster_shape`` in effect at ``op``.  A shape that is no cluster (an extent
    below 1, more than 16 CTAs) raises VerifyException, so that every rule derived from the
    cluster reports it at the op that needs it instead of enumerating a huge cluster."""
    attr = _module_attr(op, "cutlass.cluster_shape")
    if isinstance(attr, DenseArrayBase):
        values = tuple(int(v) for v in attr.get_values())
        if len(values) == 3:
            if min(values) < 1 or values[0] * values[1] * values[2] > MAX_CLUSTER_CTAS:
                raise VerifyException(
                    f"the module's cutlass.cluster_shape {list(values)} is not a cluster: every extent must be "
                    f">= 1 and the cluster at most {MAX_CLUSTER_CTAS} CTAs (hardware)")
            return values  # type: ignore[return-value]
    return (1, 1, 1)


def enclosing_async_exec(op: Operation) -> Operation | None:
    """The closest ``cutlass.async.exec`` ancestor of ``op``."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name == ASYNC_EXEC:
            return parent
        parent = parent.parent_op()
    return None


def known_alignment(pointer: SSAValue) -> int | None:
    """The largest power of two known to divide the address in ``pointer``, or None.

    Known when the pointer is ``llvm.inttoptr`` of an integer constant.
    """
    owner = pointer.owner
    if isinstance(owner, Operation) and owner.name == "llvm.inttoptr" and owner.operands:
        address = constant_int(owner.operands[0])
        if address is not None:
            return address & -address if address else 1 << 62
    return None


def value_name(value: SSAValue) -> str:
    """``%name`` of an SSA value for diagnostics (``%<anonymous>`` without a name hint)."""
    return f"%{value.name_hint}" if value.name_hint else "%<anonymous>"
