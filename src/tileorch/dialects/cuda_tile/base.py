"""Common base of ``cuda_tile`` ops: custom syntax through :mod:`.format`, and the
specification's operand/result type rules (element families, rank-0 tiles, equal types).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (BFloat16Type, Float4E2M1FNType, Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType,
                                   Float16Type, Float32Type, Float64Type, FloatTF32Type, IntegerType)
from xdsl.ir import Attribute
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileorch.dialects.cuda_tile import format as fmt
from tileorch.dialects.cuda_tile.syntax import ct_type_str
from tileorch.dialects.cuda_tile.types import (BASE_FLOAT_TYPES, FLOAT_TYPES, PointerType, TileType, TokenType,
                                               is_float, is_int)

# element families: name -> (predicate, spelling used in diagnostics)
_INT = "i1 or i8 or i16 or i32 or i64"
FAMILIES = {
    "int": (lambda t: is_int(t), _INT),
    "int4": (lambda t: is_int(t) or is_int(t, (4,)), _INT + " or i4"),
    "basefloat": (lambda t: is_float(t, BASE_FLOAT_TYPES), "f16 or bf16 or f32 or f64"),
    "float": (lambda t: is_float(t), "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or "
                                     "f4E2M1FN"),
    "number": (lambda t: is_int(t) or is_float(t), "number"),
    "number4": (lambda t: is_int(t) or is_float(t) or is_int(t, (4,)), "number or i4"),
    "ptr": (lambda t: isinstance(t, PointerType), "ptr"),
    "any": (lambda t: True, "any"),
    "i1": (lambda t: is_int(t, (1,)), "i1"),
    "i8": (lambda t: is_int(t, (8,)), "i8"),
    "i32": (lambda t: is_int(t, (32,)), "i32"),
    "i64": (lambda t: is_int(t, (64,)), "i64"),
    "f32": (lambda t: isinstance(t, Float32Type), "f32"),
    "mma_in": (lambda t: isinstance(t, (Float16Type, BFloat16Type, Float32Type, Float64Type, FloatTF32Type,
                                        Float8E4M3FNType, Float8E5M2Type)),
               "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2"),
    "mma_acc": (lambda t: isinstance(t, (Float16Type, Float32Type, Float64Type)), "f16 or f32 or f64"),
    "mmas_in": (lambda t: isinstance(t, (Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType)),
                "f8E4M3FN or f8E5M2 or f4E2M1FN"),
    "mmas_scale": (lambda t: isinstance(t, (Float8E4M3FNType, Float8E8M0FNUType)), "f8E4M3FN or f8E8M0FNU"),
}


def check_value_type(t: Attribute, spec: str) -> str | None:
    """``None`` if ``t`` satisfies ``spec`` (``tile:FAMILY``, ``scalar:FAMILY``, ``token``), else the rule."""
    if spec == "token":
        return None if isinstance(t, TokenType) else "token"
    kind, fam = spec.split(":")
    pred, words = FAMILIES[fam]
    desc = ("0D tile of " if kind == "scalar" else "tile of ") + words + " values"
    if not isinstance(t, TileType):
        return desc
    if kind == "scalar" and t.rank != 0:
        return desc
    return None if pred(t.element_type) else desc


class CtOp(IRDLOperation):
    """A ``cuda_tile`` op with MLIR-compatible custom syntax (``fmt``) and type rules."""

    FMT: ClassVar[str | None] = None
    PROP_SYNTAX: ClassVar[dict] = {}
    SAME_TYPE: ClassVar[tuple[tuple[str, ...], ...]] = ()
    SAME_SHAPE: ClassVar[tuple[tuple[str, ...], ...]] = ()
    SAME_ELEM: ClassVar[tuple[tuple[str, ...], ...]] = ()
    SAME_RANK: ClassVar[tuple[tuple[str, ...], ...]] = ()
    VALUE_TYPES: ClassVar[dict[str, str]] = {}
    ELIDED_ATTRS: ClassVar[tuple[str, ...]] = ()
    _PROGRAM: ClassVar[fmt.Program | None] = None

    @classmethod
    def _get_program(cls) -> fmt.Program:
        if cls.__dict__.get("_PROGRAM") is None:
            cls._PROGRAM = fmt.Program(cls, cls.FMT or "attr-dict")
        return cls._PROGRAM

    @classmethod
    def parse(cls, parser: Parser):
        return cls._get_program().parse(parser)

    def print(self, printer: Printer) -> None:
        self._get_program().print(printer, self)

    # ---- verification helpers
    def _values(self, name: str) -> list:
        v = getattr(self, name)
        if v is None:
            return []
        if hasattr(v, "type"):
            return [v]
        return list(v)

    def _index(self, name: str) -> str:
        for i, (n, _) in enumerate(self.get_irdl_definition().operands):
            if n == name:
                return f"operand #{i}"
        for i, (n, _) in enumerate(self.get_irdl_definition().results):
            if n == name:
                return f"result #{i}"
        return name

    def verify_(self) -> None:
        for name, spec in self.VALUE_TYPES.items():
            for v in self._values(name):
                rule = check_value_type(v.type, spec)
                if rule is not None:
                    raise VerifyException(f"{self._index(name)} must be {rule}, but got '{ct_type_str(v.type)}'")
        for groups, facet, what in (
            (self.SAME_TYPE, lambda t: t, "same type"),
            (self.SAME_SHAPE, lambda t: t.shape if isinstance(t, TileType) else None, "same shape"),
            (self.SAME_ELEM, lambda t: t.element_type if isinstance(t, TileType) else None, "the same element type"),
            (self.SAME_RANK, lambda t: t.rank if isinstance(t, TileType) else None, "same rank"),
        ):
            for group in groups:
                self._verify_same(group, facet, what)
        self.verify_op()

    def _verify_same(self, group: tuple[str, ...], facet, what: str) -> None:
        """All values named in ``group`` agree on ``facet(type)`` (None: a value it does not apply to)."""
        facets = [f for n in group for v in self._values(n) if (f := facet(v.type)) is not None]
        if facets and any(f != facets[0] for f in facets):
            raise VerifyException(f"failed to verify that all of {{{', '.join(group)}}} have {what}")

    def verify_op(self) -> None:
        """Op-specific rules (overridden)."""


def elem(v) -> Attribute:
    t = v.type if hasattr(v, "type") else v
    return t.element_type if isinstance(t, TileType) else t


def is_f32(v) -> bool:
    return isinstance(elem(v), Float32Type)


def i1_like(t: TileType) -> TileType:
    return TileType(t.shape, IntegerType(1))
