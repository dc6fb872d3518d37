"""The data and math payload ops of ``nvvm``: TMA tensor copies, WGMMA, stmatrix, PDL.

Names, operand order, property names and custom syntax follow upstream MLIR's
``NVVMOps.td`` (checked with upstream ``mlir-opt``/``iree-opt``, see
``../shared/reference/hopper-gemm.md`` §3):

* ``nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %tmap, %mbar, box[%c0, ...]
  (multicast_mask = %m)? (l2_cache_hint = %h)? (predicate = %p)? : !llvm.ptr<7>, !llvm.ptr``
  (tile mode, 1-5 coordinates; ``isCTAOnly`` takes a ``!llvm.ptr<3>`` destination);
* ``nvvm.cp.async.bulk.tensor.global.shared.cta %tmap, %src, box[...] : !llvm.ptr, !llvm.ptr<3>``;
* ``nvvm.cp.async.bulk.tensor.reduce %tmap, %src, box[...], reduction = add : ...``;
* ``nvvm.cp.async.bulk.tensor.prefetch %tmap, box[...] : !llvm.ptr``;
* ``nvvm.prefetch tensormap, %tmap : !llvm.ptr``;
* ``%d = nvvm.wgmma.mma_async %descA, %descB, %c, #nvvm.shape<m = 64, n = N, k = 16>,
  D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>] : !llvm.struct<...> -> !llvm.struct<...>``;
* ``nvvm.stmatrix %p, %r0, ... layout = <row>, shape = <m = 8, n = 8>, element_type = <b16> : !llvm.ptr<3>, i32, ...``;
* ``nvvm.griddepcontrol wait`` / ``launch_dependents``;
* ``%r = nvvm.ldmatrix %p`` (generic syntax here): ``ldmatrix.sync.aligned.m8n8.x{1,2,4}.shared.b16``;
* ``%d = nvvm.mma.sync`` (generic syntax here): one warp's ``mma.sync.aligned.m16n8kK.row.col``,
  operands ``A``, ``B``, ``C`` (the thread's fragment registers), the result an ``!llvm.struct`` of
  the D fragment; ``shape``, ``layoutA``/``layoutB`` and ``multiplicandAPtxType``/``...BPtxType``.

Verifiers check what the hardware requires (PTX ISA): WGMMA shapes m64nNk16 for f16/bf16 with
N a multiple of 8 in [8, 256], an accumulator struct of N/2 ``f32`` (N/4 ``f16``... as ``i32``
pairs is not supported), 1-5 TMA coordinates, ``i16`` multicast masks, x1/x2/x4 stmatrix.
Lowering: :mod:`tileorch.transforms.nvvm_to_llvm` (intrinsics; inline asm for ``wgmma.mma_async``).
"""

from __future__ import annotations

from enum import StrEnum

from xdsl.dialects.builtin import (I32, I64, Float16Type, Float32Type, IntAttr, IntegerAttr, IntegerType, UnitAttr,
                                   VectorType, i1, i32, i64)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, irdl_attr_definition,
                       irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def, result_def, traits_def,
                       var_operand_def)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

# Kept free of imports from ``tileorch.dialects.nvvm`` (which imports this module to build the
# dialect): the shared helpers live in nvvm_common.
from tileorch.dialects.attr_factory import enum_attr
from tileorch.dialects.nvvm_common import (GLOBAL, SHARED, SHARED_CLUSTER, SIDE_EFFECTS, AngleBracketEnum,  # noqa: E402
                                           address_space, check_space)


def _resolve_defined(parser: Parser, operand: UnresolvedOperand) -> SSAValue:
    values = parser.ssa_values.get(operand.operand_name)
    if values is None:
        parser.raise_error("SSA value used before assignment", operand.span)
    if operand.index >= len(values):
        parser.raise_error(
            f"SSA value tuple index out of bounds. Tuple is of size {len(values)} but tried to access "
            f"element {operand.index}.", operand.span)
    return parser.resolve_operand(operand, values[operand.index].type)


def parse_defined_operand(parser: Parser, msg: str = "Expected an operand.") -> SSAValue:
    """An operand whose type the op's custom syntax does not spell before it (the types follow
    the ``:`` or are implied): it must be defined before its use, and resolves with that value's
    type.  xDSL deprecated ``Parser.parse_operand()`` without a type; this is its behaviour on
    the non-deprecated API (``parse_unresolved_operand`` + ``resolve_operand``)."""
    return _resolve_defined(parser, parser.parse_unresolved_operand(msg))


def parse_optional_defined_operand(parser: Parser) -> SSAValue | None:
    """:func:`parse_defined_operand` when the next token is an operand, else ``None``."""
    operand = parser.parse_optional_unresolved_operand()
    return None if operand is None else _resolve_defined(parser, operand)


I16 = IntegerType(16)
MAX_TMA_DIMS = 5


# --------------------------------------------------------------------------- attributes


class TMALoadMode(StrEnum):
    TILE = "tile"
    IM2COL = "im2col"


TMALoadModeAttr = enum_attr("nvvm.tma_load_mode", TMALoadMode, AngleBracketEnum, doc="``#nvvm.tma_load_mode<tile>``")


class TMAStoreMode(StrEnum):
    TILE = "tile"
    IM2COL = "im2col"


TMAStoreModeAttr = enum_attr("nvvm.tma_store_mode", TMAStoreMode, AngleBracketEnum, doc="``#nvvm.tma_store_mode<tile>``")


class TMAReduxKind(StrEnum):
    ADD = "add"
    MIN = "min"
    MAX = "max"
    INC = "inc"
    DEC = "dec"
    AND = "and"
    OR = "or"
    XOR = "xor"


TMAReduxKindAttr = enum_attr("nvvm.tma_redux_kind", TMAReduxKind, AngleBracketEnum, doc="``#nvvm.tma_redux_kind<add>``")


