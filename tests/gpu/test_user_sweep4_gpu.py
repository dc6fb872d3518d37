"""The fourth user sweep on the GPU: every program of ``tileorch.testing.user_programs4`` runs through
``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start NaN / a sentinel inside a larger
buffer whose tail must stay unwritten) against an independent torch reference in fp32 / fp64, and
the path each took (tier, chained, SIMT) is the one the CPU tests expect.  Skipped without a GPU;
needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_user_sweep4_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import _gemm_rel, check_path, close, randn, run  # noqa: E402

from tileorch.testing.user_programs4 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there
sweep.DT.update({"float8_e5m2": torch.float8_e5m2})

F = torch.nn.functional
LOG2E = 1.4426950408889634


_check_path = check_path  # test_user_sweep_gpu's: ran on its table entry's path


def _attention(q, k, v, scale, keep=None, bias=None):
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias.double()
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.double()


def _qkv(shape_q, shape_k, dt, seed):
    return randn(shape_q, dt, seed), randn(shape_k, dt, seed + 1), randn(shape_k, dt, seed + 2)


# ----------------------------------------------------------------------------------------------- attention


def test_attn_gqa_bshd():
    q, k, v = _qkv((2, 256, 4, 64), (2, 256, 2, 64), "float16", 1)
    args = run("attn_gqa_bshd", {0: q, 1: k, 2: v})
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    kh, vh = kh.repeat_interleave(2, 1), vh.repeat_interleave(2, 1)
    close(args[3], _attention(qh, kh, vh, 0.125).transpose(1, 2), atol=3e-3, rtol=1e-2)
    _check_path("attn_gqa_bshd", args)


def test_attn_mqa_group_from_shape():
    q, k, v = _qkv((4, 256, 64), (2, 256, 64), "bfloat16", 4)
    args = run("attn_mqa_group_from_shape", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k.repeat_interleave(2, 0), v.repeat_interleave(2, 0), 0.125), atol=2e-2, rtol=2e-2)
    _check_path("attn_mqa_group_from_shape", args)


def test_attn_cross_ragged_both():
    q, k, v = _qkv((2, 192, 64), (2, 328, 64), "bfloat16", 7)
    args = run("attn_cross_ragged_both", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=2e-2, rtol=2e-2)
    _check_path("attn_cross_ragged_both", args)


def test_attn_head256():
    q, k, v = _qkv((2, 256, 256), (2, 256, 256), "float16", 10)
    args = run("attn_head256", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 1 / 16), atol=3e-3, rtol=1e-2)
    _check_path("attn_head256", args)


def test_attn_head96_bshd():
    q, k, v = _qkv((2, 256, 2, 96), (2, 256, 2, 96), "float16", 13)
    args = run("attn_head96_bshd", {0: q, 1: k, 2: v})
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))
    close(args[3], _attention(qh, kh, vh, 1 / math.sqrt(96)).transpose(1, 2), atol=3e-3, rtol=1e-2)
    _check_path("attn_head96_bshd", args)


def _causal(sq, sk, offset=0):
    qpos = torch.arange(sq, device="cuda")[:, None] + offset
    return torch.arange(sk, device="cuda")[None, :] <= qpos


def test_attn_causal_finite_mask():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 16)
    args = run("attn_causal_finite_mask", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125, _causal(256, 256)), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_finite_mask", args)


def test_attn_causal_bottom_right():
    q, k, v = _qkv((2, 128, 64), (2, 320, 64), "float16", 19)
    args = run("attn_causal_bottom_right", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125, _causal(128, 320, 192)), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_bottom_right", args)


def test_attn_causal_two_loops():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 22)
    args = run("attn_causal_two_loops", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125, _causal(256, 256)), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_two_loops", args)


def test_attn_two_loops_state_between():
    """O halved between the two loops: the first loop's keys weigh half in the numerator only."""
    q, k, v = _qkv((2, 128, 64), (2, 128, 64), "float16", 25)
    args = run("attn_two_loops_state_between", {0: q, 1: k, 2: v})
    s = (q.double() @ k.double().transpose(-1, -2)) * 0.125
    ref = torch.empty((2, 128, 64), dtype=torch.float64, device="cuda")
    for qt in range(2):
        sc = s[:, 64 * qt:64 * qt + 64, :64 * (qt + 1)]
        e = torch.exp(sc - sc.amax(-1, keepdim=True))
        w = torch.where(torch.arange(64 * (qt + 1), device="cuda") < 64 * qt, 0.5, 1.0).double()
        ref[:, 64 * qt:64 * qt + 64] = (e * w) @ v[:, :64 * (qt + 1)].double() / e.sum(-1, keepdim=True)
    close(args[3], ref, atol=4e-3, rtol=1e-2)
    _check_path("attn_two_loops_state_between", args)


