"""Ops of ``nv_tileaa``: a tile program over global memory (no layouts, no agents yet).

A tile kernel is an ``nv_tileaa.func`` carrying ``nv_tileaa.kernel_spec``; tiles are builtin
``tensor<...>`` values without encoding.  ``convert-tileaa-to-tileas`` turns this into
``nv_tileas`` (tensors with layouts, atoms).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (AnyFloat, BoolAttr, DenseArrayBase, DictionaryAttr, Float32Type, Float64Type,
                                   FunctionType, IndexType,
                                   IntegerAttr, IntegerType, StringAttr, SymbolNameConstraint, TensorType, i1, i32, i64)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (AnyAttr, AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, VarConstraint,
                       irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def, region_def, result_def,
                       traits_def, var_operand_def, var_result_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (CallableOpInterface, HasParent, IsolatedFromAbove, IsTerminator, MemoryReadEffect,
                         MemoryWriteEffect, Pure, SymbolOpInterface)
from xdsl.utils.exceptions import VerifyException

from .attrs import (DYNAMIC, BoundedAttr, DivByAttr, KernelSpecAttr, MemRefType, MemScopeAttr, MemSemanticAttr,
                    MemTokenType, PaddingValueAttr, PointerType, ProgramIdType, RoundingModeAttr, SignednessAttr,
                    TiledViewType)
from .blocked import SOURCE_LAYOUT, check_layout

KERNEL_SPEC = "nv_tileaa.kernel_spec"
COMPUTE_CAPABILITY = "nv_tileaa.compute_capability"
TARGET_SPEC = "nv_tileaa.target_spec"

_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())


def is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)


def element_of(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def shape_of(t: Attribute) -> list[int]:
    return list(t.get_shape()) if isinstance(t, TensorType) else []


# ----------------------------------------------------------------------------- functions


class _FuncCallable(CallableOpInterface):
    @classmethod
    def get_callable_region(cls, op):
        return op.body

    @classmethod
    def get_argument_types(cls, op):
        return op.function_type.inputs.data

    @classmethod
    def get_result_types(cls, op):
        return op.function_type.outputs.data


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A tile kernel (or device function).  A kernel carries ``nv_tileaa.kernel_spec``."""

    name = "nv_tileaa.func"
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    body = region_def()
    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), _FuncCallable())

    def __init__(self, name: str, function_type: FunctionType, body: Region,
                 kernel_spec: KernelSpecAttr | None = None):
        attrs = {} if kernel_spec is None else {KERNEL_SPEC: kernel_spec}
        super().__init__(properties={"sym_name": StringAttr(name), "function_type": function_type},
                         attributes=attrs, regions=[body])

    def kernel_spec(self) -> KernelSpecAttr | None:
        spec = self.attributes.get(KERNEL_SPEC)
        return spec if isinstance(spec, KernelSpecAttr) else None

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        visibility = parser.parse_optional_keyword("public") or parser.parse_optional_keyword("private")
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility"))
        op = cls(name, FunctionType.from_lists(inputs, outputs), region)
        if visibility:
            op.sym_visibility = StringAttr(visibility)
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        if self.sym_visibility is not None:
            printer.print_string(f" {self.sym_visibility.data}")
        print_func_op_like(printer, self.sym_name, self.function_type, self.body, self.attributes,
                           reserved_attr_names=("sym_name", "function_type", "sym_visibility"))

    def verify_(self) -> None:
        if self.body.blocks:
            got = [a.type for a in self.body.block.args]
            if got != list(self.function_type.inputs.data):
                raise VerifyException("entry block arguments do not match the function type")
        spec = self.attributes.get(KERNEL_SPEC)
        if spec is not None and not isinstance(spec, KernelSpecAttr):
            raise VerifyException(f"'{KERNEL_SPEC}' must be a #nv_tileaa.kernel_spec, got {spec}")
        if spec is not None and self.function_type.outputs.data:
            raise VerifyException("a tile kernel returns nothing")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    name = "nv_tileaa.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[values])

    def verify_(self) -> None:
        func = self.parent_op()
        assert isinstance(func, FuncOp)
        want = list(func.function_type.outputs.data)
        if [v.type for v in self.values] != want:
            raise VerifyException(f"returned types do not match the function result types {want}")


# ----------------------------------------------------------------------------- program ids


class _GridAxisOp(IRDLOperation):
    """An ``i32`` of the launch grid along ``axis`` (0, 1 or 2)."""

    axis = prop_def(IntegerAttr[IntegerType])
    result = result_def(i32)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        if not 0 <= self.axis.value.data <= 2:
            raise VerifyException(f"axis must be 0, 1 or 2, got {self.axis.value.data}")


