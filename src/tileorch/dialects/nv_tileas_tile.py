"""Tile-level ``nv_tileas``: tensors with layouts, atoms, tile pipelines and their ops.

``nv_tileas.py`` holds the pipeline-region ops the ``cutlass`` lowering targets; this module adds
what the TileAS tier needs on top (see docs/tileas-tier.md) and builds the combined dialect
``NvTileasAll`` that the registry serves as ``nv_tileas``.

Layouts.  A TileAS tensor is a builtin ``tensor<...>`` whose encoding says where it lives and how:

* ``#nv_tileas.layout<reg>`` registers, layout not chosen yet (right after conversion);
* ``#nv_tileas.layout<reg, atom = blocked, warps = [4, 1]>`` registers, elements spread over the
  warps of the executing agent (``warps`` per dimension);
* ``#nv_tileas.layout<reg, atom = mma_acc, instr = [64, 128, 16], warps = [4, 1]>`` the
  accumulator fragment of that MMA instruction (``mma_a``/``mma_b`` for register operands);
* ``#nv_tileas.layout<smem, swizzle = 128, order = [1, 0]>`` shared memory, ``order`` lists
  dimensions from the contiguous one, ``swizzle`` is the swizzle span in bytes (0, 32, 64, 128)
  as TMA and WGMMA descriptors use it;
* ``#nv_tileas.layout<tmem>`` Blackwell tensor memory;
* any layout may add ``cta = [2, 1]``: the CTA layout, i.e. the tile is split over that many CTAs
  of the cluster along each dimension (``tileas-plan-cta`` propagates it).

Atoms (which instruction implements an op): ``#nv_tileas.mma.sm80/sm90/sm100<[M, N, K]>``,
``#nv_tileas.fma<[1, 1, 1]>``; copies ``#nv_tileas.unknown_copy_atom``,
``#nv_tileas.sm_tma_load<[box...]>`` / ``sm_tma_store<[box...]>`` (box innermost first, as in
the TMA descriptor), ``#nv_tileas.ldg<v>``, ``stg``, ``lds``, ``sts``, ``ldsm``, ``stsm``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import (ArrayAttr, BoolAttr, DenseArrayBase, DictionaryAttr, IntAttr, IntegerAttr,
                                   IntegerType, StringAttr, TensorType, TupleType, i1, i32)
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, Region, SSAValue, TypeAttribute
from xdsl.irdl import (AnyAttr, AttrSizedOperandSegments, IRDLOperation, ParsePropInAttrDict, VarConstraint,
                       irdl_attr_definition, irdl_op_definition, operand_def, opt_operand_def, opt_prop_def, prop_def,
                       region_def, result_def, traits_def, var_operand_def, var_result_def)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects import nv_tileas as base
from tileorch.dialects.int_param import IntParam
from tileorch.dialects.nv_tileaa.attrs import PaddingValueAttr, ProgramIdType, SignednessAttr, TiledViewType
from tileorch.dialects.nv_tileaa.ops import check_broadcast, check_dot_shapes, check_dot_types, check_expand_dim, is_int

_EFFECTS = (MemoryReadEffect(), MemoryWriteEffect())

# ----------------------------------------------------------------------------- layouts

MEM_KINDS = ("reg", "smem", "tmem")
REG_ATOMS = ("blocked", "mma_acc", "mma_a", "mma_b")
SWIZZLES = (0, 32, 64, 128)
_KEY_ORDER = ("atom", "instr", "warps", "swizzle", "order", "cta")
_KEYS = {
    "reg": {"atom", "instr", "warps", "cta"},
    "smem": {"swizzle", "order", "cta"},
    "tmem": {"cta"},
}


def _int_list(v: Attribute) -> list[int] | None:
    if isinstance(v, ArrayAttr) and all(isinstance(x, IntAttr) for x in v.data):
        return [x.data for x in v.data]
    return None


def _list_attr(values: Sequence[int]) -> ArrayAttr:
    return ArrayAttr([IntAttr(v) for v in values])


@irdl_attr_definition
class LayoutAttr(ParametrizedAttribute):
    """``#nv_tileas.layout<kind, key = value, ...>``: where a tile lives and how it is laid out."""

    name = "nv_tileas.layout"
    mem_kind: StringAttr
    params: DictionaryAttr

    def __init__(self, mem_kind: str, **params: int | str | Sequence[int]):
        conv: dict[str, Attribute] = {}
        for k, v in params.items():
            if v is None:
                continue
            if isinstance(v, str):
                conv[k] = StringAttr(v)
            elif isinstance(v, int):
                conv[k] = IntAttr(v)
            else:
                conv[k] = _list_attr(list(v))
        super().__init__(StringAttr(mem_kind), DictionaryAttr(conv))

    # -- accessors
    @property
    def kind(self) -> str:
        return self.mem_kind.data

    def get(self, key: str):
        v = self.params.data.get(key)
        if v is None:
            return None
        if isinstance(v, IntAttr):
            return v.data
        if isinstance(v, StringAttr):
            return v.data
        return _int_list(v)

    def as_dict(self) -> dict:
        return {k: self.get(k) for k in self.params.data}

    def with_(self, **changes) -> "LayoutAttr":
        d = self.as_dict()
        d.update(changes)
        return LayoutAttr(self.kind, **d)

    def cta(self) -> list[int] | None:
        return self.get("cta")

    def is_unassigned(self) -> bool:
        return self.kind == "reg" and self.get("atom") is None

    # -- syntax
    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        params: dict[str, Attribute] = {}
        with parser.in_angle_brackets():
            kind = parser.parse_identifier()
            if kind not in MEM_KINDS:
                parser.raise_error(f"unknown memory kind '{kind}', expected one of {', '.join(MEM_KINDS)}")
            while parser.parse_optional_punctuation(",") is not None:
                key = parser.parse_identifier()
                parser.parse_punctuation("=")
                if parser.parse_optional_punctuation("[") is not None:
                    vals: list[int] = []
                    if parser.parse_optional_punctuation("]") is None:
                        vals = parser.parse_comma_separated_list(
                            parser.Delimiter.NONE, lambda: parser.parse_integer(allow_boolean=False))
                        parser.parse_punctuation("]")
                    params[key] = _list_attr(vals)
                else:
                    word = parser.parse_optional_identifier()
                    if word is not None:
                        params[key] = StringAttr(word)
                    else:
                        params[key] = IntAttr(parser.parse_integer(allow_boolean=False))
        return (StringAttr(kind), DictionaryAttr(params))

    def print_parameters(self, printer: Printer) -> None:
        parts = [self.kind]
        keys = sorted(self.params.data, key=lambda k: (_KEY_ORDER.index(k) if k in _KEY_ORDER else 99, k))
        for k in keys:
            v = self.get(k)
            if isinstance(v, list):
                parts.append(f"{k} = [{', '.join(map(str, v))}]")
            else:
                parts.append(f"{k} = {v}")
        printer.print_string("<" + ", ".join(parts) + ">")

    def verify(self) -> None:
        kind = self.kind
        if kind not in MEM_KINDS:
            raise VerifyException(f"unknown memory kind '{kind}'")
        for k in self.params.data:
            if k not in _KEYS[kind]:
                raise VerifyException(f"layout key '{k}' does not apply to {kind} layouts")
        atom = self.get("atom")
        if atom is not None and atom not in REG_ATOMS:
            raise VerifyException(f"unknown register layout atom '{atom}'")
        if atom in ("mma_acc", "mma_a", "mma_b"):
            instr = self.get("instr")
            if not isinstance(instr, list) or len(instr) != 3:
                raise VerifyException(f"a {atom} layout needs instr = [M, N, K]")
        sw = self.get("swizzle")
        if sw is not None and sw not in SWIZZLES:
            raise VerifyException(f"swizzle must be one of 0, 32, 64, 128 bytes, got {sw}")
        for key in ("warps", "cta", "order", "instr"):
            v = self.params.data.get(key)
            if v is not None and _int_list(v) is None:
                raise VerifyException(f"layout key '{key}' takes a list of integers")
        for key in ("warps", "cta"):
            v = self.get(key)
            if v is not None and any(x < 1 for x in v):
                raise VerifyException(f"layout {key} entries must be positive")


