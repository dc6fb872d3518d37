"""The chained-dots kernel is built op by op (``chained_dots._Kernel``), not written as MLIR text and
parsed back (issue 19): lowering a loaded attention program parses nothing, in each of the
consumer's shapes (plain, ping-pong, intra-warp-group overlap); the built kernel verifies, and its
printed form parses back to a module that prints the same.  Skipped without
cuda-tile (the programs come from cuTile)."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

SWITCHES = {"plain": {"TILEORCH_ATTN_OVERLAP": "0"}, "pingpong": {"TILEORCH_ATTN_PINGPONG": "1", "TILEORCH_ATTN_OVERLAP": "0"}, "overlap": {"TILEORCH_ATTN_OVERLAP": "1"}}


def _loaded(d: int = 64):
    from test_chained_dots import _arrays

    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context
    from tileorch.testing.attention_programs import attention_fwd

    args = _arrays(4, (4, 1000, d)) + (0.18, 1000, 128, 64, d, True)
    ctx = make_context()
    return ctx, load(rc.export_bytecode(attention_fwd, rc.describe_arguments(attention_fwd, args)), "<attn>", ctx)


@pytest.mark.parametrize("switch", sorted(SWITCHES))
def test_lowering_parses_no_text(switch, monkeypatch):
    from xdsl.parser import Parser

    from tileorch.dialects.record_attr import decode_record
    from tileorch.driver import lower_program
    from tileorch.transforms.tileas.chained_dots import CHAINED_ATTR

    for name in ("TILEORCH_ATTN_PINGPONG", "TILEORCH_ATTN_OVERLAP"):
        monkeypatch.delenv(name, raising=False)
    for name, value in SWITCHES[switch].items():
        monkeypatch.setenv(name, value)
    ctx, module = _loaded()

    def refuse(*_args, **_kwargs):
        raise AssertionError("the chained-dots lowering parsed text")

    monkeypatch.setattr(Parser, "__init__", refuse)
    remarks: list[str] = []
    kind, lowered = lower_program(module, ctx, remarks=remarks)
    assert kind == "chained", remarks
    (fn,) = [op for op in lowered.walk() if CHAINED_ATTR in op.attributes]
    record = decode_record(fn.attributes[CHAINED_ATTR])
    assert (record["pingpong"], record["pipelined"]) == (switch == "pingpong", switch == "overlap")


@pytest.mark.parametrize("switch", sorted(SWITCHES))
def test_built_kernel_prints_and_parses_back(switch, monkeypatch):
    from tileorch.diagnostics import parse_module
    from tileorch.driver import lower_program
    from tileorch.registry import make_context

    for name in ("TILEORCH_ATTN_PINGPONG", "TILEORCH_ATTN_OVERLAP"):
        monkeypatch.delenv(name, raising=False)
    for name, value in SWITCHES[switch].items():
        monkeypatch.setenv(name, value)
    ctx, module = _loaded(32)
    kind, lowered = lower_program(module, ctx)
    assert kind == "chained"
    lowered.verify()
    text = str(lowered)
    parsed = parse_module(make_context(), text, "chained.mlir")
    parsed.verify()
    assert str(parsed) == text
