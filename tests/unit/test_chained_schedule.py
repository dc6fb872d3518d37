"""The persistent chained kernel's snake schedules (``TILEORCH_ATTN_SCHEDULE=snake`` / ``snake_lpt``,
session 19; ``snake`` the default for causal programs since the H200 measured it): programs whose
instances' loops differ (causal attention: a heavy-first axis) run persistent too, each CTA's odd
rounds of instances dealt backwards, with the heavy-first axis varying fastest (``snake``) or slowest
(``snake_lpt``), heaviest first.

The tests emulate the kernel's PTX CTA by CTA on one head and read which query tiles each CTA
wrote (NaN-prefilled output): the instances each CTA runs are the ones the schedule's definition
gives (worked out by hand below), every instance runs once, the output equals the numpy reference
and, bit for bit, the persistent kernel with the default order.  ``tileorch check`` proves the
kernel's pipelines.  Needs cuda-tile (the programs are compiled from cuTile)."""

from __future__ import annotations

import importlib.util
import math
import os

import numpy as np
import pytest

from tileorch.settings import SettingError

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

# causal, five 64-row query tiles per head (query tile t runs t + 1 key tiles of 64), the last ragged
CFG = (300, 64, 64, 64, True)


def _compile(bh, seq, d, tile_m, tile_n, causal):
    from test_chained_dots import _arrays, _compile_once

    from tileorch.testing.attention_programs import attention_fwd

    return _compile_once(attention_fwd, _arrays(4, (bh, seq, d)) + (0.18, seq, tile_m, tile_n, d, causal))


