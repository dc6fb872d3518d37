"""TILEORCH_ATTN_KV_AHEAD: a persistent kernel with one Q slot has its producer load each program
instance's first ``min(n, stages - 1)`` K/V tiles before the instance's Q.  The PTX emulator runs
several instances on one CTA (the one Q slot reused each time: the producer's Q wait sits between
its two ring loops): d128 (three stages, two tiles ahead) causal (instances of 1-3 key tiles: all
of a short instance's tiles ahead of its Q) and not, and d256 with 128x64 tiles (two stages, one
ahead), on ragged sequences with NaN-prefilled outputs, against numpy; the output is bit-identical
to the kernel without the switch (the same math, only the load order differs).
``tileorch check`` proves the two rings with the tiles ahead, and finds the deadlock of a kernel
that loads one tile more ahead than its ring has stages to spare."""

from __future__ import annotations

import pytest
from test_chained_emulated import _compile, _lower, emulate_as_base


@pytest.mark.parametrize("cfg,ahead", [((300, 128, 128, 128, False), 2), ((300, 128, 128, 128, True), 2),
                                       ((200, 256, 128, 64, False), 1)])
def test_kv_ahead_emulated(cfg, ahead, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    p = _compile(*cfg)
    assert p.chained["persistent"]["q_slots"] == 1 and p.chained["persistent"]["kv_ahead"] == ahead, p.chained
    assert "kv_ahead" not in base.chained["persistent"]
    assert p.ptx != base.ptx
    emulate_as_base(p, base, cfg)


def test_kv_ahead_remark(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    p = _lower(300, 128, 128, 128, False)
    assert p.chained["persistent"].get("kv_ahead") == 2, p.chained
    assert any("first 2 K/V tile(s) before its Q" in r and "TILEORCH_ATTN_KV_AHEAD" in r for r in p.remarks), p.remarks


def test_kv_ahead_not_applied_says_why(monkeypatch):
    """Asked for on a kernel with one CTA per instance (no next instance): not applied, a remark says why."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    p = _lower(300, 128, 128, 128, False)
    assert "persistent" not in p.chained and p.chained.get("kv_ahead_off") == "not a persistent kernel", p.chained
    assert any("TILEORCH_ATTN_KV_AHEAD not applied: not a persistent kernel" in r for r in p.remarks), p.remarks


def test_kv_ahead_not_with_two_q_slots(monkeypatch):
    """d64 128x128: two Q slots, the next Q waits for no release: not applied, the remark says why."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    p = _lower(300, 64, 128, 128, False)
    assert p.chained["persistent"]["q_slots"] == 2 and "kv_ahead" not in p.chained["persistent"], p.chained
    assert any("TILEORCH_ATTN_KV_AHEAD not applied: 2 Q slots" in r for r in p.remarks), p.remarks


def test_kv_ahead_on_by_default(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_KV_AHEAD", raising=False)
    p = _lower(300, 128, 128, 128, False)
    assert p.chained["persistent"].get("kv_ahead") == 2, p.chained


def test_kv_ahead_off_by_setting(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "0")
    p = _lower(300, 128, 128, 128, False)
    assert "kv_ahead" not in p.chained["persistent"] and "kv_ahead_off" not in p.chained, p.chained


def test_kv_ahead_with_a_slow_tensor_core_emulated(monkeypatch):
    """Each ready ``wgmma.wait_group`` held 400 emulator steps while the other threads run: the
    producer, which now reaches the next instance's ring stages before its Q wait, runs as far
    ahead as the barriers let it; a TMA load into bytes an in-flight WGMMA still reads would be
    reported.  Three instances of three key tiles on one CTA, d128 (two tiles ahead of each Q)."""
    import numpy as np
    from test_chained_emulated import _emulate

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    cfg = (300, 128, 128, 128, False)
    p = _compile(*cfg)
    assert p.chained["persistent"]["kv_ahead"] == 2
    out, ref, errors = _emulate(p, *cfg, wait_delay=400, ctas_persistent=1)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_kv_ahead_causal_snake_two_ctas_emulated(monkeypatch):
    """Causal d128 by default (the snake order over a persistent kernel) with the switch: two CTAs
    share three instances (one CTA runs two, in snake order), every output written once, against
    numpy."""
    import numpy as np
    from test_chained_emulated import _emulate

    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    cfg = (300, 128, 128, 128, True)
    p = _compile(*cfg)
    assert p.chained["persistent"].get("schedule") == "snake" and p.chained["persistent"]["kv_ahead"] == 2, p.chained
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=2)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
