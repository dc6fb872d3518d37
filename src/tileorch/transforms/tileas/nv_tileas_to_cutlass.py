"""``convert-nv-tileas-to-cutlass``: each materialized TileAS dot kernel to cutlass IR.

A kernel of two chained dots (the second's A the first's result) is lowered by
:mod:`.chained_dots`, unless the second dot reads the first's K loop result after the loop
(:mod:`.epilogue_dot`: the GEMM kernel's second dot on the accumulator); every other dot kernel by
the GEMM lowering of :mod:`.convert_to_cutlass`
(the kernel builder of :mod:`tileorch.kernels.gemm` plus the program's epilogue).  This module
is the pass and the dispatch; neither lowering imports it.  Which kernels chain is
:mod:`.chained_detect`'s to answer: the chained lowering is imported only for a kernel that does.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileorch.diagnostics import LocatedError
from tileorch.dialects import nv_tileaa as aa
from tileorch.dialects.nv_tileas import AgentSwitchOp
from tileorch.transforms.tileas.chained_detect import (check_dots_outside_the_chain_loop, check_several_second_dots,
                                                      chained_dots)
from tileorch.transforms.tileas.convert_to_cutlass import CONFIG_ATTR, lower_kernel, parse_override, read_config
from tileorch.transforms.tileas.epilogue_dot import find_epilogue_dot


@dataclass(frozen=True)
class ConvertNvTileasToCutlass(ModulePass):
    """Materialized TileAS dot kernels -> cutlass pipeline/tile-scheduler + TMA/WGMMA payload,
    the program's epilogue compiled into the consumer warp groups.  ``config`` retiles
    (``tile_n=256,stages=4,cluster_m=2``: only for epilogues that do not depend on the tile shape)."""

    name = "convert-nv-tileas-to-cutlass"
    schedule: str = "persistent"
    config: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.schedule not in ("persistent", "streamk", "dp"):
            raise LocatedError(op, f"convert-nv-tileas-to-cutlass: schedule must be persistent, streamk or dp, got "
                                   f"{self.schedule!r}")
        try:
            override = parse_override(self.config)
        except ValueError as exc:
            raise LocatedError(op, f"convert-nv-tileas-to-cutlass: {exc}") from None
        kernels = [o for o in op.walk() if isinstance(o, aa.FuncOp) and o.kernel_spec() is not None]
        for kernel in kernels:
            if any(isinstance(o, AgentSwitchOp) for o in kernel.walk()):
                if find_epilogue_dot(kernel) is not None:  # a dot on the K loop's result: the GEMM kernel's
                    lower_kernel(ctx, op, kernel, self.schedule, override)  # second dot on the accumulator
                    continue
                if chained_dots(kernel) is not None:  # two dots, the second's A from the first's result
                    check_dots_outside_the_chain_loop(kernel, peeled_only=True)
                    from tileorch.transforms.tileas.chained_dots import lower_chained_kernel  # chains only

                    lower_chained_kernel(ctx, op, kernel)
                    continue
                check_dots_outside_the_chain_loop(kernel)  # a chain with a step peeled out of its loop
                check_several_second_dots(kernel)  # a chain feeding two accumulators (attention backward)
                lower_kernel(ctx, op, kernel, self.schedule, override)


def lower_tile_program(text: str, schedule: str = "persistent", dynamic_persistent: bool = False,
                       name: str = "<tile program>"):
    """nv_tileaa text -> (GemmConfig, the lowered cutlass module): the tier plus this lowering.
    The host side launches the result with ``tileorch.launchers.gemm_host.GemmKernel(cfg, cubin)``."""
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context
    from tileorch.transforms.tileas.tier import TileASTier

    ctx = make_context()
    module = parse_module(ctx, text, name)
    TileASTier(dynamic_persistent=dynamic_persistent).apply(ctx, module)
    ConvertNvTileasToCutlass(schedule=schedule).apply(ctx, module)
    fn = next(op for op in module.walk() if CONFIG_ATTR in op.attributes)
    return read_config(fn)[0], module
