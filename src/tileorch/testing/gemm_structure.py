"""The consumer side of a GEMM builder kernel (:mod:`tileorch.kernels.gemm.build`), counted for structural tests.

A plain GEMM with two consumer warp groups runs one consumer body over both (``TILEORCH_GEMM_SHARED_CONSUMER=1``,
the default): one ``cutlass.async.exec`` whose mask holds warp groups 1 and 2, one ``setmaxnreg.inc`` in the PTX,
one copy of the K loop's WGMMAs.  With ``=0`` (and for the configurations the switch leaves alone) each warp group
has a body of its own.  These helpers read what the kernel holds; the tests state what it should hold."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

CONSUMER_SETMAXNREG = "setmaxnreg.inc.sync.aligned"
"""The PTX instruction that opens each consumer body (the consumers take registers; the producer gives them back
with ``setmaxnreg.dec``)."""


def consumer_exec_masks(module: ModuleOp) -> list[int]:
    """The warp-group masks of the kernel's consumer bodies, in order: each ``cutlass.async.exec`` over warp groups
    that is not the producer's (warp group 0, mask ``0x1``) and sits directly in the kernel function."""
    from tileorch.dialects.cutlass.async_exec import AsyncExecOp

    masks = []
    for fn in module.body.block.ops:
        for op in fn.regions[0].block.ops if fn.regions else ():
            if isinstance(op, AsyncExecOp) and op.executor_kind() == "warpgroup" and op.mask_bits() != 0x1:
                masks.append(op.mask_bits())
    return masks


def ptx_consumer_bodies(ptx: str) -> int:
    """How many consumer bodies the kernel's PTX holds (one ``setmaxnreg.inc`` each)."""
    return ptx.count(CONSUMER_SETMAXNREG)
