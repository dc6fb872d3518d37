"""The address-space rule of cutlass operands that are either an ``!llvm.ptr`` or a ``memref``
(a block-striped tile, a generic-barrier semaphore): the pointer form must be in one of the
address spaces the op's lowering can reach; the memref form is checked by the op itself."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.nvvm_common import address_space


def check_pointer_space(op: Operation, value: SSAValue, allowed: tuple[int, ...], expected: str) -> bool:
    """True when ``value`` is an ``!llvm.ptr``, whose address space must then be in ``allowed``
    (else ``'<op>' op expected <expected>, found !llvm.ptr<N>``); False for any other type."""
    space = address_space(value)
    if space is None:
        return False
    if space not in allowed:
        raise VerifyException(f"'{op.name}' op expected {expected}, found !llvm.ptr<{space}>")
    return True
