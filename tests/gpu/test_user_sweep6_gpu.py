"""The sixth user sweep on the GPU: every program of ``tileorch.testing.user_programs6`` runs through
``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start NaN / a sentinel inside a larger
buffer whose tail must stay unwritten) against an independent torch reference in fp32 / fp64, and
the path each took (tier, chained, SIMT) is the one the CPU tests expect.  Skipped without a GPU;
needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_user_sweep6_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402

import tileorch.cutile  # noqa: E402
from test_user_sweep_gpu import _gemm_rel, check_path, close, randn, run  # noqa: E402

from tileorch.testing.user_programs6 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

LOG2E = 1.4426950408889634
S = 0.125 * LOG2E


_check_path = check_path  # test_user_sweep_gpu's: ran on its table entry's path


def _scores(q, k, scale):
    return (q.double() @ k.double().transpose(-1, -2)) * scale


def _attn(s, v, keep=None):
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, -1) @ v.double()


def _qkv(shape_q, shape_k, dt, seed, scale=1.0):
    return randn(shape_q, dt, seed, scale), randn(shape_k, dt, seed + 1, scale), randn(shape_k, dt, seed + 2)


def _causal(sq, sk, offset=0):
    return torch.arange(sk, device="cuda")[None, :] <= torch.arange(sq, device="cuda")[:, None] + offset


F16 = dict(atol=3e-3, rtol=1e-2)
BF16 = dict(atol=2e-2, rtol=2e-2)


# ----------------------------------------------------------------------------------------------- attention


def test_attn_bhsd_grid3_causal_d128():
    q, k, v = _qkv((1, 2, 256, 128), (1, 2, 256, 128), "float16", 1)
    args = run("attn_bhsd_grid3_causal_d128", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(128)), v, _causal(256, 256)), **F16)
    _check_path("attn_bhsd_grid3_causal_d128", args)


def test_attn_bhsd_grid3_causal_d128_on_bshd_storage_views():
    """Q, K, V and O passed as ``[B, S, H, D]`` storage viewed ``[B, H, S, D]`` (``x.transpose(1, 2)``,
    as a model's projections give them): the same program, strided arrays."""
    qs, ks, vs = (randn((1, 256, 2, 128), "float16", 120 + i) for i in range(3))
    os_ = torch.full((1, 256, 2, 128), float("nan"), device="cuda", dtype=torch.float16)
    q, k, v, o = (t.transpose(1, 2) for t in (qs, ks, vs, os_))
    args = run("attn_bhsd_grid3_causal_d128", {0: q, 1: k, 2: v, 3: o})
    close(os_.transpose(1, 2), _attn(_scores(q, k, 1 / math.sqrt(128)), v, _causal(256, 256)), **F16)
    _check_path("attn_bhsd_grid3_causal_d128", args)


def test_attn_sink_window():
    q, k, v = _qkv((2, 384, 64), (2, 384, 64), "float16", 4)
    args = run("attn_sink_window", {0: q, 1: k, 2: v})
    qi, kj = torch.arange(384, device="cuda")[:, None], torch.arange(384, device="cuda")[None, :]
    keep = (kj <= qi) & ((kj < 4) | (kj > qi - 100))
    close(args[3], _attn(_scores(q, k, 0.125), v, keep), **F16)
    _check_path("attn_sink_window", args)


def test_attn_bias_bf16_ragged_keys():
    q, k, v = _qkv((2, 128, 64), (2, 200, 64), "bfloat16", 7)
    bias = randn((2, 128, 200), "bfloat16", 10, 2.0)
    args = run("attn_bias_bf16_ragged_keys", {0: q, 1: k, 2: v, 3: bias})
    close(args[4], _attn(_scores(q, k, 0.125) + bias.double(), v), **BF16)
    _check_path("attn_bias_bf16_ragged_keys", args)


def test_attn_softcap_bf16_d128():
    q, k, v = _qkv((2, 128, 128), (2, 256, 128), "bfloat16", 11, 2.0)
    args = run("attn_softcap_bf16_d128", {0: q, 1: k, 2: v})
    s = 20.0 * torch.tanh(_scores(q, k, 1 / math.sqrt(128)) / 20.0)
    close(args[3], _attn(s, v), **BF16)
    _check_path("attn_softcap_bf16_d128", args)


def test_attn_learned_sink_kv():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 180)
    ks, vs = randn((2, 64, 64), "float16", 183), randn((2, 64, 64), "float16", 184)
    args = run("attn_learned_sink_kv", {0: q, 1: k, 2: v, 3: ks, 4: vs})
    kk, vv = torch.cat([ks, k], 1), torch.cat([vs, v], 1)
    close(args[5], _attn(_scores(q, kk, 0.125), vv), **F16)
    _check_path("attn_learned_sink_kv", args)


