"""Attributes of the ``cuda_tile`` dialect: enums, assume predicates, optimization hints and
the dense constant values of ``constant``/``global``.

Enums keep the specification's integer encoding as their declaration order (the bytecode
stores that integer).  Generic spelling: ``#cuda_tile.rounding<zero>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, DictionaryAttr, IntAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, Data, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tileorch.dialects.attr_factory import enum_attr
from tileorch.dialects.cuda_tile.float_bits import bits_to_float, float_to_bits, mantissa_bits
from tileorch.dialects.cuda_tile.syntax import ct_type_str, error_at, parse_ct_type, parse_int, pos
from tileorch.dialects.cuda_tile.types import TileType, bitwidth, is_float, is_int


# --------------------------------------------------------------------------- enums
class Signedness(StrEnum):
    UNSIGNED = "unsigned"
    SIGNED = "signed"


class IntegerOverflow(StrEnum):
    NONE = "none"
    NSW = "no_signed_wrap"
    NUW = "no_unsigned_wrap"
    NW = "no_wrap"


class RoundingMode(StrEnum):
    NEAREST_EVEN = "nearest_even"
    ZERO = "zero"
    NEGATIVE_INF = "negative_inf"
    POSITIVE_INF = "positive_inf"
    APPROX = "approx"
    FULL = "full"
    NEAREST_INT_TO_ZERO = "nearest_int_to_zero"


class ComparisonOrdering(StrEnum):
    UNORDERED = "unordered"
    ORDERED = "ordered"


class ComparisonPredicate(StrEnum):
    EQUAL = "equal"
    NOT_EQUAL = "not_equal"
    LESS_THAN = "less_than"
    LESS_THAN_OR_EQUAL = "less_than_or_equal"
    GREATER_THAN = "greater_than"
    GREATER_THAN_OR_EQUAL = "greater_than_or_equal"


class AtomicRMWMode(StrEnum):
    AND = "and"
    OR = "or"
    XOR = "xor"
    ADD = "add"
    ADDF = "addf"
    MAX = "max"
    MIN = "min"
    UMAX = "umax"
    UMIN = "umin"
    XCHG = "xchg"


class MemoryScope(StrEnum):
    TL_BLK = "tl_blk"
    DEVICE = "device"
    SYS = "sys"


class MemoryOrdering(StrEnum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


class PaddingValue(StrEnum):
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class SymbolVisibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


class CtEnumAttr:
    """Mixin: integer code of an enum value (its position in the specification's list)."""

    def code(self) -> int:
        return list(type(self).enum_type).index(self.data)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")

    @classmethod
    def parse_parameter(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        v = parser.parse_str_enum(cls.enum_type)
        parser.parse_punctuation(">")
        return v

    @classmethod
    def from_code(cls, code: int):
        members = list(cls.enum_type)
        if not 0 <= code < len(members):
            raise ValueError(f"invalid {cls.name} value {code}")
        return cls(members[code])


SignednessAttr = enum_attr("cuda_tile.signedness", Signedness, CtEnumAttr)
IntegerOverflowAttr = enum_attr("cuda_tile.overflow", IntegerOverflow, CtEnumAttr)
RoundingModeAttr = enum_attr("cuda_tile.rounding", RoundingMode, CtEnumAttr)
ComparisonOrderingAttr = enum_attr("cuda_tile.comparison_ordering", ComparisonOrdering, CtEnumAttr)
ComparisonPredicateAttr = enum_attr("cuda_tile.comparison_predicate", ComparisonPredicate, CtEnumAttr)
AtomicRMWModeAttr = enum_attr("cuda_tile.atomic_rmw_mode", AtomicRMWMode, CtEnumAttr)
MemoryScopeAttr = enum_attr("cuda_tile.memory_scope", MemoryScope, CtEnumAttr)
MemoryOrderingAttr = enum_attr("cuda_tile.memory_ordering_semantics", MemoryOrdering, CtEnumAttr)
PaddingValueAttr = enum_attr("cuda_tile.padding_value", PaddingValue, CtEnumAttr)
SymbolVisibilityAttr = enum_attr("cuda_tile.symbol_visibility", SymbolVisibility, CtEnumAttr)


ENUM_ATTRS = (SignednessAttr, IntegerOverflowAttr, RoundingModeAttr, ComparisonOrderingAttr,
              ComparisonPredicateAttr, AtomicRMWModeAttr, MemoryScopeAttr, MemoryOrderingAttr, PaddingValueAttr,
              SymbolVisibilityAttr)


# --------------------------------------------------------------------------- assume predicates
class AssumePredicate:
    """Marker base of ``div_by``, ``same_elements`` and ``bounded``."""

    def short_str(self) -> str:
        return self.name.split(".", 1)[1] + self.params_str()

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.params_str())


@irdl_attr_definition
class DivByAttr(AssumePredicate, ParametrizedAttribute):
    """``div_by<16>`` / ``div_by<4, every 2 along 1>``: values (or pointers) divisible by a power of two."""

    name = "cuda_tile.div_by"
    divisor: IntAttr
    every: IntAttr  # -1: absent
    along: IntAttr

    def params_str(self) -> str:
        s = f"<{self.divisor.data}"
        if self.every.data >= 0:
            s += f", every {self.every.data} along {self.along.data}"
        return s + ">"

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        start = pos(parser)
        d = parse_int(parser, "divisor")
        if d <= 0:
            error_at(parser, start, f"divisor must be positive, got {d}")
        every, along = -1, -1
        if parser.parse_optional_punctuation(",") is not None:
            parser.parse_keyword("every")
            every = parse_int(parser)
            parser.parse_keyword("along")
            along = parse_int(parser)
        parser.parse_punctuation(">")
        return (IntAttr(d), IntAttr(every), IntAttr(along))


@irdl_attr_definition
class SameElementsAttr(AssumePredicate, ParametrizedAttribute):
    """``same_elements<[1, 4, 2]>``: groups of that shape hold equal values."""

    name = "cuda_tile.same_elements"
    values: ArrayAttr[IntAttr]

    def params_str(self) -> str:
        return "<[" + ", ".join(str(v.data) for v in self.values.data) + "]>"

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        parser.parse_punctuation("[")
        vals: list[int] = []
        if parser.parse_optional_punctuation("]") is None:
            vals.append(parse_int(parser))
            while parser.parse_optional_punctuation(",") is not None:
                vals.append(parse_int(parser))
            parser.parse_punctuation("]")
        parser.parse_punctuation(">")
        return (ArrayAttr([IntAttr(v) for v in vals]),)


@irdl_attr_definition
class BoundedAttr(AssumePredicate, ParametrizedAttribute):
    """``bounded<lb, ub>`` with ``?`` for an open end."""

    name = "cuda_tile.bounded"
    lb: Attribute  # IntAttr or UnitAttr-like StringAttr("?")
    ub: Attribute

    def _s(self, a: Attribute) -> str:
        return str(a.data) if isinstance(a, IntAttr) else "?"

    def params_str(self) -> str:
        return f"<{self._s(self.lb)}, {self._s(self.ub)}>"

    def bound(self, which: str) -> int | None:
        a = self.lb if which == "lb" else self.ub
        return a.data if isinstance(a, IntAttr) else None

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        out = []
        for i in range(2):
            if parser.parse_optional_punctuation("?") is not None:
                out.append(StringAttr("?"))
            else:
                out.append(IntAttr(parse_int(parser)))
            if i == 0:
                parser.parse_punctuation(",")
        parser.parse_punctuation(">")
        return tuple(out)


ASSUME_PREDICATES = {"div_by": DivByAttr, "same_elements": SameElementsAttr, "bounded": BoundedAttr}


# --------------------------------------------------------------------------- optimization hints
KNOWN_ARCH_KEYS = ("sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
                   "sm_121")


def _hint_value(v: Attribute) -> str:
    from io import StringIO

    if isinstance(v, IntegerAttr) and isinstance(v.type, IntegerType):
        if v.type.width.data == 1:
            return "true" if v.value.data else "false"
        if v.type.width.data == 64:
            return str(v.value.data)
    s = StringIO()
    Printer(stream=s).print_attribute(v)
    return s.getvalue()


@irdl_attr_definition
class OptimizationHintsAttr(ParametrizedAttribute):
    """``optimization_hints=<sm_90 = {num_cta_in_cga = 2}, default = {..}>``: per-architecture hints."""

    name = "cuda_tile.optimization_hints"
    value: DictionaryAttr

    def params_str(self) -> str:
        from io import StringIO

        s = StringIO()
        p = Printer(stream=s)
        items = list(self.value.data.items())
        s.write("<")
        for i, (k, v) in enumerate(items):
            if i:
                s.write(", ")
            s.write(f"{k} = ")
            if isinstance(v, DictionaryAttr):
                s.write("{" + ", ".join(f"{kk} = {_hint_value(vv)}" for kk, vv in v.data.items()) + "}")
            else:
                p.print_attribute(v)
        s.write(">")
        return s.getvalue()

    def short_str(self) -> str:
        return self.params_str()

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.params_str())

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        entries: dict[str, Attribute] = {}
        if parser.parse_optional_punctuation(">") is not None:
            return (DictionaryAttr({}),)
        while True:
            start = pos(parser)
            key = parser.parse_optional_identifier()
            if key is None:
                key = parser.parse_optional_str_literal()
            if key is None:
                parser.raise_error("expected architecture key in optimization hints")
            parser.parse_punctuation("=")
            vstart = pos(parser)
            val = parser.parse_attribute()
            if not isinstance(val, DictionaryAttr):
                error_at(parser, vstart, "expected a dictionary of hints")
            entries[key] = val
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation(">")
        return (DictionaryAttr(entries),)

    def get(self, key: str, arch: str | None = None) -> int | bool | None:
        for sect in ((arch,) if arch else ()) + ("default",):
            d = self.value.data.get(sect)
            if isinstance(d, DictionaryAttr) and key in d.data:
                v = d.data[key]
                if isinstance(v, IntegerAttr):
                    return v.value.data
                if isinstance(v, BoolAttr):
                    return bool(v.value.data)
        return None