@irdl_op_definition
class GetProgramIdOp(_GridAxisOp):
    """Tile-block id along ``axis`` (0..2).  With a ``program_id`` operand it reads that id
    (the one a dynamic-persistent loop iteration works on) instead of the launch's block id."""

    name = "nv_tileaa.get_program_id"
    program_id = opt_operand_def(ProgramIdType)
    assembly_format = "($program_id^)? attr-dict `:` type($result)"

    def __init__(self, axis: int, program_id: SSAValue | None = None):
        super().__init__(operands=[[program_id] if program_id is not None else []],
                         properties={"axis": IntegerAttr(axis, i32)}, result_types=[i32])


@irdl_op_definition
class GetNumProgramsOp(_GridAxisOp):
    """Number of tile blocks along ``axis`` in the launch grid."""

    name = "nv_tileaa.get_num_programs"
    assembly_format = "attr-dict `:` type($result)"


@irdl_op_definition
class IsValidProgramIdOp(IRDLOperation):
    """True unless ``program_id`` is the end-of-work id."""

    name = "nv_tileaa.is_valid_program_id"
    program_id = operand_def(ProgramIdType)
    result = result_def(i1)
    traits = traits_def(Pure())
    assembly_format = "$program_id attr-dict"

    def __init__(self, program_id: SSAValue):
        super().__init__(operands=[program_id], result_types=[i1])


@irdl_op_definition
class CancelNextProgramIdOp(IRDLOperation):
    """Claim the next not-yet-started tile block from the launch (cluster launch control on
    sm_100, the tile scheduler elsewhere); the invalid id once all are claimed."""

    name = "nv_tileaa.cancel_next_program_id"
    result = result_def(ProgramIdType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[ProgramIdType()])


@irdl_op_definition
class CurrentProgramIdOp(IRDLOperation):
    """The launch's own tile-block id as a ``program_id`` handle (the first one a
    dynamic-persistent CTA works on)."""

    name = "nv_tileaa.current_program_id"
    result = result_def(ProgramIdType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[ProgramIdType()])


# ----------------------------------------------------------------------------- memory


@irdl_op_definition
class CreateMemTokenOp(IRDLOperation):
    name = "nv_tileaa.create_mem_token"
    result = result_def(MemTokenType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[MemTokenType()])


@irdl_op_definition
class JoinMemTokenOp(IRDLOperation):
    name = "nv_tileaa.join_mem_token"
    tokens = var_operand_def(MemTokenType)
    result = result_def(MemTokenType)
    traits = traits_def(Pure())
    assembly_format = "$tokens attr-dict"

    def verify_(self) -> None:
        if not self.tokens:
            raise VerifyException("join_mem_token needs at least one token")


@irdl_op_definition
class MakeMemrefOp(IRDLOperation):
    """A strided array from a base pointer: one ``shape`` operand per ``?`` extent and one
    ``strides`` operand per ``?`` stride of the result type, in order."""

    name = "nv_tileaa.make_memref"
    ptr = operand_def(PointerType)
    shape = var_operand_def()
    strides = var_operand_def()
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = "$ptr `[` $shape `]` `[` $strides `]` attr-dict `:` type($ptr) `[` type($shape) `]` `[` type($strides) `]` `->` type($result)"

    def __init__(self, ptr: SSAValue, shape: Sequence[SSAValue], strides: Sequence[SSAValue],
                 result: MemRefType):
        super().__init__(operands=[ptr, shape, strides], result_types=[result])

    def verify_(self) -> None:
        mt = self.result.type
        assert isinstance(mt, MemRefType) and isinstance(self.ptr.type, PointerType)
        if self.ptr.type.element != mt.element:
            raise VerifyException(f"pointer element {self.ptr.type.element} differs from memref element {mt.element}")
        nd_shape = sum(1 for v in mt.get_shape() if v == DYNAMIC)
        nd_strides = sum(1 for v in mt.get_strides() if v == DYNAMIC)
        if len(self.shape) != nd_shape:
            raise VerifyException(f"expected {nd_shape} shape operands (one per '?' extent), got {len(self.shape)}")
        if len(self.strides) != nd_strides:
            raise VerifyException(f"expected {nd_strides} stride operands (one per '?' stride), got {len(self.strides)}")
        for v in [*self.shape, *self.strides]:
            if not is_int(v.type):
                raise VerifyException(f"shape and stride operands must be integers, got {v.type}")


