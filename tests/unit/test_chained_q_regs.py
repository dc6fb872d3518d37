"""TILEORCH_ATTN_Q_REGS: the chained kernel's first dot reads its A (attention's Q) from registers
(q_registers.py): each consumer thread loads its m64k16 A-fragment words of the instance's Q tile once,
after the Q wait (a persistent kernel releases the Q slot right there), and every key tile's
``wgmma.mma_async`` takes A from them.  Same products in the same order: the PTX emulator runs it
bit-identical to the descriptor form and within tolerance of numpy (NaN-prefilled outputs, ragged
sequences, d64/d128, causal and not, several instances per CTA through both Q slots, one CTA per
instance); ptxas assembles it without spills; ``tileorch check`` proves the moved Q release and finds a
broken one."""

from __future__ import annotations

import pytest
from test_chained_emulated import _compile, _lower, emulate_as_base

Q_REGS = "TILEORCH_ATTN_Q_REGS"


@pytest.mark.parametrize("cfg,persistent,ctas", [
    ((300, 64, 128, 128, False), "1", 1),   # three instances on one CTA: slots 0, 1, 0
    ((300, 64, 128, 128, True), "1", 2),    # causal, heaviest first, on two CTAs
    ((300, 128, 128, 128, False), "1", 1),  # d128: one Q slot, K/V ahead of Q, 32 fragment registers
    ((77, 64, 128, 64, False), "0", 1),     # one CTA per instance, a ragged 77-key sequence
    ((200, 128, 64, 64, True), "1", 2),     # one consumer warp group (64-row tiles), causal, d128
])
def test_q_regs_emulated(cfg, persistent, ctas, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    monkeypatch.setenv(Q_REGS, "0")
    base = _compile(*cfg)
    monkeypatch.setenv(Q_REGS, "1")
    p = _compile(*cfg)
    assert p.chained["q_regs"] == cfg[1] // 4 and "q_regs" not in base.chained, p.chained
    assert p.ptx.count("ld.shared.b32") - base.ptx.count("ld.shared.b32") >= cfg[1] // 4
    emulate_as_base(p, base, cfg, ctas)


def test_q_regs_with_pingpong_kernel_emulated(monkeypatch):
    """Beside FA3's turns handed on across the persistent kernel's instances (TILEORCH_ATTN_PINGPONG=kernel),
    bit-identical to the ping-pong kernel without it; ``tileorch check`` proves the pair."""
    from tileorch.analysis.explore import check

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    cfg = (300, 64, 128, 128, False)
    monkeypatch.setenv(Q_REGS, "0")
    base = _compile(*cfg)
    monkeypatch.setenv(Q_REGS, "1")
    p = _compile(*cfg)
    assert p.chained["persistent"].get("pingpong") and p.chained["q_regs"] == 16, p.chained
    emulate_as_base(p, base, cfg)
    _, proto = _protocol(monkeypatch, "1", 64)
    result = check(proto)
    assert result.ok, result.violation


def test_q_regs_with_unrolled_s_ahead_emulated(monkeypatch):
    """Beside the S-ahead loop unrolled by two (TILEORCH_ATTN_S_AHEAD=2: no spill with the fragment) it
    applies, bit-identical to that loop without it."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_S_AHEAD", "2")
    cfg = (300, 64, 128, 64, False)  # five key tiles: the unrolled loop's odd last tile
    monkeypatch.setenv(Q_REGS, "0")
    base = _compile(*cfg)
    monkeypatch.setenv(Q_REGS, "1")
    p = _compile(*cfg)
    assert p.chained.get("s_ahead_unrolled") and p.chained["q_regs"] == 16, p.chained
    emulate_as_base(p, base, cfg)


@pytest.mark.parametrize("d", [64, 128])
def test_q_regs_no_spills(d, monkeypatch, tmp_path):
    """ptxas sm_90a assembles the 1k persistent kernel without spills or serialized WGMMAs."""
    import shutil
    import subprocess

    if shutil.which("ptxas") is None:
        pytest.skip("needs ptxas")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(Q_REGS, "1")
    p = _compile(1024, d, 128, 128, False)
    assert p.chained["q_regs"] == d // 4
    (tmp_path / "k.ptx").write_text(p.ptx)
    info = subprocess.run(["ptxas", "-arch=sm_90a", "-v", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True, check=True).stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in info and "wgmma" not in info.lower(), info


def test_q_regs_remark(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(Q_REGS, "1")
    p = _lower(300, 64, 128, 128, False)
    assert any("16 A-fragment registers" in r and Q_REGS in r for r in p.remarks), p.remarks


def test_q_regs_off_by_default(monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv(Q_REGS, raising=False)
    p = _lower(300, 64, 128, 128, False)
    assert "q_regs" not in p.chained and "q_regs_off" not in p.chained, p.chained


@pytest.mark.parametrize("env,cfg,why", [
    ({"TILEORCH_ATTN_NEXT_S": "1"}, (300, 64, 128, 128, False), "TILEORCH_ATTN_NEXT_S waits for the next instance"),
    ({}, (300, 64, 256, 64, False), "exceed the consumer's 112"),  # four consumer warp groups
    ({"TILEORCH_ATTN_S_AHEAD": "1"}, (300, 64, 128, 128, False), "TILEORCH_ATTN_S_AHEAD=1 keeps two S tiles"),
])
def test_q_regs_refused_says_why(env, cfg, why, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(Q_REGS, "1")
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    p = _lower(*cfg)
    assert "q_regs" not in p.chained and why in p.chained.get("q_regs_off", ""), p.chained
    assert any(f"{Q_REGS} not applied: " in r and why in r for r in p.remarks), p.remarks


def _protocol(monkeypatch, q_regs: str, d: int):
    from test_check_chained import _lowered

    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv(Q_REGS, q_regs)
    module = _lowered(d, 128, 128)
    (proto,) = extract(module)
    return module, proto


@pytest.mark.parametrize("d,stages,slots", [(64, 4, 2), (128, 3, 1)])
def test_q_regs_pipelines_are_proved(d, stages, slots, monkeypatch):
    """``tileorch check`` proves the K/V ring (the kernel's stages) and the Q slots with each consumer warp
    group releasing its Q slot right after reading it, before the instance's first K/V wait (read from the
    kernel: the default kernel releases it after its loop), for 1-3 instances and every trip count."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.protocol import ConsumerRelease, ConsumerWait, Loop

    _, proto = _protocol(monkeypatch, "1", d)
    kv, q = proto.pipelines
    assert (kv.stages, q.stages) == (stages, slots)

    def flat(ops):
        for op in ops:
            yield from flat(op.body) if isinstance(op, Loop) else (op,)

    order = [(type(op).__name__, op.pipe) for op in flat(proto.agents[1].program)
             if isinstance(op, (ConsumerWait, ConsumerRelease))]
    assert order[:3] == [("ConsumerWait", "q"), ("ConsumerRelease", "q"), ("ConsumerWait", "kv")], order
    _, base = _protocol(monkeypatch, "0", d)
    base_order = [(type(op).__name__, op.pipe) for op in flat(base.agents[1].program)
                  if isinstance(op, (ConsumerWait, ConsumerRelease))]
    assert base_order[1] == ("ConsumerWait", "kv"), base_order
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 2 * stages + 2)
                                                                      for m in (1, 2, 3)]