class WGMMAType(StrEnum):
    F16 = "f16"
    BF16 = "bf16"
    F32 = "f32"
    TF32 = "tf32"
    S32 = "s32"
    S8 = "s8"
    U8 = "u8"
    E4M3 = "e4m3"
    E5M2 = "e5m2"


WGMMATypeAttr = enum_attr("nvvm.wgmma_type", WGMMAType, AngleBracketEnum, doc="``#nvvm.wgmma_type<bf16>``")


class WGMMAScaleIn(StrEnum):
    ONE = "one"
    NEG = "neg"


WGMMAScaleInAttr = enum_attr("nvvm.wgmma_scale_in", WGMMAScaleIn, AngleBracketEnum, doc="``#nvvm.wgmma_scale_in<one>``")


class WGMMAScaleOut(StrEnum):
    ZERO = "zero"
    ONE = "one"


WGMMAScaleOutAttr = enum_attr("nvvm.wgmma_scale_out", WGMMAScaleOut, AngleBracketEnum, doc="``#nvvm.wgmma_scale_out<one>``")


class MMATypes(StrEnum):
    """Element types of ``mma.sync`` operands (upstream ``#nvvm.mma_type``)."""

    F16 = "f16"
    BF16 = "bf16"
    TF32 = "tf32"
    F32 = "f32"
    S8 = "s8"
    U8 = "u8"
    S32 = "s32"
    E4M3 = "e4m3"
    E5M2 = "e5m2"


MMATypesAttr = enum_attr("nvvm.mma_type", MMATypes, AngleBracketEnum, doc="``#nvvm.mma_type<f16>``")


class MMALayout(StrEnum):
    ROW = "row"
    COL = "col"


MMALayoutAttr = enum_attr("nvvm.mma_layout", MMALayout, AngleBracketEnum, doc="``#nvvm.mma_layout<row>``")


class LdStMatrixEltType(StrEnum):
    B16 = "b16"
    B8 = "b8"
    B8X16_B4X16_P64 = "b8x16.b4x16_p64"
    B8X16_B6X16_P32 = "b8x16.b6x16_p32"


LdStMatrixEltTypeAttr = enum_attr("nvvm.ld_st_matrix_elt_type", LdStMatrixEltType, AngleBracketEnum, doc="``#nvvm.ld_st_matrix_elt_type<b16>``")


class GridDepAction(StrEnum):
    WAIT = "wait"
    LAUNCH_DEPENDENTS = "launch_dependents"


GridDepActionAttr = enum_attr("nvvm.grid_dep_action", GridDepAction, AngleBracketEnum, doc="``#nvvm.grid_dep_action<wait>``")


def _parse_dims(parser: AttrParser, names: tuple[str, ...]) -> list[IntAttr]:
    values = []
    with parser.in_angle_brackets():
        for i, key in enumerate(names):
            if i:
                parser.parse_punctuation(",")
            parser.parse_keyword(key)
            parser.parse_punctuation("=")
            values.append(IntAttr(parser.parse_integer(allow_negative=False)))
    return values


def _print_dims(printer: Printer, names: tuple[str, ...], values: tuple[IntAttr, ...]) -> None:
    with printer.in_angle_brackets():
        printer.print_string(", ".join(f"{k} = {v.data}" for k, v in zip(names, values)))


@irdl_attr_definition
class MMAShapeAttr(ParametrizedAttribute):
    """``#nvvm.shape<m = 64, n = 128, k = 16>``"""

    name = "nvvm.shape"
    m: IntAttr
    n: IntAttr
    k: IntAttr

    def __init__(self, m: int, n: int, k: int):
        super().__init__(IntAttr(m), IntAttr(n), IntAttr(k))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        return tuple(_parse_dims(parser, ("m", "n", "k")))

    def print_parameters(self, printer: Printer) -> None:
        _print_dims(printer, ("m", "n", "k"), (self.m, self.n, self.k))


@irdl_attr_definition
class LdStMatrixShapeAttr(ParametrizedAttribute):
    """``#nvvm.ld_st_matrix_shape<m = 8, n = 8>``"""

    name = "nvvm.ld_st_matrix_shape"
    m: IntAttr
    n: IntAttr

    def __init__(self, m: int, n: int):
        super().__init__(IntAttr(m), IntAttr(n))

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        return tuple(_parse_dims(parser, ("m", "n")))

    def print_parameters(self, printer: Printer) -> None:
        _print_dims(printer, ("m", "n"), (self.m, self.n))


# --------------------------------------------------------------------------- shared syntax helpers


def _parse_ptr_type(parser: Parser) -> Attribute:
    """A pointer type, also in the elided form upstream MLIR prints after ``!llvm.ptr, `` (``<3>``)."""
    if parser.parse_optional_punctuation("<") is not None:
        space = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation(">")
        return LLVMPointerType(IntAttr(space))
    return parser.parse_type()


def _parse_box(parser: Parser) -> list[SSAValue]:
    parser.parse_keyword("box")
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, lambda: parse_defined_operand(parser))


def _print_box(printer: Printer, coords) -> None:
    printer.print_string("box[")
    printer.print_list(coords, printer.print_operand)
    printer.print_string("]")


def _parse_named_operand(parser: Parser, keyword: str) -> SSAValue | None:
    if parser.parse_optional_keyword(keyword) is None:
        return None
    parser.parse_punctuation("=")
    return parse_defined_operand(parser)


def _print_named_operands(printer: Printer, pairs) -> None:
    """`` key = %value`` for each ``(key, value)`` whose value is not None."""
    for key, value in pairs:
        if value is not None:
            printer.print_string(f" {key} = ")
            printer.print_operand(value)


def _print_props_and_types(printer: Printer, op: IRDLOperation, types, skip: tuple[str, ...] = ()) -> None:
    """The op's properties (less ``operandSegmentSizes`` and ``skip``, which its syntax spells) and
    discardable attributes in one dictionary, then `` : types``."""
    props = {k: v for k, v in op.properties.items() if k not in ("operandSegmentSizes", *skip)}
    printer.print_op_attributes({**props, **op.attributes})
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute)