def test_attn_gqa_packed_heads():
    q, k, v = _qkv((2, 4, 64, 64), (2, 2, 256, 64), "float16", 14)
    args = run("attn_gqa_packed_heads", {0: q, 1: k, 2: v})
    idx = torch.tensor([0, 0, 1, 1], device="cuda")
    close(args[3], _attn(_scores(q, k[:, idx], 0.125), v[:, idx]), **F16)
    _check_path("attn_gqa_packed_heads", args)


def test_attn_gqa_packed_causal():
    q, k, v = _qkv((2, 4, 128, 64), (2, 2, 128, 64), "float16", 190)
    args = run("attn_gqa_packed_causal", {0: q, 1: k, 2: v})
    idx = torch.tensor([0, 0, 1, 1], device="cuda")
    close(args[3], _attn(_scores(q, k[:, idx], 0.125), v[:, idx], _causal(128, 128)), **F16)
    _check_path("attn_gqa_packed_causal", args)


def test_attn_gqa_packed_heads_g4():
    q, k, v = _qkv((2, 8, 64, 64), (2, 2, 256, 64), "float16", 193)
    args = run("attn_gqa_packed_heads_g4", {0: q, 1: k, 2: v})
    idx = torch.tensor([0, 0, 0, 0, 1, 1, 1, 1], device="cuda")
    close(args[3], _attn(_scores(q, k[:, idx], 0.125), v[:, idx]), **F16)
    _check_path("attn_gqa_packed_heads_g4", args)


def test_attn_decode_gqa_rows_d128():
    q = randn((2, 32, 128), "float16", 196)
    k, v = randn((2, 2, 256, 128), "float16", 197), randn((2, 2, 256, 128), "float16", 198)
    args = run("attn_decode_gqa_rows_d128", {0: q, 1: k, 2: v})
    qh = q.view(2, 2, 16, 128)
    close(args[3].view(2, 2, 16, 128), _attn(_scores(qh, k, 1 / math.sqrt(128)), v), **F16)
    _check_path("attn_decode_gqa_rows_d128", args)


def test_attn_sink_window_bm128():
    q, k, v = _qkv((2, 384, 64), (2, 384, 64), "float16", 199)
    args = run("attn_sink_window_bm128", {0: q, 1: k, 2: v})
    qi, kj = torch.arange(384, device="cuda")[:, None], torch.arange(384, device="cuda")[None, :]
    keep = (kj <= qi) & ((kj < 4) | (kj > qi - 100))
    close(args[3], _attn(_scores(q, k, 0.125), v, keep), **F16)
    _check_path("attn_sink_window_bm128", args)


def test_attn_qk_norm_d128():
    q, k, v = _qkv((2, 128, 128), (2, 256, 128), "float16", 202)
    wq, wk = randn((128,), "float32", 205), randn((128,), "float32", 206)
    args = run("attn_qk_norm_d128", {0: q, 1: k, 2: v, 3: wq, 4: wk})

    def norm(x, w):
        x = x.double()
        return (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w.double()).half()

    close(args[5], _attn(_scores(norm(q, wq), norm(k, wk), 1 / math.sqrt(128)), v), atol=5e-3, rtol=1e-2)
    _check_path("attn_qk_norm_d128", args)


