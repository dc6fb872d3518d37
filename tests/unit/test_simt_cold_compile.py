"""Issue 22, the cold compile of memory-bound (SIMT) programs: the SIMT lowering tells float types apart by class,
not by printing them (``str(t)`` runs xDSL's printer, ~20 us each: a softmax's lowering printed 138 types, one per
converted or shuffled element)."""

from __future__ import annotations

from pathlib import Path

from xdsl.dialects import builtin

from tileorch.transforms.tileaa_to_simt.emit import FLOAT_BITS

SOFTMAX = Path(__file__).parent / "cutile_bytecode" / "softmax.tileirbc"
PRINTED_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
"""The widths the lowering read from the printed names before (``_fwidth``, ``Emitter.shuffle``)."""


def test_float_bits_by_class_agree_with_the_printed_names_for_every_float_type():
    """Every xDSL float type (and i32, which is no float): the width by class is the one its printed name gave."""
    types = [builtin.f16, builtin.bf16, builtin.f32, builtin.f64, builtin.f80, builtin.f128, builtin.Float8E4M3FNType(),
             builtin.Float8E5M2Type(), builtin.FloatTF32Type(), builtin.Float8E8M0FNUType(), builtin.i32]
    for t in types:
        assert FLOAT_BITS.get(type(t)) == PRINTED_BITS.get(str(t)), t


def test_lowering_a_softmax_prints_no_type_per_element(monkeypatch):
    """cuTile's softmax (f16 rows converted to f32, warp-shuffle reductions): its tile program's lowering prints at
    most the two layout remarks' types, not one type per element."""
    import xdsl.ir.core as core

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    printed: list[str] = []
    original = core.Attribute.__str__

    def counting(self):
        text = original(self)
        printed.append(text)
        return text

    ctx = make_context()
    module = load(SOFTMAX.read_bytes(), str(SOFTMAX), ctx)
    monkeypatch.setattr(core.Attribute, "__str__", counting)
    kind, _ = lower_program(module, ctx, "sm_90a", remarks=[])
    assert kind == "simt"
    assert len(printed) <= 4, printed[:20]