@irdl_op_definition
class BlockTileOp(IRDLOperation):
    """Cut a memref into tiles of the result view's tile shape."""

    name = "nv_tileaa.block_tile"
    memref = operand_def(MemRefType)
    result = result_def(TiledViewType)
    traits = traits_def(Pure())
    assembly_format = "$memref attr-dict `:` type($memref) `->` type($result)"

    def __init__(self, memref: SSAValue, result: TiledViewType):
        super().__init__(operands=[memref], result_types=[result])

    def verify_(self) -> None:
        assert isinstance(self.result.type, TiledViewType)
        if self.result.type.memref != self.memref.type:
            raise VerifyException("the tiled_view's memref type differs from the operand's type")


def _memref_of(t: Attribute) -> MemRefType | None:
    if isinstance(t, TiledViewType):
        return t.memref
    return t if isinstance(t, MemRefType) else None


class _SourceToResult(IRDLOperation):
    """A pure op from one value to another, written ``$source attr-dict : type($source) ->
    type($result)`` (the subclass declares ``source``, ``result`` and its properties)."""

    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"


class _DimQuery(_SourceToResult):
    source = operand_def(MemRefType | TiledViewType)
    index = prop_def(IntegerAttr[IntegerType])
    result = result_def(IntegerType | IndexType)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, index: int, result_type: Attribute = i64):
        super().__init__(operands=[source], properties={"index": IntegerAttr(index, i32)},
                         result_types=[result_type])

    def verify_(self) -> None:
        mt = _memref_of(self.source.type)
        assert mt is not None
        if not 0 <= self.index.value.data < mt.rank():
            raise VerifyException(f"index {self.index.value.data} out of range for rank {mt.rank()}")


@irdl_op_definition
class GetDimSizeOp(_DimQuery):
    """Extent of dimension ``index``: in elements for a memref, in tiles for a tiled_view
    (the number of tiles, rounded up)."""

    name = "nv_tileaa.get_dim_size"


@irdl_op_definition
class GetDimStrideOp(_DimQuery):
    """Stride (in elements) of dimension ``index`` of the underlying memref."""

    name = "nv_tileaa.get_dim_stride"


def _check_tile_access(view: TiledViewType, tile: Attribute, indices: Sequence[SSAValue], what: str) -> None:
    assert isinstance(tile, TensorType)  # the ops' IRDL constraints (a tensor result / tile operand)
    if list(tile.get_shape()) != view.tile_shape():
        raise VerifyException(f"{what} tile shape {list(tile.get_shape())} differs from the view's tile shape {view.tile_shape()}")
    if tile.element_type != view.memref.element:
        raise VerifyException(f"{what} element type {tile.element_type} differs from the memref's {view.memref.element}")
    if len(indices) != view.memref.rank():
        raise VerifyException(f"{what} needs {view.memref.rank()} tile indices, got {len(indices)}")
    for v in indices:
        if not is_int(v.type):
            raise VerifyException(f"tile indices must be integers, got {v.type}")


class _TiledAccess(IRDLOperation):
    """What ``tiled_load`` and ``tiled_store`` share, after the subclass's own operands,
    properties and results (xDSL lists a subclass's fields before its bases'): the optional
    token, the ordering and cost properties, the result token and the verifier."""

    token = opt_operand_def(MemTokenType)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    cost = opt_prop_def(IntegerAttr[IntegerType])
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())

    def _verify_access(self, tile: Attribute) -> None:
        assert isinstance(self.view.type, TiledViewType)
        _check_tile_access(self.view.type, tile, self.indices, self.name.split(".", 1)[1])
        if self.in_bounds is not None and len(self.in_bounds.get_values()) != len(self.indices):
            raise VerifyException("in_bounds needs one entry per dimension")


@irdl_op_definition
class TiledLoadOp(_TiledAccess):
    """Load tile (indices...) of a tiled view; out-of-bounds elements read ``padding_value``
    (zero by default).  ``allow_tma``: the tile may be fetched with a TMA tensor copy."""

    name = "nv_tileaa.tiled_load"
    view = operand_def(TiledViewType)
    indices = var_operand_def()
    allow_tma = opt_prop_def(BoolAttr)
    in_bounds = opt_prop_def(DenseArrayBase)
    padding_value = opt_prop_def(PaddingValueAttr)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())
    assembly_format = "$view `[` $indices `]` (`token` $token^)? attr-dict `:` type($view) `[` type($indices) `]` `->` type($result)"

    def __init__(self, view: SSAValue, indices: Sequence[SSAValue], result: TensorType,
                 token: SSAValue | None = None, allow_tma: bool = True):
        super().__init__(operands=[view, indices, [token] if token is not None else []],
                         properties={"allow_tma": BoolAttr.from_bool(allow_tma)},
                         result_types=[result, MemTokenType()])

    def verify_(self) -> None:
        self._verify_access(self.result.type)
        check_layout(self, self.result.type)


