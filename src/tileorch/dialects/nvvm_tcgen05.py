"""The ``tcgen05`` family of ``nvvm`` (Blackwell, sm_100a): Tensor Memory (TMEM) allocation,
SMEM->TMEM copy, TMEM loads/stores, the UMMA ``tcgen05.mma`` and its completion ``tcgen05.commit``.

Op names, operand names and order, property names and the attribute spellings
(``#nvvm.cta_group<cta_2>``, ``#nvvm.tcgen05_cp_shape<shape_128x256b>``, ...) follow upstream MLIR's
``NVVMOps.td``; the custom syntax is what upstream prints (checked against ``iree-opt``, LLVM 24git,
by ``tests/unit/test_upstream_mlir.py`` on ``examples/tcgen05_sm100a.mlir``):

* ``nvvm.tcgen05.alloc %addr, %nCols, group = <cta_2> : !llvm.ptr<3>, i32``
* ``nvvm.tcgen05.dealloc %taddr, %nCols : !llvm.ptr<6>, i32`` / ``nvvm.tcgen05.relinquish_alloc_permit group = <cta_2>``
* ``nvvm.tcgen05.fence <before>`` / ``nvvm.tcgen05.wait <load>``
* ``nvvm.tcgen05.commit %mbar, multicast_mask = %m group = <cta_2> : !llvm.ptr<3>, i16``
* ``nvvm.tcgen05.cp %taddr, %smem_desc, shape = shape_64x128b group = <cta_2> multicast = warpx2_01_23 source_format = <b6x16_p32>``
* ``nvvm.tcgen05.shift %taddr, group = <cta_2> : !llvm.ptr<6>``
* ``%v = nvvm.tcgen05.ld %taddr(, %offset)? (pack)? shape = shape_32x32b : vector<4xi32>``
* ``nvvm.tcgen05.st %taddr, %v (unpack)? shape = shape_32x32b : vector<4xi32>``
* ``nvvm.tcgen05.mma %d, %a, %b, %idesc, %enableInputD (scale = %s)? (mask = %m)?, kind = f16,
  cta_group = <cta_2> (collector_a = fill)? (a_shift)? : (!llvm.ptr<6>, i64, i64, i32, i1)``

The older spelling with the properties in the attribute dictionary (``{group = #nvvm.cta_group<cta_2>}``)
is still read.

Verifiers check the PTX ISA rules: a TMEM address is ``!llvm.ptr<6>``; ``cta_group`` is 1 or 2 (the
hardware has no ``cta_group::4``: its control word packs the group into two bits, see seed 003 BG06;
a 4-CTA copy is built from two 2-CTA pairs by ``convert-blackwell-cluster-emitters``); a constant
``nCols`` is a power of two in [32, 512]; copy shapes pair with their multicast modes; ``ld``/``st``
vector lengths match shape x num; the MMA ``disableOutputLane`` mask is ``vector<4xi32>`` for
cta_group 1 and ``vector<8xi32>`` for cta_group 2.  Lowering: :mod:`tileorch.transforms.nvvm_tcgen05_to_llvm`.
"""

from __future__ import annotations

import re
from typing import ClassVar

from xdsl.dialects.builtin import I32, I64, IntAttr, IntegerType, StringAttr, UnitAttr, VectorType, i1, i32, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, irdl_attr_definition, irdl_op_definition, operand_def,
                       opt_operand_def, opt_prop_def, prop_def, result_def, traits_def)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.attr_factory import enum_attr, str_enum
from tileorch.dialects.constants import constant_int
from tileorch.dialects.nvvm_common import GENERIC, SHARED, SIDE_EFFECTS, AngleBracketEnum, address_space
from tileorch.dialects.nvvm_payload import _parse_ptr_type, parse_defined_operand

TENSOR = 6
"""The Tensor Memory address space (``!llvm.ptr<6>``)."""
I16 = IntegerType(16)


def _check_tmem(value: SSAValue, what: str) -> None:
    if address_space(value) != TENSOR:
        raise VerifyException(f"{what} must be a Tensor Memory address !llvm.ptr<6>, got {value.type}")


def _check_ncols(value: SSAValue) -> None:
    n = constant_int(value)
    if n is not None and not (32 <= n <= 512 and n & (n - 1) == 0):
        raise VerifyException(f"nCols must be a power of two in [32, 512], got {n}")


SM100_FAMILY = re.compile(r"sm_(100|101|103|110)[af]$")


