"""What the NVVM dialect's op modules (:mod:`.nvvm`, :mod:`.nvvm_payload`, :mod:`.nvvm_tcgen05`)
share: address spaces and pointer types, the side effects of a memory op, the operand checks of
their verifiers and the ``#nvvm.<mnemonic><value>`` enum syntax.  Imports none of them."""

from __future__ import annotations

from xdsl.dialects.builtin import IntAttr
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import SSAValue
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.constants import constant_int

GENERIC, GLOBAL, SHARED, SHARED_CLUSTER = 0, 1, 3, 7
SPACE_NAMES = {GENERIC: "generic", GLOBAL: "global", SHARED: "shared::cta", SHARED_CLUSTER: "shared::cluster"}

PTR = LLVMPointerType()
PTR_GLOBAL = LLVMPointerType(IntAttr(GLOBAL))
PTR_SHARED = LLVMPointerType(IntAttr(SHARED))
PTR_SHARED_CLUSTER = LLVMPointerType(IntAttr(SHARED_CLUSTER))

SIDE_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())

# discardable function attributes (upstream names) the backend turns into PTX directives
# (re-exported by :mod:`tileorch.dialects.nvvm`)
KERNEL_ATTR = "nvvm.kernel"
MAXNTID_ATTR = "nvvm.maxntid"
REQNTID_ATTR = "nvvm.reqntid"
MINCTASM_ATTR = "nvvm.minctasm"
MAXNREG_ATTR = "nvvm.maxnreg"
CLUSTER_DIM_ATTR = "nvvm.cluster_dim"


def address_space(value: SSAValue) -> int | None:
    """The address space of a ``!llvm.ptr`` value, or None for a non-pointer."""
    t = value.type
    if not isinstance(t, LLVMPointerType):
        return None
    space = t.addr_space
    return space.data if hasattr(space, "data") else 0


def check_space(value: SSAValue, allowed: tuple[int, ...], what: str) -> int:
    space = address_space(value)
    if space not in allowed:
        names = " or ".join(f"{LLVMPointerType(IntAttr(s)) if s else PTR} ({SPACE_NAMES[s]})" for s in allowed)
        raise VerifyException(f"{what} must be {names}, got {value.type}")
    return space


def check_int_range(n: int | None, lo: int, hi: int, what: str) -> None:
    """Raises ``<what> must be in [lo, hi], got n`` unless ``n`` is None or in range."""
    if n is not None and not lo <= n <= hi:
        raise VerifyException(f"{what} must be in [{lo}, {hi}], got {n}")


def check_range(value: SSAValue | None, lo: int, hi: int, what: str) -> None:
    """:func:`check_int_range` of the value when it is a constant (a non-constant passes)."""
    check_int_range(constant_int(value), lo, hi, what)


def check_positive_multiple(value: SSAValue | None, k: int, what: str, unit: str = "") -> None:
    """Raises ``<what> must be a positive multiple of <k><unit>, got n`` when the value is a
    constant ``n`` that is not (a non-constant passes)."""
    n = constant_int(value)
    if n is not None and (n <= 0 or n % k):
        raise VerifyException(f"{what} must be a positive multiple of {k}{unit}, got {n}")


class AngleBracketEnum:
    """Prints an enum attribute as upstream's ``#nvvm.<mnemonic><value>`` (e.g. ``#nvvm.mem_scope<cta>``)."""

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            return parser.parse_str_enum(cls.enum_type)
