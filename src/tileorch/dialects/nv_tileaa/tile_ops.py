"""``nv_tileaa`` ops for ``cuda_tile`` tile ops that xDSL's ``arith`` cannot express on tiles:
integer/float casts, comparisons and selects of tiles (xDSL's ``arith.extsi``/``sitofp``/... take
scalars only, its ``arith.cmpi``/``cmpf`` give ``i1`` and ``arith.select`` takes an ``i1``
condition; on scalars ``convert-cudatile-to-tileaa`` still emits ``arith``), ``cat`` and ``extract_slice``
(``cuda_tile.extract``: a sub-tile at dynamic indices).  Registered with the dialect in
``nv_tileaa/__init__.py`` (``TILE_OPS``); ``convert-nv-tileaa-to-simt`` lowers them."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, IntegerAttr, IntegerType, StringAttr, TensorType, i1, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (IRDLOperation, ParsePropInAttrDict, VarConstraint, base, irdl_op_definition, operand_def,
                       prop_def, result_def, traits_def, var_operand_def)
from xdsl.traits import MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, TensorType) else t


def _shape(t: Attribute) -> list[int] | None:
    return list(t.get_shape()) if isinstance(t, TensorType) else None


class _CastOp(IRDLOperation):
    """Elementwise cast of a tile (or a scalar); the shape is kept."""

    FROM: ClassVar[str] = "int"  # "int" or "float"
    TO: ClassVar[str] = "int"
    WIDTH: ClassVar[str] = ""  # "wider" / "narrower" for integer -> integer casts

    source = operand_def()
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, result_type: Attribute):
        super().__init__(operands=[source], result_types=[result_type])

    def verify_(self) -> None:
        s, r = self.source.type, self.result.type
        if _shape(s) != _shape(r):
            raise VerifyException(f"'{self.name}' keeps the shape: {s} -> {r}")
        kinds = {"int": IntegerType, "float": AnyFloat}
        a, b = _element(s), _element(r)
        if not isinstance(a, kinds[self.FROM]) or not isinstance(b, kinds[self.TO]):
            raise VerifyException(f"'{self.name}' converts {self.FROM} elements to {self.TO} elements, "
                                  f"not {a} to {b}")
        if self.WIDTH == "wider" and not b.width.data > a.width.data:
            raise VerifyException(f"'{self.name}' needs a wider result element than {a}, got {b}")
        if self.WIDTH == "narrower" and not b.width.data < a.width.data:
            raise VerifyException(f"'{self.name}' needs a narrower result element than {a}, got {b}")


@irdl_op_definition
class ExtSIOp(_CastOp):
    name = "nv_tileaa.extsi"
    WIDTH: ClassVar[str] = "wider"


@irdl_op_definition
class ExtUIOp(_CastOp):
    name = "nv_tileaa.extui"
    WIDTH: ClassVar[str] = "wider"


@irdl_op_definition
class TruncIOp(_CastOp):
    name = "nv_tileaa.trunci"
    WIDTH: ClassVar[str] = "narrower"


@irdl_op_definition
class SIToFPOp(_CastOp):
    name = "nv_tileaa.sitofp"
    TO: ClassVar[str] = "float"


@irdl_op_definition
class UIToFPOp(_CastOp):
    name = "nv_tileaa.uitofp"
    TO: ClassVar[str] = "float"


@irdl_op_definition
class FPToSIOp(_CastOp):
    name = "nv_tileaa.fptosi"
    FROM: ClassVar[str] = "float"


@irdl_op_definition
class FPToUIOp(_CastOp):
    name = "nv_tileaa.fptoui"
    FROM: ClassVar[str] = "float"


CASTS: dict[str, str] = {
    "nv_tileaa.extsi": "arith.extsi", "nv_tileaa.extui": "arith.extui", "nv_tileaa.trunci": "arith.trunci",
    "nv_tileaa.sitofp": "arith.sitofp", "nv_tileaa.uitofp": "arith.uitofp",
    "nv_tileaa.fptosi": "arith.fptosi", "nv_tileaa.fptoui": "arith.fptoui",
}
"""Each tile cast and the ``arith`` op it applies to every element."""


CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
                   "une", "uno", "true")
"""``arith.cmpi``/``arith.cmpf`` predicate mnemonics, in ``arith``'s numbering."""


