"""Session 17's chained-kernel switches (default off until the H200 measures them):

* ``TILEORCH_ATTN_SKIP_RESCALE=1``: the pipelined loop's second-dot C ``acc * alpha`` skips its
  multiplies where every ``alpha`` of the warp is exactly 1 (one ``vote.sync.all`` per tile and
  a warp-uniform branch).  Exact: the emulated outputs are bit-identical with and without it, on
  inputs where the later key tiles take the skip (the row maxima all in key tile 0) and on random
  ones;
* ``TILEORCH_ATTN_STAGES=N``: the K/V ring takes at most ``N`` stages; a persistent d128 kernel
  then has room for two Q slots (``tileorch check`` proves both rings).

Needs cuda-tile (the programs are compiled from cuTile)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

CFG = (300, 64, 128, 128, False)  # three 128-row instances, three key tiles each (the last ragged)


@pytest.fixture(autouse=True)
def _late_rescale_off(monkeypatch):
    """Each test starts from the kernel without the late rescale (on by default): the tests of the
    other switches count their instructions in its loop; the late-rescale tests set it on."""
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "0")


def _stable_max(q, k, v):
    """Every query's largest score in key tile 0: a shared direction added to the queries and to
    the first 128 keys, so later tiles leave each row's max (and so ``alpha = 1``) unchanged."""
    u = np.zeros(q.shape[-1], np.float32)
    u[0] = 6.0
    q[...] = (q.astype(np.float32) * 0.25 + u).astype(np.float16)
    k[:, :128] = (k[:, :128].astype(np.float32) * 0.25 + u).astype(np.float16)
    k[:, 128:] = (k[:, 128:].astype(np.float32) * 0.25).astype(np.float16)


def test_skip_rescale_ptx(monkeypatch):
    """The switch adds one vote over the two rows' factors per pipelined tile; off, no vote."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    off = _compile(*CFG)
    assert "vote.sync" not in off.ptx
    monkeypatch.setenv("TILEORCH_ATTN_SKIP_RESCALE", "1")
    on = _compile(*CFG)
    votes = [ln for ln in on.ptx.splitlines() if "vote.sync.all.pred" in ln]
    assert len(votes) == 1, votes  # the loop's tiles (the peeled tile 0 has no accumulator to rescale)
    assert votes[0].count("setp.eq.f32") == 2, votes[0]  # one factor per row of the thread


def _count_votes(monkeypatch) -> dict:
    """{vote result: threads}, counted over every ``vote.sync`` the emulator runs from now on."""
    from tileorch.testing import ptx_emulator as pe

    counts: dict = {}
    step = pe.Emu.step

    def counting(self, pc, T):
        _, op, ops = self.parsed[pc]
        done = step(self, pc, T)
        if op.startswith("vote") and done is not False:
            for x in self.regs[ops[0]][T].astype(bool):
                counts[bool(x)] = counts.get(bool(x), 0) + 1
        return done

    monkeypatch.setattr(pe.Emu, "step", counting)
    return counts


@pytest.mark.parametrize("stable", [True, False])
def test_skip_rescale_is_exact_emulated(stable, monkeypatch):
    from test_chained_emulated import _compile, _emulate

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    adjust = _stable_max if stable else None
    base = _compile(*CFG)
    want, ref, errors = _emulate(base, *CFG, ctas_persistent=2, adjust=adjust)
    assert not errors, errors[:4]
    monkeypatch.setenv("TILEORCH_ATTN_SKIP_RESCALE", "1")
    p = _compile(*CFG)
    votes = _count_votes(monkeypatch)
    out, _, errors = _emulate(p, *CFG, ctas_persistent=2, adjust=adjust)
    # stable: every thread of the two loop tiles of the three instances skips; random: some warps do
    assert votes == ({True: 3 * 2 * 256} if stable else votes) and (stable or len(votes) == 2), votes
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32)), "not bit-identical to the kernel without it"


def test_stages_cap_gives_d128_two_q_slots_and_is_proved(monkeypatch):
    from test_check_chained import _lowered

    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract
    from tileorch.dialects.record_attr import decode_record
    from tileorch.transforms.tileas.chained_dots import CHAINED_ATTR

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")

    def record(module):
        (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
        return decode_record(fn.attributes[CHAINED_ATTR])

    default = record(_lowered(128, 128, 128))
    assert (default["stages"], default["persistent"]["q_slots"]) == (3, 1), default
    monkeypatch.setenv("TILEORCH_ATTN_STAGES", "2")
    module = _lowered(128, 128, 128)
    capped = record(module)
    assert (capped["stages"], capped["persistent"]["q_slots"]) == (2, 2), capped
    (proto,) = extract(module)
    kv, q = proto.pipelines
    assert (kv.stages, q.stages) == (2, 2)
    result = check(proto)
    assert result.ok, result.violation


def _muls_between_the_dots(ptx: str) -> list[int]:
    """For each first-dot chain (``m64n128k16``) in the PTX: the ``mul.rn.f32`` between its commit and
    the next register-A second dot (``m64n64k16``)."""
    out, state, count = [], None, 0
    for ln in ptx.splitlines():
        if "m64n128k16" in ln:
            state, count = "s", 0
        elif state == "s" and "wgmma.commit_group" in ln:
            state = "between"
        elif state == "between" and "mul.rn.f32" in ln:
            count += 1
        elif state == "between" and "m64n64k16" in ln:
            out.append(count)
            state = None
    return out


def test_late_rescale_ptx_order_and_remark(monkeypatch):
    """Off (``=0``): nothing is multiplied between a tile's first dot and the previous tile's second dot
    (C is computed after the iteration's ``wait_group 0``); with the switch (the default) the loop's C (``dv / 2``
    multiplies per thread) sits there, FlashAttention-3's placement, and a remark says so."""
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "0")
    assert set(_muls_between_the_dots(_compile(*CFG).ptx)) == {0}
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "1")
    p = _compile(*CFG)
    assert 32 in _muls_between_the_dots(p.ptx), _muls_between_the_dots(p.ptx)
    assert p.chained.get("late_rescale") is True
    assert any("TILEORCH_ATTN_LATE_RESCALE" in r for r in p.remarks), p.remarks