def test_attn_gqa_packed_heads_bm16():
    q, k, v = _qkv((2, 4, 64, 64), (2, 2, 256, 64), "float16", 114)
    args = run("attn_gqa_packed_heads_bm16", {0: q, 1: k, 2: v})
    idx = torch.tensor([0, 0, 1, 1], device="cuda")
    close(args[3], _attn(_scores(q, k[:, idx], 0.125), v[:, idx]), **F16)
    _check_path("attn_gqa_packed_heads_bm16", args)


def test_attn_cross_peeled_last_tile():
    q, k, v = _qkv((2, 100, 64), (2, 170, 64), "float16", 17)
    args = run("attn_cross_peeled_last_tile", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path("attn_cross_peeled_last_tile", args)


def test_attn_decode_split_kv_then_combine():
    """The split step (chained) then the combine (SIMT): the combined O against attention over all
    512 keys; the partials against each split's attention."""
    q, k, v = _qkv((4, 8, 64), (4, 512, 64), "float16", 20)
    args = run("attn_decode_split_kv", {0: q, 1: k, 2: v})
    for sp in range(4):
        sl = slice(128 * sp, 128 * sp + 128)
        close(args[3][sp], _attn(_scores(q, k[:, sl], 0.125), v[:, sl]), **F16)
    _check_path("attn_decode_split_kv", args)
    out = run("attn_decode_combine", {0: args[3], 1: args[4]})
    close(out[2], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path("attn_decode_combine", out)


def test_attn_head512():
    q, k, v = _qkv((1, 128, 512), (1, 128, 512), "float16", 23)
    args = run("attn_head512", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(512)), v), **F16)
    _check_path("attn_head512", args)


def test_attn_const_scale_exp():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 26)
    args = run("attn_const_scale_exp", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path("attn_const_scale_exp", args)


def test_attn_lse_natural_bf16():
    q, k, v = _qkv((2, 256, 128), (2, 256, 128), "bfloat16", 29)
    args = run("attn_lse_natural_bf16", {0: q, 1: k, 2: v})
    s = _scores(q, k, 1 / math.sqrt(128))
    close(args[3], _attn(s, v), **BF16)
    close(args[4], torch.logsumexp(s, -1), atol=1e-3, rtol=1e-4)
    _check_path("attn_lse_natural_bf16", args)


def test_attn_dv_below_dqk():
    q, k = randn((2, 256, 128), "float16", 32), randn((2, 256, 128), "float16", 33)
    v = randn((2, 256, 64), "float16", 34)
    args = run("attn_dv_below_dqk", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 1 / math.sqrt(128)), v), **F16)
    _check_path("attn_dv_below_dqk", args)


def test_attn_k_dmajor():
    q, kt = randn((2, 256, 64), "float16", 35), randn((2, 64, 256), "float16", 36)
    v = randn((2, 256, 64), "float16", 37)
    args = run("attn_k_dmajor", {0: q, 1: kt, 2: v})
    close(args[3], _attn(_scores(q, kt.transpose(1, 2), 0.125), v), **F16)
    _check_path("attn_k_dmajor", args)


def test_attn_segment_ids_causal():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 38)
    seg = torch.stack([torch.repeat_interleave(torch.tensor([0, 1, 2]), torch.tensor([70, 100, 86])),
                       torch.repeat_interleave(torch.tensor([0, 1]), torch.tensor([200, 56]))]).int().cuda()
    args = run("attn_segment_ids_causal", {0: q, 1: k, 2: v, 3: seg})
    keep = _causal(256, 256)[None] & (seg[:, :, None] == seg[:, None, :])
    close(args[4], _attn(_scores(q, k, 0.125), v, keep), **F16)
    _check_path("attn_segment_ids_causal", args)


def test_attn_prefix_lm():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 41)
    args = run("attn_prefix_lm", {0: q, 1: k, 2: v})
    keep = _causal(256, 256) | (torch.arange(256, device="cuda")[None, :] < 150)
    close(args[3], _attn(_scores(q, k, 0.125), v, keep), **F16)
    _check_path("attn_prefix_lm", args)


