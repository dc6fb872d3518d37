"""``cse-constants``: one ``arith.constant`` (and one ``llvm.mlir.constant``) per value, type and
block (MLIR's ``cse``, for constants only).

The TileAS tier's epilogue builders made a constant per use: a fused-epilogue GEMM left
``convert-nv-tileas-to-cutlass`` with 2516 ``arith.constant`` ops of 117 distinct values per
block (``linear_gelu_bf16``, 128x128 tiles: a third of its ops), and every later pass, the final
verification and the LLVM translation walked each of them.  Since session 39 each emitter shares
its constants as it builds (``Emitter.share_constants``); different emitters of one block still
repeat some (2 of 19 thousand over the compile-time set).  Once the kernel is built, this
pass keeps the first constant of each (value, type) of a block and gives its uses to the later
ones, which it erases: the first is earlier in the same block, so it dominates everything the
later one did.  LLVM IR has no constant instructions (a constant is an operand), so neither the
LLVM IR nor the PTX changes.

Only integer and float constants without discardable attributes are merged, keyed by the op's
class (an ``arith.constant`` is never merged with an ``llvm.mlir.constant``), the attribute's class,
its value (a float by its bits: ``0.0`` and ``-0.0``, NaN payloads stay apart), its type and the
result's type; any other constant (a dense tile, an attribute this pass does not know) is left as
it is.  Blocks are taken one at a time; no constant moves between blocks or regions.

The lowering pipeline runs it twice among the cutlass passes (``tileorch.backend.pipeline.CUTLASS_LOWERING``:
after ``convert-atoms-to-nvvm`` and after ``convert-pipeline-to-nvvm``, whose builders make a constant per
use): the 4096^3 GEMM's lowered kernel holds 1930 ops instead of 2172 (of its 380 constants, 193 repeated one
earlier in their block; 5 repeats remain, made by later passes: an ``arith.constant`` and an ``llvm.mlir.constant``
of one value become two ``llvm.mlir.constant`` in ``convert-arith-to-llvm``), which every later pass, the final
verification and the translation no longer visit; its LLVM IR is byte-identical.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass


_LINKED = {"_first_op", "_next_op"} <= (set(getattr(Operation, "__dataclass_fields__", ()))
                                        | set(getattr(Block, "__dataclass_fields__", ())))
"""Whether this xDSL links a block's ops in the fields :func:`share_block_constants` reads."""

CONSTANT_OPS = (arith.ConstantOp, llvm.ConstantOp)
"""The op classes merged (by exact class: a subclass may mean more than its value)."""


def constant_key(op: arith.ConstantOp | llvm.ConstantOp) -> tuple | None:
    """What makes two constants interchangeable: (op class, attribute class, value or its bits,
    attribute type, result type), or None for a constant this pass leaves alone."""
    if op.attributes:
        return None
    attr = op.value
    if isinstance(attr, IntegerAttr):
        return type(op), IntegerAttr, attr.value.data, attr.type, op.results[0].type
    if isinstance(attr, FloatAttr):
        return type(op), FloatAttr, struct.pack("<d", attr.value.data), attr.type, op.results[0].type
    return None


def share_block_constants(block: Block, nested: list | None = None) -> int:
    """Merge the equal constants of ``block`` (not of blocks nested in it) into the first of each;
    returns how many were erased.  ``nested``: the regions of the block's ops that stay are appended
    there, in order (:func:`cse_constants`' next blocks, without a second pass over the ops).

    The ops are followed through their link fields (``_first_op``, ``_next_op``), read where the
    ``first_op`` / ``next_op`` properties read them: a property is a Python call per op."""
    first: dict[tuple, arith.ConstantOp] = {}
    erased = 0
    op = block._first_op if _LINKED else block.first_op
    while op is not None:
        following = op._next_op if _LINKED else op.next_op
        if type(op) in CONSTANT_OPS:
            key = constant_key(op)
            if key is not None:
                kept = first.setdefault(key, op)
                if kept is not op:
                    op.results[0].replace_all_uses_with(kept.results[0])
                    block.erase_op(op)
                    erased += 1
                    op = following
                    continue
        if nested is not None and op.regions:
            nested.extend(op.regions)
        op = following
    return erased


def cse_constants(root: Operation) -> int:
    """:func:`share_block_constants` on every block under ``root``; returns the constants erased."""
    erased = 0
    stack = list(root.regions)
    while stack:
        region = stack.pop()
        for block in region.blocks:
            erased += share_block_constants(block, stack)
    return erased


@dataclass(frozen=True)
class CseConstants(ModulePass):
    """One ``arith.constant`` / ``llvm.mlir.constant`` per value, type and block (:func:`cse_constants`)."""

    name = "cse-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        cse_constants(op)