@pytest.mark.parametrize("cfg,persistent,pingpong,skip,pack", [(CFG, "1", "0", "0", "0"), (CFG, "1", "0", "1", "1"),
                                                              ((300, 64, 128, 64, True), "0", "1", "1", "1")])
def test_late_rescale_is_exact_emulated(cfg, persistent, pingpong, skip, pack, monkeypatch):
    """Bit-identical outputs to the kernel without it (``=0``): persistent (three instances on two CTAs), with
    the skip and the late P pack (TILEORCH_ATTN_LATE_PACK) too, and causal with the warp groups'
    ping-pong; no in-flight register access."""
    from test_chained_emulated import _compile, _emulate

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", pingpong)
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "0")
    base = _compile(*cfg)
    want, ref, errors = _emulate(base, *cfg, ctas_persistent=2)
    assert not errors, errors[:4]
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "1")
    monkeypatch.setenv("TILEORCH_ATTN_SKIP_RESCALE", skip)
    monkeypatch.setenv("TILEORCH_ATTN_LATE_PACK", pack)
    p = _compile(*cfg)
    assert p.chained.get("late_rescale") is True and p.chained["pingpong"] == (pingpong == "1"), p.chained
    assert p.chained.get("late_pack", False) == (pack == "1"), p.chained
    out, _, errors = _emulate(p, *cfg, ctas_persistent=2)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32)), "not bit-identical to the kernel without it"


