"""Types and attributes of ``nv_tileaa`` (TileAA: tiles over global memory, before layouts).

Spellings follow what NVIDIA's ``tileiras`` prints (see docs/tileas-tier.md):

* ``!nv_tileaa.ptr<f16>``: a global-memory pointer to elements;
* ``!nv_tileaa.memref<f16, array<i64: ?, ?>, array<i64: ?, 1>, i64>``: a strided global array
  (element, shape, strides, index type; ``?`` is a dimension given at run time);
* ``!nv_tileaa.tiled_view<array<i32: 128, 64>, array<i32: 128, 64>, array<i32: 0, 1>, memref>``:
  a memref cut into tiles (tile shape, step between tiles in elements, dimension order, memref);
* ``!nv_tileaa.mem_token`` (memory ordering token), ``!nv_tileaa.program_id`` (a handle on one
  tile-block id, e.g. one the tile scheduler handed out);
* ``#nv_tileaa.compute_capability<90, 2>`` (SM number, feature set: 0 = baseline, 2 = the
  arch-specific ``a`` features), ``#nv_tileaa.kernel_spec<num_ctas, num_worker_warps>``;
* assume predicates ``#nv_tileaa.div_by<16>`` and ``#nv_tileaa.bounded<0, ?>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.int_param import IntParam

DYNAMIC = -1  # a `?` extent or stride
OPEN_LOW = -(2**63)  # bounded<?, ...>
OPEN_HIGH = 2**63 - 1  # bounded<..., ?>


def int_array(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(v) for v in values])


def ints(arr: ArrayAttr) -> list[int]:
    return [a.data for a in arr.data]


def parse_dense_array(parser: AttrParser, elem: str, allow_dynamic: bool) -> list[int]:
    """``array<i64: 1, ?, 3>`` (or ``array<i64>`` when empty)."""
    parser.parse_keyword("array")
    values: list[int] = []
    with parser.in_angle_brackets():
        got = parser.parse_identifier()
        if got != elem:
            parser.raise_error(f"expected element type {elem}, got {got}")
        if parser.parse_optional_punctuation(":") is not None:
            def one() -> int:
                if allow_dynamic and parser.parse_optional_punctuation("?") is not None:
                    return DYNAMIC
                return parser.parse_integer(allow_boolean=False)
            values = parser.parse_comma_separated_list(parser.Delimiter.NONE, one)
    return values


def print_dense_array(printer: Printer, elem: str, values: Sequence[int]) -> None:
    if not values:
        printer.print_string(f"array<{elem}>")
        return
    body = ", ".join("?" if v == DYNAMIC else str(v) for v in values)
    printer.print_string(f"array<{elem}: {body}>")


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """``!nv_tileaa.ptr<T>``: pointer to global memory holding elements of type T."""

    name = "nv_tileaa.ptr"
    element: Attribute

    def __init__(self, element: Attribute):
        super().__init__(element)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (parser.parse_type(),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.element)


def _parse_params(parser: AttrParser, syntax: Sequence[str]) -> tuple[Attribute, ...]:
    """``<p0, p1, ...>``: per ``syntax`` entry a type (``"type"``) or a dense integer array of
    that element type (``"i64?"``: '?' allowed for a dynamic entry), as an int array."""
    values: list[Attribute] = []
    with parser.in_angle_brackets():
        for i, kind in enumerate(syntax):
            if i:
                parser.parse_punctuation(",")
            if kind == "type":
                values.append(parser.parse_type())
            else:
                values.append(int_array(parse_dense_array(parser, kind.rstrip("?"), kind.endswith("?"))))
    return tuple(values)


def _print_params(printer: Printer, syntax: Sequence[str], params: Sequence[Attribute]) -> None:
    """The inverse of :func:`_parse_params`."""
    with printer.in_angle_brackets():
        for i, (kind, value) in enumerate(zip(syntax, params)):
            if i:
                printer.print_string(", ")
            if kind == "type":
                printer.print_attribute(value)
            else:
                print_dense_array(printer, kind.rstrip("?"), ints(value))


class _SyntaxParamsType(ParametrizedAttribute, TypeAttribute):
    """A type whose parameters are written ``<p0, p1, ...>`` as its ``SYNTAX`` says (see
    :func:`_parse_params`)."""

    SYNTAX: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return _parse_params(parser, cls.SYNTAX)

    def print_parameters(self, printer: Printer) -> None:
        _print_params(printer, self.SYNTAX, self.parameters)


@irdl_attr_definition
class MemRefType(_SyntaxParamsType):
    """``!nv_tileaa.memref<T, array<i64: shape>, array<i64: strides>, index>``."""

    name = "nv_tileaa.memref"
    element: Attribute
    shape: ArrayAttr[IntAttr]
    strides: ArrayAttr[IntAttr]
    index_type: Attribute

    def __init__(self, element: Attribute, shape: Sequence[int], strides: Sequence[int],
                 index_type: Attribute):
        super().__init__(element, int_array(shape), int_array(strides), index_type)

    SYNTAX: ClassVar[tuple[str, ...]] = ("type", "i64?", "i64?", "type")

    def get_shape(self) -> list[int]:
        return ints(self.shape)

    def get_strides(self) -> list[int]:
        return ints(self.strides)

    def rank(self) -> int:
        return len(self.shape.data)

    def verify(self) -> None:
        if len(self.shape.data) != len(self.strides.data):
            raise VerifyException(
                f"memref has {len(self.shape.data)} extents but {len(self.strides.data)} strides")
        if not self.shape.data:
            raise VerifyException("memref must have rank >= 1")
        if any(v < DYNAMIC for v in [*ints(self.shape), *ints(self.strides)]):
            raise VerifyException("memref extents and strides must be non-negative or '?'")
        from xdsl.dialects.builtin import IndexType, IntegerType
        if not isinstance(self.index_type, IntegerType | IndexType):
            raise VerifyException(f"memref index type must be an integer type, got {self.index_type}")


@irdl_attr_definition
class TiledViewType(_SyntaxParamsType):
    """``!nv_tileaa.tiled_view<tile, step, order, memref>``: tile (i0, i1, ...) covers the
    elements from (i0*step[0], i1*step[1], ...) onwards, ``tile`` elements along each dimension;
    ``order`` lists the dimensions from fastest-varying in the tile program's traversal."""

    name = "nv_tileaa.tiled_view"
    tile: ArrayAttr[IntAttr]
    step: ArrayAttr[IntAttr]
    order: ArrayAttr[IntAttr]
    memref: MemRefType

    def __init__(self, tile: Sequence[int], memref: MemRefType, step: Sequence[int] | None = None,
                 order: Sequence[int] | None = None):
        step = list(tile) if step is None else step
        order = list(range(len(tile))) if order is None else order
        super().__init__(int_array(tile), int_array(step), int_array(order), memref)

    SYNTAX: ClassVar[tuple[str, ...]] = ("i32", "i32", "i32", "type")

    def tile_shape(self) -> list[int]:
        return ints(self.tile)

    def verify(self) -> None:
        rank = self.memref.rank()
        for key, arr in (("tile", self.tile), ("step", self.step), ("order", self.order)):
            if len(arr.data) != rank:
                raise VerifyException(f"tiled_view {key} has {len(arr.data)} entries for a rank-{rank} memref")
        if any(v <= 0 for v in ints(self.tile)) or any(v <= 0 for v in ints(self.step)):
            raise VerifyException("tiled_view tile and step extents must be positive")
        if sorted(ints(self.order)) != list(range(rank)):
            raise VerifyException(f"tiled_view order {ints(self.order)} is not a permutation of 0..{rank - 1}")


