"""The chained-dots attention kernel executed on the CPU: its PTX run by
``tileorch.testing.ptx_emulator`` (one CTA per program instance, WGMMA results written at the
``wait_group`` that retires them, any access to an in-flight WGMMA register reported) against a
numpy fp32 reference, on a ragged sequence (77 keys: a partial, masked last tile; rows past the
end zero-filled by TMA), with the plain consumer, the intra-warp-group overlap
(``TILEORCH_ATTN_OVERLAP=1``) and the warp groups' ping-pong (``TILEORCH_ATTN_PINGPONG=1``); the
overlap's P-packing bug, re-created, is seen.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _compile(seq, d, tile_m, tile_n, causal):
    from test_chained_dots import _arrays, _compile as compile_

    from tileorch.testing.attention_programs import attention_fwd

    return compile_(attention_fwd, _arrays(4, (1, seq, d)) + (0.18, seq, tile_m, tile_n, d, causal))


def _emulate(p, seq, d, tile_m, tile_n, causal, seed=0):
    """(output, reference, errors) of every CTA of the program on one head."""
    from tileorch.testing.ptx_emulator import Emu

    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((1, seq, d)).astype(np.float16) for _ in range(3))
    out = np.full((1, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    bases = {"q": 1 << 32, "k": 2 << 32, "v": 3 << 32, "o": 4 << 32}
    params = [0, 0, 0]  # the tensor maps
    for name in "qkvo":  # the cuTile entry's arrays: base, shape, strides
        params += [bases[name], 1, seq, d, seq * d, d, 1]
    params += [int(np.float32(scale / math.log(2)).view(np.uint32)), seq]
    errors = []
    for cx in range(-(-seq // tile_m)):
        emu = Emu(p.ptx, params, p.chained["smem"], p.chained["threads"], (cx, 0, 0), {},
                  [(bases["o"], out.view(np.uint8).reshape(-1), "O")])
        # the host's tensor maps: the record's box rows, contiguous extent and swizzle span
        emu.tmaps = {emu.params[i]: {"array": a, **t} for i, a, t in zip(range(3), (q, k, v), p.chained["tmaps"])}
        emu.run()
        errors += emu.errors
    s = (q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)) * scale
    if causal:
        s = np.where(np.triu(np.ones((seq, seq), bool), 1), -np.inf, s)
    pm = np.exp(s - s.max(-1, keepdims=True))
    ref = (pm / pm.sum(-1, keepdims=True)) @ v.astype(np.float32)
    return out.astype(np.float32), ref, errors


@pytest.mark.parametrize("mode", ["plain", "overlap", "pingpong"])
def test_ragged_attention_emulated(mode, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if mode == "overlap" else "0")
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1" if mode == "pingpong" else "0")
    cfg = (77, 64, 128, 64, False)
    p = _compile(*cfg)
    assert p.chained["pipelined"] == (mode == "overlap") and p.chained["pingpong"] == (mode == "pingpong")
    out, ref, errors = _emulate(p, *cfg)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_causal_overlap_emulated(monkeypatch):
    """Causal, 64-row tiles (one consumer warp group), three key tiles for the last query tile."""
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    cfg = (150, 64, 64, 64, True)
    p = _compile(*cfg)
    assert p.chained["pipelined"]
    out, ref, errors = _emulate(p, *cfg)
    assert not errors, errors[:4]
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_p_packed_during_the_overlap_is_seen(monkeypatch):
    """P_j packed while P_{j-1} V_{j-1} runs: LLVM puts it in the registers that WGMMA reads."""
    from tileorch.dialects import nvvm
    from tileorch.transforms.tileas import chained_dots

    def early(e, p, dtype):
        wait0 = [o for o in e.block.ops if isinstance(o, nvvm.WgmmaWaitGroupSyncOp)][-1]
        n = len(list(e.block.ops))
        regs = [chained_dots._pack16(e, p[2 * i], p[2 * i + 1], dtype) for i in range(len(p) // 2)]
        for op in list(e.block.ops)[n:]:
            op.detach()
            e.block.insert_op_before(op, wait0)
        return regs

    monkeypatch.setattr(chained_dots, "_pack_after_wait", early)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    cfg = (200, 64, 128, 64, False)
    p = _compile(*cfg)
    out, ref, errors = _emulate(p, *cfg)
    assert any("in-flight WGMMA" in e for e in errors), errors[:4]
