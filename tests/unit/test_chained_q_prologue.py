"""Issue 20: a Q prologue on the chained-dots (tensor-core) path.  ``fmha_q_prescaled_lse``
(``tileorch.testing.user_programs2``) folds the softmax scale into Q once, ``q = (q.astype(f32) *
scale).astype(Q.dtype)``, and stores a natural-log LSE row vector after the loop: the map is
applied in place to the Q tile in shared memory after each Q load (chained_dots
``_Kernel.q_prologue``), then ``fence.proxy.async`` and a warp-group barrier before the first
WGMMA.  The kernel's PTX runs on the CPU (``tileorch.testing.ptx_emulator``, which reports a WGMMA
reading ``st.shared`` bytes without the fence and barrier) against numpy fp32, one CTA per instance
and persistent, head dims 32 / 64 / 128, ragged Q tiles and (``((q + shift) * scale)``, keys
masked) a ragged key tile; ``tileorch check`` proves the kernels; a position-dependent prologue (an
iota) keeps a located refusal naming the op.  Needs cuda-tile and ptxas."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    import cuda.tile as ct

    from tileorch.testing.user_programs2 import attend_key_tiles, fmha_q_prescaled_lse

    # fmha_q_prescaled_lse with other Q prologues: its loop is the helper function it calls

    @ct.kernel
    def q_times_iota(Q, K, V, O, BM: ct.Constant[int], BN: ct.Constant[int], D: ct.Constant[int]):
        """A position-dependent Q prologue: each column of Q scaled by its index."""
        qt, bh = ct.bid(0), ct.bid(1)
        q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
        col = ct.arange(D, dtype=ct.float32)
        q = (q.astype(ct.float32) * col[None, :]).astype(Q.dtype)
        o, m, den = attend_key_tiles(q, K, V, bh, ct.num_tiles(K, axis=1, shape=(1, BN, D)), None, BM, BN, D)
        ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))

    @ct.kernel
    def shifted_q_masked(Q, K, V, O, shift: float, scale: float, seq_len: int, BM: ct.Constant[int],
                         BN: ct.Constant[int], D: ct.Constant[int]):
        """Another Q prologue, ``((q + shift) * scale)`` rounded to Q's type, and the keys of a ragged
        sequence masked in the loop."""
        qt, bh = ct.bid(0), ct.bid(1)
        q = ct.load(Q, index=(bh, qt, 0), shape=(1, BM, D)).reshape((BM, D))
        q = ((q.astype(ct.float32) + shift) * scale).astype(Q.dtype)
        o, m, den = attend_key_tiles(q, K, V, bh, ct.cdiv(seq_len, BN), seq_len, BM, BN, D)
        ct.store(O, index=(bh, qt, 0), tile=(o / den).astype(O.dtype).reshape((1, BM, D)))


def _prescaled(bh, seq, d, bm, bn, seed, ctas=2):
    """(program, O, LSE, reference O, reference LSE, emulator errors) of ``fmha_q_prescaled_lse`` on
    fp16 ``[bh, seq, d]`` inputs emulated on the CPU (``ctas``: a persistent kernel's CTAs)."""
    from test_chained_dots import Dev

    from tileorch.driver import compile_program
    from tileorch.launchers import cutile as rc
    from tileorch.testing.ptx_emulator import Emu, chained_launch, stage_guards

    rng = np.random.default_rng(seed)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    o = np.full((bh, seq, d), np.nan, dtype=np.float16)
    lse = np.full((bh, seq), np.nan, dtype=np.float32)
    scale = np.float32(1 / math.sqrt(d))
    arrays = (q, k, v, o, lse)
    devs = tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, a.shape, "<f4" if a.dtype == np.float32 else "<f2")
                 for i, a in enumerate(arrays))
    p = compile_program(rc.export_bytecode(fmha_q_prescaled_lse, rc.describe_arguments(
        fmha_q_prescaled_lse, devs + (float(scale), bm, bn, d))), "<q prologue>")
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None
    bases = [(i + 1) << 32 for i in range(len(arrays))]
    params = [0, 0, 0]  # the tensor maps, then each array's base, shape and strides, then the scale
    for b, a in zip(bases, arrays):
        params += [b, *a.shape, *(int(np.prod(a.shape[i + 1:])) for i in range(a.ndim))]
    params.append(int(scale.view(np.uint32)))
    memory = [(bases[i], arrays[i].view(np.uint8).reshape(-1), f"array{i}") for i in (3, 4)]
    params, ctaids, nctaid = chained_launch(p.chained, (-(-seq // bm), bh, 1), params, ctas)
    errors = []
    for ctaid in ctaids:
        emu = Emu(p.ptx, params, p.chained["smem"], p.chained["threads"], ctaid, {}, memory,
                  guards=stage_guards(p.chained), nctaid=nctaid)
        emu.tmaps = {emu.params[i]: {"array": a, **t} for i, a, t in zip(range(3), arrays, p.chained["tmaps"])}
        emu.run()
        errors += emu.errors
    qs = (q.astype(np.float32) * scale).astype(np.float16).astype(np.float32)  # the program's rounding
    s = qs @ k.astype(np.float32).transpose(0, 2, 1)
    mx = s.max(-1, keepdims=True)
    e = np.exp(s - mx)
    ref_o = (e / e.sum(-1, keepdims=True)) @ v.astype(np.float32)
    ref_lse = (mx + np.log(e.sum(-1, keepdims=True)))[..., 0]
    return p, o, lse, ref_o, ref_lse, errors


@pytest.mark.parametrize("seq,d,bm,bn,persistent,overlap,ctas", [
    (128, 64, 64, 32, "0", "1", 2),    # one consumer warp group, one CTA per instance, pipelined loop
    (96, 64, 64, 32, "0", "0", 2),     # ragged: the last Q tile half past the end (TMA zero rows), plain loop
    (256, 64, 128, 64, "1", "1", 1),   # persistent, two warp groups: one CTA runs 2 x 2 instances, Q slots reused
    (160, 64, 64, 32, "1", "0", 2),    # persistent, plain loop, ragged Q rows
    (128, 128, 128, 64, "0", "1", 2),  # head dim 128: two 64-wide boxes per Q row
    (96, 32, 64, 32, "1", "1", 1),     # head dim 32: one 32-wide box (64-byte swizzle)
])
def test_prescaled_q_lse_emulated(seq, d, bm, bn, persistent, overlap, ctas, monkeypatch):
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", overlap)
    bh = 2  # the program does not mask keys: seq is a multiple of bn
    p, o, lse, ref_o, ref_lse, errors = _prescaled(bh, seq, d, bm, bn, seed=seq + bm, ctas=ctas)
    assert bool(p.chained.get("persistent")) == (persistent == "1"), p.chained
    assert p.chained["pipelined"] == (overlap == "1"), p.chained
    assert p.chained["q_prologue"] == ["fp_to_fp", "mulf", "fp_to_fp"], p.chained
    assert any("applied in place to the Q tile" in r for r in p.remarks), p.remarks
    assert p.ptx.count("fence.proxy.async.shared::cta") == 1
    assert not errors, errors[:4]
    assert not np.isnan(o).any() and not np.isnan(lse).any(), "unwritten outputs"
    np.testing.assert_allclose(o.astype(np.float32), ref_o, atol=3e-3, rtol=1e-2)
    np.testing.assert_allclose(lse, ref_lse, atol=2e-3, rtol=1e-4)


@pytest.mark.parametrize("persistent", ["0", "1"])
def test_shifted_q_ragged_keys_emulated(persistent, monkeypatch):
    """A ragged sequence (77 keys: a masked, partly zero-filled last key tile; a partial last Q
    tile) with the prologue ``((q + shift) * scale)``."""
    from test_chained_variants import _check, _run

    monkeypatch.setenv("TILEORCH_CACHE", "0")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    bh, seq, d, bm, bn = 2, 77, 64, 64, 32
    rng = np.random.default_rng(9)
    q, k, v = (rng.standard_normal((bh, seq, d)).astype(np.float16) for _ in range(3))
    o = np.full((bh, seq, d), np.nan, dtype=np.float16)
    shift, scale = np.float32(0.375), np.float32(0.3)
    p, errors = _run(shifted_q_masked, (q, k, v, o), [(float(shift), "f"), (float(scale), "f"), (seq, "i")],
                     (bm, bn, d), (-(-seq // bm), bh))
    assert p.chained["q_prologue"] == ["fp_to_fp", "addf", "mulf", "fp_to_fp"], p.chained
    assert bool(p.chained.get("persistent")) == (persistent == "1"), p.chained
    qs = ((q.astype(np.float32) + shift) * scale).astype(np.float16).astype(np.float32)
    s = qs @ k.astype(np.float32).transpose(0, 2, 1)
    e = np.exp(s - s.max(-1, keepdims=True))
    _check(o, (e / e.sum(-1, keepdims=True)) @ v.astype(np.float32), errors)


@pytest.mark.parametrize("drop", ["fence", "barrier"])
def test_missing_fence_or_barrier_is_seen(drop, monkeypatch):
    """Without the ``fence.proxy.async`` after the in-place writes, or without the warp group's
    barrier after it, the emulator reports the WGMMA that reads them (the async proxy need not see
    generic-proxy writes; other threads' writes need the barrier)."""
    from tileorch.dialects import nvvm
    from tileorch.transforms.tileas import chained_dots

    monkeypatch.setenv("TILEORCH_CACHE", "0")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "0")
    real = chained_dots._Kernel.q_prologue

    def without_fence(self):
        real(self)
        for op in list(self.e.block.ops):
            if isinstance(op, nvvm.FenceProxyOp) if drop == "fence" else \
                    isinstance(op, nvvm.BarrierOp) and op.barrierId is not None:
                op.detach()
                op.erase()

    monkeypatch.setattr(chained_dots._Kernel, "q_prologue", without_fence)
    p, o, lse, ref_o, ref_lse, errors = _prescaled(1, 64, 64, 64, 32, seed=3)
    if drop == "fence":
        assert "fence.proxy.async" not in p.ptx
        assert any("without fence.proxy.async" in x for x in errors), errors[:4]
    else:
        assert p.ptx.count("bar.sync") == 1 and "fence.proxy.async" in p.ptx  # only the CTA barrier 0 is left
        assert any("fenced but before a barrier" in x for x in errors), errors[:4]


def test_position_dependent_prologue_is_refused_at_its_line(monkeypatch):
    from test_chained_dots import Dev

    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import lowered_program

    monkeypatch.setenv("TILEORCH_CACHE", "0")
    devs = tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, (2, 128, 64)) for i in range(4))
    # the lowering only (the refusal is the tier's; the SIMT fallback's back end would be most of the compile)
    p = lowered_program(rc.export_bytecode(q_times_iota, rc.describe_arguments(q_times_iota, devs + (64, 32, 64))),
                        "<iota prologue>")
    assert p.kind == "simt", p.remarks
    refusal = [r for r in p.remarks if "tensor-core path refused" in r]
    assert refusal, p.remarks
    assert refusal[0].startswith(str(Path(__file__)) + ":"), refusal
    assert "the first dot's A (Q) is computed from its tile by 'nv_tileaa.make_range'" in refusal[0], refusal


@pytest.mark.parametrize("bm,bn,persistent,overlap,pingpong", [(64, 32, "0", "0", "0"), (128, 64, "0", "1", "0"),
                                                               (128, 64, "1", "1", "0"), (128, 64, "1", "0", "0"),
                                                               (128, 64, "0", "0", "1")])
def test_prologue_kernel_is_proved(bm, bn, persistent, overlap, pingpong, monkeypatch):
    """``tileorch check`` proves the kernel with the prologue's per-warp-group barriers (3 + wg,
    128 threads, before the consumer loop; inside the work loop of a persistent kernel): read beside
    the ping-pong barriers, completed by one warp group each."""
    from test_chained_dots import Dev

    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", overlap)
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", pingpong)
    devs = tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, s, t) for i, (s, t) in
                 enumerate([((2, 1024, 64), "<f2")] * 4 + [((2, 1024), "<f4")]))
    args = devs + (0.125, bm, bn, 64)
    ctx = make_context()
    module = load(rc.export_bytecode(fmha_q_prescaled_lse, rc.describe_arguments(fmha_q_prescaled_lse, args)),
                  "<q prologue>", ctx)
    kind, lowered = lower_program(module, ctx)
    assert kind == "chained"
    bars = [o for o in lowered.walk() if o.name == "nvvm.barrier" and len(o.operands) == 2]
    # the prologue's (3 + wg); ping-pong: its sync per tile and warp group 0's final sync
    assert len(bars) == (3 if pingpong == "1" else 1)
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation
