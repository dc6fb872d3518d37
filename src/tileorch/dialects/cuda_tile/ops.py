"""The ops of the ``cuda_tile`` dialect (CUDA Tile IR 13.x), one class per op.

Each class declares its operands, results, properties and regions (IRDL), its custom
syntax (``fmt``, MLIR notation, prefix-less types) and its type rules; ``verify_op``
holds the remaining rules of the specification.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, DenseArrayBase, DictionaryAttr, Float8E8M0FNUType, FunctionType,
                                   IntegerAttr, IntegerType, StringAttr, SymbolRefAttr, UnitAttr)
from xdsl.ir import Attribute, Block, Region
from xdsl.irdl import (AttrSizedOperandSegments, irdl_op_definition, lazy_traits_def, operand_def, opt_operand_def,
                       opt_prop_def, prop_def, region_def, result_def, traits_def, var_operand_def, var_result_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (HasParent, IsolatedFromAbove, IsTerminator, NoTerminator, Pure, RecursiveMemoryEffect,
                         SymbolOpInterface, SymbolTable)
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cuda_tile import attrs as A
from tileorch.dialects.cuda_tile import directives as D
from tileorch.dialects.cuda_tile.base import CtOp, elem, i1_like, is_f32
from tileorch.dialects.cuda_tile.debuginfo import verify_function_scopes
from tileorch.dialects.cuda_tile.format import ParseState, _peek, build_op, parse_operand_list
from tileorch.dialects.cuda_tile.syntax import ct_type_str, error_at, parse_ct_type, parse_ct_type_list, pos
from tileorch.dialects.cuda_tile.types import (DYNAMIC, GatherScatterViewType, PartitionViewType, PointerType,
                                               StridedViewType, TensorViewType, TileType, TileViewType, TokenType,
                                               bitwidth, is_float, is_int)

T = "type($result)"

# --------------------------------------------------------------------------- lazily defined ops
#
# ``irdl_op_definition`` is most of the cost of defining an op class (its IRDL definition, its
# generated methods); a program uses a few of the 105 ops.  The classes marked ``@_lazy_op`` are
# defined by ``irdl_op_definition`` when first read as an attribute of this module (``ops.AddFOp``,
# ``from ...ops import AddFOp``, :func:`op_class` by op name, as the bytecode reader does for each
# opcode it meets); :func:`all_ops` defines them all (the textual parser's dialect, :data:`OPS`).
# The ops this module's own code refers to by name (structure and control flow: module, entry,
# for, loop, if, yield, ...) are defined eagerly: a module's global lookup does not reach its
# ``__getattr__``.

_ORDER: list[str] = []
"""The op classes' names in definition order (:func:`all_ops`'s order)."""
_RAW: dict[str, type] = {}
"""Class name -> the undecorated class of each op not defined yet."""
OP_NAMES: dict[str, str] = {}
"""Class name -> op name (``AddFOp`` -> ``cuda_tile.addf``) of every op, defined or not."""
_CLASS_OF: dict[str, str] = {}
"""Op name -> class name."""


def _lazy_op(cls: type) -> type:
    """Mark ``cls`` for definition on first use (the module's end takes it out of the namespace)."""
    _ORDER.append(cls.__name__)
    _RAW[cls.__name__] = cls
    OP_NAMES[cls.__name__] = cls.name
    _CLASS_OF[cls.name] = cls.__name__
    return cls


def _eager_op(cls: type) -> type:
    """``irdl_op_definition``, recording the op in :data:`OP_NAMES` and the definition order."""
    _ORDER.append(cls.__name__)
    OP_NAMES[cls.__name__] = cls.name
    _CLASS_OF[cls.name] = cls.__name__
    return irdl_op_definition(cls)


def _define(class_name: str) -> type:
    raw = _RAW.pop(class_name)
    cls = globals()[class_name] = irdl_op_definition(raw)
    return cls


def __getattr__(name: str):
    if name in _RAW:
        return _define(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def op_class(op_name: str) -> type:
    """The class of the op ``op_name`` (``cuda_tile.addf``), defined now if it was not yet;
    ``KeyError`` for a name that is not a cuda_tile op."""
    class_name = _CLASS_OF[op_name]
    cls = globals().get(class_name)
    return cls if cls is not None else _define(class_name)


def op_name(class_name: str) -> str:
    """The op name of the class ``class_name`` (``AddFOp`` -> ``cuda_tile.addf``) without defining it."""
    return OP_NAMES[class_name]


def defined_ops() -> list[str]:
    """The class names of the ops defined so far."""
    return [n for n in _ORDER if n not in _RAW]


def all_ops() -> list[type]:
    """Every op class, in definition order (defining those not defined yet)."""
    return [getattr(_THIS, n) for n in _ORDER]



def _ftz_check(op, ftz: bool) -> None:
    if ftz and not is_f32(op.result):
        raise VerifyException(f"flush_to_zero modifier only supported for f32 data type, but got: "
                              f"{ct_type_str(elem(op.result))}")


# =========================================================================== elementwise families
class _Unary(CtOp):
    source = operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = "$source attr-dict `:` type($result)"
    SAME_TYPE: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:basefloat", "result": "tile:basefloat"}
    traits = traits_def(Pure())


class _Binary(CtOp):
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = "$lhs `,` $rhs attr-dict `:` type($result)"
    SAME_TYPE: ClassVar = (("lhs", "rhs", "result"),)
    VALUE_TYPES: ClassVar = {"lhs": "tile:int", "rhs": "tile:int", "result": "tile:int"}
    traits = traits_def(Pure())


class _BinaryOverflow(_Binary):
    overflow = opt_prop_def(A.IntegerOverflowAttr, default_value=A.IntegerOverflowAttr(A.IntegerOverflow.NONE))
    FMT: ClassVar = "$lhs `,` $rhs (`overflow` `` $overflow^)? attr-dict `:` type($result)"
    PROP_SYNTAX: ClassVar = {"overflow": ("angle", A.IntegerOverflowAttr)}


class _BinarySigned(_Binary):
    signedness = prop_def(A.SignednessAttr)
    FMT: ClassVar = "$lhs `,` $rhs custom<Signedness>($signedness) attr-dict `:` type($result)"


class _BinaryFloatRounding(_Binary):
    rounding_mode = prop_def(A.RoundingModeAttr)
    flush_to_zero = opt_prop_def(UnitAttr)
    FMT: ClassVar = ("$lhs `,` $rhs custom<IEEERoundingMode>($rounding_mode) (`flush_to_zero` $flush_to_zero^)? attr-dict "
           "`:` type($result)")
    PROP_SYNTAX: ClassVar = {"flush_to_zero": "unit"}
    VALUE_TYPES: ClassVar = {"lhs": "tile:basefloat", "rhs": "tile:basefloat", "result": "tile:basefloat"}

    def verify_op(self) -> None:
        _ftz_check(self, self.flush_to_zero is not None)
        rm = self.rounding_mode.data
        if rm not in (A.RoundingMode.NEAREST_EVEN, A.RoundingMode.ZERO, A.RoundingMode.NEGATIVE_INF,
                      A.RoundingMode.POSITIVE_INF):
            raise VerifyException(f"invalid rounding mode '{rm.value}'")


class _BinaryFloat(_Binary):
    VALUE_TYPES: ClassVar = {"lhs": "tile:basefloat", "rhs": "tile:basefloat", "result": "tile:basefloat"}


class _UnaryFtz(_Unary):
    flush_to_zero = opt_prop_def(UnitAttr)
    FMT: ClassVar = "$source (`flush_to_zero` $flush_to_zero^)? attr-dict `:` type($result)"
    PROP_SYNTAX: ClassVar = {"flush_to_zero": "unit"}

    def verify_op(self) -> None:
        _ftz_check(self, self.flush_to_zero is not None)


# ---- integer arithmetic
@_lazy_op
class AddIOp(_BinaryOverflow):
    name = "cuda_tile.addi"


@_lazy_op
class SubIOp(_BinaryOverflow):
    name = "cuda_tile.subi"


@_lazy_op
class MulIOp(_BinaryOverflow):
    name = "cuda_tile.muli"


@_lazy_op
class ShLIOp(_BinaryOverflow):
    name = "cuda_tile.shli"


@_lazy_op
class ShRIOp(_BinarySigned):
    name = "cuda_tile.shri"


@_lazy_op
class MaxIOp(_BinarySigned):
    name = "cuda_tile.maxi"


@_lazy_op
class MinIOp(_BinarySigned):
    name = "cuda_tile.mini"


@_lazy_op
class RemIOp(_BinarySigned):
    name = "cuda_tile.remi"
    traits = traits_def()


@_lazy_op
class DivIOp(_Binary):
    name = "cuda_tile.divi"
    signedness = prop_def(A.SignednessAttr)
    rounding = opt_prop_def(A.RoundingModeAttr, default_value=A.RoundingModeAttr(A.RoundingMode.ZERO))
    FMT: ClassVar = "$lhs `,` $rhs custom<Signedness>($signedness) (`rounding` `` $rounding^)? attr-dict `:` type($result)"
    PROP_SYNTAX: ClassVar = {"rounding": ("angle", A.RoundingModeAttr)}
    traits = traits_def()

    def verify_op(self) -> None:
        """``negative_inf`` with ``unsigned`` is accepted: cuTile 1.7 writes it for every ``//`` of unsigned
        integers, and the floor of a quotient of two non-negative integers is the truncated quotient."""
        rm = (self.rounding or A.RoundingModeAttr(A.RoundingMode.ZERO)).data
        if rm not in (A.RoundingMode.ZERO, A.RoundingMode.POSITIVE_INF, A.RoundingMode.NEGATIVE_INF):
            raise VerifyException("rounding mode must be one of 'zero', 'positive_inf' or 'negative_inf', got "
                                  f"'{rm.value}'")


class _BinaryXY(CtOp):
    """A pure binary op on ``x`` and ``y`` of one tile type: ``$x, $y attr-dict : type($result)``."""

    x = operand_def(TileType)
    y = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(Pure())
    FMT: ClassVar = "$x `,` $y attr-dict `:` type($result)"
    SAME_TYPE: ClassVar = (("x", "y", "result"),)


@_lazy_op
class MulhiIOp(_BinaryXY):
    name = "cuda_tile.mulhii"
    VALUE_TYPES: ClassVar = {"x": "tile:int", "y": "tile:int", "result": "tile:int"}


@_lazy_op
class AndIOp(_Binary):
    name = "cuda_tile.andi"


@_lazy_op
class OrIOp(_Binary):
    name = "cuda_tile.ori"


@_lazy_op
class XOrIOp(_Binary):
    name = "cuda_tile.xori"


@_lazy_op
class AbsIOp(_Unary):
    name = "cuda_tile.absi"
    VALUE_TYPES: ClassVar = {"source": "tile:int", "result": "tile:int"}


@_lazy_op
class NegIOp(_Unary):
    name = "cuda_tile.negi"
    overflow = opt_prop_def(A.IntegerOverflowAttr, default_value=A.IntegerOverflowAttr(A.IntegerOverflow.NONE))
    FMT: ClassVar = "$source (`overflow` `` $overflow^)? attr-dict `:` type($result)"
    PROP_SYNTAX: ClassVar = {"overflow": ("angle", A.IntegerOverflowAttr)}
    VALUE_TYPES: ClassVar = {"source": "tile:int", "result": "tile:int"}

    def verify_op(self) -> None:
        ov = self.overflow.data if self.overflow else A.IntegerOverflow.NONE
        if ov in (A.IntegerOverflow.NUW, A.IntegerOverflow.NW):
            raise VerifyException(f"overflow flag '{ov.value}' is not supported for negi")


# ---- floating-point arithmetic
@_lazy_op
class AddFOp(_BinaryFloatRounding):
    name = "cuda_tile.addf"


@_lazy_op
class SubFOp(_BinaryFloatRounding):
    name = "cuda_tile.subf"


@_lazy_op
class MulFOp(_BinaryFloatRounding):
    name = "cuda_tile.mulf"


@_lazy_op
class DivFOp(_BinaryFloatRounding):
    name = "cuda_tile.divf"
    FMT: ClassVar = ("$lhs `,` $rhs custom<DivFOpRoundingMode>($rounding_mode) (`flush_to_zero` $flush_to_zero^)? attr-dict "
           "`:` type($result)")

    def verify_op(self) -> None:
        _div_sqrt_modifiers(self)


def _div_sqrt_modifiers(op) -> None:
    rm = op.rounding_mode.data
    approx, full = rm == A.RoundingMode.APPROX, rm == A.RoundingMode.FULL
    allowed = (A.RoundingMode.NEAREST_EVEN, A.RoundingMode.ZERO, A.RoundingMode.NEGATIVE_INF,
               A.RoundingMode.POSITIVE_INF, A.RoundingMode.APPROX, A.RoundingMode.FULL)
    if rm not in allowed:
        raise VerifyException(f"invalid rounding mode '{rm.value}'")
    et = elem(op.result)
    _ftz_check(op, op.flush_to_zero is not None)
    if approx and not is_f32(op.result):
        raise VerifyException(f"approx modifier only supported for f32 data type, but got: {ct_type_str(et)}")
    if full and not is_f32(op.result):
        raise VerifyException(f"full modifier only supported for f32 data type, but got: {ct_type_str(et)}")


@_lazy_op
class RemFOp(_BinaryFloat):
    name = "cuda_tile.remf"


@_lazy_op
class PowOp(CtOp):
    name = "cuda_tile.pow"
    source = operand_def(TileType)
    exponent = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(Pure())
    FMT: ClassVar = "$source `,` $exponent attr-dict `:` type($result)"
    SAME_TYPE: ClassVar = (("source", "exponent", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:basefloat", "exponent": "tile:basefloat", "result": "tile:basefloat"}


@_lazy_op
class FPowIOp(CtOp):
    """``source ** exponent`` with an integer ``exponent`` tile of the source's shape (13.4;
    cuTile 1.7 writes it for ``x ** n`` and ``ct.pow`` with an integer exponent)."""

    name = "cuda_tile.fpowi"
    source = operand_def(TileType)
    exponent = operand_def(TileType)
    result = result_def(TileType)
    traits = traits_def(Pure())
    FMT: ClassVar = "$source `,` $exponent attr-dict `:` type($source) `,` type($exponent)"
    SAME_TYPE: ClassVar = (("source", "result"),)
    SAME_SHAPE: ClassVar = (("source", "exponent"),)
    VALUE_TYPES: ClassVar = {"source": "tile:basefloat", "exponent": "tile:int", "result": "tile:basefloat"}


@_lazy_op
class Atan2Op(_BinaryXY):
    name = "cuda_tile.atan2"
    VALUE_TYPES: ClassVar = {"x": "tile:basefloat", "y": "tile:basefloat", "result": "tile:basefloat"}


class _MinMaxF(_BinaryFloat):
    propagate_nan = opt_prop_def(UnitAttr)
    flush_to_zero = opt_prop_def(UnitAttr)
    PROP_SYNTAX: ClassVar = {"propagate_nan": "unit", "flush_to_zero": "unit"}

    @classmethod
    def parse(cls, parser: Parser):
        st = ParseState()
        st.operands["lhs"] = [parser.parse_unresolved_operand()]
        parser.parse_punctuation(",")
        st.operands["rhs"] = [parser.parse_unresolved_operand()]
        for _ in range(2):  # oilist: either order, each at most once
            for kw in ("flush_to_zero", "propagate_nan"):
                if kw not in st.props and parser.parse_optional_keyword(kw) is not None:
                    st.props[kw] = UnitAttr()
        attrs = parser.parse_optional_attr_dict()
        st.attrs.update(attrs)
        parser.parse_punctuation(":")
        st.types["result"] = [parse_ct_type(parser)]
        return build_op(parser, cls, st)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        if self.flush_to_zero is not None:
            printer.print_string(" flush_to_zero")
        if self.propagate_nan is not None:
            printer.print_string(" propagate_nan")
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : " + ct_type_str(self.result.type))

    def verify_op(self) -> None:
        _ftz_check(self, self.flush_to_zero is not None)


@_lazy_op
class MaxFOp(_MinMaxF):
    name = "cuda_tile.maxf"


@_lazy_op
class MinFOp(_MinMaxF):
    name = "cuda_tile.minf"


@_lazy_op
class FmaOp(CtOp):
    name = "cuda_tile.fma"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    acc = operand_def(TileType)
    result = result_def(TileType)
    rounding_mode = prop_def(A.RoundingModeAttr)
    flush_to_zero = opt_prop_def(UnitAttr)
    FMT: ClassVar = ("$lhs `,` $rhs `,` $acc custom<IEEERoundingMode>($rounding_mode) (`flush_to_zero` $flush_to_zero^)? "
           "attr-dict `:` type($result)")
    PROP_SYNTAX: ClassVar = {"flush_to_zero": "unit"}
    SAME_TYPE: ClassVar = (("lhs", "rhs", "acc", "result"),)
    VALUE_TYPES: ClassVar = {n: "tile:basefloat" for n in ("lhs", "rhs", "acc", "result")}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        _BinaryFloatRounding.verify_op(self)


@_lazy_op
class AbsFOp(_Unary):
    name = "cuda_tile.absf"


@_lazy_op
class NegFOp(_Unary):
    name = "cuda_tile.negf"


@_lazy_op
class CeilOp(_Unary):
    name = "cuda_tile.ceil"


@_lazy_op
class FloorOp(_Unary):
    name = "cuda_tile.floor"


@_lazy_op
class CosOp(_Unary):
    name = "cuda_tile.cos"


@_lazy_op
class CosHOp(_Unary):
    name = "cuda_tile.cosh"


@_lazy_op
class SinOp(_Unary):
    name = "cuda_tile.sin"


@_lazy_op
class SinHOp(_Unary):
    name = "cuda_tile.sinh"


@_lazy_op
class TanOp(_Unary):
    name = "cuda_tile.tan"


@_lazy_op
class LogOp(_Unary):
    name = "cuda_tile.log"


@_lazy_op
class Log2Op(_Unary):
    name = "cuda_tile.log2"


@_lazy_op
class Exp2Op(_UnaryFtz):
    name = "cuda_tile.exp2"


@_lazy_op
class RsqrtOp(_UnaryFtz):
    name = "cuda_tile.rsqrt"


class _UnaryApproxFull(_Unary):
    rounding_mode = opt_prop_def(A.RoundingModeAttr, default_value=A.RoundingModeAttr(A.RoundingMode.FULL))

    def verify_op(self) -> None:
        rm = (self.rounding_mode or A.RoundingModeAttr(A.RoundingMode.FULL)).data
        if rm not in (A.RoundingMode.APPROX, A.RoundingMode.FULL):
            raise VerifyException(f"invalid rounding mode '{rm.value}': expected 'approx' or 'full'")
        if rm == A.RoundingMode.APPROX and not is_f32(self.result):
            raise VerifyException("approx modifier only supported for f32 data type, but got: "
                                  f"{ct_type_str(elem(self.result))}")


@_lazy_op
class ExpOp(_UnaryApproxFull):
    name = "cuda_tile.exp"
    FMT: ClassVar = "$source custom<ExpOpRoundingMode>($rounding_mode) attr-dict `:` type($result)"


@_lazy_op
class TanHOp(_UnaryApproxFull):
    name = "cuda_tile.tanh"
    FMT: ClassVar = "$source custom<TanHOpRoundingMode>($rounding_mode) attr-dict `:` type($result)"


@_lazy_op
class SqrtOp(_Unary):
    name = "cuda_tile.sqrt"
    rounding_mode = prop_def(A.RoundingModeAttr)
    flush_to_zero = opt_prop_def(UnitAttr)
    FMT: ClassVar = ("$source custom<SqrtOpRoundingMode>($rounding_mode) (`flush_to_zero` $flush_to_zero^)? attr-dict "
           "`:` type($result)")
    PROP_SYNTAX: ClassVar = {"flush_to_zero": "unit"}

    def verify_op(self) -> None:
        if self.rounding_mode.data == A.RoundingMode.FULL:
            raise VerifyException("invalid rounding mode 'full' for sqrt")
        _div_sqrt_modifiers(self)


# ---- comparisons and select
class _Compare(CtOp):
    """A pure elementwise comparison of ``lhs`` and ``rhs`` (one type) to a tile of ``i1``."""

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    SAME_TYPE: ClassVar = (("lhs", "rhs"),)
    SAME_SHAPE: ClassVar = (("lhs", "result"),)
    traits = traits_def(Pure())


@_lazy_op
class CmpIOp(_Compare):
    name = "cuda_tile.cmpi"
    comparison_predicate = prop_def(A.ComparisonPredicateAttr)
    signedness = prop_def(A.SignednessAttr)
    FMT: ClassVar = ("custom<ComparisonPredicate>($comparison_predicate) $lhs `,` $rhs `,` custom<Signedness>($signedness) "
           "attr-dict `:` type($lhs) `->` type($result)")
    VALUE_TYPES: ClassVar = {"lhs": "tile:int", "rhs": "tile:int", "result": "tile:i1"}


@_lazy_op
class CmpFOp(_Compare):
    name = "cuda_tile.cmpf"
    comparison_predicate = prop_def(A.ComparisonPredicateAttr)
    comparison_ordering = prop_def(A.ComparisonOrderingAttr)
    FMT: ClassVar = ("custom<ComparisonPredicate>($comparison_predicate) custom<ComparisonOrdering>($comparison_ordering) "
           "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)")
    VALUE_TYPES: ClassVar = {"lhs": "tile:basefloat", "rhs": "tile:basefloat", "result": "tile:i1"}


@_lazy_op
class SelectOp(CtOp):
    name = "cuda_tile.select"
    cond = operand_def(TileType)
    val_if_true = operand_def(TileType)
    val_if_false = operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = "$cond `,` $val_if_true `,` $val_if_false attr-dict `:` type($cond) `,` type($result)"
    SAME_TYPE: ClassVar = (("val_if_true", "val_if_false", "result"),)
    SAME_SHAPE: ClassVar = (("cond", "result"),)
    VALUE_TYPES: ClassVar = {"cond": "tile:i1", "val_if_true": "tile:any", "val_if_false": "tile:any", "result": "tile:any"}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        from xdsl.dialects.builtin import Float4E2M1FNType

        if isinstance(elem(self.result), Float4E2M1FNType) or is_int(elem(self.result), (4,)):
            raise VerifyException(f"cannot operate on sub-byte type {ct_type_str(elem(self.result)).upper()}")


# ---- conversions
class _SourceToResult(CtOp):
    """A pure op from one tile to another: ``$source attr-dict : type($source) -> type($result)``."""

    source = operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = "$source attr-dict `:` type($source) `->` type($result)"
    traits = traits_def(Pure())


class _Convert(_SourceToResult):
    SAME_SHAPE: ClassVar = (("source", "result"),)


@_lazy_op
class BitcastOp(_Convert):
    name = "cuda_tile.bitcast"
    VALUE_TYPES: ClassVar = {"source": "tile:number", "result": "tile:number"}

    def verify_op(self) -> None:
        a, b = elem(self.source), elem(self.result)
        if bitwidth(a) != bitwidth(b):
            raise VerifyException(f"source and result element types must have the same bit width, got "
                                  f"{ct_type_str(a)} and {ct_type_str(b)}")


@_lazy_op
class IntToPtrOp(_Convert):
    name = "cuda_tile.int_to_ptr"
    VALUE_TYPES: ClassVar = {"source": "tile:i64", "result": "tile:ptr"}


@_lazy_op
class PtrToIntOp(_Convert):
    name = "cuda_tile.ptr_to_int"
    VALUE_TYPES: ClassVar = {"source": "tile:ptr", "result": "tile:i64"}


@_lazy_op
class PtrToPtrOp(_Convert):
    name = "cuda_tile.ptr_to_ptr"
    VALUE_TYPES: ClassVar = {"source": "tile:ptr", "result": "tile:ptr"}


class _ConvertElements(CtOp):
    """A pure elementwise conversion ``from_`` -> ``to`` that keeps the shape."""

    from_ = operand_def(TileType)
    to = result_def(TileType)
    SAME_SHAPE: ClassVar = (("from_", "to"),)
    traits = traits_def(Pure())


@_lazy_op
class ExtIOp(_ConvertElements):
    name = "cuda_tile.exti"
    signedness = prop_def(A.SignednessAttr)
    FMT: ClassVar = "$from_ custom<Signedness>($signedness) attr-dict `:` type($from_) `->` type($to)"
    VALUE_TYPES: ClassVar = {"from_": "tile:int4", "to": "tile:int4"}

    def verify_op(self) -> None:
        if bitwidth(elem(self.from_)) >= bitwidth(elem(self.to)):
            raise VerifyException("extending to smaller or identical integer")


@_lazy_op
class TruncIOp(_ConvertElements):
    name = "cuda_tile.trunci"
    overflow = opt_prop_def(A.IntegerOverflowAttr, default_value=A.IntegerOverflowAttr(A.IntegerOverflow.NONE))
    FMT: ClassVar = "$from_ (`overflow` `` $overflow^)? attr-dict `:` type($from_) `->` type($to)"
    PROP_SYNTAX: ClassVar = {"overflow": ("angle", A.IntegerOverflowAttr)}
    VALUE_TYPES: ClassVar = {"from_": "tile:int4", "to": "tile:int4"}

    def verify_op(self) -> None:
        if bitwidth(elem(self.from_)) <= bitwidth(elem(self.to)):
            raise VerifyException("truncating to larger or identical integer")


@_lazy_op
class FToFOp(_ConvertElements):
    name = "cuda_tile.ftof"
    rounding_mode = opt_prop_def(A.RoundingModeAttr, default_value=A.RoundingModeAttr(A.RoundingMode.NEAREST_EVEN))
    FMT: ClassVar = "$from_ custom<IEEERoundingMode>($rounding_mode) attr-dict `:` type($from_) `->` type($to)"
    VALUE_TYPES: ClassVar = {"from_": "tile:float", "to": "tile:float"}

    def verify_op(self) -> None:
        if self.from_.type == self.to.type:
            raise VerifyException("converting tiles must not be a no-op")
        rm = (self.rounding_mode or A.RoundingModeAttr(A.RoundingMode.NEAREST_EVEN)).data
        if isinstance(elem(self.to), Float8E8M0FNUType):
            if rm not in (A.RoundingMode.ZERO, A.RoundingMode.POSITIVE_INF):
                raise VerifyException("invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and "
                                      "'positive_inf' are supported")
        elif rm not in (A.RoundingMode.NEAREST_EVEN, A.RoundingMode.ZERO):
            # cuTile 1.7 emits 'zero' for astype(..., rounding_mode=RZ) of f32 to f16 / bf16
            raise VerifyException("invalid rounding mode specified. Only 'nearest_even' and 'zero' are supported")


class _ConvertIntFloat(_ConvertElements):
    """An integer <-> float conversion: how integers are read and how values are rounded."""

    signedness = prop_def(A.SignednessAttr)
    rounding_mode = prop_def(A.RoundingModeAttr)


@_lazy_op
class FToIOp(_ConvertIntFloat):
    """``saturating`` (bytecode 13.4, cuTile 1.7's flag; it writes it off): out-of-range values
    clamp to the integer range.  The lowering saturates either way, as the spec says ``ftoi`` does
    (PTX ``cvt.rzi`` for 16-64-bit results; through i32 and a clamp for i8 / i1:
    ``cudatile_to_tileaa._ftoi``)."""

    name = "cuda_tile.ftoi"
    saturating = opt_prop_def(UnitAttr)
    FMT: ClassVar = ("$from_ custom<Signedness>($signedness) custom<IntegerRoundingMode>($rounding_mode) "
                     "(`saturating` $saturating^)? attr-dict `:` type($from_) `->` type($to)")
    PROP_SYNTAX: ClassVar = {"saturating": "unit"}
    VALUE_TYPES: ClassVar = {"from_": "tile:float", "to": "tile:int"}

    def verify_op(self) -> None:
        if self.rounding_mode.data != A.RoundingMode.NEAREST_INT_TO_ZERO:
            raise VerifyException("invalid rounding mode specified. Only 'nearest_int_to_zero' is supported")


@_lazy_op
class IToFOp(_ConvertIntFloat):
    name = "cuda_tile.itof"
    FMT: ClassVar = ("$from_ custom<Signedness>($signedness) custom<IEEERoundingMode>($rounding_mode) attr-dict "
           "`:` type($from_) `->` type($to)")
    VALUE_TYPES: ClassVar = {"from_": "tile:int", "to": "tile:float"}

    def verify_op(self) -> None:
        if isinstance(elem(self.to), Float8E8M0FNUType):
            raise VerifyException("integer to f8E8M0FNU conversion is not supported, please first convert to another "
                                  "float type")
        if self.rounding_mode.data != A.RoundingMode.NEAREST_EVEN:
            raise VerifyException("invalid rounding mode specified. Only 'nearest_even' is supported")


# =========================================================================== shape ops
@_lazy_op
class ConstantOp(CtOp):
    name = "cuda_tile.constant"
    value = prop_def(A.DenseConstantAttr)
    result = result_def(TileType)
    FMT: ClassVar = "custom<DenseTypedElementsAttr>($value, type($result)) attr-dict"
    VALUE_TYPES: ClassVar = {"result": "tile:number"}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        if self.value.type != self.result.type:
            raise VerifyException("failed to verify that all of {value, result} have same type")


@_lazy_op
class IotaOp(CtOp):
    name = "cuda_tile.iota"
    result = result_def(TileType)
    FMT: ClassVar = "attr-dict `:` type($result)"
    VALUE_TYPES: ClassVar = {"result": "tile:int"}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        t = self.result.type
        if t.rank != 1:
            raise VerifyException(f"expects result type to be 1-d tile, but got {t.rank}-d tile")
        w = bitwidth(t.element_type)
        if t.shape[0] > (1 << (w - 1 if w > 1 else 1)) and not (w == 64):
            raise VerifyException(f"the number of elements {t.shape[0]} exceeds the maximum value of element type "
                                  f"{ct_type_str(t.element_type)}")


@_lazy_op
class BroadcastOp(_SourceToResult):
    name = "cuda_tile.broadcast"
    SAME_ELEM: ClassVar = (("source", "result"),)
    SAME_RANK: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:any", "result": "tile:any"}

    def verify_op(self) -> None:
        s, r = self.source.type.shape, self.result.type.shape
        for i, (a, b) in enumerate(zip(s, r)):
            if a != b and a != 1:
                raise VerifyException(f"source dimension #{i} of size {a} cannot be broadcast to size {b}")


@_lazy_op
class ReshapeOp(_SourceToResult):
    name = "cuda_tile.reshape"
    SAME_ELEM: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:any", "result": "tile:any"}

    def verify_op(self) -> None:
        if self.source.type.num_elements() != self.result.type.num_elements():
            raise VerifyException(f"expected source tile and result tile to have the same number of elements, got "
                                  f"{self.source.type.num_elements()} and {self.result.type.num_elements()}")


@_lazy_op
class PermuteOp(_SourceToResult):
    name = "cuda_tile.permute"
    permutation = prop_def(DenseArrayBase)
    FMT: ClassVar = "$source $permutation attr-dict `:` type($source) `->` type($result)"
    PROP_SYNTAX: ClassVar = {"permutation": "i32array"}
    SAME_ELEM: ClassVar = (("source", "result"),)
    SAME_RANK: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:any", "result": "tile:any"}

    def verify_op(self) -> None:
        perm = list(self.permutation.get_values())
        s, r = self.source.type.shape, self.result.type.shape
        if len(s) < 2:
            # cuTile 1.7 writes this for ct.permute(x, (0,)) of a rank-1 tile (CUDA Tile IR rejects it)
            raise VerifyException(f"expects at least rank 2, but got: {len(s)} (cuTile writes 'cuda_tile.permute' for "
                                  "ct.permute of a rank-1 tile: that permute is the identity, leave it out)")
        if len(perm) != len(s):
            raise VerifyException(f"expected permutation of size {len(s)}, got {len(perm)}")
        if sorted(perm) != list(range(len(s))):
            raise VerifyException("permutation must be a permutation of [0, rank)")
        for i, p in enumerate(perm):
            if r[i] != s[p]:
                raise VerifyException(f"result dimension {i} should be {s[p]} (source dimension {p}), got {r[i]}")


@_lazy_op
class CatOp(CtOp):
    name = "cuda_tile.cat"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    result = result_def(TileType)
    dim = prop_def(IntegerAttr)
    FMT: ClassVar = "$lhs `,` $rhs `dim` `=` $dim attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"
    PROP_SYNTAX: ClassVar = {"dim": "i64"}
    SAME_RANK: ClassVar = (("lhs", "rhs", "result"),)
    SAME_ELEM: ClassVar = (("lhs", "rhs", "result"),)
    VALUE_TYPES: ClassVar = {"lhs": "tile:any", "rhs": "tile:any", "result": "tile:any"}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        d = self.dim.value.data
        a, b, r = self.lhs.type.shape, self.rhs.type.shape, self.result.type.shape
        if not 0 <= d < len(a):
            raise VerifyException(f"dim {d} is out of range for rank {len(a)}")
        for i in range(len(a)):
            if i == d:
                if a[i] + b[i] != r[i]:
                    raise VerifyException(f"result dimension {i} must be {a[i] + b[i]}, got {r[i]}")
            elif not a[i] == b[i] == r[i]:
                raise VerifyException(f"dimension {i} must match across operands and result")


@_lazy_op
class ExtractOp(CtOp):
    name = "cuda_tile.extract"
    source = operand_def(TileType)
    indices = var_operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = "$source `[` $indices `]` attr-dict `:` type($source) `->` type($result)"
    SAME_RANK: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:any", "indices": "scalar:i32", "result": "tile:any"}
    traits = traits_def(Pure())

    @staticmethod
    def infer_types(types, st):
        types.setdefault("indices", [TileType((), IntegerType(32))] * len(st.operands.get("indices", [])))

    def verify_op(self) -> None:
        if len(self.indices) != self.source.type.rank:
            raise VerifyException(f"expected {self.source.type.rank} indices, got {len(self.indices)}")
        if elem(self.source) != elem(self.result):
            raise VerifyException("source and result must have the same element type")
        for i, (s, r) in enumerate(zip(self.source.type.shape, self.result.type.shape)):
            if s % r:
                raise VerifyException(f"result dimension {i} ({r}) must divide source dimension ({s})")


@_lazy_op
class InsertOp(CtOp):
    """``destination`` with the sub-tile at grid index ``indices`` replaced by ``source`` (13.4;
    cuTile's ``ct.insert``): the inverse of ``extract``, ``source``'s shape divides the
    destination's."""

    name = "cuda_tile.insert"
    source = operand_def(TileType)
    destination = operand_def(TileType)
    indices = var_operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = ("$source `,` $destination `[` $indices `]` attr-dict `:` type($source) `,` type($destination) "
                     "`->` type($result)")
    SAME_TYPE: ClassVar = (("destination", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:any", "destination": "tile:any", "indices": "scalar:i32",
                             "result": "tile:any"}
    traits = traits_def(Pure())

    @staticmethod
    def infer_types(types, st):
        types.setdefault("indices", [TileType((), IntegerType(32))] * len(st.operands.get("indices", [])))

    def verify_op(self) -> None:
        dst = self.destination.type
        if len(self.indices) != dst.rank:
            raise VerifyException(f"expected {dst.rank} indices, got {len(self.indices)}")
        if elem(self.source) != elem(self.destination):
            raise VerifyException("source and destination must have the same element type")
        if self.source.type.rank not in (0, dst.rank):
            raise VerifyException(f"source of rank {self.source.type.rank} for a destination of rank {dst.rank}")
        for i, (s, d) in enumerate(zip(self.source.type.shape, dst.shape)):
            if s <= 0 or d % s:
                raise VerifyException(f"source dimension {i} ({s}) must divide destination dimension ({d})")


@_lazy_op
class OffsetOp(CtOp):
    name = "cuda_tile.offset"
    ptr = operand_def(TileType)
    offset = operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset) `->` type($result)"
    SAME_TYPE: ClassVar = (("ptr", "result"),)
    SAME_SHAPE: ClassVar = (("ptr", "offset", "result"),)
    VALUE_TYPES: ClassVar = {"ptr": "tile:ptr", "offset": "tile:int", "result": "tile:ptr"}
    traits = traits_def(Pure())


@_lazy_op
class PackOp(_SourceToResult):
    name = "cuda_tile.pack"
    SAME_RANK: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:number4", "result": "tile:i8"}

    def verify_op(self) -> None:
        _verify_pack(self.source.type, self.result.type, self.source.type)


@_lazy_op
class UnpackOp(_SourceToResult):
    name = "cuda_tile.unpack"
    SAME_RANK: ClassVar = (("source", "result"),)
    VALUE_TYPES: ClassVar = {"source": "tile:i8", "result": "tile:number4"}

    def verify_op(self) -> None:
        _verify_pack(self.source.type, self.result.type, self.result.type)


def _verify_pack(src: TileType, res: TileType, unpacked: TileType) -> None:
    if src.rank != 1 or res.rank != 1:
        raise VerifyException("expects source and result to be rank-1 tiles")
    if bitwidth(src.element_type) == bitwidth(res.element_type):
        raise VerifyException("expects source and result to have different element type widths")
    sb = src.num_elements() * bitwidth(src.element_type) // 8
    rb = res.num_elements() * bitwidth(res.element_type) // 8
    if sb != rb:
        raise VerifyException(f"expects source and result to have the same size in bytes, but got source tile size "
                              f"{sb} bytes and result tile size {rb} bytes")


# ---- MMA
class _Mma(CtOp):
    """``lhs x rhs + acc`` (rank 2, or 3 with a batch dimension) as a pure op; the subclass adds
    its modifiers and element rules."""

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    acc = operand_def(TileType)
    result = result_def(TileType)
    SAME_TYPE: ClassVar = (("acc", "result"),)
    SAME_ELEM: ClassVar = (("lhs", "rhs"),)
    SAME_RANK: ClassVar = (("lhs", "rhs", "acc"),)
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        _verify_mma_shapes(self)


@_lazy_op
class MmaFOp(_Mma):
    name = "cuda_tile.mmaf"
    fast_acc = opt_prop_def(UnitAttr)
    FMT: ClassVar = ("$lhs `,` $rhs `,` $acc (`fast_acc` $fast_acc^)? attr-dict `:` type($lhs) `,` type($rhs) `,` "
           "type($acc)")
    PROP_SYNTAX: ClassVar = {"fast_acc": "unit"}
    VALUE_TYPES: ClassVar = {"lhs": "tile:mma_in", "rhs": "tile:mma_in", "acc": "tile:mma_acc", "result": "tile:mma_acc"}

    def verify_op(self) -> None:
        super().verify_op()
        a, c = elem(self.lhs), elem(self.acc)
        from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, FloatTF32Type
        allowed = {Float16Type: (Float16Type, Float32Type), BFloat16Type: (Float32Type,), FloatTF32Type: (Float32Type,),
                   Float32Type: (Float32Type,), Float64Type: (Float64Type,)}.get(type(a), (Float16Type, Float32Type))
        if not isinstance(c, allowed):
            raise VerifyException(f"unsupported combination of element types. Input type '{ct_type_str(a)}' expects "
                                  f"accumulator/result type to be one of {{"
                                  + ", ".join(f"'{t().name}'" for t in allowed) + f"}}, but got '{ct_type_str(c)}'")


def _verify_mma_shapes(op) -> None:
    a, b, c = op.lhs.type.shape, op.rhs.type.shape, op.acc.type.shape
    if len(a) not in (2, 3):
        raise VerifyException(f"expected operands of rank 2 or 3, got rank {len(a)}")
    if len(a) == 3 and not a[0] == b[0] == c[0]:
        raise VerifyException("batch dimensions of lhs, rhs and acc must match")
    m, k = a[-2], a[-1]
    k2, n = b[-2], b[-1]
    if k != k2:
        raise VerifyException(f"lhs K dimension ({k}) must match rhs K dimension ({k2})")
    if (c[-2], c[-1]) != (m, n):
        raise VerifyException(f"acc shape must be {m}x{n}, got {c[-2]}x{c[-1]}")


@_lazy_op
class MmaIOp(_Mma):
    name = "cuda_tile.mmai"
    signedness_lhs = prop_def(A.SignednessAttr)
    signedness_rhs = prop_def(A.SignednessAttr)
    FMT: ClassVar = ("$lhs `,` $rhs `,` $acc custom<Signedness>($signedness_lhs) custom<Signedness>($signedness_rhs) "
           "attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc)")
    VALUE_TYPES: ClassVar = {"lhs": "tile:i8", "rhs": "tile:i8", "acc": "tile:i32", "result": "tile:i32"}


@_lazy_op
class MmaFScaledOp(CtOp):
    name = "cuda_tile.mmaf_scaled"
    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    acc = operand_def(TileType)
    lhs_scale = operand_def(TileType)
    rhs_scale = operand_def(TileType)
    result = result_def(TileType)
    FMT: ClassVar = ("$lhs `,` $rhs `,` $acc `,` $lhs_scale `,` $rhs_scale attr-dict `:` type($lhs) `,` type($rhs) `,` "
           "type($acc) `,` type($lhs_scale) `,` type($rhs_scale)")
    SAME_TYPE: ClassVar = (("acc", "result"),)
    SAME_ELEM: ClassVar = (("lhs", "rhs"), ("lhs_scale", "rhs_scale"))
    SAME_RANK: ClassVar = (("lhs", "rhs", "acc", "lhs_scale", "rhs_scale"),)
    VALUE_TYPES: ClassVar = {"lhs": "tile:mmas_in", "rhs": "tile:mmas_in", "acc": "tile:f32", "result": "tile:f32",
                   "lhs_scale": "tile:mmas_scale", "rhs_scale": "tile:mmas_scale"}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        from xdsl.dialects.builtin import Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type

        _verify_mma_shapes(self)
        a, b = self.lhs.type.shape, self.rhs.type.shape
        sa, sb = self.lhs_scale.type.shape, self.rhs_scale.type.shape
        batched = 1 if len(a) == 3 else 0
        row, col = batched, batched + 1
        if batched and (a[0] != sa[0] or b[0] != sb[0]):
            raise VerifyException(f"shape error: dim 0 of lhs ({a[0]}) and dim 0 of lhs_scale ({sa[0]}) must match")
        if a[row] != sa[row]:
            raise VerifyException(f"shape error: dim {row} of lhs ({a[row]}) and dim {row} of lhs_scale ({sa[row]}) "
                                  "must match")
        if b[col] != sb[col]:
            raise VerifyException(f"shape error: dim {col} of rhs ({b[col]}) and dim {col} of rhs_scale ({sb[col]}) "
                                  "must match")
        if sa[col] != sb[row]:
            raise VerifyException(f"shape error: dim {col} of lhs_scale ({sa[col]}) and dim {row} of rhs_scale "
                                  f"({sb[row]}) must match")
        et, st = elem(self.lhs), elem(self.lhs_scale)
        if isinstance(st, Float8E4M3FNType) and not isinstance(et, Float4E2M1FNType):
            raise VerifyException(f"unsupported combination of element types. Scale type '{ct_type_str(st)}' expects "
                                  f"lhs and rhs element types to be 'f4E2M1FN', but got '{ct_type_str(et)}'")
        if a[col] % sa[col]:
            raise VerifyException(f"shape error: dim {col} of lhs_scale ({sa[col]}) must be a divisor of dim {col} of "
                                  f"lhs ({a[col]})")
        vec = a[col] // sa[col]
        if isinstance(et, (Float8E4M3FNType, Float8E5M2Type)) and vec != 32:
            raise VerifyException(f"shape error: f8 element type requires block scale factor of lhs_scale and "
                                  f"rhs_scale to be 32, but got {vec}")
        if isinstance(et, Float4E2M1FNType):
            if isinstance(st, Float8E4M3FNType) and vec != 16:
                raise VerifyException(f"shape error: f4E2M1FN element type with f8E4M3FN scales requires block scale "
                                      f"factor of lhs_scale and rhs_scale to be 16, but got {vec}")
            if isinstance(st, Float8E8M0FNUType) and vec not in (16, 32):
                raise VerifyException(f"shape error: f4E2M1FN element type with f8E8M0FNU scales requires block scale "
                                      f"factor of lhs_scale and rhs_scale to be 16 or 32, but got {vec}")


# =========================================================================== structure
def _print_op_stripped(printer: Printer, op) -> None:
    """Print ``op`` with the ``cuda_tile.`` prefix left out (inside ``cuda_tile.module``)."""
    from xdsl.printer import Printer as _P

    if not isinstance(op, CtOp) or printer.print_generic_format:
        _P.print_op(printer, op)
        return
    scope = bool(op.get_traits_of_type(IsolatedFromAbove))
    if len(op.results) > 1 and len(op.get_irdl_definition().results) == 1:  # one variadic group: %name:N
        name = printer.print_ssa_value(op.results[0])
        printer.print_string(f":{len(op.results)} = ")
        for i, r in enumerate(op.results):
            printer._ssa_values[r] = f"{name}#{i}"  # noqa: SLF001
    else:
        printer._print_results(op)  # noqa: SLF001
    if scope:
        printer.enter_scope()
    printer.print_string(op.name.split(".", 1)[1])
    op.print(printer)
    if printer.print_debuginfo:
        printer.print_string(" ")
        printer.print_attribute(op.location)
    if scope:
        printer.exit_scope()


class _SymbolTableAtDefinition(SymbolTable):
    """xDSL's ``SymbolTable``, its redefinition error located at the second definition of the
    name (the user's line) rather than at the module's first line."""

    def verify(self, op) -> None:
        seen: set[str] = set()
        for child in op.regions[0].ops:
            name = child.properties.get("sym_name") or child.attributes.get("sym_name")
            if isinstance(name, StringAttr):
                if name.data in seen:
                    from tileorch.diagnostics import LocatedError

                    raise LocatedError(child, f'Redefinition of symbol "{name.data}"')
                seen.add(name.data)
        super().verify(op)


@_eager_op
class ModuleOp(CtOp):
    """``cuda_tile.module @name { ... }``: the unit of compilation; ops inside omit ``cuda_tile.``."""

    name = "cuda_tile.module"
    sym_name = prop_def(StringAttr)
    producer = opt_prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolOpInterface(), _SymbolTableAtDefinition())

    @classmethod
    def parse(cls, parser: Parser):
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        props = {"sym_name": name}
        extra = dict(attrs.data) if attrs else {}
        if "producer" in extra:
            props["producer"] = extra.pop("producer")
        return cls.build(properties=props, attributes=extra, regions=[region])

    def print(self, printer: Printer) -> None:
        printer.print_string(" @" + self.sym_name.data)
        attrs = dict(self.attributes)
        if self.producer is not None:
            attrs["producer"] = self.producer
        if attrs:
            printer.print_string(" attributes ")
            printer.print_attr_dict(attrs)
        printer.print_string(" ")
        had = "print_op" in printer.__dict__
        printer.print_op = lambda op: _print_op_stripped(printer, op)
        try:
            printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=False)
        finally:
            if not had:
                del printer.print_op

    def verify_op(self) -> None:
        for op in self.body.block.ops:
            if not isinstance(op, (EntryOp, GlobalOp, TestFuncOp)) and op.name.startswith("cuda_tile."):
                from tileorch.diagnostics import LocatedError  # at the op, not the module's first line

                raise LocatedError(op, f"'{op.name}' is not allowed at module level (expected entry or global)")
        from tileorch.dialects.cuda_tile.debuginfo import verify_module_scopes

        verify_module_scopes(self, (EntryOp, TestFuncOp))


class _FuncBase(CtOp):
    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr)
    res_attrs = opt_prop_def(ArrayAttr)
    optimization_hints = opt_prop_def(A.OptimizationHintsAttr)
    body = region_def("single_block")

    @classmethod
    def parse(cls, parser: Parser):
        name = parser.parse_symbol_name()
        args = D.parse_arg_list(parser)
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                if parser.parse_optional_punctuation(")") is None:
                    results = parse_ct_type_list(parser)
                    parser.parse_punctuation(")")
            else:
                results = [parse_ct_type(parser)]
        props: dict[str, Attribute] = {"sym_name": name,
                                       "function_type": FunctionType.from_lists([a.type for a in args], results)}
        if parser.parse_optional_keyword("optimization_hints") is not None:
            parser.parse_punctuation("=")
            props["optimization_hints"] = A.OptimizationHintsAttr(*A.OptimizationHintsAttr.parse_parameters(parser))
        region = parser.parse_region(args)
        D.ensure_terminator(region, ReturnOp)
        attrs = parser.parse_optional_attr_dict()
        return cls.build(properties=props, attributes=attrs, regions=[region])

    def print(self, printer: Printer) -> None:
        printer.print_string(" @" + self.sym_name.data)
        D.print_arg_list(printer, self.body.block)
        outs = self.function_type.outputs.data
        if outs:
            printer.print_string(" -> " + (ct_type_str(outs[0]) if len(outs) == 1 else
                                           "(" + ", ".join(ct_type_str(t) for t in outs) + ")"))
        h = self.optimization_hints
        if h is not None and h.value.data:
            printer.print_string(" optimization_hints=" + h.short_str())
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_block_terminators=True,
                             print_empty_block=False)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)