class _NoParamType(ParametrizedAttribute, TypeAttribute):
    pass


@irdl_attr_definition
class MemTokenType(_NoParamType):
    """``!nv_tileaa.mem_token``: orders memory operations (threads loads and stores)."""

    name = "nv_tileaa.mem_token"


@irdl_attr_definition
class ProgramIdType(_NoParamType):
    """``!nv_tileaa.program_id``: one tile-block id (all axes), possibly the invalid id that
    ends a dynamic-persistent loop."""

    name = "nv_tileaa.program_id"


@irdl_attr_definition
class ComputeCapabilityAttr(ParametrizedAttribute):
    """``#nv_tileaa.compute_capability<90, 2>``: SM number and feature set (2 = ``sm_XXa``)."""

    name = "nv_tileaa.compute_capability"
    sm: IntAttr
    features: IntAttr

    def __init__(self, sm: int, features: int = 0):
        super().__init__(IntAttr(sm), IntAttr(features))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            sm = parser.parse_integer(allow_boolean=False, allow_negative=False)
            features = 0
            if parser.parse_optional_punctuation(","):
                features = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (IntAttr(sm), IntAttr(features))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.sm.data}, {self.features.data}>")

    def verify(self) -> None:
        if self.sm.data < 80:
            raise VerifyException(f"compute capability {self.sm.data} is below sm_80, the oldest tile target")


@irdl_attr_definition
class KernelSpecAttr(ParametrizedAttribute):
    """``#nv_tileaa.kernel_spec<num_ctas, num_worker_warps>`` (tileiras' default is ``<1, 4>``):
    CTAs per cluster (CGA) and worker warps per CTA."""

    name = "nv_tileaa.kernel_spec"
    num_ctas: IntAttr
    num_worker_warps: IntAttr

    def __init__(self, num_ctas: int = 1, num_worker_warps: int = 4):
        super().__init__(IntAttr(num_ctas), IntAttr(num_worker_warps))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            a = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            b = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (IntAttr(a), IntAttr(b))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.num_ctas.data}, {self.num_worker_warps.data}>")

    def verify(self) -> None:
        n = self.num_ctas.data
        if n < 1 or n > 16 or n & (n - 1):
            raise VerifyException(f"kernel_spec num_ctas must be a power of two in [1, 16], got {n}")
        w = self.num_worker_warps.data
        if w < 1 or w > 32:
            raise VerifyException(f"kernel_spec num_worker_warps must be in [1, 32], got {w}")