def _parse_attrs_and_ptr_types(parser: Parser, count: int) -> dict[str, Attribute]:
    """``attr-dict : ptr (, ptr)*`` with ``count`` pointer types (read and dropped: the operands
    are typed already); the attribute dictionary."""
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    _parse_ptr_type(parser)
    for _ in range(count - 1):
        parser.parse_punctuation(",")
        _parse_ptr_type(parser)
    return attrs


def _take_mode(op: IRDLOperation, attrs: dict[str, Attribute]) -> IRDLOperation:
    """``op`` with the ``mode`` property found in its parsed attribute dictionary ``attrs`` and the
    other entries as discardable attributes."""
    if "mode" in attrs:
        op.properties["mode"] = attrs.pop("mode")
    op.attributes |= attrs
    return op


def _check_coords(coords, what: str = "box") -> None:
    """1 to 5 coordinates (each i32: the ops' operand constraint, checked before this)."""
    if not 1 <= len(coords) <= MAX_TMA_DIMS:
        raise VerifyException(f"{what} must have 1 to {MAX_TMA_DIMS} coordinates, got {len(coords)}")


def _check_tmap(value: SSAValue) -> None:
    if not isinstance(value.type, LLVMPointerType) or address_space(value) != 0:
        raise VerifyException(f"the tensor map must be a generic !llvm.ptr (a grid-constant kernel parameter), got {value.type}")


def _check_mode(op: IRDLOperation) -> None:
    mode = op.properties.get("mode")
    if mode is not None and mode.data.value != "tile":
        raise VerifyException(f"only tile mode is supported, got {mode.data.value}")


# --------------------------------------------------------------------------- TMA


@irdl_op_definition
class CpAsyncBulkTensorGlobalToSharedClusterOp(IRDLOperation):
    """TMA load of one box of the tensor ``tmaDescriptor`` at ``coordinates`` into shared memory,
    completing its bytes on mbarrier ``mbar`` (``cp.async.bulk.tensor.Nd.shared::cluster.global``).
    With ``multicastMask`` the box lands at the same offset in every CTA of the mask."""

    name = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
    dstMem = operand_def(LLVMPointerType)
    tmaDescriptor = operand_def(LLVMPointerType)
    coordinates = var_operand_def(I32)
    mbar = operand_def(LLVMPointerType)
    im2colOffsets = var_operand_def(I16)
    multicastMask = opt_operand_def(I16)
    l2CacheHint = opt_operand_def(I64)
    predicate = opt_operand_def(i1)
    mode = opt_prop_def(TMALoadModeAttr)
    isCTAOnly = opt_prop_def(UnitAttr)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, dst, tmap, coords, mbar, multicast_mask=None, l2_cache_hint=None, predicate=None):
        props: dict[str, Attribute] = {}
        if address_space(SSAValue.get(dst)) == SHARED:
            props["isCTAOnly"] = UnitAttr()
        super().__init__(
            operands=[dst, tmap, list(coords), mbar, [],
                      [multicast_mask] if multicast_mask is not None else [],
                      [l2_cache_hint] if l2_cache_hint is not None else [],
                      [predicate] if predicate is not None else []],
            properties=props,
        )

    def verify_(self) -> None:
        _check_mode(self)
        expected = SHARED if self.isCTAOnly is not None else SHARED_CLUSTER
        check_space(self.dstMem, (expected,), "destination (isCTAOnly selects !llvm.ptr<3>)" if expected == SHARED else "destination")
        _check_tmap(self.tmaDescriptor)
        check_space(self.mbar, (SHARED,), "mbarrier")
        _check_coords(self.coordinates)
        if self.im2colOffsets:
            raise VerifyException("im2col offsets are only allowed in im2col mode")
        if self.isCTAOnly is not None and self.multicastMask is not None:
            raise VerifyException("a CTA-only copy cannot multicast")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.dstMem, self.tmaDescriptor, self.mbar], printer.print_operand)
        printer.print_string(", ")
        _print_box(printer, self.coordinates)
        _print_named_operands(printer, (("multicast_mask", self.multicastMask), ("l2_cache_hint", self.l2CacheHint),
                                        ("predicate", self.predicate)))
        if self.isCTAOnly is not None:
            printer.print_string(" cta_only = true")
        _print_props_and_types(printer, self, [self.dstMem.type, self.tmaDescriptor.type], skip=("isCTAOnly",))

    @classmethod
    def parse(cls, parser: Parser):
        dst = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        tmap = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        mbar = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        coords = _parse_box(parser)
        mask = _parse_named_operand(parser, "multicast_mask")
        hint = _parse_named_operand(parser, "l2_cache_hint")
        pred = _parse_named_operand(parser, "predicate")
        cta_only = False
        if parser.parse_optional_keyword("cta_only") is not None:
            parser.parse_punctuation("=")
            cta_only = parser.parse_boolean()
        attrs = _parse_attrs_and_ptr_types(parser, 2)
        op = cls(dst, tmap, coords, mbar, mask, hint, pred)
        if cta_only:
            op.properties["isCTAOnly"] = UnitAttr()
        else:
            op.properties.pop("isCTAOnly", None)
        return _take_mode(op, attrs)


class _TensorFromSharedOp(IRDLOperation):
    """Shared parts of the shared::cta -> global tensor ops (store, reduce); each subclass
    declares its operands itself (xDSL orders subclass operands before inherited ones)."""

    def verify_(self) -> None:
        _check_mode(self)
        _check_tmap(self.tmaDescriptor)
        check_space(self.srcMem, (SHARED,), "source")
        _check_coords(self.coordinates)

    def _print_head(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.tmaDescriptor, self.srcMem], printer.print_operand)
        printer.print_string(", ")
        _print_box(printer, self.coordinates)

    def _print_tail(self, printer: Printer, skip: tuple[str, ...]) -> None:
        _print_named_operands(printer, (("l2_cache_hint", self.l2CacheHint),))
        _print_props_and_types(printer, self, [self.tmaDescriptor.type, self.srcMem.type], skip)

    @classmethod
    def _parse_head(cls, parser: Parser):
        tmap = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        src = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        return tmap, src, _parse_box(parser)

    @classmethod
    def _parse_tail(cls, parser: Parser):
        hint = _parse_named_operand(parser, "l2_cache_hint")
        return hint, _parse_attrs_and_ptr_types(parser, 2)