def _check_target(op: IRDLOperation) -> None:
    """tcgen05 exists only on the arch-specific Blackwell targets (upstream: ``NVVMRequiresSMa<[100, 101]>``);
    checked when the module declares ``cutlass.target`` (LLVM aborts on any other target)."""
    parent = op.parent_op()
    while parent is not None:
        target = parent.attributes.get("cutlass.target")
        if isinstance(target, StringAttr):
            if not SM100_FAMILY.match(target.data):
                raise VerifyException(f"{op.name} needs an sm_100a-class target (sm_100a, sm_101a, sm_103a, "
                                      f"sm_110a or their 'f' variants), but the module's cutlass.target is {target.data}")
            return
        parent = parent.parent_op()


# --------------------------------------------------------------------------- attributes


@irdl_attr_definition
class CTAGroupKindAttr(ParametrizedAttribute):
    """``#nvvm.cta_group<cta_1>`` / ``<cta_2>``.  Any ``cta_N`` parses, so the op verifiers can
    reject ``cta_4`` with a located diagnostic."""

    name = "nvvm.cta_group"
    n: IntAttr

    def __init__(self, n: int):
        super().__init__(IntAttr(n))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        with parser.in_angle_brackets():
            word = parser.parse_identifier()
        if not word.startswith("cta_") or not word[4:].isdigit():
            parser.raise_error(f"expected cta_1 or cta_2, got {word}")
        return (IntAttr(int(word[4:])),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(f"cta_{self.n.data}")


CTA_1, CTA_2 = CTAGroupKindAttr(1), CTAGroupKindAttr(2)


def cta_group(op: IRDLOperation, key: str = "group") -> int:
    attr = op.properties.get(key)
    return attr.n.data if isinstance(attr, CTAGroupKindAttr) else 1


def _check_group(op: IRDLOperation, key: str = "group") -> int:
    n = cta_group(op, key)
    if n not in (1, 2):
        raise VerifyException(
            f"cta_group must be cta_1 or cta_2, got cta_{n} (tcgen05 has no cta_group::{n} opcode; "
            "a 4-CTA copy is two 2-CTA pairs, see convert-blackwell-cluster-emitters)"
        )
    return n


def _enum(cls_name: str, name: str, *values: str) -> tuple[type, type]:
    """The enum ``cls_name`` of ``values`` and its ``#<name><value>`` attribute class."""
    enum = str_enum(cls_name, *values)
    return enum, enum_attr(name, enum, AngleBracketEnum)


Tcgen05FenceKind, Tcgen05FenceKindAttr = _enum("Tcgen05FenceKind", "nvvm.tcgen05_fence", "before", "after")
Tcgen05WaitKind, Tcgen05WaitKindAttr = _enum("Tcgen05WaitKind", "nvvm.tcgen05_wait", "load", "store")
Tcgen05CpShape, Tcgen05CpShapeAttr = _enum(
    "Tcgen05CpShape", "nvvm.tcgen05_cp_shape",
    "shape_128x256b", "shape_4x256b", "shape_128x128b", "shape_64x128b", "shape_32x128b")
Tcgen05CpMulticast, Tcgen05CpMulticastAttr = _enum(
    "Tcgen05CpMulticast", "nvvm.tcgen05_cp_multicast", "none", "warpx2_02_13", "warpx2_01_23", "warpx4")
Tcgen05CpSrcFormat, Tcgen05CpSrcFormatAttr = _enum(
    "Tcgen05CpSrcFormat", "nvvm.tcgen05_cp_src_fmt", "b6x16_p32", "b4x16_p64")
Tcgen05LdStShape, Tcgen05LdStShapeAttr = _enum(
    "Tcgen05LdStShape", "nvvm.tcgen05_ldst_shape",
    "shape_16x64b", "shape_16x128b", "shape_16x256b", "shape_32x32b", "shape_16x32bx2")
Tcgen05MMAKind, Tcgen05MMAKindAttr = _enum("Tcgen05MMAKind", "nvvm.tcgen05_mma_kind", "f16", "tf32", "f8f6f4", "i8")
Tcgen05MMACollectorOp, Tcgen05MMACollectorOpAttr = _enum(
    "Tcgen05MMACollectorOp", "nvvm.tcgen05_mma_collectorop", "discard", "lastuse", "fill", "use")

# which multicast modes each copy shape allows (PTX ISA, tcgen05.cp)
CP_MULTICAST = {
    "shape_128x256b": ("none",), "shape_4x256b": ("none",), "shape_128x128b": ("none",),
    "shape_64x128b": ("warpx2_02_13", "warpx2_01_23"), "shape_32x128b": ("warpx4",),
}
# registers (32-bit) per thread for .num = x1, and the largest .num, of each ld/st shape
LDST_BASE = {"shape_16x64b": (1, 128), "shape_16x32bx2": (1, 128), "shape_32x32b": (1, 128),
             "shape_16x128b": (2, 64), "shape_16x256b": (4, 32)}

# --------------------------------------------------------------------------- syntax helpers


def _print_types(printer: Printer, values) -> None:
    printer.print_string(" : ")
    printer.print_list([v.type for v in values], printer.print_attribute)


def _group_text(attr) -> str:
    return f"<cta_{attr.n.data}>"


def _print_group(printer: Printer, group: CTAGroupKindAttr, lead: str) -> None:
    """``<lead>group = <cta_N>`` unless ``group`` is the default cta_1."""
    if group != CTA_1:
        printer.print_string(f"{lead}group = {_group_text(group)}")


def _parse_group_value(parser: Parser) -> CTAGroupKindAttr:
    """``<cta_N>`` (upstream's custom syntax) or the full ``#nvvm.cta_group<cta_N>``."""
    if parser.parse_optional_punctuation("<") is None:
        attr = parser.parse_attribute()
        if not isinstance(attr, CTAGroupKindAttr):
            parser.raise_error(f"expected <cta_1> or <cta_2>, got {attr}")
        return attr
    word = parser.parse_identifier()
    parser.parse_punctuation(">")
    if not word.startswith("cta_") or not word[4:].isdigit():
        parser.raise_error(f"expected cta_1 or cta_2, got {word}")
    return CTAGroupKindAttr(int(word[4:]))


def _parse_enum_value(parser: Parser, attr_cls, angle: bool):
    """An enum property in upstream's custom syntax: in angle brackets (``<b6x16_p32>``; the full
    ``#nvvm.<mnemonic><value>`` is accepted there too) or bare (``shape_128x256b``)."""
    if parser.parse_optional_punctuation("<") is not None:
        value = parser.parse_str_enum(attr_cls.enum_type)
        parser.parse_punctuation(">")
        return attr_cls(value)
    if angle:
        attr = parser.parse_attribute()
        if not isinstance(attr, attr_cls):
            parser.raise_error(f"expected <...> or #{attr_cls.name}<...>, got {attr}")
        return attr
    return attr_cls(parser.parse_str_enum(attr_cls.enum_type))


def _keyword_value(parser: Parser, key: str, fn):
    """``key = <value>`` when the next keyword is ``key``, else None."""
    if parser.parse_optional_keyword(key) is None:
        return None
    parser.parse_punctuation("=")
    return fn()


def _required_keyword_value(parser: Parser, key: str, fn):
    """``key = <value>``: a located parse error when the keyword is missing (after a comma)."""
    parser.parse_keyword(key)
    parser.parse_punctuation("=")
    return fn()


def _finish(parser: Parser, op_cls, types: bool = True, parenthesized: bool = False):
    """``attr-dict (: types)?``: discardable attributes (property names found there are taken as
    properties, for modules written in the older ``{group = ...}`` spelling)."""
    attrs = parser.parse_optional_attr_dict()
    if types:
        parser.parse_punctuation(":")
        if parenthesized:
            parser.parse_punctuation("(")
        parser.parse_comma_separated_list(parser.Delimiter.NONE, lambda: _parse_ptr_type(parser))
        if parenthesized:
            parser.parse_punctuation(")")
    props = {k: attrs.pop(k) for k in list(attrs) if k in op_cls.get_irdl_definition().properties}
    return props, attrs


GROUP_DEFAULT = {"group": CTA_1}


def _parse_group(parser: Parser, after_comma: bool) -> dict[str, Attribute]:
    """``{"group": ...}`` of an optional ``group = <cta_N>`` (cta_1 when absent): after a comma
    (``after_comma``; the keyword must then follow it) or as a bare keyword."""
    props = dict(GROUP_DEFAULT)
    if after_comma:
        if parser.parse_optional_punctuation(",") is not None:
            props["group"] = _required_keyword_value(parser, "group", lambda: _parse_group_value(parser))
        return props
    group = _keyword_value(parser, "group", lambda: _parse_group_value(parser))
    if group is not None:
        props["group"] = group
    return props

# --------------------------------------------------------------------------- TMEM allocation


class _GroupTailOp(IRDLOperation):
    """``%a (, %b)* (, group = <cta_2>)? : types`` (upstream's syntax of alloc, dealloc, shift):
    the op's operands, then its ``group`` (default cta_1)."""

    group = prop_def(CTAGroupKindAttr, default_value=CTA_1)
    traits = traits_def(*SIDE_EFFECTS)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        _print_group(printer, self.group, ", ")
        printer.print_op_attributes(self.attributes)
        _print_types(printer, self.operands)

    @classmethod
    def parse(cls, parser: Parser):
        operands = [parse_defined_operand(parser)]
        for _ in cls.get_irdl_definition().operands[1:]:
            parser.parse_punctuation(",")
            operands.append(parse_defined_operand(parser))
        props = _parse_group(parser, after_comma=True)
        more, attrs = _finish(parser, cls)
        return cls.create(operands=operands, properties={**props, **more}, attributes=attrs)


class _AllocLike(_GroupTailOp):
    """``tcgen05.alloc`` / ``dealloc``: an address (declared by the subclass, so that it comes
    first), ``nCols`` and the group; the subclass checks its address in :meth:`check_address`."""

    nCols = operand_def(I32)

    def __init__(self, address, ncols, group: int = 1):
        super().__init__(operands=[address, ncols], properties={"group": CTAGroupKindAttr(group)})

    def check_address(self) -> None:
        raise NotImplementedError

    def verify_(self) -> None:
        _check_target(self)
        _check_group(self)
        self.check_address()
        _check_ncols(self.nCols)


@irdl_op_definition
class Tcgen05AllocOp(_AllocLike):
    """``tcgen05.alloc``: allocate ``nCols`` TMEM columns (all 128 lanes); the TMEM address is written
    to shared memory at ``addr``.  One warp per CTA (cta_group 1) or per peer CTA (cta_group 2)."""

    name = "nvvm.tcgen05.alloc"
    addr = operand_def(LLVMPointerType)

    def check_address(self) -> None:
        if address_space(self.addr) not in (GENERIC, SHARED):
            raise VerifyException(f"tcgen05.alloc writes the TMEM address to !llvm.ptr or !llvm.ptr<3>, got {self.addr.type}")


@irdl_op_definition
class Tcgen05DeallocOp(_AllocLike):
    """``tcgen05.dealloc``: free ``nCols`` columns at TMEM address ``taddr``."""

    name = "nvvm.tcgen05.dealloc"
    taddr = operand_def(LLVMPointerType)

    def check_address(self) -> None:
        _check_tmem(self.taddr, "tcgen05.dealloc address")


@irdl_op_definition
class Tcgen05RelinquishAllocPermitOp(IRDLOperation):
    """``tcgen05.relinquish_alloc_permit``: this CTA will not allocate TMEM again."""

    name = "nvvm.tcgen05.relinquish_alloc_permit"
    group = prop_def(CTAGroupKindAttr, default_value=CTA_1)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, group: int = 1):
        super().__init__(properties={"group": CTAGroupKindAttr(group)})

    def verify_(self) -> None:
        _check_target(self)
        _check_group(self)

    def print(self, printer: Printer) -> None:
        _print_group(printer, self.group, " ")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        props = _parse_group(parser, after_comma=False)
        more, attrs = _finish(parser, cls, types=False)
        return cls.create(properties={**props, **more}, attributes=attrs)


