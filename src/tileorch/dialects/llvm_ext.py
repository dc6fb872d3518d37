"""The ``llvm`` ops xDSL 0.74 lacks, and the extended ``llvm`` dialect that carries them.

Added (names, properties and syntax as in upstream MLIR's LLVM dialect):
``llvm.addrspacecast``, ``llvm.fptosi``, ``llvm.fptoui``, ``llvm.uitofp``,
``llvm.mlir.poison``, ``llvm.extractelement``, ``llvm.fence``, ``llvm.atomicrmw``,
``llvm.cmpxchg``, and a
``llvm.load`` that also keeps ``volatile`` and ``syncscope``.  Atomic orderings use
upstream's integer encoding (``monotonic`` = 2 ... ``seq_cst`` = 7).

``registry.DIALECTS["llvm"]`` points at :data:`ExtendedLLVM`, which is xDSL's dialect
with these ops added (our ``llvm.load`` replaces xDSL's).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import ClassVar

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (I64, ArrayAttr, IntAttr, IntegerAttr, SignlessIntegerConstraint, StringAttr,
                                   UnitAttr, VectorType, i1, i64)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (AnyAttr, IRDLOperation, RangeOf, VarConstraint, irdl_op_definition, operand_def, opt_prop_def,
                       prop_def, result_def, traits_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (EffectInstance, MemoryEffect, MemoryEffectKind, MemoryReadEffect, MemoryWriteEffect,
                         NoMemoryEffect)
from xdsl.utils.exceptions import VerifyException

ORDERINGS: dict[str, int] = {
    "not_atomic": 0,
    "unordered": 1,
    "monotonic": 2,
    "acquire": 4,
    "release": 5,
    "acq_rel": 6,
    "seq_cst": 7,
}
ORDERING_NAMES = {v: k for k, v in ORDERINGS.items()}

# upstream AtomicBinOp encoding
ATOMIC_BIN_OPS: dict[str, int] = {
    "xchg": 0, "add": 1, "sub": 2, "_and": 3, "nand": 4, "_or": 5, "_xor": 6,
    "max": 7, "min": 8, "umax": 9, "umin": 10, "fadd": 11, "fsub": 12,
    "fmax": 13, "fmin": 14, "uinc_wrap": 15, "udec_wrap": 16,
}
ATOMIC_BIN_OP_NAMES = {v: k for k, v in ATOMIC_BIN_OPS.items()}


def _ordering_attr(name: str) -> IntegerAttr:
    return IntegerAttr(ORDERINGS[name], i64)


def _parse_ordering(parser: Parser) -> IntegerAttr:
    word = parser.parse_identifier(" (atomic ordering)")
    if word not in ORDERINGS:
        parser.raise_error(f"unknown atomic ordering '{word}'")
    return _ordering_attr(word)


def _parse_syncscope(parser: Parser) -> StringAttr | None:
    if parser.parse_optional_keyword("syncscope") is None:
        return None
    with parser.in_parens():
        return StringAttr(parser.parse_str_literal())


def _print_syncscope(printer: Printer, scope: StringAttr | None) -> None:
    if scope is not None:
        printer.print_string(f' syncscope("{scope.data}")')


def _syncscope_prop(syncscope: str | None) -> dict[str, Attribute]:
    """The ``syncscope`` property of a builder's optional ``syncscope`` argument."""
    return {"syncscope": StringAttr(syncscope)} if syncscope is not None else {}


def _parse_atomic(parser: Parser) -> tuple[int, StringAttr | None]:
    """``atomic (syncscope("..."))? <ordering>`` of a load or store: (ordering, syncscope), or
    (0, None) for a plain access."""
    if parser.parse_optional_keyword("atomic") is None:
        return 0, None
    scope = _parse_syncscope(parser)
    return _parse_ordering(parser).value.data, scope


def _print_atomic(printer: Printer, ordering: int, scope: StringAttr | None) -> None:
    """The inverse of :func:`_parse_atomic` (nothing for ordering 0)."""
    if ordering != 0:
        printer.print_string(" atomic")
        _print_syncscope(printer, scope)
        printer.print_string(f" {ORDERING_NAMES.get(ordering, ordering)}")  # an invalid one prints as its number (the verifier names it)


