"""cuTile's ``ct.assert_`` through the front door: the SIMT kernel calls ``__assertfail`` with the
message, the assert's file and line, and stays a whole program (ptxas resolves the system call);
a dot program with an assert takes the SIMT path with a located warning instead of dropping it."""

from __future__ import annotations

import pytest

from tileorch.backend.ptxas import PTX_SYSTEM_CALLS, external_functions, ptxas_available

ct = pytest.importorskip("cuda.tile")

from tileorch.testing.assert_programs import assert_line, checked_copy, checked_gemm  # noqa: E402
from tileorch.testing.export import cutile_bytecode  # noqa: E402


def _bytes(text: str) -> str:
    """PTX's initializer list of a NUL-terminated string (the part before the NUL)."""
    return ", ".join(str(b) for b in text.encode())


def test_external_functions_and_system_calls():
    ptx = (".extern .func (.param .b32 func_retval0) vprintf\n(\n.param .b64 a\n)\n;\n"
           ".extern .func __assertfail\n(\n)\n;\n.extern .func my_helper\n(\n)\n;\n")
    assert external_functions(ptx) == {"vprintf", "__assertfail", "my_helper"}
    assert external_functions(ptx) - PTX_SYSTEM_CALLS == {"my_helper"}  # only it makes the PTX relocatable


@pytest.mark.skipif(not ptxas_available(), reason="ptxas not installed")
def test_assert_calls_assertfail_with_message_file_and_line():
    from tileorch.driver import compile_program

    p = compile_program(cutile_bytecode(checked_copy, [((4096,), "float32"), ((4096,), "float32"), 256]), "copy")
    assert p.kind == "simt"
    assert "call.uni __assertfail" in p.ptx and "trap;" in p.ptx
    assert _bytes("x must be below 100") in p.ptx
    assert _bytes("assert_programs.py") in p.ptx  # the file of the ct.assert_ call (its path's tail)
    assert f"st.param.b32 \t[param2], {assert_line(checked_copy)};" in p.ptx, "the assert's line"
    assert p.cubin[16] == 2, "a whole program (ELF executable), not code assembled with -c"
    assert not any("warning" in r for r in p.remarks), p.remarks


def test_assert_in_a_dot_program_takes_the_simt_path_with_a_located_warning():
    from tileorch.driver import compile_program

    spec = [((512, 512), "float16"), ((512, 512), "float16"), ((512, 512), "float16"), 64, 64, 32]
    p = compile_program(cutile_bytecode(checked_gemm, spec), "gemm", ptxas=False)
    assert p.kind == "simt", p.remarks
    line = assert_line(checked_gemm)
    warn = [r for r in p.remarks if "ct.assert_ is checked on the SIMT path only" in r]
    assert warn and f"assert_programs.py:{line}:" in warn[0] and ": warning: " in warn[0], p.remarks
    assert "call.uni __assertfail" in p.ptx


def test_assert_condition_must_be_boolean_is_a_verifier_rule():
    """The op's verifier (a negative FileCheck test covers the located message)."""
    from xdsl.dialects.builtin import TensorType, i32
    from xdsl.ir import Block
    from xdsl.utils.exceptions import VerifyException

    from tileorch.dialects.nv_tileaa.tile_ops import AssertOp

    block = Block(arg_types=[TensorType(i32, [4])])
    op = AssertOp(block.args[0], "m")
    block.add_op(op)
    with pytest.raises(VerifyException, match="condition of i1 elements"):
        op.verify()