@irdl_op_definition
class TiledStoreOp(_TiledAccess):
    """Store ``tile`` as tile (indices...) of a tiled view (out-of-bounds elements are dropped)."""

    name = "nv_tileaa.tiled_store"
    view = operand_def(TiledViewType)
    tile = operand_def(TensorType)
    indices = var_operand_def()
    allow_tma = opt_prop_def(BoolAttr)
    in_bounds = opt_prop_def(DenseArrayBase)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$tile `,` $view `[` $indices `]` (`token` $token^)? attr-dict `:` type($tile) `,` type($view) `[` type($indices) `]`"

    def __init__(self, view: SSAValue, tile: SSAValue, indices: Sequence[SSAValue],
                 token: SSAValue | None = None, allow_tma: bool = True):
        super().__init__(operands=[view, tile, indices, [token] if token is not None else []],
                         properties={"allow_tma": BoolAttr.from_bool(allow_tma)},
                         result_types=[MemTokenType()])

    def verify_(self) -> None:
        self._verify_access(self.tile.type)
        check_layout(self, self.tile.type)


# ----------------------------------------------------------------------------- compute


def check_dot_shapes(a: Attribute, b: Attribute, acc: Attribute, res: Attribute) -> None:
    for t in (a, b, acc, res):
        if not isinstance(t, TensorType) or t.get_num_dims() < 2:
            raise VerifyException(f"dot operands must be tensors of rank >= 2, got {t}")
    sa, sb, sc = list(a.get_shape()), list(b.get_shape()), list(acc.get_shape())
    if not (len(sa) == len(sb) == len(sc)):
        raise VerifyException("dot operands must have the same rank")
    m, k = sa[-2:]
    k2, n = sb[-2:]
    if k != k2:
        raise VerifyException(f"dot contraction sizes differ: lhs K = {k}, rhs K = {k2}")
    if sc[-2:] != [m, n] or sa[:-2] != sb[:-2] or sa[:-2] != sc[:-2]:
        raise VerifyException(f"dot accumulator shape {sc} does not match lhs {sa} x rhs {sb}")
    if list(res.get_shape()) != sc or res.element_type != acc.element_type:
        raise VerifyException("dot result type must equal the accumulator type")
    if a.element_type != b.element_type:
        raise VerifyException(f"dot operand element types differ: {a.element_type} vs {b.element_type}")


def check_dot_types(a: Attribute, acc: Attribute, signedness: Sequence[Attribute | None]) -> None:
    """Element types of a dot: float operands accumulate in a float, integer operands (the
    ``cuda_tile.mmai`` int8/uint8 -> i32 dot) in an integer; ``signedness_a``/``signedness_b``
    (how each integer operand's bits are read; signed when absent) only on integer operands."""
    ea, ec = a.element_type, acc.element_type
    if isinstance(ea, IntegerType) != isinstance(ec, IntegerType):
        kind = "integer" if isinstance(ea, IntegerType) else "float"
        raise VerifyException(f"dot of {kind} operands ({ea}) needs {'an' if kind == 'integer' else 'a'} {kind} "
                              f"accumulator, got {ec}")
    if not isinstance(ea, IntegerType) and any(s is not None for s in signedness):
        raise VerifyException(f"signedness_a/signedness_b apply to integer operands only, got {ea}")


def dot_signedness(op: IRDLOperation) -> tuple[bool, bool]:
    """(lhs signed, rhs signed) of an integer dot (``nv_tileaa.dot`` or ``nv_tileas.dot``):
    signed unless ``signedness_a``/``signedness_b`` says unsigned."""
    props = op.properties
    return tuple(not (isinstance(props.get(k), SignednessAttr) and not props[k].signed)
                 for k in ("signedness_a", "signedness_b"))


@irdl_op_definition
class DotOp(IRDLOperation):
    """``result = lhs x rhs + acc`` on the last two dimensions (matrix multiply-accumulate).

    Integer operands (int8/uint8 tiles, an i32 accumulator: ``cuda_tile.mmai``) carry how each
    operand's bits are read in ``signedness_a`` / ``signedness_b`` (signed when absent)."""

    name = "nv_tileaa.dot"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    acc = operand_def(TensorType)
    matmul_fast_accum = opt_prop_def(BoolAttr)
    signedness_a = opt_prop_def(SignednessAttr)
    signedness_b = opt_prop_def(SignednessAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue):
        super().__init__(operands=[lhs, rhs, acc], result_types=[acc.type],
                         properties={"matmul_fast_accum": BoolAttr.from_bool(False)})

    def verify_(self) -> None:
        check_dot_shapes(self.lhs.type, self.rhs.type, self.acc.type, self.result.type)
        check_dot_types(self.lhs.type, self.acc.type, (self.signedness_a, self.signedness_b))