# --------------------------------------------------------------------------- dense constants
def format_float(bits: int, t: Attribute) -> str:
    """MLIR's spelling: ``1.500000e+00``, or hex bits when that would not read back exactly."""
    v = bits_to_float(bits, t)
    if math.isfinite(v):
        from decimal import ROUND_HALF_UP, Decimal

        d = Decimal(v)  # MLIR: 6 significant digits (ties away from zero), written in exponent form
        short = float(d.scaleb(-d.adjusted()).quantize(Decimal("1.00000"), ROUND_HALF_UP).scaleb(d.adjusted())) \
            if v != 0 else v
        if float_to_bits(short, t) == bits:
            return f"{short:.6e}"
        full = f"{v:.{math.ceil((mantissa_bits(t) + 1) * math.log10(2)) + 1}g}"
        if "e" not in full and "." not in full:
            full += ".0"
        if float_to_bits(float(full), t) == bits:
            return full.replace("e", "E")
    width = bitwidth(t)
    return f"0x{bits:0{max(1, (width + 3) // 4)}X}"


def _int_range_ok(v: int, width: int) -> bool:
    if width == 64:
        return -(2**63) <= v < 2**64
    return -(2 ** (width - 1)) <= v < 2**width if width > 1 else -1 <= v <= 1


def _wrap(v: int, width: int) -> int:
    """Two's-complement signed value of ``v`` at ``width`` bits (how MLIR prints stored integers)."""
    if width == 1:
        return v & 1
    v &= (1 << width) - 1
    return v - (1 << width) if v >> (width - 1) else v


