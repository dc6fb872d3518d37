"""Fifth user sweep (``tileorch.testing.user_programs5``): the f16 programs the tensor-core tiers
take, their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the
same inputs, outputs NaN-prefilled (the helpers of test_user_sweep3_emulated.py and
test_user_sweep4_emulated.py: every CTA, the launcher's own problem derivation and tensor maps).
GEMMs (a K trip count passed at launch, an f16 epilogue chain, a persistent loop in the grouped
raster Triton's tutorial writes, a row-sum output beside C, a K loop unrolled by ``ct.static_iter``)
and chained-dots programs (head dim 32, GQA on ``[B, H, S, D]``, a causal window of runtime width, ALiBi slopes from an array, per-batch
key lengths from a table, a bias shared by the batches, a single short key tile, soft-capping, a
bool-multiplied causal mask, a hash dropout).  fp8 / int8 programs run on the GPU
(tests/gpu/test_user_sweep5_gpu.py).  Needs cuda-tile."""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

import test_user_sweep3_emulated as s3  # noqa: E402
import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.user_programs5 import PROGRAMS  # noqa: E402

RNG = np.random.default_rng(5131)
LOG2E = 1.4426950408889634


@pytest.fixture(autouse=True)
def _fifth_sweep(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


_mm, _check = s4._mm, s4._check  # the fourth sweep's float64 product and output check


def _softmax_attn(s, v, drop=None):
    e = np.exp(s - s.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)
    if drop is not None:
        p = p * drop
    return p @ v.astype(np.float64)


def _scores(q, k, scale):
    return (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale


def _chained(name, inputs, grid3, **kw):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    assert compile_cutile(p.kernel, p.spec, name).kind == "chained"
    return s3._chained(name, inputs, grid3, **kw)


# ----------------------------------------------------------------------------------------------- GEMM


def test_k_trip_count_from_a_launch_argument():
    """``range(k_tiles)`` with ``k_tiles = 3``: only A's first 192 columns count."""
    a, b = _h(128, 256), _h(256, 128)
    c = s4._s3_gemm("mm_k_tiles_scalar", {0: a, 1: b})[2]
    _check(c, _mm(a[:, :192], b[:192]), 1e-3, 1e-5)


def test_f16_epilogue_chain():
    a, b = _h(128, 128), _h(128, 256, scale=0.25)
    bias, r = _h(256), _h(128, 256)
    c = s4._s3_gemm("mm_f16_epilogue_chain", {0: a, 1: b, 2: bias, 3: r})[4]
    y = _mm(a, b).astype(np.float16).astype(np.float64) + bias.astype(np.float64)
    y = y.astype(np.float16).astype(np.float64) + r
    _check(c, np.maximum(y, 0), 2e-2, 5e-3)


def test_persistent_grouped_raster_triton_form():
    """Found by this sweep: ``first + (t % w) % size`` (Triton's later tutorial) was not recognised
    and the kernel refused; 3 x 2 tiles of 128 walked by 2 programs in groups of 2 rows."""
    a, b = _h(384, 128), _h(128, 256)
    c = s4._s3_gemm("mm_persistent_grouped", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 6e-2, 2e-3)


def test_row_sums_beside_c():
    a, b = _h(128, 128), _h(128, 256)
    out = s4._s3_gemm("mm_rowsum_epilogue", {0: a, 1: b})
    ref = _mm(a, b)
    _check(out[2], ref, 1e-3, 1e-5)
    _check(out[3], ref.reshape(128, 2, 128).sum(-1), 2e-2, 1e-5)


def test_row_scale_through_a_gathered_permutation():
    """``Scale[Perm[row]]`` per element of the epilogue (two dependent gathers): refused as 'the epilogue
    gathers a tile' until session 24 (sweep 18: a tile of pointers loads per element, masked)."""
    a, b = _h(256, 128), _h(128, 128, scale=0.25)
    perm = RNG.permutation(256).astype(np.int32)
    scale = RNG.standard_normal(256).astype(np.float32)
    c = s4._s3_gemm("mm_epilogue_row_gather", {0: a, 1: b, 2: perm, 3: scale})[4]
    _check(c, _mm(a, b) * scale[perm][:, None], 2e-3, 1e-5)


def _grid_gemm(name, inputs, program_grid=False, config="cluster_m=1,epilogue=direct", **changes):
    """A batched GEMM whose batch indices the program computes on the emulator, as the launcher runs
    it: the launcher's problem derivation (batch dimensions flattened), the tile program's
    parameters (and, for a program-grid kernel, the grid) after the GEMM's, the scheduler's L the
    launch grid's z (a program-grid kernel walks the whole launch grid ``p.grid``); returns the
    arrays after the run.  ``changes``: fields of the program's entry to replace (``spec``, ``grid``)."""
    import dataclasses

    from tileorch.testing.gemm_emulation import compile_cutile

    p = dataclasses.replace(PROGRAMS[name], **changes)
    cfg = compile_cutile(p.kernel, p.spec, name, config=config).gemm_config
    assert cfg.program_grid == program_grid and cfg.batched and cfg.grid_l != program_grid, cfg
    grid = list(p.grid) + [1] * (3 - len(p.grid))

    def problem(cfg, m, n, k):
        return (grid[0] * cfg.tile_m, grid[1] * cfg.tile_n, k, grid[2]) if program_grid else (m, n, k, grid[2])

    return s3._gemm(name, inputs, program=p, config=config, problem=problem,
                    more_params=grid if program_grid else ())


def test_4d_heads_batch_and_head_from_one_program_id():
    """``[B, H, M, K] x [B, H, K, N]`` with ``b, h = bh // H, bh % H``: refused by the tier until session
    15 (the SIMT path ran it); now the batched WGMMA kernel with each operand's batch index
    ``b * H + h`` evaluated per work tile over the flattened batch dimensions."""
    a, b = _h(2, 2, 128, 128), _h(2, 2, 128, 256, scale=0.25)
    c = _grid_gemm("mm_4d_heads", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 2e-2, 2e-3)


def test_4d_heads_retiled_by_the_launcher():
    """The same program on the kernel the launcher picks for a larger problem (the program's 128 x 128
    tile retiled to 128 x 256: the batch indices come from L alone, so the scheduler keeps its own
    tiles)."""
    a, b = _h(2, 2, 128, 128), _h(2, 2, 128, 256, scale=0.25)
    c = _grid_gemm("mm_4d_heads", {0: a, 1: b}, config="tile_n=256,cluster_m=1,epilogue=direct")[2]
    _check(c, _mm(a, b), 2e-2, 2e-3)


def test_4d_heads_batch_indices_outside_the_arrays_store_nothing():
    """H = 3 heads in the program over arrays of 2 heads, 6 programs along z: (b, h) = (0, 2) and (1, 2)
    leave dimension 1 (their flat index b * 2 + 2 would be another matrix); cuTile drops such
    stores, so each of the 4 real matrices is written once, with its own product (a store of the
    out-of-range tiles would overwrite matrices (1, 0) and past the end of C, which faults)."""
    a, b = _h(2, 2, 128, 128), _h(2, 2, 128, 256, scale=0.25)
    spec = list(PROGRAMS["mm_4d_heads"].spec)
    spec[3] = 3
    c = _grid_gemm("mm_4d_heads", {0: a, 1: b}, spec=spec, grid=(1, 2, 6))[2]
    _check(c, _mm(a, b), 2e-2, 2e-3)


def test_split_k_into_a_workspace_batched_by_the_split():
    """Split ``z`` multiplies K tiles ``z, z + 3, ..`` of 2-D A and B into ``Wk[z]`` (``[3, M, N]``):
    refused by the tier until session 15 (A and B unbatched beside a batched C)."""
    a, b = _h(128, 512), _h(512, 128, scale=0.25)
    wk = _grid_gemm("mm_splitk_workspace", {0: a, 1: b})[2]
    for z in range(3):
        tiles = range(z, 8, 3)
        ref = sum(_mm(a[:, 64 * t:64 * (t + 1)], b[64 * t:64 * (t + 1)]) for t in tiles)
        _check(wk[z], ref, 1e-3, 1e-5)


def test_grouped_gemm_scheduled_by_a_tile_table():
    """Program ``t`` reads (group, row tile, column tile) from a table: refused by the tier until
    session 15; now each agent reads the table per work tile (the group as the batch index of A,
    B and C).  Tiles the table does not name stay NaN."""
    a, b = _h(3, 128, 128), _h(3, 128, 128, scale=0.25)
    table = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [2, 1, 0], [2, 0, 0]], np.int32)
    c = _grid_gemm("mm_grouped_tile_table", {0: a, 1: b, 3: table}, program_grid=True)[2]
    ref = _mm(a, b)
    for g, i, _ in table.tolist():
        _check(c[g, i * 64:(i + 1) * 64], ref[g, i * 64:(i + 1) * 64], 1e-3, 1e-5)
    assert np.isnan(c[1, 64:]).all()