@_eager_op
class EntryOp(_FuncBase):
    """``entry @kernel(%a: tile<ptr<f32>>, ...) [optimization_hints=<...>] { ... }``: a kernel."""

    name = "cuda_tile.entry"
    traits = lazy_traits_def(lambda: (IsolatedFromAbove(), SymbolOpInterface(), HasParent(ModuleOp)))

    def verify_op(self) -> None:
        ins = self.function_type.inputs.data
        if self.function_type.outputs.data:
            raise VerifyException("entry op must not return values")
        verify_function_scopes(self, self.sym_name.data)
        block = self.body.block
        if tuple(a.type for a in block.args) != tuple(ins):
            raise VerifyException("entry block arguments must match the function type")
        for t in ins:
            # the open repository's rule: a tile argument is a scalar (rank 0); other CUDA Tile IR
            # types (token, views) are allowed; other dialects' types are not CUDA Tile IR
            if isinstance(t, TileType) and t.rank != 0:
                raise VerifyException(f"entry op arguments must be scalar tiles (rank 0 tile), got {ct_type_str(t)}")
            if not t.name.startswith("cuda_tile."):
                raise VerifyException(f"entry op arguments must be CUDA Tile IR types, got {ct_type_str(t)}")
        if self.optimization_hints is not None:
            _verify_hints(self, self.optimization_hints, ("num_cta_in_cga", "num_worker_warps_per_cta", "occupancy"))


