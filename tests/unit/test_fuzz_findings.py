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
    """``tileorch check`` on a mutant whose pipeline operand became a block argument of another
    region: located.  The verifier's dominance check reports the use (at the op, naming the
    region whose argument it is) before the checker looks for the pipeline's init."""
    src = FINDINGS / "check_pipeline_block_argument.mlir"
    errors = _located_only(_run("check", src, "check", str(src), "--iterations", "2"))
    assert errors[0].startswith(f"{src}:10:9: error: operand #0 (%q) of cutlass.pipeline.state.create does not "
                                "dominate this use: it is the argument #0 of a region of the "
                                "cutlass.pipeline.switch_by_executor at "), errors


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


def _cutile_file(tmp_path, kernel: str, spec: list) -> tuple[Path, Path, str]:
    """The bytecode of ``fuzz_findings/cutile_kernels.py``'s ``kernel`` for ``spec`` (skips
    without cuTile), the kernels' source path and its text."""
    pytest.importorskip("cuda.tile")
    sys.path.insert(0, str(ROOT / "tests/unit/fuzz_findings"))
    try:
        import cutile_kernels
    finally:
        sys.path.pop(0)
    from tileorch.testing.export import cutile_bytecode

    out = tmp_path / f"{kernel}.tileirbc"
    out.write_bytes(cutile_bytecode(getattr(cutile_kernels, kernel), spec))
    src = Path(cutile_kernels.__file__)
    return out, src, src.read_text()


def _line_col(text: str, marker: str, token: str) -> tuple[int, int]:
    """1-based line of the line holding ``marker`` and 0-based column of ``token`` in it (cuTile's
    debug columns are 0-based)."""
    lines = text.splitlines()
    n = next(i for i, line in enumerate(lines) if marker in line)
    return n + 1, lines[n].index(token)


_GEMM_512K = [((1024, 1024), "float16"), ((1024, 1024), "float16"), ((1024, 1024), "float32"), 128, 256, 512]


def test_simt_error_after_a_tier_refusal_notes_the_refusal_located(tmp_path):
    """Hand-written edge case (2026-12-03): a GEMM whose 128x512 and 512x256 f16 operand tiles do
    not fit the tier's shared memory falls back to the SIMT path, which refuses the 512-column
    tile; the tier's reason was printed as ``note: the SIMT path was taken because FILE:L:C:
    error: ...`` (an error: line without a location of its own)."""
    bc, src, text = _cutile_file(tmp_path, "big_k_tile", _GEMM_512K)
    proc = _run("cli", bc, "compile", str(bc), "--no-ptxas", "--no-cache", "-o", str(tmp_path / "k.ptx"))
    errors = _located_only(proc)
    loop, _ = _line_col(text, "# LOOP", "for")
    assert len(errors) == 1 and ("a tile of 131072 elements is too large: 1024 registers per thread on 128 threads "
                                 "(at most 512); use smaller tiles") in errors[0], errors
    assert f"{src}:{loop}:4: note: the SIMT path was taken because the tensor-core path refused the kernel here: " \
           "failed to find a schedule for the loop: 393232 bytes per stage do not fit twice in the 216064 bytes " \
           "of shared memory left of 232448" in proc.stderr.splitlines(), proc.stderr


def test_tier_refusal_of_a_program_that_compiles_is_a_warning(tmp_path):
    """Hand-written edge case (2026-12-03): an f64 dot compiles on the SIMT path; the tier's
    refusal was printed as ``FILE:L:C: error: ...`` although ``tileorch compile`` exits 0."""
    bc, src, text = _cutile_file(tmp_path, "f64_dot", [((64, 64), "float64")] * 3 + [16])
    proc = _run("cli", bc, "compile", str(bc), "--no-ptxas", "--no-cache", "-o", str(tmp_path / "k.ptx"))
    assert proc.returncode == 0, proc.stderr
    assert " error: " not in proc.stdout + proc.stderr, proc.stderr
    line, col = _line_col(text, "# DOT", "ct.mma")
    assert (f"{src}:{line}:{col}: warning: convert-nv-tileas-to-cutlass: this dot multiplies f64 tiles: the "
            "tensor cores' WGMMA takes f16, bf16, tf32 (f32), fp8 and int8 operands, not f64 "
            "[the tensor-core path refused this kernel: "
            "the SIMT path compiles it, slowly (scalar FMA loops for a dot mma.sync does not take)]"
            in proc.stderr.splitlines()), proc.stderr


