"""Every example verifies and prints to the same text from its custom and its generic form."""

import io
from pathlib import Path

import pytest
from xdsl.printer import Printer

from tileorch.diagnostics import parse_module, verify_located
from tileorch.registry import make_context

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.mlir"))


def _print(module, generic: bool) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_round_trips(path):
    module = parse_module(make_context(), path.read_text(), str(path))
    assert verify_located(module) == []
    custom = _print(module, generic=False)
    from_custom = _print(parse_module(make_context(), custom, "custom.mlir"), generic=False)
    from_generic = _print(parse_module(make_context(), _print(module, generic=True), "generic.mlir"),
                          generic=False)
    assert from_custom == custom
    assert from_generic == custom


def test_there_are_examples():
    assert len(EXAMPLES) >= 5
