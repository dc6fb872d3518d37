"""Types of the ``cuda_tile`` dialect (CUDA Tile IR).

``tile<8x16xf32>`` (a tile of numbers or pointers, rank 0 = scalar), ``ptr<f16>``,
``token``, ``tensor_view<?x?xf16, strides=[?,1]>`` and the views built on a tensor view:
``partition_view<tile=(64x64), tensor_view<..>>``, ``strided_view<..>``,
``gather_scatter_view<..>``.  Each type's verifier carries the specification's rules; a
type that breaks them is rejected where it is written.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (ArrayAttr, BFloat16Type, Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type,
                                   Float8E8M0FNUType, Float16Type, Float32Type, Float64Type, FloatTF32Type, IntAttr,
                                   IntegerType, StringAttr)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cuda_tile.syntax import ct_type_str, error_at, parse_ct_type, parse_int, pos, register_type

DYNAMIC = -(2**63)  # MLIR's ShapedType::kDynamic
MAX_TILE_ELEMENTS = 1 << 24
FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type, FloatTF32Type, Float8E4M3FNType,
               Float8E5M2Type, Float8E8M0FNUType, Float4E2M1FNType)
BASE_FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)
INT_WIDTHS = (1, 8, 16, 32, 64)
PADDING_VALUES = ("zero", "neg_zero", "nan", "pos_inf", "neg_inf")


def is_int(t: Attribute, widths: Sequence[int] = INT_WIDTHS) -> bool:
    return isinstance(t, IntegerType) and t.width.data in widths and t.signedness.data.name == "SIGNLESS"


def is_float(t: Attribute, kinds: Sequence[type] = FLOAT_TYPES) -> bool:
    return isinstance(t, tuple(kinds))


def is_number(t: Attribute) -> bool:
    return is_int(t) or is_float(t)


def bitwidth(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return {Float16Type: 16, BFloat16Type: 16, Float32Type: 32, Float64Type: 64, FloatTF32Type: 32,
            Float8E4M3FNType: 8, Float8E5M2Type: 8, Float8E8M0FNUType: 8, Float4E2M1FNType: 4}.get(type(t), 64)


def _shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join("?" if d == DYNAMIC else str(d) for d in shape) + "]"


def verify_tile_shape(shape: Sequence[int], element: Attribute | None = None) -> None:
    if element is not None and isinstance(element, Float4E2M1FNType):
        if not shape or all(d % 2 for d in shape):
            raise VerifyException("F4E2M1FN tiles must have an even number of elements")
    n = 1
    for d in shape:
        if d <= 0:
            raise VerifyException(f"all dimensions must be positive constants, got {_shape_str(shape)}")
        if d & (d - 1):
            raise VerifyException(f"all dimensions must be powers of two, got {_shape_str(shape)}")
        if n > MAX_TILE_ELEMENTS // d:
            raise VerifyException(f"tile would exceed the maximum of {MAX_TILE_ELEMENTS} elements")
        n *= d


def _ints(attr: ArrayAttr) -> tuple[int, ...]:
    return tuple(a.data for a in attr.data)


def _ints_property(param: str) -> property:
    """A read-only property: the integers of the int-array parameter ``param``, as a tuple."""
    return property(lambda self: _ints(getattr(self, param)))


def _int_array(values: Sequence[int]) -> ArrayAttr:
    return ArrayAttr([IntAttr(v) for v in values])


class CudaTileType(ParametrizedAttribute, TypeAttribute):
    """Base of the dialect's types: ``short_str`` is the spelling without ``!cuda_tile.``."""

    def mnemonic(self) -> str:
        return self.name.split(".", 1)[1]

    def short_str(self) -> str:
        return self.mnemonic() + self.params_str()

    def params_str(self) -> str:
        return ""

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.params_str())


@register_type
@irdl_attr_definition
class PointerType(CudaTileType):
    """``ptr<T>``: a global-memory pointer to numbers of type T."""

    name = "cuda_tile.ptr"
    pointee: Attribute

    def __init__(self, pointee: Attribute):
        super().__init__(pointee)

    def params_str(self) -> str:
        return f"<{ct_type_str(self.pointee)}>"

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        start = pos(parser)
        t = parse_ct_type(parser)
        if not is_number(t):
            error_at(parser, start, f"pointee type must be a number type, got {ct_type_str(t)}")
        parser.parse_punctuation(">")
        return (t,)

    def verify(self) -> None:
        if not is_number(self.pointee):
            raise VerifyException(f"pointee type must be a number type, got {ct_type_str(self.pointee)}")