@irdl_op_definition
class ExtractOp(_SourceToResult):
    """Element ``indices`` of a tile (all indices static)."""

    name = "nv_tileaa.extract"
    source = operand_def()
    indices = prop_def(DenseArrayBase)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, indices: Sequence[int], result_type: Attribute):
        super().__init__(operands=[source], properties={"indices": DenseArrayBase.from_list(i32, list(indices))},
                         result_types=[result_type])

    def verify_(self) -> None:
        t = self.source.type
        idx = list(self.indices.get_values())
        if not isinstance(t, TensorType):
            # extract of a scalar-shaped handle (e.g. the program id a pipeline delivered)
            if idx:
                raise VerifyException("extract from a non-tensor takes no indices")
            return
        shape = list(t.get_shape())
        if len(idx) != len(shape):
            raise VerifyException(f"extract needs {len(shape)} indices, got {len(idx)}")
        if any(not 0 <= i < s for i, s in zip(idx, shape)):
            raise VerifyException(f"extract indices {idx} out of bounds for shape {shape}")
        if self.result.type != t.element_type:
            raise VerifyException(f"extract result must be the element type {t.element_type}")


def _float_like(t: Attribute) -> bool:
    return isinstance(element_of(t), AnyFloat)


class _ElementwiseOp(IRDLOperation):
    """Same-typed operands and result (tiles or scalars), applied element by element."""

    KIND: ClassVar[str] = "float"  # or "int"
    ARITY: ClassVar[int] = 2
    T: ClassVar = VarConstraint("T", AnyAttr())
    operands_ = var_operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$operands_ attr-dict `:` type($result)"

    def __init__(self, *operands: SSAValue):
        super().__init__(operands=[list(operands)], result_types=[operands[0].type])

    def verify_(self) -> None:
        if len(self.operands_) != self.ARITY:
            raise VerifyException(f"'{self.name}' takes {self.ARITY} operands, got {len(self.operands_)}")
        ok = _float_like(self.result.type) if self.KIND == "float" else is_int(element_of(self.result.type))
        if not ok:
            raise VerifyException(f"'{self.name}' expects {self.KIND} elements, got {self.result.type}")


class _UnaryFloatOp(_ElementwiseOp):
    """A float function of one operand."""

    ARITY: ClassVar[int] = 1


class _RoundedUnaryOp(_UnaryFloatOp):
    """A float function of one operand with an optional ``rounding`` (one of :attr:`ROUNDINGS`;
    none: the op's default form)."""

    ROUNDINGS: ClassVar[tuple[str, ...]] = ()
    DEFAULT: ClassVar[str] = ""
    rounding = opt_prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, *operands: SSAValue, rounding: str | None = None):
        super().__init__(*operands)
        if rounding is not None:
            self.rounding = StringAttr(rounding)

    def verify_(self) -> None:
        super().verify_()
        if self.rounding is not None and self.ROUNDINGS and self.rounding.data not in self.ROUNDINGS:
            raise VerifyException(f"'{self.name}' rounding '{self.rounding.data}': {' or '.join(self.ROUNDINGS)} "
                                  f"(or none: {self.DEFAULT})")


class _IntBinaryOp(_ElementwiseOp):
    """Wrapping integer arithmetic on two operands."""

    KIND: ClassVar[str] = "int"


DIRECTED_ROUNDINGS = ("rz", "rm", "rp")
"""The directed IEEE roundings ``addf`` / ``subf`` / ``mulf`` / ``fma`` take (toward zero / -inf / +inf: PTX
``add.rz`` / ``.rm`` / ``.rp`` ...); none is round to nearest even."""


class _DirectedArithOp(_ElementwiseOp):
    """Float arithmetic rounded once, to nearest even unless ``rounding`` is one of :data:`DIRECTED_ROUNDINGS`
    (cuTile's ``ct.add(..., rounding_mode=RZ)`` ...: CUDA Tile IR's ``rounding<zero>`` / ``<negative_inf>`` /
    ``<positive_inf>``), which f32 and f64 elements take (f16 / bf16 arithmetic is computed in f32 and rounded
    back, a second rounding).  A pass that rewrites the op (folds, contracts, reassociates) must keep the
    rounding or leave an op that has one alone (:func:`directed_rounding`)."""

    rounding = opt_prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, *operands: SSAValue, rounding: str | None = None):
        super().__init__(*operands)
        if rounding is not None:
            self.rounding = StringAttr(rounding)

    def verify_(self) -> None:
        super().verify_()
        if self.rounding is None:
            return
        if self.rounding.data not in DIRECTED_ROUNDINGS:
            raise VerifyException(f"'{self.name}' rounding '{self.rounding.data}': rz, rm or rp (or none: to "
                                  "nearest even)")
        elt = element_of(self.result.type)
        if not isinstance(elt, Float32Type | Float64Type):
            raise VerifyException(f"'{self.name}' rounding '{self.rounding.data}' takes f32 or f64 elements, got "
                                  f"{elt} (computed in f32, it would be rounded a second time)")