def ordering_name(attr: IntegerAttr | None) -> str:
    return ORDERING_NAMES[attr.value.data] if attr is not None else "not_atomic"


class _CastOp(IRDLOperation):
    arg = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$arg attr-dict `:` type($arg) `to` type($result)"

    def __init__(self, arg: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[arg], result_types=[result_type])


@irdl_op_definition
class AddrSpaceCastOp(_CastOp):
    """Pointer cast between address spaces (e.g. shared ``ptr<3>`` <-> generic ``ptr``)."""

    name = "llvm.addrspacecast"

    def verify_(self) -> None:
        src, dst = self.arg.type, self.result.type
        if not isinstance(src, llvm.LLVMPointerType) or not isinstance(dst, llvm.LLVMPointerType):
            raise VerifyException("llvm.addrspacecast casts a pointer to a pointer")


@irdl_op_definition
class FPToSIOp(_CastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(_CastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(_CastOp):
    name = "llvm.uitofp"


@irdl_op_definition
class PoisonOp(IRDLOperation):
    name = "llvm.mlir.poison"
    res = result_def()
    traits = traits_def(NoMemoryEffect())
    assembly_format = "attr-dict `:` type($res)"

    def __init__(self, result_type: Attribute):
        super().__init__(result_types=[result_type])


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """``%x = llvm.extractelement %vec[%i : i32] : vector<4xf32>``: element ``%i`` of a 1-D vector."""

    name = "llvm.extractelement"
    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())
    vector = operand_def(VectorType.constr(ELEMENT, shape=ArrayAttr.constr(RangeOf(IntAttr).of_length(1))))
    position = operand_def(SignlessIntegerConstraint)
    res = result_def(ELEMENT)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$vector `[` $position `:` type($position) `]` attr-dict `:` type($vector)"

    def __init__(self, vector: SSAValue | Operation, position: SSAValue | Operation):
        vtype = SSAValue.get(vector).type
        assert isinstance(vtype, VectorType)
        super().__init__(operands=[vector, position], result_types=[vtype.element_type])


@irdl_op_definition
class FenceOp(IRDLOperation):
    """``llvm.fence [syncscope("device")] acq_rel``."""

    name = "llvm.fence"
    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, ordering: str, syncscope: str | None = None):
        super().__init__(properties={"ordering": _ordering_attr(ordering), **_syncscope_prop(syncscope)})

    def verify_(self) -> None:
        if ordering_name(self.ordering) not in ("acquire", "release", "acq_rel", "seq_cst"):
            raise VerifyException("fence ordering must be acquire, release, acq_rel or seq_cst")

    def print(self, printer: Printer) -> None:
        _print_syncscope(printer, self.syncscope)
        printer.print_string(f" {ordering_name(self.ordering)}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> FenceOp:
        scope = _parse_syncscope(parser)
        ordering = _parse_ordering(parser)
        op = cls(ORDERING_NAMES[ordering.value.data], scope.data if scope else None)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """``%old = llvm.atomicrmw [volatile] add %ptr, %val [syncscope("device")] monotonic : !llvm.ptr<1>, i32``."""

    name = "llvm.atomicrmw"
    ptr = operand_def(llvm.LLVMPointerType)
    val = operand_def()
    res = result_def()
    bin_op = prop_def(IntegerAttr[I64])
    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr[I64])
    volatile_ = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        bin_op: str,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        ordering: str,
        syncscope: str | None = None,
        volatile: bool = False,
    ):
        props: dict[str, Attribute] = {
            "bin_op": IntegerAttr(ATOMIC_BIN_OPS[bin_op], i64),
            "ordering": _ordering_attr(ordering),
            **_syncscope_prop(syncscope),
        }
        if volatile:
            props["volatile_"] = UnitAttr()
        val_type = SSAValue.get(val).type
        super().__init__(operands=[ptr, val], result_types=[val_type], properties=props)

    def verify_(self) -> None:
        if self.bin_op.value.data not in ATOMIC_BIN_OP_NAMES:
            raise VerifyException(f"unknown atomicrmw operation {self.bin_op.value.data}")
        if ordering_name(self.ordering) in ("not_atomic", "unordered"):
            raise VerifyException("atomicrmw needs an ordering of at least monotonic")
        if self.res.type != self.val.type:
            raise VerifyException("atomicrmw result type must equal the value type")

    def print(self, printer: Printer) -> None:
        if self.volatile_ is not None:
            printer.print_string(" volatile")
        name = ATOMIC_BIN_OP_NAMES[self.bin_op.value.data]
        printer.print_string(f" {name} ")
        printer.print_operand(self.ptr)
        printer.print_string(", ")
        printer.print_operand(self.val)
        _print_syncscope(printer, self.syncscope)
        printer.print_string(f" {ordering_name(self.ordering)}")
        _print_mem_tail(printer, self, [self.ptr.type, self.val.type])

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        volatile = parser.parse_optional_keyword("volatile") is not None
        name = parser.parse_identifier(" (atomicrmw operation)")
        if name not in ATOMIC_BIN_OPS:
            parser.raise_error(f"unknown atomicrmw operation '{name}'")
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        scope = _parse_syncscope(parser)
        ordering = _parse_ordering(parser)
        props, attrs, ptr_type, val_type = _parse_mem_tail(parser, ",")
        op = cls(
            name,
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(val, val_type),
            ORDERING_NAMES[ordering.value.data],
            scope.data if scope else None,
            volatile,
        )
        return _with_mem_props(op, props, attrs)


