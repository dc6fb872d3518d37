"""``llvm.getelementptr`` and ``llvm.store`` as xDSL's constructors build them, from shared attributes.

``llvm.GEPOp(...)`` packs and verifies a new ``rawConstantIndices`` array and a new
``noWrapFlags`` integer for every op, and ``llvm.StoreOp(...)`` a new ``ordering`` and
``alignment`` integer (through a generic alias subscripted at each call): some 30 and 20
microseconds per op on the 2-core machine, against 5 for an ``llvm.extractvalue``.  A GEMM's
epilogue builds a GEP and a store per pair of accumulator values (512 of each for a 128 x 256
tile), most of ``convert-atoms-to-nvvm``.  :func:`gep` and :func:`store` build the op xDSL's
constructor builds (the same operands, result types and properties, property by property equal)
with the attributes taken from :mod:`tileorch.transforms.attr_cache`: attributes are immutable
values, so ops may share them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, UnitAttr, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation

from tileorch.transforms.attr_cache import integer

_DEFAULT_PTR = llvm.LLVMPointerType()


@cache
def _raw_indices(indices: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, indices)


def gep(ptr: SSAValue, indices: Sequence[int], pointee_type: Attribute, ssa_indices: Sequence[SSAValue] = (),
        result_type: Attribute = _DEFAULT_PTR, inbounds: bool = False) -> llvm.GEPOp:
    """``llvm.GEPOp(ptr, indices, pointee_type, ssa_indices, result_type, inbounds)``."""
    props: dict[str, Attribute] = {"rawConstantIndices": _raw_indices(tuple(indices)), "elem_type": pointee_type,
                                   "noWrapFlags": integer(0, 32)}
    if inbounds:
        props["inbounds"] = UnitAttr()
    op = llvm.GEPOp.__new__(llvm.GEPOp)
    IRDLOperation.__init__(op, operands=[ptr, list(ssa_indices)], result_types=[result_type], properties=props)
    return op


def store(value: SSAValue, ptr: SSAValue, alignment: int | None = None, ordering: int = 0,
          volatile: bool = False, nontemporal: bool = False) -> llvm.StoreOp:
    """``llvm.StoreOp(value, ptr, alignment, ordering, volatile, nontemporal)``."""
    props: dict[str, Attribute] = {"ordering": integer(ordering, i64)}
    if alignment is not None:
        props["alignment"] = integer(alignment, i64)
    if volatile:
        props["volatile_"] = UnitAttr()
    if nontemporal:
        props["nontemporal"] = UnitAttr()
    op = llvm.StoreOp.__new__(llvm.StoreOp)
    IRDLOperation.__init__(op, operands=[value, ptr], properties=props, result_types=[])
    return op


__all__ = ["gep", "store"]
