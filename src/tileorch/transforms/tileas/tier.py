"""``tileas-tier``: the whole TileAS tier, nv_tileaa to a warp-specialized, cluster-planned
nv_tileas kernel, in tileiras' order (docs/tileas-tier.md lists where ours differs).

Each step is its own pass; ``TILEAS_PASSES`` spells the pipeline so that
``tileorch-opt -p "$(python -m tileorch.transforms.tileas.tier)" --print-between-passes`` shows
every stage.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileorch.registry import PASSES, resolve

TILEAS_PASSES = (
    "tileas-while-to-for",
    "tileas-guarded-k-loop",
    "tileas-scalar-tile-loads",
    "tileas-paged-gather",
    "tileas-row-window-gather",
    "tileas-scatter-row-store",
    "tileas-view-order-to-reshape",
    "tileas-transpose-computed-operand",
    "tileas-reroll-unrolled-loops",
    "tileas-flatten-nested-k-loops",
    "tileas-split-chains",
    "tileas-row-statistics-chain",
    "tileas-stack-query-heads",
    "tileas-column-loop-to-tiles",
    "tileas-program-loop-to-tiles",
    "tileas-unpeel-k-loop",
    "tileas-fold-dot-accumulate",
    "tileas-fold-tf32-operands",
    "tileas-fuse-split-loops",
    "tileas-split-batch-tiles",
    "tileas-squeeze-unit-tiles",
    "tileas-squeeze-unit-batch-dots",
    "convert-tileaa-to-tileas",
    "tileas-assign-dot-layouts",
    "tileas-assign-load-store-layouts",
    "tileas-plan-cta",
    "tileas-remove-layout-conversions",
    "sink-negf-through-shapes",
    "tileas-prepare-for-scheduling",
    "tileas-materialize-schedule",
    "optimize-execution-unit-mapping",
    "tileas-resolve-agent-boundary",
    "tileas-remove-buffer-alias",
    "tileas-rewrite-pipeline-iterator-types",
    "tileas-insert-OCG-knobs",
)


def pipeline_string(dynamic_persistent: bool = False) -> str:
    names = list(TILEAS_PASSES)
    if dynamic_persistent:
        names.insert(names.index("convert-tileaa-to-tileas") + 1, "tileas-dynamic-persistent")
    return ",".join(names)


@dataclass(frozen=True)
class TileASTier(ModulePass):
    """Run the TileAS tier's passes in order (``dynamic-persistent`` adds that pass)."""

    name = "tileas-tier"
    dynamic_persistent: bool = False

    def steps(self) -> list[ModulePass]:
        """The tier's passes, in order (the compile driver applies and times them one by one)."""
        return [resolve(PASSES[name])() for name in pipeline_string(self.dynamic_persistent).split(",")]

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for step in self.steps():
            step.apply(ctx, op)


if __name__ == "__main__":
    print(pipeline_string())
