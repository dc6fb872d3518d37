"""TILEORCH_ATTN_S_AHEAD: the pipelined consumer issues tile ``j + 1``'s first dot right behind tile
``j - 1``'s second dot, before tile ``j``'s softmax (the loop carries tile j's complete S; the last
iteration issues tile ``n - 1``'s first dot again).  The PTX emulator runs the kernel against the
numpy fp32 reference with NaN-prefilled outputs (it reports any read or write of a register an
in-flight WGMMA owns and any ring stage rewritten under a read), and its outputs must equal the
default kernel's bit for bit (the same dots and softmax, issued in another order); the refusals
say why.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


@pytest.mark.parametrize("mode,cfg,env", [
    ("1", (300, 64, 128, 128, False), {}),  # three instances on two CTAs, three key tiles each, the last ragged
    ("1", (300, 64, 128, 128, True), {}),  # causal: 1, 2 and 3 key tiles (one-tile instances issue tile 0 again)
    ("1", (100, 64, 128, 128, False), {}),  # one key tile: the prologue's tile-1 dot is tile 0's again
    ("1", (300, 64, 128, 128, True), {"TILEORCH_ATTN_LATE_RESCALE": "0"}),  # the plain C
    ("1", (300, 64, 128, 64, False), {"TILEORCH_ATTN_PERSISTENT": "0"}),  # five key tiles, one CTA per instance
    # unrolled by two: 1, 2 and 3 tiles (no pair, the odd one alone, one pair); 4 tiles (a pair and the odd one)
    ("2", (300, 64, 128, 128, True), {}),
    ("2", (400, 64, 128, 128, False), {}),
    ("2", (300, 64, 128, 64, False), {"TILEORCH_ATTN_SKIP_RESCALE": "1"}),
])
def test_s_ahead_emulated(mode, cfg, env, monkeypatch):
    from test_chained_emulated import _compile, emulate_as_base

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", "0")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    base = _compile(*cfg)
    assert "s_ahead" not in base.chained, base.chained
    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", mode)
    p = _compile(*cfg)
    assert p.chained.get("s_ahead") is True and p.chained.get("s_ahead_unrolled", False) == (mode == "2"), p.chained
    assert any("TILEORCH_ATTN_S_AHEAD" in r and "not applied" not in r for r in p.remarks), p.remarks
    emulate_as_base(p, base, cfg, ctas=2)


def test_s_ahead_issues_the_next_first_dot_before_the_softmax(monkeypatch):
    """In the consumer loop the order is: second dot (m64n64k16) of tile j-1, first dot (m64n128k16)
    of tile j+1, both committed, then the softmax's ex2 with no wait_group between; one wait_group 0
    per iteration (no wait_group 1)."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", "1")
    p = _compile(300, 64, 128, 128, False)
    order = []
    for ln in p.ptx.splitlines():
        for key in ("m64n64k16", "m64n128k16", "wgmma.wait_group", "ex2.approx"):
            if key in ln and (not order or order[-1] != key):
                order.append(key)
    first_pv = order.index("m64n64k16")  # the loop's (the peeled tile issues no second dot)
    assert order[first_pv:first_pv + 3] == ["m64n64k16", "m64n128k16", "ex2.approx"], order
    assert "wgmma.wait_group.sync.aligned 1;" not in p.ptx


@pytest.mark.parametrize("cfg,env,why", [
    ((300, 128, 128, 128, False), {}, "registers, over 232"),
    ((300, 64, 128, 128, False), {"TILEORCH_ATTN_STAGES": "2"}, "2 K/V stage(s)"),
    ((300, 64, 128, 128, False), {"TILEORCH_ATTN_PINGPONG": "1", "TILEORCH_ATTN_PERSISTENT": "0"}, "ping-pong"),
    ((300, 64, 128, 128, False), {"TILEORCH_ATTN_OVERLAP": "0"}, "not pipelined"),
    ((300, 64, 128, 128, False), {"TILEORCH_ATTN_NEXT_S": "2", "TILEORCH_ATTN_PERSISTENT": "1"}, "NEXT_S"),
])
def test_s_ahead_refused_with_a_remark(cfg, env, why, monkeypatch):
    from test_chained_emulated import _lower

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", "1")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    r = _lower(*cfg)
    rec = r.chained if hasattr(r, "chained") else r["chained"]
    assert "s_ahead" not in rec and why in rec.get("s_ahead_off", ""), rec


@pytest.mark.parametrize("mode,persistent,stages,instances", [
    ("1", "0", "3", 7), ("1", "0", None, 9), ("1", "1", "3", 21), ("1", "1", None, 27),
    ("2", "0", None, 9), ("2", "1", "3", 21), ("2", "1", None, 27)])
