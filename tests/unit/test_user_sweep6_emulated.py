"""Sixth user sweep (``tileorch.testing.user_programs6``): the f16 programs the tensor-core tiers
take, their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the
same inputs, outputs NaN-prefilled (the helpers of test_user_sweep3/4_emulated.py: every CTA, the
launcher's own problem derivation and tensor maps).  Chained dots: causal 128 x 64 tiles in two
loops on ``[B, H, S, D]`` at head dim 128 on a three-axis grid, split-KV decoding, a compile-time
scale with natural exp, a V head dim below the QK one, K stored ``[BH, D, S]``, document masks, a
prefix-LM mask, per-row temperatures, causal linear attention, a bool mask tensor, a KV-cache
length at launch.  GEMMs: a row-softmax epilogue over ragged columns, strided split-K into an
atomic add over ragged edges.  bf16 / int8 programs and two outputs sharing A (the GEMM harness
maps one B operand) run on the GPU (tests/gpu/test_user_sweep6_gpu.py).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs6 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(6131)
LOG2E = 1.4426950408889634


@pytest.fixture(autouse=True)
def _sixth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


_mm, _check = s4._mm, s4._check
_attn, _scores = s4._softmax_attn, s4._scores  # softmax(s) v in float64; q k^T * scale


def _causal(sq, sk):
    return np.arange(sk)[None, :] <= np.arange(sq)[:, None]


def _chained(name, inputs, grid3, program=None):
    return s3._chained(name, inputs, grid3, program=program)


def _smaller(name, shapes, scalars=None):
    """The program at smaller launch-time sizes than the compile and GPU tests' (the same compiled
    program: test_user_sweep3_emulated.resized checks its export): fewer key tiles or program
    instances for the emulator, each kept at two or more (loops of several trips, ragged tails and
    every grid axis's offset kept)."""
    return s3.resized(name, shapes, scalars)


# ----------------------------------------------------------------------------------------------- chained dots


def test_bhsd_three_axis_grid_causal_128x64_head128():
    q, k, v = _h(1, 2, 256, 128), _h(1, 2, 256, 128), _h(1, 2, 256, 128)
    o = _chained("attn_bhsd_grid3_causal_d128", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    s = np.where(_causal(256, 256), _scores(q, k, 1 / np.sqrt(128)), -np.inf)
    _check(o, _attn(s, v))


def test_decode_split_kv_partials_and_lse():
    """8 query rows in a zero-padded 64-row tile; 2 splits of 128 keys (two key tiles each) on 2
    heads (the compile and GPU tests' 4 splits on 4 heads: the same program): each split's
    normalised partial O and its LSE (log2) against numpy; the combine (SIMT) is
    test_user_sweep6_interp's."""
    q, k, v = _h(2, 8, 64), _h(2, 256, 64), _h(2, 256, 64)
    p = _smaller("attn_decode_split_kv", {0: (2, 8, 64), 1: (2, 256, 64), 2: (2, 256, 64), 3: (2, 2, 8, 64),
                                          4: (2, 2, 8)})
    out = _chained("attn_decode_split_kv", {0: q, 1: k, 2: v}, (2, 2, 1), p)
    for sp in range(2):
        sl = slice(128 * sp, 128 * sp + 128)
        s = _scores(q, k[:, sl], 0.125)
        _check(out[3][sp], _attn(s, v[:, sl]))
        m = s.max(-1)
        lse2 = (m + np.log(np.exp(s - m[..., None]).sum(-1))) * LOG2E
        _check(out[4][sp], lse2, 1e-3, 1e-4)


def test_compile_time_scale_natural_exp_64x128():
    """Two 64-row query tiles per head over two 128-key tiles."""
    q, k, v = _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64)
    p = _smaller("attn_const_scale_exp", {0: (2, 128, 64), 3: (2, 128, 64)})
    o = _chained("attn_const_scale_exp", {0: q, 1: k, 2: v}, (2, 2, 1), p)[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_v_head_dim_below_qk_head_dim():
    q, k, v = _h(2, 256, 128), _h(2, 256, 128), _h(2, 256, 64)
    o = _chained("attn_dv_below_dqk", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _attn(_scores(q, k, 1 / np.sqrt(128)), v))


def test_k_stored_head_dim_major():
    q, kt, v = _h(2, 256, 64), _h(2, 64, 256), _h(2, 256, 64)
    o = _chained("attn_k_dmajor", {0: q, 1: kt, 2: v}, (2, 2, 1))[3]
    _check(o, _attn(_scores(q, kt.transpose(0, 2, 1), 0.125), v))


def test_document_ids_and_causal():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    seg = np.stack([np.repeat([0, 1, 2], [70, 100, 86]), np.repeat([0, 1], [200, 56])]).astype(np.int32)
    o = _chained("attn_segment_ids_causal", {0: q, 1: k, 2: v, 3: seg}, (4, 2, 1))[4]
    keep = _causal(256, 256)[None] & (seg[:, :, None] == seg[:, None, :])
    _check(o, _attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_prefix_lm_mask():
    """192 positions, a 100-key prefix (ending inside the second key tile): query tile 0 runs past
    its diagonal into the prefix (2 key tiles), tile 2 past the prefix causally (3 key tiles)."""
    q, k, v = _h(2, 192, 64), _h(2, 192, 64), _h(2, 192, 64)
    p = _smaller("attn_prefix_lm", {i: (2, 192, 64) for i in range(4)}, {5: 100})
    o = _chained("attn_prefix_lm", {0: q, 1: k, 2: v}, (3, 2, 1), p)[3]
    keep = _causal(192, 192) | (np.arange(192)[None, :] < 100)
    _check(o, _attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_per_row_temperature():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # two key tiles (s4._keys)
    t = RNG.uniform(0.05, 0.4, (2, 256)).astype(np.float32)
    o = _chained("attn_row_temperature", {0: q, 1: k, 2: v, 3: t}, (2, 2, 1), s4._keys("attn_row_temperature", 128))[4]
    _check(o, _attn(_scores(q, k, 1.0) * t[:, :, None] / LOG2E, v))


def test_causal_linear_attention():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("linear_attn_causal", {0: q, 1: k, 2: v}, (4, 2, 1))[3]
    s = np.where(_causal(256, 256), _scores(q, k, 1 / 64), 0.0)
    s = s.astype(np.float16).astype(np.float64)  # the program casts the masked scores to f16
    _check(o, s @ v.astype(np.float64), 2e-3, 1e-2)


def test_bool_mask_tensor():
    q, k, v = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    mask = RNG.random((2, 128, 128)) < 0.3
    mask[:, :, 100] = True  # every row keeps a key
    mask[0, 5, :] = False
    mask[0, 5, 3] = True  # a row whose only key is in the first tile (its second tile wholly masked)
    p = _smaller("attn_bool_mask_tensor", {1: (2, 128, 64), 2: (2, 128, 64), 3: (2, 128, 128)})
    o = _chained("attn_bool_mask_tensor", {0: q, 1: k, 2: v, 3: mask}, (2, 2, 1), p)[4]
    _check(o, _attn(np.where(mask, _scores(q, k, 0.125), -np.inf), v))


def test_kv_cache_length_at_launch():
    """300 valid keys of 512 (5 tiles, the last with 44 keys); the rest of the cache is huge."""
    q, k, v = _h(2, 128, 64), _h(2, 512, 64), _h(2, 512, 64)
    k[:, 300:] = 60.0
    v[:, 300:] = 1000.0
    o = _chained("attn_kv_cache_len", {0: q, 1: k, 2: v}, (1, 2, 1))[3]
    _check(o, _attn(_scores(q, k[:, :300], 0.125), v[:, :300]))


# ----------------------------------------------------------------------------------------------- GEMM


def test_row_softmax_epilogue_ragged_columns():
    a, b = _h(192, 128), _h(128, 200, scale=0.5)
    c = s4._s3_gemm("mm_row_softmax_epilogue", {0: a, 1: b})[2]
    s = _mm(a, b) * 0.25
    e = np.exp(s - s.max(1, keepdims=True))
    _check(c, e / e.sum(1, keepdims=True), 2e-3, 1e-2)


def test_split_k_strided_atomic_ragged_edges():
    """M = 200, N = 136, K = 300 (5 K tiles over 3 splits: 2, 2, 1), C pre-zeroed f32."""
    a, b = _h(200, 300), _h(300, 136)
    c = s4._s3_gemm("mm_splitk_strided_atomic", {0: a, 1: b, 2: np.zeros((200, 136), np.float32)})[2]
    _check(c, _mm(a, b), 1e-3, 1e-5)


def test_both_operands_transposed_by_the_loads_ragged_k():
    at, bt = _h(200, 128), _h(256, 200)
    c = s4._s3_gemm("mm_both_order_loads", {0: at, 1: bt})[2]
    _check(c, _mm(at.T, bt.T), 1e-3, 1e-5)


def test_batched_gemm_written_for_strided_batches_contiguous_here():
    """Contiguous on the CPU (the GPU test passes a transpose(0, 1) view: a strided batch)."""
    a, b = _h(2, 128, 128), _h(2, 128, 256)
    c = s4._s3_gemm("mm_batched_strided_batch", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 6e-2, 2e-3)


@pytest.mark.parametrize("name", ["attn_range_step_bn", "attn_k_order_load", "attn_bn32"])
def test_loop_forms_and_narrow_key_tiles(name):
    """Triton's ``range(0, Sk, BN)`` key loop with the scale after the max, K^T by load order, and
    32-key tiles: plain attention each."""
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # 128 keys: 2 tiles of 64, 4 of 32 (s4._keys)
    o = _chained(name, {0: q, 1: k, 2: v}, (2, 2, 1), s4._keys(name, 128))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_row_state_1d_and_flat_lse():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # two key tiles (s4._keys)
    out = _chained("attn_lse_flat", {0: q, 1: k, 2: v}, (2, 2, 1), s4._keys("attn_lse_flat", 128))
    s = _scores(q, k, 0.125)
    _check(out[3], _attn(s, v))
    m = s.max(-1)
    _check(out[4], ((m + np.log(np.exp(s - m[..., None]).sum(-1))) * LOG2E).reshape(512), 1e-3, 1e-4)


def test_causal_mask_from_greater_equal_of_offsets():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_causal_greater_equal", {0: q, 1: k, 2: v}, (4, 2, 1))[3]
    _check(o, _attn(np.where(_causal(256, 256), _scores(q, k, 0.125), -np.inf), v))


def test_triton_tutorial_two_stages_causal():
    """Found by this sweep: the two stages' loops (bodies differing in more than an added mask) were
    refused as '2 loops with dots one after another'; tileas-fuse-split-loops fuses bodies with the
    same loads and dots, each stage's pure ops under its branch.  128-row query tiles over 64-key
    tiles: the first query tile has no stage-1 tile."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_triton_stages", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _attn(np.where(_causal(256, 256), _scores(q, k, 0.125), -np.inf), v))


def test_swapped_grid_v_loaded_first():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # two key tiles (s4._keys)
    p = s4._keys("attn_swapped_grid_v_first", 128)
    o = _chained("attn_swapped_grid_v_first", {0: q, 1: k, 2: v}, (2, 2, 1), p)[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_mask_under_an_if_on_the_last_key_tile():
    """72 keys (the shared spec's 200; the same program): a whole key tile, then the last one of 8."""
    q, k, v = _h(2, 256, 64), _h(2, 72, 64), _h(2, 72, 64)
    o = _chained("attn_if_last_tile", {0: q, 1: k, 2: v}, (2, 2, 1), s4._keys("attn_if_last_tile", 72))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_running_max_and_normaliser_side_outputs():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # two key tiles (s4._keys)
    out = _chained("attn_m_and_l_out", {0: q, 1: k, 2: v}, (2, 2, 1), s4._keys("attn_m_and_l_out", 128))
    s = _scores(q, k, 0.125 * LOG2E)  # log2 units, as the program keeps them
    _check(out[3], _attn(s / LOG2E, v))
    m = s.max(-1)
    _check(out[4], m, 1e-3, 1e-5)
    _check(out[5], np.exp2(s - m[..., None]).sum(-1), 1e-3, 1e-3)


def test_peeled_ragged_last_key_tile_rerolled():
    """Found by this sweep: the ragged last key tile written out after the loop (masked there) was
    refused; tileas-fuse-split-loops now takes the step as one more iteration (the mask under a
    branch on the last tile, the loads padded).  Sq = 100, Sk = 170 (two whole key tiles, one of 42)."""
    q, k, v = _h(2, 100, 64), _h(2, 170, 64), _h(2, 170, 64)
    o = _chained("attn_cross_peeled_last_tile", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_triton_two_stages_64_row_queries_128_key_tiles():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_triton_stages_bm64_bn128", {0: q, 1: k, 2: v}, (4, 2, 1))[3]
    _check(o, _attn(np.where(_causal(256, 256), _scores(q, k, 0.125), -np.inf), v))


def test_peeled_last_key_tile_updating_the_max_read_after_it():
    """300 keys: 4 whole tiles in the loop, 44 keys in the peeled step, whose updated max the LSE
    after it reads (the step's max is a twin of the loop's)."""
    q, k, v = _h(2, 128, 64), _h(2, 300, 64), _h(2, 300, 64)
    out = _chained("attn_peeled_with_lse", {0: q, 1: k, 2: v}, (2, 2, 1))
    s = _scores(q, k, 0.125)
    _check(out[3], _attn(s, v))
    m = s.max(-1)
    _check(out[4], (m + np.log(np.exp(s - m[..., None]).sum(-1))) * LOG2E, 1e-3, 1e-4)


def test_256_row_tiles_on_four_consumer_warp_groups():
    """256-row query tiles (session 17): four consumer warp groups of 112 registers (setmaxnreg) beside
    the producer's 24, the K/V ring released by 512 consumer threads; two instances of 256 rows per
    head, each over 4 key tiles (the ring's 4 stages: a CTA's second instance reuses them)."""
    q, k, v = _h(2, 512, 64), _h(2, 256, 64), _h(2, 256, 64)
    p = _smaller("attn_bm256", {1: (2, 256, 64), 2: (2, 256, 64)})
    o = _chained("attn_bm256", {0: q, 1: k, 2: v}, (2, 2, 1), p)[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


def test_head_dim_80_in_zero_padded_128_tiles():
    q, k, v = _h(2, 256, 80), _h(2, 128, 80), _h(2, 128, 80)
    p = _smaller("attn_head80_padded", {1: (2, 128, 80), 2: (2, 128, 80)})
    o = _chained("attn_head80_padded", {0: q, 1: k, 2: v}, (2, 2, 1), p)[3]
    _check(o, _attn(_scores(q, k, 0.125), v))


# ----------------------------------------------------------------------------------------------- lifted in session 15


def test_gqa_heads_packed_into_one_64_row_tile():
    """The ``(1, G, BM, D)`` query tile (G = 2 heads of 32 rows) reshaped to ``(G BM, D)``: one TMA
    box of 2 x 32 rows, stored back as ``(1, G, BM, D)``; query head ``h`` reads KV head ``h // 2``."""
    q, k, v = _h(2, 4, 64, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    p = _smaller("attn_gqa_packed_heads", {1: (2, 2, 128, 64), 2: (2, 2, 128, 64)})
    o = _chained("attn_gqa_packed_heads", {0: q, 1: k, 2: v}, (2, 4, 1), p)[3]
    kh, vh = k[:, [0, 0, 1, 1]], v[:, [0, 0, 1, 1]]
    _check(o, _attn(_scores(q, kh, 0.125), vh))


def test_gqa_decode_sixteen_rows_padded_to_the_wgmma_m():
    """16 query heads of one KV head as a 16-row tile: the WGMMA's M padded to 64 (the Q box reads
    the next heads, zero past the array); the 48 padded rows are never stored: the output is
    NaN-prefilled and checked whole."""
    q, k, v = _h(2, 32, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    o = _chained("attn_decode_gqa_rows", {0: q, 1: k, 2: v}, (4, 1, 1))[3]
    qh = q.reshape(2, 2, 16, 64)
    _check(o.reshape(2, 2, 16, 64), _attn(_scores(qh, k, 0.125), v))


def test_gqa_decode_padded_rows_are_never_stored():
    """48 query heads, the grid's programs read 32: a padded tile's rows 16..63 of the last group
    cover heads 32..47 (in bounds), which must stay NaN (unwritten)."""
    q, k, v = _h(2, 48, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    o = _chained("attn_decode_gqa_rows_spare_heads", {0: q, 1: k, 2: v}, (4, 1, 1))[3]
    assert np.isnan(o[:, 32:].astype(np.float64)).all()
    qh = q[:, :32].reshape(2, 2, 16, 64)
    _check(o[:, :32].reshape(2, 2, 16, 64), _attn(_scores(qh, k, 0.125), v))


def test_gqa_decode_thirty_two_rows():
    q, k, v = _h(2, 64, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    o = _chained("attn_decode_gqa_rows32", {0: q, 1: k, 2: v}, (4, 1, 1))[3]
    qh = q.reshape(2, 2, 32, 64)
    _check(o.reshape(2, 2, 32, 64), _attn(_scores(qh, k, 0.125), v))


def test_gqa_two_heads_of_sixteen_rows_padded():
    """G = 2 heads of BM = 16 rows: a 32-row tile padded to 64 by a box of 4 heads (the next
    group's heads, zero past the array's 4), the padded rows never stored; two query tiles over two
    key tiles."""
    q, k, v = _h(2, 4, 32, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    p = _smaller("attn_gqa_packed_heads_bm16", {0: (2, 4, 32, 64), 1: (2, 2, 128, 64), 2: (2, 2, 128, 64),
                                                3: (2, 4, 32, 64)})
    o = _chained("attn_gqa_packed_heads_bm16", {0: q, 1: k, 2: v}, (2, 4, 1), p)[3]
    kh, vh = k[:, [0, 0, 1, 1]], v[:, [0, 0, 1, 1]]
    _check(o, _attn(_scores(q, kh, 0.125), vh))


def test_gqa_decode_eight_rows():
    """8 query heads per KV head (an 8-row tile padded to 64: the Q box reads the next 56 heads, zero
    past the array's 16)."""
    q, k, v = _h(2, 16, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    o = _chained("attn_decode_gqa_rows8", {0: q, 1: k, 2: v}, (4, 1, 1))[3]
    qh = q.reshape(2, 2, 8, 64)
    _check(o.reshape(2, 2, 8, 64), _attn(_scores(qh, k, 0.125), v))


def test_gqa_decode_four_rows():
    """4 query heads per KV head (session 16: a 4-row tile, below the 8-row swizzle atom, padded to
    64 like the 8/16/32-row ones: the Q box reads 64 rows, the padded rows never stored)."""
    q, k, v = _h(2, 8, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    o = _chained("attn_decode_gqa_rows4", {0: q, 1: k, 2: v}, (4, 1, 1))[3]
    qh = q.reshape(2, 2, 4, 64)
    _check(o.reshape(2, 2, 4, 64), _attn(_scores(qh, k, 0.125), v))


def test_attention_sink_step_before_the_window_loop():
    """The sink key tile computed before the loop (no rescale there), the window's tiles from
    ``max(1, ..)``: tileas-fuse-split-loops runs the step as the loop's first iteration (the key
    tiles 0, then lb, lb + 1, ..); causal, a 100-key window and 4 sink keys over 384 keys."""
    q, k, v = _h(2, 384, 64), _h(2, 384, 64), _h(2, 384, 64)
    o = _chained("attn_sink_window", {0: q, 1: k, 2: v}, (6, 2, 1))[3]
    qi, kj = np.arange(384)[:, None], np.arange(384)[None, :]
    keep = (kj <= qi) & ((kj < 4) | (kj > qi - 100))
    _check(o, _attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_qk_norm_q_and_each_k_tile_normalised_in_shared_memory():
    """QK-norm: Q RMS-normalised (with its weight) in place after its load, each K tile in its ring
    stage before the first dot reads it (rowwise prologues), against numpy on the f16-rounded
    normalised operands as the program casts them."""
    q, k, v = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    wq, wk = RNG.uniform(0.5, 1.5, 64).astype(np.float32), RNG.uniform(0.5, 1.5, 64).astype(np.float32)
    p = _smaller("attn_qk_norm", {1: (2, 128, 64), 2: (2, 128, 64)})
    o = s3._chained("attn_qk_norm", {0: q, 1: k, 2: v, 3: wq, 4: wk}, (2, 2, 1), tma_arrays_in_memory=False,
                    program=p)[5]

    def rms(x, w):
        x = x.astype(np.float64)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w).astype(np.float16)

    _check(o, _attn(_scores(rms(q, wq), rms(k, wk), 0.125), v), 4e-3, 1e-2)


def test_qk_norm_128_row_tiles_ragged_keys():
    """Two consumer warp groups (four threads per K row), 72 keys (the compile and GPU tests' 200:
    the same program): the last K tile's 56 rows past the array are zero-filled, normalised to
    zero keys, and the program's unmasked softmax counts them (scores 0), as numpy does with the
    zero-padded keys."""
    q, k, v = _h(2, 256, 64), _h(2, 72, 64), _h(2, 72, 64)
    wq, wk = RNG.uniform(0.5, 1.5, 64).astype(np.float32), RNG.uniform(0.5, 1.5, 64).astype(np.float32)
    p = _smaller("attn_qk_norm_bm128", {1: (2, 72, 64), 2: (2, 72, 64)})
    o = s3._chained("attn_qk_norm_bm128", {0: q, 1: k, 2: v, 3: wq, 4: wk}, (2, 2, 1), program=p)[5]

    def rms(x, w):
        x = x.astype(np.float64)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w).astype(np.float16)

    kp = np.concatenate([rms(k, wk), np.zeros((2, 56, 64), np.float16)], 1)
    vp = np.concatenate([v, np.zeros((2, 56, 64), np.float16)], 1)
    _check(o, _attn(_scores(rms(q, wq), kp, 0.125), vp), 4e-3, 1e-2)


def test_gqa_packed_heads_causal():
    """Packed GQA heads with a causal mask whose query positions are ``arange(BM)`` spread over the
    group and reshaped with the rows ((G, BM) -> (G BM, 1): the fragment lowering splits the row),
    key tiles up to the diagonal, the interior tiles' mask dropped (mask_bounds)."""
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    o = _chained("attn_gqa_packed_causal", {0: q, 1: k, 2: v}, (4, 4, 1))[3]
    kh, vh = k[:, [0, 0, 1, 1]], v[:, [0, 0, 1, 1]]
    s = np.where(_causal(128, 128), _scores(q, kh, 0.125), -np.inf)
    _check(o, _attn(s, vh))


def test_gqa_four_heads_packed_into_128_rows():
    q, k, v = _h(2, 8, 64, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    p = _smaller("attn_gqa_packed_heads_g4", {1: (2, 2, 128, 64), 2: (2, 2, 128, 64)})
    o = _chained("attn_gqa_packed_heads_g4", {0: q, 1: k, 2: v}, (2, 4, 1), p)[3]
    kh, vh = k[:, [0, 0, 0, 0, 1, 1, 1, 1]], v[:, [0, 0, 0, 0, 1, 1, 1, 1]]
    _check(o, _attn(_scores(q, kh, 0.125), vh))


def test_gqa_decode_sixteen_rows_head128():
    q, k, v = _h(2, 32, 128), _h(2, 2, 128, 128), _h(2, 2, 128, 128)
    p = _smaller("attn_decode_gqa_rows_d128", {1: (2, 2, 128, 128), 2: (2, 2, 128, 128)})
    o = _chained("attn_decode_gqa_rows_d128", {0: q, 1: k, 2: v}, (4, 1, 1), p)[3]
    qh = q.reshape(2, 2, 16, 128)
    _check(o.reshape(2, 2, 16, 128), _attn(_scores(qh, k, 1 / np.sqrt(128)), v))


def test_attention_sink_step_128_row_tiles():
    q, k, v = _h(2, 384, 64), _h(2, 384, 64), _h(2, 384, 64)
    o = _chained("attn_sink_window_bm128", {0: q, 1: k, 2: v}, (3, 2, 1))[3]
    qi, kj = np.arange(384)[:, None], np.arange(384)[None, :]
    keep = (kj <= qi) & ((kj < 4) | (kj > qi - 100))
    _check(o, _attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_qk_norm_head128():
    q, k, v = _h(2, 128, 128), _h(2, 128, 128), _h(2, 128, 128)
    wq, wk = RNG.uniform(0.5, 1.5, 128).astype(np.float32), RNG.uniform(0.5, 1.5, 128).astype(np.float32)
    p = _smaller("attn_qk_norm_d128", {1: (2, 128, 128), 2: (2, 128, 128)})
    o = s3._chained("attn_qk_norm_d128", {0: q, 1: k, 2: v, 3: wq, 4: wk}, (2, 2, 1), program=p)[5]

    def rms(x, w):
        x = x.astype(np.float64)
        return (x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w).astype(np.float16)

    _check(o, _attn(_scores(rms(q, wq), rms(k, wk), 1 / np.sqrt(128)), v), 4e-3, 1e-2)


def test_persistent_work_loop_around_attention():
    """``for t in range(bid(0), B H Sq / BM, num_blocks(0))`` around the key loop, launched on 2
    programs: the chained tier's persistent kernel runs the 4 work items (count computed in the
    kernel) on the 2 CTAs; every output row written (NaN-prefilled)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_persistent", {0: q, 1: k, 2: v}, (2, 1, 1))[3]
    _check(o, _attn(_scores(q, k, 0.125), v))
