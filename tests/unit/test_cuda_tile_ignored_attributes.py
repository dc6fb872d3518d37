"""A discardable attribute on a ``cuda_tile`` op (``{bogus = 3 : i32}``: none of the op's
properties) is dropped by the lowering: the compile says so, a located warning at the op's line
(``transforms/cudatile_to_tileaa/ignored_attributes.py``), never silently; properties and
tileorch's own ``tileorch.*`` attributes give none."""

from __future__ import annotations

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.transforms.cudatile_to_tileaa.ignored_attributes import ignored_attribute_warnings

PROGRAM = """cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %a = constant <f32: 1.0> : tile<16xf32>
    %b = addf %a, %a {bogus = 3 : i32, tileorch.mine = 1 : i32} : tile<16xf32>
    %c = mulf %b, %b : tile<16xf32>
  }
}
"""


def test_an_attribute_nothing_reads_is_a_located_warning():
    warnings = ignored_attribute_warnings(parse_module(make_context(), PROGRAM, "attrs.mlir"))
    assert warnings == ["attrs.mlir:4:5: warning: attribute 'bogus' of 'cuda_tile.addf' is not a property of the op: "
                        "tileorch ignores it (cuda_tile ops read only their properties, <{...}>)"]


def test_the_compile_reports_it_and_still_compiles(tmp_path):
    import tileorch

    path = tmp_path / "attrs.mlir"
    path.write_text(PROGRAM)
    kernel = tileorch.compile(str(path), None, cache=False, ptxas=False)
    assert [r for r in kernel.remarks if "warning: attribute 'bogus'" in r] == [
        f"{path}:4:5: warning: attribute 'bogus' of 'cuda_tile.addf' is not a property of the op: tileorch ignores it "
        "(cuda_tile ops read only their properties, <{...}>)"]
    assert ".entry k(" in kernel.ptx


def test_no_warning_without_such_attributes():
    text = PROGRAM.replace(" {bogus = 3 : i32, tileorch.mine = 1 : i32}", "")
    assert ignored_attribute_warnings(parse_module(make_context(), text, "attrs.mlir")) == []