# --------------------------------------------------------------------------- fence, wait


class _KindOp(IRDLOperation):
    """``<before>`` / ``<load>`` (upstream's syntax)."""

    KIND_ATTR: ClassVar[type]
    """The enum attribute of the subclass's ``kind`` property."""
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, kind: str):
        super().__init__(properties={"kind": self.KIND_ATTR(self.KIND_ATTR.enum_type(kind))})

    def verify_(self) -> None:
        _check_target(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" <{self.kind.data.value}>")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        kind = _parse_enum_value(parser, cls.KIND_ATTR, angle=True)
        more, attrs = _finish(parser, cls, types=False)
        return cls.create(properties={"kind": kind, **more}, attributes=attrs)


@irdl_op_definition
class Tcgen05FenceOp(_KindOp):
    """``tcgen05.fence::before_thread_sync`` / ``after_thread_sync``."""

    name = "nvvm.tcgen05.fence"
    KIND_ATTR: ClassVar[type] = Tcgen05FenceKindAttr
    kind = prop_def(Tcgen05FenceKindAttr)


@irdl_op_definition
class Tcgen05WaitOp(_KindOp):
    """``tcgen05.wait::ld`` / ``::st``: wait for this thread's prior TMEM loads / stores."""

    name = "nvvm.tcgen05.wait"
    KIND_ATTR: ClassVar[type] = Tcgen05WaitKindAttr
    kind = prop_def(Tcgen05WaitKindAttr)


