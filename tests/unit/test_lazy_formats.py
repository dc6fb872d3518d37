"""``tileorch.dialects.lazy_formats``: op assembly formats are parsed when an op of the class is
first parsed or printed, not when the class is defined; every format of every dialect still
parses (checked here instead of at definition), a bad one raises xDSL's error at first use, and
a cold compile parses none."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib import import_module

import pytest
from xdsl.utils.exceptions import PyRDLOpDefinitionError

from tileorch.dialects import lazy_formats


def _all_dialects():
    """Every dialect the registry lists, and xDSL's dialects of the compile route."""
    from tileorch import registry

    out = []
    for ref in registry.DIALECTS.values():
        module, attr = ref.split(":")
        out.append(getattr(import_module(module), attr))
    for name, attr in (("arith", "Arith"), ("llvm", "LLVM"), ("math", "Math"), ("scf", "Scf"), ("cf", "Cf"),
                       ("func", "Func")):
        out.append(getattr(import_module(f"xdsl.dialects.{name}"), attr))
    return out


def test_every_format_parses():
    """The check xDSL makes when an op class is defined, made here for every op whose format is
    pending (a format that does not parse fails this test)."""
    ops = [op for d in _all_dialects() for op in d.operations]
    assert len(ops) > 300
    assert lazy_formats.materialize_all() == []
    assert lazy_formats.pending() == []


def test_a_bad_format_raises_at_first_use():
    from xdsl.ir import Attribute
    from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def

    before = set(map(id, lazy_formats.pending()))

    @irdl_op_definition
    class BadFormatOp(IRDLOperation):  # defined without an error: its format is not parsed yet
        name = "test_lazy.bad_format"
        x = operand_def(Attribute)
        assembly_format = "$no_such_operand attr-dict"

    BadFormatOp.get_irdl_definition()  # its definition (made on first use: tileorch.dialects.lazy_ops), not its format
    try:
        (program,) = [p for p in lazy_formats.pending() if id(p) not in before]
        assert program.op_def.name == "test_lazy.bad_format" and not program.parsed
        with pytest.raises(PyRDLOpDefinitionError, match="Error during the parsing of the assembly format"):
            program.print(None, None)
        errors = lazy_formats.materialize_all()
        assert len(errors) == 1 and errors[0].startswith("test_lazy.bad_format: ")
        assert program in lazy_formats.pending()  # still pending: raises again at the next use
    finally:
        lazy_formats._PENDING[:] = [p for p in lazy_formats._PENDING if p.op_def.name != "test_lazy.bad_format"]


def test_text_with_formats_round_trips():
    """Ops printed and parsed through lazily parsed formats read as written (xDSL's custom forms)."""
    import io

    from xdsl.printer import Printer

    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    text = textwrap.dedent("""\
        builtin.module {
          func.func @f(%a: f32, %b: f32) -> f32 {
            %0 = arith.addf %a, %b : f32
            %1 = math.exp %0 : f32
            %2 = llvm.fmul %a, %b : f32
            %3 = arith.mulf %1, %2 : f32
            func.return %3 : f32
          }
        }
        """)
    module = parse_module(make_context(), text, "<test>")
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    assert out.getvalue() + "\n" == text


def test_a_cold_compile_parses_no_format(tmp_path):
    """In a fresh process, compiling a SIMT program defines the ops of arith, llvm, nvvm
    ... (xDSL's math dialect only for a program with a math op: test_lazy_import) with their formats pending and parses none of them (the install comes before the first
    dialect on the compile route: an import that moves ahead of it fails this)."""
    from tests.unit.test_lazy_import import PROGRAM

    src = tmp_path / "expk.mlir"
    src.write_text(PROGRAM)
    code = textwrap.dedent(f"""
        import sys
        import tileorch
        k = tileorch.compile({str(src)!r}, None, cache=False, ptxas=False, isolate=True)
        assert ".entry" in k.ptx
        from tileorch.dialects import lazy_formats
        from tileorch.dialects import lazy_ops
        pending = lazy_formats.pending()
        names = {{p.op_def.name for p in pending}} | {{op.name for op in lazy_ops.pending()}}  # (or not defined yet)
        assert lazy_formats.installed()
        assert {{"arith.addf", "llvm.fadd"}} <= names, sorted(names)[:20]
        assert any(n.startswith("nvvm.") for n in names) and any(n.startswith("nv_tileaa.") for n in names)
        assert all(not p.parsed for p in lazy_formats._PENDING)
        print(len(names))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout.strip()) > 150  # (200 before nvvm's 40 special-register ops were defined on first use)


def test_install_refuses_an_op_definition_it_does_not_mirror(monkeypatch):
    import xdsl.irdl.operations as irdl_ops

    def get_accessors_from_op_def(op_def, custom_verify):  # a stand-in that builds no format program
        return {}

    assert lazy_formats._mirrors_xdsl()
    monkeypatch.setattr(irdl_ops, "get_accessors_from_op_def", get_accessors_from_op_def)
    assert not lazy_formats._mirrors_xdsl()


def test_the_gemm_route_parses_no_format():
    """``tileorch gemm`` and ``tileorch.gemm`` reach xDSL's arith and scf through the tile-program
    frontend (``tileorch.launchers.gemm_host`` -> ``tileorch.driver``; before session 36 through
    ``tileorch.frontend.tile``, which the driver no longer imports) before any module that installed the lazy formats: their 49 formats were parsed eagerly there
    (~10 ms of a cold GEMM compile).  In a fresh process, importing what ``compile_gemm`` imports
    first leaves every arith and scf format pending."""
    code = textwrap.dedent("""
        from tileorch.driver import compile_module  # noqa: F401  (compile_gemm's first import)
        from xdsl.dialects.arith import Arith
        from xdsl.dialects.scf import Scf
        from tileorch.dialects import lazy_formats
        formatted = [op.name for d in (Arith, Scf) for op in d.operations  # (defines those not defined yet)
                     if op.get_irdl_definition().assembly_format is not None]
        names = {p.op_def.name for p in lazy_formats.pending()}
        eager = sorted(set(formatted) - names)
        assert len(formatted) > 40 and not eager, eager
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
