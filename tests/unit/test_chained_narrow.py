"""Chained dots with operand rows narrower than 128 bytes: head dim 32 and 16 (the first dot's K,
the second dot's N), 32-wide hidden tiles of the fused MLP.  Such tiles are TMA boxes of their whole
contiguous extent with a 64-byte (32 elements) or 32-byte (16 elements) swizzle, read by WGMMA
descriptors of the same swizzle (layout type 2 / 3, 8-row groups ``8 x row bytes`` apart).  Each
kernel compiles on the tensor-core path (``kind == "chained"``) without spills or serialized
WGMMAs, and its PTX, run by ``tileorch.testing.ptx_emulator`` on the CPU, matches a numpy
reference; a descriptor whose swizzle disagrees with the TMA box is caught.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import math
import re

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

SPILLS = re.compile(r"ptxas: \S+: (\d+) registers, (\d+) spills")


def _attention(seq, d, tile_m, tile_n, causal, dtype="float16", once=True):
    """The textbook attention program compiled for these shapes, once per input in a test run
    unless ``once`` is false (a test that patches a compile step)."""
    import dataclasses

    from test_chained_dots import _arrays

    from tileorch.driver import compile_program
    from tileorch.launchers import cutile as rc
    from tileorch.testing.attention_programs import attention_fwd
    from tileorch.testing.compile_memo import compile_once

    args = _arrays(4, (1, seq, d)) + (0.18, seq, tile_m, tile_n, d, causal)
    described = [dataclasses.replace(a, dtype=dtype) if i < 4 else a
                 for i, a in enumerate(rc.describe_arguments(attention_fwd, args))]
    return (compile_once if once else compile_program)(rc.export_bytecode(attention_fwd, described), "<narrow>")


def _clean(p):
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None, "ptxas did not accept the PTX"
    usage = [m for m in map(SPILLS.search, p.remarks) if m]
    assert usage and all(int(m.group(2)) == 0 for m in usage), p.remarks
    assert not [r for r in p.remarks if "C7513" in r or "serializ" in r or "spilled" in r], p.remarks


@pytest.mark.parametrize("d,tile_m,tile_n,causal,dtype", [(32, 128, 128, False, "float16"),
                                                          (32, 64, 64, True, "float16"),
                                                          (32, 128, 64, True, "bfloat16"),
                                                          (16, 128, 128, False, "float16")])
def test_narrow_head_dims_take_the_tensor_cores(d, tile_m, tile_n, causal, dtype):
    p = _attention(1000, d, tile_m, tile_n, causal, dtype)
    _clean(p)
    span = 2 * d
    assert [(t["box"], t["swizzle"]) for t in p.chained["tmaps"]] == [(d, span)] * 3
    wg = "bf16" if dtype == "bfloat16" else "f16"
    copies = 2 if p.chained["pipelined"] else 1
    assert p.ptx.count(f"m64n{tile_n}k16.f32.{wg}.{wg}") == d // 16 * copies  # S = Q K^T
    assert p.ptx.count(f"m64n{d}k16.f32.{wg}.{wg}") == tile_n // 16 * copies  # O += P V
    assert p.ptx.count("cp.async.bulk.tensor.3d") == 3  # one box per tile: Q once, K and V
    assert p.chained["smem"] <= 227 * 1024


def _emulate_attention(p, seq, d, tile_m, causal, seed=0):
    from test_chained_emulated import _emulate

    return _emulate(p, seq, d, tile_m, p.chained["tn"], causal, seed)


@pytest.mark.parametrize("seq,d,tile_m,tile_n,causal", [(77, 32, 128, 64, False), (150, 32, 64, 64, True),
                                                        (200, 32, 128, 128, False), (77, 16, 128, 64, False)])
def test_narrow_attention_emulated(seq, d, tile_m, tile_n, causal):
    """Ragged sequences (a partial last key tile, TMA zero fill), one and two consumer warp groups."""
    p = _attention(seq, d, tile_m, tile_n, causal)
    out, ref, errors = _emulate_attention(p, seq, d, tile_m, causal)
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


@pytest.mark.parametrize("mode", ["overlap", "pingpong"])
def test_narrow_attention_other_consumers_emulated(mode, monkeypatch):
    """The off-by-default consumers (TILEORCH_ATTN_OVERLAP / TILEORCH_ATTN_PINGPONG) at head dim 32."""
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if mode == "overlap" else "0")
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1" if mode == "pingpong" else "0")
    p = _attention(77, 32, 128, 64, False)
    _clean(p)
    assert p.chained["pipelined"] == (mode == "overlap") and p.chained["pingpong"] == (mode == "pingpong")
    out, ref, errors = _emulate_attention(p, 77, 32, 128, False)
    assert not errors, errors[:4]
    np.testing.assert_allclose(out, ref, atol=2e-3, rtol=1e-2)


def test_descriptor_swizzle_must_match_the_box(monkeypatch):
    """A WGMMA descriptor claiming the 128-byte swizzle for 64-byte TMA rows reads the wrong
    elements: the emulated kernel no longer matches the reference."""
    from tileorch.kernels.gemm import build  # the descriptor constants of both kernels

    monkeypatch.setitem(build.SWIZZLE_LAYOUT, 64, 1)
    p = _attention(77, 32, 128, 64, False, once=False)
    out, ref, errors = _emulate_attention(p, 77, 32, 128, False)
    assert errors or np.isnan(out).any() or not np.allclose(out, ref, atol=2e-3, rtol=1e-2)


def _mlp(m, d, hidden, dout, tile_m, tile_h):
    from test_chained_dots import Dev, _compile_once

    from tileorch.testing.attention_programs import mlp_chain

    arrays = tuple(Dev(0x7F0000000000 + i * 0x10000000, s) for i, s in
                   enumerate([(m, d), (d, hidden), (hidden, dout), (m, dout)]))
    return _compile_once(mlp_chain, arrays + (tile_m, tile_h, d, dout))


@pytest.mark.parametrize("m,d,hidden,dout,tile_m,tile_h", [(200, 32, 160, 32, 128, 64),
                                                           (100, 64, 96, 32, 64, 32),
                                                           (130, 16, 64, 64, 128, 32)])
def test_narrow_mlp_chain_emulated(m, d, hidden, dout, tile_m, tile_h):
    """``relu(X W1) W2`` with both B operands N-major (MN-major descriptors): a 32-wide W2 tile (64B
    swizzle, N = 32), 32-wide W1 hidden tiles (the first dot's N, the second's K), K = 16 or 32."""
    p = _mlp(m, d, hidden, dout, tile_m, tile_h)
    _clean(p)
    emulate_mlp_against_numpy(p, m, d, hidden, dout, tile_m, seed=m)


def emulate_mlp_against_numpy(p, m, d, hidden, dout, tile_m, seed, *more_launch):
    """Run the compiled MLP chain ``p`` (``relu(X W1) W2``, f16) in the PTX emulator on every CTA
    of its launch (``more_launch``: :func:`chained_launch`'s further arguments, e.g. the SM count)
    with random inputs from ``seed`` and a NaN-prefilled Y: no emulator error, every output
    written, Y against numpy in f32."""
    from tileorch.testing.ptx_emulator import Emu, chained_launch, stage_guards

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, d)).astype(np.float16)
    w1 = (rng.standard_normal((d, hidden)) / math.sqrt(d)).astype(np.float16)
    w2 = (rng.standard_normal((hidden, dout)) / math.sqrt(hidden)).astype(np.float16)
    y = np.full((m, dout), np.nan, dtype=np.float16)
    bases = [(i + 1) << 32 for i in range(4)]
    params = [0, 0, 0]  # the tensor maps, then each array's base, shape and strides
    for base, a in zip(bases, (x, w1, w2, y)):
        params += [base, *a.shape, a.shape[1], 1]
    errors = []
    params, ctaids, nctaid = chained_launch(p.chained, (-(-m // tile_m), 1, 1), params, *more_launch)
    for ctaid in ctaids:
        emu = Emu(p.ptx, params, p.chained["smem"], p.chained["threads"], ctaid, {},
                  [(bases[3], y.view(np.uint8).reshape(-1), "Y")], guards=stage_guards(p.chained),
                  nctaid=nctaid)
        emu.tmaps = {emu.params[i]: {"array": a[None], **t} for i, a, t in zip(range(3), (x, w1, w2),
                                                                               p.chained["tmaps"])}
        emu.run()
        errors += emu.errors
    h = np.maximum(x.astype(np.float32) @ w1.astype(np.float32), 0).astype(np.float16).astype(np.float32)
    ref = h @ w2.astype(np.float32)
    assert not errors, errors[:4]
    assert not np.isnan(y).any(), "unwritten outputs"
    np.testing.assert_allclose(y.astype(np.float32), ref, atol=1e-2, rtol=2e-2)