@pytest.mark.parametrize("next_s,causal", [("1", False), ("2", True)])
def test_late_rescale_with_next_s_is_exact_emulated(next_s, causal, monkeypatch):
    """With TILEORCH_ATTN_NEXT_S the late rescale applies too (the next instance's tail scales the
    last tile's C): bit-identical outputs to the NEXT_S kernel without it, three instances on two
    CTAs (a tail that issues the next instance's first dot and one that has none), against the fp32
    reference, no in-flight register access."""
    from test_chained_emulated import _compile, emulate_as_base

    cfg = (*CFG[:4], causal)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "0")
    base = _compile(*cfg)
    assert "late_rescale" not in base.chained, base.chained
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "1")
    p = _compile(*cfg)
    assert p.chained.get("late_rescale") is True and "late_rescale_off" not in p.chained, p.chained
    assert p.chained["persistent"].get("next_s"), p.chained
    assert 32 in _muls_between_the_dots(p.ptx), _muls_between_the_dots(p.ptx)
    emulate_as_base(p, base, cfg, ctas=2)


def test_late_pack_not_with_next_s(monkeypatch):
    from test_chained_emulated import _compile

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", "1")
    monkeypatch.setenv("TILEORCH_ATTN_LATE_PACK", "1")
    p = _compile(*CFG)
    assert "late_pack" not in p.chained and "NEXT_S" in p.chained.get("late_pack_off", ""), p.chained
    assert any("TILEORCH_ATTN_LATE_PACK not applied" in r for r in p.remarks), p.remarks


def test_late_and_skip_rescale_pipelines_are_proved(monkeypatch):
    """The switches add no hand-off: ``tileorch check`` proves both rings of the persistent kernel."""
    from test_check_chained import _lowered

    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_LATE_RESCALE", "1")
    monkeypatch.setenv("TILEORCH_ATTN_SKIP_RESCALE", "1")
    (proto,) = extract(_lowered(64, 128, 128))
    result = check(proto)
    assert result.ok, result.violation
    assert sorted((v["k"], v["m"]) for v, _ in result.instances) == [(k, m) for k in range(1, 10) for m in (1, 2, 3)]


def test_late_pack_ptx_order_and_d128_refusal(monkeypatch):
    """TILEORCH_ATTN_LATE_PACK: the loop's ``cvt.rn.f16x2.f32`` packs sit between a tile's first-dot
    commit and the register-A second dot; at d128 (P in f32 beside S, the packed P and a 64-register
    accumulator: ptxas 13.0 spilled) it is refused with a remark."""
    from test_chained_emulated import _compile, _lower

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_LATE_PACK", "1")
    p = _compile(*CFG)
    lines = p.ptx.splitlines()
    commits = [i for i, ln in enumerate(lines) if "wgmma.commit_group" in ln]
    between = [sum("cvt.rn.f16x2.f32" in ln for ln in lines[a:b]) for a, b in zip(commits, commits[1:])]
    assert 32 in between, between  # the loop: tile j-1's 32 pairs between tile j's S commit and P_{j-1} V
    assert any("TILEORCH_ATTN_LATE_PACK" in r for r in p.remarks), p.remarks
    record = _lower(1000, 128, 128, 128, False).chained
    assert "late_pack" not in record and "registers" in record.get("late_pack_off", ""), record


def _lowered_user(name: str):
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs6 import PROGRAMS

    p = PROGRAMS[name]
    ctx = make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx)
    assert kind == "chained"
    return lowered


@pytest.mark.parametrize("persistent", ["1", "0"])
def test_256_row_tile_pipelines_are_proved(persistent, monkeypatch):
    """256-row tiles: four consumer warp groups (512 arrivals per K/V stage and Q slot), setmaxnreg 112
    after the producer's 24; ``tileorch check`` proves the ring (and the Q slots of the persistent
    kernel)."""
    from tileorch.testing.check_memo import check_once as check  # a proof once per test run
    from tileorch.analysis.extract import extract

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    module = _lowered_user("attn_bm256")
    regs = sorted(o.regCount.value.data for o in module.walk() if o.name == "nvvm.setmaxregister")
    (proto,) = extract(module)
    assert [(a.name, a.threads) for a in proto.agents] == [("tma", 1), *[(f"wg{i}", 128) for i in range(4)]]
    assert proto.pipelines[0].empty_count == 512
    result = check(proto)
    assert result.ok, result.violation
    assert regs == [24, 112], regs  # 24 + 4 x 112 <= the 5 x 96 a CTA of 640 threads starts with
