"""``cse-constants`` in the lowering pipeline (issue 22, session 44): after ``convert-atoms-to-nvvm`` and after
``convert-pipeline-to-nvvm`` (``tileorch.backend.pipeline.CUTLASS_LOWERING``).  The lowered kernel of a
``tileorch.gemm`` configuration loses nothing but repeated constants (a constant equal to one earlier in its
block; merged before a later pass splits their block, some are no longer in one block at the end), nearly all
of them, and its LLVM IR is byte for byte the one the pipeline without the pass makes (LLVM IR
has no constant instructions), so the PTX cannot change."""

from __future__ import annotations

import collections


def _repeats(module) -> int:
    """Constants equal (op class, value, type) to one earlier in their block."""
    from xdsl.dialects import arith, llvm

    seen = collections.Counter((type(op).__name__, str(op.value), str(op.results[0].type), id(op.parent))
                               for op in module.walk() if type(op) in (arith.ConstantOp, llvm.ConstantOp))
    return sum(n - 1 for n in seen.values())


def _lowered(cfg):
    from tileorch.backend.compile import lower
    from tileorch.backend.llvm_translate import translate_module
    from tileorch.launchers.gemm_program import lower_gemm
    from tileorch.registry import make_context

    module = lower_gemm(cfg)
    lower(make_context(), module)
    return module, translate_module(module)


def test_pipeline_runs_cse_constants_after_the_builders_that_repeat_constants():
    from tileorch.backend import pipeline

    names = pipeline.CUTLASS_LOWERING
    at = [i for i, n in enumerate(names) if n == "cse-constants"]
    assert [names[i - 1] for i in at] == ["convert-atoms-to-nvvm", "convert-pipeline-to-nvvm"]
    assert "cse-constants" not in pipeline.STD_LOWERING  # the SIMT path (STD_LOWERING alone) is unchanged


def test_lowered_gemm_loses_repeated_constants_only_and_keeps_its_llvm_ir(monkeypatch):
    from tileorch.backend import pipeline
    from tileorch.launchers.gemm import default_config

    cfg = default_config(4096, 4096, 4096, "bf16", "bf16", "k", "auto", 132)  # `tileorch gemm 4096 4096 4096`'s
    shared, shared_ir = _lowered(cfg)
    monkeypatch.setattr(pipeline, "PIPELINE", [n for n in pipeline.PIPELINE if n != "cse-constants"])
    per_use, per_use_ir = _lowered(cfg)
    monkeypatch.undo()
    before, after = _repeats(per_use), _repeats(shared)
    assert before > 100  # the builders repeat constants in their blocks (193 in this kernel)
    assert 10 * after < before  # what is left: made after the last cse-constants (convert-arith-to-llvm's)
    census = [collections.Counter(op.name for op in m.walk()) for m in (per_use, shared)]
    constants = ("arith.constant", "llvm.mlir.constant")
    assert census[0]["llvm.mlir.constant"] - census[1]["llvm.mlir.constant"] >= before - after
    assert {k: v for k, v in census[0].items() if k not in constants} == \
        {k: v for k, v in census[1].items() if k not in constants}  # nothing but constants erased
    assert "wgmma.mma_async" in shared_ir and shared_ir == per_use_ir
