"""The second attention set on the GPU: every program of ``tileorch.testing.attention_programs2``
runs through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs NaN-prefilled inside a
larger buffer whose tail must stay unwritten) against an independent torch float64 reference, and
takes the path its table entry names (chained tier / SIMT).  Skipped without a GPU; needs torch
and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_attention_programs2.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import close, randn, run  # noqa: E402

from tileorch.testing.attention_programs2 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

F16 = dict(atol=3e-3, rtol=1e-2)
BF16 = dict(atol=2e-2, rtol=2e-2)


def _check_path(name, args):
    sweep.check_path(name, args)  # (the compile's path and the launch's: tileorch.testing.launch_path)


def _scores(q, k, scale=1.0):
    return (q.double() @ k.double().transpose(-1, -2)) * scale


def _attn(s, v, keep=None):
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.double()


def _qkv(shape_q, shape_k, dt, seed, kscale=1.0):
    return randn(shape_q, dt, seed), randn(shape_k, dt, seed + 1, kscale), randn(shape_k, dt, seed + 2)


def _pos(sq, sk, q0=0):
    return (torch.arange(q0, q0 + sq, device="cuda")[:, None], torch.arange(sk, device="cuda")[None, :])


# ----------------------------------------------------------------------------------------------- score epilogues


def test_attn_softcap_causal():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 1, kscale=3.0)
    args = run("attn_softcap_causal", {0: q, 1: k, 2: v})
    i, j = _pos(256, 256)
    close(args[3], _attn(30.0 * torch.tanh(_scores(q, k, 0.125) / 30.0), v, j <= i), **F16)
    _check_path("attn_softcap_causal", args)


def test_attn_alibi_slope_in_kernel():
    q, k, v = _qkv((4, 128, 64), (4, 256, 64), "bfloat16", 2)
    args = run("attn_alibi_slope_in_kernel", {0: q, 1: k, 2: v})
    i, j = _pos(128, 256)
    slope = torch.tensor([2.0 ** (-8.0 * (bh % 2 + 1) / 2) for bh in range(4)], device="cuda", dtype=torch.float64)
    s = _scores(q, k, 0.125) - slope[:, None, None] * (j - i).abs()
    close(args[3], _attn(s, v), **BF16)
    _check_path("attn_alibi_slope_in_kernel", args)


def test_attn_rel_pos_clamped():
    q, k, v = _qkv((2, 128, 64), (2, 192, 64), "float16", 3)
    args = run("attn_rel_pos_clamped", {0: q, 1: k, 2: v})
    i, j = _pos(128, 192)
    close(args[3], _attn((_scores(q, k) + 0.5 * (j - i).clamp(-32, 32)) * 0.125, v), **F16)
    _check_path("attn_rel_pos_clamped", args)


def test_attn_logn_scaling():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 4)
    args = run("attn_logn_scaling", {0: q, 1: k, 2: v})
    i, _ = _pos(256, 256)
    row = (torch.log(i.double() + 1.0) / math.log(64.0)).clamp(min=1.0)
    close(args[3], _attn(_scores(q, k, 0.125) * row, v), **F16)
    _check_path("attn_logn_scaling", args)


def test_attn_bias_and_key_mask():
    q, k, v = _qkv((4, 128, 64), (4, 256, 64), "float16", 5)
    bias = randn((128, 256), "float32", 50, 4.0)
    keep = torch.rand((2, 256), device="cuda") < 0.6
    keep[:, 0] = True
    keep[1, 64:] = False
    args = run("attn_bias_and_key_mask", {0: q, 1: k, 2: v, 3: bias, 4: keep})
    s = (_scores(q, k) + bias.double()) * 0.125
    close(args[5], _attn(s, v, keep.repeat_interleave(2, 0)[:, None, :]), **F16)
    _check_path("attn_bias_and_key_mask", args)


def test_attn_uint8_mask_per_batch():
    q, k, v = _qkv((4, 128, 64), (4, 192, 64), "float16", 6)
    mask = (torch.rand((2, 128, 192), device="cuda") < 0.5).to(torch.uint8) * 7
    mask[:, :, 150] = 1
    args = run("attn_uint8_mask_per_batch", {0: q, 1: k, 2: v, 3: mask})
    close(args[4], _attn(_scores(q, k, 0.125), v, mask.repeat_interleave(2, 0) != 0), **F16)
    _check_path("attn_uint8_mask_per_batch", args)


def test_attn_sigmoid():
    q, k, v = _qkv((2, 128, 64), (2, 200, 64), "float16", 7)
    args = run("attn_sigmoid", {0: q, 1: k, 2: v})
    p = torch.sigmoid(_scores(q, k, 0.125) - 5.0).half().double()  # P cast to f16 for the dot
    close(args[3], p @ v.double(), atol=2e-3, rtol=1e-2)
    _check_path("attn_sigmoid", args)


# ----------------------------------------------------------------------------------------------- key ranges, lengths


def test_attn_window_both_sides_ragged():
    q, k, v = _qkv((2, 300, 64), (2, 300, 64), "float16", 8)
    args = run("attn_window_both_sides_ragged", {0: q, 1: k, 2: v})
    i, j = _pos(300, 300)
    close(args[3], _attn(_scores(q, k, 0.125), v, (j - i).abs() <= 96), **F16)
    _check_path("attn_window_both_sides_ragged", args)


def test_attn_chunked_prefill():
    q, k, v = _qkv((2, 100, 64), (2, 320, 64), "float16", 9)
    args = run("attn_chunked_prefill", {0: q, 1: k, 2: v})
    i, j = _pos(100, 320, 220)
    close(args[3], _attn(_scores(q, k, 0.125), v, j <= i), **F16)
    _check_path("attn_chunked_prefill", args)


def test_attn_spec_decode_tail():
    q, k, v = _qkv((4, 16, 64), (4, 512, 64), "float16", 10)
    k[:, 300:] = 60.0
    v[:, 300:] = 1000.0
    args = run("attn_spec_decode_tail", {0: q, 1: k, 2: v})
    i, j = _pos(16, 512, 284)
    close(args[3], _attn(_scores(q, k, 0.125), v, j <= i), **F16)
    _check_path("attn_spec_decode_tail", args)


def test_attn_varlen_q_and_k():
    q, k, v = _qkv((4, 128, 64), (4, 256, 64), "float16", 11)
    ql = torch.tensor([100, 128], device="cuda", dtype=torch.int32)
    kl = torch.tensor([130, 256], device="cuda", dtype=torch.int32)
    args = run("attn_varlen_q_and_k", {0: q, 1: k, 2: v, 3: ql, 4: kl})
    ref = torch.zeros((4, 128, 64), device="cuda", dtype=torch.float64)
    for bh in range(4):
        a, b = int(ql[bh // 2]), int(kl[bh // 2])
        ref[bh, :a] = _attn(_scores(q[bh, :a], k[bh, :b], 0.125), v[bh, :b])
    close(args[5], ref, **F16)
    _check_path("attn_varlen_q_and_k", args)


def test_attn_decode_one_query():
    q, k, v = randn((8, 64), "float16", 12), randn((8, 512, 64), "float16", 13), randn((8, 512, 64), "float16", 14)
    args = run("attn_decode_one_query", {0: q, 1: k, 2: v})
    ref = _attn(_scores(q[:, None], k[:, :300], 0.125), v[:, :300])[:, 0]
    close(args[3], ref, **F16)
    _check_path("attn_decode_one_query", args)


def test_attn_decode_one_query_lens():
    q, k, v = randn((6, 64), "float16", 74), randn((6, 512, 64), "float16", 75), randn((6, 512, 64), "float16", 76)
    lens = torch.tensor([1, 300, 512], device="cuda", dtype=torch.int32)
    args = run("attn_decode_one_query_lens", {0: q, 1: k, 2: v, 3: lens})
    ref = torch.stack([_attn(_scores(q[b][None], k[b, :int(lens[b // 2])], 0.125), v[b, :int(lens[b // 2])])[0]
                       for b in range(6)])
    close(args[4], ref, **F16)
    _check_path("attn_decode_one_query_lens", args)


def test_attn_decode_split_one_query():
    q, k, v = randn((8, 64), "float16", 71), randn((8, 512, 64), "float16", 72), randn((8, 512, 64), "float16", 73)
    args = run("attn_decode_split_one_query", {0: q, 1: k, 2: v})
    for sp in range(4):
        sl = slice(128 * sp, 128 * sp + 128)
        s = _scores(q[:, None], k[:, sl], 0.125)[:, 0]
        close(args[3][sp], torch.einsum("bk,bkd->bd", torch.softmax(s, -1), v[:, sl].double()), **F16)
        close(args[4][sp], torch.logsumexp(s, -1) * 1.4426950408889634, atol=1e-3, rtol=1e-4)
    _check_path("attn_decode_split_one_query", args)


# ----------------------------------------------------------------------------------------------- shapes, layouts


def test_attn_mla_dqk192_dv128():
    q, k, v = randn((2, 128, 192), "float16", 15), randn((2, 128, 192), "float16", 16), randn((2, 128, 128),
                                                                                              "float16", 17)
    args = run("attn_mla_dqk192_dv128", {0: q, 1: k, 2: v})
    i, j = _pos(128, 128)
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(192)), v, j <= i), **F16)
    _check_path("attn_mla_dqk192_dv128", args)


@pytest.mark.parametrize("name, d, causal", [("attn_head96_causal", 96, True), ("attn_head80", 80, False)])
def test_attn_head_dim_not_a_power_of_two(name, d, causal):
    q, k, v = _qkv((2, 200, d), (2, 200, d), "float16", 18)
    args = run(name, {0: q, 1: k, 2: v})
    i, j = _pos(200, 200)
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(d)), v, (j <= i) if causal else None), **F16)
    _check_path(name, args)


def test_attn_kt_bhds_causal():
    q, kt, v = randn((1, 2, 256, 64), "bfloat16", 19), randn((1, 2, 64, 256), "bfloat16", 20), \
        randn((1, 2, 256, 64), "bfloat16", 21)
    args = run("attn_kt_bhds_causal", {0: q, 1: kt, 2: v})
    i, j = _pos(256, 256)
    close(args[3], _attn(_scores(q, kt.transpose(-1, -2), 0.125), v, j <= i), **BF16)
    _check_path("attn_kt_bhds_causal", args)


def test_attn_kv_packed():
    q, kv = randn((2, 128, 2, 64), "float16", 22), randn((2, 256, 2, 2, 64), "float16", 23)
    args = run("attn_kv_packed", {0: q, 1: kv})
    qh, kh, vh = q.transpose(1, 2), kv[:, :, 0].transpose(1, 2), kv[:, :, 1].transpose(1, 2)
    close(args[2], _attn(_scores(qh, kh, 0.125), vh).transpose(1, 2), **F16)
    _check_path("attn_kv_packed", args)


def test_attn_merged_heads_gqa():
    q, k, v = randn((2, 128, 256), "float16", 24), randn((2, 256, 128), "float16", 25), randn((2, 256, 128),
                                                                                             "float16", 26)
    args = run("attn_merged_heads_gqa", {0: q, 1: k, 2: v})
    qh = q.view(2, 128, 4, 64).transpose(1, 2)
    kh = k.view(2, 256, 2, 64).transpose(1, 2).repeat_interleave(2, 1)
    vh = v.view(2, 256, 2, 64).transpose(1, 2).repeat_interleave(2, 1)
    close(args[3], _attn(_scores(qh, kh, 0.125), vh).transpose(1, 2).reshape(2, 128, 256), **F16)
    _check_path("attn_merged_heads_gqa", args)


def test_attn_flat_grid_divmod():
    q, k, v = _qkv((2, 2, 128, 64), (2, 2, 256, 64), "float16", 27)
    args = run("attn_flat_grid_divmod", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path("attn_flat_grid_divmod", args)


def test_attn_bf16_f32_out():
    q, k, v = _qkv((2, 128, 128), (2, 256, 128), "bfloat16", 28)
    args = run("attn_bf16_f32_out", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(128)), v), atol=1e-2, rtol=1e-2)
    _check_path("attn_bf16_f32_out", args)


def test_attn_q_prescaled_exp():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 29)
    args = run("attn_q_prescaled_exp", {0: q, 1: k, 2: v})
    qs = (q.float() * 0.125).half()
    close(args[3], _attn(_scores(qs, k), v), **F16)
    _check_path("attn_q_prescaled_exp", args)


def test_attn_causal_diag_peeled():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 30)
    args = run("attn_causal_diag_peeled", {0: q, 1: k, 2: v})
    i, j = _pos(256, 256)
    close(args[3], _attn(_scores(q, k, 0.125), v, j <= i), **F16)
    _check_path("attn_causal_diag_peeled", args)


def test_attn_head_temperature():
    q, k, v = _qkv((4, 128, 64), (4, 256, 64), "float16", 40)
    tau = torch.tensor([0.05, 0.3], device="cuda", dtype=torch.float32)
    args = run("attn_head_temperature", {0: q, 1: k, 2: v, 3: tau})
    t = tau.double().repeat(2)[:, None, None] / 1.4426950408889634
    close(args[4], _attn(_scores(q, k) * t, v), **F16)
    _check_path("attn_head_temperature", args)


def test_attn_anti_causal():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 41)
    args = run("attn_anti_causal", {0: q, 1: k, 2: v})
    i, j = _pos(256, 256)
    close(args[3], _attn(_scores(q, k, 0.125), v, j >= i), **F16)
    _check_path("attn_anti_causal", args)


def test_attn_decode_gqa2():
    q, k, v = randn((2, 8, 64), "float16", 42), randn((2, 4, 256, 64), "float16", 43), randn((2, 4, 256, 64),
                                                                                            "float16", 44)
    args = run("attn_decode_gqa2", {0: q, 1: k, 2: v})
    ref = _attn(_scores(q.view(2, 4, 2, 64), k, 0.125), v).reshape(2, 8, 64)
    close(args[3], ref, **F16)
    _check_path("attn_decode_gqa2", args)


def test_attn_flat_rows_2d():
    q, k, v = (randn((512, 64), "float16", 45 + i) for i in range(3))
    args = run("attn_flat_rows_2d", {0: q, 1: k, 2: v})
    qh, kh, vh = (x.view(2, 256, 64) for x in (q, k, v))
    close(args[3].view(2, 256, 64), _attn(_scores(qh, kh, 0.125), vh), **F16)
    _check_path("attn_flat_rows_2d", args)


def test_attn_dropout_mask_tensor():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 48)
    keep = torch.rand((2, 128, 256), device="cuda") >= 0.25
    args = run("attn_dropout_mask_tensor", {0: q, 1: k, 2: v, 3: keep})
    p = torch.softmax(_scores(q, k, 0.125), -1)
    close(args[4], torch.where(keep, p / 0.75, 0.0) @ v.double(), **F16)
    _check_path("attn_dropout_mask_tensor", args)


# ----------------------------------------------------------------------------------------------- outputs


def test_attn_exp_lse_causal_bf16():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "bfloat16", 31)
    args = run("attn_exp_lse_causal_bf16", {0: q, 1: k, 2: v})
    i, j = _pos(256, 256)
    s = _scores(q, k, 0.125).masked_fill(~(j <= i), float("-inf"))
    close(args[3], torch.softmax(s, -1) @ v.double(), **BF16)
    close(args[4], torch.logsumexp(s, -1), atol=1e-3, rtol=1e-4)
    _check_path("attn_exp_lse_causal_bf16", args)


def test_attn_store_probs():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 32)
    args = run("attn_store_probs", {0: q, 1: k, 2: v})
    p = torch.softmax(_scores(q, k, 0.125), -1)
    close(args[4], p, atol=1e-3, rtol=1e-2)
    close(args[3], p.half().double() @ v.double(), **F16)  # O from the stored (f16) P
    _check_path("attn_store_probs", args)


def test_attn_sink_logit():
    q, k, v = _qkv((4, 128, 64), (4, 256, 64), "float16", 70)
    sinks = torch.tensor([3.0, -1.0], device="cuda", dtype=torch.float32)
    args = run("attn_sink_logit", {0: q, 1: k, 2: v, 3: sinks})
    s = _scores(q, k, 0.125)
    full = torch.cat([s, sinks.double().repeat(2)[:, None, None].expand(4, 128, 1)], -1)
    close(args[4], torch.softmax(full, -1)[..., :256] @ v.double(), **F16)
    _check_path("attn_sink_logit", args)


def test_attn_fused_rope_q():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 77)
    ang = torch.arange(128, device="cuda", dtype=torch.float64)[:, None] * \
        (10000.0 ** (-torch.arange(32, device="cuda", dtype=torch.float64) / 32))[None, :]
    cos, sin = torch.cos(ang).float(), torch.sin(ang).float()
    args = run("attn_fused_rope_q", {0: q, 1: k, 2: v, 3: cos, 4: sin})
    q1, q2 = q[..., :32].double(), q[..., 32:].double()
    qr = torch.cat([q1 * cos - q2 * sin, q2 * cos + q1 * sin], -1).half()
    close(args[5], _attn(_scores(qr, k, 0.125), v), **F16)
    _check_path("attn_fused_rope_q", args)


def test_attn_output_gate():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 33)
    g = randn((2, 128, 64), "float16", 34, 2.0)
    args = run("attn_output_gate", {0: q, 1: k, 2: v, 3: g})
    close(args[4], _attn(_scores(q, k, 0.125), v) * torch.sigmoid(g.double()), **F16)
    _check_path("attn_output_gate", args)


def test_attn_differential():
    q1, k1, q2 = randn((2, 128, 64), "float16", 35), randn((2, 256, 64), "float16", 36), randn((2, 128, 64),
                                                                                              "float16", 37)
    k2, v = randn((2, 256, 64), "float16", 38), randn((2, 256, 64), "float16", 39)
    args = run("attn_differential", {0: q1, 1: k1, 2: q2, 3: k2, 4: v})
    ref = _attn(_scores(q1, k1, 0.125), v) - 0.3 * _attn(_scores(q2, k2, 0.125), v)
    close(args[5], ref, **F16)
    _check_path("attn_differential", args)


# ----------------------------------------------------------------------------------------------- tile-shape variants


def test_attn_softcap_causal_d128_bm64_bn128():
    q, k, v = _qkv((2, 256, 128), (2, 256, 128), "float16", 60, kscale=3.0)
    args = run("attn_softcap_causal_d128_bm64_bn128", {0: q, 1: k, 2: v})
    i, j = _pos(256, 256)
    s = 30.0 * torch.tanh(_scores(q, k, 1 / math.sqrt(128)) / 30.0)
    close(args[3], _attn(s, v, j <= i), **F16)
    _check_path("attn_softcap_causal_d128_bm64_bn128", args)


def test_attn_bias_and_key_mask_bm128_bn128():
    q, k, v = _qkv((4, 256, 64), (4, 256, 64), "float16", 61)
    bias = randn((256, 256), "float32", 62, 4.0)
    keep = torch.rand((2, 256), device="cuda") < 0.6
    keep[:, 0] = True
    keep[1, 128:] = False
    args = run("attn_bias_and_key_mask_bm128_bn128", {0: q, 1: k, 2: v, 3: bias, 4: keep})
    s = (_scores(q, k) + bias.double()) * 0.125
    close(args[5], _attn(s, v, keep.repeat_interleave(2, 0)[:, None, :]), **F16)
    _check_path("attn_bias_and_key_mask_bm128_bn128", args)


def test_attn_chunked_prefill_d128_bm128():
    q, k, v = _qkv((2, 200, 128), (2, 456, 128), "float16", 63)
    args = run("attn_chunked_prefill_d128_bm128", {0: q, 1: k, 2: v})
    i, j = _pos(200, 456, 256)
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(128)), v, j <= i), **F16)
    _check_path("attn_chunked_prefill_d128_bm128", args)


def test_attn_decode_one_query_d128_bn128():
    q, k, v = randn((6, 128), "float16", 64), randn((6, 700, 128), "float16", 65), randn((6, 700, 128), "float16", 66)
    args = run("attn_decode_one_query_d128_bn128", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q[:, None], k[:, :650], 1 / math.sqrt(128)), v[:, :650])[:, 0], **F16)
    _check_path("attn_decode_one_query_d128_bn128", args)


def test_attn_window_both_sides_ragged_bm128_bn128():
    q, k, v = _qkv((2, 600, 64), (2, 600, 64), "float16", 67)
    args = run("attn_window_both_sides_ragged_bm128_bn128", {0: q, 1: k, 2: v})
    i, j = _pos(600, 600)
    close(args[3], _attn(_scores(q, k, 0.125), v, (j - i).abs() <= 200), **F16)
    _check_path("attn_window_both_sides_ragged_bm128_bn128", args)


def test_every_program_has_a_gpu_test():
    tested = {n[len("test_"):] for n in globals() if n.startswith("test_attn_")}
    covered = tested | {"attn_head96_causal", "attn_head80"}
    assert set(PROGRAMS) <= covered, set(PROGRAMS) - covered
