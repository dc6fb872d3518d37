"""Rules every ``cutlass`` op obeys, run after the op's own verifier (``install`` wraps each op
class's ``verify_``; ``tileorch.dialects.cutlass`` installs them on all 76 ops):

1. **Function scope.**  A cutlass op describes work done by the threads of a kernel (or by host
   code that sets one up), so it lies in the body of a function-like op (``func.func``,
   ``llvm.func``, ``gpu.func``, ``nv_tileas.kernel`` ...).  An op directly in a module (or in a
   non-function region at module scope) belongs to no kernel: no CTA ever runs it, and a pipeline,
   sequence barrier or scheduler created there has no shared memory to live in.  Ops that are not
   attached to a module (built and verified on their own) are not checked.

2. **Integer properties fit the integer the lowering reads.**  Every integer property of a cutlass
   op is a count, stage number, byte size, thread count, barrier id or index, materialised by the
   lowering as a *signed* constant of the property's type.  A signless ``iN`` literal in
   ``[2^(N-1), 2^N)`` parses (MLIR and xDSL read it as the bit pattern of ``v - 2^N``), so e.g.
   ``4294967295 : i32`` is -1 when read: a property of type ``iN`` must lie in ``[0, 2^(N-1) - 1]``
   (``uiN``: ``[0, 2^N - 1]``; per element for ``array<iN: ...>`` properties).  Executor masks
   (``mask``, ``masks``, ``participants``, ``consumers``) are unsigned bit sets and may use every
   bit.  Tighter, property-specific ranges (at most 32 stages, 16 hardware barriers, 20-bit
   mbarrier counts ...) are checked by the ops' own verifiers, which run first; this rule catches
   the properties whose own verifier has no lower bound.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, Signedness
from xdsl.ir import Operation
from xdsl.traits import SymbolOpInterface, SymbolTable
from xdsl.utils.exceptions import VerifyException

MASK_PROPERTIES = frozenset({"mask", "masks", "participants", "consumers"})
"""Properties holding unsigned executor bit sets (bit 63 is a unit, not a sign)."""

MODULE_OPS = ("builtin.module", "gpu.module")


def _is_module(op: Operation) -> bool:
    return op.name in MODULE_OPS or op.has_trait(SymbolTable)


def _is_function(op: Operation) -> bool:
    """A function-like op: a symbol that is not a symbol table (func.func, llvm.func, gpu.func,
    nv_tileas.kernel, nv_tileaa.func, ...)."""
    if _is_module(op):
        return False
    if op.has_trait(SymbolOpInterface):
        return True
    return "sym_name" in op.properties or "sym_name" in op.attributes


def check_function_scope(op: Operation) -> None:
    """Rule 1 of the module docstring."""
    parent = op.parent_op()
    while parent is not None:
        if _is_function(parent):
            return
        if _is_module(parent):
            raise VerifyException(
                f"{op.name} is at module scope, but cutlass ops run on the threads of a kernel: put it inside a "
                "function (func.func, llvm.func or gpu.func), e.g. the kernel whose CTAs use it"
            )
        parent = parent.parent_op()


def _signed_max(typ: IntegerType) -> int | None:
    """The largest value a property of type ``typ`` may hold, or None when unchecked (i1 flags)."""
    width = typ.width.data
    if width <= 1:
        return None
    if typ.signedness.data is Signedness.UNSIGNED:
        return (1 << width) - 1
    return (1 << (width - 1)) - 1


def _range_error(op: Operation, name: str, value: int, typ: IntegerType, high: int) -> VerifyException:
    return VerifyException(
        f"{op.name}: {name} = {value} is out of range for {typ}: it holds a count, size, id or index "
        f"that the lowering materialises as a signed {typ} constant, so it must be in [0, {high}]"
    )


def check_integer_properties(op: Operation) -> None:
    """Rule 2 of the module docstring."""
    for name, attr in op.properties.items():
        if name in MASK_PROPERTIES:
            continue
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
            high = _signed_max(attr.type)
            value = attr.value.data
            if high is not None and not 0 <= value <= high:
                raise _range_error(op, name, value, attr.type, high)
        elif isinstance(attr, DenseArrayBase) and isinstance(attr.elt_type, IntegerType):
            high = _signed_max(attr.elt_type)
            if high is None:
                continue
            try:
                values = [int(v) for v in attr.get_values()]
            except (TypeError, ValueError):
                continue
            for i, value in enumerate(values):
                if not 0 <= value <= high:
                    raise _range_error(op, f"{name}[{i}]", value, attr.elt_type, high)


def install(op_type: type) -> None:
    """Run the common rules after ``op_type``'s own verifier (once per class), from its definition on (an op
    class defined on first use, :mod:`tileorch.dialects.lazy_ops`, gets them then)."""
    from tileorch.dialects.lazy_ops import when_defined

    when_defined(op_type, _install)


def _install(op_type: type) -> None:
    inner = op_type.verify_
    if getattr(inner, "_cutlass_common", None) is op_type:
        return

    def verify_(self) -> None:
        inner(self)
        check_function_scope(self)
        check_integer_properties(self)

    verify_._cutlass_common = op_type  # type: ignore[attr-defined]
    verify_.__doc__ = inner.__doc__
    op_type.verify_ = verify_