def directed_rounding(op: Operation) -> str | None:
    """``rz`` / ``rm`` / ``rp`` of an ``addf`` / ``subf`` / ``mulf`` / ``fma`` rounded so, else None."""
    if not isinstance(op, _DirectedArithOp) or op.rounding is None:
        return None
    return op.rounding.data


@irdl_op_definition
class AddFOp(_DirectedArithOp):
    """Elementwise ``lhs + rhs`` (``rounding``: see :class:`_DirectedArithOp`)."""

    name = "nv_tileaa.addf"


@irdl_op_definition
class SubFOp(_DirectedArithOp):
    """Elementwise ``lhs - rhs`` (``rounding``: see :class:`_DirectedArithOp`)."""

    name = "nv_tileaa.subf"


@irdl_op_definition
class MulFOp(_DirectedArithOp):
    """Elementwise ``lhs * rhs`` (``rounding``: see :class:`_DirectedArithOp`)."""

    name = "nv_tileaa.mulf"


DIVF_ROUNDINGS = ("approx", "full", "rz", "rm", "rp")
"""``nv_tileaa.divf``'s roundings (before an optional ``.ftz``): PTX ``div``'s modifiers."""


@irdl_op_definition
class DivFOp(_ElementwiseOp):
    """Elementwise ``lhs / rhs``: IEEE (round to nearest even) unless ``rounding`` says ``approx``
    or ``full`` (PTX ``div.approx`` / ``div.full`` for f32) or a directed IEEE rounding, ``rz`` / ``rm`` / ``rp``
    (toward zero / -inf / +inf: ``div.rz`` / ``.rm`` / ``.rp``, f32 and f64), each optionally ``.ftz`` (the
    program's ``rounding_mode`` and ``flush_to_zero``)."""

    name = "nv_tileaa.divf"
    rounding = opt_prop_def(StringAttr)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, *operands: SSAValue, rounding: str | None = None):
        super().__init__(*operands)
        if rounding is not None:
            self.rounding = StringAttr(rounding)

    def verify_(self) -> None:
        super().verify_()
        if self.rounding is not None and self.rounding.data.removesuffix(".ftz") not in DIVF_ROUNDINGS:
            raise VerifyException(f"'{self.name}' rounding '{self.rounding.data}': approx, full, rz, rm or rp, "
                                  "optionally .ftz (or none: IEEE)")


@irdl_op_definition
class MaxFOp(_ElementwiseOp):
    """Elementwise ``max(lhs, rhs)``."""

    name = "nv_tileaa.maxf"


@irdl_op_definition
class MinFOp(_ElementwiseOp):
    """Elementwise ``min(lhs, rhs)``."""

    name = "nv_tileaa.minf"


@irdl_op_definition
class FmaOp(_DirectedArithOp):
    """Elementwise ``a * b + c with one rounding`` (``rounding``: see :class:`_DirectedArithOp`)."""

    name = "nv_tileaa.fma"
    ARITY: ClassVar[int] = 3


@irdl_op_definition
class NegFOp(_UnaryFloatOp):
    """Elementwise ``-x``."""

    name = "nv_tileaa.negf"


@irdl_op_definition
class ExpOp(_RoundedUnaryOp):
    """Elementwise ``e**x``: full precision (CUDA's ``expf``, at most 2 ulp in f32, :mod:`tileorch.transforms.math_mode`)
    unless ``rounding`` is ``approx`` (the program's ``rounding_mode=APPROX``: ``ex2.approx`` of
    ``x * log2 e``)."""

    name = "nv_tileaa.exp"


@irdl_op_definition
class Exp2Op(_UnaryFloatOp):
    """Elementwise ``2**x``."""

    name = "nv_tileaa.exp2"


@irdl_op_definition
class SqrtOp(_RoundedUnaryOp):
    """Elementwise ``sqrt(x)``: correctly rounded to nearest even unless ``rounding`` is ``rz``,
    ``rm`` or ``rp`` (the program's ``rounding_mode`` toward zero, -inf or +inf: PTX ``sqrt.rz`` /
    ``.rm`` / ``.rp``, f32 and f64)."""

    name = "nv_tileaa.sqrt"
    ROUNDINGS: ClassVar[tuple[str, ...]] = ("rz", "rm", "rp")
    DEFAULT: ClassVar[str] = "nearest even"


