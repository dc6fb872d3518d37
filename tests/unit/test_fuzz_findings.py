"""Regression tests for the findings of the device fuzz campaign (``tools/fuzz.py``, 31 104
inputs on 16 cores): each input once gave an internal error or reached LLVM; each must now give
located diagnostics only (exit 1, ``file:line:col: error:``, no "internal error")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch.tools.fuzz import LOCATED

ROOT = Path(__file__).resolve().parents[2]


def _run(tool: str, path: Path, *args: str) -> subprocess.CompletedProcess:
    code = ("import sys\n"
            "from tileorch.tools.opt import main as opt\n"
            "from tileorch.cli.main import main as cli\n"
            "sys.exit(opt(sys.argv[2:]) if sys.argv[1] == 'opt' else cli(sys.argv[2:]))\n")
    return subprocess.run([sys.executable, "-c", code, tool, *([str(path)] if tool == "opt" else []), *args],
                          capture_output=True, text=True, timeout=300)


def _located_only(proc: subprocess.CompletedProcess) -> list[str]:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "Traceback" not in out and "internal error" not in out, out
    errors = [line for line in out.splitlines() if " error: " in line]
    assert errors and all(LOCATED.match(line) for line in errors), out
    return errors


def test_tcgen05_cp_with_a_dangling_comma_is_a_parse_error(tmp_path):
    src = tmp_path / "cp.mlir"
    src.write_text("llvm.func @f(%t: !llvm.ptr<6>, %d: i64) {\n  nvvm.tcgen05.cp %t, %d,\n  llvm.return\n}\n")
    errors = _located_only(_run("opt", src))
    assert "shape" in errors[0]  # the keyword the comma announced


def test_cmpi_predicate_out_of_range_is_a_verifier_error(tmp_path):
    src = tmp_path / "cmp.mlir"
    src.write_text('func.func @f(%a: i32) -> i1 {\n  %c = "arith.cmpi"(%a, %a) <{predicate = 17 : i64}> : (i32, i32) -> i1\n'
                   "  func.return %c : i1\n}\n")
    errors = _located_only(_run("opt", src))
    assert errors == [f"{src}:2:3: error: arith.cmpi predicate must be in [0, 9], got 17"]


def test_crashing_neighbour_verifier_is_not_reported_next_to_the_real_error():
    """switch_by_executor reads its enclosing async.exec's executor; with that property deleted,
    the async.exec error is the diagnostic (no internal error from the switch's verifier)."""
    from tileorch.diagnostics import parse_module, verify_located
    from tileorch.registry import make_context

    text = (ROOT / "tests/filecheck/consumer_idx/lowering.mlir").read_text().split("// -----")[0]
    module = parse_module(make_context(), text, "seed.mlir")
    assert verify_located(module) == []
    exe = next(op for op in module.walk() if op.name == "cutlass.async.exec")
    del exe.properties["executor"]
    errors = verify_located(module)
    assert errors and all(LOCATED.match(e) for e in errors), errors
    assert not any("internal error" in e for e in errors), errors
    assert any("executor" in e and "cutlass.async.exec" in e for e in errors), errors


def test_xdsl_plain_exception_from_a_verifier_is_a_diagnostic():
    from xdsl.utils.exceptions import VerifyException  # noqa: F401 - the class xDSL should have used

    from tileorch.diagnostics import _raised_by_xdsl_verifier

    def xdsl_like():
        raise Exception("Block arguments with wrong type")

    try:
        xdsl_like()
    except Exception as exc:  # noqa: BLE001
        assert not _raised_by_xdsl_verifier(exc)  # raised here, not by xDSL
    try:
        from xdsl.dialects import scf
        from xdsl.dialects.builtin import IntegerAttr, i1, i32
        from xdsl.ir import Block, Region

        before = Block(arg_types=[i1])
        cond = scf.ConditionOp(before.args[0], before.args[0])
        before.add_op(cond)
        after = Block(arg_types=[i32])  # wrong: the condition forwards an i1
        after.add_op(scf.YieldOp(after.args[0]))
        from xdsl.dialects import arith

        init = arith.ConstantOp(IntegerAttr(1, i32))
        loop = scf.WhileOp([init.result], [i1], Region(before), Region(after))
        loop.verify()
    except VerifyException:
        pytest.skip("this xDSL raises VerifyException here")
    except Exception as exc:  # noqa: BLE001
        assert _raised_by_xdsl_verifier(exc), repr(exc)
    else:
        pytest.skip("this xDSL accepts the loop")


def test_type_llvm_translation_rejects_is_a_located_error():
    """An index-typed value left in the llvm dialect (a fuzz mutant's type swap) used to escape
    translation as xDSL's LLVMTranslationException; it is located at the op now."""
    from tileorch.backend.llvm_translate import translate_module
    from tileorch.diagnostics import LocatedError, parse_module
    from tileorch.registry import make_context

    text = ('builtin.module {\n  llvm.func @f() {\n'
            '    %x = "llvm.mlir.constant"() <{value = 1 : index}> : () -> index\n    llvm.return\n  }\n}\n')
    module = parse_module(make_context(), text, "idx.mlir")
    with pytest.raises(LocatedError, match=r"^idx\.mlir:3:5: error: cannot translate llvm\.mlir\.constant .*index"):
        translate_module(module)


def test_tcgen05_without_a_target_is_checked_against_the_default_target(tmp_path):
    text = (ROOT / "examples/tcgen05_sm100a.mlir").read_text()
    stripped = re.sub(r'cutlass\.target = "sm_100a",?\s*', "", text)
    assert stripped != text
    src = tmp_path / "t.mlir"
    src.write_text(stripped)
    errors = _located_only(_run("compile", src, "compile", str(src), "-o", str(tmp_path / "t.ptx")))
    assert "needs an sm_100a-class target" in errors[0] and "sm_90a" in errors[0]


def test_scf_while_without_after_block_arguments_is_located_not_internal(tmp_path):
    """The ``do`` region lost its ``^bb0(...)`` line: xDSL's scf.while verifier indexes the
    missing block argument (IndexError); that is a malformed op, not a tileorch crash."""
    src = tmp_path / "while.mlir"
    src.write_text("#s = #nv_tileas.layout<smem>\nbuiltin.module {\n  nv_tileaa.func @swap(%c: i1) {\n"
                   "    %a = nv_tileas.alloc_tensor : tensor<64xf32, #s>\n"
                   "    %b = nv_tileas.alloc_tensor : tensor<64xf32, #s>\n"
                   "    %res = scf.while (%x = %a) : (tensor<64xf32, #s>) -> tensor<64xf32, #s> {\n"
                   "      scf.condition(%c) %x : tensor<64xf32, #s>\n    } do {\n"
                   "      scf.yield %b : tensor<64xf32, #s>\n    }\n    nv_tileaa.return\n  }\n}\n")
    errors = _located_only(_run("opt", src))
    assert any(e.startswith(f"{src}:6:5: error: scf.while") for e in errors), errors


def test_index_typed_global_is_a_located_translation_error():
    from tileorch.backend.llvm_translate import translate_module
    from tileorch.diagnostics import LocatedError, parse_module
    from tileorch.registry import make_context

    text = 'builtin.module {\n  "llvm.mlir.global"() <{global_type = index, sym_name = "g", linkage = #llvm.linkage<"internal">, addr_space = 3 : i32}> ({\n  }) : () -> ()\n}\n'
    module = parse_module(make_context(), text, "g.mlir")
    with pytest.raises(LocatedError, match=r"^g\.mlir:2:3: error: cannot translate the global @g .*index"):
        translate_module(module)


FINDINGS = Path(__file__).resolve().parent / "fuzz_findings"


def test_string_literal_with_an_invalid_escape_does_not_hang():
    """xDSL's string-literal regex backtracked exponentially on ``"...\\0x1000..."``; the input
    (a fuzz mutant of tests/filecheck/backend/inline_asm_quotes.mlir) now fails in well under a
    second with a located lexer error."""
    src = FINDINGS / "string_literal_backtracking.mlir"
    errors = _located_only(_run("opt", src))
    assert "string literal" in errors[0], errors


def test_checker_locates_a_pipeline_value_without_init():
    """``tileorch check`` on a mutant whose pipeline operand became a block argument: located."""
    src = FINDINGS / "check_pipeline_block_argument.mlir"
    errors = _located_only(_run("check", src, "check", str(src), "--iterations", "2"))
    assert "cannot find the cutlass.pipeline.init" in errors[0], errors


def test_huge_cluster_shape_is_reported_not_enumerated():
    """A 0xffff x 2 cluster made the multicast-mask rule enumerate 131 070 CTAs per copy (a hang);
    every rule derived from the cluster now reports the impossible shape at its op."""
    src = FINDINGS / "huge_cluster_multicast.mlir"
    errors = _located_only(_run("opt", src))
    assert any("is not a cluster" in e for e in errors), errors


def test_bytecode_invalid_result_type_is_located_in_tileorch_opt():
    """Bytecode fuzz campaign of 2026-12-03 (seed 111, 29 inputs): a result type CUDA Tile IR
    rejects (a 1032-element constant) is reported by the reader at the op's source line; in
    ``tileorch-opt`` that located error was wrapped as ``<unknown>: error: FILE:7:5: error: ...``."""
    src = ROOT / "tests/unit/fuzz_findings/bytecode/invalid_result_type_in_opt.tileirbc"
    errors = _located_only(_run("opt", src))
    assert errors == ["tests/filecheck/cuda_tile/lower_to_tileaa.mlir:7:5: error: 'constant' has an invalid result "
                      "type (all dimensions must be powers of two, got [1032])"]