def test_attn_local_window():
    q, k, v = _qkv((2, 384, 64), (2, 384, 64), "float16", 28)
    args = run("attn_local_window", {0: q, 1: k, 2: v})
    pos = torch.arange(384, device="cuda")
    keep = (pos[None, :] - pos[:, None]).abs() <= 100
    close(args[3], _attention(q, k, v, 0.125, keep), atol=3e-3, rtol=1e-2)
    _check_path("attn_local_window", args)


def test_attn_bias_bhss():
    q, k, v = _qkv((2, 2, 256, 64), (2, 2, 256, 64), "float16", 31)
    bias = randn((2, 2, 256, 256), "bfloat16", 34, 2.0)
    args = run("attn_bias_bhss", {0: q, 1: k, 2: v, 3: bias})
    close(args[4], _attention(q, k, v, 0.125, bias=bias), atol=3e-3, rtol=1e-2)
    _check_path("attn_bias_bhss", args)


def test_attn_lse_bshd_out():
    q, k, v = _qkv((2, 2, 256, 64), (2, 2, 256, 64), "float16", 35)
    args = run("attn_lse_bshd_out", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125).transpose(1, 2), atol=3e-3, rtol=1e-2)
    s = (q.double() @ k.double().transpose(-1, -2)) * 0.125
    close(args[4], torch.logsumexp(s, -1), atol=1e-4, rtol=1e-5)
    _check_path("attn_lse_bshd_out", args)


def test_attn_q_in_loop():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 38)
    args = run("attn_q_in_loop", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_q_in_loop", args)


def test_attn_key_padding_mask():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 41)
    keep = torch.rand((2, 256), device="cuda", generator=sweep._gen(44)) < 0.7
    keep[:, 0] = True
    keep[1, 64:128] = False  # a whole key tile
    args = run("attn_key_padding_mask", {0: q, 1: k, 2: v, 3: keep.to(torch.int8)})
    close(args[4], _attention(q, k, v, 0.125, keep[:, None, :]), atol=3e-3, rtol=1e-2)
    _check_path("attn_key_padding_mask", args)


