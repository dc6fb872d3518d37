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


def test_cli_imports_only_the_subcommand_it_runs():
    """``tileorch compile`` builds a parser with the compile subcommand alone: the model checker
    (``tileorch check``) and numpy (``tileorch run``) are not imported; ``--help`` lists all."""
    import subprocess
    import sys

    code = ("import sys; from tileorch.cli.main import build_parser, named_subcommand; "
            "build_parser(named_subcommand(['compile', 'x.mlir'])).parse_args(['compile', 'x.mlir']); "
            "print(sorted(m for m in ('numpy', 'tileorch.analysis.explore', 'tileorch.cli.check') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    from tileorch.cli.main import SUBCOMMANDS, build_parser, named_subcommand

    assert named_subcommand(["--version"]) is None and named_subcommand(["compil"]) is None
    choices = build_parser()._subparsers._group_actions[0].choices
    assert set(SUBCOMMANDS) <= set(choices)


def test_backend_memo_answers_a_repeated_codegen_and_ptxas_run(tmp_path, monkeypatch):
    """With TILEORCH_BACKEND_MEMO set, the second codegen/ptxas of the same input is read back
    (same PTX, cubin and messages) without running LLVM or ptxas; failures are not stored."""
    import pytest

    import tileorch.backend.ptx as ptx_mod
    import subprocess

    from tileorch.driver import compile_text
    from tileorch.backend.ptx import BackendError, llvm_to_ptx

    monkeypatch.setenv("TILEORCH_BACKEND_MEMO", str(tmp_path / "memo"))
    text = ('llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {\n'
            '  %c = llvm.mlir.constant(1 : i32) : i32\n  llvm.store %c, %p : i32, !llvm.ptr<1>\n  llvm.return\n}\n')
    first = compile_text(text, "k.mlir")
    calls = []
    monkeypatch.setattr(ptx_mod, "codegen", lambda *a: calls.append("codegen"))
    monkeypatch.setattr(ptx_mod, "_forked_codegen", lambda *a: calls.append("codegen"))
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: calls.append("ptxas"))  # ptxas.py imports it where used
    second = compile_text(text, "k.mlir")
    assert calls == []
    assert second.ptx == first.ptx and second.ptxas.cubin == first.ptxas.cubin
    assert (second.ptxas.messages, second.ptxas.info) == (first.ptxas.messages, first.ptxas.info)
    monkeypatch.undo()
    monkeypatch.setenv("TILEORCH_BACKEND_MEMO", str(tmp_path / "memo"))
    with pytest.raises(BackendError):
        llvm_to_ptx("this is not LLVM IR\n", isolate=False)
    assert sorted(p.name for p in (tmp_path / "memo").iterdir()) == ["codegen", "ptxas"]
    assert len(list((tmp_path / "memo" / "codegen").iterdir())) == 1  # the failure was not stored
