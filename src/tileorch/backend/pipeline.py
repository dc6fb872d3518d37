"""The lowering pipeline, as pass names, in one place.

``PIPELINE`` is what ``tileorch compile`` and :func:`tileorch.backend.compile.compile_lowered`
run before translating to LLVM IR.  The cutlass/TileAS lowering passes are listed in
``CUTLASS_LOWERING``; ``STD_LOWERING`` then
takes scf/cf/arith/func/nvvm down to the ``llvm`` dialect.  ``scf`` must be gone before
``convert-nvvm-to-llvm`` (which splits blocks for the blocking try-wait loop).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileorch import registry

CUTLASS_LOWERING: list[str] = ["convert-atoms-to-nvvm", "convert-blackwell-cluster-emitters", "cutlass-allocate-barrier-ids", "cutlass-stamp-arrive-counts",
                                  "lower-cutlass-pipeline-to-tileas", "convert-pipeline-to-nvvm"]
"""Barrier ids are allocated before the arrive counts are stamped: the stamp pass rejects a
named-barrier ``pipeline.init`` that has no ``barrier_id_base``."""

STD_LOWERING: list[str] = [
    "convert-gpu-ids-to-nvvm",
    "convert-scf-while-to-cf",
    "convert-scf-to-cf",
    "convert-nvvm-to-llvm",
    "convert-arith-to-llvm",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
    "convert-index-to-llvm",
    "reconcile-unrealized-casts",
]

PIPELINE: list[str] = CUTLASS_LOWERING + STD_LOWERING


def _pass_factories() -> dict:
    """xDSL's passes (its own table: no entry-point scan, see :func:`registry.dialect_factories`)
    plus ours."""
    from xdsl.transforms import get_all_passes

    factories = dict(get_all_passes())
    factories.update(registry.pass_factories())
    return factories


def parse_pipeline(spec: str) -> list[ModulePass]:
    """Pass instances for a ``-p`` style spec (``a,b{opt=1}``); raises ValueError if unknown."""
    from xdsl.passes import PassPipeline

    return list(PassPipeline.parse_spec(_pass_factories(), spec).passes) if spec.strip() else []


def make_passes(names: Iterable[str]) -> list[ModulePass]:
    factories = _pass_factories()
    unknown = [n for n in names if n not in factories]
    if unknown:
        raise ValueError(f"unknown passes in the lowering pipeline: {unknown}")
    return [factories[n]()() for n in names]


def apply_pass(ctx: Context, module: ModuleOp, p: ModulePass) -> None:
    """Apply ``p`` to ``module``: the one place the compile driver applies a pass, timed under
    the pass's name when a :func:`tileorch.timing.collect` scope is open (``--timings``).

    Within a scope a pass with a ``steps()`` method (``tileas-tier``, which runs the TileAS
    tier's passes in order) is applied as those passes, each timed under ``tileas-tier/<name>``: the same passes in the same
    order as ``TileASTier.apply``, which stays the path without a scope."""
    from tileorch import timing

    if timing.active() is None:
        p.apply(ctx, module)
        return
    with timing.timed(p.name):
        steps = _tier_steps(p)
        if steps is None:
            p.apply(ctx, module)
        else:
            for step in steps:
                apply_pass(ctx, module, step)


def _tier_steps(p: ModulePass) -> list[ModulePass] | None:
    """The passes a pass that runs a fixed sequence of passes (``tileas-tier``: a ``steps()``
    method) consists of, else None; asked by name, so this layer imports no transform."""
    steps = getattr(p, "steps", None)
    return steps() if callable(steps) else None


def run_passes(ctx: Context, module: ModuleOp, passes: Iterable[ModulePass]) -> None:
    for p in passes:
        apply_pass(ctx, module, p)


@dataclass(frozen=True)
class LowerToLLVM(ModulePass):
    """Run :data:`PIPELINE`: everything down to the ``llvm`` dialect."""

    name = "lower-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        run_passes(ctx, op, make_passes(PIPELINE))
