"""``convert-func-to-llvm``: ``func.func``/``func.call``/``func.return`` -> ``llvm.func``/``llvm.call``/``llvm.return``.

Discardable attributes are kept, so a kernel marked ``nvvm.kernel`` (with upstream's
``nvvm.maxntid``, ``nvvm.minctasm``, ``nvvm.cluster_dim`` ... ) stays marked; the
backend turns them into the ``ptx_kernel`` calling convention and PTX directives.
A ``private`` body-less ``func.func`` becomes an external declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tileorch.diagnostics import LocatedError, copy_location
from tileorch.transforms.index_to_llvm import ToLLVMPass, llvm_type


def _result_type(op: Operation, outputs) -> Attribute:
    if len(outputs) > 1:
        raise LocatedError(op, "functions with more than one result have no llvm lowering in tileorch")
    outputs = list(outputs)
    return llvm_type(outputs[0]) if outputs else llvm.LLVMVoidType()


class LowerFunc(RewritePattern):
    NAME_PREFIX = "func."  # acts on no other op (rewrite_once visits only these)

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
                other_props={"arg_attrs": op.arg_attrs} if op.arg_attrs is not None else None,
            )
        elif isinstance(op, func.ReturnOp):  # at most one value: its function's type (refused above, _result_type)
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
class ConvertFuncToLLVM(ToLLVMPass):
    """Lower ``func`` ops to ``llvm.func``/``llvm.call``/``llvm.return``."""

    name = "convert-func-to-llvm"
    PATTERNS = (LowerFunc,)


def kernel_to_llvm_func(fn: func.FuncOp) -> llvm.FuncOp:
    """Replace the kernel ``fn`` (a ``func.func`` marked ``nvvm.kernel``) by an ``llvm.func`` with
    the same body, attributes and argument attributes; its ``func.return`` becomes ``llvm.return``.

    Upstream MLIR accepts ``nvvm.kernel`` only on ``llvm.func``, so the nvvm stage (the end of
    ``convert-gpu-ids-to-nvvm``) hands kernels over in this form; the body keeps its
    arith/scf/cf ops, which upstream's own std-to-llvm passes (or ours) lower later.  An
    ``index`` argument becomes ``i64`` with a ``builtin.unrealized_conversion_cast`` back to
    ``index`` at the entry (``reconcile-unrealized-casts`` removes it once the body is lowered).
    """
    from xdsl.dialects.builtin import IndexType, UnrealizedConversionCastOp, i64
    from xdsl.rewriter import InsertPoint, Rewriter

    ftype = fn.function_type
    result = _result_type(fn, ftype.outputs)
    if fn.body.blocks:
        entry = fn.body.blocks.first
        for arg in list(entry.args):
            if isinstance(arg.type, IndexType):
                new_arg = Rewriter.replace_value_with_new_type(arg, i64)
                uses = list(new_arg.uses)
                cast = UnrealizedConversionCastOp.get([new_arg], [IndexType()])
                Rewriter.insert_op(cast, InsertPoint.at_start(entry))
                for use in uses:
                    use.operation.operands[use.index] = cast.results[0]
        # ``func.return`` is a terminator of the function's own blocks (its HasParent(func.func)
        # rule): their last ops, in block order, are what a walk of the body would find
        for ret in [b.last_op for b in fn.body.blocks if isinstance(b.last_op, func.ReturnOp)]:  # one value at most
            new_ret = llvm.ReturnOp(ret.arguments[0] if ret.arguments else None)
            copy_location(ret, [new_ret])
            Rewriter.replace_op(ret, new_ret)
    props: dict[str, Attribute | None] = {}
    if fn.arg_attrs is not None:
        props["arg_attrs"] = fn.arg_attrs
    new = llvm.FuncOp(
        fn.sym_name,
        llvm.LLVMFunctionType([llvm_type(t) for t in ftype.inputs], result),
        linkage=llvm.LinkageAttr("external"),
        body=fn.detach_region(fn.body),
        other_props=props,
        extra_attrs=dict(fn.attributes),
    )
    if fn.sym_visibility is not None:
        new.properties["sym_visibility"] = fn.sym_visibility
    copy_location(fn, [new])
    Rewriter.replace_op(fn, new)
    return new


def convert_kernels_to_llvm_func(module: ModuleOp, walked: list[Operation] | None = None) -> None:
    """:func:`kernel_to_llvm_func` on every ``func.func`` marked ``nvvm.kernel`` in ``module``;
    ``walked``: ``module``'s ops in walk order, collected by the caller (not walked again: the
    caller's rewrites since then must have added and erased no function)."""
    from tileorch.dialects.nvvm import KERNEL_ATTR

    for op in list(module.walk()) if walked is None else walked:
        if isinstance(op, func.FuncOp) and KERNEL_ATTR in op.attributes:
            kernel_to_llvm_func(op)
