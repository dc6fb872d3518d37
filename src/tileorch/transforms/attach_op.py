"""xDSL's ``Block._attach_op`` without the ancestor climb for an op that has no regions.

Every op a rewrite inserts goes through ``Block._attach_op``, which refuses an op already in a
block and an op that contains the block it is inserted into: ``operation.is_ancestor(block)``
climbs from the block through every enclosing op, region and block to the top (one
``parent_node`` property call per level).  An op without regions contains no block, so for it the
climb always ends in False; most inserted ops have no regions (``llvm.*``, ``nvvm.*``,
``arith.*``: some 2600 insertions per GEMM compile, ~4% of its lowering).  :func:`attach_op`
makes the same checks with the same errors, climbing only for an op with regions.

:func:`install` puts it in place of xDSL's, once and only over the xDSL function it mirrors
(checked by the names its code reads); :mod:`tileorch.transforms` installs it.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation

from tileorch.transforms.xdsl_code import code_names

_XDSL_ATTACH_OP = Block._attach_op


def attach_op(self: Block, operation: Operation) -> None:
    """``Block._attach_op``: attach ``operation`` to this block after checking that it has no
    parent and (for an op with regions) does not contain this block."""
    if operation.parent:
        raise ValueError("Can't add to a block an operation already attached to a block.")
    if operation.regions and operation.is_ancestor(self):
        raise ValueError("Can't add an operation to a block contained in the operation.")
    operation.parent = self


def _mirrors_xdsl() -> bool:
    """Whether xDSL's ``_attach_op`` is the version :func:`attach_op` mirrors (xDSL 0.74: the
    parent test, the ancestor test, the assignment) and an op's regions are a plain field."""
    return (code_names(_XDSL_ATTACH_OP) == {"parent", "ValueError", "is_ancestor"}
            and "regions" in getattr(Operation, "__dataclass_fields__", {}))


def install() -> bool:
    """Use :func:`attach_op` for every insertion from now on (once); returns whether it is in place."""
    if Block._attach_op is attach_op:
        return True
    if Block._attach_op is _XDSL_ATTACH_OP and _mirrors_xdsl():
        Block._attach_op = attach_op
        return True
    return False


__all__ = ["attach_op", "install"]