def layout_of(t: Attribute) -> LayoutAttr | None:
    if isinstance(t, TensorType) and isinstance(t.encoding, LayoutAttr):
        return t.encoding
    return None


def with_layout(t: TensorType, layout: Attribute) -> TensorType:
    return TensorType(t.element_type, t.get_shape(), layout)


def bit_width(elem: Attribute) -> int:
    w = getattr(elem, "bitwidth", None)
    if isinstance(w, int):
        return w
    if hasattr(elem, "width"):
        return elem.width.data
    return 32


def check_tensor_layout(t: Attribute, what: str = "tensor") -> None:
    """A tile type's layout fits its shape (ranks, CTA split divides the extents)."""
    if not isinstance(t, TensorType):
        return
    lay = layout_of(t)
    if lay is None:
        if not isinstance(t.encoding, type(TensorType(i32, [1]).encoding)):
            raise VerifyException(f"{what} encoding must be a #nv_tileas.layout, got {t.encoding}")
        return
    shape = list(t.get_shape())
    rank = len(shape)
    for key in ("warps", "cta"):
        v = lay.get(key)
        if v is not None and len(v) != rank:
            raise VerifyException(f"{what} layout {key} has {len(v)} entries for rank {rank}")
    order = lay.get("order")
    if order is not None and sorted(order) != list(range(rank)):
        raise VerifyException(f"{what} smem order {order} is not a permutation of 0..{rank - 1}")
    cta = lay.get("cta")
    if cta is not None:
        for d, (s, c) in enumerate(zip(shape, cta)):
            if s % c:
                raise VerifyException(f"{what} dimension {d} ({s}) is not divisible by its CTA split {c}")


# ----------------------------------------------------------------------------- atoms


class _ShapeAtom(ParametrizedAttribute):
    """An atom with an [M, N, K] instruction shape."""

    shape: ArrayAttr[IntAttr]

    def __init__(self, shape: Sequence[int]):
        super().__init__(_list_attr(shape))

    def mnk(self) -> list[int]:
        return [x.data for x in self.shape.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            vals = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                     lambda: parser.parse_integer(allow_boolean=False))
        return (_list_attr(vals),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<[{', '.join(map(str, self.mnk()))}]>")

    def verify(self) -> None:
        if len(self.shape.data) != 3 or any(v <= 0 for v in self.mnk()):
            raise VerifyException(f"{self.name} needs a positive [M, N, K] shape")


@irdl_attr_definition
class FmaAtomAttr(_ShapeAtom):
    """Scalar FMA (placeholder atom right after conversion)."""

    name = "nv_tileas.fma"


@irdl_attr_definition
class MmaSm80AtomAttr(_ShapeAtom):
    """``mma.sync`` (Ampere and later)."""

    name = "nv_tileas.mma.sm80"


@irdl_attr_definition
class MmaSm90AtomAttr(_ShapeAtom):
    """Hopper warpgroup MMA (``wgmma.mma_async``): M = 64 per warpgroup, N in 8..256 step 8."""

    name = "nv_tileas.mma.sm90"

    def verify(self) -> None:
        super().verify()
        m, n, k = self.mnk()
        if m != 64 or n % 8 or not 8 <= n <= 256 or k not in (8, 16, 32):
            raise VerifyException(f"The SM90 MMA atom is not supported: [{m}, {n}, {k}]")


@irdl_attr_definition
class MmaSm100AtomAttr(_ShapeAtom):
    """Blackwell ``tcgen05.mma`` (accumulator in tensor memory)."""

    name = "nv_tileas.mma.sm100"


MMA_ATOMS = (MmaSm80AtomAttr, MmaSm90AtomAttr, MmaSm100AtomAttr)


@irdl_attr_definition
class UnknownCopyAtomAttr(ParametrizedAttribute):
    """Copy atom not chosen yet."""

    name = "nv_tileas.unknown_copy_atom"


class _BoxAtom(ParametrizedAttribute):
    """A TMA atom: ``<[box...]>`` (innermost dimension first) with optional ``mcast = n``."""

    box: ArrayAttr[IntAttr]
    mcast: IntAttr

    def __init__(self, box: Sequence[int], mcast: int = 1):
        super().__init__(_list_attr(box), IntAttr(mcast))

    def box_dims(self) -> list[int]:
        return [x.data for x in self.box.data]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        mcast = 1
        with parser.in_angle_brackets():
            vals = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                     lambda: parser.parse_integer(allow_boolean=False))
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("mcast")
                parser.parse_punctuation("=")
                mcast = parser.parse_integer(allow_boolean=False)
        return (_list_attr(vals), IntAttr(mcast))

    def print_parameters(self, printer: Printer) -> None:
        extra = f", mcast = {self.mcast.data}" if self.mcast.data != 1 else ""
        printer.print_string(f"<[{', '.join(map(str, self.box_dims()))}]{extra}>")

    def verify(self) -> None:
        dims = self.box_dims()
        if not 1 <= len(dims) <= 5:
            raise VerifyException("tensor_view rank exceeds 5-dimension limit")
        if any(not 1 <= d <= 256 for d in dims):
            raise VerifyException(f"TMA box dimensions must be in [1, 256], got {dims}")
        if self.mcast.data not in (1, 2, 4, 8, 16):
            raise VerifyException(f"TMA multicast width must be a power of two up to 16, got {self.mcast.data}")


