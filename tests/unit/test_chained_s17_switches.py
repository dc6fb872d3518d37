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
    off = _compile(*CFG, once=False)
    assert "vote.sync" not in off.ptx
    monkeypatch.setenv("TILEORCH_ATTN_SKIP_RESCALE", "1")
    on = _compile(*CFG, once=False)
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
    base = _compile(*CFG, once=False)
    want, ref, errors = _emulate(base, *CFG, ctas_persistent=2, adjust=adjust)
    assert not errors, errors[:4]
    monkeypatch.setenv("TILEORCH_ATTN_SKIP_RESCALE", "1")
    p = _compile(*CFG, once=False)
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

    from tileorch.analysis.explore import check
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
