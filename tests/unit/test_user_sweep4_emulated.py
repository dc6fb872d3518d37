"""Fourth user sweep (``tileorch.testing.user_programs4``): the f16 programs the tensor-core tiers
take, their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the
same inputs, outputs NaN-prefilled (the helpers of test_user_sweep3_emulated.py: every CTA of the
persistent grid, the launcher's own problem derivation and tensor maps).  GEMMs (a split-K over
contiguous K ranges with atomics into a zeroed C, a residual + layer-norm epilogue over the whole
row, a transposed output, 64 x 64 tiles over ragged M, N and K) and chained-dots programs
(GQA on [B, S, H, D], head dim 96 padded, causal with a finite mask and bottom-right aligned, a
symmetric window, a [B, H, S, S] bias, an LSE output beside O written [B, S, H, D], Q loaded in
the loop, a key-padding mask tensor, an MLP with different tiles).  bf16 / int8 programs run on
the GPU (tests/gpu/test_user_sweep4_gpu.py).  Needs cuda-tile."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402

from tileorch.testing.user_programs4 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(4121)


@pytest.fixture(autouse=True)
def _fourth_sweep(monkeypatch):
    """The third sweep's runners look programs up in ``user_programs3.PROGRAMS``: add this sweep's."""
    from tileorch.testing import user_programs3

    monkeypatch.setattr(user_programs3, "PROGRAMS", {**user_programs3.PROGRAMS, **PROGRAMS})


def add_sweep_programs(monkeypatch, programs: dict) -> None:
    """For a later sweep's emulated tests: its ``programs`` where the third sweep's runners look
    programs up (``user_programs3.PROGRAMS``) and where :func:`_s3_gemm` reads launch grids (this
    module's ``PROGRAMS``), for the test (``monkeypatch``) only."""
    from tileorch.testing import user_programs3

    monkeypatch.setattr(user_programs3, "PROGRAMS", {**user_programs3.PROGRAMS, **programs})
    monkeypatch.setattr(sys.modules[__name__], "PROGRAMS", {**PROGRAMS, **programs})


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _mm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def _check(out, ref, atol=3e-3, rtol=1e-2):
    assert not np.isnan(np.asarray(out, np.float64)).any(), "unwritten outputs"
    np.testing.assert_allclose(np.asarray(out, np.float64), ref, atol=atol, rtol=rtol)


def _softmax_attn(s, v):
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)


