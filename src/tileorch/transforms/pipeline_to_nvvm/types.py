"""How cutlass / nv_tileas values are represented after ``convert-pipeline-to-nvvm``.

=================================================  ==============================================
source type                                        lowered type
=================================================  ==============================================
``!cutlass.pipeline<...>``, ``!nv_tileas.pipeline`` ``!llvm.ptr<3>``: barrier words ``full[0..S)``
                                                   then ``empty[0..S)`` (i64 each)
``!cutlass.seq_bar<depth = D, length = L>``         ``!llvm.ptr<3>``: ``D * L`` barrier words
``!cutlass.pipeline_state<S>``, ``seq_bar_state``   ``!llvm.struct<(i32, i32, i32)>`` (index, phase,
                                                   count)
``!cutlass.dynamic_participants<P, C>``             ``!llvm.array<P*C x i32>`` (row-major)
``!nv_tileas.token<f>``, ``!nv_tileas.async<f>``    see :func:`nv_tileas.lowered_async_type`
=================================================  ==============================================

Patterns convert operands with :func:`as_lowered` (an ``unrealized_conversion_cast`` when the
value still has its source type) and give their results the source type back with
:func:`as_source`; :class:`LowerTypes` rewrites the remaining block arguments and results and
the casts are reconciled at the end of the pass.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (ArrayAttr, DenseArrayBase, DictionaryAttr, FloatAttr, FunctionType, IntAttr, IntegerAttr,
                                   StringAttr, UnitAttr, UnrealizedConversionCastOp, i32)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, TypeConversionPattern

from tileorch.dialects import nv_tileas
from tileorch.transforms.pipeline_to_nvvm.emit import SMEM_PTR, STATE_TYPE, Emitter

_PTR_TYPES = ("cutlass.pipeline", "cutlass.seq_bar", "nv_tileas.pipeline")
_STATE_TYPES = ("cutlass.pipeline_state", "cutlass.seq_bar_state")


def lowered_type(typ: Attribute) -> Attribute | None:
    """The llvm-dialect type of a cutlass/nv_tileas type, or None if ``typ`` is not one."""
    name = getattr(typ, "name", "")
    if name in _PTR_TYPES:
        return SMEM_PTR
    if name in _STATE_TYPES:
        return STATE_TYPE
    if name == "cutlass.dynamic_participants":
        params = [getattr(p, "data", None) for p in typ.parameters]
        cells = 1
        for p in params:
            if isinstance(p, int):
                cells *= p
        return llvm.LLVMArrayType(cells, i32)
    if isinstance(typ, (nv_tileas.TokenType, nv_tileas.AsyncType)):
        return nv_tileas.lowered_async_type(typ.flavor.data)
    return None


def as_lowered(e: Emitter, value: SSAValue,
               lower: Callable[[Attribute], Attribute | None] = lowered_type) -> SSAValue:
    """``value`` in its lowered type (casting when it still has a source type): ``lower`` maps a
    source type to its lowered type, or to None for a type that is not lowered."""
    target = lower(value.type)
    if target is None:
        return value
    return e.emit(UnrealizedConversionCastOp.get([value], [target]))


def as_source(e: Emitter, value: SSAValue, source_type: Attribute) -> SSAValue:
    """Cast a lowered value back to ``source_type`` for users not lowered yet."""
    if value.type == source_type:
        return value
    return e.emit(UnrealizedConversionCastOp.get([value], [source_type]))


class MemoizedTypeConversion(TypeConversionPattern):
    """A recursive type conversion that converts each distinct attribute once: xDSL recurses into
    every parameter of every type it meets, which is quadratic-ish on wide ``!llvm.struct``s (a
    128-register WGMMA accumulator) without the memo."""

    UNCHANGED_CLASSES: frozenset[type] = frozenset()
    """Attribute classes whose every instance the conversion leaves unchanged (none known here)."""

    def _convert_type_rec(self, typ: Attribute) -> Attribute | None:
        # keyed by identity first (the parser and the builders share attribute objects, and
        # hashing a wide struct type hashes every member), then by value
        memo = self.__dict__.setdefault("_memo", {})
        by_id = self.__dict__.setdefault("_memo_id", {})
        found = by_id.get(id(typ))
        if found is not None and found[0] is typ:
            return found[1]
        # the value memo holds None for an attribute that does not convert: such an attribute
        # is returned itself, not the equal one met first (identical = unchanged)
        try:
            converted = memo[typ]
        except KeyError:
            converted = self._convert_new(typ)
            converted = memo[typ] = None if converted is typ else converted
        except TypeError:  # an unhashable attribute
            return self._convert_new(typ)
        if converted is None:
            converted = typ
        by_id[id(typ)] = (typ, converted)
        return converted

    def _convert_new(self, typ: Attribute) -> Attribute:
        """xDSL's ``TypeConversionPattern._convert_type_rec`` for an attribute not in the memo,
        its ``isa(typ, ArrayAttr[Attribute])`` and ``isa(typ, DictionaryAttr)`` asked as the
        ``isinstance`` tests they amount to (an array's members are attributes): ``isa`` of a
        generic type built its constraint anew on every call, most of a conversion's misses.

        An attribute none of whose parameters (members, values) converts is kept, not rebuilt
        from the same parameters (xDSL builds an equal copy): the copy cost its construction,
        and each ``converted != attribute`` test of the pattern then compared the two member by
        member instead of finding them identical."""
        inp = typ
        if self.recursive:
            if isinstance(typ, ParametrizedAttribute):
                params = typ.parameters
                new = [self._convert_type_rec(p) or p for p in params]
                if any(n is not p for n, p in zip(new, params)):
                    inp = type(typ).new(new)
            if isinstance(typ, ArrayAttr):
                members = typ.data
                new = tuple(self._convert_type_rec(p) or p for p in members)
                if any(n is not p for n, p in zip(new, members)):
                    inp = type(typ).new(new)
            if isinstance(typ, DictionaryAttr):
                items = typ.data
                new = {k: self._convert_type_rec(v) for k, v in items.items()}
                if any(new[k] is not v for k, v in items.items()):
                    inp = type(typ).new(new)
        converted = self.convert_type(inp)
        return converted if converted is not None else inp


class OnlyConverting(RewritePattern):
    """``conversion`` (a :class:`MemoizedTypeConversion`) applied only to the ops that carry a
    type or attribute it converts (a result type, an attribute or property value, a block
    argument type of its regions): the others it would leave as they are.  xDSL's pattern builds
    an op's new result types, attributes and properties and compares each with the old before it
    finds nothing changed: nine ops in ten of a lowered GEMM, most of the remaining-types walk
    of ``convert-pipeline-to-nvvm``.  The test is the conversion's own (memoized) result for
    each: identical means unchanged (:meth:`MemoizedTypeConversion._convert_new` keeps an
    attribute whose parameters do not convert)."""

    def __init__(self, conversion: MemoizedTypeConversion):
        self.conversion = conversion

    def wants(self, op: Operation) -> bool:
        """Whether the conversion changes ``op`` (:func:`tileorch.transforms.rewrite_once.rewrite_once`
        visits only those)."""
        ops = self.conversion.ops
        return (not ops or isinstance(op, ops)) and self.converts(op)

    def converts(self, op: Operation) -> bool:
        conv = self.conversion._convert_type_rec
        plain = self.conversion.UNCHANGED_CLASSES
        for result in op.results:
            if conv(t := result.type) is not t:
                return True
        for attrs in (op.attributes, op.properties):
            for a in attrs.values():
                if type(a) in plain:
                    continue
                if conv(a) is not a:
                    return True
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if conv(t := arg.type) is not t:
                        return True
        return False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if self.wants(op):
            self.conversion.match_and_rewrite(op, rewriter)


class ElementwiseTypeConversion(MemoizedTypeConversion):
    """Convert each type by :meth:`lower` (None: unchanged), a function signature input by input
    and output by output; subclasses set ``lower``, which lowers dialect types, never a builtin
    integer, index or float type.

    ``UNCHANGED_CLASSES``: attribute classes whose every instance the conversion leaves as it is
    (builtin integer, float, string, unit and dense-array attributes: their parameters are
    Python data and builtin integer, index or float types); :class:`OnlyConverting` skips the
    memo's hash of each (an op's properties are mostly fresh ``IntegerAttr``-s, met once each).
    A subclass whose ``lower`` acts on a builtin type sets it to ``frozenset()``."""

    UNCHANGED_CLASSES: frozenset[type] = frozenset({IntegerAttr, IntAttr, FloatAttr, StringAttr, UnitAttr,
                                                    DenseArrayBase})

    @staticmethod
    def lower(typ: Attribute) -> Attribute | None:
        return None

    def convert_type(self, typ: Attribute) -> Attribute | None:
        if isinstance(typ, FunctionType):
            ins = [self.lower(t) or t for t in typ.inputs.data]
            outs = [self.lower(t) or t for t in typ.outputs.data]
            new = FunctionType.from_lists(ins, outs)
            return new if new != typ else None
        return self.lower(typ)


class LowerTypes(ElementwiseTypeConversion):
    """Rewrite the types of whatever still carries a cutlass/nv_tileas type (block arguments,
    ``scf.for`` iteration values, function signatures)."""

    lower = staticmethod(lowered_type)
