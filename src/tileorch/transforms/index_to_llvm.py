"""``convert-index-to-llvm``: every ``index`` type becomes ``i64`` (NVPTX's pointer width).

:func:`convert_index_types` rewrites, in place, op result types, block-argument types,
``func.func`` signatures and ``index``-typed integer attributes.  The other std-to-llvm
passes (:class:`ToLLVMPass`) call it first, so a partially lowered module always type-checks
(``tileorch-opt -p convert-arith-to-llvm`` alone); the standard lowering
(:data:`tileorch.backend.pipeline.STD_LOWERING`) runs ``convert-index-to-llvm`` once instead and
those passes with ``index-types=false`` (their patterns build no ``index`` type).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IndexType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.rewriter import Rewriter

from tileorch.transforms.rewrite_once import rewrite_once

INDEX_BITS = 64


def llvm_type(t: Attribute) -> Attribute:
    """The LLVM-compatible form of a builtin type (``index`` -> ``i64``)."""
    return i64 if isinstance(t, IndexType) else t


def _convert_op(op: Operation) -> None:
    # ``type(t) is IndexType``: IRDL attribute classes are final (a subclass cannot be defined),
    # so this is ``isinstance`` without the ABC instance check (some 37 000 tests per SIMT compile)
    for res in op.results:  # a tuple: replacing a result makes a new one, this one is unchanged
        if type(res.type) is IndexType:
            Rewriter.replace_value_with_new_type(res, i64)
    if op.regions:
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if type(arg.type) is IndexType:
                        Rewriter.replace_value_with_new_type(arg, i64)
    if op.properties:
        value = op.properties.get("value")
        if type(value) is IntegerAttr and type(value.type) is IndexType:
            op.properties["value"] = IntegerAttr(value.value.data, i64)
    if type(op) is func.FuncOp or (op.regions and isinstance(op, func.FuncOp)):  # a function has a body
        ftype = op.function_type
        op.function_type = FunctionType.from_lists(
            [llvm_type(t) for t in ftype.inputs], [llvm_type(t) for t in ftype.outputs]
        )


def convert_index_types(module: Operation) -> list[Operation]:
    """Replace every ``index`` type in ``module`` by ``i64``, in place; returns the ops of
    ``module``'s regions in walk order (``module`` itself not included; the conversion changes
    values' types, not which ops there are)."""
    ops = list(module.walk())
    for op in ops:
        _convert_op(op)
    return ops[1:]


@dataclass(frozen=True)
class ToLLVMPass(ModulePass):
    """Rewrite every ``index`` type to ``i64`` (unless ``index_types`` is off), then run each of
    ``PATTERNS`` over the module in turn (one walk each, not re-applied to the ops a pattern
    creates: :func:`rewrite_once`; the first pattern visits the ops the conversion's walk
    collected)."""

    PATTERNS: ClassVar[tuple[type[RewritePattern], ...]] = ()

    index_types: bool = True
    """Convert the module's ``index`` types first (:func:`convert_index_types`); ``false``
    (``{index-types=false}``) where ``convert-index-to-llvm`` already ran and nothing since made
    an ``index`` type: the standard lowering, which converts them once."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # the conversion's walk is the first pattern's too: the conversion adds or removes no op
        walked = convert_index_types(op) if self.index_types else None
        for pattern in self.PATTERNS:
            rewrite_once(pattern(), op.body, walked)
            walked = None


@dataclass(frozen=True)
class ConvertIndexToLLVM(ModulePass):
    """Rewrite every ``index`` type to ``i64`` (:func:`convert_index_types`); an ``arith.index_cast`` /
    ``index_castui``, now between two integer types, becomes its operand (same width), ``arith.extsi`` /
    ``extui`` or ``arith.trunci`` (what ``convert-arith-to-llvm`` lowers it to), so the module verifies after
    this pass alone (``TILEORCH_VERIFY_EACH_PASS``)."""

    name = "convert-index-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from xdsl.dialects import arith

        for inner in convert_index_types(op):
            if inner.name not in ("arith.index_cast", "arith.index_castui"):
                continue
            src, dst = inner.operands[0].type, inner.results[0].type
            if src == dst:
                inner.results[0].replace_by(inner.operands[0])
                inner.detach()
                inner.erase()
                continue
            if src.width.data < dst.width.data:
                new = (arith.ExtSIOp if inner.name == "arith.index_cast" else arith.ExtUIOp)(inner.operands[0], dst)
            else:
                new = arith.TruncIOp(inner.operands[0], dst)
            Rewriter.replace_op(inner, new)
