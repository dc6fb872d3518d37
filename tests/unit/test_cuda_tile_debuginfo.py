"""Debug-info attributes of CUDA Tile IR in MLIR text (``#cuda_tile.di_*``): they parse, an op's
``loc(#di_loc)`` is kept as its location (errors point at the recorded source line), the printed
form with locations parses back, and the scope rules reject mismatched functions and ops."""

import io

import pytest
from xdsl.printer import Printer

from tileorch.diagnostics import format_exception, parse_module, verify_located
from tileorch.dialects.cuda_tile.debuginfo import DISubprogramAttr, scope_of
from tileorch.registry import make_context

HEADER = """
#f = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #f>
#sp = #cuda_tile.di_subprogram<file = #f, line = 3, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 4>
#other = #cuda_tile.di_subprogram<file = #f, line = 9, name = "o", linkageName = "o", compileUnit = #cu>
#blk = #cuda_tile.di_lexical_block<scope = #sp, file = #f, line = 5, column = 2>
#pos = loc("/src/k.py":6:9)
#at_sp = #cuda_tile.di_loc<loc("/src/k.py":3:1) in #sp>
#at_blk = #cuda_tile.di_loc<#pos in #blk>
#at_other = #cuda_tile.di_loc<loc("/src/k.py":10:1) in #other>
"""


def _errors(body: str, unregistered: bool = False) -> list[str]:
    try:
        m = parse_module(make_context(allow_unregistered=unregistered), HEADER + body, "t.mlir")
    except Exception as exc:  # noqa: BLE001 - parse errors are diagnostics too
        return format_exception(exc)
    return verify_located(m)


def _module(fn_loc: str, op_loc: str, name: str = "k") -> str:
    return f"""cuda_tile.module @m {{
  entry @{name}() {{
    %c = constant <i32: 1> : tile<i32> loc({op_loc})
    return
  }} loc({fn_loc})
}}"""


def test_valid_scopes_are_kept_as_locations():
    m = parse_module(make_context(), HEADER + _module("#at_sp", "#at_blk"), "t.mlir")
    assert verify_located(m) == []
    entry = m.body.block.first_op.body.block.first_op
    const = entry.body.block.first_op
    assert isinstance(scope_of(entry.location), DISubprogramAttr)
    assert scope_of(const.location).line.data == 5  # the lexical block
    s = io.StringIO()
    Printer(stream=s, print_debuginfo=True).print_op(m)
    again = parse_module(make_context(), s.getvalue(), "printed.mlir")
    assert verify_located(again) == []
    s2 = io.StringIO()
    Printer(stream=s2, print_debuginfo=True).print_op(again)
    assert s2.getvalue().replace("printed.mlir", "t.mlir") == s.getvalue()


def test_errors_point_at_the_recorded_source_line():
    """A verifier error names the position the debug info records (the function's here); a
    parse error stays at the text position."""
    errs = _errors(_module("#at_sp", "#at_blk", name="renamed"))
    assert errs and errs[0].startswith("/src/k.py:3:1: error:"), errs
    errs = _errors(_module("#at_sp", "#at_blk").replace("tile<i32> loc", "tile<i64> loc"))
    assert errs and errs[0].startswith("t.mlir:13:"), errs


@pytest.mark.parametrize("fn_loc,op_loc,name,words", [
    ("#at_blk", "#at_blk", "k", "Function location must have cuda_tile.di_subprogram debug info scope"),
    ("#at_sp", "#at_sp", "other", 'Function name "other" does not match subprogram scope linkage name "k"'),
    ("unknown", "#at_blk", "k", "Operation has debug info scope, but function debug info scope is undefined"),
    ("#at_sp", "#at_other", "k", "Operation debug info scope does not match function debug info scope"),
    ("fused[#pos, #at_other]", "callsite(#pos at #at_blk)", "o",
     "Operation debug info scope does not match function debug info scope"),
    ("unknown", '"name"(#at_sp)', "k", "function debug info scope is undefined"),
])
def test_scope_rules(fn_loc, op_loc, name, words):
    errs = _errors(_module(fn_loc, op_loc, name))
    assert len(errs) == 1 and words in errs[0], errs
    assert ": error: invalid " in errs[0] and not errs[0].startswith("<unknown>")


def test_ops_outside_functions_have_no_scope():
    errs = _errors('cuda_tile.module @m {\n  "some.op"() : () -> () loc(#at_sp)\n}', unregistered=True)
    assert len(errs) == 1 and "Global variables must not have scope" in errs[0], errs