@irdl_op_definition
class CmpXchgOp(IRDLOperation):
    """``%r = llvm.cmpxchg %ptr, %cmp, %new [syncscope("device")] acq_rel monotonic : !llvm.ptr<1>, i32``.

    The result is ``!llvm.struct<(T, i1)>`` (old value, success flag).
    """

    name = "llvm.cmpxchg"
    ptr = operand_def(llvm.LLVMPointerType)
    cmp = operand_def()
    val = operand_def()
    res = result_def(llvm.LLVMStructType)
    success_ordering = prop_def(IntegerAttr[I64])
    failure_ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr[I64])
    weak = opt_prop_def(UnitAttr)
    volatile_ = opt_prop_def(UnitAttr)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        success: str,
        failure: str,
        syncscope: str | None = None,
    ):
        props: dict[str, Attribute] = {
            "success_ordering": _ordering_attr(success),
            "failure_ordering": _ordering_attr(failure),
            **_syncscope_prop(syncscope),
        }
        val_type = SSAValue.get(val).type
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[llvm.LLVMStructType.from_type_list([val_type, i1])],
            properties=props,
        )

    def verify_(self) -> None:
        if self.cmp.type != self.val.type:
            raise VerifyException("cmpxchg compare and new values must have the same type")
        if ordering_name(self.success_ordering) in ("not_atomic", "unordered"):
            raise VerifyException("cmpxchg success ordering must be at least monotonic")
        if ordering_name(self.failure_ordering) in ("not_atomic", "unordered", "release", "acq_rel"):
            raise VerifyException("cmpxchg failure ordering must be monotonic, acquire or seq_cst")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.cmp, self.val], printer.print_operand)
        _print_syncscope(printer, self.syncscope)
        printer.print_string(
            f" {ordering_name(self.success_ordering)} {ordering_name(self.failure_ordering)}"
        )
        _print_mem_tail(printer, self, [self.ptr.type, self.val.type])

    @classmethod
    def parse(cls, parser: Parser) -> CmpXchgOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        cmp = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        scope = _parse_syncscope(parser)
        success = _parse_ordering(parser)
        failure = _parse_ordering(parser)
        props, attrs, ptr_type, val_type = _parse_mem_tail(parser, ",")
        op = cls(
            parser.resolve_operand(ptr, ptr_type),
            parser.resolve_operand(cmp, val_type),
            parser.resolve_operand(val, val_type),
            ORDERING_NAMES[success.value.data],
            ORDERING_NAMES[failure.value.data],
            scope.data if scope else None,
        )
        return _with_mem_props(op, props, attrs)