@irdl_attr_definition
class DenseConstantAttr(ParametrizedAttribute):
    """The value of ``constant``/``global``: a tile type and its elements as raw integers
    (integers: the signed value; floats: the bit pattern).  One element means a splat.

    Custom spelling inside ops: ``<f32: [1.0, 2.0]> : tile<2xf32>``."""

    name = "cuda_tile.dense"
    type: TileType
    raw: ArrayAttr[IntAttr]

    @staticmethod
    def from_raw(t: TileType, raw: Sequence[int]) -> DenseConstantAttr:
        raw = list(raw)
        if len(raw) > 1 and all(r == raw[0] for r in raw):
            raw = raw[:1]
        return DenseConstantAttr(t, ArrayAttr([IntAttr(r) for r in raw]))

    @property
    def element_type(self) -> Attribute:
        return self.type.element_type

    def is_splat(self) -> bool:
        return len(self.raw.data) == 1

    def raw_values(self) -> list[int]:
        vals = [r.data for r in self.raw.data]
        n = self.type.num_elements()
        return vals * n if len(vals) == 1 else vals

    def values(self) -> list[int | float | bool]:
        et = self.element_type
        if is_float(et):
            raw = self.raw.data
            if len(raw) == 1:  # a splat: its one pattern converted once (a 128x128 zero accumulator was 16384 conversions)
                return [bits_to_float(raw[0].data, et)] * self.type.num_elements()
            return [bits_to_float(r.data, et) for r in raw]
        if is_int(et, (1,)):
            return [bool(v) for v in self.raw_values()]
        return self.raw_values()

    def _elem_str(self, r: int) -> str:
        et = self.element_type
        if is_float(et):
            return format_float(r, et)
        if is_int(et, (1,)):
            return "true" if r else "false"
        return str(r)

    def body_str(self) -> str:
        """``f32: [[1.0, 2.0], [3.0, 4.0]]`` (values only, no type suffix)."""
        et = ct_type_str(self.element_type)
        raw = [r.data for r in self.raw.data]
        if len(raw) == 1:
            return f"{et}: {self._elem_str(raw[0])}"
        shape = self.type.shape
        it = iter(raw)

        def nest(d: int) -> str:
            if d == len(shape):
                return self._elem_str(next(it))
            return "[" + ", ".join(nest(d + 1) for _ in range(shape[d])) + "]"

        return f"{et}: {nest(0)}"

    def params_str(self) -> str:
        return f"<{self.body_str()} : {self.type.short_str()}>"

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.params_str())

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        attr = parse_dense_generic(parser)
        return (attr.type, attr.raw)

    def verify(self) -> None:
        n = len(self.raw.data)
        if n != 1 and n != self.type.num_elements():
            raise VerifyException(f"dense constant has {n} elements, its type {self.type.short_str()} "
                                  f"{self.type.num_elements()}")