@irdl_attr_definition
class DivByAttr(IntParam):
    """``#nv_tileaa.div_by<d>``: the assumed value is a multiple of d (a power of two)."""

    name = "nv_tileaa.div_by"
    divisor: IntAttr

    def verify(self) -> None:
        d = self.divisor.data
        if d < 1 or d & (d - 1):
            raise VerifyException(f"div_by divisor must be a positive power of two, got {d}")


@irdl_attr_definition
class BoundedAttr(ParametrizedAttribute):
    """``#nv_tileaa.bounded<lb, ub>``: lb <= value <= ub; ``?`` leaves a side open."""

    name = "nv_tileaa.bounded"
    lower: IntAttr
    upper: IntAttr

    def __init__(self, lower: int | None, upper: int | None):
        super().__init__(IntAttr(OPEN_LOW if lower is None else lower),
                         IntAttr(OPEN_HIGH if upper is None else upper))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def bound(open_value: int) -> IntAttr:
            if parser.parse_optional_punctuation("?") is not None:
                return IntAttr(open_value)
            return IntAttr(parser.parse_integer(allow_boolean=False))
        with parser.in_angle_brackets():
            lo = bound(OPEN_LOW)
            parser.parse_punctuation(",")
            hi = bound(OPEN_HIGH)
        return (lo, hi)

    def print_parameters(self, printer: Printer) -> None:
        lo = "?" if self.lower.data == OPEN_LOW else str(self.lower.data)
        hi = "?" if self.upper.data == OPEN_HIGH else str(self.upper.data)
        printer.print_string(f"<{lo}, {hi}>")

    def verify(self) -> None:
        if self.lower.data > self.upper.data:
            raise VerifyException(f"bounded lower bound {self.lower.data} exceeds upper bound {self.upper.data}")


class _KeywordAttr(ParametrizedAttribute):
    """An attribute holding one keyword out of ``KEYWORDS[name]``: ``#nv_tileaa.mem_semantic<weak>``."""

    @classmethod
    def keywords(cls) -> tuple[str, ...]:
        return KEYWORDS[cls.name]

    value: StringAttr

    def __init__(self, value: str):
        super().__init__(StringAttr(value))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            word = parser.parse_identifier()
        if word not in cls.keywords():
            parser.raise_error(f"expected one of {', '.join(cls.keywords())}, got '{word}'")
        return (StringAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.value.data}>")

    def verify(self) -> None:
        if self.value.data not in self.keywords():
            raise VerifyException(f"{self.name} must be one of {', '.join(self.keywords())}, got '{self.value.data}'")


@irdl_attr_definition
class MemSemanticAttr(_KeywordAttr):
    """Memory ordering of a load/store: ``weak`` (plain), ``relaxed``, ``acquire``, ``release``."""

    name = "nv_tileaa.mem_semantic"


@irdl_attr_definition
class MemScopeAttr(_KeywordAttr):
    """Scope of an ordered memory operation."""

    name = "nv_tileaa.mem_scope"


@irdl_attr_definition
class PaddingValueAttr(_KeywordAttr):
    """Value read for out-of-bounds elements of a tiled_load."""

    name = "nv_tileaa.padding_value"


@irdl_attr_definition
class RoundingModeAttr(_KeywordAttr):
    """Rounding of a float conversion."""

    name = "nv_tileaa.rounding_mode"


@irdl_attr_definition
class SignednessAttr(_KeywordAttr):
    """How an integer dot operand's bits are read: ``signed`` (two's complement) or ``unsigned``
    (``#nv_tileaa.signedness<unsigned>``; the ``signedness_a``/``signedness_b`` of ``nv_tileaa.dot``)."""

    name = "nv_tileaa.signedness"

    @property
    def signed(self) -> bool:
        return self.value.data == "signed"


KEYWORDS = {
    "nv_tileaa.mem_semantic": ("weak", "relaxed", "acquire", "release", "acq_rel"),
    "nv_tileaa.mem_scope": ("cta", "cluster", "gpu", "sys"),
    "nv_tileaa.padding_value": ("zero", "neg_zero", "nan", "neg_inf", "pos_inf", "undef"),
    "nv_tileaa.rounding_mode": ("rn", "rz", "rm", "rp", "rna"),
    "nv_tileaa.signedness": ("signed", "unsigned"),
}

ATTRS = [
    PointerType,
    MemRefType,
    TiledViewType,
    MemTokenType,
    ProgramIdType,
    ComputeCapabilityAttr,
    KernelSpecAttr,
    DivByAttr,
    BoundedAttr,
    MemSemanticAttr,
    MemScopeAttr,
    PaddingValueAttr,
    RoundingModeAttr,
    SignednessAttr,
]
"""The attributes and types this module defines (:data:`tileorch.dialects.nv_tileaa.NvTileaa`)."""