@_eager_op
class TestFuncOp(_FuncBase):
    """``testing$func @f(%a: T, ...) -> R { ... }``: a function with any argument and result
    types (the specification's test harness op; not part of kernels)."""

    name = "cuda_tile.testing$func"
    traits = lazy_traits_def(lambda: (IsolatedFromAbove(), SymbolOpInterface()))

    def verify_op(self) -> None:
        block = self.body.block
        if tuple(a.type for a in block.args) != tuple(self.function_type.inputs.data):
            raise VerifyException("entry block arguments must match the function type")
        verify_function_scopes(self, self.sym_name.data)


STRICT_HINTS = False
"""When set (tileiras's ``-Werr-hints``), unknown or out-of-range optimization hints are errors;
by default they are ignored, as the specification asks."""


def _verify_hints(op, hints: A.OptimizationHintsAttr, allowed: tuple[str, ...]) -> None:
    if not STRICT_HINTS:
        return
    for arch, d in hints.value.data.items():
        if arch not in A.KNOWN_ARCH_KEYS and arch != "default":
            raise VerifyException(f"Optimization hints verification failed: unknown hint key {arch}")
        if not isinstance(d, DictionaryAttr):
            raise VerifyException(f"optimization hints for '{arch}' must be a dictionary")
        for k, v in d.data.items():
            if k not in allowed:
                raise VerifyException(f"unknown optimization hint '{k}' for {op.name.split('.', 1)[1]} "
                                      f"(allowed: {', '.join(allowed)})")
            if k in ("num_cta_in_cga", "num_worker_warps_per_cta", "occupancy", "latency"):
                if not isinstance(v, IntegerAttr):
                    raise VerifyException(f"optimization hint '{k}' must be an integer")
                n = v.value.data
                if k == "num_cta_in_cga" and (n <= 0 or n & (n - 1) or n > 16):
                    raise VerifyException(f"num_cta_in_cga must be a power of two in [1, 16], got {n}")
                if k == "occupancy" and not 1 <= n <= 32:
                    raise VerifyException(f"occupancy must be in [1, 32], got {n}")
                if k == "latency" and not 1 <= n <= 10:
                    raise VerifyException(f"latency must be in [1, 10], got {n}")
                if k == "num_worker_warps_per_cta" and (n <= 0 or n & (n - 1) or n > 32):
                    raise VerifyException(f"expected power-of-two <= 32 for {arch}.num_worker_warps_per_cta")
            if k == "allow_tma" and not isinstance(v, IntegerAttr):  # (a BoolAttr is an i1 IntegerAttr)
                raise VerifyException("optimization hint 'allow_tma' must be a boolean")