@register_type
@irdl_attr_definition
class TileType(CudaTileType):
    """``tile<SHAPExT>``: an immutable n-d array of numbers or pointers (rank 0 = scalar)."""

    name = "cuda_tile.tile"
    shape_attr: ArrayAttr[IntAttr]
    element_type: Attribute

    shape = _ints_property("shape_attr")

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(_int_array(shape), element_type)

    @property
    def rank(self) -> int:
        return len(self.shape_attr.data)

    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def with_element(self, element: Attribute) -> TileType:
        return TileType(self.shape, element)

    def params_str(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        return f"<{dims + 'x' if dims else ''}{ct_type_str(self.element_type)}>"

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        start = pos(parser)
        dims = parser.parse_dimension_list()
        if any(d < 0 for d in dims):
            error_at(parser, start, "tile dimensions must be static")
        if dims:
            parser.parse_shape_delimiter()
        estart = pos(parser)
        t = parse_ct_type(parser, "element type")
        if not (is_number(t) or isinstance(t, PointerType) or is_int(t, (4,))):
            error_at(parser, estart, f"invalid tile element type {ct_type_str(t)}")
        parser.parse_punctuation(">")
        return (_int_array(dims), t)

    def verify(self) -> None:
        verify_tile_shape(self.shape, self.element_type)


def scalar(element: Attribute) -> TileType:
    return TileType((), element)


@register_type
@irdl_attr_definition
class TokenType(CudaTileType):
    """``token``: orders memory operations (``*_tko`` ops consume and produce one)."""

    name = "cuda_tile.token"


@register_type
@irdl_attr_definition
class TensorViewType(CudaTileType):
    """``tensor_view<?x128xf16, strides=[128,1]>``: a strided global-memory tensor (``?`` = dynamic)."""

    name = "cuda_tile.tensor_view"
    element_type: Attribute
    shape_attr: ArrayAttr[IntAttr]
    strides_attr: ArrayAttr[IntAttr]

    def __init__(self, element_type: Attribute, shape: Sequence[int], strides: Sequence[int]):
        super().__init__(element_type, _int_array(shape), _int_array(strides))

    shape = _ints_property("shape_attr")
    strides = _ints_property("strides_attr")

    def num_dynamic_shape(self) -> int:
        return sum(1 for d in self.shape if d == DYNAMIC)

    def num_dynamic_strides(self) -> int:
        return sum(1 for d in self.strides if d == DYNAMIC)

    def params_str(self) -> str:
        dims = "x".join("?" if d == DYNAMIC else str(d) for d in self.shape)
        s = f"<{dims + 'x' if dims else ''}{ct_type_str(self.element_type)}"
        if self.shape:
            s += ", strides=[" + ",".join("?" if d == DYNAMIC else str(d) for d in self.strides) + "]"
        return s + ">"

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        dims = [DYNAMIC if d < 0 else d for d in parser.parse_dimension_list()]
        if dims:
            parser.parse_shape_delimiter()
        estart = pos(parser)
        t = parse_ct_type(parser, "element type")
        if not is_number(t):
            error_at(parser, estart, f"tensor_view element type must be a number type, got {ct_type_str(t)}")
        strides: list[int] = []
        if not dims:
            if parser.parse_optional_punctuation(",") is not None:
                if parser.parse_optional_keyword("strides") is not None:
                    parser.raise_error("strides must not be provided for 0-d tiles")
                parser.raise_error("unexpected token after element type in 0-d tensor_view")
        else:
            if parser.parse_optional_punctuation(",") is None:
                parser.raise_error("expected 'strides'")
            parser.parse_keyword("strides")
            parser.parse_punctuation("=")
            parser.parse_punctuation("[")
            while True:
                if parser.parse_optional_punctuation("?") is not None:
                    strides.append(DYNAMIC)
                else:
                    sstart = pos(parser)
                    v = parse_int(parser, "stride")
                    if v <= 0:
                        error_at(parser, sstart, f"expected strictly positive integer, got {v}")
                    strides.append(v)
                if parser.parse_optional_punctuation(",") is None:
                    break
            parser.parse_punctuation("]")
        parser.parse_punctuation(">")
        return (t, _int_array(dims), _int_array(strides))

    def verify(self) -> None:
        shape, strides = self.shape, self.strides
        if len(shape) != len(strides):
            raise VerifyException(
                f"expected shape and stride to be of same rank but got shape of rank {len(shape)} "
                f"and stride of rank {len(strides)}")
        if any(d <= 0 and d != DYNAMIC for d in shape):
            raise VerifyException(f"dimensions must have strictly positive constant sizes but got {_shape_str(shape)}")
        if any(d <= 0 and d != DYNAMIC for d in strides):
            raise VerifyException(
                f"dimensions must have strictly positive constant strides but got {_shape_str(strides)}")


def _parse_view_tile_shape(parser: AttrParser) -> list[int]:
    parser.parse_keyword("tile")
    parser.parse_punctuation("=")
    start = pos(parser)
    parser.parse_punctuation("(")
    dims = parser.parse_dimension_list()
    parser.parse_punctuation(")")
    for i, v in enumerate(dims):
        if v <= 0:  # a zero-size view tile: nothing to load or store (cuTile says "is not positive")
            error_at(parser, start, f"tile dimension {i} is {v}: a view's tile extents must be strictly positive")
        if v > 2**31 - 1:
            error_at(parser, start, f"tile dimension {i} exceeds i32 limitations (got {v}, expected strictly "
                                    f"positive and less than or equal to {2**31 - 1})")
    return dims


def _parse_padding(parser: AttrParser) -> str:
    if parser.parse_optional_keyword("padding_value") is None:
        return ""
    parser.parse_punctuation("=")
    start = pos(parser)
    word = parser._current_token.text  # noqa: SLF001
    if word not in PADDING_VALUES:
        error_at(parser, start, f'invalid padding_value attribute specification. Got "{word}" but expect one '
                                "of: zero, neg_zero, nan, pos_inf, neg_inf")
    parser._consume_token()  # noqa: SLF001
    parser.parse_punctuation(",")
    return word


def _parse_tensor_view(parser: AttrParser) -> TensorViewType:
    start = pos(parser)
    t = parse_ct_type(parser)
    if not isinstance(t, TensorViewType):
        error_at(parser, start, f"expected 'tensor_view' type, but got {ct_type_str(t)}")
    return t


def _parse_keyword_ints(parser: AttrParser, keyword: str) -> list[int]:
    """``keyword=[1, 2, ...]`` (at least one integer)."""
    parser.parse_keyword(keyword)
    parser.parse_punctuation("=")
    parser.parse_punctuation("[")
    out = [parse_int(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        out.append(parse_int(parser))
    parser.parse_punctuation("]")
    return out


def _parse_dim_map(parser: AttrParser, rank: int) -> list[int]:
    if parser.parse_optional_punctuation(",") is None:
        return list(range(rank))
    return _parse_keyword_ints(parser, "dim_map")


def _verify_view_tile_rank(tile: Sequence[int], tv: TensorViewType) -> None:
    """A view's tile has the (non-zero) rank of its tensor view."""
    if not tile:
        raise VerifyException("0-dimension tile shape is not supported")
    if len(tile) != len(tv.shape):
        raise VerifyException(f"expected tensor_view rank and tile rank to match, got tensor_view of rank "
                              f"{len(tv.shape)} and tiles of rank {len(tile)}")


def _verify_partition_like(tile: Sequence[int], tv: TensorViewType, dim_map: Sequence[int], padding: str) -> None:
    _verify_view_tile_rank(tile, tv)
    if len(dim_map) != len(tile):
        raise VerifyException(f"expected dim_map to map exactly all {len(tile)} dimensions of the tile, got "
                              f"{len(dim_map)} mappings")
    if any(d <= 0 for d in tile):
        raise VerifyException(f"tile shape dimensions must have positive length but got [{', '.join(map(str, tile))}]")
    if any(d & (d - 1) for d in tile):
        raise VerifyException(
            f"tile shape dimensions must have power of two length but got [{', '.join(map(str, tile))}]")
    used: dict[int, int] = {}
    for tile_dim, tv_dim in enumerate(dim_map):
        if tv_dim < 0:
            raise VerifyException(f"target dimension must not be negative, got {tv_dim}")
        if tv_dim >= len(tv.shape):
            raise VerifyException(f"target dimension is outside of tensor view dimensions, expected strictly less "
                                  f"than {len(tv.shape)}, got {tv_dim}")
        if tv_dim in used:
            raise VerifyException(f"target dimension {tv_dim} mapped at least twice (for tile dimensions "
                                  f"{used[tv_dim]} and {tile_dim})")
        used[tv_dim] = tile_dim
    verify_tile_shape(tile, tv.element_type)
    if padding not in ("", "zero") and not is_float(tv.element_type):
        raise VerifyException(f"padding_value {padding} can only be used with floating point element types, got "
                              f"{ct_type_str(tv.element_type)}")


class TileViewType(CudaTileType):
    """A view that ``load_view_tko``/``store_view_tko`` index into, one tile at a time (every
    view has the ``tile_shape_attr``, ``tensor_view`` and ``padding_attr`` parameters)."""

    tile_shape = _ints_property("tile_shape_attr")

    def _tile_str(self) -> str:
        """``<tile=(64x64), `` (the start of every view's parameters)."""
        return "<tile=(" + "x".join(map(str, self.tile_shape)) + "), "

    def _padding_str(self) -> str:
        """``padding_value = v, `` (empty without one)."""
        return f"padding_value = {self.padding_attr.data}, " if self.padding_attr.data else ""

    def view_index_rank(self) -> int:
        return len(self.tile_shape)

    def view_tile_type(self) -> TileType:
        return TileType(self.tile_shape, self.tensor_view.element_type)

    def verify_indices(self, index_types: Sequence[Attribute]) -> None:
        """The index operands' types (tiles: the view ops' operand constraint, checked before this)."""
        for t in index_types:
            if t.rank != 0:
                raise VerifyException(f"expected index type to be a scalar tile, got {ct_type_str(t)}")
        for i, t in enumerate(index_types):
            if t != index_types[0]:
                raise VerifyException(f"expected index type {i} to be the same as other index types "
                                      f"({ct_type_str(index_types[0])}), got {ct_type_str(t)}")

    @property
    def padding_value(self) -> str | None:
        return self.padding_attr.data or None


class _PartitionLikeView(TileViewType):
    """What partition_view and strided_view share: the ``tile_shape_attr``, ``tensor_view``,
    ``dim_map_attr`` and ``padding_attr`` parameters (each view declares them, with its extras),
    the ``[padding_value = v, ]tensor_view<..>[, dim_map=[..]]>`` tail of the syntax and the
    partition rules."""

    dim_map = _ints_property("dim_map_attr")

    def _view_tail_str(self) -> str:
        s = self._padding_str() + ct_type_str(self.tensor_view)
        if list(self.dim_map) != list(range(len(self.dim_map))):
            s += ", dim_map=[" + ", ".join(map(str, self.dim_map)) + "]"
        return s + ">"

    @staticmethod
    def _parse_view_tail(parser: AttrParser, rank: int) -> tuple[str, Attribute, list[int]]:
        padding = _parse_padding(parser)
        tv = _parse_tensor_view(parser)
        dim_map = _parse_dim_map(parser, rank)
        parser.parse_punctuation(">")
        return padding, tv, dim_map

    def verify(self) -> None:
        _verify_partition_like(self.tile_shape, self.tensor_view, self.dim_map, self.padding_attr.data)


@register_type
@irdl_attr_definition
class PartitionViewType(_PartitionLikeView):
    """``partition_view<tile=(64x64), [padding_value = zero, ]tensor_view<..>[, dim_map=[1, 0]]>``."""

    name = "cuda_tile.partition_view"
    tile_shape_attr: ArrayAttr[IntAttr]
    tensor_view: TensorViewType
    dim_map_attr: ArrayAttr[IntAttr]
    padding_attr: StringAttr

    def __init__(self, tile_shape: Sequence[int], tensor_view: TensorViewType, dim_map: Sequence[int] | None = None,
                 padding: str | None = None):
        dm = list(range(len(tile_shape))) if dim_map is None else dim_map
        super().__init__(_int_array(tile_shape), tensor_view, _int_array(dm), StringAttr(padding or ""))

    def params_str(self) -> str:
        return self._tile_str() + self._view_tail_str()

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        tile = _parse_view_tile_shape(parser)
        parser.parse_punctuation(",")
        padding, tv, dim_map = cls._parse_view_tail(parser, len(tile))
        return (_int_array(tile), tv, _int_array(dim_map), StringAttr(padding))


@register_type
@irdl_attr_definition
class StridedViewType(_PartitionLikeView):
    """``strided_view<tile=(..), traversal_strides=[..], [padding_value = v, ]tensor_view<..>[, dim_map=[..]]>``."""

    name = "cuda_tile.strided_view"
    tile_shape_attr: ArrayAttr[IntAttr]
    traversal_strides_attr: ArrayAttr[IntAttr]
    tensor_view: TensorViewType
    dim_map_attr: ArrayAttr[IntAttr]
    padding_attr: StringAttr

    traversal_strides = _ints_property("traversal_strides_attr")

    def params_str(self) -> str:
        s = self._tile_str() + "traversal_strides=[" + ",".join(map(str, self.traversal_strides)) + "], "
        return s + self._view_tail_str()

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        tile = _parse_view_tile_shape(parser)
        parser.parse_punctuation(",")
        strides = _parse_keyword_ints(parser, "traversal_strides")
        parser.parse_punctuation(",")
        padding, tv, dim_map = cls._parse_view_tail(parser, len(tile))
        return (_int_array(tile), _int_array(strides), tv, _int_array(dim_map), StringAttr(padding))

    def verify(self) -> None:
        super().verify()
        if len(self.tile_shape) != len(self.traversal_strides):
            raise VerifyException(f"expected {len(self.tile_shape)} traversal strides, got "
                                  f"{len(self.traversal_strides)}")
        if any(s <= 0 for s in self.traversal_strides):
            raise VerifyException("traversal strides must be strictly positive but got ["
                                  + ", ".join(map(str, self.traversal_strides)) + "]")


@register_type
@irdl_attr_definition
class GatherScatterViewType(TileViewType):
    """``gather_scatter_view<tile=(..), [padding_value = v, ]tensor_view<..>, sparse_dim=N>``."""

    name = "cuda_tile.gather_scatter_view"
    tile_shape_attr: ArrayAttr[IntAttr]
    tensor_view: TensorViewType
    sparse_dim_attr: IntAttr
    padding_attr: StringAttr

    @property
    def sparse_dim(self) -> int:
        return self.sparse_dim_attr.data

    def params_str(self) -> str:
        return (self._tile_str() + self._padding_str() + ct_type_str(self.tensor_view)
                + f", sparse_dim={self.sparse_dim}>")

    @classmethod
    def parse_parameters(cls, parser: AttrParser):
        parser.parse_punctuation("<")
        tile = _parse_view_tile_shape(parser)
        parser.parse_punctuation(",")
        padding = _parse_padding(parser)
        tv = _parse_tensor_view(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("sparse_dim")
        parser.parse_punctuation("=")
        sd = parse_int(parser)
        parser.parse_punctuation(">")
        return (_int_array(tile), tv, IntAttr(sd), StringAttr(padding))

    def verify_indices(self, index_types: Sequence[Attribute]) -> None:
        """The sparse dimension's index is a 1-D integer tile of the view tile's extent there (one
        element index per slice, cuTile 1.7's ``load_advanced_indexing``); the dense dimensions'
        are scalar tiles (element offsets), all of one element type.  The index operands are tiles (the
        view ops' operand constraint, checked before this)."""
        for i, t in enumerate(index_types):
            want = [self.tile_shape[self.sparse_dim]] if i == self.sparse_dim else []
            if list(t.shape) != want:
                what = f"a 1-D tile of {want[0]} elements" if want else "a scalar tile"
                raise VerifyException(f"expected index {i} to be {what}, got {ct_type_str(t)}")
            if t.element_type != index_types[0].element_type:
                raise VerifyException(f"expected index {i} to have the element type of the other indices "
                                      f"({ct_type_str(index_types[0].element_type)}), got {ct_type_str(t)}")

    def verify(self) -> None:
        tile = self.tile_shape
        _verify_view_tile_rank(tile, self.tensor_view)
        if self.sparse_dim < 0 or self.sparse_dim >= len(tile):
            raise VerifyException(f"sparse_dim {self.sparse_dim} is out of range for a rank-{len(tile)} view")
        verify_tile_shape(tile, self.tensor_view.element_type)


VIEW_TYPES = (PartitionViewType, StridedViewType, GatherScatterViewType)