@irdl_op_definition
class CpAsyncBulkTensorSharedCTAToGlobalOp(_TensorFromSharedOp):
    """TMA store of a shared-memory box to the tensor at ``coordinates`` (out-of-bounds parts of
    the box are clipped by the hardware); completes in the issuing thread's bulk async-group."""

    name = "nvvm.cp.async.bulk.tensor.global.shared.cta"
    tmaDescriptor = operand_def(LLVMPointerType)
    srcMem = operand_def(LLVMPointerType)
    coordinates = var_operand_def(I32)
    l2CacheHint = opt_operand_def(I64)
    predicate = opt_operand_def(i1)
    mode = opt_prop_def(TMAStoreModeAttr)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, tmap, src, coords, l2_cache_hint=None, predicate=None):
        super().__init__(operands=[tmap, src, list(coords), [l2_cache_hint] if l2_cache_hint is not None else [],
                                   [predicate] if predicate is not None else []])

    def verify_(self) -> None:
        super().verify_()
        if self.predicate is not None:
            raise VerifyException("a predicated TMA store is not supported; branch around it")

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        self._print_tail(printer, ())

    @classmethod
    def parse(cls, parser: Parser):
        tmap, src, coords = cls._parse_head(parser)
        hint, attrs = cls._parse_tail(parser)
        return _take_mode(cls(tmap, src, coords, hint), attrs)


@irdl_op_definition
class CpAsyncBulkTensorReduceOp(_TensorFromSharedOp):
    """TMA reduction of a shared-memory box into the tensor (``cp.reduce.async.bulk.tensor``)."""

    name = "nvvm.cp.async.bulk.tensor.reduce"
    tmaDescriptor = operand_def(LLVMPointerType)
    srcMem = operand_def(LLVMPointerType)
    coordinates = var_operand_def(I32)
    l2CacheHint = opt_operand_def(I64)
    redKind = prop_def(TMAReduxKindAttr)
    mode = opt_prop_def(TMAStoreModeAttr)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, tmap, src, coords, kind: TMAReduxKind = TMAReduxKind.ADD, l2_cache_hint=None):
        super().__init__(operands=[tmap, src, list(coords), [l2_cache_hint] if l2_cache_hint is not None else []],
                         properties={"redKind": TMAReduxKindAttr(kind)})

    def print(self, printer: Printer) -> None:
        self._print_head(printer)
        printer.print_string(f", reduction = {self.redKind.data.value}")
        self._print_tail(printer, ("redKind",))

    @classmethod
    def parse(cls, parser: Parser):
        tmap, src, coords = cls._parse_head(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("reduction")
        parser.parse_punctuation("=")
        kind = parser.parse_str_enum(TMAReduxKind)
        hint, attrs = cls._parse_tail(parser)
        return _take_mode(cls(tmap, src, coords, kind, hint), attrs)


@irdl_op_definition
class CpAsyncBulkTensorPrefetchOp(IRDLOperation):
    """Prefetch one box of a tensor into L2 (``cp.async.bulk.prefetch.tensor``)."""

    name = "nvvm.cp.async.bulk.tensor.prefetch"
    tmaDescriptor = operand_def(LLVMPointerType)
    coordinates = var_operand_def(I32)
    im2colOffsets = var_operand_def(I16)
    l2CacheHint = opt_operand_def(I64)
    mode = opt_prop_def(TMALoadModeAttr)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, tmap, coords, l2_cache_hint=None):
        super().__init__(operands=[tmap, list(coords), [], [l2_cache_hint] if l2_cache_hint is not None else []])

    def verify_(self) -> None:
        _check_mode(self)
        _check_tmap(self.tmaDescriptor)
        _check_coords(self.coordinates)
        if self.im2colOffsets:
            raise VerifyException("im2col offsets are only allowed in im2col mode")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tmaDescriptor)
        printer.print_string(", ")
        _print_box(printer, self.coordinates)
        _print_named_operands(printer, (("l2_cache_hint", self.l2CacheHint),))
        _print_props_and_types(printer, self, [self.tmaDescriptor.type])

    @classmethod
    def parse(cls, parser: Parser):
        tmap = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        coords = _parse_box(parser)
        hint = _parse_named_operand(parser, "l2_cache_hint")
        return _take_mode(cls(tmap, coords, hint), _parse_attrs_and_ptr_types(parser, 1))