def test_q_regs_broken_q_release_is_caught(monkeypatch):
    """The Q slots' empty barriers initialised for one warp group (128 arrivals) while both release right
    after their fragment loads: ``tileorch check`` finds the over-arrival (a slot refilled while the other
    group may still be reading it)."""
    from test_check_chained import _ring_inits, _set_constant

    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    module, _ = _protocol(monkeypatch, "1", 64)
    q_empty = [op for op in _ring_inits(module, 256) if (op.operands[0].name_hint or "").startswith("qebar")]
    assert len(q_empty) == 2
    for op in q_empty:
        _set_constant(op, 1, 128)
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and "q.empty" in str(result.violation), result.violation


def test_q_regs_swiglu_mlp_chain_emulated(monkeypatch):
    """The same passes on a GEMM-then-GEMM chain: SwiGLU's two first dots read one x tile (head dim 128:
    two 64-column boxes, 32 fragment registers), 200 rows over two 128-row tiles (the last one's rows
    zero-filled by TMA), against float64 numpy."""
    import numpy as np
    from test_chained_first_dots import _compiled
    from test_user_sweep3_emulated import RNG, _chained, _check, _h, _swiglu_ref

    monkeypatch.setenv(Q_REGS, "1")
    rec = _compiled("mlp_swiglu_wt").chained
    assert rec["q_regs"] == 32 and rec.get("first_dots") == 2, rec
    x = _h(200, 128)
    w1t, w3t = ((RNG.standard_normal((192, 128)) / 11).astype(np.float16) for _ in range(2))
    w2 = (RNG.standard_normal((192, 64)) / 14).astype(np.float16)
    out = _chained("mlp_swiglu_wt", {0: x, 1: w1t, 2: w3t, 3: w2}, (2, 1, 1))[4]
    _check(out, _swiglu_ref(x, w1t.T, w3t.T, w2), atol=1e-2)