@pytest.mark.parametrize("attr,words", [
    ("#cuda_tile.di_compile_unit<>", "expected a parameter name in struct"),
    ('#cuda_tile.di_subprogram<file = #f, line = 1, linkageName = "x", compileUnit = #cu>',
     "struct is missing required parameter: name"),
    ("#cuda_tile.di_compile_unit<file = #f, file = #f>", "duplicate parameter 'file'"),
    ("#cuda_tile.di_lexical_block<scope = #f, file = #f, line = 1, column = 1>", "expected #cuda_tile.di_subprogram"),
    ("#cuda_tile.di_loc<loc(unknown) in #sp>", "di_loc needs a file:line:col location"),
    ("#cuda_tile.di_loc<#pos in #f>", "di_loc scope must be a di_subprogram or a di_lexical_block"),
    ('#cuda_tile.di_subprogram<file = #f, line = 4294967296, name = "x", linkageName = "x", compileUnit = #cu>',
     "expected a line or column number"),
])
def test_malformed_attributes_are_located(attr, words):
    errs = _errors(f"#bad = {attr}\n")
    assert len(errs) == 1 and words in errs[0] and errs[0].startswith("t.mlir:"), errs


def test_location_aliases_may_follow_their_use():
    """MLIR prints ``loc(#loc5)`` in ops and the ``#loc5 = ...`` definitions after the module."""
    text = """cuda_tile.module @m {
  entry @k() {
    return loc(#l2)
  } loc(#l1)
} loc(#l0)
#fl = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #fl>
#sp = #cuda_tile.di_subprogram<file = #fl, line = 3, name = "k", linkageName = "k", compileUnit = #cu>
#l0 = loc(unknown)
#p = loc("/src/k.py":4:5)
#l1 = #cuda_tile.di_loc<loc("/src/k.py":3:1) in #sp>
#l2 = #cuda_tile.di_loc<#p in #sp>
"""
    m = parse_module(make_context(), text, "t.mlir")
    assert verify_located(m) == []
    entry = m.body.block.first_op.body.block.first_op
    assert isinstance(scope_of(entry.location), DISubprogramAttr)
    assert scope_of(entry.body.block.first_op.location) == scope_of(entry.location)
    with pytest.raises(Exception) as err:
        parse_module(make_context(), text.replace("return loc(#l2)", "return loc(#nowhere)"), "t.mlir")
    assert format_exception(err.value) == ["t.mlir:3:16: error: undefined location alias '#nowhere'"]


@pytest.mark.parametrize("args,error", [
    ("%t: !cuda_tile.token, %v: !cuda_tile.tensor_view<64xf32, strides=[1]>", None),
    ("%a: !cuda_tile.tile<4xf32>", "entry op arguments must be scalar tiles (rank 0 tile), got tile<4xf32>"),
    ("%a: tensor<2xi16>", "entry op arguments must be CUDA Tile IR types, got tensor<2xi16>"),
])
def test_entry_arguments(args, error):
    """The open repository's rule: tile arguments are scalars; tokens and views are allowed."""
    errs = _errors(f"cuda_tile.module @m {{\n  entry @k({args}) {{\n    return\n  }}\n}}")
    assert (errs == []) if error is None else (len(errs) == 1 and error in errs[0]), errs


@pytest.mark.parametrize("text", ["", "\n", "// RUN: cuda-tile-opt %s\n\n", "// only a comment\n  // and another"])
def test_input_of_only_comments_is_an_empty_module(text):
    """MLIR reads an empty input (a ``// -----`` chunk holding only comments) as an empty module."""
    m = parse_module(make_context(), text, "t.mlir")
    assert list(m.body.block.ops) == [] and verify_located(m) == []


def test_a_lexical_block_built_in_a_file_scope():
    """The attribute's rule guards the Python constructors (the parser checks the scope's kind while
    parsing, the bytecode reader while decoding)."""
    from xdsl.dialects.builtin import IntAttr, StringAttr
    from xdsl.utils.exceptions import VerifyException

    from tileorch.dialects.cuda_tile.debuginfo import DIFileAttr, DILexicalBlockAttr

    f = DIFileAttr(StringAttr("a.py"), StringAttr("/src"))
    with pytest.raises(VerifyException, match="di_lexical_block scope must be a di_subprogram or a di_lexical_block"):
        DILexicalBlockAttr(f, f, IntAttr(1), IntAttr(1))