@irdl_attr_definition
class TmaLoadAtomAttr(_BoxAtom):
    name = "nv_tileas.sm_tma_load"


@irdl_attr_definition
class TmaStoreAtomAttr(_BoxAtom):
    name = "nv_tileas.sm_tma_store"


class _VecAtom(IntParam):
    """A per-thread copy atom with vector width ``<v>`` elements."""

    vec: IntAttr

    def __init__(self, vec: int = 1):
        super().__init__(vec)

    def verify(self) -> None:
        if self.vec.data not in (1, 2, 4, 8, 16):
            raise VerifyException(f"{self.name} vector width must be 1, 2, 4, 8 or 16, got {self.vec.data}")


@irdl_attr_definition
class LdgAtomAttr(_VecAtom):
    name = "nv_tileas.ldg"


@irdl_attr_definition
class StgAtomAttr(_VecAtom):
    name = "nv_tileas.stg"


@irdl_attr_definition
class LdsAtomAttr(_VecAtom):
    name = "nv_tileas.lds"


@irdl_attr_definition
class StsAtomAttr(_VecAtom):
    name = "nv_tileas.sts"


@irdl_attr_definition
class LdsmAtomAttr(_VecAtom):
    name = "nv_tileas.ldsm"


@irdl_attr_definition
class StsmAtomAttr(_VecAtom):
    name = "nv_tileas.stsm"


COPY_ATOMS = (UnknownCopyAtomAttr, TmaLoadAtomAttr, TmaStoreAtomAttr, LdgAtomAttr, StgAtomAttr,
              LdsAtomAttr, StsAtomAttr, LdsmAtomAttr, StsmAtomAttr)
DOT_ATOMS = (FmaAtomAttr, *MMA_ATOMS)


def check_tma_box(atom: _BoxAtom, tile: TensorType, smem: Attribute | None) -> None:
    """The seed's TMA checks: 16-byte inner box, box within the tile, smem layout TMA-able."""
    box = atom.box_dims()
    shape = list(tile.get_shape())
    bits = bit_width(tile.element_type)
    if (box[0] * bits) % 128:
        raise VerifyException("tma boxDims[0] * elemTypeBitWidth is not a multiple of 16 bytes")
    if len(box) != len(shape):
        raise VerifyException(f"TMA box has {len(box)} dimensions for a rank-{len(shape)} tile")
    if any(s % b for s, b in zip(reversed(shape), box)):
        raise VerifyException(f"TMA box {box} (innermost first) does not tile the tile shape {shape}")
    lay = layout_of(smem) if smem is not None else None
    if lay is not None:
        sw = lay.get("swizzle") or 0
        order = lay.get("order")
        box_bytes = box[0] * bits // 8
        row_bytes = shape[-1] * bits // 8
        # the swizzle atom spans `sw` bytes of the contiguous dimension: the tile's rows must
        # hold whole atoms, and one TMA box row may not exceed the swizzle span
        if lay.kind != "smem" or (order is not None and order[0] != len(shape) - 1) or \
                (sw and (row_bytes % sw or box_bytes > sw)):
            raise VerifyException("smem layout is not TMA compatible")


# ----------------------------------------------------------------------------- tile pipeline types


@irdl_attr_definition
class AsyncPipelineType(ParametrizedAttribute, TypeAttribute):
    """``!nv_tileas.async.pipeline<depth, tuple<T...>>``: a ring of ``depth`` slots, each holding
    one value of every element type (shared-memory buffers, or async values)."""

    name = "nv_tileas.async.pipeline"
    depth: IntAttr
    elements: TupleType

    def __init__(self, depth: int, elements: Sequence[Attribute]):
        super().__init__(IntAttr(depth), TupleType(list(elements)))

    def element_types(self) -> list[Attribute]:
        return list(self.elements.types.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            depth = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            elems = parser.parse_type()
        return (IntAttr(depth), elems)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.depth.data}, ")
        printer.print_attribute(self.elements)
        printer.print_string(">")

    def verify(self) -> None:
        if self.depth.data < 1:
            raise VerifyException(f"pipeline depth must be positive, got {self.depth.data}")
        if not self.elements.types.data:
            raise VerifyException("a pipeline carries at least one element type")


ITERATOR_KINDS = ("any", "producer", "consumer")


