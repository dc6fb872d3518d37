"""Lowering records held as builtin attributes (tileorch.dialects.record_attr): every
JSON-like record comes back from its attribute, also after the module is printed and parsed."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import FloatAttr, ModuleOp, f32
from xdsl.printer import Printer

from tileorch.diagnostics import parse_module
from tileorch.registry import make_context
from tileorch.dialects.record_attr import decode_record, encode_record

keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_$.]{0,7}", fullmatch=True)
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=12)
records = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=12,
)


def _normal(value):
    """``value`` with tuples as lists (what decoding gives back)."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_normal(v) for v in value]
    return value


@settings(deadline=None)
@given(records)
def test_decode_inverts_encode(value):
    back = decode_record(encode_record(value))
    assert back == value
    assert type(back) is type(value)  # a bool stays a bool, an int an int


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(keys, records, max_size=5))
def test_record_survives_printing_and_parsing(record):
    module = ModuleOp([])
    module.attributes["tileorch.record"] = encode_record(record)
    for generic in (False, True):
        out = io.StringIO()
        Printer(stream=out, print_generic_format=generic).print_op(module)
        parsed = parse_module(make_context(), out.getvalue(), "record.mlir")
        assert decode_record(parsed.attributes["tileorch.record"]) == record


def test_a_gemm_record_round_trips():
    from tileorch.kernels.gemm.config import GemmConfig

    record = {**GemmConfig().as_dict(), "args": (0, None, 11), "epilogue_ops": False, "remarks": ["r"]}
    assert decode_record(encode_record(record)) == _normal(record)


@pytest.mark.parametrize("value, message", [
    (1.5, "not float"),
    ({1: 2}, "keys must be identifiers"),
    ({"two words": 2}, "keys must be identifiers"),
    (2**63, "does not fit"),
    ({"a": [object()]}, "not object"),
])
def test_values_a_record_cannot_hold_are_refused(value, message):
    with pytest.raises(TypeError, match=message):
        encode_record(value)


def test_an_attribute_no_record_holds_is_refused():
    with pytest.raises(ValueError, match="not a record attribute"):
        decode_record(FloatAttr(1.0, f32))