# ----------------------------------------------------------------------------------------------- chained dots


def test_head_dim_32():
    q, k, v = _h(2, 256, 32), _h(2, 256, 32), _h(2, 256, 32)
    o = _chained("attn_head32", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _softmax_attn(_scores(q, k, 1 / math.sqrt(32)), v))


def test_gqa_kv_head_by_product_then_division():
    q, k, v = _h(2, 4, 256, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)  # two key tiles (s4._keys)
    o = _chained("attn_gqa_mul_form", {0: q, 1: k, 2: v}, (2, 8, 1), program=s4._keys("attn_gqa_mul_form", 128))[3]
    kh, vh = k[:, [0, 0, 1, 1]], v[:, [0, 0, 1, 1]]  # (h * 2) // 4
    _check(o, _softmax_attn(_scores(q, kh, 0.125), vh))


def _window_keep(sq, sk, w):
    qp, kp = np.arange(sq)[:, None], np.arange(sk)[None, :]
    return (kp <= qp) & (kp > qp - w)


def test_causal_window_of_runtime_width():
    """A 40-key window over 256 positions (the shared spec's 100 over 384; the same program): query
    tile 1 reaches into key tile 0, tiles 2 and 3 start their loops past it (at 1 and 2)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    p = s3.resized("attn_window_scalar", {i: (2, 256, 64) for i in range(4)}, {5: 40})
    o = _chained("attn_window_scalar", {0: q, 1: k, 2: v}, (4, 2, 1), program=p)[3]
    _check(o, _softmax_attn(np.where(_window_keep(256, 256, 40), _scores(q, k, 0.125), -np.inf), v))


def test_alibi_slopes_from_an_array_causal():
    """192 positions (the shared spec's 256; the same program): query tile 2 runs 3 key tiles."""
    q, k, v = _h(4, 192, 64), _h(4, 192, 64), _h(4, 192, 64)
    slopes = np.array([0.25, 0.0625], np.float32)  # log2 units
    p = s3.resized("attn_alibi_slopes_causal", {0: (4, 192, 64), 1: (4, 192, 64), 2: (4, 192, 64), 4: (4, 192, 64)})
    o = _chained("attn_alibi_slopes_causal", {0: q, 1: k, 2: v, 3: slopes}, (3, 4, 1), program=p)[4]
    pos = np.arange(192)
    dist = (pos[None, :] - pos[:, None]).astype(np.float64)
    s = _scores(q, k, 0.125) + (slopes[[0, 1, 0, 1]][:, None, None] / LOG2E) * dist
    _check(o, _softmax_attn(np.where(dist <= 0, s, -np.inf), v))


def test_key_lengths_from_a_table():
    """Batches of 2 heads with 200 and 64 valid keys of 256 (the loop runs 4 and 1 tiles)."""
    q, k, v = _h(4, 128, 64), _h(4, 256, 64), _h(4, 256, 64)
    k[:, 200:] = 100.0  # keys past a length would dominate if they were read
    lens = np.array([200, 64], np.int32)
    o = _chained("attn_varlen_table", {0: q, 1: k, 2: v, 3: lens}, (1, 4, 1))[4]
    for bh in range(4):
        n = lens[bh // 2]
        _check(o[bh], _softmax_attn(_scores(q[bh], k[bh, :n], 0.125), v[bh, :n]))


def test_bias_shared_by_batches():
    q, k, v = _h(4, 256, 64), _h(4, 128, 64), _h(4, 128, 64)  # two key tiles (the shared spec's 256 keys: 4)
    bias = (RNG.standard_normal((2, 256, 128)) * 2).astype(np.float32)
    p = s3.resized("attn_bias_shared_batches", {1: (4, 128, 64), 2: (4, 128, 64), 3: (2, 256, 128)})
    o = _chained("attn_bias_shared_batches", {0: q, 1: k, 2: v, 3: bias}, (2, 4, 1), program=p)[4]
    _check(o, _softmax_attn(_scores(q, k, 0.125) + bias[[0, 1, 0, 1]], v))


def test_forty_keys_in_one_tile():
    q, k, v = _h(2, 256, 64), _h(2, 40, 64), _h(2, 40, 64)
    o = _chained("attn_short_kv", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_logit_softcap():
    q, k, v = _h(2, 256, 64, scale=2.0), _h(2, 128, 64, scale=2.0), _h(2, 128, 64)  # two key tiles (s4._keys)
    o = _chained("attn_softcap", {0: q, 1: k, 2: v}, (2, 2, 1), program=s4._keys("attn_softcap", 128))[3]
    _check(o, _softmax_attn(5.0 * np.tanh(_scores(q, k, 0.125) / 5.0), v))


def test_causal_by_multiplying_with_the_bool_mask():
    """192 positions (the shared spec's 256; the same program): query tile 2 runs 3 key tiles."""
    q, k, v = _h(2, 192, 64), _h(2, 192, 64), _h(2, 192, 64)
    p = s3.resized("attn_causal_bool_mul", {i: (2, 192, 64) for i in range(4)})
    o = _chained("attn_causal_bool_mul", {0: q, 1: k, 2: v}, (3, 2, 1), program=p)[3]
    keep = np.arange(192)[None, :] <= np.arange(192)[:, None]
    _check(o, _softmax_attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def dropout_keep(bh, sq, sk, seed):
    """The program's hash (uint32 arithmetic), independently in numpy: keep where the low 2 bits != 0."""
    qi = np.arange(sq, dtype=np.int64)[:, None]
    ki = np.arange(sk, dtype=np.int64)[None, :]
    x = (((bh * sq + qi) * sk + ki) & 0xFFFFFFFF).astype(np.uint64) ^ seed
    x = (x * 0x9E3779B1) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x85EBCA77) & 0xFFFFFFFF
    x ^= x >> 13
    return (x & 3) != 0


def test_hash_dropout_on_p():
    q, k, v = _h(2, 128, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_hash_dropout", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    for bh in range(2):
        keep = dropout_keep(bh, 128, 256, 1234)
        _check(o[bh], _softmax_attn(_scores(q[bh], k[bh], 0.125), v[bh], keep / 0.75))


def test_kv_shared_by_every_batch():
    q, k, v = _h(3, 256, 64), _h(1, 128, 64), _h(1, 128, 64)  # two key tiles (s4._keys)
    p = s4._keys("attn_kv_broadcast_batch", 128)
    o = _chained("attn_kv_broadcast_batch", {0: q, 1: k, 2: v}, (2, 3, 1), program=p)[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_pv_product_added_after_the_rescale():
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # two key tiles (s4._keys)
    p = s4._keys("attn_acc_added_after", 128)
    o = _chained("attn_acc_added_after", {0: q, 1: k, 2: v}, (2, 2, 1), program=p)[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_scores_and_pv_with_the_matmul_operator():
    """``@`` of f16 tiles gives f16: S and each P V product rounded to f16 (the reference too)."""
    q, k, v = _h(2, 256, 64), _h(2, 128, 64), _h(2, 128, 64)  # two key tiles (s4._keys)
    p = s4._keys("attn_matmul_operator", 128)
    o = _chained("attn_matmul_operator", {0: q, 1: k, 2: v}, (2, 2, 1), program=p)[3]
    s = (q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1)).astype(np.float16).astype(np.float64)
    _check(o, _softmax_attn(s * 0.125, v), 4e-3, 1e-2)


def test_causal_query_tiles_twice_the_key_tiles():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_causal_bm_twice_bn", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    keep = np.arange(256)[None, :] <= np.arange(256)[:, None]
    _check(o, _softmax_attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_first_k_step_peeled_before_the_loop():
    """Found by this sweep: refused ('the epilogue op nv_tileas.dot'); tileas-unpeel-k-loop starts the
    loop at the peeled step."""
    a, b = _h(128, 256), _h(256, 128)
    c = s4._s3_gemm("mm_peeled_first_k", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 1e-3, 1e-5)


def test_k_loop_unrolled_by_static_iter():
    """Found by this sweep: ``ct.static_iter(range(4))`` over K left four straight-line dots the tier
    refused ('this dot is not in a loop'); tileas-reroll-unrolled-loops rolls them into a loop of 4."""
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS["mm_static_iter_k"]
    prog = compile_cutile(p.kernel, p.spec, "mm_static_iter_k")
    assert any("4 unrolled copies of a loop body re-rolled into a loop" in r for r in prog.remarks), prog.remarks
    a, b = _h(128, 256), _h(256, 128)
    c = s4._s3_gemm("mm_static_iter_k", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 1e-3, 1e-5)


def test_k_tiles_128_deep_ragged_k():
    a, b = _h(192, 320), _h(320, 256)
    c = s4._s3_gemm("mm_tk128", {0: a, 1: b})[2]
    _check(c, _mm(a, b), 6e-2, 2e-3)


def test_scale_inside_the_exponent_negative_axes():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_scale_after_max", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_attention_on_3d_tiles():
    """Found by this sweep: refused ('loop-carried tile [1, 128, 1]'); tileas-squeeze-unit-tiles
    computes the 3-D program on its 2-D tiles."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_3d_tiles", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(o, _softmax_attn(_scores(q, k, 0.125), v))


def test_causal_attention_on_3d_tiles():
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    o = _chained("attn_3d_causal", {0: q, 1: k, 2: v}, (4, 2, 1))[3]
    keep = np.arange(256)[None, :] <= np.arange(256)[:, None]
    _check(o, _softmax_attn(np.where(keep, _scores(q, k, 0.125), -np.inf), v))


def test_weight_only_int8_gemm_on_the_tensor_core_tier():
    """W8A16: the int8 weight tile TMA-loaded raw, converted to f16 by the consumer warp groups into the
    WGMMA's B tile; the per-column scale in the epilogue (numpy float64 reference)."""
    a = _h(128, 128)
    w = RNG.integers(-128, 128, (128, 128)).astype(np.int8)
    s = (RNG.random(128) * 0.02 + 0.005).astype(np.float32)
    c = s4._s3_gemm("mm_weight_only_int8", {0: a, 1: w, 2: s})[3]
    _check(c, _mm(a, w) * s[None, :], 2e-3, 2e-3)


def _attention_backward(name):
    """Program ``name`` (sweep 5's backward kernels: ``LSE`` natural-log in log2 units, ``qk_scale``
    folded) run on 2 heads of 128 queries and keys; (its arrays after the run, Q, K, dO, P, dS) with
    P and dS in float64 and ``delta = rowsum(P * dP)``."""
    q, k, v, do = _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64), _h(2, 128, 64)
    s = _scores(q, k, 0.125)
    lse = s.max(-1) + np.log(np.exp(s - s.max(-1, keepdims=True)).sum(-1))
    p = np.exp(s - lse[..., None])
    dp = do.astype(np.float64) @ v.astype(np.float64).swapaxes(-1, -2)
    delta = (p * dp).sum(-1)
    out = _chained(name, {0: q, 1: k, 2: v, 3: do, 4: (lse * LOG2E).astype(np.float32),
                          5: delta.astype(np.float32)}, (2, 2, 1))
    return out, q, k, do, p, p * (dp - delta[..., None])


def _f16(x):
    return x.astype(np.float16).astype(np.float64)


def test_attention_backward_dq_first_dots_with_their_own_a_tiles():
    """FlashAttention's backward dQ: ``S = Q K^T`` and ``dP = dO V^T`` read their own A tiles, dQ's B
    is S's K tile in the stage (session 23: the SIMT path ran it before); dQ NaN-prefilled, against
    float64 numpy with dS rounded to f16."""
    out, q, k, do, p, ds = _attention_backward("attn_bwd_dq")
    s4._check(out[6], _f16(ds) @ k.astype(np.float64) * 0.125)


def test_attention_backward_dkdv_chain_feeding_two_accumulators():
    """FlashAttention's backward dK/dV for one key tile (``S^T = K Q^T``, ``dP^T = V dO^T``: first dots
    with their own A tiles; ``dV += P^T dO``, ``dK += dS^T Q``: two second dots whose B tiles are the
    first dots', two accumulators; session 23: the SIMT path ran it before); dK, dV NaN-prefilled,
    against float64 numpy with P^T and dS^T rounded to f16."""
    out, q, k, do, p, ds = _attention_backward("attn_bwd_dkdv")
    s4._check(out[7], _f16(p.swapaxes(-1, -2)) @ do.astype(np.float64))
    s4._check(out[6], _f16(ds.swapaxes(-1, -2)) @ q.astype(np.float64) * 0.125)


def test_two_query_heads_sharing_k_and_v():
    """GQA with both query heads of a K/V head in one program: two online-softmax chains in one key
    loop (first dots with their own A tiles, both reading the one K tile of the stage; two second dots
    reading the one V tile), each head's output its own stored tile (session 23: the SIMT path ran it
    before); four TMA loads (Q0 and Q1 once, K and V per step: K not twice); O NaN-prefilled."""
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS["attn_two_heads_shared_kv"]
    assert compile_cutile(p.kernel, p.spec, "attn_two_heads_shared_kv").ptx.count("cp.async.bulk.tensor") == 4
    q, k, v = _h(2, 4, 128, 64), _h(2, 2, 128, 64), _h(2, 2, 128, 64)
    out = _chained("attn_two_heads_shared_kv", {0: q, 1: k, 2: v}, (2, 4, 1))[3]
    ref = np.stack([np.stack([_softmax_attn(_scores(q[b, h], k[b, h // 2], 0.125), v[b, h // 2]) for h in range(4)])
                    for b in range(2)])
    _check(out, ref)