@irdl_attr_definition
class PipelineIteratorType(ParametrizedAttribute, TypeAttribute):
    """``!nv_tileas.async.pipeline.iterator<kind, depth, tuple<T...>>``: a position in a
    pipeline (slot index and phase).  ``kind`` is ``any`` until the iterator-type rewriter
    specialises it to the side that uses it (``producer`` / ``consumer``)."""

    name = "nv_tileas.async.pipeline.iterator"
    kind: StringAttr
    depth: IntAttr
    elements: TupleType

    def __init__(self, kind: str, depth: int, elements: Sequence[Attribute] | TupleType):
        tup = elements if isinstance(elements, TupleType) else TupleType(list(elements))
        super().__init__(StringAttr(kind), IntAttr(depth), tup)

    @staticmethod
    def for_pipeline(p: AsyncPipelineType, kind: str = "any") -> "PipelineIteratorType":
        return PipelineIteratorType(kind, p.depth.data, p.elements)

    def matches(self, p: AsyncPipelineType) -> bool:
        return self.depth == p.depth and self.elements == p.elements

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parser.parse_identifier()
            if kind not in ITERATOR_KINDS:
                parser.raise_error(f"iterator kind must be one of {', '.join(ITERATOR_KINDS)}")
            parser.parse_punctuation(",")
            depth = parser.parse_integer(allow_boolean=False)
            parser.parse_punctuation(",")
            elems = parser.parse_type()
        return (StringAttr(kind), IntAttr(depth), elems)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.kind.data}, {self.depth.data}, ")
        printer.print_attribute(self.elements)
        printer.print_string(">")

    def verify(self) -> None:
        if self.kind.data not in ITERATOR_KINDS:
            raise VerifyException(f"iterator kind must be one of {', '.join(ITERATOR_KINDS)}")


@irdl_attr_definition
class ProducerTokenType(ParametrizedAttribute, TypeAttribute):
    """``!nv_tileas.async.pipeline.producer_token``: an acquired (writable) slot."""

    name = "nv_tileas.async.pipeline.producer_token"


@irdl_attr_definition
class ConsumerTokenType(IntParam, TypeAttribute):
    """``!nv_tileas.async.pipeline.consumer_token<idx>``: a full slot waited on by consumer idx."""

    name = "nv_tileas.async.pipeline.consumer_token"
    consumer_idx: IntAttr


# ----------------------------------------------------------------------------- tile ops


def _verify_tensors(op: IRDLOperation) -> None:
    for v in (*op.operands, *op.results):
        check_tensor_layout(v.type, f"'{op.name}'")


def _atom_props(atom: Attribute, allow_tma: bool | None) -> dict[str, Attribute]:
    """The ``atom`` and optional ``allow_tma`` properties of a tiled load/store builder."""
    props: dict[str, Attribute] = {"atom": atom}
    if allow_tma is not None:
        props["allow_tma"] = BoolAttr.from_bool(allow_tma)
    return props


def _check_view_tile(op: IRDLOperation, tile: Attribute, what: str) -> None:
    """A tiled load's result / store's tile (``what``) has the view's tile shape and element type,
    and the op has one tile index per view dimension."""
    view = op.view.type
    assert isinstance(view, TiledViewType)
    assert isinstance(tile, TensorType)
    short = op.name.removeprefix("nv_tileas.")
    if list(tile.get_shape()) != view.tile_shape() or tile.element_type != view.memref.element:
        raise VerifyException(f"{short} {what} {tile} does not match the view's tile "
                              f"{view.tile_shape()} x {view.memref.element}")
    if len(op.indices) != view.memref.rank():
        raise VerifyException(f"{short} needs {view.memref.rank()} tile indices, got {len(op.indices)}")


@irdl_op_definition
class TiledLoadOp(IRDLOperation):
    """Load tile (indices...) of a tiled view into a tile with a layout, with copy ``atom``.
    With ``dst`` (a shared-memory buffer, e.g. a pipeline slot) the tile is written there and
    the result is that buffer's new value."""

    name = "nv_tileas.tiled_load"
    view = operand_def(TiledViewType)
    dst = opt_operand_def(TensorType)
    indices = var_operand_def()
    atom = prop_def(AnyAttr())
    allow_tma = opt_prop_def(BoolAttr)
    padding_value = opt_prop_def(PaddingValueAttr)
    result = result_def(TensorType)
    traits = traits_def(MemoryReadEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = "$view `[` $indices `]` (`into` $dst^ `:` type($dst))? attr-dict `:` type($view) `[` type($indices) `]` `->` type($result)"

    def __init__(self, view: SSAValue, indices: Sequence[SSAValue], result: TensorType, atom: Attribute,
                 dst: SSAValue | None = None, allow_tma: bool | None = None):
        super().__init__(operands=[view, [dst] if dst is not None else [], indices],
                         properties=_atom_props(atom, allow_tma), result_types=[result])

    def verify_(self) -> None:
        _verify_tensors(self)
        res = self.result.type
        _check_view_tile(self, res, "result")
        if self.dst is not None and self.dst.type != res:
            raise VerifyException("tiled_load into a buffer returns the buffer's type")
        if not isinstance(self.atom, COPY_ATOMS):
            raise VerifyException(f"tiled_load atom must be a copy atom, got {self.atom}")
        if isinstance(self.atom, TmaStoreAtomAttr):
            raise VerifyException("tiled_load cannot use a TMA store atom")
        if isinstance(self.atom, TmaLoadAtomAttr):
            if self.padding_value is not None and self.padding_value.value.data != "zero":
                raise VerifyException("TmaLoad only support zero padding now")
            check_tma_box(self.atom, res, res)


@irdl_op_definition
class TiledStoreOp(IRDLOperation):
    """Store ``tile`` as tile (indices...) of a tiled view with copy ``atom``."""

    name = "nv_tileas.tiled_store"
    view = operand_def(TiledViewType)
    tile = operand_def(TensorType)
    indices = var_operand_def()
    atom = prop_def(AnyAttr())
    allow_tma = opt_prop_def(BoolAttr)
    traits = traits_def(MemoryWriteEffect())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$tile `,` $view `[` $indices `]` attr-dict `:` type($tile) `,` type($view) `[` type($indices) `]`"

    def __init__(self, view: SSAValue, tile: SSAValue, indices: Sequence[SSAValue], atom: Attribute,
                 allow_tma: bool | None = None):
        super().__init__(operands=[view, tile, indices], properties=_atom_props(atom, allow_tma))

    def verify_(self) -> None:
        _verify_tensors(self)
        t = self.tile.type
        _check_view_tile(self, t, "tile")
        if not isinstance(self.atom, COPY_ATOMS) or isinstance(self.atom, TmaLoadAtomAttr):
            raise VerifyException(f"tiled_store atom must be a store copy atom, got {self.atom}")
        if isinstance(self.atom, TmaStoreAtomAttr):
            check_tma_box(self.atom, t, t)


@irdl_op_definition
class DotOp(IRDLOperation):
    """``lhs x rhs + (acc_valid ? acc : 0)`` with MMA ``atom`` (integer operands: how each one's bits
    are read in ``signedness_a`` / ``signedness_b``, as on ``nv_tileaa.dot``)."""

    name = "nv_tileas.dot"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    acc = operand_def(TensorType)
    acc_valid = opt_operand_def(i1)
    atom = prop_def(AnyAttr())
    matmul_fast_accum = opt_prop_def(BoolAttr)
    signedness_a = opt_prop_def(SignednessAttr)
    signedness_b = opt_prop_def(SignednessAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs `,` $acc (`,` $acc_valid^)? attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue, atom: Attribute,
                 acc_valid: SSAValue | None = None, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs, acc, [acc_valid] if acc_valid is not None else []],
                         properties={"atom": atom, "matmul_fast_accum": BoolAttr.from_bool(False)},
                         result_types=[result_type or acc.type])

    def verify_(self) -> None:
        _verify_tensors(self)
        check_dot_shapes(self.lhs.type, self.rhs.type, self.acc.type, self.result.type)
        check_dot_types(self.lhs.type, self.acc.type, (self.signedness_a, self.signedness_b))
        if not isinstance(self.atom, DOT_ATOMS):
            raise VerifyException(f"dot atom must be an MMA or FMA atom, got {self.atom}")
        if isinstance(self.atom, MmaSm90AtomAttr):
            m, n, k = self.atom.mnk()
            rm, rn = list(self.result.type.get_shape())[-2:]
            if rm % m:
                raise VerifyException("M block size must be an integer multiple of atom M.")
            if rn % n or list(self.lhs.type.get_shape())[-1] % k:
                raise VerifyException(f"dot tile {rm}x{rn} is not tiled by the atom [{m}, {n}, {k}]")
            for operand, want in ((self.lhs, ("smem", "reg")), (self.rhs, ("smem",))):
                lay = layout_of(operand.type)
                if lay is not None and not lay.is_unassigned() and lay.kind not in want:
                    raise VerifyException(f"wgmma reads this operand from {' or '.join(want)}, not {lay.kind}")