def _emulate_by_cta(p, bh, seq, d, tile_m, tile_n, causal, ctas, seed=3):
    """(output, reference, errors, {CTA: [(head, query tile) it wrote]}): the kernel's CTAs emulated one
    after the other into a NaN-prefilled output of ``bh`` heads (a query tile counts as the CTA's when
    the CTA's run turned its rows from NaN to numbers)."""
    from tileorch.testing.ptx_emulator import Emu, chained_launch, stage_guards

    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    out = np.full((bh, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    bases = {"q": 1 << 32, "k": 2 << 32, "v": 3 << 32, "o": 4 << 32}
    params = [0, 0, 0]
    for name in "qkvo":
        params += [bases[name], bh, seq, d, seq * d, d, 1]
    params += [int(np.float32(scale / math.log(2)).view(np.uint32)), seq]
    params, ctaids, nctaid = chained_launch(p.chained, (-(-seq // tile_m), bh, 1), params, ctas)
    errors, wrote = [], {}
    for ctaid in ctaids:
        before = np.isnan(out[:, :, 0]).copy()
        emu = Emu(p.ptx, params, p.chained["smem"], p.chained["threads"], ctaid, {},
                  [(bases["o"], out.view(np.uint8).reshape(-1), "O")], guards=stage_guards(p.chained), nctaid=nctaid)
        emu.tmaps = {emu.params[i]: {"array": a, **t} for i, a, t in zip(range(3), (q, k, v), p.chained["tmaps"])}
        emu.run()
        errors += emu.errors
        now = ~np.isnan(out[:, :, 0]) & before
        wrote[ctaid[0]] = sorted({(int(h), int(r) // tile_m) for h, r in zip(*np.nonzero(now))})
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale
    if causal:
        s = np.where(np.triu(np.ones((seq, seq), bool), 1), -np.inf, s)
    pm = np.exp(s - s.max(-1, keepdims=True))
    ref = (pm / pm.sum(-1, keepdims=True)) @ v.astype(np.float32)
    return out.astype(np.float32), ref, errors, wrote


# One head, five instances, heaviest first (both orders: instance w is query tile 4 - w).  Two CTAs:
# round 0 w = 0, 1; round 1 (backwards, n = 2) CTA 0 takes w = 2 + 2 - 1 - 0 = 3, CTA 1 w = 2; round 2
# (n = 1) CTA 0 w = 4.  Three CTAs: round 0 w = 0, 1, 2; round 1 (backwards, n = 2) CTA 0 w = 3 + 2 - 1 = 4,
# CTA 1 w = 3.  (head, query tile) per CTA:
SNAKE = {2: {0: [(0, 0), (0, 1), (0, 4)], 1: [(0, 2), (0, 3)]},
         3: {0: [(0, 0), (0, 4)], 1: [(0, 1), (0, 3)], 2: [(0, 2)]}}
# the default order of a persistent kernel (round-robin, heaviest first): CTA b runs w = b, b + G, ..
ROUND_ROBIN = {2: {0: [(0, 0), (0, 2), (0, 4)], 1: [(0, 1), (0, 3)]},
               3: {0: [(0, 1), (0, 4)], 1: [(0, 0), (0, 3)], 2: [(0, 2)]}}
# Two heads of three query tiles (170 keys), four CTAs: round 0 w = 0 .. 3, round 1 (backwards, n = 2) CTA 0
# w = 5, CTA 1 w = 4.  snake: w is (head w // 3, query tile 2 - w % 3); snake_lpt and the round-robin default:
# (head w % 2, query tile 2 - w // 2); round-robin: CTA 0 runs w = 0, 4, CTA 1 w = 1, 5
TWO_HEADS = {"snake": {0: [(0, 2), (1, 0)], 1: [(0, 1), (1, 1)], 2: [(0, 0)], 3: [(1, 2)]},
             "snake_lpt": {0: [(0, 2), (1, 0)], 1: [(0, 0), (1, 2)], 2: [(0, 1)], 3: [(1, 1)]},
             None: {0: [(0, 0), (0, 2)], 1: [(1, 0), (1, 2)], 2: [(0, 1)], 3: [(1, 1)]}}


@pytest.mark.parametrize("ctas", [2, 3])
def test_snake_schedule_emulated(ctas, monkeypatch):
    """Each CTA runs the query tiles the snake order deals it (an odd round backwards, a partial last
    round), each tile once; the output is the reference and bit-identical to the persistent kernel
    that deals round-robin (the instances' arithmetic is the same, only their order differs)."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    base = _compile(1, *CFG)
    assert base.chained["heavy_first"] == 0 and "schedule" not in base.chained["persistent"], base.chained
    want, ref, errors, wrote = _emulate_by_cta(base, 1, *CFG, ctas)
    assert not errors, errors[:4]
    assert wrote == ROUND_ROBIN[ctas], wrote
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", "snake")
    p = _compile(1, *CFG)
    assert p.chained["persistent"].get("schedule") == "snake", p.chained
    assert any("snake order (the heavy-first axis fastest" in r for r in p.remarks), p.remarks
    out, _, errors, wrote = _emulate_by_cta(p, 1, *CFG, ctas)
    assert not errors, errors[:4]
    assert wrote == SNAKE[ctas], wrote
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32)), "not bit-identical to the round-robin kernel"


def test_snake_schedule_with_next_s_emulated(monkeypatch):
    """TILEORCH_ATTN_NEXT_S issues the CTA's next instance's first dot in this one's tail: under the snake
    schedule the next *dealt* instance (round it + 1, backwards when odd), whose trip count decides whether
    there is a first dot to issue.  Three CTAs over five causal instances: the tiles each CTA writes,
    bit-identical to the round-robin NEXT_S kernel and the reference.  (Every causal instance has key
    tiles, so taking ``w + G``'s trip count instead would pass here too: the S chain reads the Q slot and
    the ring, which the producer fills for the dealt instance.)"""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", "1")
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    base = _compile(1, *CFG)
    assert base.chained["persistent"].get("next_s") == "after_last", base.chained
    want, ref, errors, wrote = _emulate_by_cta(base, 1, *CFG, 3)
    assert not errors and wrote == ROUND_ROBIN[3], (errors[:4], wrote)
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", "snake")
    p = _compile(1, *CFG)
    assert p.chained["persistent"].get("next_s") == "after_last" and p.chained["persistent"]["schedule"] == "snake"
    out, _, errors, wrote = _emulate_by_cta(p, 1, *CFG, 3)
    assert not errors, errors[:4]
    assert wrote == SNAKE[3], wrote
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)
    assert np.array_equal(out.view(np.uint32), want.view(np.uint32)), "not bit-identical to the round-robin kernel"


@pytest.mark.parametrize("order", [None, "snake", "snake_lpt"])
def test_snake_orders_over_two_heads_emulated(order, monkeypatch):
    """Two heads: ``snake`` runs one head's query tiles on consecutive instances, ``snake_lpt`` every
    head's heaviest tile first (the round-robin kernel's order), both with the backwards odd round; the
    outputs against the reference."""
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    if order is None:
        monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", order)
    cfg = (170, 64, 64, 64, True)
    p = _compile(2, *cfg)
    assert p.chained["persistent"].get("schedule") == order, p.chained
    out, ref, errors, wrote = _emulate_by_cta(p, 2, *cfg, 4)
    assert not errors, errors[:4]
    assert wrote == TWO_HEADS[order], wrote
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_snake_schedule_makes_causal_persistent(monkeypatch):
    """Causal attention (a heavy-first axis) is persistent with the snake dealing by default (the
    record says it is the default); TILEORCH_ATTN_SCHEDULE=off or TILEORCH_ATTN_PERSISTENT=0 keep one
    CTA per instance, TILEORCH_ATTN_PERSISTENT=1 alone the round-robin dealing; a non-causal program is
    persistent either way and takes the snake dealing only when asked."""
    from test_chained_emulated import _lower

    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    p = _lower(1000, 64, 128, 128, True)
    assert p.chained["persistent"]["schedule"] == "snake" and p.chained["persistent"]["schedule_default"], p.chained
    assert any("snake order" in r and "by default for a heavy-first grid" in r and "one CTA per instance" in r
               for r in p.remarks), p.remarks
    assert "schedule" not in _lower(1000, 128, 128, 128, False).chained["persistent"]
    for order in ("snake", "snake_lpt"):
        monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", order)
        persistent = _lower(1000, 64, 128, 128, True).chained["persistent"]
        assert persistent["schedule"] == order and "schedule_default" not in persistent, persistent
        assert _lower(1000, 128, 128, 128, False).chained["persistent"]["schedule"] == order
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", "zigzag")  # not a schedule: an error (it was read as unset)
    with pytest.raises(SettingError, match="TILEORCH_ATTN_SCHEDULE='zigzag': expected one of 'snake', 'snake_lpt', 'off'"):
        _lower(1000, 64, 128, 128, True)
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", "off")
    assert "persistent" not in _lower(1000, 64, 128, 128, True).chained
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    assert "schedule" not in _lower(1000, 64, 128, 128, True).chained["persistent"]
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE")
    assert "schedule" not in _lower(1000, 64, 128, 128, True).chained["persistent"]
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", "snake")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")
    assert "persistent" not in _lower(1000, 64, 128, 128, True).chained


# One CTA per instance (the launcher's G = total where the snake dealing is unbalanced): every CTA's
# only round is round 0, instance w = b, in the snake order (head w // tiles, query tile tiles - 1 -
# w % tiles): the one-CTA-per-instance kernel's launch order, one head's tiles heaviest first.
ONE_PER_INSTANCE = {1: {b: [(0, 4 - b)] for b in range(5)},
                    2: {b: [(b // 3, 2 - b % 3)] for b in range(6)}}


@pytest.mark.parametrize("bh", [1, 2])
def test_default_schedule_one_cta_per_instance_emulated(bh, monkeypatch):
    """The default causal kernel launched on as many CTAs as instances runs each instance exactly once,
    CTA b instance b of the snake order; the output is the reference."""
    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    cfg = CFG if bh == 1 else (170, 64, 64, 64, True)
    p = _compile(bh, *cfg)
    assert p.chained["persistent"].get("schedule") == "snake" and p.chained["heavy_first"] == 0, p.chained
    total = bh * -(-cfg[0] // cfg[2])
    out, ref, errors, wrote = _emulate_by_cta(p, bh, *cfg, total)
    assert not errors, errors[:4]
    assert wrote == ONE_PER_INSTANCE[bh], wrote
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def _lowered_causal(d: int):
    from test_chained_dots import _arrays

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context
    from tileorch.testing.attention_programs import attention_fwd

    args = _arrays(4, (4, 1000, d)) + (0.18, 1000, 128, 128, d, True)
    ctx = make_context()
    kind, lowered = lower_program(load(rc.export_bytecode(attention_fwd, rc.describe_arguments(attention_fwd, args)),
                                       "<attn>", ctx), ctx)
    assert kind == "chained"
    return lowered


@pytest.mark.parametrize("d,order", [(64, None), (128, None), (128, "snake_lpt")])
def test_snake_schedule_pipelines_are_proved(d, order, monkeypatch):
    """The dealing adds no hand-off: ``tileorch check`` proves the K/V ring and the Q slots of the causal
    persistent kernel (two Q slots at d64, one at d128), the default (snake) and snake_lpt."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    if order is None:
        monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", order)
    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    assert os.environ.get("TILEORCH_ATTN_PERSISTENT") is None
    (proto,) = extract(_lowered_causal(d))
    kv, q = proto.pipelines
    assert q.stages == (2 if d == 64 else 1), q
    result = check(proto)
    assert result.ok, result.violation