# --------------------------------------------------------------------------- commit, shift, cp


@irdl_op_definition
class Tcgen05CommitOp(IRDLOperation):
    """``tcgen05.commit``: mbarrier ``addr`` (of every CTA in ``multicastMask``) gets one arrival when
    all prior async tcgen05 ops of this thread complete."""

    name = "nvvm.tcgen05.commit"
    addr = operand_def(LLVMPointerType)
    multicastMask = opt_operand_def(I16)
    group = prop_def(CTAGroupKindAttr, default_value=CTA_1)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, addr, multicast_mask=None, group: int = 1):
        super().__init__(operands=[addr, [multicast_mask] if multicast_mask is not None else []],
                         properties={"group": CTAGroupKindAttr(group)})

    def verify_(self) -> None:
        _check_target(self)
        _check_group(self)
        if address_space(self.addr) not in (GENERIC, SHARED):
            raise VerifyException(f"tcgen05.commit mbarrier must be !llvm.ptr or !llvm.ptr<3>, got {self.addr.type}")

    def print(self, printer: Printer) -> None:  # upstream: %addr (, multicast_mask = %m)? (group = <cta_N>)?
        printer.print_string(" ")
        printer.print_operand(self.addr)
        if self.multicastMask is not None:
            printer.print_string(", multicast_mask = ")
            printer.print_operand(self.multicastMask)
        _print_group(printer, self.group, " ")
        printer.print_op_attributes(self.attributes)
        _print_types(printer, self.operands)

    @classmethod
    def parse(cls, parser: Parser):
        addr = parse_defined_operand(parser)
        mask = None
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("multicast_mask")
            parser.parse_punctuation("=")
            mask = parse_defined_operand(parser)
        props = _parse_group(parser, after_comma=False)
        more, attrs = _finish(parser, cls)
        return cls.create(operands=[addr] + ([mask] if mask is not None else []),
                          properties={**props, **more}, attributes=attrs)