def test_attn_row_temperature():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 44)
    t = torch.rand((2, 256), device="cuda", generator=sweep._gen(47)) * 0.35 + 0.05
    args = run("attn_row_temperature", {0: q, 1: k, 2: v, 3: t})
    close(args[4], _attn(_scores(q, k, 1.0) * t.double()[..., None] / LOG2E, v), **F16)
    _check_path("attn_row_temperature", args)


def test_linear_attn_causal():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 48)
    args = run("linear_attn_causal", {0: q, 1: k, 2: v})
    s = (_scores(q, k, 1 / 64) * _causal(256, 256)).half().double()  # the program's f16 cast of the scores
    close(args[3], s @ v.double(), atol=2e-3, rtol=1e-2)
    _check_path("linear_attn_causal", args)


def test_attn_bf16_causal_d256():
    q, k, v = _qkv((2, 192, 256), (2, 192, 256), "bfloat16", 51)
    args = run("attn_bf16_causal_d256", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 1 / 16), v, _causal(192, 192)), **BF16)
    _check_path("attn_bf16_causal_d256", args)


def test_attn_bool_mask_tensor():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 54)
    mask = torch.rand((2, 128, 256), device="cuda", generator=sweep._gen(57)) < 0.3
    mask[:, :, 200] = True
    mask[0, 5, :] = False
    mask[0, 5, 3] = True
    args = run("attn_bool_mask_tensor", {0: q, 1: k, 2: v, 3: mask})
    close(args[4], _attn(_scores(q, k, 0.125), v, mask), **F16)
    _check_path("attn_bool_mask_tensor", args)


def test_attn_kv_cache_len():
    q, k, v = _qkv((2, 128, 64), (2, 512, 64), "float16", 58)
    k[:, 300:] = 60.0
    v[:, 300:] = 1000.0
    args = run("attn_kv_cache_len", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k[:, :300], 0.125), v[:, :300]), **F16)
    _check_path("attn_kv_cache_len", args)


def test_attn_bshd_grid3_bf16():
    q, k, v = _qkv((2, 256, 2, 64), (2, 256, 2, 64), "bfloat16", 61)
    args = run("attn_bshd_grid3_bf16", {0: q, 1: k, 2: v})
    t = lambda x: x.transpose(1, 2)  # noqa: E731
    close(t(args[3]), _attn(_scores(t(q), t(k), 0.125), t(v)), **BF16)
    _check_path("attn_bshd_grid3_bf16", args)


def test_attn_bwd_dv():
    q, k = randn((2, 256, 64), "float16", 64), randn((2, 256, 64), "float16", 65)
    do = randn((2, 256, 64), "float16", 66)
    s = _scores(q, k, 0.125)
    lse2 = (torch.logsumexp(s, -1) * LOG2E).float()
    args = run("attn_bwd_dv", {0: q, 1: k, 2: do, 3: lse2})
    p = torch.softmax(s, -1)
    close(args[4], p.transpose(1, 2) @ do.double(), atol=2e-2, rtol=2e-2)
    _check_path("attn_bwd_dv", args)


def test_attn_decode_gqa_rows():
    q = randn((2, 32, 64), "float16", 67)
    k, v = randn((2, 2, 256, 64), "float16", 68), randn((2, 2, 256, 64), "float16", 69)
    args = run("attn_decode_gqa_rows", {0: q, 1: k, 2: v})
    qh = q.view(2, 2, 16, 64)
    close(args[3].view(2, 2, 16, 64), _attn(_scores(qh, k, 0.125), v), **F16)
    _check_path("attn_decode_gqa_rows", args)


def test_attn_decode_gqa_rows_spare_heads():
    """A 16-row tile padded to 64: heads 32..47, which no program reads, stay NaN (unwritten)."""
    q = randn((2, 48, 64), "float16", 167)
    k, v = randn((2, 2, 256, 64), "float16", 168), randn((2, 2, 256, 64), "float16", 169)
    args = run("attn_decode_gqa_rows_spare_heads", {0: q, 1: k, 2: v})
    assert torch.isnan(args[3][:, 32:].float()).all()
    qh = q[:, :32].reshape(2, 2, 16, 64)
    close(args[3][:, :32].reshape(2, 2, 16, 64), _attn(_scores(qh, k, 0.125), v), **F16)
    _check_path("attn_decode_gqa_rows_spare_heads", args)