class _CompareOp(IRDLOperation):
    """Elementwise comparison of two tiles: a tile of ``i1`` of the same shape (xDSL's
    ``arith.cmpi``/``cmpf`` type their result ``i1`` even for tensor operands)."""

    PREDICATES: ClassVar[tuple[str, ...]] = CMPI_PREDICATES
    KIND: ClassVar[str] = "int"

    T: ClassVar = VarConstraint("T", base(TensorType))
    predicate = prop_def(StringAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, predicate: str):
        t = SSAValue.get(lhs).type
        super().__init__(operands=[lhs, rhs], properties={"predicate": StringAttr(predicate)},
                         result_types=[TensorType(i1, list(t.get_shape()))])

    def verify_(self) -> None:
        if self.predicate.data not in self.PREDICATES:
            raise VerifyException(f"unknown '{self.name}' predicate '{self.predicate.data}' "
                                  f"(one of {', '.join(self.PREDICATES)})")
        a, r = self.lhs.type, self.result.type  # (lhs and rhs: one type, the IRDL variable T)
        kind = IntegerType if self.KIND == "int" else AnyFloat
        if not isinstance(a.element_type, kind):
            raise VerifyException(f"'{self.name}' compares {self.KIND} elements, not {a.element_type}")
        if r.element_type != i1 or list(r.get_shape()) != list(a.get_shape()):
            raise VerifyException(f"'{self.name}' gives a tile of i1 of the operands' shape, not {r}")

    @property
    def arith_predicate(self) -> int:
        """The predicate in ``arith``'s numbering."""
        return self.PREDICATES.index(self.predicate.data)


@irdl_op_definition
class CmpIOp(_CompareOp):
    name = "nv_tileaa.cmpi"


@irdl_op_definition
class CmpFOp(_CompareOp):
    name = "nv_tileaa.cmpf"
    PREDICATES: ClassVar[tuple[str, ...]] = CMPF_PREDICATES
    KIND: ClassVar[str] = "float"


@irdl_op_definition
class SelectOp(IRDLOperation):
    """Elementwise ``cond ? lhs : rhs`` on tiles; ``cond`` is a tile of ``i1`` of the same shape
    or one ``i1`` (xDSL's ``arith.select`` takes a scalar condition only)."""

    name = "nv_tileaa.select"
    T: ClassVar = VarConstraint("T", base(TensorType))
    cond = operand_def()
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($result)"

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[cond, lhs, rhs], result_types=[SSAValue.get(lhs).type])

    def verify_(self) -> None:
        c, r = self.cond.type, self.result.type  # (lhs, rhs and result: one type, the IRDL variable T)
        if c != i1 and not (isinstance(c, TensorType) and c.element_type == i1
                            and list(c.get_shape()) == list(r.get_shape())):
            raise VerifyException(f"select condition must be i1 or a tile of i1 of shape {list(r.get_shape())}, "
                                  f"not {c}")


@irdl_op_definition
class CatOp(IRDLOperation):
    """Concatenate two tiles along ``dim`` (the other extents match)."""

    name = "nv_tileaa.cat"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    dim = prop_def(IntegerAttr[IntegerType])
    result = result_def(TensorType)
    traits = traits_def(Pure())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, dim: int, result_type: TensorType):
        super().__init__(operands=[lhs, rhs], properties={"dim": IntegerAttr(dim, i32)}, result_types=[result_type])

    def verify_(self) -> None:
        a, b, r = (list(x.type.get_shape()) for x in (self.lhs, self.rhs, self.result))
        d = self.dim.value.data
        if not len(a) == len(b) == len(r):
            raise VerifyException(f"cat keeps the rank: {a}, {b} -> {r}")
        if not 0 <= d < len(a):
            raise VerifyException(f"cat dim {d} out of range for rank {len(a)}")
        want = [x + y if i == d else x for i, (x, y) in enumerate(zip(a, b))]
        if any(x != y for i, (x, y) in enumerate(zip(a, b)) if i != d) or r != want:
            raise VerifyException(f"cat of {a} and {b} along {d} cannot give {r}")
        if not self.lhs.type.element_type == self.rhs.type.element_type == self.result.type.element_type:
            raise VerifyException("cat keeps the element type")