@irdl_op_definition
class Tcgen05ShiftOp(_GroupTailOp):
    """``tcgen05.shift.down``: shift the 32-byte rows of the TMEM matrix at ``taddr`` down by one
    (upstream: ``%taddr (, group = <cta_N>)? : type``)."""

    name = "nvvm.tcgen05.shift"
    taddr = operand_def(LLVMPointerType)

    def verify_(self) -> None:
        _check_target(self)
        _check_group(self)
        _check_tmem(self.taddr, "tcgen05.shift address")


CP_DEFAULTS = {"group": CTA_1, "multicast": Tcgen05CpMulticastAttr(Tcgen05CpMulticast("none"))}


@irdl_op_definition
class Tcgen05CpOp(IRDLOperation):
    """``tcgen05.cp``: async SMEM -> TMEM copy of the matrix described by ``smem_desc`` to ``taddr``
    (with cta_group 2 into the TMEM of both peer CTAs)."""

    name = "nvvm.tcgen05.cp"
    taddr = operand_def(LLVMPointerType)
    smem_desc = operand_def(I64)
    shape = prop_def(Tcgen05CpShapeAttr)
    group = prop_def(CTAGroupKindAttr, default_value=CTA_1)
    multicast = prop_def(Tcgen05CpMulticastAttr, default_value=CP_DEFAULTS["multicast"])
    srcFormat = opt_prop_def(Tcgen05CpSrcFormatAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, taddr, smem_desc, shape: str, group: int = 1, multicast: str = "none"):
        super().__init__(operands=[taddr, smem_desc], properties={
            "shape": Tcgen05CpShapeAttr(Tcgen05CpShape(shape)), "group": CTAGroupKindAttr(group),
            "multicast": Tcgen05CpMulticastAttr(Tcgen05CpMulticast(multicast))})

    def verify_(self) -> None:
        _check_target(self)
        _check_group(self)
        _check_tmem(self.taddr, "tcgen05.cp destination")
        shape, mc = self.shape.data.value, self.multicast.data.value
        if mc not in CP_MULTICAST[shape]:
            raise VerifyException(f"tcgen05.cp {shape} allows multicast {' or '.join(CP_MULTICAST[shape])}, got {mc}")

    def print(self, printer: Printer) -> None:
        # upstream: %taddr, %desc, shape = S (group = <cta_N>)? (multicast = M)? (source_format = <F>)?
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(f", shape = {self.shape.data.value}")
        _print_group(printer, self.group, " ")
        if self.multicast != CP_DEFAULTS["multicast"]:
            printer.print_string(f" multicast = {self.multicast.data.value}")
        if self.srcFormat is not None:
            printer.print_string(f" source_format = <{self.srcFormat.data.value}>")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        t = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        d = parse_defined_operand(parser)
        props = dict(CP_DEFAULTS)
        if parser.parse_optional_punctuation(",") is not None:
            props["shape"] = _required_keyword_value(parser, "shape", lambda: _parse_enum_value(parser, Tcgen05CpShapeAttr, False))
        for key, prop, fn in (
            ("group", "group", lambda: _parse_group_value(parser)),
            ("multicast", "multicast", lambda: _parse_enum_value(parser, Tcgen05CpMulticastAttr, False)),
            ("source_format", "srcFormat", lambda: _parse_enum_value(parser, Tcgen05CpSrcFormatAttr, True)),
        ):
            value = _keyword_value(parser, key, fn)
            if value is not None:
                props[prop] = value
        more, attrs = _finish(parser, cls, types=False)
        return cls.create(operands=[t, d], properties={**props, **more}, attributes=attrs)


