"""Static integer values of SSA values, shared by the verifiers and the lowerings."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

CONSTANT_OPS = ("arith.constant", "llvm.mlir.constant")


def constant_int(value: SSAValue | None) -> int | None:
    """The integer ``value`` is statically known to hold (defined by ``arith.constant`` or
    ``llvm.mlir.constant`` of an integer), else None."""
    owner = value.owner if value is not None else None
    if isinstance(owner, Operation) and owner.name in CONSTANT_OPS:
        attr = owner.properties.get("value")
        if attr is None:  # not `or`: IntegerAttr(0) is falsy
            attr = owner.attributes.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None
