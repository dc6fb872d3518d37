"""TILEORCH_ATTN_EARLY_Q: a persistent kernel's pipelined consumer releases its instance's Q slot
right after the consumer loop, before the last tile's second dot.  The PTX emulator reports a Q
load that lands in bytes an in-flight WGMMA still reads and any access to in-flight WGMMA
registers; three program instances on one CTA make the producer reuse each Q slot (one slot at
d128, two at d64), so an early release that were too early would be seen.  The output is checked
against the fp32 reference and is bit-identical to the kernel without the switch (the same math)."""

from __future__ import annotations

import pytest
from test_chained_emulated import _compile, _lower, emulate_as_base


@pytest.mark.parametrize("cfg,slots", [((300, 64, 128, 128, False), 2), ((300, 128, 128, 128, False), 1)])
def test_early_q_release_emulated(cfg, slots, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "0")  # the early release alone (test_chained_kv_ahead: both)
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_Q", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_Q", "1")
    p = _compile(*cfg)
    assert p.chained["persistent"] == {"q_slots": slots, "early_q": True}, p.chained
    assert any("releases its Q slot right after the consumer loop" in r for r in p.remarks), p.remarks
    emulate_as_base(p, base, cfg)


def test_early_q_not_with_next_s(monkeypatch):
    """The next-S tail releases Q itself: the switch is not applied there."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_Q", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", "1")
    p = _lower(300, 64, 128, 128, False)
    assert "early_q" not in p.chained["persistent"] and p.chained["persistent"]["next_s"] == "after_last"


def test_early_q_not_applied_says_why(monkeypatch):
    """Asked for but not applied (the next-S tail releases Q itself): a remark names the reason."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_EARLY_Q", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", "1")
    p = _lower(300, 64, 128, 128, False)
    assert p.chained.get("early_q_off") == "TILEORCH_ATTN_NEXT_S releases Q itself", p.chained
    assert any("TILEORCH_ATTN_EARLY_Q not applied: TILEORCH_ATTN_NEXT_S releases Q itself" in r
               for r in p.remarks), p.remarks


@pytest.mark.parametrize("d,slots,applied", [(64, 2, False), (128, 1, True)])
def test_early_q_default_by_q_slots(d, slots, applied, monkeypatch):
    """Unset, the early release is applied where the persistent kernel has one Q slot (d128) and not
    where it has two (d64); the record and the remark say which."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_EARLY_Q", raising=False)
    monkeypatch.delenv("TILEORCH_ATTN_NEXT_S", raising=False)
    p = _lower(300, d, 128, 128, False)
    assert p.chained["persistent"]["q_slots"] == slots, p.chained
    assert p.chained["persistent"].get("early_q", False) is applied, p.chained
    assert any("releases its Q slot right after the consumer loop" in r for r in p.remarks) is applied, p.remarks
    assert "early_q_off" not in p.chained  # not asked for: nothing to explain
