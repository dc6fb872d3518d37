"""``convert-func-to-llvm``: ``func.func``/``func.call``/``func.return`` -> ``llvm.func``/``llvm.call``/``llvm.return``.

Discardable attributes are kept, so a kernel marked ``nvvm.kernel`` (with upstream's
``nvvm.maxntid``, ``nvvm.minctasm``, ``nvvm.cluster_dim`` ... ) stays marked; the
backend turns them into the ``ptx_kernel`` calling convention and PTX directives.
A ``private`` body-less ``func.func`` becomes an external declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.transforms.index_to_llvm import convert_index_types, llvm_type


def _result_type(op: Operation, outputs) -> Attribute:
    if len(outputs) > 1:
        raise LocatedError(op, "functions with more than one result have no llvm lowering in tileorch")
    outputs = list(outputs)
    return llvm_type(outputs[0]) if outputs else llvm.LLVMVoidType()


class LowerFunc(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if isinstance(op, func.FuncOp):
            ftype = op.function_type
            fn_type = llvm.LLVMFunctionType(
                [llvm_type(t) for t in ftype.inputs], _result_type(op, ftype.outputs)
            )
            new = llvm.FuncOp(
                op.sym_name,
                fn_type,
                linkage=llvm.LinkageAttr("external"),
                body=op.detach_region(op.body),
                extra_attrs=dict(op.attributes),
            )
        elif isinstance(op, func.ReturnOp):
            if len(op.arguments) > 1:
                raise LocatedError(op, "returning more than one value has no llvm lowering in tileorch")
            new = llvm.ReturnOp(op.arguments[0] if op.arguments else None)
        elif isinstance(op, func.CallOp):
            new = llvm.CallOp(
                op.callee.root_reference.data,
                *op.arguments,
                return_type=_result_type(op, op.result_types) if op.result_types else None,
            )
        else:
            return
        copy_location(op, [new])
        rewriter.replace(op, new)


@dataclass(frozen=True)
class ConvertFuncToLLVM(ModulePass):
    """Lower ``func`` ops to ``llvm.func``/``llvm.call``/``llvm.return``."""

    name = "convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_index_types(op)
        PatternRewriteWalker(LowerFunc(), apply_recursively=False).rewrite_module(op)