def test_attn_decode_gqa_rows8():
    q = randn((2, 16, 64), "float16", 173)
    k, v = randn((2, 2, 256, 64), "float16", 174), randn((2, 2, 256, 64), "float16", 175)
    args = run("attn_decode_gqa_rows8", {0: q, 1: k, 2: v})
    qh = q.view(2, 2, 8, 64)
    close(args[3].view(2, 2, 8, 64), _attn(_scores(qh, k, 0.125), v), **F16)
    _check_path("attn_decode_gqa_rows8", args)


def test_attn_decode_gqa_rows4():
    q = randn((2, 8, 64), "float16", 176)
    k, v = randn((2, 2, 256, 64), "float16", 177), randn((2, 2, 256, 64), "float16", 178)
    args = run("attn_decode_gqa_rows4", {0: q, 1: k, 2: v})
    qh = q.view(2, 2, 4, 64)
    close(args[3].view(2, 2, 4, 64), _attn(_scores(qh, k, 0.125), v), **F16)
    _check_path("attn_decode_gqa_rows4", args)


def test_attn_decode_gqa_rows32():
    q = randn((2, 64, 64), "float16", 170)
    k, v = randn((2, 2, 256, 64), "float16", 171), randn((2, 2, 256, 64), "float16", 172)
    args = run("attn_decode_gqa_rows32", {0: q, 1: k, 2: v})
    qh = q.view(2, 2, 32, 64)
    close(args[3].view(2, 2, 32, 64), _attn(_scores(qh, k, 0.125), v), **F16)
    _check_path("attn_decode_gqa_rows32", args)


def test_attn_qk_norm():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 70)
    wq, wk = randn((64,), "float32", 73), randn((64,), "float32", 74)
    args = run("attn_qk_norm", {0: q, 1: k, 2: v, 3: wq, 4: wk})

    def norm(x, w):
        x = x.double()
        return (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w.double()).half()

    close(args[5], _attn(_scores(norm(q, wq), norm(k, wk), 0.125), v), atol=5e-3, rtol=1e-2)
    _check_path("attn_qk_norm", args)


def test_attn_qk_norm_bm128():
    q, k, v = _qkv((2, 256, 64), (2, 200, 64), "float16", 75)
    wq, wk = randn((64,), "float32", 78), randn((64,), "float32", 79)
    args = run("attn_qk_norm_bm128", {0: q, 1: k, 2: v, 3: wq, 4: wk})

    def norm(x, w):
        x = x.double()
        return (x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w.double()).half()

    pad = torch.zeros((2, 56, 64), device="cuda", dtype=torch.float16)  # the last K tile's zero-filled rows
    kp, vp = torch.cat([norm(k, wk), pad], 1), torch.cat([v, pad], 1)
    close(args[5], _attn(_scores(norm(q, wq), kp, 0.125), vp), atol=5e-3, rtol=1e-2)
    _check_path("attn_qk_norm_bm128", args)


@pytest.mark.parametrize("name", ["attn_range_step_bn", "attn_k_order_load", "attn_bn32"])
def test_attn_loop_forms(name):
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 130)
    args = run(name, {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path(name, args)


def test_attn_lse_flat():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 133)
    args = run("attn_lse_flat", {0: q, 1: k, 2: v})
    s = _scores(q, k, 0.125)
    close(args[3], _attn(s, v), **F16)
    close(args[4], (torch.logsumexp(s, -1) * LOG2E).reshape(512), atol=1e-3, rtol=1e-4)
    _check_path("attn_lse_flat", args)


def test_attn_causal_greater_equal():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 136)
    args = run("attn_causal_greater_equal", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v, _causal(256, 256)), **F16)
    _check_path("attn_causal_greater_equal", args)


def test_mlp_x_once_d512():
    x = randn((128, 512), "float16", 139)
    w1, w2 = randn((512, 256), "float16", 140, 0.0625), randn((256, 128), "float16", 141, 0.0625)
    args = run("mlp_x_once_d512", {0: x, 1: w1, 2: w2})
    h = (x.double() @ w1.double()).clamp_min(0).half().double()
    close(args[3], h @ w2.double(), atol=1e-2, rtol=1e-2)
    _check_path("mlp_x_once_d512", args)