DENSE_ELEMENT_TYPES = "i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or " \
                      "f8E8M0FNU or f4E2M1FN"


def parse_dense_body(parser: AttrParser) -> DenseConstantAttr:
    """``<ET: VALUES> : tile<..>`` (the form ``constant`` and ``global`` use)."""
    parser.parse_punctuation("<")
    et, shape, vals = _parse_dense_values(parser)
    parser.parse_punctuation(">")
    parser.parse_punctuation(":")
    return _finish_dense(parser, et, shape, vals)


def parse_dense_generic(parser: AttrParser) -> DenseConstantAttr:
    """``<ET: VALUES : tile<..>>`` (the attribute's own spelling)."""
    parser.parse_punctuation("<")
    et, shape, vals = _parse_dense_values(parser)
    parser.parse_punctuation(":")
    attr = _finish_dense(parser, et, shape, vals)
    parser.parse_punctuation(">")
    return attr


def _parse_dense_values(parser: AttrParser):
    start = pos(parser)
    et = parse_ct_type(parser, "element type")
    if not (is_int(et) or is_float(et)):
        error_at(parser, start, f"expect element type to be one of {DENSE_ELEMENT_TYPES} values, but got "
                                f"{ct_type_str(et)}")
    parser.parse_punctuation(":")
    integer = is_int(et)
    width = bitwidth(et)

    def number() -> int:
        s = pos(parser)
        if integer:
            if width != 1 and parser._current_token.text in ("true", "false"):  # noqa: SLF001
                error_at(parser, s, "expected integer value")
            v = parser.parse_optional_integer(allow_boolean=True, allow_negative=True)
            if v is None:
                error_at(parser, s, "expected integer value")
            v = int(v)
            if not _int_range_ok(v, width):
                error_at(parser, s, "integer constant out of range for type")
            return _wrap(v, width)
        tok = parser._current_token  # noqa: SLF001
        if tok.kind.name == "INTEGER_LIT" and tok.text.lower().startswith("0x"):
            parser._consume_token()  # noqa: SLF001
            v = int(tok.text, 16)
            if v >> width:
                error_at(parser, s, "float constant out of range for type")
            return v
        v = parser.parse_optional_number()
        if v is None:
            error_at(parser, s, "expected floating point literal")
        try:
            return float_to_bits(float(v), et)
        except ValueError as e:  # a value the type cannot hold (negative f8E8M0FNU, ...)
            error_at(parser, s, str(e))

    def nested() -> tuple[list[int], list[int]]:
        if parser.parse_optional_punctuation("[") is None:
            return [], [number()]
        shapes: list[list[int]] = []
        vals: list[int] = []
        count = 0
        while True:
            s, v = nested()
            if shapes and s != shapes[0]:
                parser.raise_error("tensor literal is invalid; ranks are not consistent between elements")
            shapes.append(s)
            vals += v
            count += 1
            if parser.parse_optional_punctuation(",") is None:
                break
        parser.parse_punctuation("]")
        return [count] + shapes[0], vals

    shape, vals = nested()
    return et, shape, vals


def _finish_dense(parser: AttrParser, et, shape, vals) -> DenseConstantAttr:
    tstart = pos(parser)
    t = parse_ct_type(parser)
    if not isinstance(t, TileType):
        error_at(parser, tstart, f"result #0 must be tile of {DENSE_ELEMENT_TYPES} values, but got {ct_type_str(t)}")
    if t.element_type != et:
        error_at(parser, tstart, f"mismatch between the element type: {ct_type_str(et)} and the tile element type "
                                 f"{ct_type_str(t.element_type)}")
    if shape and tuple(shape) != t.shape:
        error_at(parser, tstart, f"inferred shape of elements literal ([{','.join(map(str, shape))}]) does not match "
                                 f"type ([{','.join(map(str, t.shape))}])")
    return DenseConstantAttr.from_raw(t, vals)