def _scores(q, k, scale):
    return (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale


# ----------------------------------------------------------------------------------------------- GEMM


def test_split_k_ranges_atomic_into_zeroed_c():
    """K = 448 in 7 tiles of 64 over 3 splits of 3, 3 and 1 tiles (``min`` of the last range):
    each split's partial product atomically added into C, which starts at zero."""
    a, b = _h(128, 448), _h(448, 128)
    c = _s3_gemm("mm_splitk_ranges_atomic", {0: a, 1: b, 2: np.zeros((128, 128), np.float32)})[2]
    _check(c, _mm(a, b), 1e-3, 1e-5)


def test_residual_layernorm_epilogue():
    a, b = _h(256, 128), _h(128, 128, scale=0.2)
    r = _h(256, 128)
    w = RNG.standard_normal(128).astype(np.float32)
    bb = RNG.standard_normal(128).astype(np.float32)
    y = _s3_gemm("mm_residual_layernorm", {0: a, 1: b, 2: r, 3: w, 4: bb})[5]
    h = _mm(a, b) + r
    ref = (h - h.mean(1, keepdims=True)) / np.sqrt(h.var(1, keepdims=True) + 1e-5) * w + bb
    _check(y, ref, 1e-2, 5e-3)


def test_store_transposed():
    a, b = _h(128, 128), _h(128, 256)
    ct = _s3_gemm("mm_store_transposed", {0: a, 1: b})[2]
    _check(ct, _mm(a, b).T, 6e-2, 2e-3)


def test_k_tail_bias_every_dimension_ragged():
    """M = 100, N = 200, K = 72 with 64 x 64 program tiles (the kernel's 128 x 128 tiles): the K
    tail's padding zero, the stores clipped at 100 x 200."""
    a, b = _h(100, 72), _h(72, 200)
    bias = RNG.standard_normal(200).astype(np.float32)
    c = _s3_gemm("mm_k_tail_bias_64", {0: a, 1: b, 2: bias})[3]
    _check(c, _mm(a, b) + bias, 2e-2, 2e-3)


def test_batched_b_transposed_by_a_3d_permute():
    """``W [L, N, K]`` tiles ``(1, tn, tk)`` turned by ``ct.permute(w, (0, 2, 1))`` and reshaped: found
    by this sweep (refused as 'B reaches the dot without a transpose'; now the K-major B of the
    batched kernel)."""
    a, w = _h(2, 128, 128), _h(2, 256, 128)
    c = _s3_gemm("mm_batched_permute_bt", {0: a, 1: w})[2]
    _check(c, a.astype(np.float64) @ w.astype(np.float64).transpose(0, 2, 1), 6e-2, 2e-3)


def _s3_gemm(name, inputs):
    """test_user_sweep3_emulated._gemm, with the scheduler's L the launch grid's z when the kernel
    reads program id 2 (split-K: every split runs; a batched GEMM: every batch)."""
    from tileorch.testing import gemm_emulation

    p = PROGRAMS[name]
    real = gemm_emulation.run_gemm

    def run_gemm(prog, a, b, c_base, mnk, tile_params=(), memory=(), problem=None, sms=2, more_b=(), **more):
        if (getattr(prog.gemm_config, "grid_l", False) or getattr(prog.gemm_config, "batched", False)) \
                and problem is None:
            problem = (*mnk, p.grid[2])
        return real(prog, a, b, c_base, mnk, tile_params, memory, problem, sms, more_b, **more)

    gemm_emulation.run_gemm = run_gemm
    try:
        return s3._gemm(name, inputs)
    finally:
        gemm_emulation.run_gemm = real


# ----------------------------------------------------------------------------------------------- chained dots
# Several tests run their program on 128 keys (two key tiles) where the compile and GPU tests'
# spec has 256: the same compiled program (test_user_sweep3_emulated.resized checks the export).


def _keys(name, n, positions=(1, 2), axis=-2):
    """``PROGRAMS[name]`` with ``n`` keys along ``axis`` of the arrays at ``positions``."""
    from tileorch.testing.user_programs3 import PROGRAMS as TABLE

    shapes = {}
    for i in positions:
        shape = list(TABLE[name].spec[i][0])
        shape[axis] = n
        shapes[i] = tuple(shape)
    return s3.resized(name, shapes)


def test_gqa_on_bshd():
    q, k, v = _h(2, 256, 4, 64), _h(2, 128, 2, 64), _h(2, 128, 2, 64)
    o = s3._chained("attn_gqa_bshd", {0: q, 1: k, 2: v}, (2, 8, 1), program=_keys("attn_gqa_bshd", 128, axis=1))[3]
    qh, kh, vh = (t.transpose(0, 2, 1, 3) for t in (q, k, v))  # [B, H, S, D]
    kh, vh = kh[:, [0, 0, 1, 1]], vh[:, [0, 0, 1, 1]]  # head h reads K/V head h // 2
    _check(o, _softmax_attn(_scores(qh, kh, 0.125), vh).transpose(0, 2, 1, 3))


def test_head96_padded_on_bshd():
    q, k, v = _h(2, 256, 2, 96), _h(2, 128, 2, 96), _h(2, 128, 2, 96)
    p = _keys("attn_head96_bshd", 128, axis=1)
    o = s3._chained("attn_head96_bshd", {0: q, 1: k, 2: v}, (2, 4, 1), program=p)[3]
    qh, kh, vh = (t.transpose(0, 2, 1, 3) for t in (q, k, v))
    _check(o, _softmax_attn(_scores(qh, kh, 1 / math.sqrt(96)), vh).transpose(0, 2, 1, 3))


def _causal(q, k, v, scale, offset=0):
    s = _scores(q, k, scale)
    qpos = np.arange(q.shape[-2])[:, None] + offset
    kpos = np.arange(k.shape[-2])[None, :]
    return _softmax_attn(np.where(kpos <= qpos, s, -np.inf), v)


def test_causal_finite_mask_square_tiles():
    """192 positions (the shared spec's 256; the same program): query tile 2 runs 3 key tiles."""
    q, k, v = _h(2, 192, 64), _h(2, 192, 64), _h(2, 192, 64)
    p = s3.resized("attn_causal_finite_mask", {i: (2, 192, 64) for i in range(4)})
    o = s3._chained("attn_causal_finite_mask", {0: q, 1: k, 2: v}, (3, 2, 1), program=p)[3]
    _check(o, _causal(q, k, v, 0.125))


def test_causal_bottom_right_kv_cache():
    """128 queries at positions 192 .. 319 of 320 keys."""
    q, k, v = _h(2, 128, 64), _h(2, 320, 64), _h(2, 320, 64)
    o = s3._chained("attn_causal_bottom_right", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _causal(q, k, v, 0.125, offset=192))


def test_symmetric_local_window():
    """A 40-key window over 256 positions (the shared spec's 100 over 384; the same program):
    query tiles 2 and 3 start their key loops past tile 0 (rows 168.. of tile 2 first visit a key
    tile wholly outside their window), tile 3's loop end clipped at S."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    p = s3.resized("attn_local_window", {i: (2, 256, 64) for i in range(4)}, {5: 40})
    o = s3._chained("attn_local_window", {0: q, 1: k, 2: v}, (4, 2, 1), program=p)[3]
    pos = np.arange(256)
    keep = np.abs(pos[None, :] - pos[:, None]) <= 40
    _check(o, _softmax_attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_bias_per_batch_and_head():
    from test_user_sweep_interp import _bf16_bits

    q, k, v = _h(2, 2, 256, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    bias = (RNG.standard_normal((2, 2, 256, 128)) * 2).astype(np.float32)
    bits = _bf16_bits(bias)
    bias = (bits.astype(np.uint32) << 16).view(np.float32)  # the bf16 values the kernel reads
    p = s3.resized("attn_bias_bhss", {1: (2, 2, 128, 64), 2: (2, 2, 128, 64), 3: (2, 2, 256, 128)})
    o = s3._chained("attn_bias_bhss", {0: q, 1: k, 2: v, 3: bits.view(np.uint16)}, (2, 2, 2), program=p)[4]
    _check(o, _softmax_attn(_scores(q, k, 0.125) + bias, v))


def test_lse_beside_o_written_bshd():
    q, k, v = _h(2, 2, 256, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    arrays = s3._chained("attn_lse_bshd_out", {0: q, 1: k, 2: v}, (2, 2, 2), program=_keys("attn_lse_bshd_out", 128))
    s = _scores(q, k, 0.125)
    _check(arrays[3], _softmax_attn(s, v).transpose(0, 2, 1, 3))
    mx = s.max(-1)
    _check(arrays[4], mx + np.log(np.exp(s - mx[..., None]).sum(-1)), 1e-4, 1e-5)


def test_q_loaded_inside_the_loop():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)
    o = s3._chained("attn_q_in_loop", {0: q, 1: k, 2: v}, (2, 2, 1), program=_keys("attn_q_in_loop", 128))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_attention_without_a_loop():
    """All 128 keys in one tile, a plain softmax between the two dots, no loop (session 26: a key loop of one trip,
    the chained tier): against the f64 softmax, O NaN-prefilled."""
    q, k, v = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    o = s3._chained("attn_short_no_loop", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_key_padding_mask_tensor():
    """192 keys (the shared spec's 256; the same program): three key tiles, the middle one of
    batch 1 wholly masked."""
    q, k, v = _h(2, 256, 64), _h(2, 192, 64), _h(2, 192, 64)
    mask = (RNG.random((2, 192)) < 0.7).astype(np.int8)
    mask[:, 0] = 1
    mask[1, 64:128] = 0  # a whole key tile masked
    p = s3.resized("attn_key_padding_mask", {1: (2, 192, 64), 2: (2, 192, 64), 3: (2, 192)})
    o = s3._chained("attn_key_padding_mask", {0: q, 1: k, 2: v, 3: mask}, (2, 2, 1), program=p)[4]
    s = np.where(mask[:, None, :] != 0, _scores(q, k, 0.125), -np.inf)
    _check(o, _softmax_attn(s, v))


def test_mlp_up_down_different_tiles():
    x = _h(128, 64)
    w1, b1, w2 = _h(64, 256, scale=0.125), RNG.standard_normal(256).astype(np.float32), _h(256, 128, scale=0.06)
    y = s3._chained("mlp_up_down_tiles", {0: x, 1: w1, 2: b1, 3: w2}, (2, 1, 1))[4]
    h = _mm(x, w1) + b1
    g = (h / (1 + np.exp(-1.702 * h))).astype(np.float16).astype(np.float64)
    _check(y, g @ w2.astype(np.float64), 1e-2)


def test_causal_two_loops_fused():
    """FlashAttention-2's causal loops written by hand (``range(full)`` unmasked, then
    ``range(full, diag_end)`` masked): found by this sweep (the tier refused the two loops with an
    internal warp-count message; tileas-fuse-split-loops now fuses ``range(a, X)``, ``range(X, n)``
    into one loop over ``[min(a, X), max(X, n))`` with the branch at X)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = s3._chained("attn_causal_two_loops", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _causal(q, k, v, 0.125))


def test_v_stored_transposed_f32_out():
    q, k = _h(2, 256, 64), _h(2, 128, 64)
    vt = _h(2, 64, 128)
    p = s3.resized("attn_vt_layout", {1: (2, 128, 64), 2: (2, 64, 128)})
    o = s3._chained("attn_vt_layout", {0: q, 1: k, 2: vt}, (2, 2, 1), program=p)[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), vt.transpose(0, 2, 1)))


