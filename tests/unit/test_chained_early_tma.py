"""TILEORCH_ATTN_EARLY_TMA: thread 0 issues the first program instance's Q tile and its first
``min(n, stages)`` K/V tiles right after it initialised the mbarriers, before the CTA barrier; the
producer's first instance skips them.  The PTX emulator runs the kernel with the switch against
numpy (NaN-prefilled outputs) and bit-identical to the kernel without it (the same loads, issued
earlier by another thread): the persistent kernel with two Q slots (d64), with one Q slot and the
K/V tiles ahead of each Q (d128, causal: instances of 1-3 key tiles), an instance with more tiles
than the ring has stages (d64, seq 600: five tiles, four stages), several instances per CTA, the
kernel of one CTA per instance and row groups (d64 128x64: the producer's units of four 64-row slices).  A CI-sized subset; the rest with TILEORCH_EMULATE_ALL=1."""

from __future__ import annotations

import os

import pytest
from test_chained_emulated import _compile, _lower, emulate_as_base

ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))
CASES = [((300, 64, 128, 128, False), "1", 2, True),      # two Q slots, CTA 0 runs instances 0 and 2
         ((300, 128, 128, 128, True), "1", 2, True),      # one Q slot, kv_ahead 2, causal snake order
         ((600, 64, 128, 128, False), "1", 2, ALL),       # five tiles > four stages: the producer loads from 4
         ((300, 128, 128, 128, False), "1", 1, ALL),      # three instances on one CTA, kv_ahead
         ((300, 64, 128, 128, False), "0", 1, ALL),       # one CTA per instance
         ((600, 64, 128, 64, False), "1", 2, ALL)]        # row groups (the default here): units of 4 slices


@pytest.mark.parametrize("cfg,persistent,ctas,run", CASES)
def test_early_tma_emulated(cfg, persistent, ctas, run, monkeypatch):
    if not run:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 runs it")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_TMA", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_TMA", "1")
    p = _compile(*cfg)
    assert p.chained.get("early_tma") == p.chained["stages"] and "early_tma" not in base.chained, p.chained
    assert ("persistent" in p.chained) == (persistent == "1")
    assert bool(p.chained.get("persistent", {}).get("row_groups")) == (cfg[3] == 64), p.chained
    assert p.ptx != base.ptx
    emulate_as_base(p, base, cfg, ctas)


def test_early_tma_remark(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_TMA", "1")
    p = _lower(300, 128, 128, 128, False)
    assert p.chained.get("early_tma") == 3, p.chained
    assert any("first 3 K/V tile(s) right after the mbarriers' initialisation" in r and "TILEORCH_ATTN_EARLY_TMA" in r
               for r in p.remarks), p.remarks


def test_early_tma_off_by_default(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_EARLY_TMA", raising=False)
    p = _lower(300, 128, 128, 128, False)
    assert "early_tma" not in p.chained, p.chained


def test_early_tma_with_a_first_tile_of_its_own_is_proved(monkeypatch):
    """A step before the key loop reading arrays of its own (learned sink keys / values: the loop's first K / V tile
    through tensor maps of their own, tier_chained_dots_first_tile.mlir): thread 0's early ring loop makes the same
    per-tile choice as the producer's (one ``scf.if`` per operand in each), and ``tileorch check`` proves the kernel."""
    from pathlib import Path

    from xdsl.parser import Parser

    from tileorch.analysis.extract import extract
    from tileorch.backend.pipeline import parse_pipeline, run_passes
    from tileorch.registry import make_context
    from tileorch.testing.check_memo import check_once as check

    monkeypatch.setenv("TILEORCH_ATTN_EARLY_TMA", "1")
    path = Path(__file__).resolve().parents[1] / "filecheck" / "tileas" / "tier_chained_dots_first_tile.mlir"
    ctx = make_context()
    module = Parser(ctx, path.read_text(), str(path)).parse_module()
    run_passes(ctx, module, parse_pipeline("tileas-tier,convert-nv-tileas-to-cutlass"))
    (fn,) = [o for o in module.walk() if o.name == "func.func" and "nvvm.kernel" in o.attributes]
    (early,) = [o for o in fn.walk() if "tileorch.early_tma" in o.attributes]
    copy = "nvvm.cp.async.bulk.tensor.shared.cluster.global"
    choices = [o for o in fn.walk() if o.name == "scf.if" and sum(x.name == copy for x in o.walk()) == 2]
    assert len(choices) == 4 and sum(early.is_ancestor(o) for o in choices) == 2  # K's and V's, in each
    (proto,) = extract(module)
    result = check(proto)
    assert result.ok, result.violation


def test_early_tma_not_with_gathered_query_rows_says_why_once(monkeypatch):
    """Gathered query rows (``a44_routed_q_d64``: the consumers read Q themselves after the CTA barrier): asked for,
    not applied; the record and one remark say why."""
    pytest.importorskip("cuda.tile")
    from tileorch.driver import compile_program
    from tileorch.testing import attnforms44_programs as m
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ATTN_EARLY_TMA", "1")
    p = m.PROGRAMS["a44_routed_q_d64"]
    prog = compile_program(cutile_bytecode(p.kernel, p.spec), "a44_routed_q_d64", ptxas=False)
    assert prog.kind == "chained" and "early_tma" not in prog.chained, prog.chained
    assert prog.chained.get("early_tma_off", "").startswith("gathered Q rows"), prog.chained
    said = [r for r in prog.remarks if "TILEORCH_ATTN_EARLY_TMA not applied: gathered Q rows" in r]
    assert len(said) == 1, list(prog.remarks)