def test_attn_short_no_loop():
    q, k, v = _qkv((2, 128, 64), (2, 128, 64), "float16", 45)
    args = run("attn_short_no_loop", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_short_no_loop", args)


def test_attn_decode_small_tile():
    q, k, v = randn((4, 16, 64), "float16", 48), randn((4, 256, 64), "float16", 49), randn((4, 256, 64), "float16", 50)
    args = run("attn_decode_small_tile", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_decode_small_tile", args)


def test_attn_vt_layout():
    q, k = randn((2, 256, 64), "float16", 52), randn((2, 256, 64), "float16", 53)
    vt = randn((2, 64, 256), "float16", 54)
    args = run("attn_vt_layout", {0: q, 1: k, 2: vt})
    close(args[3], _attention(q, k, vt.transpose(1, 2), 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_vt_layout", args)


def test_attn_causal_bn_wider():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 55)
    args = run("attn_causal_bn_wider", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125, _causal(256, 256)), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_bn_wider", args)


def test_mlp_residual_out():
    x, w1 = randn((192, 64), "float16", 56), randn((64, 256), "float16", 57, 0.125)
    w2 = randn((256, 64), "float16", 58, 0.06)
    b2 = randn((64,), "float32", 59)
    args = run("mlp_residual_out", {0: x, 1: w1, 2: w2, 3: b2})
    h = torch.relu(x.double() @ w1.double()).half().double()
    close(args[4], x.double() + h @ w2.double() + b2.double(), atol=1e-2, rtol=1e-2)
    _check_path("mlp_residual_out", args)


def test_attn_reverse_keys():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 117)
    args = run("attn_reverse_keys", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_reverse_keys", args)


def test_attn_v_other_head():
    q, k, v = _qkv((3, 256, 64), (3, 256, 64), "float16", 120)
    args = run("attn_v_other_head", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v[[1, 2, 0]], 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_v_other_head", args)


def test_attn_paged_kv():
    q = randn((3, 64, 64), "float16", 133)
    kc, vc = randn((12, 64, 64), "float16", 134), randn((12, 64, 64), "float16", 135)
    table = torch.randperm(12, device="cuda", generator=sweep._gen(136)).int().reshape(3, 4)
    lens = torch.tensor([200, 64, 130], device="cuda", dtype=torch.int32)
    args = run("attn_paged_kv", {0: q, 1: kc, 2: vc, 3: table, 4: lens})
    for b in range(3):
        n = int(lens[b])
        k = kc[table[b].long()].reshape(256, 64)[:n]
        v = vc[table[b].long()].reshape(256, 64)[:n]
        close(args[5][b], _attention(q[b], k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_paged_kv", args)


def test_attention_against_sdpa():
    """One shape of the sweep against torch's own SDPA (fp32 inputs upcast: the math backend), not
    only the hand-written reference."""
    q, k, v = _qkv((2, 2, 256, 64), (2, 2, 256, 64), "float16", 51)
    args = run("attn_lse_bshd_out", {0: q, 1: k, 2: v})
    ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), scale=0.125)
    close(args[3], ref.transpose(1, 2), atol=3e-3, rtol=1e-2)


# ----------------------------------------------------------------------------------------------- GEMM


def test_mm_splitk_ranges_atomic():
    a, b = randn((128, 448), "float16", 60), randn((448, 128), "float16", 61)
    c = torch.zeros((128, 128), device="cuda", dtype=torch.float32)
    args = run("mm_splitk_ranges_atomic", {0: a, 1: b, 2: c})
    _gemm_rel(c, a.float() @ b.float(), 1e-4)
    _check_path("mm_splitk_ranges_atomic", args)


def test_mm_int8_ragged_k_scales():
    g = sweep._gen(62)
    a = torch.randint(-128, 128, (192, 200), device="cuda", generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (200, 160), device="cuda", generator=g, dtype=torch.int8)
    rs, cs = randn((192,), "float32", 63, 1e-3), randn((160,), "float32", 64, 1e-2)
    args = run("mm_int8_ragged_k_scales", {0: a, 1: b, 2: rs, 3: cs})
    ref = (a.cpu().long() @ b.cpu().long()).double().cuda() * rs.double()[:, None] * cs.double()[None, :]
    close(args[4], ref, atol=1e-3, rtol=2e-3)
    _check_path("mm_int8_ragged_k_scales", args)


def test_mm_both_transposed():
    at, bt = randn((256, 128), "bfloat16", 65), randn((256, 256), "bfloat16", 66)
    args = run("mm_both_transposed", {0: at, 1: bt})
    _gemm_rel(args[2], at.float().t() @ bt.float().t(), 1e-4)
    _check_path("mm_both_transposed", args)


def test_mm_batched_permute_bt():
    a, w = randn((2, 128, 128), "float16", 67), randn((2, 256, 128), "float16", 68)
    args = run("mm_batched_permute_bt", {0: a, 1: w})
    _gemm_rel(args[2], torch.bmm(a.float(), w.float().transpose(1, 2)))
    _check_path("mm_batched_permute_bt", args)


def test_mm_broadcast_b_2d():
    a, b = randn((3, 128, 128), "float16", 69), randn((128, 256), "float16", 70)
    args = run("mm_broadcast_b_2d", {0: a, 1: b})
    _gemm_rel(args[2], a.float() @ b.float())
    _check_path("mm_broadcast_b_2d", args)


def test_mm_broadcast_b_unit_batch():
    a, b = randn((3, 128, 128), "float16", 71), randn((1, 128, 256), "float16", 72)
    args = run("mm_broadcast_b_unit_batch", {0: a, 1: b})
    _gemm_rel(args[2], a.float() @ b.float(), 1e-4)
    _check_path("mm_broadcast_b_unit_batch", args)


def test_mm_residual_layernorm():
    a, b, r = randn((256, 128), "float16", 73), randn((128, 128), "float16", 74, 0.2), randn((256, 128), "float16", 75)
    w, bb = randn((128,), "float32", 76), randn((128,), "float32", 77)
    args = run("mm_residual_layernorm", {0: a, 1: b, 2: r, 3: w, 4: bb})
    ref = F.layer_norm(a.double() @ b.double() + r.double(), (128,), w.double(), bb.double(), 1e-5)
    close(args[5], ref, atol=1e-2, rtol=5e-3)
    _check_path("mm_residual_layernorm", args)


def test_mlp_up_down_tiles():
    x, w1 = randn((128, 64), "float16", 78), randn((64, 256), "float16", 79, 0.125)
    b1, w2 = randn((256,), "float32", 80), randn((256, 128), "float16", 81, 0.06)
    args = run("mlp_up_down_tiles", {0: x, 1: w1, 2: b1, 3: w2})
    h = x.double() @ w1.double() + b1.double()
    g = (h * torch.sigmoid(1.702 * h)).half().double()
    close(args[4], g @ w2.double(), atol=1e-2, rtol=1e-2)
    _check_path("mlp_up_down_tiles", args)


def test_mm_store_transposed():
    a, b = randn((128, 128), "float16", 82), randn((128, 256), "float16", 83)
    args = run("mm_store_transposed", {0: a, 1: b})
    _gemm_rel(args[2], (a.float() @ b.float()).t())
    _check_path("mm_store_transposed", args)


def test_mm_grouped_row_ranges():
    x, w = randn((300, 64), "float16", 84), randn((3, 64, 128), "float16", 85, 0.125)
    offs = torch.tensor([0, 100, 100, 300], device="cuda", dtype=torch.int32)
    args = run("mm_grouped_row_ranges", {0: x, 1: w, 2: offs})
    ref = torch.cat([x[:100].float() @ w[0].float(), x[100:].float() @ w[2].float()])
    close(args[3], ref, atol=2e-3, rtol=2e-3)
    _check_path("mm_grouped_row_ranges", args)


def test_mm_k_tail_bias_64():
    a, b, bias = randn((100, 72), "float16", 86), randn((72, 200), "float16", 87), randn((200,), "float32", 88)
    args = run("mm_k_tail_bias_64", {0: a, 1: b, 2: bias})
    close(args[3], a.double() @ b.double() + bias.double(), atol=2e-2, rtol=2e-3)
    _check_path("mm_k_tail_bias_64", args)


def test_mm_reverse_k():
    a, b = randn((128, 256), "float16", 123), randn((256, 128), "float16", 124)
    args = run("mm_reverse_k", {0: a, 1: b})
    _gemm_rel(args[2], a.float() @ b.float(), 1e-4)
    _check_path("mm_reverse_k", args)


def test_mm_valid_rows_mask():
    a, b = randn((256, 128), "float16", 125), randn((128, 256), "float16", 126)
    args = run("mm_valid_rows_mask", {0: a, 1: b})
    ref = a.float() @ b.float()
    ref[150:] = 0
    close(args[2], ref, atol=6e-2, rtol=2e-3)
    _check_path("mm_valid_rows_mask", args)


def test_mm_shared_b_batch_scale():
    a, w = randn((3, 200, 128), "float16", 128), randn((128, 256), "float16", 129)
    sc = torch.tensor([0.5, -2.0, 3.0], device="cuda")
    bias = randn((256,), "float32", 130)
    args = run("mm_shared_b_batch_scale", {0: a, 1: w, 2: sc, 3: bias})
    ref = (a.double() @ w.double()) * sc.double()[:, None, None] + bias.double()
    close(args[4], ref, atol=1e-3, rtol=1e-5)
    _check_path("mm_shared_b_batch_scale", args)


def test_mm_broadcast_b_2d_expanded_view():
    """The program reading B ``[1, K, N]`` at batch 0, given ``w[None]`` (a view of a 2-D weight)."""
    a, w = randn((3, 128, 128), "float16", 131), randn((128, 256), "float16", 132)
    args = run("mm_broadcast_b_unit_batch", {0: a, 1: w[None]})
    _gemm_rel(args[2], a.float() @ w.float(), 1e-4)


# ----------------------------------------------------------------------------------------------- memory-bound


def test_layernorm_rows_block():
    x = randn((10, 1000), "float16", 90, 2.0) + 0.5
    w, b = randn((1000,), "float32", 91), randn((1000,), "float32", 92)
    y = run("layernorm_rows_block", {0: x, 1: w, 2: b})[3]
    close(y, F.layer_norm(x.double(), (1000,), w.double(), b.double(), 1e-5), atol=1e-2, rtol=5e-3)


def test_rmsnorm_residual_two_outputs():
    x, r, w = randn((6, 777), "bfloat16", 93), randn((6, 777), "bfloat16", 94), randn((777,), "bfloat16", 95)
    args = run("rmsnorm_residual_two_outputs", {0: x, 1: r, 2: w})
    h = x.double() + r.double()
    close(args[4], h, atol=2e-2, rtol=8e-3)
    close(args[3], h * torch.rsqrt((h * h).mean(1, keepdim=True) + 1e-6) * w.double(), atol=3e-2, rtol=1e-2)


def test_softmax_axis0():
    x = randn((200, 96), "float32", 96, 3.0)
    close(run("softmax_axis0", {0: x})[1], torch.softmax(x.double(), 0), atol=1e-6, rtol=1e-5)


def test_argmax_argmin_ties():
    x = torch.randint(-3, 4, (16, 32), device="cuda", generator=sweep._gen(97)).float()
    args = run("argmax_argmin_ties", {0: x})
    xc = x.cpu().numpy()  # numpy: the first index on ties (torch's CUDA argmax does not promise it)
    assert args[1].cpu().tolist() == xc.argmax(1).tolist()
    assert args[2].cpu().tolist() == xc.argmin(0).tolist()


def test_cumsum_2d_axes():
    x = randn((20, 50), "float32", 98)
    args = run("cumsum_2d_axes", {0: x})
    close(args[1], x.double().cumsum(0), atol=1e-5)
    close(args[2], x.double().cumsum(1), atol=1e-5)
    close(args[3], x.double().flip(1).cumsum(1).flip(1), atol=1e-5)


def _rope_tables(s, half):
    inv = 10000.0 ** (-torch.arange(half, device="cuda", dtype=torch.float64) / half)
    ang = torch.arange(s, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
    return ang.cos().float(), ang.sin().float()


def test_rope_halves_tables():
    x = randn((6, 4, 64), "float16", 99)
    cos, sin = _rope_tables(6, 32)
    y = run("rope_halves_tables", {0: x, 1: cos, 2: sin})[3]
    x1, x2 = x.double()[..., :32], x.double()[..., 32:]
    c, s = cos.double()[:, None, :], sin.double()[:, None, :]
    close(y, torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1), atol=2e-3, rtol=2e-3)


def test_rope_interleaved_3d():
    x = randn((8, 64), "bfloat16", 100)
    cos, sin = _rope_tables(8, 32)
    y = run("rope_interleaved_3d", {0: x, 1: cos, 2: sin})[3]
    a, b = x.double()[:, 0::2], x.double()[:, 1::2]
    ref = torch.stack([a * cos.double() - b * sin.double(), b * cos.double() + a * sin.double()], -1).reshape(8, 64)
    close(y, ref, atol=2e-2, rtol=8e-3)


def test_top3_rows():
    x = randn((5, 300), "float32", 101)
    x[1, [10, 20, 30]] = 7.0
    args = run("top3_rows", {0: x})
    import numpy as np

    xc = x.cpu().numpy()
    order = np.argsort(-xc, axis=1, kind="stable")[:, :3]
    assert args[2].cpu().numpy().tolist() == order.tolist()
    assert torch.equal(args[1].cpu(), torch.from_numpy(np.take_along_axis(xc, order, 1)))


def test_row_histograms_2d_atomic():
    x = randn((4, 300), "float32", 102, 2.0)
    hist = torch.zeros((4, 16), device="cuda", dtype=torch.int32)
    run("row_histograms_2d_atomic", {0: x, 1: hist})
    bins = torch.floor((x - (-2.0)) * 4.0).long().clamp(0, 15)  # in f32, as the program computes it
    ref = torch.stack([torch.bincount(bins[r], minlength=16) for r in range(4)])
    assert torch.equal(hist.long(), ref)


def test_col_sums_atomic():
    x = randn((100, 96), "float32", 103)
    s = torch.zeros(96, device="cuda", dtype=torch.float32)
    run("col_sums_atomic", {0: x, 1: s})
    close(s, x.double().sum(0), atol=1e-4)


def test_where_piecewise():
    """NaN inputs give NaN outputs (the reference's too): launched directly on outputs filled with
    a value no branch produces, then compared with ``equal_nan``."""
    import tileorch.cutile

    x = randn((500,), "float32", 104, 3.0)
    x[::41] = float("nan")
    y = torch.full((500,), 12345.0, device="cuda")
    m = torch.full((500,), -128, device="cuda", dtype=torch.int8)
    p = PROGRAMS["where_piecewise"]
    tileorch.cutile.launch(torch.cuda.current_stream(), p.grid, p.kernel, (x, y, m, 256))
    torch.cuda.synchronize()
    xd = x.double()
    ref = torch.where(xd < -1, -1 - torch.log(torch.where(xd < -1, -xd, 1.0)),
                      torch.where(xd.abs() <= 1, xd ** 3, xd.abs().sqrt()))
    torch.testing.assert_close(y.double(), ref, atol=1e-6, rtol=1e-5, equal_nan=True)
    flag = ((xd > 0) ^ (xd > 2)) | torch.isnan(xd)
    assert torch.equal(m, flag.to(torch.int8))


def test_int_divmod_negatives():
    g = sweep._gen(105)
    x = torch.randint(-1000, 1000, (300,), device="cuda", generator=g, dtype=torch.int32)
    d = torch.randint(-9, 10, (300,), device="cuda", generator=g, dtype=torch.int32)
    args = run("int_divmod_negatives", {0: x, 1: d})
    dd = torch.where(d == 0, 1, d)
    assert torch.equal(args[2], torch.div(x, dd, rounding_mode="floor"))
    assert torch.equal(args[3], torch.remainder(x, dd))
    assert torch.equal(args[4], torch.div(x, -7, rounding_mode="floor").int())
    assert torch.equal(args[5], torch.remainder(x, -7).int())


def test_conversion_chain():
    e4 = (torch.randn(300, device="cuda", generator=sweep._gen(106)) * 40).to(torch.float8_e4m3fn)
    args = run("conversion_chain", {0: e4})
    ev = e4.float()
    assert torch.equal(args[1], ev.half())
    assert torch.equal(args[2].float(), ev)
    f = ev * 3.3
    assert torch.equal(args[3], f)
    assert torch.equal(args[4], f.trunc().int())
    assert torch.equal(args[5], f.clamp(0, 255).trunc().to(torch.uint8))


def test_softmax_3d_last():
    x = randn((4, 16, 100), "float16", 107, 2.0)
    close(run("softmax_3d_last", {0: x})[1], torch.softmax(x.double(), 2), atol=1e-3, rtol=3e-3)


def test_reduce_3d_axes():
    x = randn((4, 8, 16), "float32", 108)
    args = run("reduce_3d_axes", {0: x})
    close(args[1], x.double().sum(0), atol=1e-5)
    assert torch.equal(args[2], x.amax(1))
    close(args[3], x.double() - x.double().mean(2, keepdim=True), atol=1e-5)


def test_polar_floor_ceil():
    x, y = randn((300,), "float32", 109), randn((300,), "float32", 110)
    x[:3] = torch.tensor([1.0, -1.0, 0.0])
    y[:3] = torch.tensor([0.0, 0.0, 1.0])
    args = run("polar_floor_ceil", {0: x, 1: y})
    close(args[2], torch.hypot(x.double(), y.double()), atol=1e-6, rtol=1e-6)
    close(args[3], torch.atan2(y.double(), x.double()), atol=1e-6, rtol=1e-6)
    deg = args[3] * 57.29577951308232
    assert torch.equal(args[4], deg.floor() + (deg.ceil() - deg.floor()) * 1000.0)


def test_transpose_ragged():
    x = randn((100, 70), "float32", 111)
    assert torch.equal(run("transpose_ragged", {0: x})[1], x.t())


def test_embedding_2d_ids_pad():
    ids = torch.randint(0, 50, (3, 16), device="cuda", generator=sweep._gen(112), dtype=torch.int32)
    ids[1, [0, 5, 15]] = -1
    table = randn((50, 32), "float32", 113)
    out = run("embedding_2d_ids_pad", {0: ids, 1: table})[2]
    ref = torch.where(ids[..., None] >= 0, table[ids.clamp(min=0).long()], 0.0)
    assert torch.equal(out, ref)


def test_cummax_scan():
    x = randn((4, 90), "float32", 114)
    assert torch.equal(run("cummax_scan", {0: x})[1], torch.cummax(x, 1).values)


@pytest.mark.parametrize("flag", [1, 0, -3])
def test_where_scalar_flag(flag):
    x, y = randn((256,), "bfloat16", 115), randn((256,), "bfloat16", 116)
    z = run("where_scalar_flag", {0: x, 1: y, 3: flag})[2]
    assert torch.equal(z[:256], x if flag > 0 else y)
    assert torch.equal(z[256:], x * 2 if flag > 0 else y)


def test_reverse_chunk_suffix():
    x = randn((3, 300), "float32", 127)
    y = run("reverse_chunk_suffix", {0: x})[1]
    suffix = x.double().flip(1).cumsum(1).flip(1)
    sign = torch.where((torch.arange(300, device="cuda")[None, :] + torch.arange(3, device="cuda")[:, None]) % 2 == 0,
                       1.0, -1.0).double()
    close(y, suffix * sign, atol=1e-4)


def test_every_program_has_a_gpu_test():
    import sys

    tested = {n for n in PROGRAMS if any(n in name for name in dir(sys.modules[__name__]) if name.startswith("test_"))}
    runnable = {n for n, p in PROGRAMS.items() if p.path != "error"}
    assert tested >= runnable, sorted(runnable - tested)