@_eager_op
class GlobalOp(CtOp):
    name = "cuda_tile.global"
    sym_name = prop_def(StringAttr)
    value = prop_def(A.DenseConstantAttr)
    alignment = opt_prop_def(IntegerAttr, default_value=IntegerAttr(0, 64))
    constant = opt_prop_def(UnitAttr)
    symbol_visibility = opt_prop_def(A.SymbolVisibilityAttr,
                                     default_value=A.SymbolVisibilityAttr(A.SymbolVisibility.PUBLIC))
    FMT: ClassVar = ("custom<SymbolVisibility>($symbol_visibility) (`constant` $constant^)? $sym_name "
                     "(`alignment` `=` $alignment^)? attr-dict custom<DenseTypedElementsAttrNoResult>($value)")
    PROP_SYNTAX: ClassVar = {"constant": "unit", "sym_name": "sym", "alignment": "i64"}
    traits = traits_def(SymbolOpInterface())

    def verify_op(self) -> None:
        if self.alignment is not None:
            a = self.alignment.value.data
            if a != 0 and (a < 0 or a & (a - 1)):
                raise VerifyException(f"alignment must be a power of two, got {a}")
        if self.value.type.rank != 1:
            raise VerifyException(f"global value must be a 1-d tile, got {self.value.type.short_str()}")


@_lazy_op
class GetGlobalOp(CtOp):
    name = "cuda_tile.get_global"
    global_name = prop_def(SymbolRefAttr, prop_name="name")
    result = result_def(TileType)
    FMT: ClassVar = "$global_name attr-dict `:` type($result)"
    PROP_SYNTAX: ClassVar = {"global_name": "flatsym", "name": "flatsym"}
    VALUE_TYPES: ClassVar = {"result": "scalar:ptr"}
    traits = traits_def(Pure())

    def verify_op(self) -> None:
        module = self.parent_op()
        while module is not None and not isinstance(module, ModuleOp):
            module = module.parent_op()
        if module is None:
            return
        target = self.global_name.root_reference.data
        for op in module.body.block.ops:
            if isinstance(op, GlobalOp) and op.sym_name.data == target:
                if elem(self.result).pointee != op.value.element_type:
                    raise VerifyException(f"result pointee type must match the element type of global @{target}")
                return
        raise VerifyException(f"'@{target}' does not reference a valid global")