# --------------------------------------------------------------------------- ld, st


def _ldst_num(shape: str, typ: Attribute, what: str) -> int:
    if typ == i32:
        regs = 1
    elif isinstance(typ, VectorType) and typ.element_type == i32 and len(typ.get_shape()) == 1:
        regs = typ.get_shape()[0]
    else:
        raise VerifyException(f"{what} must be i32 or vector<Nxi32>, got {typ}")
    base, top = LDST_BASE[shape]
    num, rem = divmod(regs, base)
    if rem or num < 1 or num > top or num & (num - 1):
        raise VerifyException(
            f"{shape} moves {base} x num registers per thread (num a power of two up to {top}); "
            f"{typ} has {regs}")
    return num


def _check_offset(op) -> None:
    two = op.shape.data.value == "shape_16x32bx2"
    if two and op.offset is None:
        raise VerifyException("shape_16x32bx2 needs the offset of its second 16x32b access")
    if not two and op.offset is not None:
        raise VerifyException("only shape_16x32bx2 takes an offset")


class _LdStOp(IRDLOperation):
    """What ``tcgen05.ld`` and ``tcgen05.st`` share: the ``shape``, the optional ``offset`` (the last
    operand; the subclass declares the ones before it), the unit property ``FLAG`` (``pack`` /
    ``unpack``), the checks and upstream's syntax ``%taddr (, %val)? (, %offset)? (FLAG)? shape = S
    : type``, where the type is that of the registers moved (:meth:`registers`: the ld's result, the
    st's ``val``)."""

    FLAG: ClassVar[str]
    offset = opt_operand_def(I64)
    shape = prop_def(Tcgen05LdStShapeAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def registers(self) -> SSAValue:
        raise NotImplementedError

    def num(self) -> int:
        what = "result" if self.results else "value"
        return _ldst_num(self.shape.data.value, self.registers().type, f"{self.name.removeprefix('nvvm.')} {what}")

    def verify_(self) -> None:
        _check_target(self)
        _check_tmem(self.tmemAddr, f"{self.name.removeprefix('nvvm.')} address")
        self.num()
        _check_offset(self)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        if self.properties.get(self.FLAG) is not None:
            printer.print_string(f" {self.FLAG}")
        printer.print_string(f" shape = {self.shape.data.value}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.registers().type)

    @classmethod
    def parse(cls, parser: Parser):
        """The operands the subclass declares, the optional ``offset``, the flag, the shape, the
        attribute dictionary and the type (the ld's result type; the st's ``val`` has it already)."""
        required = len(cls.get_irdl_definition().operands) - 1
        ops = [parse_defined_operand(parser)]
        for _ in range(required - 1):
            parser.parse_punctuation(",")
            ops.append(parse_defined_operand(parser))
        if parser.parse_optional_punctuation(",") is not None:
            ops.append(parse_defined_operand(parser))
        props = {cls.FLAG: UnitAttr()} if parser.parse_optional_keyword(cls.FLAG) is not None else {}
        shape = _keyword_value(parser, "shape", lambda: _parse_enum_value(parser, Tcgen05LdStShapeAttr, False))
        if shape is not None:
            props["shape"] = shape
        more, attrs = _finish(parser, cls, types=False)
        parser.parse_punctuation(":")
        typ = parser.parse_type()
        return cls.create(operands=ops, result_types=[typ] if cls.get_irdl_definition().results else [],
                          properties={**props, **more}, attributes=attrs)


@irdl_op_definition
class Tcgen05LdOp(_LdStOp):
    """``tcgen05.ld.sync.aligned.<shape>.x<num>.b32``: warp-collective TMEM -> registers load
    (upstream: ``%taddr (, %offset)? (pack)? shape = S : type``)."""

    name = "nvvm.tcgen05.ld"
    FLAG: ClassVar[str] = "pack"
    tmemAddr = operand_def(LLVMPointerType)
    res = result_def()
    pack = opt_prop_def(UnitAttr)

    def __init__(self, taddr, shape: str, result_type: Attribute, offset=None):
        super().__init__(operands=[taddr, [offset] if offset is not None else []], result_types=[result_type],
                         properties={"shape": Tcgen05LdStShapeAttr(Tcgen05LdStShape(shape))})

    def registers(self) -> SSAValue:
        return self.res


@irdl_op_definition
class Tcgen05StOp(_LdStOp):
    """``tcgen05.st.sync.aligned.<shape>.x<num>.b32``: warp-collective registers -> TMEM store
    (upstream: ``%taddr, %val (, %offset)? (unpack)? shape = S : type``)."""

    name = "nvvm.tcgen05.st"
    FLAG: ClassVar[str] = "unpack"
    tmemAddr = operand_def(LLVMPointerType)
    val = operand_def()
    unpack = opt_prop_def(UnitAttr)

    def registers(self) -> SSAValue:
        return self.val


# --------------------------------------------------------------------------- mma


MMA_DEFAULTS = {"collectorOp": Tcgen05MMACollectorOpAttr(Tcgen05MMACollectorOp("discard"))}


@irdl_op_definition
class Tcgen05MMAOp(IRDLOperation):
    """``tcgen05.mma.cta_group::N.kind::K``: ``D (TMEM) = A * B (+ D if enableInputD)``; A from SMEM
    (i64 descriptor) or TMEM (``!llvm.ptr<6>``), B from SMEM, ``idesc`` the instruction descriptor.
    Issued by one thread; completion is tracked with ``tcgen05.commit``."""

    name = "nvvm.tcgen05.mma"
    matrixD = operand_def(LLVMPointerType)
    matrixA = operand_def()
    matrixB = operand_def(I64)
    idesc = operand_def(I32)
    enableInputD = operand_def(i1)
    scaleInputD = opt_operand_def(I64)
    disableOutputLane = opt_operand_def(VectorType)
    kind = prop_def(Tcgen05MMAKindAttr)
    ctaGroup = prop_def(CTAGroupKindAttr)
    collectorOp = prop_def(Tcgen05MMACollectorOpAttr, default_value=MMA_DEFAULTS["collectorOp"])
    aShift = opt_prop_def(UnitAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, d, a, b, idesc, enable_input_d, kind: str = "f16", group: int = 1, mask=None):
        super().__init__(
            operands=[d, a, b, idesc, enable_input_d, [], [mask] if mask is not None else []],
            properties={"kind": Tcgen05MMAKindAttr(Tcgen05MMAKind(kind)), "ctaGroup": CTAGroupKindAttr(group),
                        **MMA_DEFAULTS})

    def a_in_tmem(self) -> bool:
        return address_space(self.matrixA) == TENSOR

    def verify_(self) -> None:
        _check_target(self)
        n = _check_group(self, "ctaGroup")
        _check_tmem(self.matrixD, "tcgen05.mma accumulator D")
        if self.matrixA.type != i64 and not self.a_in_tmem():
            raise VerifyException(f"matrix A must be an i64 SMEM descriptor or a !llvm.ptr<6> TMEM address, got {self.matrixA.type}")
        if self.scaleInputD is not None and self.kind.data.value not in ("f16", "tf32"):
            raise VerifyException(f"scaleInputD is only allowed for kind f16 and tf32, got {self.kind.data.value}")
        if self.scaleInputD is not None:
            s = constant_int(self.scaleInputD)
            if s is not None and not 0 <= s <= 15:
                raise VerifyException(f"scaleInputD must be in [0, 15], got {s}")
        if self.disableOutputLane is not None:
            want = VectorType(i32, [4 * n])
            if self.disableOutputLane.type != want:
                raise VerifyException(f"disableOutputLane must be {want} for cta_{n}, got {self.disableOutputLane.type}")
        if self.aShift is not None and not self.a_in_tmem():
            raise VerifyException("aShift requires matrix A in Tensor Memory")
        if self.collectorOp.data.value != "discard" and self.a_in_tmem():
            raise VerifyException("a collector op other than discard needs matrix A in shared memory")

    def print(self, printer: Printer) -> None:
        # upstream: %d, %a, %b, %idesc, %enableInputD (scale = %s)? (mask = %m)?, kind = K,
        #           cta_group = <cta_N> (collector_a = C)? (a_shift)? : (types)
        printer.print_string(" ")
        printer.print_list([self.matrixD, self.matrixA, self.matrixB, self.idesc, self.enableInputD], printer.print_operand)
        if self.scaleInputD is not None:
            printer.print_string(" scale = ")
            printer.print_operand(self.scaleInputD)
        if self.disableOutputLane is not None:
            printer.print_string(" mask = ")
            printer.print_operand(self.disableOutputLane)
        printer.print_string(f", kind = {self.kind.data.value}, cta_group = {_group_text(self.ctaGroup)}")
        if self.collectorOp != MMA_DEFAULTS["collectorOp"]:
            printer.print_string(f" collector_a = {self.collectorOp.data.value}")
        if self.aShift is not None:
            printer.print_string(" a_shift")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_list([o.type for o in self.operands], printer.print_attribute)
        printer.print_string(")")

    @classmethod
    def parse(cls, parser: Parser):
        ops = [parse_defined_operand(parser)]
        for _ in range(4):
            parser.parse_punctuation(",")
            ops.append(parse_defined_operand(parser))
        scale = _keyword_value(parser, "scale", lambda: parse_defined_operand(parser))
        mask = _keyword_value(parser, "mask", lambda: parse_defined_operand(parser))
        props = dict(MMA_DEFAULTS)
        if parser.parse_optional_punctuation(",") is not None:
            props["kind"] = _required_keyword_value(parser, "kind", lambda: _parse_enum_value(parser, Tcgen05MMAKindAttr, False))
            parser.parse_punctuation(",")
            props["ctaGroup"] = _required_keyword_value(parser, "cta_group", lambda: _parse_group_value(parser))
            collector = _keyword_value(parser, "collector_a",
                                       lambda: _parse_enum_value(parser, Tcgen05MMACollectorOpAttr, False))
            if collector is not None:
                props["collectorOp"] = collector
            if parser.parse_optional_keyword("a_shift") is not None:
                props["aShift"] = UnitAttr()
        more, attrs = _finish(parser, cls, parenthesized=True)
        props = {k: v for k, v in {**props, **more}.items() if v is not None}
        return cls.create(
            operands=[*ops, *([scale] if scale is not None else []), *([mask] if mask is not None else [])],
            properties={**props,
                        "operandSegmentSizes": _segments([1, 1, 1, 1, 1, int(scale is not None), int(mask is not None)])},
            attributes=attrs)


def _segments(sizes):
    from xdsl.dialects.builtin import DenseArrayBase

    return DenseArrayBase.from_list(i32, sizes)


TCGEN05_OPS = [
    Tcgen05AllocOp, Tcgen05DeallocOp, Tcgen05RelinquishAllocPermitOp, Tcgen05FenceOp, Tcgen05WaitOp,
    Tcgen05CommitOp, Tcgen05ShiftOp, Tcgen05CpOp, Tcgen05LdOp, Tcgen05StOp, Tcgen05MMAOp,
]
TCGEN05_ATTRS = [
    CTAGroupKindAttr, Tcgen05FenceKindAttr, Tcgen05WaitKindAttr, Tcgen05CpShapeAttr, Tcgen05CpMulticastAttr,
    Tcgen05CpSrcFormatAttr, Tcgen05LdStShapeAttr, Tcgen05MMAKindAttr, Tcgen05MMACollectorOpAttr,
]