def test_attn_triton_stages():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 142)
    args = run("attn_triton_stages", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v, _causal(256, 256)), **F16)
    _check_path("attn_triton_stages", args)


@pytest.mark.parametrize("name", ["attn_persistent", "attn_swapped_grid_v_first"])
def test_attn_persistent_and_swapped_grid(name):
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 145)
    args = run(name, {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path(name, args)


def test_attn_if_last_tile():
    q, k, v = _qkv((2, 256, 64), (2, 200, 64), "float16", 148)
    args = run("attn_if_last_tile", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path("attn_if_last_tile", args)


def test_attn_m_and_l_out():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 151)
    args = run("attn_m_and_l_out", {0: q, 1: k, 2: v})
    s = _scores(q, k, 0.125 * LOG2E)
    close(args[3], _attn(s / LOG2E, v), **F16)
    m = s.amax(-1)
    close(args[4], m, atol=1e-3, rtol=1e-5)
    close(args[5], torch.exp2(s - m[..., None]).sum(-1), atol=1e-3, rtol=1e-3)
    _check_path("attn_m_and_l_out", args)


def test_attn_triton_stages_bm64_bn128():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 154)
    args = run("attn_triton_stages_bm64_bn128", {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v, _causal(256, 256)), **F16)
    _check_path("attn_triton_stages_bm64_bn128", args)


def test_attn_peeled_with_lse():
    q, k, v = _qkv((2, 128, 64), (2, 300, 64), "float16", 157)
    args = run("attn_peeled_with_lse", {0: q, 1: k, 2: v})
    s = _scores(q, k, 0.125)
    close(args[3], _attn(s, v), **F16)
    close(args[4], torch.logsumexp(s, -1) * LOG2E, atol=1e-3, rtol=1e-4)
    _check_path("attn_peeled_with_lse", args)


@pytest.mark.parametrize("name, sq, d", [("attn_head80_padded", 256, 80), ("attn_head8", 256, 8),
                                         ("attn_bm256", 512, 64), ("attn_bm256_bn128", 512, 64)])
def test_attn_head_dims_and_tile_rows(name, sq, d):
    q, k, v = _qkv((2, sq, d), (2, sq, d), "float16", 160)
    args = run(name, {0: q, 1: k, 2: v})
    close(args[3], _attn(_scores(q, k, 0.125), v), **F16)
    _check_path(name, args)


# ----------------------------------------------------------------------------------------------- two dots and GEMMs


def test_mlp_nested_k_gelu():
    x = randn((128, 256), "float16", 75)
    w1, w2 = randn((256, 256), "float16", 76, 0.0625), randn((256, 128), "float16", 77, 0.0625)
    args = run("mlp_nested_k_gelu", {0: x, 1: w1, 2: w2})
    h = x.double() @ w1.double()
    g = torch.nn.functional.gelu(h, approximate="tanh")
    close(args[3], g @ w2.double(), atol=1e-2, rtol=1e-2)
    _check_path("mlp_nested_k_gelu", args)


def test_mm_row_softmax_epilogue():
    a, b = randn((192, 128), "float16", 78), randn((128, 200), "float16", 79, 0.5)
    args = run("mm_row_softmax_epilogue", {0: a, 1: b})
    close(args[2], torch.softmax((a.double() @ b.double()) * 0.25, -1), atol=2e-3, rtol=1e-2)
    _check_path("mm_row_softmax_epilogue", args)


def test_mm_batch_middle_axis():
    a, b = randn((128, 2, 128), "float16", 80), randn((2, 128, 256), "float16", 81)
    args = run("mm_batch_middle_axis", {0: a, 1: b})
    _gemm_rel(args[2], torch.einsum("mbk,bkn->bmn", a.double(), b.double()))
    _check_path("mm_batch_middle_axis", args)


def test_mm_u8_x_i8():
    g = sweep._gen(82)
    a = torch.randint(0, 256, (128, 256), device="cuda", generator=g, dtype=torch.uint8)
    b = torch.randint(-128, 128, (256, 256), device="cuda", generator=g, dtype=torch.int8)
    args = run("mm_u8_x_i8", {0: a, 1: b})
    assert torch.equal(args[2], (a.double() @ b.double()).to(torch.int32))
    _check_path("mm_u8_x_i8", args)


def test_mm_two_outputs_shared_a():
    a, b1, b2 = randn((128, 128), "float16", 83), randn((128, 256), "float16", 84), randn((128, 256), "float16", 85)
    args = run("mm_two_outputs_shared_a", {0: a, 1: b1, 2: b2})
    _gemm_rel(args[3], a.double() @ b1.double())
    close(args[4], a.double() @ b2.double(), atol=1e-3, rtol=1e-5)
    _check_path("mm_two_outputs_shared_a", args)


def test_mm_splitk_strided_atomic():
    a, b = randn((200, 300), "float16", 86), randn((300, 136), "float16", 87)
    c = torch.zeros((200, 136), device="cuda")
    args = run("mm_splitk_strided_atomic", {0: a, 1: b, 2: c})
    close(args[2], a.double() @ b.double(), atol=1e-3, rtol=1e-5)
    _check_path("mm_splitk_strided_atomic", args)


def test_mm_both_order_loads():
    at, bt = randn((200, 128), "float16", 110), randn((256, 200), "float16", 111)
    args = run("mm_both_order_loads", {0: at, 1: bt})
    close(args[2], at.double().T @ bt.double().T, atol=1e-3, rtol=1e-5)
    _check_path("mm_both_order_loads", args)


def test_mm_batched_strided_batch_on_transposed_views():
    """A strided batch: A a ``transpose(0, 1)`` view of ``[M, Bt, K]`` storage (batch stride K, row
    stride Bt K), C a view of ``[M, Bt, N]`` storage (NaN-filled); B contiguous.  Since session 43 the launch runs on
    the tensor cores with every operand read or stored in place: A's 3-D tensor map takes its batch stride and its row
    stride, C's (the TMA epilogue's, f16) likewise; no PerformanceWarning naming A or C (before: the SIMT path, whose kernel spills
    288 B, after a warning naming C's strides)."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning
    from tileorch.launchers import cutile as rc

    a_store = randn((128, 2, 128), "float16", 112)
    a = a_store.transpose(0, 1)
    b = randn((2, 128, 256), "float16", 113)
    c_store = torch.full((128, 2, 256), float("nan"), device="cuda", dtype=torch.float16)
    c = c_store.transpose(0, 1)
    rc.clear_caches()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        args = run("mm_batched_strided_batch", {0: a, 1: b, 2: c})
    said = [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)]
    assert not [w for w in said if "('A')" in w or "('C')" in w or "SIMT" in w], said
    _gemm_rel(c_store.transpose(0, 1), a.double() @ b.double())
    _check_path("mm_batched_strided_batch", args)


def test_mm_batched_strided_batch_contiguous():
    a, b = randn((2, 128, 128), "float16", 114), randn((2, 128, 256), "float16", 115)
    args = run("mm_batched_strided_batch", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_batched_strided_batch", args)


def test_mm_lora_fused():
    x, w = randn((128, 256), "float16", 88), randn((256, 256), "float16", 89)
    la, lb = randn((256, 64), "float16", 90, 0.125), randn((64, 256), "float16", 91, 0.125)
    args = run("mm_lora_fused", {0: x, 1: w, 2: la, 3: lb})
    xa = (x.double() @ la.double() * 0.5).half().double()
    _gemm_rel(args[4], x.double() @ w.double() + xa @ lb.double())
    _check_path("mm_lora_fused", args)


# ----------------------------------------------------------------------------------------------- reductions


def test_rmsnorm_gemma_bf16():
    x, w = randn((5, 300), "bfloat16", 92), randn((300,), "float32", 93)
    args = run("rmsnorm_gemma_bf16", {0: x, 1: w})
    xd = x.double()
    close(args[2], xd * torch.rsqrt((xd * xd).mean(1, keepdim=True) + 1e-6) * (1 + w.double()), atol=2e-2, rtol=8e-3)
    _check_path("rmsnorm_gemma_bf16", args)


def test_log_softmax_two_pass():
    x = randn((3, 700), "float16", 94, 3.0)
    args = run("log_softmax_two_pass", {0: x})
    close(args[1], torch.log_softmax(x.double(), 1), atol=1e-5, rtol=1e-6)
    _check_path("log_softmax_two_pass", args)


def test_argmax_cols_chunks_ties():
    x = randn((50, 40), "float16", 95)
    x[[3, 40], 0] = 9.0
    x[[17, 18], 1] = 9.0
    x[:, 2] = -1.0
    x[49, 2] = 0.0
    x[:, 39] = 5.0
    args = run("argmax_cols_chunks_ties", {0: x})
    ref = torch.tensor([int(torch.nonzero(x[:, c] == x[:, c].max())[0]) for c in range(40)], device="cuda")
    assert torch.equal(args[1].long(), ref)
    _check_path("argmax_cols_chunks_ties", args)


def test_cumsum_rows_chunks():
    x = randn((6, 150), "float16", 96)
    args = run("cumsum_rows_chunks", {0: x})
    close(args[1], torch.cumsum(x.double(), 1), atol=1e-4, rtol=1e-5)
    _check_path("cumsum_rows_chunks", args)


def test_softmax_bool_mask_rows():
    x = randn((4, 100), "float32", 97)
    mask = torch.rand((4, 100), device="cuda", generator=sweep._gen(98)) < 0.5
    mask[2] = False
    mask[3] = False
    mask[3, 99] = True
    args = run("softmax_bool_mask_rows", {0: x, 1: mask})
    ref = torch.softmax(x.double().masked_fill(~mask, float("-inf")), 1).nan_to_num(0.0)
    close(args[2], ref, atol=1e-6, rtol=1e-5)
    assert (args[2][2] == 0).all()
    _check_path("softmax_bool_mask_rows", args)


def test_layernorm_f16_bf16_stats():
    x, w, b = randn((10, 96), "float16", 99), randn((96,), "float32", 100), randn((96,), "float32", 101)
    args = run("layernorm_f16_bf16_stats", {0: x, 1: w, 2: b})
    xd = x.double()
    mu, var = xd.mean(1), xd.var(1, unbiased=False)
    close(args[3], torch.nn.functional.layer_norm(xd, (96,), w.double(), b.double(), 1e-5), atol=3e-2, rtol=8e-3)
    close(args[4], mu, atol=1e-6, rtol=1e-5)
    close(args[5], torch.rsqrt(var + 1e-5), atol=1e-5, rtol=1e-5)
    _check_path("layernorm_f16_bf16_stats", args)


def test_logcumsumexp_rows():
    x = randn((3, 100), "float32", 102, 4.0)
    args = run("logcumsumexp_rows", {0: x})
    close(args[1], torch.logcumsumexp(x.double(), 1), atol=1e-5, rtol=1e-5)
    _check_path("logcumsumexp_rows", args)


def test_int8_sum_squares():
    x = torch.randint(-128, 128, (9, 77), device="cuda", generator=sweep._gen(103), dtype=torch.int8)
    x[0] = -128
    args = run("int8_sum_squares", {0: x})
    assert torch.equal(args[1], (x.long() ** 2).sum(1).int())
    _check_path("int8_sum_squares", args)


def test_masked_mean_pool():
    x = randn((3, 20, 16), "bfloat16", 104)
    lens = torch.tensor([20, 7, 1], device="cuda", dtype=torch.int32)
    args = run("masked_mean_pool", {0: x, 1: lens})
    ref = torch.stack([x[b, :n].double().mean(0) for b, n in enumerate(lens.tolist())])
    close(args[2], ref, atol=1e-5, rtol=1e-5)
    _check_path("masked_mean_pool", args)


def test_every_program_has_a_gpu_test():
    text = open(__file__).read()
    tested = {n for n in PROGRAMS if f'"{n}"' in text}
    assert tested == set(PROGRAMS), set(PROGRAMS) - tested