class _Terminator(CtOp):
    operands_ = var_operand_def()
    FMT: ClassVar = "attr-dict ($operands_^ `:` type($operands_))?"


@_eager_op
class ReturnOp(_Terminator):
    name = "cuda_tile.return"
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(EntryOp, IfOp, TestFuncOp)))

    def verify_op(self) -> None:
        fn = self.parent_op()
        while isinstance(fn, IfOp):
            fn = fn.parent_op()
        if isinstance(fn, TestFuncOp):
            _check_values("return", self.operands_, list(fn.function_type.outputs.data))
        elif self.operands_:
            raise VerifyException("entry functions cannot return values")


@_eager_op
class YieldOp(_Terminator):
    name = "cuda_tile.yield"
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(IfOp, ReduceOp, ScanOp)))

    def verify_op(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, (ReduceOp, ScanOp)):
            return


def _check_values(what: str, values, expected: list[Attribute]) -> None:
    got = [v.type for v in values]
    if len(got) != len(expected):
        raise VerifyException(f"'{what}' has {len(got)} operands, but its parent expects {len(expected)}")
    for i, (g, e) in enumerate(zip(got, expected)):
        if g != e:
            raise VerifyException(f"'{what}' operand #{i} has type {ct_type_str(g)}, but its parent expects "
                                  f"{ct_type_str(e)}")


def _no_view_values(what: str, types) -> None:
    for i, t in enumerate(types):
        if isinstance(t, TensorViewType):
            raise VerifyException(f"{what} {i} is a tensor_view, which is not supported")
        if isinstance(t, TileViewType):
            raise VerifyException(f"{what} {i} is a tile view, which is not supported")


def _enclosing_loop(op):
    p = op.parent_op()
    while isinstance(p, IfOp):
        p = p.parent_op()
    return p


@_eager_op
class ContinueOp(_Terminator):
    name = "cuda_tile.continue"
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ForOp, IfOp, LoopOp)))

    def verify_op(self) -> None:
        loop = _enclosing_loop(self)
        if isinstance(loop, ForOp):
            _check_values("continue", self.operands_, [r.type for r in loop.results])
        elif isinstance(loop, LoopOp):
            _check_values("continue", self.operands_, [v.type for v in loop.initValues])
        else:
            raise VerifyException("'continue' must be nested in a 'for' or 'loop'")


@_lazy_op
class BreakOp(_Terminator):
    name = "cuda_tile.break"
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(IfOp, LoopOp)))

    def verify_op(self) -> None:
        loop = _enclosing_loop(self)
        if not isinstance(loop, LoopOp):
            raise VerifyException("'break' must be nested in a 'loop'")
        _check_values("break", self.operands_, [r.type for r in loop.results])


def _loop_iter_verify(op, results, iter_args, inits) -> None:
    if len(inits) != len(iter_args):
        raise VerifyException("mismatch in number of loop-carried values and region arguments")
    for i, (a, v) in enumerate(zip(iter_args, inits)):
        if a.type != v.type:
            raise VerifyException(f"iter value #{i} type {ct_type_str(v.type)} does not match its region argument "
                                  f"type {ct_type_str(a.type)}")


def _parse_assignments(parser: Parser):
    parser.parse_punctuation("(")
    names, values = [], []
    while True:
        names.append(parser.parse_argument(expect_type=False))
        parser.parse_punctuation("=")
        values.append(parser.parse_unresolved_operand())
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation(")")
    return names, values


def _print_assignments(printer: Printer, args, values) -> None:
    printer.print_string("iter_values(")
    for i, (a, v) in enumerate(zip(args, values)):
        if i:
            printer.print_string(", ")
        printer.print_operand(a)
        printer.print_string(" = ")
        printer.print_operand(v)
    printer.print_string(")")


@_eager_op
class ForOp(CtOp):
    """``for [unsigned] %i in (%lb to %ub, step %s) : tile<i32> [iter_values(%a = %x) -> (T)] { ... }``"""

    name = "cuda_tile.for"
    lowerBound = operand_def(TileType)
    upperBound = operand_def(TileType)
    step = operand_def(TileType)
    initValues = var_operand_def()
    resultValues = var_result_def()
    unsignedCmp = opt_prop_def(UnitAttr)
    region = region_def("single_block")
    SAME_TYPE: ClassVar = (("lowerBound", "upperBound", "step"),)
    VALUE_TYPES: ClassVar = {"lowerBound": "scalar:int", "upperBound": "scalar:int", "step": "scalar:int"}
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser):
        unsigned = parser.parse_optional_keyword("unsigned") is not None
        iv = parser.parse_argument(expect_type=False)
        parser.parse_keyword("in")
        parser.parse_punctuation("(")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        ivt = parse_ct_type(parser)
        names, inits, types = [], [], []
        if parser.parse_optional_keyword("iter_values") is not None:
            start = pos(parser)
            names, inits = _parse_assignments(parser)
            parser.parse_punctuation("->")
            parser.parse_punctuation("(")
            types = parse_ct_type_list(parser)
            parser.parse_punctuation(")")
            if len(types) != len(inits):
                error_at(parser, start, "mismatch in number of loop-carried values and defined values")
        args = [iv.resolve(ivt)] + [n.resolve(t) for n, t in zip(names, types)]
        region = parser.parse_region(args)
        D.ensure_terminator(region, ContinueOp)
        attrs = parser.parse_optional_attr_dict()
        operands = [parser.resolve_operand(lb, ivt), parser.resolve_operand(ub, ivt), parser.resolve_operand(step, ivt),
                    [parser.resolve_operand(v, t) for v, t in zip(inits, types)]]
        props = {"unsignedCmp": UnitAttr()} if unsigned else {}
        if "unsignedCmp" in attrs:
            props["unsignedCmp"] = attrs.pop("unsignedCmp")
        return cls.build(operands=operands, result_types=[types], properties=props, attributes=attrs,
                         regions=[region])

    def print(self, printer: Printer) -> None:
        block = self.region.block
        if self.unsignedCmp is not None:
            printer.print_string(" unsigned")
        printer.print_string(" ")
        printer.print_operand(block.args[0])
        printer.print_string(" in (")
        printer.print_operand(self.lowerBound)
        printer.print_string(" to ")
        printer.print_operand(self.upperBound)
        printer.print_string(", step ")
        printer.print_operand(self.step)
        printer.print_string(") : " + ct_type_str(block.args[0].type) + " ")
        if self.initValues:
            _print_assignments(printer, block.args[1:], self.initValues)
            printer.print_string(" -> (" + ", ".join(ct_type_str(v.type) for v in self.initValues) + ") ")
        D.print_cf_region(printer, self.region, ContinueOp)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)

    def verify_op(self) -> None:
        block = self.region.block
        if not block.args:
            raise VerifyException("expected at least one block argument for induction variable")
        if block.args[0].type != self.lowerBound.type:
            raise VerifyException("expected induction variable to be same type as bounds and step: "
                                  f"{ct_type_str(block.args[0].type)} vs {ct_type_str(self.lowerBound.type)}")
        _no_view_values("loop-carried value", [v.type for v in self.initValues])
        _loop_iter_verify(self, self.resultValues, block.args[1:], self.initValues)
        if [r.type for r in self.resultValues] != [v.type for v in self.initValues]:
            raise VerifyException("result types must match the iter_values types")


@_eager_op
class LoopOp(CtOp):
    """``loop [iter_values(%a = %x) : T] [-> R] { ... }`` (exited by ``break``)."""

    name = "cuda_tile.loop"
    initValues = var_operand_def()
    resultValues = var_result_def()
    region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser):
        names, inits, types, results = [], [], [], []
        if parser.parse_optional_keyword("iter_values") is None:
            if parser.parse_optional_punctuation(":") is not None:
                results = parse_ct_type_list(parser)
        else:
            names, inits = _parse_assignments(parser)
            parser.parse_punctuation(":")
            start = pos(parser)
            types = parse_ct_type_list(parser)
            if len(types) != len(names):
                error_at(parser, start, "found different number of iter_values and types")
            if parser.parse_optional_punctuation("->") is not None:
                results = parse_ct_type_list(parser)
        args = [n.resolve(t) for n, t in zip(names, types)]
        region = parser.parse_region(args)
        D.ensure_terminator(region, ContinueOp)
        attrs = parser.parse_optional_attr_dict()
        operands = [[parser.resolve_operand(v, t) for v, t in zip(inits, types)]]
        return cls.build(operands=operands, result_types=[results], attributes=attrs, regions=[region])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        block = self.region.block
        if self.initValues:
            _print_assignments(printer, block.args, self.initValues)
            printer.print_string(" ")
        if self.initValues or self.resultValues:
            printer.print_string(": ")
        if self.initValues:
            printer.print_string(", ".join(ct_type_str(v.type) for v in self.initValues) + " ")
            if self.resultValues:
                printer.print_string("-> ")
        if self.resultValues:
            printer.print_string(", ".join(ct_type_str(r.type) for r in self.resultValues) + " ")
        D.print_cf_region(printer, self.region, ContinueOp)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)

    def verify_op(self) -> None:
        _no_view_values("result type", [r.type for r in self.resultValues])
        _no_view_values("loop-carried value", [v.type for v in self.initValues])
        _loop_iter_verify(self, self.resultValues, self.region.block.args, self.initValues)


@_eager_op
class IfOp(CtOp):
    name = "cuda_tile.if"
    condition = operand_def(TileType)
    results_ = var_result_def()
    thenRegion = region_def()
    elseRegion = region_def()
    FMT: ClassVar = ("$condition (`->` `(` type($results_)^ `)`)? custom<IfOpRegion>($thenRegion) "
                     "(`else` custom<IfOpRegion>($elseRegion)^)? attr-dict")
    VALUE_TYPES: ClassVar = {"condition": "scalar:i1"}
    traits = traits_def(RecursiveMemoryEffect())

    @staticmethod
    def implicit_terminator() -> type[CtOp]:
        """The terminator ``custom<IfOpRegion>`` leaves out when it has no operands."""
        return YieldOp

    @staticmethod
    def infer_types(types, st):
        types.setdefault("condition", [TileType((), IntegerType(1))])
        types.setdefault("results_", [])

    def verify_op(self) -> None:
        if len(self.thenRegion.blocks) != 1:
            raise VerifyException("'then' region must have exactly one block")
        if self.results_ and not self.elseRegion.blocks:
            raise VerifyException("must have an else block if defining values")
        _no_view_values("result type", [r.type for r in self.results_])
        want = [r.type for r in self.results_]
        for which, region in (("then", self.thenRegion), ("else", self.elseRegion)):
            if not region.blocks:
                continue
            term = region.blocks[0].last_op
            if not isinstance(term, YieldOp):
                continue
            got = [v.type for v in term.operands_]
            if not want and got:
                raise VerifyException(f"does not return a value, but {which} branch yields '{ct_type_str(got[0])}'")
            if len(got) != len(want):
                raise VerifyException(f"{which} branch yields {len(got)} values, but the op has {len(want)} results")
            for g, w in zip(got, want):
                if g != w:
                    raise VerifyException(f"type does not match yield type, {which} branch yields "
                                          f"'{ct_type_str(g)}' but op result type is '{ct_type_str(w)}'")


@_lazy_op
class AssertOp(CtOp):
    name = "cuda_tile.assert"
    condition = operand_def(TileType)
    message = prop_def(StringAttr)
    FMT: ClassVar = "$condition `,` $message attr-dict `:` type($condition)"
    PROP_SYNTAX: ClassVar = {"message": "str"}
    VALUE_TYPES: ClassVar = {"condition": "tile:i1"}


@_lazy_op
class AssumeOp(CtOp):
    name = "cuda_tile.assume"
    value = operand_def()
    predicate = prop_def(Attribute)
    result = result_def()
    FMT: ClassVar = "custom<AssumePredicate>($predicate) `,` $value attr-dict `:` type($value)"
    SAME_TYPE: ClassVar = (("value", "result"),)

    def verify_op(self) -> None:
        p = self.predicate
        t = self.value.type
        if not isinstance(p, A.AssumePredicate):
            raise VerifyException("expected an assume predicate attribute")
        if isinstance(p, A.DivByAttr):
            d = p.divisor.data
            if d >= 2**63:
                raise VerifyException("'cuda_tile.div_by' divisor is too large")
            if isinstance(t, TensorViewType) and p.every.data >= 0:
                raise VerifyException("'cuda_tile.div_by' 'every'/'along' cannot be used if the constrained value is a "
                                      "tensor_view")
            if d & (d - 1):
                raise VerifyException(f"divisor must be a power of 2, got {d}")
            if not isinstance(t, (TileType, TensorViewType)) and not is_int(t):
                raise VerifyException("div_by predicate applies to integer or pointer tiles")
            if isinstance(t, TileType):
                e = t.element_type
                if not (is_int(e) or isinstance(e, PointerType)):
                    raise VerifyException(f"div_by predicate requires integer or pointer elements, got "
                                          f"{ct_type_str(e)}")
                if p.every.data >= 0:
                    if p.along.data < 0 or p.along.data >= t.rank:
                        raise VerifyException(f"'along' must be in [0, {t.rank}), got {p.along.data}")
                    ev = p.every.data
                    if ev <= 0 or ev & (ev - 1):
                        raise VerifyException(f"'every' must be a positive power of 2, got {ev}")
                    if ev > t.shape[p.along.data]:
                        raise VerifyException(f"'every' ({ev}) exceeds dimension {p.along.data} "
                                              f"({t.shape[p.along.data]})")
        elif isinstance(p, A.SameElementsAttr):
            vals = [v.data for v in p.values.data]
            if not isinstance(t, TileType) or not (is_int(t.element_type) or isinstance(t.element_type, PointerType)):
                raise VerifyException("'cuda_tile.same_elements' is valid only for tile of integer/pointer values")
            if len(vals) != t.rank:
                raise VerifyException(f"expected {t.rank} values in same_elements, got {len(vals)}")
            for i, (v, d) in enumerate(zip(vals, t.shape)):
                if v <= 0 or v & (v - 1) or d % v:
                    raise VerifyException(f"same_elements value #{i} ({v}) must be a power of 2 dividing {d}")
        elif isinstance(p, A.BoundedAttr):
            if not isinstance(t, TileType) or not is_int(t.element_type):
                raise VerifyException("bounded predicate requires an integer tile")
            lb, ub = p.bound("lb"), p.bound("ub")
            if lb is not None and ub is not None and lb > ub:
                raise VerifyException(f"lower bound ({lb}) must not exceed upper bound ({ub})")
            w = bitwidth(t.element_type)
            lo, hi = (0, 1) if w == 1 else (-(2 ** (w - 1)), 2 ** (w - 1) - 1)
            for which, b in (("lower", lb), ("upper", ub)):
                if b is not None and not lo <= b <= hi:
                    raise VerifyException(f"'cuda_tile.bounded' expects {which} bound to be within [{lo}, {hi}]")