def test_constant_shift_by_the_width_keeps_the_stores(tmp_path):
    """Hand-written edge case (2026-12-03): ``x << 64`` on an int32 tile lowered to LLVM's
    ``shl`` by 64 (poison), and LLVM dropped the kernel's every store; the result is now PTX's
    clamped shift (0), stored (convert-cudatile-to-tileaa, FileCheck:
    tests/filecheck/cuda_tile/shift_amount_clamped.mlir)."""
    bc, src, text = _cutile_file(tmp_path, "shift_by_64", [((1024,), "int32"), ((1024,), "int32")])
    ptx = tmp_path / "k.ptx"
    proc = _run("cli", bc, "compile", str(bc), "--no-ptxas", "--no-cache", "-o", str(ptx))
    assert proc.returncode == 0, proc.stderr
    assert ptx.read_text().count("st.global") > 0
    line, col = _line_col(text, "<< 64", "ct.load(x")
    assert proc.stderr.splitlines()[0] == (f"{src}:{line}:{col}: warning: shift of 32-bit integers by 64 (the "
                                           "amount is unsigned, at least the width): each element becomes 0"), proc.stderr


CONSTANT_OPERANDS = """cuda_tile.module @m {
  entry @k() {
    %x = constant <i32: 5> : tile<64xi32>
    %z = constant <i32: 0> : tile<64xi32>
    %c3 = constant <i32: 3> : tile<64xi32>
    %cm1 = constant <i32: -1> : tile<64xi32>
    %c31 = constant <i32: 31> : tile<64xi32>
    %a = divi %x, %z signed : tile<64xi32>
    %b = remi %x, %z unsigned : tile<64xi32>
    %c = divi %x, %c3 signed : tile<64xi32>
    %d = shri %x, %cm1 signed : tile<64xi32>
    %e = shli %x, %c31 : tile<64xi32>
    return
  }
}
"""


def test_constant_operand_warnings_name_each_op():
    """A division or remainder by a constant 0 (undefined behaviour: LLVM dropped the stores of
    the hand-written ``t // 0`` edge case until review 27 defined it) and a shift by the width or more are
    located warnings;
    a division by 3 and a shift by 31 are not."""
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context
    from tileorch.transforms.cudatile_to_tileaa.constant_warnings import constant_operand_warnings

    module = parse_module(make_context(), CONSTANT_OPERANDS, "k.mlir")
    assert constant_operand_warnings(module) == [
        "k.mlir:8:5: warning: integer division by the constant 0 is undefined behaviour in CUDA Tile IR: each "
        "element becomes the dividend",
        "k.mlir:9:5: warning: integer remainder by the constant 0 is undefined behaviour in CUDA Tile IR: each "
        "element becomes 0",
        "k.mlir:11:5: warning: shift of 32-bit integers by 4294967295 (the amount is unsigned, at least the width): "
        "each element becomes -1 or 0 (its sign)",
    ]


def test_unsigned_floor_division_verifies(tmp_path):
    """Hand-written edge case (2026-12-03): cuTile 1.7 writes ``t // 3`` of a uint32 tile as
    ``divi unsigned rounding<negative_inf>``.  Refused until review 28 (the error named a workaround); the
    floor of a quotient of non-negative integers is its truncation, so it verifies and lowers as ``divui``
    (values: test_review28_integer_loops.py)."""
    src = tmp_path / "u.mlir"
    src.write_text("cuda_tile.module @m {\n  entry @k() {\n    %x = constant <i32: 5> : tile<64xi32>\n"
                   "    %a = divi %x, %x unsigned rounding<negative_inf> : tile<64xi32>\n    return\n  }\n}\n")
    proc = _run("opt", src)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "unsigned rounding<negative_inf>" in proc.stdout, proc.stdout
