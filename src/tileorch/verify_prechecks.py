"""The checks that some xDSL op classes make in their own ``verify`` before ``Operation.verify``.

xDSL's ``llvm.trunc``, ``llvm.zext`` and ``llvm.sext`` override ``Operation.verify``: they compare
the integer widths of their operand and result (``invalid cast opcode for cast from i32 to i64``)
and then call ``super().verify(...)``.  :func:`tileorch.diagnostics.verify_located` verifies an
op of a class that overrides ``verify`` through that override, which made it check the op's
definition in full for every such cast (a lowered SIMT kernel has hundreds: a third of its
final verification) instead of once per signature.  :func:`precheck` returns the check such a
class makes before ``Operation.verify`` (the same test, the same exception and message), so the
verifier can make it and then go on as for a class without the override; None for any other
class, and for these classes when their ``verify`` is not the one written here against (its
names and constants differ).  A check returns False, having checked nothing, for an op whose
operand or result is not an integer (or a vector of integers): the override fails an
``assert`` there, and the caller then runs the override itself, for xDSL's own error.

Stdlib and xDSL only (``tileorch.diagnostics`` imports it).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import IntegerType, VectorType
from xdsl.ir import Operation
from xdsl.utils.exceptions import VerifyException

_EXPECTED_NAMES = ('isa', 'arg', 'type', 'VectorType', 'element_type', 'res', 'IntegerType', 'bitwidth',
                   'VerifyException', 'super', 'verify')
_EXPECTED_CONSTS = (None, 'invalid cast opcode for cast from ', ' to ')
_CASTS = {"TruncOp": True, "ZExtOp": False, "SExtOp": False}
"""xDSL's llvm cast classes -> whether the result must be narrower (else wider) than the operand."""
_PRECHECKS: dict[type, Callable[[Operation], bool] | None] = {}


def _widths(op: Operation) -> tuple | None:
    """(operand, result) integer types of a cast (the element types of vectors); None when one
    is not an integer type."""
    arg_t, res_t = op.arg.type, op.res.type
    arg_type = arg_t.element_type if isinstance(arg_t, VectorType) else arg_t
    res_type = res_t.element_type if isinstance(res_t, VectorType) else res_t
    if not (isinstance(arg_type, IntegerType) and isinstance(res_type, IntegerType)):
        return None
    return arg_type, res_type


def _narrowing(op: Operation) -> bool:
    """``llvm.trunc``: the result narrower than the operand."""
    widths = _widths(op)
    if widths is None:
        return False
    arg_type, res_type = widths
    if arg_type.bitwidth <= res_type.bitwidth:
        raise VerifyException(f"invalid cast opcode for cast from {arg_type} to {res_type}")
    return True


def _widening(op: Operation) -> bool:
    """``llvm.zext``/``llvm.sext``: the result wider than the operand."""
    widths = _widths(op)
    if widths is None:
        return False
    arg_type, res_type = widths
    if arg_type.bitwidth >= res_type.bitwidth:
        raise VerifyException(f"invalid cast opcode for cast from {arg_type} to {res_type}")
    return True


def precheck(cls: type) -> Callable[[Operation], bool] | None:
    """The check ``cls.verify`` makes before calling ``Operation.verify`` (see the module's doc),
    or None."""
    if cls in _PRECHECKS:
        return _PRECHECKS[cls]
    found = None
    narrowing = _CASTS.get(cls.__name__)
    code = getattr(getattr(cls, "verify", None), "__code__", None)
    if (narrowing is not None and cls.__module__ == "xdsl.dialects.llvm" and code is not None
            and code.co_names == _EXPECTED_NAMES and code.co_consts == _EXPECTED_CONSTS
            and cls.__mro__[1].verify is Operation.verify):
        found = _narrowing if narrowing else _widening
    _PRECHECKS[cls] = found
    return found


__all__ = ["precheck"]
