"""What makes compiling fast keeps its meaning: patterns tried by op name in their order, the GC
threshold restored, verification once per pipeline unless TILEORCH_VERIFY_EACH_PASS, one-walk
rewrites as xDSL's walker does them, the nvvm op families loaded on first use."""

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
    from tileorch.gc_deferral import GC_THRESHOLD, gc_deferred

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
    import subprocess

    import pytest

    import tileorch.backend.ptx as ptx_mod
    from tileorch.backend.ptx import BackendError, llvm_to_ptx
    from tileorch.driver import compile_text

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


def test_rewrite_once_visits_each_op_once_in_walk_order_and_skips_erased_ones():
    """rewrite_once is PatternRewriteWalker(apply_recursively=False) without the worklist: the
    same ops visited in the same order (an op before the ops of its regions), created ops not
    visited, an erased op (and what it nested) skipped, and the same IR left behind."""
    from xdsl.dialects import scf
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.pattern_rewriter import PatternRewriteWalker

    from tileorch.transforms.rewrite_once import rewrite_once

    def build():
        c = [arith.ConstantOp(IntegerAttr(v, i32)) for v in (1, 2)]
        inner = arith.AddiOp(c[0], c[1])
        cond = arith.ConstantOp(IntegerAttr(1, 1))
        if_op = scf.IfOp(cond, [], [inner, scf.YieldOp()], [scf.YieldOp()])
        after = arith.MuliOp(c[0], c[1])
        return ModuleOp([*c, cond, if_op, after])

    class Visit(RewritePattern):
        def __init__(self, log):
            self.log = log

        def match_and_rewrite(self, op, rewriter: PatternRewriter) -> None:
            self.log.append(op.name)
            if isinstance(op, scf.IfOp):  # erase the if and what it nests: neither visited after
                rewriter.erase(op, safe_erase=False)
            elif isinstance(op, arith.MuliOp):  # a replacement: the created op is not visited
                rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))

    walked, once = [], []
    a, b = build(), build()
    PatternRewriteWalker(Visit(walked), apply_recursively=False).rewrite_module(a)
    assert rewrite_once(Visit(once), b.body)
    assert once == walked == ["arith.constant", "arith.constant", "arith.constant", "scf.if", "arith.muli"]
    assert str(a) == str(b) and "arith.subi" in str(b) and "scf.if" not in str(b)
    assert not rewrite_once(Visit([]), ModuleOp([]).body)


def test_simt_lowering_imports_no_payload_or_blackwell_nvvm_ops():
    """The nvvm dialect's TMA/WGMMA and tcgen05 ops (and their lowerings) load on first use: a
    SIMT kernel's compile (the std lowering of the SIMT path's output, ``kind="simt"``) never
    imports them; the whole dialect still lists them."""
    import subprocess
    import sys

    code = ("import sys; from tileorch.driver import compile_text; "
            "compile_text('builtin.module {\\n  func.func @f() {\\n    func.return\\n  }\\n}\\n', emit='llvm', "
            "kind='simt'); "
            "print(sorted(m for m in ('tileorch.dialects.nvvm_payload', 'tileorch.dialects.nvvm_tcgen05', "
            "'tileorch.transforms.nvvm_payload_to_llvm', 'tileorch.transforms.nvvm_tcgen05_to_llvm') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    from tileorch.dialects import nvvm, nvvm_payload, nvvm_tcgen05
    from tileorch.transforms import nvvm_to_llvm

    assert set(nvvm_payload.PAYLOAD_OPS) | set(nvvm_tcgen05.TCGEN05_OPS) | set(nvvm.CORE_OPS) == set(nvvm.OPS)
    assert {op.name for op in nvvm.OPS} == {op.name for op in nvvm.NVVM.operations}
    nvvm_to_llvm.add_family_lowerings()  # both families loaded now: their lowerings merged
    assert any(op in nvvm_to_llvm.LOWERINGS for op in nvvm_payload.PAYLOAD_OPS)
    assert any(op in nvvm_to_llvm.LOWERINGS for op in nvvm_tcgen05.TCGEN05_OPS)