def test_causal_key_tiles_wider_than_query_tiles():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = s3._chained("attn_causal_bn_wider", {0: q, 1: k, 2: v}, (4, 2, 1))[3]
    _check(o, _causal(q, k, v, 0.125))


def test_mlp_block_with_residual():
    x = _h(192, 64)
    w1, w2 = _h(64, 256, scale=0.125), _h(256, 64, scale=0.06)
    b2 = RNG.standard_normal(64).astype(np.float32)
    y = s3._chained("mlp_residual_out", {0: x, 1: w1, 2: w2, 3: b2}, (3, 1, 1), tma_arrays_in_memory=True)[4]
    h = np.maximum(_mm(x, w1), 0).astype(np.float16).astype(np.float64)
    _check(y, x.astype(np.float64) + h @ w2.astype(np.float64) + b2, 1e-2)


def test_key_tiles_visited_last_to_first():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)
    o = s3._chained("attn_reverse_keys", {0: q, 1: k, 2: v}, (2, 2, 1), program=_keys("attn_reverse_keys", 128))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_v_from_another_head_than_k():
    """V of head ``(h + 1) % 3`` beside K of head h: the two loads' coordinates differ."""
    q, k, v = _h(3, 256, 64), _h(3, 128, 64), _h(3, 128, 64)
    o = s3._chained("attn_v_other_head", {0: q, 1: k, 2: v}, (2, 3, 1), program=_keys("attn_v_other_head", 128))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v[[1, 2, 0]]))


