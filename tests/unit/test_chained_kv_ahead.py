"""TILEORCH_ATTN_KV_AHEAD: a persistent kernel's producer loads each program instance's first
``min(n, stages - 1)`` K/V tiles before the instance's Q.  The PTX emulator runs three instances on
one CTA (each Q slot reused; with one slot at d128 the producer's Q wait sits between its two
ring loops), causal (instances of 1-3 key tiles: all of them ahead of Q at d64's four stages) and
not, on ragged 300-row sequences with NaN-prefilled outputs, against numpy; the output is
bit-identical to the kernel without the switch (the same math, only the load order differs).
``tileorch check`` proves the two rings with the tiles ahead, and finds the deadlock of a kernel
that loads one tile more ahead than its ring has stages to spare."""

from __future__ import annotations

import numpy as np
import pytest
from test_chained_emulated import _compile, _emulate, _lower


@pytest.mark.parametrize("cfg,slots,ahead", [((300, 128, 128, 128, False), 1, 2),
                                             ((300, 64, 128, 128, True), 2, 3)])
def test_kv_ahead_emulated(cfg, slots, ahead, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "0")
    base = _compile(*cfg)
    monkeypatch.setenv("TILEORCH_ATTN_KV_AHEAD", "1")
    p = _compile(*cfg)
    assert p.chained["persistent"]["q_slots"] == slots and p.chained["persistent"]["kv_ahead"] == ahead, p.chained
    assert "kv_ahead" not in base.chained["persistent"]
    assert p.ptx != base.ptx
    out, ref, errors = _emulate(p, *cfg, ctas_persistent=1)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    want, _, errors = _emulate(base, *cfg, ctas_persistent=1)
    assert not errors, errors[:4]
    assert np.array_equal(out.view(np.uint16), want.view(np.uint16))


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


def test_kv_ahead_off_by_default(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_KV_AHEAD", raising=False)
    p = _lower(300, 128, 128, 128, False)
    assert "kv_ahead" not in p.chained["persistent"] and "kv_ahead_off" not in p.chained, p.chained