def test_s_ahead_pipelines_are_proved(mode, persistent, stages, instances, monkeypatch):
    """``tileorch check`` reads the S-ahead consumer (tile 0 and tile min(1, n - 1) waited for before
    the loop, tile min(j + 1, n - 1) in iteration j, tile j - 1 released there; unrolled: two
    iterations per trip and the odd last one under an ``scf.if`` after the loop, the same ring ops in
    the same order) and proves the ring for every trip count (1 .. 2S + 1) and 1-3 instances per
    CTA, on three and four stages."""
    from test_check_chained import _lowered

    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", mode)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    if stages:
        monkeypatch.setenv("TILEORCH_ATTN_STAGES", stages)
    (proto,) = extract(_lowered(64, 128, 128))
    wg0 = proto.agents[1].program
    loops = [op for op in (wg0[0].body if persistent == "1" else wg0) if getattr(op, "trip", None) is not None
             and getattr(op.trip, "param", None) == "k"]
    assert [(lp.trip.lower, lp.trip.cap) for lp in loops][:4] == [(0, 1), (1, 1), (2, None), (1, 1)], loops
    result = check(proto)
    assert result.ok, result.violation
    assert len(result.instances) == instances


@pytest.mark.parametrize("mode,next_s", [("1", "0"), ("2", "0"), ("2", "2")])
def test_s_ahead_on_two_stages_deadlocks(mode, next_s, monkeypatch):
    """Tiles j - 1, j and j + 1 are held at once: with the three-stage refusal lifted, a two-stage
    kernel deadlocks and the checker finds it."""
    from test_check_chained import _lowered

    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.transforms.tileas import chained_dots

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", mode)
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1" if next_s != "0" else "0")
    monkeypatch.setenv("TILEORCH_ATTN_STAGES", "2")
    monkeypatch.setattr(chained_dots, "_s_ahead", lambda *a: (True, None))
    (proto,) = extract(_lowered(64, 128, 128))
    result = check(proto)
    assert not result.ok and result.violation.prop == "deadlock", result.violation


@pytest.mark.parametrize("mode,next_s,stages,instances", [("1", "1", None, 27), ("1", "2", "3", 21),
                                                          ("2", "1", "3", 21), ("2", "2", None, 27)])
def test_s_ahead_with_next_s_is_proved(mode, next_s, stages, instances, monkeypatch):
    """With TILEORCH_ATTN_NEXT_S each instance's tile 0 is taken in the previous instance's tail; the
    S-ahead waits (tile min(1, n - 1) after it, tile min(j + 1, n - 1) in the loop) are read the same
    way, and the rings are proved for every trip count and 1-3 instances per CTA.  (The compile
    refuses the pair for its registers; forced here, the protocol is sound.)"""
    from test_check_chained import _lowered

    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.transforms.tileas import chained_dots

    monkeypatch.setattr(chained_dots, "_s_ahead", lambda *a: (True, None))

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", mode)
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    if stages:
        monkeypatch.setenv("TILEORCH_ATTN_STAGES", stages)
    (proto,) = extract(_lowered(64, 128, 128))
    result = check(proto)
    assert result.ok, result.violation
    assert len(result.instances) == instances


@pytest.mark.parametrize("mode", ["1", "2"])
def test_s_ahead_assembles_without_spills(mode, monkeypatch):
    """The compile's ptxas (sm_90a) assembles the d64 128x128 kernel: no spill, no serialized WGMMA
    (the carried S is read while the next first dot writes other registers)."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", mode)
    p = _compile(300, 64, 128, 128, False)
    assert p.chained.get("s_ahead") is True, p.chained
    assert any(r.startswith("remark: ptxas: ") and " 0 spills" in r for r in p.remarks), p.remarks
    assert not [r for r in p.remarks if "C751" in r or "serialized" in r], p.remarks


def test_s_ahead_mlp_chain_emulated(monkeypatch):
    """The other two-dot program, ``relu(X W1) W2`` (300 rows: three 128-row instances, three hidden
    tiles each, on two CTAs), with the unrolled S-ahead loop: against numpy with a NaN-prefilled
    output, no emulator error."""
    from test_chained_narrow import _clean, _mlp, emulate_mlp_against_numpy

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", "2")
    m, d, hidden, dout, tile_m, tile_h = 300, 64, 192, 64, 128, 64
    p = _mlp(m, d, hidden, dout, tile_m, tile_h)
    _clean(p)
    assert p.chained.get("s_ahead_unrolled") is True, p.chained
    emulate_mlp_against_numpy(p, m, d, hidden, dout, tile_m, 5, 2)


@pytest.mark.parametrize("mode", ["1", "2"])
def test_s_ahead_slow_tensor_core_emulated(mode, monkeypatch):
    """A slow tensor core (each ready ``wait_group`` held 400 steps while the producer and the other
    warp group run on): the producer refills a stage only once its release came, so no stage is
    rewritten under the in-flight first dot of tile j + 1 or the second dot of tile j - 1 (the
    emulator's stage guards report any such write); against the fp32 reference, every output
    written.  Four instances of four key tiles each on one CTA (the unrolled loop's pair and odd tile)."""
    import numpy as np
    from test_chained_emulated import _compile, _emulate

    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", mode)
    monkeypatch.setenv("TILEORCH_ATTN_STAGES", "3")
    cfg = (400, 64, 128, 128, False)
    p = _compile(*cfg)
    assert p.chained.get("s_ahead") is True and p.chained["stages"] == 3, p.chained
    out, ref, errors = _emulate(p, *cfg, wait_delay=400, ctas_persistent=1)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
