"""Our custom op parsers use xDSL's non-deprecated operand API: parsing the payload and tcgen05
ops (every custom syntax that takes untyped operands) emits no DeprecationWarning (the test
suite printed ~2,300 of them from ``Parser.parse_operand()`` without a type), and an operand
used before its definition is still a located parse error."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from xdsl.utils.exceptions import ParseError

from tileorch.backend.compile import print_module
from tileorch.diagnostics import parse_module
from tileorch.registry import make_context

FILECHECK = Path(__file__).resolve().parents[1] / "filecheck"
CUSTOM_SYNTAX = [
    FILECHECK / "payload" / "roundtrip.mlir",  # TMA, prefetch, wgmma, stmatrix
    FILECHECK / "blackwell" / "tcgen05_roundtrip.mlir",  # tcgen05 alloc/commit/shift/cp/ld/st/mma
    FILECHECK / "nvvm" / "roundtrip.mlir",
]


def _parse_without_deprecations(text: str, name: str):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = parse_module(make_context(), text, name)
    deprecated = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught if issubclass(w.category, DeprecationWarning)]
    assert deprecated == []
    return module


@pytest.mark.parametrize("path", CUSTOM_SYNTAX, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_custom_parsers_emit_no_deprecation_warning(path):
    module = _parse_without_deprecations(path.read_text(), str(path))
    printed = print_module(module)
    again = _parse_without_deprecations(printed, "<printed>")  # and the printed custom form parses back
    assert print_module(again) == printed


def test_untyped_operand_used_before_definition_is_a_parse_error():
    text = """llvm.func @f(%t: !llvm.ptr) {
  nvvm.prefetch tensormap, %undefined : !llvm.ptr
  llvm.return
}
"""
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with pytest.raises(ParseError, match="SSA value used before assignment"):
            parse_module(make_context(), text, "x.mlir")
