"""Warnings about attributes of a ``cuda_tile`` program that nothing reads, located at the op.

CUDA Tile IR's ops are defined by their properties (``<{...}>``: rounding, signedness, memory
ordering...); a discardable attribute (``{name = value}`` after the operands, or one a producer
added) is none of them, and the lowering drops it.  MLIR accepts such attributes, so tileorch
does too, but not silently: :func:`ignored_attribute_warnings` returns one
``FILE:L:C: warning: ...`` line per ``cuda_tile`` op and attribute name (``tileorch.*``
attributes, tileorch's own, excepted).  The bytecode reader builds none, so only text input can
have them.  It only reads the module."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from tileorch.diagnostics import format_error


def ignored_attribute_warnings(module: ModuleOp) -> list[str]:
    """One located ``warning:`` line per ``cuda_tile`` op and discardable attribute it carries."""
    out: list[str] = []
    for op in module.walk():
        if not op.name.startswith("cuda_tile."):
            continue
        for name in op.attributes:
            if name.startswith("tileorch."):
                continue
            out.append(format_error(op, f"attribute '{name}' of '{op.name}' is not a property of the op: "
                                        "tileorch ignores it (cuda_tile ops read only their properties, <{...}>)",
                                    "warning"))
    return out