class _TileToTileOp(IRDLOperation):
    """``%r = <op> %source {properties} : type -> type``: a pure op from one tile to another (the
    subclass declares its properties and checks the two tile types in :meth:`check_types`)."""

    source = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, result_type: Attribute, properties: dict[str, Attribute] | None = None):
        super().__init__(operands=[source], properties=properties or {}, result_types=[result_type])

    def check_types(self, a: TensorType, b: TensorType) -> None:
        raise NotImplementedError

    def verify_(self) -> None:
        _verify_tensors(self)
        a, b = self.source.type, self.result.type
        assert isinstance(a, TensorType) and isinstance(b, TensorType)
        self.check_types(a, b)


@irdl_op_definition
class ConvertLayoutOp(_TileToTileOp):
    """The same tile in another layout (or memory)."""

    name = "nv_tileas.convert_layout"

    def check_types(self, a: TensorType, b: TensorType) -> None:
        if list(a.get_shape()) != list(b.get_shape()) or a.element_type != b.element_type:
            raise VerifyException(f"convert_layout keeps shape and element type: {a} vs {b}")


@irdl_op_definition
class AllocTensorOp(IRDLOperation):
    """A fresh tile buffer (shared or tensor memory) of the result type."""

    name = "nv_tileas.alloc_tensor"
    result = result_def(TensorType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: TensorType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        _verify_tensors(self)
        lay = layout_of(self.result.type)
        if lay is None or lay.kind == "reg":
            raise VerifyException("alloc_tensor allocates shared or tensor memory: give the result an smem/tmem layout")


@irdl_op_definition
class CopyOp(IRDLOperation):
    """Copy ``source`` with ``atom``: into ``dst`` (returning its new value) or into a fresh
    value of the result type."""

    name = "nv_tileas.copy"
    source = operand_def(TensorType)
    dst = opt_operand_def(TensorType)
    atom = opt_prop_def(AnyAttr())
    result = result_def(TensorType)
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source (`into` $dst^ `:` type($dst))? attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, result_type: Attribute, dst: SSAValue | None = None,
                 atom: Attribute | None = None):
        super().__init__(operands=[source, [dst] if dst is not None else []],
                         properties={} if atom is None else {"atom": atom}, result_types=[result_type])

    def verify_(self) -> None:
        _verify_tensors(self)
        a, b = self.source.type, self.result.type
        if list(a.get_shape()) != list(b.get_shape()) or a.element_type != b.element_type:
            raise VerifyException("copy keeps shape and element type")
        if self.dst is not None and self.dst.type != b:
            raise VerifyException("copy into a buffer returns the buffer's type")
        if self.atom is not None and not isinstance(self.atom, COPY_ATOMS):
            raise VerifyException(f"copy atom must be a copy atom, got {self.atom}")


@irdl_op_definition
class BroadcastOp(_TileToTileOp):
    """Grow extent-1 dimensions (layouts may differ between operand and result)."""

    name = "nv_tileas.broadcast"

    def check_types(self, a: TensorType, b: TensorType) -> None:
        check_broadcast(TensorType(a.element_type, a.get_shape()), TensorType(b.element_type, b.get_shape()))


@irdl_op_definition
class ExpandDimOp(_TileToTileOp):
    """Insert an extent-1 dimension at ``dim``."""

    name = "nv_tileas.expand_dim"
    dim = prop_def(IntegerAttr[IntegerType])

    def __init__(self, source: SSAValue, dim: int, result_type: Attribute):
        super().__init__(source, result_type, {"dim": IntegerAttr(dim, i32)})

    def check_types(self, a: TensorType, b: TensorType) -> None:
        check_expand_dim(TensorType(a.element_type, a.get_shape()), TensorType(b.element_type, b.get_shape()),
                         self.dim.value.data)