@irdl_op_definition
class PrefetchOp(IRDLOperation):
    """``nvvm.prefetch tensormap, %tmap : !llvm.ptr`` = ``prefetch.tensormap`` (only the tensormap
    form of upstream's ``nvvm.prefetch`` is provided)."""

    name = "nvvm.prefetch"
    addr = operand_def(LLVMPointerType)
    tensormap = opt_prop_def(UnitAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, addr):
        super().__init__(operands=[addr], properties={"tensormap": UnitAttr()})

    def verify_(self) -> None:
        if self.tensormap is None:
            raise VerifyException("only the tensormap form of nvvm.prefetch is supported")
        if address_space(self.addr) != 0:
            raise VerifyException(f"tensormap prefetch needs a generic !llvm.ptr, got {self.addr.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" tensormap, ")
        printer.print_operand(self.addr)
        _print_props_and_types(printer, self, [self.addr.type], skip=("tensormap",))

    @classmethod
    def parse(cls, parser: Parser):
        parser.parse_keyword("tensormap")
        parser.parse_punctuation(",")
        addr = parse_defined_operand(parser)
        attrs = _parse_attrs_and_ptr_types(parser, 1)
        op = cls(addr)
        op.attributes |= attrs
        return op


# --------------------------------------------------------------------------- WGMMA

WGMMA_K = {WGMMAType.F16: 16, WGMMAType.BF16: 16, WGMMAType.TF32: 8, WGMMAType.E4M3: 32, WGMMAType.E5M2: 32,
           WGMMAType.S8: 32, WGMMAType.U8: 32}
WGMMA_INT = (WGMMAType.S8, WGMMAType.U8)
"""Integer operand types: ``.s32`` accumulators, A and B signedness may differ (PTX ISA 8.4+)."""


def accumulator_size(n: int, type_d: WGMMAType) -> int:
    """Registers per thread of an m64nN accumulator: N/2 f32 or s32 values (f16 D packs pairs: N/4)."""
    return n // 4 if type_d == WGMMAType.F16 else n // 2


@irdl_op_definition
class WgmmaMmaAsyncOp(IRDLOperation):
    """``D = A * B + scaleD * D`` on one warp group, A and B from shared memory through their
    64-bit matrix descriptors; the accumulator is an ``!llvm.struct`` of the thread's fragment.
    Lowered to inline asm (LLVM 22 has no intrinsic) with the accumulator registers tied."""

    name = "nvvm.wgmma.mma_async"
    inouts = opt_operand_def(LLVMStructType)
    descriptorA = operand_def(I64)
    descriptorB = operand_def(I64)
    results_ = result_def(LLVMStructType)
    shape = prop_def(MMAShapeAttr)
    typeA = prop_def(WGMMATypeAttr)
    typeB = prop_def(WGMMATypeAttr)
    typeD = prop_def(WGMMATypeAttr)
    scaleD = prop_def(WGMMAScaleOutAttr)
    scaleA = prop_def(WGMMAScaleInAttr)
    scaleB = prop_def(WGMMAScaleInAttr)
    layoutA = prop_def(MMALayoutAttr)
    layoutB = prop_def(MMALayoutAttr)
    satfinite = opt_prop_def(UnitAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, acc, desc_a, desc_b, n: int, type_ab: WGMMAType = WGMMAType.BF16,
                 layout_b: MMALayout = MMALayout.COL, scale_d: WGMMAScaleOut = WGMMAScaleOut.ONE,
                 layout_a: MMALayout = MMALayout.ROW, result_type=None):
        acc_v = SSAValue.get(acc) if acc is not None else None
        rtype = result_type if result_type is not None else acc_v.type
        super().__init__(
            operands=[[acc_v] if acc_v is not None else [], desc_a, desc_b],
            result_types=[rtype],
            properties={
                "shape": MMAShapeAttr(64, n, WGMMA_K.get(type_ab, 16)),
                "typeA": WGMMATypeAttr(type_ab), "typeB": WGMMATypeAttr(type_ab),
                "typeD": WGMMATypeAttr(WGMMAType.S32 if type_ab in WGMMA_INT else WGMMAType.F32),
                "scaleD": WGMMAScaleOutAttr(scale_d),
                "scaleA": WGMMAScaleInAttr(WGMMAScaleIn.ONE), "scaleB": WGMMAScaleInAttr(WGMMAScaleIn.ONE),
                "layoutA": MMALayoutAttr(layout_a), "layoutB": MMALayoutAttr(layout_b),
            },
        )

    def verify_(self) -> None:
        m, n, k = self.shape.m.data, self.shape.n.data, self.shape.k.data
        ta, tb, td = self.typeA.data, self.typeB.data, self.typeD.data
        if ta != tb and not (ta in WGMMA_INT and tb in WGMMA_INT):
            raise VerifyException(f"typeA and typeB must be equal (or both s8/u8), got {ta} and {tb}")
        if ta not in WGMMA_K:
            raise VerifyException(f"only f16/bf16/tf32/e4m3/e5m2/s8/u8 inputs are supported, got {ta}")
        if ta not in (WGMMAType.F16, WGMMAType.BF16) and (
                self.layoutA.data != MMALayout.ROW or self.layoutB.data != MMALayout.COL):
            raise VerifyException(f"{ta} operands must be K-major (A layout row, B layout col): only 16-bit "
                                  "inputs can be transposed")
        want_d = WGMMAType.S32 if ta in WGMMA_INT else WGMMAType.F32
        if td != want_d:
            raise VerifyException(f"{ta} inputs need a {want_d} accumulator (only f32 for floats), got {td}")
        field_type = i32 if td == WGMMAType.S32 else Float32Type()
        if m != 64 or k != WGMMA_K[ta]:
            raise VerifyException(f"shape must be m = 64, k = {WGMMA_K[ta]} for {ta}, got m = {m}, k = {k}")
        if not (8 <= n <= 256 and n % 8 == 0):
            raise VerifyException(f"shape n must be a multiple of 8 in [8, 256], got {n}")
        want = accumulator_size(n, td)
        for what, typ in (("result", self.results_.type), *((("accumulator", self.inouts.type),) if self.inouts else ())):
            fields = list(typ.types)
            if len(fields) != want or any(f != field_type for f in fields):
                raise VerifyException(f"{what} must be a struct of {want} {field_type} (m64n{n} {td} accumulator), "
                                      f"got {len(fields)} fields of {typ}")
        if self.inouts is not None and self.inouts.type != self.results_.type:
            raise VerifyException("accumulator and result types must be equal")
        if self.inouts is None and self.scaleD.data != WGMMAScaleOut.ZERO:
            raise VerifyException("without an accumulator operand scaleD must be zero")
        if self.satfinite is not None and ta not in WGMMA_INT:
            raise VerifyException("satfinite applies to integer wgmma only")
        if ta in WGMMA_INT and (self.scaleA.data != WGMMAScaleIn.ONE or self.scaleB.data != WGMMAScaleIn.ONE):
            raise VerifyException("integer wgmma has no operand negation (scaleA and scaleB must be one)")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.descriptorA, self.descriptorB], printer.print_operand)
        if self.inouts is not None:
            printer.print_string(", ")
            printer.print_operand(self.inouts)
        printer.print_string(f", <m = {self.shape.m.data}, n = {self.shape.n.data}, k = {self.shape.k.data}>")
        sat = ", <satfinite>" if self.satfinite is not None else ""
        printer.print_string(f", D[<{self.typeD.data.value}>, <{self.scaleD.data.value}>{sat}]")
        printer.print_string(f", A[<{self.typeA.data.value}>, <{self.scaleA.data.value}>, <{self.layoutA.data.value}>]")
        printer.print_string(f", B[<{self.typeB.data.value}>, <{self.scaleB.data.value}>, <{self.layoutB.data.value}>]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.inouts is not None:
            printer.print_attribute(self.inouts.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.results_.type)

    @classmethod
    def parse(cls, parser: Parser):
        da = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        db = parse_defined_operand(parser)
        parser.parse_punctuation(",")
        acc = parse_optional_defined_operand(parser)
        if acc is not None:
            parser.parse_punctuation(",")
        if parser.parse_optional_punctuation("<") is not None:  # upstream prints the bare <m = .., ..>
            dims = []
            for i, key in enumerate(("m", "n", "k")):
                if i:
                    parser.parse_punctuation(",")
                parser.parse_keyword(key)
                parser.parse_punctuation("=")
                dims.append(parser.parse_integer(allow_negative=False))
            parser.parse_punctuation(">")
            m, n, k = dims
        else:
            shape = parser.parse_attribute()
            if not isinstance(shape, MMAShapeAttr):
                parser.raise_error(f"expected <m = .., n = .., k = ..>, got {shape}")
            m, n, k = shape.m.data, shape.n.data, shape.k.data

        def bracket(letter: str, enums):
            parser.parse_punctuation(",")
            parser.parse_characters(letter)
            out = []
            with parser.in_square_brackets():
                for i, enum in enumerate(enums):
                    if i:
                        parser.parse_punctuation(",")
                    with parser.in_angle_brackets():
                        out.append(parser.parse_str_enum(enum))
            return out

        parser.parse_punctuation(",")
        parser.parse_characters("D")
        with parser.in_square_brackets():
            with parser.in_angle_brackets():
                type_d = parser.parse_str_enum(WGMMAType)
            parser.parse_punctuation(",")
            with parser.in_angle_brackets():
                scale_d = parser.parse_str_enum(WGMMAScaleOut)
            satfinite = False
            if parser.parse_optional_punctuation(",") is not None:  # upstream's <wrapped> | <satfinite>
                with parser.in_angle_brackets():
                    overflow = parser.parse_identifier()
                if overflow not in ("wrapped", "satfinite"):
                    parser.raise_error(f"expected wrapped or satfinite, got {overflow}")
                satfinite = overflow == "satfinite"
        type_a, scale_a, layout_a = bracket("A", (WGMMAType, WGMMAScaleIn, MMALayout))
        type_b, scale_b, layout_b = bracket("B", (WGMMAType, WGMMAScaleIn, MMALayout))
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        if acc is not None:
            parser.parse_type()
        parser.parse_punctuation("->")
        rtype = parser.parse_type()
        op = cls.create(
            operands=[*([acc] if acc is not None else []), da, db],
            result_types=[rtype],
            properties={
                "shape": MMAShapeAttr(m, n, k),
                "typeA": WGMMATypeAttr(type_a), "typeB": WGMMATypeAttr(type_b), "typeD": WGMMATypeAttr(type_d),
                "scaleD": WGMMAScaleOutAttr(scale_d), "scaleA": WGMMAScaleInAttr(scale_a),
                "scaleB": WGMMAScaleInAttr(scale_b),
                "layoutA": MMALayoutAttr(layout_a), "layoutB": MMALayoutAttr(layout_b),
            },
            attributes=attrs,
        )
        if satfinite:
            op.properties["satfinite"] = UnitAttr()
        return op


@irdl_op_definition
class WgmmaMmaAsyncRegisterAOp(IRDLOperation):
    """``D = A * B + D`` on one warp group with A from registers: ``wgmma.mma_async m64nNk16`` of 16-bit
    inputs (``typeAB``: f16 or bf16, f32 accumulator), A the thread's four i32 registers of the A
    fragment (each two ``typeAB`` values, the lower column in the low half; the m64k16 fragment is the
    layout of an m64n16 accumulator's eight values packed pairwise), B from shared memory through its
    descriptor (``layoutB``: ``col`` K-major, ``row`` N-major).  Lowered to inline asm with the
    accumulator registers tied.  The registers must be written before the ``wgmma.fence`` that
    precedes the instruction.

    ``atom.wgmma_mma_async_reg_a %a0, %a1, %a2, %a3, %descB, %acc {n = 128 : i64, typeAB = .., layoutB = ..}
    : !llvm.struct<..> -> !llvm.struct<..>``"""

    @property
    def a_fragment(self) -> list[SSAValue]:
        """The four A registers in order."""
        return [self.a0, self.a1, self.a2, self.a3]

    name = "atom.wgmma_mma_async_reg_a"  # not an upstream NVVM op: the atom dialect holds it (nvvm ops mirror upstream)
    a0 = operand_def(I32)
    a1 = operand_def(I32)
    a2 = operand_def(I32)
    a3 = operand_def(I32)
    descriptorB = operand_def(I64)
    inouts = operand_def(LLVMStructType)
    results_ = result_def(LLVMStructType)
    n = prop_def(IntegerAttr)
    typeAB = prop_def(WGMMATypeAttr)
    layoutB = prop_def(MMALayoutAttr)
    traits = traits_def(*SIDE_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = ("$a0 `,` $a1 `,` $a2 `,` $a3 `,` $descriptorB `,` $inouts attr-dict `:` type($inouts) `->` "
                       "type($results_)")

    def __init__(self, a_fragment, desc_b, acc, n: int, type_ab: WGMMAType, layout_b: MMALayout):
        acc = SSAValue.get(acc)
        super().__init__(operands=[*a_fragment, desc_b, acc], result_types=[acc.type],
                         properties={"n": IntegerAttr(n, 64), "typeAB": WGMMATypeAttr(type_ab),
                                     "layoutB": MMALayoutAttr(layout_b)})

    def verify_(self) -> None:
        n, t = self.n.value.data, self.typeAB.data
        if t not in (WGMMAType.F16, WGMMAType.BF16):
            raise VerifyException(f"a register A operand is f16 or bf16 here, got {t}")
        if not (8 <= n <= 256 and n % 8 == 0):
            raise VerifyException(f"n must be a multiple of 8 in [8, 256], got {n}")
        want = accumulator_size(n, WGMMAType.F32)
        fields = list(self.inouts.type.types)
        if len(fields) != want or any(f != Float32Type() for f in fields):
            raise VerifyException(f"the accumulator must be a struct of {want} f32 (m64n{n}), got {self.inouts.type}")
        if self.results_.type != self.inouts.type:
            raise VerifyException("accumulator and result types must be equal")


# --------------------------------------------------------------------------- stmatrix, PDL


def _check_matrices(op, what: str, count_error: str, count: int) -> None:
    """``stmatrix``/``ldmatrix``: 1, 2 or 4 matrices of the m8n8 b16 shape."""
    if count not in (1, 2, 4):
        raise VerifyException(f"{what} {count_error}")
    if (op.shape.m.data, op.shape.n.data) != (8, 8) or op.eltType.data != LdStMatrixEltType.B16:
        raise VerifyException(f"only the m8n8 b16 {what} is supported on sm_90")


@irdl_op_definition
class StMatrixOp(IRDLOperation):
    """``stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16``: each of N 8x8 b16 matrices is held
    by the warp (one i32 = two b16 per thread) and stored to rows addressed by lanes 8i..8i+7."""

    name = "nvvm.stmatrix"
    ptr = operand_def(LLVMPointerType)
    sources = var_operand_def(I32)
    layout = prop_def(MMALayoutAttr)
    shape = prop_def(LdStMatrixShapeAttr)
    eltType = prop_def(LdStMatrixEltTypeAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, ptr, sources, layout: MMALayout = MMALayout.ROW):
        super().__init__(
            operands=[ptr, list(sources)],
            properties={"layout": MMALayoutAttr(layout), "shape": LdStMatrixShapeAttr(8, 8),
                        "eltType": LdStMatrixEltTypeAttr(LdStMatrixEltType.B16)},
        )

    def verify_(self) -> None:
        check_space(self.ptr, (SHARED,), "stmatrix address")
        _check_matrices(self, "stmatrix", f"stores 1, 2 or 4 matrices, got {len(self.sources)} sources",
                        len(self.sources))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, *self.sources], printer.print_operand)
        printer.print_string(f" layout = <{self.layout.data.value}>, shape = <m = {self.shape.m.data}, "
                             f"n = {self.shape.n.data}>, element_type = <{self.eltType.data.value}>")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([self.ptr.type, *(s.type for s in self.sources)], printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser):
        ptr = parse_defined_operand(parser)
        sources = []
        while parser.parse_optional_punctuation(",") is not None:
            sources.append(parse_defined_operand(parser))
        parser.parse_keyword("layout")
        parser.parse_punctuation("=")
        with parser.in_angle_brackets():
            layout = parser.parse_str_enum(MMALayout)
        parser.parse_punctuation(",")
        parser.parse_keyword("shape")
        parser.parse_punctuation("=")
        m, n = (v.data for v in _parse_dims(parser, ("m", "n")))
        parser.parse_punctuation(",")
        parser.parse_keyword("element_type")
        parser.parse_punctuation("=")
        with parser.in_angle_brackets():
            elt = parser.parse_str_enum(LdStMatrixEltType)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        op = cls(ptr, sources, layout)
        op.properties["shape"] = LdStMatrixShapeAttr(m, n)
        op.properties["eltType"] = LdStMatrixEltTypeAttr(elt)
        op.attributes |= attrs
        return op


