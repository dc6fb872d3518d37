"""``convert-gpu-ids-to-nvvm``: the ``gpu`` dialect's id and size queries become NVVM special
register reads (upstream MLIR's GPUToNVVM index-op patterns).

=====================================  ===============================
op                                     special register
=====================================  ===============================
``gpu.thread_id {dimension = d}``      ``%tid.d``
``gpu.block_id {dimension = d}``       ``%ctaid.d``
``gpu.block_dim {dimension = d}``      ``%ntid.d``
``gpu.grid_dim {dimension = d}``       ``%nctaid.d``
``gpu.lane_id``                        ``%laneid``
=====================================  ===============================

The ``i32`` register value is widened to ``index`` with ``arith.index_cast`` (every one of these
registers is below 2^31, so sign and zero extension agree; xDSL 0.74 has no ``index_castui``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tileorch.diagnostics import copy_location
from tileorch.dialects import nvvm
from tileorch.transforms.rewrite_once import rewrite_once

REGISTER_OF = {
    "gpu.thread_id": "tid",
    "gpu.block_id": "ctaid",
    "gpu.block_dim": "ntid",
    "gpu.grid_dim": "nctaid",
}


def special_register(op: Operation) -> str | None:
    """The special register ``op`` reads (``tid.x``, ``laneid`` ...), or None for other ops."""
    if op.name == "gpu.lane_id":
        return "laneid"
    base = REGISTER_OF.get(op.name)
    if base is None:
        return None
    dim = op.properties["dimension"].data  # gpu.DimensionAttr -> "x" | "y" | "z"
    return f"{base}.{getattr(dim, 'value', dim)}"


class LowerGpuId(RewritePattern):
    NAME_PREFIX = "gpu."  # acts on no other op (rewrite_once visits only these)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        reg = special_register(op)
        if reg is None:
            return
        read = nvvm.SPECIAL_REGISTERS[reg]()
        cast = arith.IndexCastOp(read.results[0], IndexType())
        copy_location(op, [read, cast])
        rewriter.replace(op, [read, cast], [cast.results[0]])


@dataclass(frozen=True)
class ConvertGpuIdsToNVVM(ModulePass):
    """Replace ``gpu.thread_id``/``block_id``/``block_dim``/``grid_dim``/``lane_id`` by
    ``nvvm.read.ptx.sreg.*`` reads, and turn every kernel (``func.func`` marked ``nvvm.kernel``)
    into an ``llvm.func``, the only function op upstream MLIR accepts ``nvvm.kernel`` on (as
    upstream's GPU-to-NVVM conversion does): this pass ends the nvvm stage."""

    name = "convert-gpu-ids-to-nvvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from tileorch.transforms.func_to_llvm import convert_kernels_to_llvm_func

        walked = list(op.walk())  # one walk for both steps: the gpu ops' rewrite keeps every function
        rewrite_once(LowerGpuId(), op.body, walked[1:])  # the reads it inserts match nothing: one walk
        convert_kernels_to_llvm_func(op, walked)