@irdl_op_definition
class ExtractSliceOp(_TileToTileOp):
    """The static sub-tile at ``offsets`` with the result's shape."""

    name = "nv_tileas.extract_slice"
    offsets = prop_def(DenseArrayBase)

    def __init__(self, source: SSAValue, offsets: Sequence[int], result_type: Attribute):
        super().__init__(source, result_type, {"offsets": DenseArrayBase.from_list(i32, list(offsets))})

    def check_types(self, a: TensorType, b: TensorType) -> None:
        _check_slice(list(a.get_shape()), list(b.get_shape()), list(self.offsets.get_values()))


@irdl_op_definition
class InsertSliceOp(IRDLOperation):
    """``dest`` with the sub-tile at ``offsets`` replaced by ``source``."""

    name = "nv_tileas.insert_slice"
    T: ClassVar = VarConstraint("T", AnyAttr())
    source = operand_def(TensorType)
    dest = operand_def(T)
    offsets = prop_def(DenseArrayBase)
    result = result_def(T)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source `into` $dest attr-dict `:` type($source) `into` type($dest)"

    def __init__(self, source: SSAValue, dest: SSAValue, offsets: Sequence[int]):
        super().__init__(operands=[source, dest], properties={"offsets": DenseArrayBase.from_list(i32, list(offsets))},
                         result_types=[dest.type])

    def verify_(self) -> None:
        _verify_tensors(self)  # (the result has the destination's type: the IRDL variable T)
        _check_slice(list(self.dest.type.get_shape()), list(self.source.type.get_shape()),
                     list(self.offsets.get_values()))


def _check_slice(full: list[int], part: list[int], offsets: list[int]) -> None:
    if not (len(full) == len(part) == len(offsets)):
        raise VerifyException("slice offsets, slice shape and tile shape must have one entry per dimension")
    for f, p, o in zip(full, part, offsets):
        if o < 0 or o + p > f:
            raise VerifyException(f"slice of shape {part} at {offsets} leaves the tile {full}")


@irdl_op_definition
class PragmaOp(IRDLOperation):
    """Forward values unchanged, attaching ``hints`` (layout passes look through it)."""

    name = "nv_tileas.pragma"
    values = var_operand_def()
    results_ = var_result_def()
    hints = opt_prop_def(DictionaryAttr)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$values attr-dict `:` type($values) `->` type($results_)"

    def __init__(self, values: Sequence[SSAValue], hints: DictionaryAttr | None = None,
                 result_types: Sequence[Attribute] | None = None):
        super().__init__(operands=[values], properties={} if hints is None else {"hints": hints},
                         result_types=[list(result_types) if result_types is not None else [v.type for v in values]])

    def verify_(self) -> None:
        if len(self.values) != len(self.results_):
            raise VerifyException("pragma has one result per operand")
        for v, r in zip(self.values, self.results_):
            if isinstance(v.type, TensorType) and isinstance(r.type, TensorType):
                if list(v.type.get_shape()) != list(r.type.get_shape()) or v.type.element_type != r.type.element_type:
                    raise VerifyException("pragma results mirror its operands (layouts may differ)")
            elif v.type != r.type:
                raise VerifyException("pragma results mirror its operands")


@irdl_op_definition
class CancelNextProgramIdOp(IRDLOperation):
    """Claim the next tile block for this CTA (the dynamic-persistent loop's advance)."""

    name = "nv_tileas.cancel_next_program_id"
    result = result_def(ProgramIdType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[ProgramIdType()])


@irdl_op_definition
class AsyncTiledTmaLoadOp(IRDLOperation):
    """Start a TMA tensor copy of tile (indices...) into the shared-memory ``buffer``; it
    completes on the pipeline slot's barrier (lowered form of a TMA tiled_load)."""

    name = "nv_tileas.async.tiled_tma_load"
    view = operand_def(TiledViewType)
    T: ClassVar = VarConstraint("T", AnyAttr())
    buffer = operand_def(T)
    indices = var_operand_def()
    atom = prop_def(TmaLoadAtomAttr)
    result = result_def(T)
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$view `[` $indices `]` `into` $buffer attr-dict `:` type($view) `[` type($indices) `]` `,` type($buffer)"

    def verify_(self) -> None:
        _verify_tensors(self)
        check_tma_box(self.atom, self.buffer.type, self.buffer.type)


@irdl_op_definition
class AsyncTiledTmaStoreOp(IRDLOperation):
    """Start a TMA tensor copy of the shared-memory ``source`` to tile (indices...)."""

    name = "nv_tileas.async.tiled_tma_store"
    view = operand_def(TiledViewType)
    source = operand_def(TensorType)
    indices = var_operand_def()
    atom = prop_def(TmaStoreAtomAttr)
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$source `,` $view `[` $indices `]` attr-dict `:` type($source) `,` type($view) `[` type($indices) `]`"

    def verify_(self) -> None:
        _verify_tensors(self)
        check_tma_box(self.atom, self.source.type, self.source.type)


# ----------------------------------------------------------------------------- tile pipeline ops


def _types(types) -> str:
    """Types as the IR writes them, comma-separated (a diagnostic's list, not Python reprs)."""
    return ", ".join(map(str, types))


def _pipe(op: IRDLOperation) -> AsyncPipelineType:
    """The op's pipeline type (its ``operand_def(AsyncPipelineType)`` is checked before ``verify_``)."""
    return cast(AsyncPipelineType, op.pipeline.type)


def _check_iter(op: IRDLOperation, it: SSAValue, want_kind: str | None = None) -> None:
    p = _pipe(op)
    t = it.type
    if not isinstance(t, PipelineIteratorType) or not t.matches(p):
        raise VerifyException(f"'{op.name}' iterator {t} does not belong to pipeline {p}")
    if want_kind is not None and t.kind.data not in ("any", want_kind):
        raise VerifyException(f"'{op.name}' needs a {want_kind} iterator, got a {t.kind.data} iterator")