def test_k_loop_backwards():
    a, b = _h(128, 256), _h(256, 128)
    c = _s3_gemm("mm_reverse_k", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 1e-3, 1e-5)


def test_valid_rows_mask_on_swapped_grid_axes():
    a, b = _h(256, 128), _h(128, 256)
    c = _s3_gemm("mm_valid_rows_mask", {0: a, 1: b})[2]
    ref = _mm(a, b)
    ref[150:] = 0
    _check(c, ref, 6e-2, 2e-3)


@pytest.mark.parametrize("name,b_shape", [("mm_broadcast_b_2d", (128, 256)),
                                          ("mm_broadcast_b_unit_batch", (1, 128, 256))])
def test_batched_gemm_with_one_b_for_every_batch(name, b_shape):
    """A ``[3, M, K]`` times one B (2-D, or ``[1, K, N]`` read at batch 0): found by this sweep (refused,
    the SIMT path ran it); now a batched kernel whose B map holds one matrix, loaded at batch 0."""
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    prog = compile_cutile(p.kernel, p.spec, name, config="cluster_m=1,epilogue=direct")
    assert prog.gemm_config.batched and prog.gemm_config.b_shared, prog.remarks
    a, b = _h(3, 128, 128), _h(*b_shape)
    c = _s3_gemm(name, {0: a, 1: b})[2]
    _check(c, a.astype(np.float64) @ b.reshape(128, 256).astype(np.float64), 6e-2 if c.dtype == np.float16 else 1e-3,
           2e-3)


def test_shared_b_with_a_per_batch_scale_in_the_epilogue():
    """One W for 3 batches of 200 rows (ragged in each batch), the epilogue's scale gathered at
    program id 2: the batched kernel's work-tile batch must stand in for it."""
    a, w = _h(3, 200, 128), _h(128, 256)
    sc = np.array([0.5, -2.0, 3.0], np.float32)
    bias = RNG.standard_normal(256).astype(np.float32)
    c = _s3_gemm("mm_shared_b_batch_scale", {0: a, 1: w, 2: sc, 3: bias})[4]
    _check(c, (a.astype(np.float64) @ w.astype(np.float64)) * sc[:, None, None] + bias, 1e-3, 1e-5)


def test_paged_kv_attention():
    """Paged attention: found by this sweep (refused: 'a TMA load depends on nv_tileaa.load, which the
    producer agent cannot replay'); the producer now replays the scalar read of the block table for
    each page's TMA coordinate.  Sequences of 200, 64 and 130 keys over 12 scattered pages."""
    q = _h(3, 64, 64)
    kc, vc = _h(12, 64, 64), _h(12, 64, 64)
    table = RNG.permutation(12).astype(np.int32).reshape(3, 4)
    lens = np.array([200, 64, 130], np.int32)
    o = s3._chained("attn_paged_kv", {0: q, 1: kc, 2: vc, 3: table, 4: lens}, (3, 1, 1))[5]
    for b in range(3):
        k = kc[table[b]].reshape(256, 64)[:lens[b]]
        v = vc[table[b]].reshape(256, 64)[:lens[b]]
        _check(o[b], _softmax_attn(_scores(q[b], k, 0.125), v))


def test_decode_sixteen_rows_padded_to_the_wgmma_m():
    """16 query rows per (batch, head) (session 15: the WGMMA's M padded to 64, the Q box's rows past
    the array's 16 zero-filled, the padded rows never stored; outputs NaN-prefilled)."""
    q, k, v = _h(4, 16, 64), _h(4, 256, 64), _h(4, 256, 64)
    o = s3._chained("attn_decode_small_tile", {0: q, 1: k, 2: v}, (4, 1, 1))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))