@irdl_op_definition
class ExtractSliceOp(IRDLOperation):
    """The sub-tile of the result's shape at tile index ``indices`` (``cuda_tile.extract``):
    result element ``c`` is source element ``indices * result_shape + c``.  Each result extent
    divides the source's; the indices are integer scalars, one per dimension."""

    name = "nv_tileaa.extract_slice"
    source = operand_def(TensorType)
    indices = var_operand_def(IntegerType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$source `[` $indices `]` attr-dict `:` type($source) `,` type($indices) `->` type($result)"

    def __init__(self, source: SSAValue, indices: list[SSAValue], result_type: TensorType):
        super().__init__(operands=[source, indices], result_types=[result_type])

    def verify_(self) -> None:
        s, r = list(self.source.type.get_shape()), list(self.result.type.get_shape())
        if len(s) != len(r) or len(self.indices) != len(s):
            raise VerifyException(f"extract_slice of a rank-{len(s)} tile needs a rank-{len(s)} result and "
                                  f"{len(s)} indices")
        if any(y <= 0 or x % y for x, y in zip(s, r)):
            raise VerifyException(f"extract_slice result shape {r} must divide the source shape {s}")
        if self.source.type.element_type != self.result.type.element_type:
            raise VerifyException("extract_slice keeps the element type")


@irdl_op_definition
class InsertSliceOp(IRDLOperation):
    """``dest`` with its sub-tile at tile index ``indices`` replaced by ``source``: result element
    ``c`` is ``source[c - indices * source_shape]`` where that lies in the source, else
    ``dest[c]``.  Each source extent divides the destination's; the indices are integer scalars,
    one per dimension (the inverse of ``extract_slice``)."""

    name = "nv_tileaa.insert_slice"
    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    indices = var_operand_def(IntegerType)
    result = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = ("$source `,` $dest `[` $indices `]` attr-dict `:` type($source) `,` type($dest) `,` "
                       "type($indices) `->` type($result)")

    def __init__(self, source: SSAValue, dest: SSAValue, indices: list[SSAValue]):
        super().__init__(operands=[source, dest, indices], result_types=[dest.type])

    def verify_(self) -> None:
        s, d = list(self.source.type.get_shape()), list(self.dest.type.get_shape())
        if len(s) != len(d) or len(self.indices) != len(d):
            raise VerifyException(f"insert_slice of a rank-{len(s)} tile into a rank-{len(d)} one needs equal ranks "
                                  f"and {len(d)} indices")
        if any(y <= 0 or x % y for x, y in zip(d, s)):
            raise VerifyException(f"insert_slice source shape {s} must divide the destination shape {d}")
        if not self.source.type.element_type == self.dest.type.element_type == self.result.type.element_type:
            raise VerifyException("insert_slice keeps the element type")
        if self.result.type != self.dest.type:
            raise VerifyException("insert_slice gives a tile of the destination's type")


@irdl_op_definition
class AssertOp(IRDLOperation):
    """``cuda_tile.assert`` (cuTile's ``ct.assert_(cond, message)``): every element of ``condition``
    (a tile of ``i1``, or an ``i1``) holds, else the kernel stops with ``message`` (the SIMT
    lowering calls the PTX system call ``__assertfail`` with it and the op's source location)."""

    name = "nv_tileaa.assert"
    condition = operand_def()
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())  # it may stop the kernel: never removed as dead
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        if _element(self.condition.type) != i1:
            raise VerifyException(f"assert takes a condition of i1 elements, got {self.condition.type}")


@irdl_op_definition
class PrintOp(IRDLOperation):
    """``cuda_tile.print_tko`` (cuTile's ``ct.printf(format, *tiles)`` and ``ct.print(...)``): each tile
    block prints ``format`` once, each conversion replaced by its argument (a tile prints as a
    nested list, ``[[a, b], [c, d]]``, every element with the conversion; a scalar or 0-d tile as
    one value).  The format's rules are :mod:`tileorch.dialects.nv_tileaa.print_format`'s; the
    SIMT lowering calls the PTX system call ``vprintf`` (``tileaa_to_simt/prints.py``)."""

    name = "nv_tileaa.print"
    format = prop_def(StringAttr)
    args = var_operand_def()
    traits = traits_def(MemoryWriteEffect())  # output: never removed as dead, never reordered
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$format (`,` $args^ `:` type($args))? attr-dict"

    def __init__(self, format: str, args: list[SSAValue]):
        super().__init__(operands=[args], properties={"format": StringAttr(format)})

    def verify_(self) -> None:
        from tileorch.dialects.nv_tileaa.print_format import FormatError, check

        try:
            check(self.format.data, [_element(a.type) for a in self.args])
        except FormatError as exc:
            raise VerifyException(str(exc)) from None


TILE_OPS = [ExtSIOp, ExtUIOp, TruncIOp, SIToFPOp, UIToFPOp, FPToSIOp, FPToUIOp, CmpIOp, CmpFOp, SelectOp, CatOp,
            ExtractSliceOp, InsertSliceOp, AssertOp, PrintOp]

__all__ = ["AssertOp", "CASTS", "CMPF_PREDICATES", "CMPI_PREDICATES", "TILE_OPS", "CatOp", "CmpFOp", "CmpIOp",
           "ExtSIOp", "ExtUIOp", "ExtractSliceOp", "FPToSIOp", "FPToUIOp", "InsertSliceOp", "PrintOp", "SIToFPOp",
           "SelectOp", "TruncIOp",
           "UIToFPOp"]