def _num_consumers(pipe_value: SSAValue) -> int | None:
    owner = pipe_value.owner
    if isinstance(owner, IRDLOperation) and owner.name == "nv_tileas.async.pipeline.create_pipeline":
        n = owner.properties.get("num_consumers")
        return n.value.data if isinstance(n, IntegerAttr) else 1
    return None


def _check_consumer_idx(op: IRDLOperation, idx: int, token: SSAValue | None = None) -> None:
    n = _num_consumers(op.pipeline)
    if n is not None and not 0 <= idx < n:
        raise VerifyException(f"expected 'consumer_idx' less than the number of consumer {n}, got {idx}")
    if token is not None and isinstance(token.type, ConsumerTokenType) and token.type.consumer_idx.data != idx:
        raise VerifyException(
            f"expected 'consumer_idx' in token to be the same as 'consumer_idx' attribute of this operation "
            f"({token.type.consumer_idx.data} vs {idx})")


def _check_consumer_region(op: IRDLOperation, last: SSAValue, what_last: str) -> None:
    """The region of ``consumer_read`` / ``consume_one``: it takes the pipeline's slot values and
    ends with ``nv_tileas.async.pipeline.yield``; the op returns the yielded values, then a value
    of ``last``'s type (``what_last``: the token, the next iterator)."""
    short = op.name.removeprefix("nv_tileas.async.pipeline.")
    elems = _pipe(op).element_types()
    block = op.body.block
    if [a.type for a in block.args] != elems:
        raise VerifyException(f"{short} region takes the slot values ({_types(elems)})")
    end = block.last_op
    if not isinstance(end, base.YieldOp):
        raise VerifyException(f"{short} region must end with nv_tileas.async.pipeline.yield")
    want = [v.type for v in end.values] + [last.type]
    if [r.type for r in op.res] != want:
        raise VerifyException(f"{short} returns the yielded values and {what_last}: ({_types(want)})")


@irdl_op_definition
class CreateIteratorOp(IRDLOperation):
    """The iterator at slot 0, phase 0 of a pipeline (one per side)."""

    name = "nv_tileas.async.pipeline.create_iterator"
    pipeline = operand_def(AsyncPipelineType)
    result = result_def(PipelineIteratorType)
    traits = traits_def(Pure())
    assembly_format = "$pipeline attr-dict `:` type($pipeline) `->` type($result)"

    def __init__(self, pipeline: SSAValue, kind: str = "any"):
        super().__init__(operands=[pipeline], result_types=[PipelineIteratorType.for_pipeline(pipeline.type, kind)])

    def verify_(self) -> None:
        _check_iter(self, self.result)


@irdl_op_definition
class IncIterOp(IRDLOperation):
    """The next slot (the phase flips on wrap-around)."""

    name = "nv_tileas.async.pipeline.inc_iter"
    T: ClassVar = VarConstraint("T", AnyAttr())
    iterator = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$iterator attr-dict `:` type($iterator)"

    def __init__(self, iterator: SSAValue):
        super().__init__(operands=[iterator], result_types=[iterator.type])

    def verify_(self) -> None:
        if not isinstance(self.iterator.type, PipelineIteratorType):
            raise VerifyException("inc_iter takes a pipeline iterator")