class _ReduceLike(CtOp):
    operands_ = var_operand_def(TileType)
    results_ = var_result_def(TileType)
    dim = prop_def(IntegerAttr)
    identities = prop_def(ArrayAttr)
    body = region_def("single_block")
    PROP_SYNTAX: ClassVar = {"dim": "i32", "reverse": "bool"}
    traits = traits_def(RecursiveMemoryEffect())

    def _verify_common(self, result_shape_fn) -> None:
        ops = list(self.operands_)
        if not ops:
            raise VerifyException("expected at least one operand")
        if len(self.results_) != len(ops):
            raise VerifyException(f"expected {len(ops)} results, got {len(self.results_)}")
        shape = ops[0].type.shape
        if any(o.type.shape != shape for o in ops):
            raise VerifyException("all operands must have the same shape")
        d = self.dim.value.data
        if d < 0 or d >= len(shape):
            raise VerifyException(f"dim {d} is out of range for operands of rank {len(shape)}")
        ids = self.identities.data
        if len(ids) != len(ops):
            raise VerifyException(f"expected {len(ops)} identities, got {len(ids)}")
        for i, (o, r, ident) in enumerate(zip(ops, self.results_, ids)):
            expect = TileType(result_shape_fn(shape, d), o.type.element_type)
            if r.type != expect:
                raise VerifyException(f"result #{i} must be {expect.short_str()}, got {ct_type_str(r.type)}")
            if isinstance(ident, IntegerAttr) or hasattr(ident, "type"):
                it = ident.type
                if it != o.type.element_type:
                    raise VerifyException(f"identity #{i} type must match operand element type "
                                          f"{ct_type_str(o.type.element_type)}")
        block = self.body.block
        if len(block.args) != 2 * len(ops):
            raise VerifyException(f"expected {2 * len(ops)} region arguments, got {len(block.args)}")
        for i, o in enumerate(ops):
            st = TileType((), o.type.element_type)
            for a in (block.args[2 * i], block.args[2 * i + 1]):
                if a.type != st:
                    raise VerifyException(f"region argument types must be {st.short_str()}, got "
                                          f"{ct_type_str(a.type)}")
        term = block.last_op
        if not isinstance(term, YieldOp):
            raise VerifyException("region must end with 'yield'")
        from xdsl.traits import is_side_effect_free

        for op in block.ops:
            if op is not term and not is_side_effect_free(op):
                from tileorch.diagnostics import LocatedError

                raise LocatedError(op, f"'{op.name}' op only pure operations are allowed inside '{self.name}'")
        if [v.type for v in term.operands_] != [TileType((), o.type.element_type) for o in ops]:
            from tileorch.diagnostics import LocatedError

            # at the yield (the line the user got wrong), not at the reduce / scan (sweep 30)
            raise LocatedError(term, "'yield' must return one scalar tile per operand with its element type")


@_eager_op
class ReduceOp(_ReduceLike):
    name = "cuda_tile.reduce"
    FMT: ClassVar = ("$operands_ attr-dict ` ` `dim` `` `=` `` $dim `identities` `` `=` `` $identities "
                     "`:` type($operands_) `->` type($results_) custom<ArgumentRegion>($body)")

    def verify_op(self) -> None:
        self._verify_common(lambda s, d: s[:d] + s[d + 1:])


@_eager_op
class ScanOp(_ReduceLike):
    name = "cuda_tile.scan"
    reverse = prop_def(BoolAttr)
    FMT: ClassVar = ("$operands_ attr-dict ` ` `dim` `` `=` `` $dim `reverse` `` `=` `` $reverse `identities` `` "
                     "`=` `` $identities `:` type($operands_) `->` type($results_) custom<ArgumentRegion>($body)")

    def verify_op(self) -> None:
        self._verify_common(lambda s, d: s)


# =========================================================================== grid
@_lazy_op
class GetTileBlockIdOp(CtOp):
    name = "cuda_tile.get_tile_block_id"
    blockId_x = result_def(TileType)
    blockId_y = result_def(TileType)
    blockId_z = result_def(TileType)
    FMT: ClassVar = "attr-dict `:` type($blockId_x)"
    SAME_TYPE: ClassVar = (("blockId_x", "blockId_y", "blockId_z"),)
    VALUE_TYPES: ClassVar = {"blockId_x": "scalar:i32", "blockId_y": "scalar:i32", "blockId_z": "scalar:i32"}
    traits = traits_def(Pure())


@_lazy_op
class GetNumTileBlocksOp(CtOp):
    name = "cuda_tile.get_num_tile_blocks"
    gridSize_x = result_def(TileType)
    gridSize_y = result_def(TileType)
    gridSize_z = result_def(TileType)
    FMT: ClassVar = "attr-dict `:` type($gridSize_x)"
    SAME_TYPE: ClassVar = (("gridSize_x", "gridSize_y", "gridSize_z"),)
    VALUE_TYPES: ClassVar = {"gridSize_x": "scalar:i32", "gridSize_y": "scalar:i32", "gridSize_z": "scalar:i32"}
    traits = traits_def(Pure())


# =========================================================================== views
def _parse_mixed(parser: Parser):
    """``[%d0, 128, ...]``: constants and SSA values."""
    parser.parse_punctuation("[")
    elems: list[int] = []
    vals = []
    if parser.parse_optional_punctuation("]") is not None:
        return elems, vals
    while True:
        start = pos(parser)
        v = parser.parse_optional_integer(allow_boolean=False)
        if v is not None:
            elems.append(v)
        elif _peek(parser).kind.name == "PERCENT_IDENT":
            vals.append(parser.parse_unresolved_operand())
            elems.append(DYNAMIC)
        else:
            error_at(parser, start, "expected either integer or SSA value")
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("]")
    return elems, vals


def _print_mixed(printer: Printer, elems, dyn) -> None:
    it = iter(dyn)
    printer.print_string("[")
    for i, e in enumerate(elems):
        if i:
            printer.print_string(", ")
        if e == DYNAMIC:
            printer.print_operand(next(it))
        else:
            printer.print_string(str(e))
    printer.print_string("]")


