"""The lowering pipeline, as pass names, in one place.

``PIPELINE`` is what ``tileorch compile`` and :func:`tileorch.backend.compile.compile_lowered`
run before translating to LLVM IR.  The cutlass/TileAS lowering passes are listed in
``CUTLASS_LOWERING``; ``STD_LOWERING`` then
takes scf/cf/arith/func/nvvm down to the ``llvm`` dialect.  ``scf`` must be gone before
``convert-nvvm-to-llvm`` (which splits blocks for the blocking try-wait loop).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileorch import registry

CUTLASS_LOWERING: list[str] = ["convert-atoms-to-nvvm", "cse-constants", "convert-blackwell-cluster-emitters",
                                  "cutlass-allocate-barrier-ids", "cutlass-stamp-arrive-counts",
                                  "lower-cutlass-pipeline-to-tileas", "convert-pipeline-to-nvvm", "cse-constants"]
"""Barrier ids are allocated before the arrive counts are stamped: the stamp pass rejects a
named-barrier ``pipeline.init`` that has no ``barrier_id_base``.

``cse-constants`` after ``convert-atoms-to-nvvm`` and after ``convert-pipeline-to-nvvm``, whose builders make a
constant per use (the 4096^3 GEMM's kernel: 162 and 86 repeated constants erased, 1930 ops instead of 2172
after the pipeline; see :mod:`tileorch.transforms.cse_constants`).  LLVM IR has no constant instructions,
so the LLVM IR and the PTX are the same as without it (``tools/ptx_identity.py``); every later pass, the final
verification and the translation visit fewer ops."""

STD_LOWERING: list[str] = [
    "convert-gpu-ids-to-nvvm",
    "convert-scf-while-to-cf",  # scf.while, if, for and index_switch (no convert-scf-to-cf after it: see below)
    "convert-nvvm-to-llvm",
    "convert-index-to-llvm",  # once, for the three passes after it (index-types=false: see below)
    "convert-arith-to-llvm{index-types=false}",
    "convert-cf-to-llvm{index-types=false}",
    "convert-func-to-llvm{index-types=false}",
    "reconcile-unrealized-casts",
]
"""``convert-scf-while-to-cf`` applies xDSL's ``convert-scf-to-cf`` patterns together with its
``scf.while`` pattern until none applies, so xDSL's pass after it found nothing to lower and is
not run (it walked the module for 1-3% of a SIMT compile; the PTX of every input of
``tools/ptx_identity.py`` is unchanged without it).  ``convert-index-to-llvm`` turns every
``index`` type into ``i64`` once, where the first of the arith/cf/func-to-llvm passes did it
before: each of them converts index types first when run alone
(:class:`tileorch.transforms.index_to_llvm.ToLLVMPass`), and since their patterns build no
``index`` type, the second and third conversion found nothing and only walked the module; here they
run with ``index-types=false``."""

PIPELINE: list[str] = CUTLASS_LOWERING + STD_LOWERING

CUTLASS_OPS: tuple[str, ...] = ("cutlass.", "nv_tileas.", "atom.", "cute_nvgpu.", "nvvm.tcgen05.")
"""Name prefixes of the ops :data:`CUTLASS_LOWERING`'s passes lower or check.  Those passes create
no such op from other ops, so a module without one gains none on the way."""


PDL_PASS = "nvvm-auto-gdc-insertion"
"""Run where ``TILEORCH_PDL=1`` (:func:`pdl_on`): programmatic dependent launch (transforms/gdc_insertion.py)."""


def pdl_on() -> bool:
    """``TILEORCH_PDL=1``: kernels compiled for programmatic dependent launch."""
    from tileorch import settings

    return settings.value("TILEORCH_PDL") == "1"


def pass_name(spec: str) -> str:
    """The pass name of a pipeline entry (``"convert-cf-to-llvm{index-types=false}"`` -> ``"convert-cf-to-llvm"``):
    what the pass reports itself as (``--timings``' ``lower/<name>``)."""
    return spec.split("{", 1)[0]


def has_cutlass_ops(module: ModuleOp) -> bool:
    """Whether ``module`` holds an op :data:`CUTLASS_LOWERING` lowers (:data:`CUTLASS_OPS`)."""
    return any(op.name.startswith(CUTLASS_OPS) for op in module.walk())


def lowering_pipeline(module: ModuleOp, simt_program: bool = False, debug_timeout: int = 0) -> list[str]:
    """The pass names :func:`tileorch.backend.compile.lower` runs on ``module``: :data:`PIPELINE`;
    :data:`STD_LOWERING` alone for the SIMT lowering's output of a tile program
    (``simt_program``) when it holds no op of :data:`CUTLASS_OPS` (it never does: the SIMT
    lowering emits func/scf/arith/math/nvvm/llvm ops).  Skipping the cutlass passes there changes
    no PTX (``tools/ptx_identity.py``) and spares their imports (the cutlass dialect, the
    pipeline lowering: ~0.25 s of a cold SIMT compile) and their walks.

    ``debug_timeout`` > 0 (a debug build: ``--debug-timeout N``) runs ``convert-pipeline-to-nvvm``
    with ``debug-timeout=N`` and ``bound-barrier-waits{debug-timeout=N}`` before
    :data:`STD_LOWERING`: every mbarrier wait and marked spin loop of the kernel then traps after
    N unsuccessful polls with a line naming what it waited on (entries with options are specs:
    :func:`make_passes` parses them)."""
    names = list(STD_LOWERING) if simt_program and not has_cutlass_ops(module) else list(PIPELINE)
    if pdl_on():  # before the std lowering: every global access an op of its own, scf not yet lowered to blocks
        names.insert(names.index(STD_LOWERING[0]), PDL_PASS)
    if debug_timeout > 0:
        names = [f"convert-pipeline-to-nvvm{{debug-timeout={debug_timeout}}}" if n == "convert-pipeline-to-nvvm" else n
                 for n in names]
        at = names.index(STD_LOWERING[0])
        names.insert(at, f"bound-barrier-waits{{debug-timeout={debug_timeout}}}")
    return names


def _pass_factories() -> dict:
    """xDSL's passes (its own table: no entry-point scan, see :func:`registry.dialect_factories`)
    plus ours."""
    from xdsl.transforms import get_all_passes

    factories = dict(get_all_passes())
    factories.update(registry.pass_factories())
    return factories


def parse_pipeline(spec: str) -> list[ModulePass]:
    """Pass instances for a ``-p`` style spec (``a,b{opt=1}``); raises ValueError if a pass is
    unknown, an option is not the pass's, or the spec does not parse (xDSL's
    ``ArgSpecParseError`` is a ``BaseException``: it went through every ``except Exception``)."""
    from xdsl.passes import PassPipeline
    from xdsl.utils.exceptions import ArgSpecParseError

    if not spec.strip():
        return []
    try:
        return list(PassPipeline.parse_spec(_pass_factories(), spec).passes)
    except ArgSpecParseError as exc:
        raise ValueError(malformed_pipeline(spec, exc)) from None


def malformed_pipeline(spec: str, exc: BaseException) -> str:
    """One line for xDSL's ``ArgSpecParseError`` (its text: a header, ``pass-pipeline:1:COL``, the
    spec, a caret, the message)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    where = next((line.rsplit(":", 1)[-1] for line in lines if line.startswith("pass-pipeline:")), "?")
    reason = lines[-1] if len(lines) > 1 else str(exc)
    return f"malformed pass pipeline {spec!r} at column {where}: {reason}"


def make_passes(names: Iterable[str]) -> list[ModulePass]:
    """Pass instances for ``names``: pass names, or specs with options (``p{opt=1}``)."""
    factories = _pass_factories()
    names = list(names)
    unknown = [n for n in names if n.split("{", 1)[0] not in factories]
    if unknown:
        raise ValueError(f"unknown passes in the lowering pipeline: {unknown}")
    return [_pass_with_options(n) if "{" in n else factories[n]()() for n in names]


@functools.lru_cache(maxsize=64)
def _pass_with_options(spec: str) -> ModulePass:
    """The pass of one ``p{opt=...}`` spec, parsed once per process (passes are frozen dataclasses:
    one instance serves every compile; :data:`STD_LOWERING` names three such specs)."""
    return parse_pipeline(spec)[0]


def apply_pass(ctx: Context, module: ModuleOp, p: ModulePass) -> None:
    """Apply ``p`` to ``module``: the one place the compile driver applies a pass, timed under
    the pass's name when a :func:`tileorch.timing.collect` scope is open (``--timings``).

    Within a scope a pass with a ``steps()`` method (``tileas-tier``, which runs the TileAS
    tier's passes in order) is applied as those passes, each timed under ``tileas-tier/<name>``: the same passes in the same
    order as ``TileASTier.apply``, which stays the path without a scope."""
    from tileorch import timing

    if timing.active() is None:
        guarded_apply(p, ctx, module)
        return
    with timing.timed(p.name):
        steps = _tier_steps(p)
        if steps is None:
            guarded_apply(p, ctx, module)
        else:
            for step in steps:
                apply_pass(ctx, module, step)


def guarded_apply(p: ModulePass, ctx: Context, module: ModuleOp) -> None:
    """``p.apply(ctx, module)``; an exception that is not a diagnostic (a ``KeyError`` from upstream
    code on a strange input, ...) becomes :class:`tileorch.diagnostics.PassCrash`: one located line
    naming the pass and the op (``TILEORCH_TRACEBACK=1``: raised as it is).  Diagnostics,
    ``ValueError`` and ``NotImplementedError`` (the passes' refusals) pass through unchanged."""
    import os

    from xdsl.utils.exceptions import DiagnosticException

    try:
        p.apply(ctx, module)
    except (DiagnosticException, ValueError, NotImplementedError, KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - reported, located, as the bug it is
        if os.environ.get("TILEORCH_TRACEBACK"):
            raise
        from tileorch.diagnostics import pass_crash

        raise pass_crash(exc, p.name, module) from exc


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