def print_mem_props(printer: Printer, op: Operation, names: tuple[str, ...] = ("alignment",)) -> None:
    """Upstream's ``<alignment = 4, nontemporal>`` after a memory op's operands (the properties
    not spelled elsewhere in its syntax)."""
    items = []
    for name in names:
        value = op.properties.get(name)
        if isinstance(value, IntegerAttr):
            items.append(f"{name} = {value.value.data}")
        elif value is not None:
            items.append(name)
    if items:
        printer.print_string(" <" + ", ".join(items) + ">")


def parse_mem_props(parser: Parser) -> dict[str, Attribute]:
    """``<alignment = 4, nontemporal>`` or ``<{alignment = 4 : i64}>`` if present."""
    if parser.parse_optional_punctuation("<") is None:
        return {}
    if parser._current_token.text == "{":
        entries = dict(parser.parse_comma_separated_list(parser.Delimiter.BRACES, parser._parse_attribute_entry))
    else:
        entries = {}

        def entry() -> None:
            name = parser.parse_identifier()
            if parser.parse_optional_punctuation("="):
                entries[name] = IntegerAttr(parser.parse_integer(allow_boolean=False), i64)
            else:
                entries[name] = UnitAttr()

        parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
    parser.parse_punctuation(">")
    return entries


def _take_mem_props(parser: Parser) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """(memory properties, discardable attributes); the older ``{alignment = 4 : i64}`` spelling
    in the attribute dictionary still parses."""
    props = parse_mem_props(parser)
    attrs = parser.parse_optional_attr_dict()
    for name in ("alignment", "nontemporal"):
        if name in attrs:
            props[name] = attrs.pop(name)
    return props, attrs


def _parse_mem_tail(parser: Parser, between: str) -> tuple[dict[str, Attribute], dict[str, Attribute], Attribute, Attribute]:
    """``<mem props>? attr-dict : T0 <between> T1`` (``between``: ``,`` or ``->``) after a memory
    op's operands: (memory properties, discardable attributes, T0, T1)."""
    props, attrs = _take_mem_props(parser)
    parser.parse_punctuation(":")
    first = parser.parse_type()
    parser.parse_punctuation(between)
    return props, attrs, first, parser.parse_type()


def _print_mem_tail(printer: Printer, op: Operation, types: list[Attribute], result: Attribute | None = None,
                    names: tuple[str, ...] = ("alignment",)) -> None:
    """The inverse of :func:`_parse_mem_tail`: the memory properties ``names``, the attribute
    dictionary, ``: types`` (comma-separated) and ``-> result`` when given."""
    print_mem_props(printer, op, names)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute)
    if result is not None:
        printer.print_string(" -> ")
        printer.print_attribute(result)


def _alignment(props: dict[str, Attribute]) -> int | None:
    align = props.get("alignment")
    return align.value.data if isinstance(align, IntegerAttr) else None


def _with_mem_props(op: Operation, props: dict[str, Attribute], attrs: dict[str, Attribute]) -> Operation:
    """``op`` with the parsed ``alignment`` property and discardable attributes."""
    if (align := props.get("alignment")) is not None:
        op.properties["alignment"] = align
    op.attributes |= attrs
    return op


def _print_store(self: llvm.StoreOp, printer: Printer) -> None:
    """``llvm.store volatile %v, %p atomic syncscope("device") release <alignment = 4> : i32, !llvm.ptr<1>``"""
    printer.print_string(" volatile" if self.volatile_ is not None else "")
    printer.print_string(" ")
    printer.print_list([self.value, self.ptr], printer.print_ssa_value)
    _print_atomic(printer, self.ordering.value.data if self.ordering is not None else 0, None)
    _print_mem_tail(printer, self, [self.value.type, self.ptr.type], names=("alignment", "nontemporal"))


def _parse_store(cls, parser: Parser) -> llvm.StoreOp:
    volatile = parser.parse_optional_keyword("volatile") is not None
    value = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    ptr = parser.parse_unresolved_operand()
    ordering, scope = _parse_atomic(parser)
    props, attrs, value_type, ptr_type = _parse_mem_tail(parser, ",")
    op = cls(
        parser.resolve_operand(value, value_type),
        parser.resolve_operand(ptr, ptr_type),
        alignment=_alignment(props),
        ordering=ordering,
        volatile=volatile,
        nontemporal="nontemporal" in props,
    )
    if scope is not None:  # xDSL's llvm.store has no syncscope property
        parser.raise_error("tileorch does not support syncscope on llvm.store")
    op.attributes |= attrs
    return op