@_lazy_op
class MakeTensorViewOp(CtOp):
    """``make_tensor_view %base, shape = [%m, 128], strides = [128, 1] : tile<i32> -> tensor_view<..>``"""

    name = "cuda_tile.make_tensor_view"
    base = operand_def(TileType)
    dynamicShape = var_operand_def(TileType)
    dynamicStrides = var_operand_def(TileType)
    result = result_def(TensorViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    VALUE_TYPES: ClassVar = {"base": "scalar:ptr", "dynamicShape": "scalar:int", "dynamicStrides": "scalar:int"}
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser):
        base = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("shape")
        parser.parse_punctuation("=")
        sstart = pos(parser)
        shape, dshape = _parse_mixed(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("strides")
        parser.parse_punctuation("=")
        tstart = pos(parser)
        strides, dstrides = _parse_mixed(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        index_type = None
        if dshape or dstrides:
            index_type = parse_ct_type(parser)
            parser.parse_punctuation("->")
        vstart = pos(parser)
        tv = parse_ct_type(parser)
        if not isinstance(tv, TensorViewType):
            error_at(parser, vstart, f"expected 'tensor_view' type, but got {ct_type_str(tv)}")
        for what, got, want, at in (("shape", shape, tv.shape, sstart), ("strides", strides, tv.strides, tstart)):
            if len(got) != len(want):
                error_at(parser, at, f"expected {what} declaration to contain {len(want)} elements due to "
                                     f"tensor_view type, but {len(got)} were provided")
            for i, (g, w) in enumerate(zip(got, want)):
                if g != w:
                    gs = "dynamic" if g == DYNAMIC else str(g)
                    ws = "dynamic" if w == DYNAMIC else str(w)
                    error_at(parser, at, f"input {what} dimension {i} does not match tensor_view type (expected "
                                         f"{ws}, got {gs})")
        ptr_t = TileType((), PointerType(tv.element_type))
        operands = [parser.resolve_operand(base, ptr_t), [parser.resolve_operand(v, index_type) for v in dshape],
                    [parser.resolve_operand(v, index_type) for v in dstrides]]
        attrs.pop("operandSegmentSizes", None)
        return cls.build(operands=operands, result_types=[tv], attributes=attrs)

    def print(self, printer: Printer) -> None:
        tv = self.result.type
        printer.print_string(" ")
        printer.print_operand(self.base)
        printer.print_string(", shape = ")
        _print_mixed(printer, tv.shape, self.dynamicShape)
        printer.print_string(", strides = ")
        _print_mixed(printer, tv.strides, self.dynamicStrides)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : ")
        dyn = list(self.dynamicShape) + list(self.dynamicStrides)
        if dyn:
            printer.print_string(ct_type_str(dyn[0].type) + " -> ")
        printer.print_string(ct_type_str(tv))

    def verify_op(self) -> None:
        tv = self.result.type
        if elem(self.base).pointee != tv.element_type:
            raise VerifyException("base pointer element type must match the tensor_view element type")
        if len(self.dynamicShape) != tv.num_dynamic_shape():
            raise VerifyException(f"expected {tv.num_dynamic_shape()} dynamic shape operands, got "
                                  f"{len(self.dynamicShape)}")
        if len(self.dynamicStrides) != tv.num_dynamic_strides():
            raise VerifyException(f"expected {tv.num_dynamic_strides()} dynamic stride operands, got "
                                  f"{len(self.dynamicStrides)}")
        dyn = list(self.dynamicShape) + list(self.dynamicStrides)
        if any(v.type != dyn[0].type for v in dyn):
            raise VerifyException("all dynamic shape and stride operands must have the same type")


class _MakeView(CtOp):
    tensor_view = operand_def(TensorViewType)
    traits = traits_def(Pure())
    VIEW_CLS: ClassVar = PartitionViewType

    @classmethod
    def parse(cls, parser: Parser):
        tv = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        start = pos(parser)
        t = parse_ct_type(parser)
        if not isinstance(t, cls.VIEW_CLS):
            error_at(parser, start, f"expected '{cls.VIEW_CLS.name.split('.', 1)[1]}' type, but got {ct_type_str(t)}")
        return cls.build(operands=[parser.resolve_operand(tv, t.tensor_view)], result_types=[t], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor_view)
        if self.attributes:
            printer.print_string(" ")
            printer.print_attr_dict(self.attributes)
        printer.print_string(" : " + ct_type_str(self.result.type))

    def verify_op(self) -> None:
        if self.tensor_view.type != self.result.type.tensor_view:
            raise VerifyException(f"expected the type of the provided tensor_view value "
                                  f"({ct_type_str(self.tensor_view.type)}) to be the same as the view's tensor_view "
                                  f"type ({ct_type_str(self.result.type.tensor_view)})")


@_lazy_op
class MakePartitionViewOp(_MakeView):
    name = "cuda_tile.make_partition_view"
    result = result_def(PartitionViewType)
    VIEW_CLS: ClassVar = PartitionViewType


@_lazy_op
class MakeStridedViewOp(_MakeView):
    name = "cuda_tile.make_strided_view"
    result = result_def(StridedViewType)
    VIEW_CLS: ClassVar = StridedViewType


@_lazy_op
class MakeGatherScatterViewOp(_MakeView):
    name = "cuda_tile.make_gather_scatter_view"
    result = result_def(GatherScatterViewType)
    VIEW_CLS: ClassVar = GatherScatterViewType


class _GetShape(CtOp):
    src = operand_def()
    result = var_result_def(TileType)
    traits = traits_def(Pure())
    SRC_CLS: ClassVar = TileViewType

    def _rank(self, t) -> int:
        return t.view_index_rank() if isinstance(t, TileViewType) else len(t.shape)

    @classmethod
    def parse(cls, parser: Parser):
        src = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        start = pos(parser)
        st = parse_ct_type(parser)
        parser.parse_punctuation("->")
        rt = parse_ct_type(parser)
        if not isinstance(st, cls.SRC_CLS):
            what = "tile view" if cls.SRC_CLS is TileViewType else "tensor_view"
            error_at(parser, start, f"expected {what}, got {ct_type_str(st)}")
        n = st.view_index_rank() if isinstance(st, TileViewType) else len(st.shape)
        return cls.build(operands=[parser.resolve_operand(src, st)], result_types=[[rt] * n])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        printer.print_string(" : " + ct_type_str(self.src.type) + " -> ")
        printer.print_string(ct_type_str(self.result[0].type) if self.result else "tile<i32>")

    def verify_op(self) -> None:
        t = self.src.type
        if not isinstance(t, self.SRC_CLS):
            raise VerifyException(f"unexpected source type {ct_type_str(t)}")
        n = self._rank(t)
        if len(self.result) != n:
            raise VerifyException(f"expected {n} results due to rank, but got {len(self.result)}")
        for r in self.result:
            if not isinstance(r.type, TileType) or r.type.rank != 0 or not is_int(r.type.element_type):
                raise VerifyException(f"results must be scalar integer tiles, got {ct_type_str(r.type)}")
        if any(r.type != self.result[0].type for r in self.result):
            raise VerifyException("all results must have the same type")


@_lazy_op
class GetIndexSpaceShapeOp(_GetShape):
    name = "cuda_tile.get_index_space_shape"
    SRC_CLS: ClassVar = TileViewType


@_lazy_op
class GetTensorShapeOp(_GetShape):
    name = "cuda_tile.get_tensor_shape"
    SRC_CLS: ClassVar = TensorViewType


# =========================================================================== memory
_LOAD_ORDERINGS = ("weak", "relaxed", "acquire")
_STORE_ORDERINGS = ("weak", "relaxed", "release")


def _parse_mem_attrs(parser: Parser, st: ParseState) -> None:
    start = pos(parser)
    word = parser.parse_optional_identifier()
    if word not in [v.value for v in A.MemoryOrdering]:
        error_at(parser, start, f'invalid memory_ordering_semantics attribute specification. Got "{word}" but expect '
                                "one of: weak, relaxed, acquire, release, acq_rel")
    st.props["memory_ordering_semantics"] = A.MemoryOrderingAttr(A.MemoryOrdering(word))
    tok = _peek(parser)
    if tok.kind.name == "BARE_IDENT":
        s2 = pos(parser)
        if word == "weak":
            error_at(parser, s2, f'operation specifies weak memory ordering semantics, but then provides '
                                 f'"{tok.text}" scope, expected no memory scope.')
        scope = parser.parse_optional_identifier()
        if scope not in [v.value for v in A.MemoryScope]:
            error_at(parser, s2, f'invalid memory_scope attribute specification. Got "{scope}" but expect one of: '
                                 "tl_blk, device, sys")
        st.props["memory_scope"] = A.MemoryScopeAttr(A.MemoryScope(scope))


def _print_mem_attrs(printer: Printer, op) -> None:
    printer.print_string(" " + op.memory_ordering_semantics.data.value)
    if op.memory_scope is not None:
        printer.print_string(" " + op.memory_scope.data.value)


def _verify_memory_model(op, allowed: tuple[str, ...]) -> None:
    sem = op.memory_ordering_semantics.data.value
    if sem not in allowed:
        raise VerifyException(f"memory ordering semantics '{sem}' is not allowed here (expected one of: "
                              f"{', '.join(allowed)})")
    scope = op.memory_scope
    if sem == "weak" and scope is not None:
        raise VerifyException("weak memory ordering semantics must not specify a memory scope")
    if sem != "weak" and scope is None:
        raise VerifyException(f"memory ordering semantics '{sem}' requires a memory scope")


def _parse_view_index(parser: Parser):
    """``%view[%i, %j]``: the view and its index operands, unresolved."""
    view = parser.parse_unresolved_operand()
    parser.parse_punctuation("[")
    index = parse_operand_list(parser)
    parser.parse_punctuation("]")
    return view, index


def _print_view_index(printer: Printer, op) -> None:
    """The inverse of :func:`_parse_view_index`."""
    printer.print_operand(op.view)
    printer.print_string("[")
    printer.print_list(op.index, printer.print_operand)
    printer.print_string("]")


def _parse_view_types(parser: Parser, index) -> tuple[Attribute, list[Attribute]]:
    """``VIEW[, INDEX_TYPE...] ->``: the view type and one type per index operand (one type
    written once stands for all of them)."""
    vt = parse_ct_type(parser)
    its = _parse_index_types(parser, len(index))
    if index and not its:
        parser.raise_error("index types must be specified when indices are present")
    parser.parse_punctuation("->")
    return vt, its


def _print_view_types(printer: Printer, op) -> None:
    """The inverse of :func:`_parse_view_types`."""
    printer.print_string(ct_type_str(op.view.type))
    _print_index_types(printer, op.index)
    printer.print_string(" -> ")


def _parse_index_types(parser: Parser, n: int) -> list[Attribute]:
    if parser.parse_optional_punctuation(",") is None:
        return []
    start = pos(parser)
    first = parse_ct_type(parser)
    types = [first]
    if _peek(parser).text == ",":
        while parser.parse_optional_punctuation(",") is not None:
            types.append(parse_ct_type(parser))
    else:
        types = [first] * n
    if len(types) != n:
        error_at(parser, start, f"expected {n} index types, got {len(types)}")
    return types


def _print_index_types(printer: Printer, index) -> None:
    ts = [v.type for v in index]
    if not ts:
        return
    if all(t == ts[0] for t in ts):
        printer.print_string(", " + ct_type_str(ts[0]))
    else:
        for t in ts:
            printer.print_string(", " + ct_type_str(t))


def _resolve_view_operands(parser: Parser, view, vt: Attribute, index, its: list[Attribute]):
    """The resolved view operand and index operand list."""
    return parser.resolve_operand(view, vt), [parser.resolve_operand(u, t) for u, t in zip(index, its)]


def _parse_token(parser: Parser):
    """``[token = %t]``: the unresolved token operand or None."""
    if parser.parse_optional_keyword("token") is None:
        return None
    parser.parse_punctuation("=")
    return parser.parse_unresolved_operand()


def _resolve_token(parser: Parser, token) -> list:
    """The optional token operand's operand list (empty when absent)."""
    return [parser.resolve_operand(token, TokenType())] if token else []


def _parse_attrs_inbounds(parser: Parser, st: ParseState) -> None:
    """``[attributes {...}]``; its ``inbounds`` entry is the op's ``inbounds`` property."""
    attrs = parser.parse_optional_attr_dict_with_keyword()
    if attrs is not None:
        st.attrs.update(attrs.data)
    if "inbounds" in st.attrs:
        st.props["inbounds"] = st.attrs.pop("inbounds")


def _parse_token_hints(parser: Parser, st: ParseState):
    token = _parse_token(parser)
    if parser.parse_optional_keyword("optimization_hints") is not None:
        parser.parse_punctuation("=")
        st.props["optimization_hints"] = A.OptimizationHintsAttr(*A.OptimizationHintsAttr.parse_parameters(parser))
    _parse_attrs_inbounds(parser, st)
    return token


def _print_token(printer: Printer, op) -> None:
    if op.token is not None:
        printer.print_string(" token = ")
        printer.print_operand(op.token)


def _print_attrs_inbounds(printer: Printer, op) -> None:
    """The inverse of :func:`_parse_attrs_inbounds` (an all-false ``inbounds`` is left out)."""
    attrs = dict(op.attributes)
    if op.inbounds is not None and any(op.inbounds.get_values()):
        attrs["inbounds"] = op.inbounds
    if attrs:
        printer.print_string(" attributes ")
        printer.print_attr_dict(attrs)


def _print_token_hints(printer: Printer, op) -> None:
    _print_token(printer, op)
    if op.optimization_hints is not None:
        printer.print_string(" optimization_hints = " + op.optimization_hints.short_str())
    _print_attrs_inbounds(printer, op)


def _verify_inbounds(op) -> None:
    """``inbounds``: one i1 per index operand (``array<i1: true, false>``)."""
    ib = op.inbounds
    if ib is None:
        return
    if ib.elt_type != IntegerType(1):
        raise VerifyException(f"'inbounds' must be an array of i1, got elements of type {ct_type_str(ib.elt_type)}")
    if len(ib.get_values()) != len(op.index):
        raise VerifyException(f"'inbounds' has {len(ib.get_values())} entries, expected one per index operand "
                              f"({len(op.index)})")


def _tile_view_type(op) -> TileViewType:
    vt = op.view.type
    if not isinstance(vt, TileViewType):
        raise VerifyException(f"expected a tile view, got {ct_type_str(vt)}")
    return vt


def _verify_view_indices(op, vt: TileViewType, tile_type) -> None:
    """The index operands and the accessed tile type against the view type, and ``inbounds``."""
    idx = [v.type for v in op.index]
    if len(idx) != vt.view_index_rank():
        raise VerifyException(f"expected {vt.view_index_rank()} index operands (based on view type), got {len(idx)}")
    if tile_type != vt.view_tile_type():
        raise VerifyException(f"expected tile type to be {vt.view_tile_type().short_str()} (based on view type), got "
                              f"{ct_type_str(tile_type)}")
    vt.verify_indices(idx)
    _verify_inbounds(op)


def _verify_view_access(op, tile_type) -> None:
    _verify_view_indices(op, _tile_view_type(op), tile_type)
    if op.optimization_hints is not None:
        _verify_hints(op, op.optimization_hints, ("allow_tma", "latency"))


class _ViewLoadStore(CtOp):
    """What ``load_view_tko`` and ``store_view_tko`` share: the properties (in this order),
    the index operands' types and the verifier (view access, then the memory orderings the
    subclass allows)."""

    memory_ordering_semantics = prop_def(A.MemoryOrderingAttr)
    memory_scope = opt_prop_def(A.MemoryScopeAttr)
    optimization_hints = opt_prop_def(A.OptimizationHintsAttr)
    inbounds = opt_prop_def(DenseArrayBase)  # 13.4: per-dimension "index known in bounds"
    VALUE_TYPES: ClassVar = {"index": "tile:int"}  # the specification's Variadic<CudaTile_IntTileType>
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    ORDERINGS: ClassVar[tuple[str, ...]] = ()

    def verify_op(self) -> None:
        _verify_view_access(self, self.tile.type)
        _verify_memory_model(self, self.ORDERINGS)


@_lazy_op
class LoadViewTkoOp(_ViewLoadStore):
    """``load_view_tko weak %view[%i, %j] [token = %t] : VIEW, tile<i32> -> tile<..>, token``"""

    name = "cuda_tile.load_view_tko"
    view = operand_def()
    index = var_operand_def(TileType)
    token = opt_operand_def(TokenType)
    tile = result_def(TileType)
    result_token = result_def(TokenType)
    ORDERINGS: ClassVar = _LOAD_ORDERINGS

    @classmethod
    def parse(cls, parser: Parser):
        st = ParseState()
        _parse_mem_attrs(parser, st)
        view, index = _parse_view_index(parser)
        token = _parse_token_hints(parser, st)
        parser.parse_punctuation(":")
        vt, its = _parse_view_types(parser, index)
        rt = parse_ct_type(parser)
        parser.parse_punctuation(",")
        tt = parse_ct_type(parser)
        operands = [*_resolve_view_operands(parser, view, vt, index, its), _resolve_token(parser, token)]
        return cls.build(operands=operands, result_types=[rt, tt], properties=st.props, attributes=st.attrs)

    def print(self, printer: Printer) -> None:
        _print_mem_attrs(printer, self)
        printer.print_string(" ")
        _print_view_index(printer, self)
        _print_token_hints(printer, self)
        printer.print_string(" : ")
        _print_view_types(printer, self)
        printer.print_string(ct_type_str(self.tile.type) + ", " + ct_type_str(self.result_token.type))


@_lazy_op
class StoreViewTkoOp(_ViewLoadStore):
    """``store_view_tko weak %tile, %view[%i, %j] [token = %t] : tile<..>, VIEW, tile<i32> -> token``"""

    name = "cuda_tile.store_view_tko"
    tile = operand_def(TileType)
    view = operand_def()
    index = var_operand_def(TileType)
    token = opt_operand_def(TokenType)
    result_token = result_def(TokenType)
    ORDERINGS: ClassVar = _STORE_ORDERINGS

    @classmethod
    def parse(cls, parser: Parser):
        st = ParseState()
        _parse_mem_attrs(parser, st)
        tile = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view, index = _parse_view_index(parser)
        token = _parse_token_hints(parser, st)
        parser.parse_punctuation(":")
        tlt = parse_ct_type(parser)
        parser.parse_punctuation(",")
        vt, its = _parse_view_types(parser, index)
        tt = parse_ct_type(parser)
        operands = [parser.resolve_operand(tile, tlt), *_resolve_view_operands(parser, view, vt, index, its),
                    _resolve_token(parser, token)]
        return cls.build(operands=operands, result_types=[tt], properties=st.props, attributes=st.attrs)

    def print(self, printer: Printer) -> None:
        _print_mem_attrs(printer, self)
        printer.print_string(" ")
        printer.print_operand(self.tile)
        printer.print_string(", ")
        _print_view_index(printer, self)
        _print_token_hints(printer, self)
        printer.print_string(" : " + ct_type_str(self.tile.type) + ", ")
        _print_view_types(printer, self)
        printer.print_string(ct_type_str(self.result_token.type))


@_lazy_op
class AtomicRedViewTkoOp(CtOp):
    name = "cuda_tile.atomic_red_view_tko"
    memory_ordering_semantics = prop_def(A.MemoryOrderingAttr)
    memory_scope = opt_prop_def(A.MemoryScopeAttr)
    mode = prop_def(A.AtomicRMWModeAttr)
    inbounds = opt_prop_def(DenseArrayBase)  # 13.5: per-dimension "index known in bounds"
    view = operand_def()
    index = var_operand_def(TileType)
    value = operand_def(TileType)
    token = opt_operand_def(TokenType)
    result_token = result_def(TokenType)
    VALUE_TYPES: ClassVar = {"index": "tile:int"}  # the specification's Variadic<CudaTile_IntTileType>
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser):
        st = ParseState()
        _parse_mem_attrs(parser, st)
        view, index = _parse_view_index(parser)
        parser.parse_punctuation(",")
        start = pos(parser)
        mode = parser.parse_optional_identifier()
        if mode not in [m.value for m in A.AtomicRMWMode]:
            error_at(parser, start, f"unknown atomic RMW mode: '{mode}'")
        st.props["mode"] = A.AtomicRMWModeAttr(A.AtomicRMWMode(mode))
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        token = _parse_token(parser)
        _parse_attrs_inbounds(parser, st)
        parser.parse_punctuation(":")
        valt = parse_ct_type(parser)
        parser.parse_punctuation(",")
        vt, its = _parse_view_types(parser, index)
        tt = parse_ct_type(parser)
        operands = [*_resolve_view_operands(parser, view, vt, index, its), parser.resolve_operand(value, valt),
                    _resolve_token(parser, token)]
        return cls.build(operands=operands, result_types=[tt], properties=st.props, attributes=st.attrs)

    def print(self, printer: Printer) -> None:
        _print_mem_attrs(printer, self)
        printer.print_string(" ")
        _print_view_index(printer, self)
        printer.print_string(", " + self.mode.data.value + ", ")
        printer.print_operand(self.value)
        _print_token(printer, self)
        _print_attrs_inbounds(printer, self)
        printer.print_string(" : " + ct_type_str(self.value.type) + ", ")
        _print_view_types(printer, self)
        printer.print_string(ct_type_str(self.result_token.type))

    def verify_op(self) -> None:
        vt = _tile_view_type(self)
        if isinstance(vt, GatherScatterViewType):
            raise VerifyException("gather_scatter_view is not supported; use partition_view instead")
        if vt.padding_value is not None:
            raise VerifyException("views with padding_value are not supported for atomic reductions")
        _verify_view_indices(self, vt, self.value.type)
        if self.memory_ordering_semantics.data != A.MemoryOrdering.RELAXED:
            raise VerifyException("atomic_red_view_tko supports only 'relaxed' memory ordering semantics")
        if self.memory_scope is None or self.memory_scope.data not in (A.MemoryScope.TL_BLK, A.MemoryScope.DEVICE):
            raise VerifyException("atomic_red_view_tko requires memory scope 'tl_blk' or 'device'")
        if self.mode.data == A.AtomicRMWMode.XCHG:
            raise VerifyException("atomic_red_view_tko does not support mode 'xchg'")
        _verify_rmw_mode(self.mode.data, elem(self.value))


def _verify_rmw_mode(mode: A.AtomicRMWMode, et: Attribute) -> None:
    M = A.AtomicRMWMode
    if mode in (M.AND, M.OR, M.XOR, M.ADD, M.MAX, M.MIN, M.UMAX, M.UMIN):
        if not is_int(et, (32, 64)):
            raise VerifyException(f"'{mode.value}' works only with integers i32 and i64")
    elif mode == M.ADDF:
        from tileorch.dialects.cuda_tile.types import BASE_FLOAT_TYPES

        if not is_float(et, BASE_FLOAT_TYPES):
            raise VerifyException(f"'{mode.value}' works only with floats f16, bf16, f32, and f64")
    elif mode == M.XCHG:
        if not (is_int(et) or is_float(et)) or bitwidth(et) not in (32, 64):
            raise VerifyException(f"'{mode.value}' works only with integers or float of 32 or 64 bitwidth")


def _infer_token_type(types, st) -> None:
    """A written ``token = %t`` operand is a ``!cuda_tile.token`` (its type is not spelled)."""
    if st.operands.get("token"):
        types["token"] = [TokenType()]


def _verify_mask_shape(op, operand: str) -> None:
    """``mask`` (when given) has the shape of the pointer operand ``operand``."""
    if op.mask is not None and op.mask.type.shape != getattr(op, operand).type.shape:
        raise VerifyException(f"shape of 'mask' must match the shape of '{operand}'")


def _verify_atomic_access(op, value) -> None:
    """An atomic's ordering (not weak) and its pointers' pointee against ``value``'s elements."""
    sem = op.memory_ordering_semantics.data.value
    if sem not in ("relaxed", "acquire", "release", "acq_rel"):
        raise VerifyException(f"memory ordering semantics '{sem}' is not allowed for atomics")
    if elem(op.pointers).pointee != elem(value):
        raise VerifyException("pointee type must match the value type")


class _PtrMemOp(CtOp):
    """The ordering properties, the hints' syntax, the operand segments and the token operand's
    type inference of the ``*_ptr_tko`` and pointer atomic ops."""

    memory_ordering_semantics = prop_def(A.MemoryOrderingAttr)
    memory_scope = opt_prop_def(A.MemoryScopeAttr)
    PROP_SYNTAX: ClassVar = {"memory_ordering_semantics": ("kw", A.MemoryOrderingAttr),
                             "memory_scope": ("kw", A.MemoryScopeAttr), "optimization_hints": "hints"}
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    infer_types = staticmethod(_infer_token_type)


@_lazy_op
class LoadPtrTkoOp(_PtrMemOp):
    name = "cuda_tile.load_ptr_tko"
    source = operand_def(TileType)
    mask = opt_operand_def(TileType)
    paddingValue = opt_operand_def(TileType)
    token = opt_operand_def(TokenType)
    optimization_hints = opt_prop_def(A.OptimizationHintsAttr)
    result = result_def(TileType)
    result_token = result_def(TokenType)
    FMT: ClassVar = ("$memory_ordering_semantics ($memory_scope^)? $source (`,` $mask^)? (`,` $paddingValue^)? "
                     "(`token` `` `=` `` $token^)? (`optimization_hints` `=` $optimization_hints^)? attr-dict `:` "
                     "type($source) (`,` type($mask)^)? (`,` type($paddingValue)^)? `->` type($result) `,` "
                     "type($result_token)")
    VALUE_TYPES: ClassVar = {"source": "tile:ptr", "mask": "tile:i1"}

    def verify_op(self) -> None:
        src, res = self.source.type, self.result.type
        if src.shape != res.shape or elem(src).pointee != res.element_type:
            raise VerifyException("`source` type is expected a pointer type of `result` type")
        _verify_mask_shape(self, "source")
        # a padding value without a mask is valid (the open dialect checks its type only) and
        # unused: cuTile writes one for a gather from a 0-d array, which has no bounds to check
        if self.paddingValue is not None and self.paddingValue.type != res:
            raise VerifyException("type of 'paddingValue' must match the type of 'result'")
        _verify_memory_model(self, _LOAD_ORDERINGS)
        if self.optimization_hints is not None:
            _verify_hints(self, self.optimization_hints, ("latency",))


@_lazy_op
class StorePtrTkoOp(_PtrMemOp):
    name = "cuda_tile.store_ptr_tko"
    destination = operand_def(TileType)
    value = operand_def(TileType)
    mask = opt_operand_def(TileType)
    token = opt_operand_def(TokenType)
    optimization_hints = opt_prop_def(A.OptimizationHintsAttr)
    result_token = result_def(TokenType)
    FMT: ClassVar = ("$memory_ordering_semantics ($memory_scope^)? $destination `,` $value (`,` $mask^)? "
                     "(`token` `` `=` `` $token^)? (`optimization_hints` `=` $optimization_hints^)? attr-dict `:` "
                     "type($destination) `,` type($value) (`,` type($mask)^)? `->` type($result_token)")
    VALUE_TYPES: ClassVar = {"destination": "tile:ptr", "mask": "tile:i1"}

    def verify_op(self) -> None:
        dst, val = self.destination.type, self.value.type
        if dst.shape != val.shape or elem(dst).pointee != val.element_type:
            raise VerifyException("`destination` type is expected a pointer type of `value` type")
        if self.mask is not None and self.mask.type.shape != dst.shape:
            raise VerifyException("shape of 'destination' must match the shape of 'mask'")
        _verify_memory_model(self, _STORE_ORDERINGS)
        if self.optimization_hints is not None:
            _verify_hints(self, self.optimization_hints, ("latency",))


class _PtrAtomic(_PtrMemOp):
    """An atomic on a tile of pointers: the operands after the subclass's own (xDSL lists a
    subclass's fields before its bases'), ``mask`` and ``token``, the old values and a token."""

    mask = opt_operand_def(TileType)
    token = opt_operand_def(TokenType)
    result = result_def(TileType)
    result_token = result_def(TokenType)
    VALUE_TYPES: ClassVar = {"pointers": "tile:ptr", "mask": "tile:i1"}


@_lazy_op
class AtomicCASTkoOp(_PtrAtomic):
    name = "cuda_tile.atomic_cas_tko"
    pointers = operand_def(TileType)
    cmp = operand_def(TileType)
    val = operand_def(TileType)
    FMT: ClassVar = ("$memory_ordering_semantics $memory_scope $pointers `,` $cmp `,` $val (`,` $mask^)? "
                     "(`token` `` `=` `` $token^)? attr-dict `:` type($pointers) `,` type($val) (`,` type($mask)^)? "
                     "`->` type($result) `,` type($result_token)")
    SAME_TYPE: ClassVar = (("cmp", "val", "result"),)
    SAME_SHAPE: ClassVar = (("pointers", "cmp", "val", "result"),)

    def verify_op(self) -> None:
        _verify_atomic_access(self, self.val)
        et = elem(self.val)
        if not (is_int(et) or is_float(et)) or bitwidth(et) not in (32, 64):
            raise VerifyException("atomic_cas_tko works only with 32- or 64-bit integers or floats")
        _verify_mask_shape(self, "pointers")


@_lazy_op
class AtomicRMWTkoOp(_PtrAtomic):
    name = "cuda_tile.atomic_rmw_tko"
    pointers = operand_def(TileType)
    mode = prop_def(A.AtomicRMWModeAttr)
    arg = operand_def(TileType)
    FMT: ClassVar = ("$memory_ordering_semantics $memory_scope $pointers `,` $mode `,` $arg (`,` $mask^)? "
                     "(`,` `token` `` `=` `` $token^)? attr-dict `:` type($pointers) `,` type($arg) "
                     "(`,` type($mask)^)? `->` type($result) `,` type($result_token)")
    PROP_SYNTAX: ClassVar = dict(_PtrMemOp.PROP_SYNTAX, mode=("kw", A.AtomicRMWModeAttr))
    SAME_TYPE: ClassVar = (("arg", "result"),)
    SAME_SHAPE: ClassVar = (("pointers", "arg", "result"),)

    def verify_op(self) -> None:
        _verify_atomic_access(self, self.arg)
        _verify_rmw_mode(self.mode.data, elem(self.arg))
        _verify_mask_shape(self, "pointers")


@_lazy_op
class MakeTokenOp(CtOp):
    name = "cuda_tile.make_token"
    result = result_def(TokenType)
    FMT: ClassVar = "attr-dict `:` type($result)"
    traits = traits_def(Pure())


class _GdcOp(CtOp):
    """Grid dependency control (13.4): ordered by an optional token, giving a token."""

    token = opt_operand_def(TokenType)
    result_token = result_def(TokenType)
    FMT: ClassVar = "(`token` `` `=` `` $token^)? attr-dict `->` type($result_token)"
    infer_types = staticmethod(_infer_token_type)


@_lazy_op
class GdcWaitTkoOp(_GdcOp):
    """Wait until the grids this one depends on (programmatic dependent launch) have completed
    and their memory is visible (cuTile's ``grid_dependency_control_wait``)."""

    name = "cuda_tile.gdc_wait_tko"


@_lazy_op
class GdcLaunchDependentsTkoOp(_GdcOp):
    """Allow the grids that depend on this one to start (cuTile's
    ``grid_dependency_control_launch_dependents``)."""

    name = "cuda_tile.gdc_launch_dependents_tko"


@_lazy_op
class JoinTokensOp(CtOp):
    name = "cuda_tile.join_tokens"
    tokens = var_operand_def(TokenType)
    result = result_def(TokenType)
    FMT: ClassVar = "$tokens attr-dict `:` type($result)"
    traits = traits_def(Pure())

    @staticmethod
    def infer_types(types, st):
        types["tokens"] = [TokenType()] * len(st.operands.get("tokens", []))

    def verify_op(self) -> None:
        if len(self.tokens) < 2:
            raise VerifyException(f"expect at least 2 tokens, but got {len(self.tokens)}")


@_lazy_op
class PrintTkoOp(CtOp):
    name = "cuda_tile.print_tko"
    str_ = prop_def(StringAttr, prop_name="str")
    args = var_operand_def(TileType)
    token = opt_operand_def(TokenType)
    result_token = result_def(TokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    FMT: ClassVar = ("$str_ (`,` $args^)? (`token` `` `=` `` $token^)? attr-dict (`:` type($args)^)? `->` "
                     "type($result_token)")
    PROP_SYNTAX: ClassVar = {"str_": "str"}
    infer_types = staticmethod(_infer_token_type)

    def verify_op(self) -> None:
        s = self.str_.data
        n, i = 0, 0
        while i < len(s):
            if s[i] == "%":
                if i + 1 < len(s) and s[i + 1] == "%":
                    i += 2
                    continue
                j = i + 1
                while j < len(s) and s[j] in "-+ #0123456789.hlLqjzt":
                    j += 1
                if j >= len(s) or s[j] not in "diouxXeEfFgGaAcsp":
                    raise VerifyException("found unterminated format expression")
                n += 1
                i = j
            i += 1
        if n != len(self.args):
            raise VerifyException(f"format string has {n} conversion specifiers but {len(self.args)} arguments "
                                  "were given")


@_lazy_op
class AllocaOp(CtOp):
    name = "cuda_tile.alloca"
    num_elem = prop_def(IntegerAttr)
    alignment = prop_def(IntegerAttr)
    global_ = opt_prop_def(UnitAttr, prop_name="global")
    result = result_def(TileType)
    FMT: ClassVar = ("`num_elem` `=` $num_elem `,` `alignment` `=` $alignment (`global` $global_^)? attr-dict `:` "
                     "type($result)")
    PROP_SYNTAX: ClassVar = {"num_elem": "i64", "alignment": "i64", "global_": "unit"}
    VALUE_TYPES: ClassVar = {"result": "scalar:ptr"}

    def verify_op(self) -> None:
        if self.num_elem.value.data < 0:
            raise VerifyException("'num_elem' must be non-negative")
        a = self.alignment.value.data
        if a <= 0 or a & (a - 1):
            raise VerifyException("'alignment' must be power of two")
        pt = elem(self.result).pointee
        size = 1 if is_int(pt, (1,)) else bitwidth(pt) // 8
        if a < size:
            raise VerifyException(f"'alignment' ({a}) must be at least the natural size ({size} bytes) for element "
                                  f"type {ct_type_str(pt)}")


import sys as _sys  # noqa: E402

_THIS = _sys.modules[__name__]
for _name in _RAW:  # out of the namespace: ops.X now goes through __getattr__ (defined on first read)
    del globals()[_name]
del _name