@irdl_op_definition
class GriddepcontrolOp(IRDLOperation):
    """``nvvm.griddepcontrol wait`` / ``launch_dependents`` (programmatic dependent launch)."""

    name = "nvvm.griddepcontrol"
    kind = prop_def(GridDepActionAttr)
    traits = traits_def(*SIDE_EFFECTS)

    def __init__(self, kind: GridDepAction):
        super().__init__(properties={"kind": GridDepActionAttr(kind)})

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data.value}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser):
        kind = parser.parse_str_enum(GridDepAction)
        op = cls(kind)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


MMA_SYNC_SHAPES = {
    MMATypes.F16: (16, 8, 16), MMATypes.BF16: (16, 8, 16), MMATypes.TF32: (16, 8, 8), MMATypes.S8: (16, 8, 32),
    MMATypes.U8: (16, 8, 32), MMATypes.E4M3: (16, 8, 32), MMATypes.E5M2: (16, 8, 32),
}
"""The one ``mma.sync`` shape :class:`MmaSyncOp` takes per input type (PTX ISA, sm_80+; e4m3/e5m2 sm_89+)."""
MMA_SYNC_INT = (MMATypes.S8, MMATypes.U8)
MMA_SYNC_FP8 = (MMATypes.E4M3, MMATypes.E5M2)


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """``D = A * B + C`` on one warp (``mma.sync.aligned.m16n8kK.row.col``), every operand in the
    threads' registers as the PTX ISA's fragment layouts distribute it: ``A`` 4 registers (f16:
    ``vector<2xf16>``, others ``i32`` holding 2 bf16 / 1 tf32 / 4 8-bit elements), ``B`` 2, ``C``
    and the result struct 4 ``f32`` (``s32`` for s8/u8 inputs).  Row-major A, column-major B only.
    All 32 lanes of the warp must execute it together."""

    name = "nvvm.mma.sync"
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    operandA = var_operand_def()
    operandB = var_operand_def()
    operandC = var_operand_def()
    res = result_def(LLVMStructType)
    shape = prop_def(MMAShapeAttr)
    layoutA = prop_def(MMALayoutAttr)
    layoutB = prop_def(MMALayoutAttr)
    multiplicandAPtxType = prop_def(MMATypesAttr)
    multiplicandBPtxType = prop_def(MMATypesAttr)

    def __init__(self, a, b, c, type_a: MMATypes, type_b: MMATypes | None = None):
        type_b = type_a if type_b is None else type_b
        m, n, k = MMA_SYNC_SHAPES[type_a]
        acc = i32 if type_a in MMA_SYNC_INT else Float32Type()
        super().__init__(
            operands=[list(a), list(b), list(c)],
            result_types=[LLVMStructType.from_type_list([acc] * 4)],
            properties={"shape": MMAShapeAttr(m, n, k), "layoutA": MMALayoutAttr(MMALayout.ROW),
                        "layoutB": MMALayoutAttr(MMALayout.COL), "multiplicandAPtxType": MMATypesAttr(type_a),
                        "multiplicandBPtxType": MMATypesAttr(type_b)},
        )

    def verify_(self) -> None:
        ta, tb = self.multiplicandAPtxType.data, self.multiplicandBPtxType.data
        if ta not in MMA_SYNC_SHAPES:
            raise VerifyException(f"multiplicand type {ta} is not supported (f16, bf16, tf32, s8, u8, e4m3, e5m2)")
        same_family = (ta in MMA_SYNC_INT and tb in MMA_SYNC_INT) or (ta in MMA_SYNC_FP8 and tb in MMA_SYNC_FP8)
        if ta != tb and not same_family:
            raise VerifyException(f"multiplicand types {ta} and {tb} do not form an mma.sync")
        shape = (self.shape.m.data, self.shape.n.data, self.shape.k.data)
        if shape != MMA_SYNC_SHAPES[ta]:
            raise VerifyException(f"{ta} inputs take shape m16n8k{MMA_SYNC_SHAPES[ta][2]}, got {shape}")
        if self.layoutA.data != MMALayout.ROW or self.layoutB.data != MMALayout.COL:
            raise VerifyException("only row-major A and column-major B are supported")
        reg = VectorType(Float16Type(), [2]) if ta == MMATypes.F16 else i32
        acc = i32 if ta in MMA_SYNC_INT else Float32Type()
        for what, vals, n, typ in (("A", self.operandA, 4, reg), ("B", self.operandB, 2, reg),
                                   ("C", self.operandC, 4, acc)):
            if len(vals) != n or any(v.type != typ for v in vals):
                raise VerifyException(f"operand {what} must be {n} values of type {typ}")
        if list(self.res.type.types.data) != [acc] * 4:
            raise VerifyException(f"the result must be a struct of 4 {acc}")


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """``ldmatrix.sync.aligned.m8n8.x{num}.shared.b16``: ``num`` 8x8 matrices of 16-bit elements
    loaded by the warp, lanes ``8j..8j+7`` giving the shared addresses of matrix ``j``'s rows (16
    bytes each); lane ``l`` receives, per matrix, the 32-bit word ``l % 4`` of row ``l / 4`` (an
    ``i32`` for one matrix, else a struct of ``num``).  Row layout only (no ``.trans``)."""

    name = "nvvm.ldmatrix"
    ptr = operand_def(LLVMPointerType)
    res = result_def()
    num = prop_def(IntegerAttr)
    layout = prop_def(MMALayoutAttr)
    shape = prop_def(LdStMatrixShapeAttr)
    eltType = prop_def(LdStMatrixEltTypeAttr)
    traits = traits_def(*SIDE_EFFECTS)  # warp-collective: kept where it is

    def __init__(self, ptr, num: int):
        result = i32 if num == 1 else LLVMStructType.from_type_list([i32] * num)
        super().__init__(operands=[ptr], result_types=[result],
                         properties={"num": IntegerAttr(num, i32), "layout": MMALayoutAttr(MMALayout.ROW),
                                     "shape": LdStMatrixShapeAttr(8, 8),
                                     "eltType": LdStMatrixEltTypeAttr(LdStMatrixEltType.B16)})

    def verify_(self) -> None:
        check_space(self.ptr, (SHARED,), "ldmatrix address")
        num = self.num.value.data
        _check_matrices(self, "ldmatrix", f"loads 1, 2 or 4 matrices, got {num}", num)
        if self.layout.data != MMALayout.ROW:
            raise VerifyException("only the row layout (no .trans) is supported")
        want = i32 if num == 1 else LLVMStructType.from_type_list([i32] * num)
        if self.res.type != want:
            raise VerifyException(f"the result of {num} matrices must be {want}, got {self.res.type}")


PAYLOAD_OPS = [
    CpAsyncBulkTensorGlobalToSharedClusterOp,
    CpAsyncBulkTensorSharedCTAToGlobalOp,
    CpAsyncBulkTensorReduceOp,
    CpAsyncBulkTensorPrefetchOp,
    PrefetchOp,
    WgmmaMmaAsyncOp,
    MmaSyncOp,
    LdMatrixOp,
    StMatrixOp,
    GriddepcontrolOp,
]

PAYLOAD_ATTRS = [
    TMALoadModeAttr, TMAStoreModeAttr, TMAReduxKindAttr, WGMMATypeAttr, WGMMAScaleInAttr,
    WGMMAScaleOutAttr, MMALayoutAttr, LdStMatrixEltTypeAttr, GridDepActionAttr, MMAShapeAttr,
    LdStMatrixShapeAttr, MMATypesAttr,
]
