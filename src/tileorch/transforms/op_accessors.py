"""Named single operands and results of IRDL ops (``op.lhs``, ``op.result``) read directly.

xDSL reads ``op.lhs`` through ``BeforeVariadicSingleAccessor.__get__``: a ``match`` on the
construct (``get_op_constructs``), an ``OpOperands`` view made for the read, then the view's and
``SSAValues``' ``__getitem__``: about 0.6 us a read, some ten thousand reads per SIMT compile
(every pattern reads its op's operands by name).  For an operand or a result that comes before
any variadic one (the accessor's only case) the value is the op's ``_operands[idx]`` /
``results[idx]``: :func:`fast_get` reads that (0.16 us), and leaves regions and successors to
xDSL's ``__get__``.

:func:`install` puts it in place of xDSL's ``__get__`` once, and only over the xDSL it was
written against (:func:`_mirrors_xdsl`: the accessor's ``__get__``, ``get_op_constructs`` and
``OpOperands.__getitem__`` read what they read in xDSL 0.74); the lowering passes install it
when imported (:mod:`tileorch.transforms`).
"""

from __future__ import annotations

import xdsl.irdl.operations as irdl_ops
from xdsl.ir import Operation
from xdsl.ir.core import OpOperands

from tileorch.transforms.xdsl_code import code_names

_ACCESSOR = irdl_ops.BeforeVariadicSingleAccessor
_XDSL_GET = _ACCESSOR.__get__
_OPERAND = irdl_ops.VarIRConstruct.OPERAND
_RESULT = irdl_ops.VarIRConstruct.RESULT
_ITEM = tuple.__getitem__


def fast_get(self, obj: Operation | None, objtype=None):
    """``BeforeVariadicSingleAccessor.__get__``: the same value for every op and construct."""
    construct = self.construct
    if obj is not None:
        if construct is _OPERAND:
            return _ITEM(obj._operands, self.idx)
        if construct is _RESULT:
            return _ITEM(obj.results, self.idx)
    return _XDSL_GET(self, obj, objtype)


def _mirrors_xdsl() -> bool:
    """Whether the reads :func:`fast_get` replaces are xDSL 0.74's: ``__get__`` indexes
    ``get_op_constructs``' sequence, which is ``op.operands`` / ``op.results``; ``op.operands`` is
    an ``OpOperands`` view whose items are ``op._operands``' and ``results`` a plain field
    (checked by the names their code reads; tests/unit/test_op_accessors.py checks that no op
    class of the registry's dialects redefines ``operands`` or ``results``)."""
    return (code_names(_XDSL_GET) == {"get_op_constructs", "construct", "index"}
            and code_names(_ACCESSOR.index) == {"idx"}
            and {"operands", "results"} <= code_names(irdl_ops.get_op_constructs)
            and code_names(Operation.operands.fget) == {"OpOperands"}
            and code_names(OpOperands.__getitem__) == {"_op", "_operands"}
            and "results" in getattr(Operation, "__dataclass_fields__", {}))


def install() -> bool:
    """Use :func:`fast_get` for every named single operand and result from now on (once);
    returns whether it is in place."""
    if _ACCESSOR.__get__ is fast_get:
        return True
    if _ACCESSOR.__get__ is _XDSL_GET and _mirrors_xdsl():
        _ACCESSOR.__get__ = fast_get
        return True
    return False


__all__ = ["fast_get", "install"]
