"""``llvm.getelementptr``, ``llvm.load`` and ``llvm.store`` built with shared property attributes.

xDSL's constructors of these three ops build their properties anew for every op:
``GEPOp.__init__`` packs ``rawConstantIndices`` (``DenseArrayBase.from_list(i32, indices)``:
normalize and pack the values) and makes ``noWrapFlags`` (``IntegerAttr(0, 32)``: a type made and
the value checked against it); ``LoadOp``/``StoreOp.__init__`` make the ``ordering`` and
``alignment`` ``IntegerAttr``s (value checked against ``i64``).  Every lowering builds these ops by
the thousand (the epilogue's stores, the scheduler's parameter loads, the SIMT path's address
arithmetic): with ``llvm.extractvalue``'s positions, attribute construction was 2-4% of a cuTile
GEMM compile's CPU (issue 22).

:func:`install` replaces the three ``__init__`` methods with ones that take the same arguments
and build the same properties, in the same order, from attributes made once per value
(attributes are immutable values: ops may share one, as :mod:`tileorch.transforms.attr_cache`'s
positions are shared): the index tuple's array, the one ``noWrapFlags`` and ``UnitAttr``, the
``i64`` integer of each ordering and alignment.  A value of another form (a ``bool``, an
``IntAttr``, a non-int index) is built as xDSL builds it, errors included.  Installed only over
the xDSL constructors it was written against (their code's names and constants are checked once),
else xDSL's stay.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, UnitAttr, i32, i64
from xdsl.irdl import IRDLOperation

_XDSL_GEP_INIT = llvm.GEPOp.__init__
_XDSL_LOAD_INIT = llvm.LoadOp.__init__
_XDSL_STORE_INIT = llvm.StoreOp.__init__

_MIRRORED = {
    # class: (co_names, co_consts less the doc string, __defaults__ as (repr) strings) of xDSL 0.74's __init__
    "GEPOp": (frozenset({"DenseArrayBase", "IntegerAttr", "UnitAttr", "__init__", "from_list", "i32", "super"}),
              (None, 0, 32, ("rawConstantIndices", "elem_type", "noWrapFlags"), "elem_type", "inbounds",
               ("operands", "result_types", "properties")), 3),
    "LoadOp": (frozenset({"IntegerAttr", "__init__", "i64", "super"}),
               (None, "ordering", "alignment", ("operands", "result_types", "properties")), 2),
    "StoreOp": (frozenset({"IntegerAttr", "IntegerType", "UnitAttr", "__init__", "i64", "super"}),
                (None, "ordering", "alignment", "volatile_", "nontemporal", ("operands", "properties", "result_types")),
                4),
}
"""What the checked constructors' code reads: names, constants (the GEP's doc string left out) and the
number of defaults."""

_MAX_ENTRIES = 4096
"""A memo that reaches this many entries is emptied (a bound on its memory)."""
_INDICES: dict[tuple, DenseArrayBase] = {}
"""Tuple of ``int`` GEP indices -> its ``rawConstantIndices`` array."""
_I64: dict[int, IntegerAttr] = {}
"""``int`` -> ``IntegerAttr(value, i64)``."""
_NO_WRAP = IntegerAttr(0, 32)
_UNIT = UnitAttr()


def raw_indices(indices) -> DenseArrayBase:
    """``DenseArrayBase.from_list(i32, indices)``, the same object for the same ``int`` indices."""
    key = tuple(indices)
    found = _INDICES.get(key)
    if found is None:
        for i in key:
            if type(i) is not int:
                return DenseArrayBase.from_list(i32, indices)
        found = DenseArrayBase.from_list(i32, indices)  # (raises as before on a value out of range)
        if len(_INDICES) >= _MAX_ENTRIES:
            _INDICES.clear()
        _INDICES[key] = found
    return found


def integer64(value) -> IntegerAttr:
    """``IntegerAttr(value, i64)``, the same object for the same ``int``."""
    found = _I64.get(value) if type(value) is int else None
    if found is None:
        found = IntegerAttr(value, i64)
        if type(value) is int:
            if len(_I64) >= _MAX_ENTRIES:
                _I64.clear()
            _I64[value] = found
    return found


_GEP_RESULT_DEFAULT = _XDSL_GEP_INIT.__defaults__[1] if len(_XDSL_GEP_INIT.__defaults__ or ()) == 3 else None
"""xDSL's default ``result_type`` of a GEP (``LLVMPointerType()``, made once when its class was defined)."""


def gep_init(self, ptr, indices, pointee_type, ssa_indices=None, result_type=_GEP_RESULT_DEFAULT, inbounds=False):
    """``GEPOp.__init__`` (same arguments and defaults, same op)."""
    if ssa_indices is None:
        ssa_indices = []
    props = {"rawConstantIndices": raw_indices(indices), "elem_type": pointee_type, "noWrapFlags": _NO_WRAP}
    if inbounds:
        props["inbounds"] = _UNIT
    IRDLOperation.__init__(self, operands=[ptr, ssa_indices], result_types=[result_type], properties=props)


def load_init(self, ptr, result_type, alignment=None, ordering=0):
    """``LoadOp.__init__`` (same arguments and defaults, same op)."""
    props = {"ordering": integer64(ordering)}
    if alignment is not None:
        props["alignment"] = integer64(alignment)
    IRDLOperation.__init__(self, operands=[ptr], result_types=[result_type], properties=props)


def store_init(self, value, ptr, alignment=None, ordering=0, volatile=False, nontemporal=False):
    """``StoreOp.__init__`` (same arguments and defaults, same op)."""
    props = {"ordering": integer64(ordering)}
    if alignment is not None:
        props["alignment"] = integer64(alignment)
    if volatile:
        props["volatile_"] = _UNIT
    if nontemporal:
        props["nontemporal"] = _UNIT
    IRDLOperation.__init__(self, operands=[value, ptr], properties=props, result_types=[])


def _mirrors(cls: type, fn) -> bool:
    names, consts, defaults = _MIRRORED[cls.__name__]
    code = getattr(fn, "__code__", None)
    if code is None or len(fn.__defaults__ or ()) != defaults:
        return False
    got = tuple(c for c in code.co_consts if not (isinstance(c, str) and c.lstrip().startswith("A basic constructor")))
    return frozenset(code.co_names) == names and got == consts


def install() -> bool:
    """Put :func:`gep_init`, :func:`load_init` and :func:`store_init` in place of xDSL's constructors
    (once; only where all three are the versions mirrored).  Returns whether they are in place."""
    pairs = ((llvm.GEPOp, _XDSL_GEP_INIT, gep_init), (llvm.LoadOp, _XDSL_LOAD_INIT, load_init),
             (llvm.StoreOp, _XDSL_STORE_INIT, store_init))
    if all(cls.__init__ is mine for cls, _, mine in pairs):
        return True
    if not all(cls.__init__ is xdsl and _mirrors(cls, xdsl) for cls, xdsl, _ in pairs):
        return False
    for cls, _, mine in pairs:
        cls.__init__ = mine
    return True


__all__ = ["gep_init", "install", "integer64", "load_init", "raw_indices", "store_init"]
