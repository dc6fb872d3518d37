"""Every TileAS-tier pass is registered under tileiras' CLI name and resolves to a ModulePass of
that name; the tier pipeline names only registered passes."""

from xdsl.passes import ModulePass

from tileorch.registry import PASSES, resolve
from tileorch.transforms.tileas.tier import TILEAS_PASSES, pipeline_string

TILEIRAS_NAMES = [
    "convert-tileaa-to-tileas", "tileas-assign-dot-layouts", "tileas-assign-load-store-layouts",
    "tileas-plan-cta", "tileas-remove-layout-conversions", "sink-negf-through-shapes",
    "tileas-prepare-for-scheduling", "tileas-slicing", "tileas-materialize-schedule",
    "optimize-execution-unit-mapping", "propagate-execution-unit", "tileas-resolve-agent-boundary",
    "tileas-remove-buffer-alias", "tileas-insert-OCG-knobs", "tileas-dynamic-persistent",
    "tileas-squeeze-unit-batch-dots", "tileas-program-loop-to-tiles", "tileas-fold-dot-accumulate",
    "tileas-fuse-split-loops", "tileas-fold-tf32-operands", "tileas-split-batch-tiles", "tileas-unpeel-k-loop",
    "tileas-squeeze-unit-tiles", "tileas-reroll-unrolled-loops", "tileas-column-loop-to-tiles", "tileas-split-chains", "tileas-row-statistics-chain", "tileas-while-to-for", "tileas-guarded-k-loop", "tileas-view-order-to-reshape",
    "tileas-scalar-tile-loads", "tileas-transpose-computed-operand", "tileas-paged-gather",
    "tileas-scatter-row-store",
]


def test_tileiras_pass_names_are_registered():
    for name in TILEIRAS_NAMES + ["tileas-rewrite-pipeline-iterator-types", "tileas-tier",
                                  "convert-nv-tileas-to-cutlass"]:
        cls = resolve(PASSES[name])
        assert issubclass(cls, ModulePass) and cls.name == name


def test_tier_pipeline_uses_registered_passes_in_order():
    assert all(name in PASSES for name in TILEAS_PASSES)
    names = pipeline_string(dynamic_persistent=True).split(",")
    # batch-1 dots are squeezed to 2-D while still nv_tileaa; the persistent rewrite follows the conversion
    # loops cuTile split at a branch are fused back while still nv_tileaa
    # straight-line copies of a dot loop's body are re-rolled first (the persistent tile loop around them
    # is then a one-dot kernel's); nested K loops (a static_iter pair re-rolled into one among them) are
    # flattened right after; before all of them, a counted while loop holding dots becomes its for loop (then a
    # dot loop under a runtime if runs to select(test, ub, lb), an empty loop after a dot loop is dropped) and
    # a dot operand read through a general view order is loaded in the array's order and transposed; a
    # one-element tile load feeding a tile index becomes a scalar load, then a K / V tile gathered slot by slot from a
    # paged cache becomes its pages' tile loads (tileas-paged-gather), a dot operand gathered at consecutive rows
    # under a row mask a row window's tile load (tileas-row-window-gather), a row vector scattered at consecutive,
    # tile-aligned indices its tile store (tileas-scatter-row-store); a transposed computed dot operand
    # is computed transposed; a loop over the output's column tiles after a K loop becomes program id 1 before the
    # one-dot rewrites (its kernel then has its second dot outside any loop); independent chains of one program
    # become programs of one chain right before that (tileas-split-chains: one top-level dot loop), and a loop
    # whose one dot is only reduced gets its unread second dot then (tileas-row-statistics-chain), and a loop over
    # the query heads sharing K / V runs two heads a chain (tileas-stack-query-heads) before its instances are made
    assert names[:24] == ["tileas-while-to-for", "tileas-guarded-k-loop", "tileas-scalar-tile-loads",
                          "tileas-paged-gather", "tileas-row-window-gather", "tileas-scatter-row-store",
                          "tileas-view-order-to-reshape",
                          "tileas-transpose-computed-operand", "tileas-reroll-unrolled-loops", "tileas-flatten-nested-k-loops",
                          "tileas-split-chains", "tileas-row-statistics-chain", "tileas-stack-query-heads", "tileas-column-loop-to-tiles", "tileas-program-loop-to-tiles", "tileas-unpeel-k-loop",
                          "tileas-fold-dot-accumulate", "tileas-fold-tf32-operands", "tileas-fuse-split-loops",
                          "tileas-split-batch-tiles", "tileas-squeeze-unit-tiles", "tileas-squeeze-unit-batch-dots",
                          "convert-tileaa-to-tileas", "tileas-dynamic-persistent"]
    assert names.index("tileas-materialize-schedule") < names.index("optimize-execution-unit-mapping")
    assert names[-1] == "tileas-insert-OCG-knobs"
