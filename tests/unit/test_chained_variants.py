"""Attention-shaped programs other than the textbook one take the chained-dots kernel and compute
the right values (their PTX run by ``tileorch.testing.ptx_emulator`` on the CPU against numpy):
``exp`` with the scale on the scores and an fp32 output, a logit soft cap (``tanh``), K stored
transposed (an N-major first B operand), 32-wide key tiles, and the MLP chain with SiLU and a
scaled epilogue.  Ragged extents throughout.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def attention_two_tiles(Q, K, V, O, O2, scale: float, seq_len: int, TILE_M: ct.Constant[int],
                            TILE_N: ct.Constant[int], D: ct.Constant[int]):
        """Attention storing its output tile twice (a second store the chained path refuses)."""
        bm, bh = ct.bid(0), ct.bid(1)
        q = ct.reshape(ct.load(Q, index=(bh, bm, 0), shape=(1, TILE_M, D)), (TILE_M, D))
        cols = ct.arange(TILE_N, dtype=ct.int32)[None, :]
        m_i = ct.full((TILE_M, 1), -math.inf, dtype=ct.float32)
        l_i = ct.full((TILE_M, 1), 0.0, dtype=ct.float32)
        acc = ct.full((TILE_M, D), 0.0, dtype=ct.float32)
        for j in range(ct.cdiv(seq_len, TILE_N)):
            k = ct.reshape(ct.load(K, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
            s = ct.mma(q, ct.transpose(k), ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)) * scale
            s = ct.where(j * TILE_N + cols < seq_len, s, -math.inf)
            m_new = ct.maximum(m_i, ct.max(s, axis=-1, keepdims=True))
            p = ct.exp(s - m_new)
            alpha = ct.exp(m_i - m_new)
            l_i = l_i * alpha + ct.sum(p, axis=-1, keepdims=True)
            v = ct.reshape(ct.load(V, index=(bh, j, 0), shape=(1, TILE_N, D)), (TILE_N, D))
            acc = ct.mma(p.astype(Q.dtype), v, acc * alpha)
            m_i = m_new
        out = ct.reshape((acc / l_i).astype(O.dtype), (1, TILE_M, D))
        ct.store(O, index=(bh, bm, 0), tile=out)
        ct.store(O2, index=(bh, bm, 0), tile=out)

    @ct.kernel
    def mlp_chain_divided(X, W1, W2, Y, div: float, TILE_M: ct.Constant[int], TILE_H: ct.Constant[int],
                          D: ct.Constant[int], DOUT: ct.Constant[int], MODE: ct.Constant[int]):
        """``relu(X W1) W2 / div`` with the division as written (MODE 0), ``rounding_mode=APPROX`` (1)
        or ``FULL`` (2), approximate and flushing denormals to zero (3)."""
        bm = ct.bid(0)
        x = ct.load(X, index=(bm, 0), shape=(TILE_M, D))
        acc = ct.full((TILE_M, DOUT), 0.0, dtype=ct.float32)
        for j in range(ct.num_tiles(W1, axis=1, shape=(D, TILE_H))):
            h = ct.mma(x, ct.load(W1, index=(0, j), shape=(D, TILE_H)), ct.full((TILE_M, TILE_H), 0.0,
                                                                               dtype=ct.float32))
            acc = ct.mma(ct.maximum(h, 0.0).astype(X.dtype), ct.load(W2, index=(j, 0), shape=(TILE_H, DOUT)), acc)
        if MODE == 1:
            out = ct.truediv(acc, div, rounding_mode=ct.RoundingMode.APPROX)
        elif MODE == 2:
            out = ct.truediv(acc, div, rounding_mode=ct.RoundingMode.FULL)
        elif MODE == 3:
            out = ct.truediv(acc, div, rounding_mode=ct.RoundingMode.APPROX, flush_to_zero=True)
        else:
            out = acc / div
        ct.store(Y, index=(bm, 0), tile=out)


def _f32(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def _run(kernel, arrays, scalars, consts, grid, out_index=3, reads=()):
    """Compile ``kernel`` for ``arrays`` (numpy, C-contiguous; the first three are the TMA-loaded
    ones) and emulate every CTA of ``grid``; returns the program and the emulator's errors (the
    output arrays, ``out_index``: an index or a tuple of them, are written in place; ``reads``: the
    indices of arrays the kernel reads with global loads)."""
    from test_chained_dots import Dev

    from tileorch.driver import compile_program
    from tileorch.launchers import cutile as rc
    from tileorch.testing.ptx_emulator import Emu, chained_launch, stage_guards

    devs = tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, a.shape, "<f4" if a.dtype == np.float32 else "<f2")
                 for i, a in enumerate(arrays))
    args = devs + tuple(v for v, _ in scalars) + consts
    p = compile_program(rc.export_bytecode(kernel, rc.describe_arguments(kernel, args)), "<variant>")
    assert p.kind == "chained", p.remarks
    assert p.cubin is not None
    bases = [(i + 1) << 32 for i in range(len(arrays))]
    params = [0, 0, 0]  # the tensor maps, then each array's base, shape and strides, then the scalars
    for b, a in zip(bases, arrays):
        params += [b, *a.shape, *(int(np.prod(a.shape[i + 1:])) for i in range(a.ndim))]
    params += [_f32(v) if t == "f" else v for v, t in scalars]
    outs, errors = (out_index if isinstance(out_index, tuple) else (out_index,)), []
    memory = [(bases[i], arrays[i].view(np.uint8).reshape(-1), f"array{i}") for i in (*outs, *reads)]
    params, ctaids, nctaid = chained_launch(p.chained, (grid[0], grid[1], 1), params)
    for ctaid in ctaids:
        emu = Emu(p.ptx, params, p.chained["smem"], p.chained["threads"], ctaid, {}, memory,
                  guards=stage_guards(p.chained), nctaid=nctaid)
        emu.tmaps = {emu.params[i]: {"array": a if a.ndim == 3 else a[None], **t}
                     for i, a, t in zip(range(3), arrays, p.chained["tmaps"])}
        emu.run()
        errors += emu.errors
    return p, errors


def _softmax_pv(q, k, v, scale, cap=None):
    s = q.astype(np.float32) @ k.astype(np.float32).transpose(0, 2, 1)
    if cap:
        s = cap * np.tanh(s / cap)
    s = s * scale
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float32)


def _check(out, ref, errors, atol=3e-3):
    assert not errors, errors[:4]
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out.astype(np.float32), ref, atol=atol, rtol=1e-2)


@pytest.mark.parametrize("d,tile_m,tile_n,softcap,out_dtype", [(64, 128, 128, False, np.float32),
                                                               (32, 128, 32, False, np.float16),
                                                               (64, 64, 32, True, np.float16)])
def test_natural_exp_attention(d, tile_m, tile_n, softcap, out_dtype):
    from tileorch.testing.attention_programs import attention_fwd_natural

    seq, rng = 77, np.random.default_rng(d + tile_n)
    q, k, v = (rng.standard_normal((1, seq, d)).astype(np.float16) for _ in range(3))
    if softcap:
        k = (4 * k).astype(np.float16)  # scores large enough for the cap to matter
    o = np.full((1, seq, d), np.nan, dtype=out_dtype)
    scale, cap = 1 / math.sqrt(d), 5.0
    _, errors = _run(attention_fwd_natural, (q, k, v, o), [(scale, "f"), (cap, "f"), (seq, "i")],
                     (tile_m, tile_n, d, softcap), (-(-seq // tile_m), 1))
    _check(o, _softmax_pv(q, k, v, scale, cap if softcap else None), errors)


@pytest.mark.parametrize("d,tile_m,tile_n,q_rows", [(64, 128, 128, 128), (32, 128, 64, 256)])
def test_transposed_k_attention(d, tile_m, tile_n, q_rows):
    """(``q_rows``: d32 with 64-wide key tiles runs as four row groups by default, S 32 + P 16 + O 16 + m, l 4 = 68
    of their 100 registers: a 256-row Q box; d64 128x128 needs 132: two groups, the program's 128 rows.)"""
    from tileorch.testing.attention_programs import attention_fwd_kt

    seq, rng = 150, np.random.default_rng(d)
    q, k, v = (rng.standard_normal((1, seq, d)).astype(np.float16) for _ in range(3))
    kt = np.ascontiguousarray(k.transpose(0, 2, 1))
    o = np.full((1, seq, d), np.nan, dtype=np.float16)
    scale = 1 / math.sqrt(d)
    p, errors = _run(attention_fwd_kt, (q, kt, v, o), [(scale / math.log(2), "f"), (seq, "i")], (tile_m, tile_n, d),
                     (-(-seq // tile_m), 1))
    assert [t["rows"] for t in p.chained["tmaps"]] == [q_rows, d, tile_n]  # K^T tile [d, tn]: N-major
    _check(o, _softmax_pv(q, k, v, scale), errors)


def test_silu_mlp_chain():
    from tileorch.testing.attention_programs import mlp_silu

    m, d, hidden, dout = 130, 32, 96, 32
    rng = np.random.default_rng(1)
    x = rng.standard_normal((m, d)).astype(np.float16)
    w1 = (rng.standard_normal((d, hidden)) / math.sqrt(d)).astype(np.float16)
    w2 = (rng.standard_normal((hidden, dout)) / math.sqrt(hidden)).astype(np.float16)
    y = np.full((m, dout), np.nan, dtype=np.float32)
    _, errors = _run(mlp_silu, (x, w1, w2, y), [(0.5, "f")], (64, 32, d, dout), (-(-m // 64), 1))
    h = x.astype(np.float32) @ w1.astype(np.float32)
    h = (h / (1 + np.exp(-h))).astype(np.float16).astype(np.float32)
    _check(y, 0.5 * (h @ w2.astype(np.float32)), errors)


@pytest.mark.parametrize("mode,ptx", [(0, "div.rn.f32"), (1, "div.approx.f32"), (2, "div.full.f32"),
                                      (3, "div.approx.ftz.f32")])
def test_division_rounding_mode(mode, ptx):
    """The program's division keeps its rounding mode: IEEE (``div.rn``) as written with ``/``, the
    approximate ``div.approx`` / ``div.full`` where the program asks ``rounding_mode=APPROX`` /
    ``FULL`` (``.ftz`` with ``flush_to_zero``; the epilogue of a chained kernel, evaluated per accumulator element)."""
    m, d, hidden, dout = 130, 32, 96, 32
    rng = np.random.default_rng(5)
    x = rng.standard_normal((m, d)).astype(np.float16)
    w1 = (rng.standard_normal((d, hidden)) / math.sqrt(d)).astype(np.float16)
    w2 = (rng.standard_normal((hidden, dout)) / math.sqrt(hidden)).astype(np.float16)
    y = np.full((m, dout), np.nan, dtype=np.float32)
    p, errors = _run(mlp_chain_divided, (x, w1, w2, y), [(3.0, "f")], (64, 32, d, dout, mode), (-(-m // 64), 1))
    divisions = {x for x in ("div.rn.f32", "div.approx.f32", "div.full.f32", "div.approx.ftz.f32") if x in p.ptx}
    assert divisions == {ptx}, divisions
    h = np.maximum(x.astype(np.float32) @ w1.astype(np.float32), 0).astype(np.float16).astype(np.float32)
    _check(y, (h @ w2.astype(np.float32)) / 3.0, errors)


@pytest.mark.parametrize("mode", ["plain", "overlap"])
@pytest.mark.parametrize("seq,tile_m,tile_n", [(77, 64, 64), (150, 128, 64), (1, 128, 128)])
def test_log_sum_exp_store(seq, tile_m, tile_n, mode, monkeypatch):
    """attention_fwd_lse: O and the rows' log-sum-exp ``m + ln l`` (``ct.log``, a second store of a
    ``[1, tm]`` row vector after the loop) on the chained path: one f32 per row from the quad's
    thread holding column 0, ragged rows skipped; both outputs NaN-prefilled, against numpy."""
    from tileorch.testing.attention_programs import attention_fwd_lse

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if mode == "overlap" else "0")
    d, rng = 64, np.random.default_rng(seq + tile_m)
    q, k, v = (rng.standard_normal((1, seq, d)).astype(np.float16) for _ in range(3))
    o = np.full((1, seq, d), np.nan, dtype=np.float16)
    lse = np.full((1, seq), np.nan, dtype=np.float32)
    scale = 1 / math.sqrt(d)
    p, errors = _run(attention_fwd_lse, (q, k, v, o, lse), [(scale, "f"), (seq, "i")], (tile_m, tile_n, d),
                     (-(-seq // tile_m), 1), out_index=(3, 4))
    assert p.chained["pipelined"] == (mode == "overlap")
    assert "lg2.approx.f32" in p.ptx
    _check(o, _softmax_pv(q, k, v, scale), errors)
    s = (q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)) * scale
    ref = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
    assert not np.isnan(lse).any(), "unwritten log-sum-exp rows"
    np.testing.assert_allclose(lse, ref, atol=1e-3, rtol=1e-4)


def test_a_second_tile_store_is_refused_with_a_location():
    """Besides the accumulator tile only a row vector is stored: a second ``[tm, D]`` tile store is
    refused with the program's line (the SIMT path takes the program).  64x32 tiles of head dim 32:
    the same refusal as 64x64x64, whose SIMT fallback costs three times the CPU (12 s); the lowering
    only (``lower_once``: the fallback's back end was ~5 of the test's 6 CPU seconds)."""
    from test_chained_dots import Dev

    from tileorch.launchers import cutile as rc
    from tileorch.testing.compile_memo import lower_once

    tm, tn, d = 64, 32, 32
    args = tuple(Dev(0x7F0000000000 + (i + 1) * 0x10000000, (2, 256, d)) for i in range(5)) + (0.18, 256, tm, tn, d)
    p = lower_once(rc.export_bytecode(attention_two_tiles, rc.describe_arguments(attention_two_tiles, args)),
                   "<two tiles>")
    assert p.kind == "simt"
    assert any("test_chained_variants.py:" in r and f"a second store of a [1, {tm}, {d}] tile" in r for r in p.remarks), \
        p.remarks


@pytest.mark.parametrize("mode", ["plain", "overlap"])
@pytest.mark.parametrize("m,hidden,tile_m,tile_h", [(200, 200, 128, 64), (77, 96, 64, 32)])
def test_mlp_bias_in_the_loop(m, hidden, tile_m, tile_h, mode, monkeypatch):
    """``relu(X W1 + b1) W2`` with the bias row loaded in the loop (a third loop load): each thread
    reads its columns of tile j's bias slice from global memory (zero past the ragged end)."""
    from tileorch.testing.attention_programs import mlp_bias

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if mode == "overlap" else "0")
    d, dout, rng = 64, 64, np.random.default_rng(m + hidden)
    x = rng.standard_normal((m, d)).astype(np.float16)
    w1 = (rng.standard_normal((d, hidden)) / 8).astype(np.float16)
    w2 = (rng.standard_normal((hidden, dout)) / math.sqrt(hidden)).astype(np.float16)
    b1 = rng.standard_normal((1, hidden)).astype(np.float16)
    y = np.full((m, dout), np.nan, dtype=np.float32)
    p, errors = _run(mlp_bias, (x, w1, w2, b1, y), [], (tile_m, tile_h, d, dout), (-(-m // tile_m), 1),
                     out_index=4, reads=(3,))
    assert p.chained["pipelined"] == (mode == "overlap")
    h = np.maximum(x.astype(np.float32) @ w1.astype(np.float32) + b1.astype(np.float32), 0)
    _check(y, h.astype(np.float16).astype(np.float32) @ w2.astype(np.float32), errors, atol=1e-2)