def _print_load(self: llvm.LoadOp | LoadOp, printer: Printer) -> None:
    """``llvm.load`` in upstream's syntax: ours and xDSL's own (lowerings build it as well as
    ours; it has no ``volatile_`` and ``syncscope`` properties)."""
    if self.properties.get("volatile_") is not None:
        printer.print_string(" volatile")
    printer.print_string(" ")
    printer.print_ssa_value(self.ptr)
    _print_atomic(printer, self.ordering.value.data, self.properties.get("syncscope"))
    _print_mem_tail(printer, self, [self.ptr.type], self.dereferenced_value.type)


# xDSL's llvm.store and llvm.load (our lowerings build llvm.StoreOp / llvm.LoadOp) print
# upstream's syntax; parsing goes through the registered ops (ours for llvm.load)
llvm.StoreOp.print = _print_store
llvm.StoreOp.parse = classmethod(_parse_store)
llvm.LoadOp.print = _print_load


class _OrderedLoadEffect(MemoryEffect):
    """A load reads memory; a volatile or ordered (monotonic or stronger) one also counts as a
    write, as upstream MLIR models it, so spin loops built from acquire loads survive DCE."""

    @classmethod
    def get_effects(cls, op: Operation) -> AbstractSet[EffectInstance]:
        assert isinstance(op, LoadOp)
        if op.volatile_ is not None or op.ordering.value.data >= ORDERINGS["monotonic"]:
            return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}
        return {EffectInstance(MemoryEffectKind.READ)}


@irdl_op_definition
class LoadOp(IRDLOperation):
    """xDSL's ``llvm.load`` plus upstream's ``volatile_`` and ``syncscope`` properties.

    ``%v = llvm.load volatile %p atomic syncscope("device") acquire <alignment = 4> : !llvm.ptr<1> -> i32``
    """

    name = "llvm.load"
    ptr = operand_def(llvm.LLVMPointerType)
    alignment = opt_prop_def(IntegerAttr[I64])
    ordering = prop_def(IntegerAttr[I64], default_value=IntegerAttr(0, i64))
    volatile_ = opt_prop_def(UnitAttr)
    syncscope = opt_prop_def(StringAttr)
    dereferenced_value = result_def()
    traits = traits_def(_OrderedLoadEffect())

    def __init__(
        self,
        ptr: SSAValue | Operation,
        result_type: Attribute,
        alignment: int | None = None,
        ordering: int = 0,
    ):
        props: dict[str, Attribute] = {"ordering": IntegerAttr(ordering, i64)}
        if alignment is not None:
            props["alignment"] = IntegerAttr(alignment, i64)
        super().__init__(operands=[ptr], result_types=[result_type], properties=props)

    print = _print_load

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        volatile = parser.parse_optional_keyword("volatile") is not None
        ptr = parser.parse_unresolved_operand()
        ordering, scope = _parse_atomic(parser)
        props, attrs, ptr_type, result_type = _parse_mem_tail(parser, "->")
        op = cls(parser.resolve_operand(ptr, ptr_type), result_type, alignment=_alignment(props), ordering=ordering)
        if volatile:
            op.volatile_ = UnitAttr()
        if scope is not None:
            op.syncscope = scope
        op.attributes |= attrs
        return op


EXTRA_OPS: list[type[Operation]] = [
    AddrSpaceCastOp,
    FPToSIOp,
    FPToUIOp,
    UIToFPOp,
    PoisonOp,
    ExtractElementOp,
    FenceOp,
    AtomicRMWOp,
    CmpXchgOp,
    LoadOp,
]

ExtendedLLVM = Dialect(
    "llvm",
    [op for op in llvm.LLVM.operations if op is not llvm.LoadOp] + EXTRA_OPS,
    list(llvm.LLVM.attributes),
)
