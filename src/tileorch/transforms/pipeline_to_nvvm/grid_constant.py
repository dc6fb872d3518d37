"""Scheduler params passed by value: a kernel argument of a ``!cutlass.tile_scheduler_*_params``
type marked ``{nvvm.grid_constant}`` becomes a ``byval`` parameter holding the whole params
record (``tileorch.schedulers.device_params``, 8-byte aligned); its value in the kernel is the
parameter's address, which the scheduler bodies read like the global record otherwise passed by
pointer.  The host passes the packed record's bytes as the argument.  Unmarked params arguments
keep the pointer ABI."""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntAttr, IntegerAttr, ModuleOp, i8, i64
from xdsl.ir import Operation

from tileorch.diagnostics import LocatedError
from tileorch.dialects.cutlass.scheduler_types import ParamsType
from tileorch.schedulers.device_params import record_bytes

GRID_CONSTANT = "nvvm.grid_constant"


def params_record_bytes(typ: ParamsType) -> int:
    return record_bytes("streamk" in typ.name)


def mark_byval_params(module: ModuleOp, ops: Iterable[Operation] | None = None) -> None:
    """Add ``llvm.byval``/``llvm.align`` to every grid-constant params argument of a kernel.
    ``ops``: the module's ops in walk order when the caller has them (no walk of its own); a
    function no longer in the module (left out since) is passed over."""
    for op in module.walk() if ops is None else ops:
        if not isinstance(op, func.FuncOp) or op.arg_attrs is None:
            continue
        if ops is not None and not module.is_ancestor(op):
            continue
        attrs = list(op.arg_attrs.data)
        changed = False
        for i, (arg_type, arg_attr) in enumerate(zip(op.function_type.inputs.data, attrs)):
            if GRID_CONSTANT not in arg_attr.data:
                continue
            if not isinstance(arg_type, ParamsType):
                if "llvm.byval" not in arg_attr.data:
                    raise LocatedError(op, f"argument {i}: nvvm.grid_constant needs llvm.byval or a tile-scheduler params type")
                continue
            if "nvvm.kernel" not in op.attributes:
                raise LocatedError(op, f"argument {i}: only kernel arguments can be grid-constant")
            data = dict(arg_attr.data)
            data["llvm.byval"] = llvm.LLVMArrayType(IntAttr(params_record_bytes(arg_type)), i8)
            data["llvm.align"] = IntegerAttr(8, i64)
            attrs[i] = DictionaryAttr(data)
            changed = True
        if changed:
            op.arg_attrs = ArrayAttr(attrs)
