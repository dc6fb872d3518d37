"""What makes compiling fast keeps its meaning: patterns tried by op name in their order, the GC
threshold restored, verification once per pipeline unless TILEORCH_VERIFY_EACH_PASS."""

import gc

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tileorch.transforms.pipeline_to_nvvm.base import OpNameDispatch


class _Record(RewritePattern):
    def __init__(self, tag, log, ops=None, acts=False):
        self.tag, self.log, self.acts = tag, log, acts
        if ops is not None:
            self.OPS = ops

    def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
        self.log.append(self.tag)
        if self.acts:
            rewriter.has_done_action = True


def test_dispatch_tries_named_and_any_op_patterns_in_order_until_one_acts():
    log = []
    dispatch = OpNameDispatch([_Record("a", log, ("arith.constant",)), _Record("any", log),
                               _Record("b", log, ("arith.addi",)), _Record("c", log, ("arith.constant",), acts=True),
                               _Record("d", log, ("arith.constant",))])
    op = arith.ConstantOp(IntegerAttr(1, i32))
    Block([op])  # the rewriter needs the op in a block
    rewriter = PatternRewriter(op)
    dispatch.match_and_rewrite(op, rewriter)
    assert log == ["a", "any", "c"]
    assert dispatch.matches_any({"func.func"})  # a pattern without OP/OPS may match anything
    assert not OpNameDispatch([_Record("b", log, ("arith.addi",))]).matches_any({"arith.constant"})


def test_gc_threshold_is_raised_while_compiling_and_restored():
    from tileorch.backend.compile import GC_THRESHOLD, gc_deferred

    before = gc.get_threshold()
    with gc_deferred():
        assert gc.get_threshold()[0] == GC_THRESHOLD
        with gc_deferred():
            assert gc.get_threshold()[0] == GC_THRESHOLD
        assert gc.get_threshold()[0] == GC_THRESHOLD
    assert gc.get_threshold() == before


def test_tile_program_is_verified_once_unless_each_pass(monkeypatch):
    """A tile program: its input and the final result are verified; the tier's output and the
    cuda_tile -> nv_tileaa step only with TILEORCH_VERIFY_EACH_PASS."""
    from pathlib import Path

    import tileorch.backend.compile as bc
    from tileorch.driver import compile_text

    text = (Path(__file__).resolve().parents[2] / "examples" / "tile_gemm.mlir").read_text()
    stages = []
    verify = bc._verify
    monkeypatch.setattr(bc, "_verify", lambda module, stage: stages.append(stage) or verify(module, stage))
    monkeypatch.delenv(bc.VERIFY_EACH_PASS_ENV, raising=False)
    compile_text(text, "tile_gemm.mlir", emit="mlir")
    assert stages == ["input", "reconcile-unrealized-casts"]
    stages.clear()
    monkeypatch.setenv(bc.VERIFY_EACH_PASS_ENV, "1")
    compile_text(text, "tile_gemm.mlir", emit="mlir")
    assert stages.count("input") == 2 and len(stages) > 10