@irdl_op_definition
class RsqrtOp(_UnaryFloatOp):
    """Elementwise ``1/sqrt(x)``."""

    name = "nv_tileaa.rsqrt"


@irdl_op_definition
class TanhOp(_RoundedUnaryOp):
    """Elementwise ``tanh(x)``: full precision (a few ulp in f32) unless ``rounding`` is
    ``approx`` (the program's ``rounding_mode=APPROX``: PTX ``tanh.approx.f32``, relative error
    about 2^-11)."""

    name = "nv_tileaa.tanh"
    ROUNDINGS: ClassVar[tuple[str, ...]] = ("approx",)
    DEFAULT: ClassVar[str] = "full precision"


@irdl_op_definition
class LogOp(_UnaryFloatOp):
    """Elementwise natural logarithm ``ln(x)``."""

    name = "nv_tileaa.log"


@irdl_op_definition
class Log2Op(_UnaryFloatOp):
    """Elementwise ``log2(x)``."""

    name = "nv_tileaa.log2"


@irdl_op_definition
class AddIOp(_IntBinaryOp):
    """Elementwise ``lhs + rhs (wrapping)``."""

    name = "nv_tileaa.addi"


@irdl_op_definition
class SubIOp(_IntBinaryOp):
    """Elementwise ``lhs - rhs (wrapping)``."""

    name = "nv_tileaa.subi"


@irdl_op_definition
class MulIOp(_IntBinaryOp):
    """Elementwise ``lhs * rhs (wrapping)``."""

    name = "nv_tileaa.muli"


@irdl_op_definition
class RemFOp(_ElementwiseOp):
    """Elementwise float remainder with the sign of ``lhs`` (C ``fmod``)."""

    name = "nv_tileaa.remf"


ELEMENTWISE_OPS = (RemFOp, AddFOp, SubFOp, MulFOp, DivFOp, MaxFOp, MinFOp, FmaOp, NegFOp, ExpOp, Exp2Op, SqrtOp, RsqrtOp, TanhOp, LogOp, Log2Op, AddIOp, SubIOp,
                   MulIOp)


@irdl_op_definition
class FpToFpOp(_SourceToResult):
    """Convert float elements to another float type (same shape)."""

    name = "nv_tileaa.fp_to_fp"
    source = operand_def()
    rounding = opt_prop_def(RoundingModeAttr)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        if not (_float_like(self.source.type) and _float_like(self.result.type)):
            raise VerifyException("fp_to_fp converts float elements to float elements")
        if shape_of(self.source.type) != shape_of(self.result.type):
            raise VerifyException("fp_to_fp keeps the shape")


@irdl_op_definition
class SplatOp(_SourceToResult):
    """A tile with every element equal to a scalar."""

    name = "nv_tileaa.splat"
    source = operand_def()
    result = result_def(TensorType)

    def verify_(self) -> None:
        assert isinstance(self.result.type, TensorType)
        if self.result.type.element_type != self.source.type:
            raise VerifyException(f"splat of {self.source.type} into a tile of {self.result.type.element_type}")


def check_broadcast(src: Attribute, res: Attribute) -> None:
    assert isinstance(src, TensorType) and isinstance(res, TensorType)  # (callers' constraints)
    a, b = list(src.get_shape()), list(res.get_shape())
    if len(a) != len(b):
        raise VerifyException(f"broadcast keeps the rank: {len(a)} vs {len(b)}")
    if any(x != y and x != 1 for x, y in zip(a, b)):
        raise VerifyException(f"cannot broadcast shape {a} to {b}: only extent-1 dimensions grow")
    if src.element_type != res.element_type:
        raise VerifyException("broadcast keeps the element type")


def check_expand_dim(src: Attribute, res: Attribute, dim: int) -> None:
    assert isinstance(src, TensorType) and isinstance(res, TensorType)  # (callers' constraints)
    a, b = list(src.get_shape()), list(res.get_shape())
    if not 0 <= dim <= len(a):
        raise VerifyException(f"dim {dim} out of range for rank {len(a)}")
    if b != a[:dim] + [1] + a[dim:] or src.element_type != res.element_type:
        raise VerifyException(f"expand_dims of {a} at {dim} must give {a[:dim] + [1] + a[dim:]}, got {b}")


@irdl_op_definition
class BroadcastOp(_SourceToResult):
    """Grow extent-1 dimensions of a tile to the result shape."""

    name = "nv_tileaa.broadcast"
    source = operand_def(TensorType)
    result = result_def(TensorType)

    def verify_(self) -> None:
        check_broadcast(self.source.type, self.result.type)