@irdl_op_definition
class ProducerAcquireOp(IRDLOperation):
    """Wait until the slot at ``iterator`` is empty; the token names it for writing."""

    name = "nv_tileas.async.pipeline.producer_acquire"
    pipeline = operand_def(AsyncPipelineType)
    iterator = operand_def(PipelineIteratorType)
    result = result_def(ProducerTokenType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "$pipeline `,` $iterator attr-dict `:` type($pipeline) `,` type($iterator)"

    def __init__(self, pipeline: SSAValue, iterator: SSAValue):
        super().__init__(operands=[pipeline, iterator], result_types=[ProducerTokenType()])

    def verify_(self) -> None:
        _check_iter(self, self.iterator, "producer")


@irdl_op_definition
class ProducerWriteOp(IRDLOperation):
    """Fill the acquired slot: the region receives the slot's buffers named by
    ``producer_value_indices`` and yields their new values."""

    name = "nv_tileas.async.pipeline.producer_write"
    pipeline = operand_def(AsyncPipelineType)
    token = operand_def(ProducerTokenType)
    producer_value_indices = prop_def(DenseArrayBase)
    result = result_def(ProducerTokenType)
    body = region_def("single_block")
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$pipeline `,` $token attr-dict-with-keyword `:` type($pipeline) $body"

    def __init__(self, pipeline: SSAValue, token: SSAValue, indices: Sequence[int], body: Region):
        super().__init__(operands=[pipeline, token], result_types=[ProducerTokenType()],
                         properties={"producer_value_indices": DenseArrayBase.from_list(i32, list(indices))},
                         regions=[body])

    def verify_(self) -> None:
        elems = _pipe(self).element_types()
        idx = list(self.producer_value_indices.get_values())
        if any(not 0 <= i < len(elems) for i in idx) or len(set(idx)) != len(idx):
            raise VerifyException(f"producer_value_indices {idx} must be distinct slot indices below {len(elems)}")
        want = [elems[i] for i in idx]
        block = self.body.block
        if [a.type for a in block.args] != want:
            raise VerifyException(f"producer_write region takes the slot buffers ({_types(want)})")
        last = block.last_op
        if not isinstance(last, base.YieldOp) or [v.type for v in last.values] != want:
            raise VerifyException(f"producer_write region must yield the new slot values ({_types(want)})")


@irdl_op_definition
class ProducerCommitOp(IRDLOperation):
    """Publish the written slot to the consumers."""

    name = "nv_tileas.async.pipeline.producer_commit"
    pipeline = operand_def(AsyncPipelineType)
    token = operand_def(ProducerTokenType)
    traits = traits_def(*_EFFECTS)
    assembly_format = "$pipeline `,` $token attr-dict `:` type($pipeline)"

    def __init__(self, pipeline: SSAValue, token: SSAValue):
        super().__init__(operands=[pipeline, token])


@irdl_op_definition
class ConsumerWaitOp(IRDLOperation):
    """Wait until the slot at ``iterator`` is full (for consumer ``consumer_idx``)."""

    name = "nv_tileas.async.pipeline.consumer_wait"
    pipeline = operand_def(AsyncPipelineType)
    iterator = operand_def(PipelineIteratorType)
    consumer_idx = prop_def(IntegerAttr[IntegerType])
    result = result_def(ConsumerTokenType)
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$pipeline `,` $iterator attr-dict `:` type($pipeline) `,` type($iterator) `->` type($result)"

    def __init__(self, pipeline: SSAValue, iterator: SSAValue, consumer_idx: int = 0):
        super().__init__(operands=[pipeline, iterator], result_types=[ConsumerTokenType(consumer_idx)],
                         properties={"consumer_idx": IntegerAttr(consumer_idx, i32)})

    def verify_(self) -> None:
        _check_iter(self, self.iterator, "consumer")
        _check_consumer_idx(self, self.consumer_idx.value.data, self.result)


@irdl_op_definition
class ConsumerReadOp(IRDLOperation):
    """Read the full slot: the region receives all slot values and yields what it computed;
    results are those values and the token (for the release)."""

    name = "nv_tileas.async.pipeline.consumer_read"
    pipeline = operand_def(AsyncPipelineType)
    token = operand_def(ConsumerTokenType)
    consumer_idx = prop_def(IntegerAttr[IntegerType])
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$pipeline `,` $token attr-dict-with-keyword `:` type($pipeline) `,` type($token) `->` type($res) $body"

    def __init__(self, pipeline: SSAValue, token: SSAValue, result_types: Sequence[Attribute], body: Region,
                 consumer_idx: int = 0):
        super().__init__(operands=[pipeline, token], result_types=[[*result_types, token.type]],
                         properties={"consumer_idx": IntegerAttr(consumer_idx, i32)}, regions=[body])

    def verify_(self) -> None:
        _check_consumer_idx(self, self.consumer_idx.value.data, self.token)
        _check_consumer_region(self, self.token, "the token")


@irdl_op_definition
class ConsumerReleaseOp(IRDLOperation):
    """Hand the slot back to the producer."""

    name = "nv_tileas.async.pipeline.consumer_release"
    pipeline = operand_def(AsyncPipelineType)
    token = operand_def(ConsumerTokenType)
    consumer_idx = opt_prop_def(IntegerAttr[IntegerType])
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$pipeline `,` $token attr-dict `:` type($pipeline) `,` type($token)"

    def __init__(self, pipeline: SSAValue, token: SSAValue):
        super().__init__(operands=[pipeline, token])

    def verify_(self) -> None:
        if self.consumer_idx is not None:
            _check_consumer_idx(self, self.consumer_idx.value.data, self.token)


@irdl_op_definition
class ConsumeOneOp(IRDLOperation):
    """wait + read + release + inc_iter of one slot: the region receives the slot values,
    results are the yielded values and the advanced iterator."""

    name = "nv_tileas.async.pipeline.consume_one"
    pipeline = operand_def(AsyncPipelineType)
    iterator = operand_def(PipelineIteratorType)
    consumer_idx = prop_def(IntegerAttr[IntegerType])
    res = var_result_def()
    body = region_def("single_block")
    traits = traits_def(*_EFFECTS)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$pipeline `,` $iterator attr-dict-with-keyword `:` type($pipeline) `,` type($iterator) `->` type($res) $body"

    def verify_(self) -> None:
        _check_iter(self, self.iterator, "consumer")
        _check_consumer_idx(self, self.consumer_idx.value.data)
        _check_consumer_region(self, self.iterator, "the next iterator")


@irdl_op_definition
class ProduceOneOp(IRDLOperation):
    """acquire + write + commit + inc_iter of one slot; returns the advanced iterator."""

    name = "nv_tileas.async.pipeline.produce_one"
    pipeline = operand_def(AsyncPipelineType)
    T: ClassVar = VarConstraint("T", AnyAttr())
    iterator = operand_def(T)
    result = result_def(T)
    body = region_def("single_block")
    traits = traits_def(*_EFFECTS)
    assembly_format = "$pipeline `,` $iterator attr-dict-with-keyword `:` type($pipeline) `,` type($iterator) $body"

    def verify_(self) -> None:
        _check_iter(self, self.iterator, "producer")
        elems = _pipe(self).element_types()
        block = self.body.block
        last = block.last_op
        if [a.type for a in block.args] != elems or not isinstance(last, base.YieldOp) or \
                [v.type for v in last.values] != elems:
            raise VerifyException(f"produce_one region takes and yields the slot values ({_types(elems)})")


TILE_OPS = [
    TiledLoadOp, TiledStoreOp, DotOp, ConvertLayoutOp, AllocTensorOp, CopyOp, BroadcastOp, ExpandDimOp,
    ExtractSliceOp, InsertSliceOp, PragmaOp, CancelNextProgramIdOp, AsyncTiledTmaLoadOp, AsyncTiledTmaStoreOp,
    CreateIteratorOp, IncIterOp, ProducerAcquireOp, ProducerWriteOp, ProducerCommitOp, ConsumerWaitOp,
    ConsumerReadOp, ConsumerReleaseOp, ConsumeOneOp, ProduceOneOp,
]
TILE_ATTRS = [
    LayoutAttr, FmaAtomAttr, MmaSm80AtomAttr, MmaSm90AtomAttr, MmaSm100AtomAttr, UnknownCopyAtomAttr,
    TmaLoadAtomAttr, TmaStoreAtomAttr, LdgAtomAttr, StgAtomAttr, LdsAtomAttr, StsAtomAttr, LdsmAtomAttr,
    StsmAtomAttr, AsyncPipelineType, PipelineIteratorType, ProducerTokenType, ConsumerTokenType,
]

NvTileasAll = Dialect(
    "nv_tileas",
    [*base.NvTileas.operations, *TILE_OPS],
    [*base.NvTileas.attributes, *TILE_ATTRS],
)