@irdl_op_definition
class ExpandDimsOp(_SourceToResult):
    """Insert an extent-1 dimension at ``dim``."""

    name = "nv_tileaa.expand_dims"
    source = operand_def(TensorType)
    dim = prop_def(IntegerAttr[IntegerType])
    result = result_def(TensorType)
    irdl_options = (ParsePropInAttrDict(),)

    def verify_(self) -> None:
        check_expand_dim(self.source.type, self.result.type, self.dim.value.data)
        check_layout(self, self.result.type)
        check_layout(self, self.source.type, SOURCE_LAYOUT)


@irdl_op_definition
class ReshapeOp(_SourceToResult):
    """The same elements in row-major order under another static shape (cuda_tile's ``reshape``:
    unit dimensions added or removed, dimensions split or merged)."""

    name = "nv_tileaa.reshape"
    source = operand_def(TensorType)
    result = result_def(TensorType)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, source: SSAValue, result_type: TensorType):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        if src.element_type != res.element_type:
            raise VerifyException(f"reshape keeps the element type: {src.element_type} -> {res.element_type}")
        a, b = list(src.get_shape()), list(res.get_shape())
        if any(d < 0 for d in a + b):
            raise VerifyException("reshape takes static shapes")
        if math.prod(a) != math.prod(b):
            raise VerifyException(f"reshape of {a} ({math.prod(a)} elements) to {b} ({math.prod(b)} elements)")
        check_layout(self, res)
        check_layout(self, src, SOURCE_LAYOUT)


@irdl_op_definition
class MakeRangeOp(IRDLOperation):
    """The 1-D tile ``[start, start+1, ..., end)``."""

    name = "nv_tileaa.make_range"
    start = prop_def(IntegerAttr[IntegerType])
    end = prop_def(IntegerAttr[IntegerType])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TensorType)
        n = self.end.value.data - self.start.value.data
        if list(t.get_shape()) != [n] or not is_int(t.element_type):
            raise VerifyException(f"make_range result must be tensor<{n}x(int)>, got {t}")


@irdl_op_definition
class AssumeOp(IRDLOperation):
    """Returns its operand, adding a fact later passes may use (``div_by``, ``bounded``)."""

    name = "nv_tileaa.assume"
    T: ClassVar = VarConstraint("T", AnyAttr())
    source = operand_def(T)
    predicate = prop_def(DivByAttr | BoundedAttr)
    result = result_def(T)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source attr-dict `:` type($source)"

    def __init__(self, source: SSAValue, predicate: Attribute):
        super().__init__(operands=[source], properties={"predicate": predicate}, result_types=[source.type])

    def verify_(self) -> None:
        elem = element_of(self.source.type)
        if not (is_int(elem) or isinstance(self.source.type, PointerType)):
            raise VerifyException(f"assume predicates apply to integers and pointers, got {self.source.type}")
        if isinstance(self.source.type, PointerType) and not isinstance(self.predicate, DivByAttr):
            raise VerifyException("a pointer can only be assumed div_by (aligned)")


@irdl_op_definition
class PragmaOp(IRDLOperation):
    """Forward values unchanged, attaching hints (``attributes``) for later passes."""

    name = "nv_tileaa.pragma"
    values = var_operand_def()
    results_ = var_result_def()
    hints = opt_prop_def(DictionaryAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$values attr-dict `:` type($values) `->` type($results_)"

    def verify_(self) -> None:
        if [v.type for v in self.values] != [r.type for r in self.results_]:
            raise VerifyException("pragma results must mirror its operands")

OPS = [
    FuncOp,
    ReturnOp,
    GetProgramIdOp,
    GetNumProgramsOp,
    IsValidProgramIdOp,
    CancelNextProgramIdOp,
    CurrentProgramIdOp,
    CreateMemTokenOp,
    JoinMemTokenOp,
    MakeMemrefOp,
    BlockTileOp,
    GetDimSizeOp,
    GetDimStrideOp,
    TiledLoadOp,
    TiledStoreOp,
    DotOp,
    ExtractOp,
    AddFOp,
    SubFOp,
    MulFOp,
    DivFOp,
    MaxFOp,
    MinFOp,
    FmaOp,
    NegFOp,
    ExpOp,
    Exp2Op,
    SqrtOp,
    RsqrtOp,
    TanhOp,
    LogOp,
    Log2Op,
    AddIOp,
    SubIOp,
    MulIOp,
    FpToFpOp,
    SplatOp,
    BroadcastOp,
    ExpandDimsOp,
    ReshapeOp,
    MakeRangeOp,
    AssumeOp,
    PragmaOp,
    RemFOp,
]
"""The ops this module defines, in the dialect's order (:data:`tileorch.dialects.nv_tileaa.NvTileaa`)."""
