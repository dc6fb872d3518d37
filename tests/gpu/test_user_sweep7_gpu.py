"""The seventh user sweep on the GPU: every program of ``tileorch.testing.user_programs7`` (NVIDIA's
cuTile samples' shapes and LLM building blocks) runs through ``tileorch.cutile.launch``
(test_user_sweep_gpu.run: outputs start NaN / a sentinel inside a larger buffer whose tail must
stay unwritten) against an independent torch reference in fp32 / fp64, and the path each took
(GEMM tier, SIMT) is the one the CPU tests expect.  Skipped without a GPU; needs torch and
cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_user_sweep7_gpu.py``."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402

import tileorch.cutile  # noqa: E402
from test_user_sweep_gpu import _gemm_rel, check_path, close, randn, run  # noqa: E402

from tileorch.testing.user_programs7 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

LOG2E = 1.4426950408889634
F16 = dict(atol=3e-3, rtol=1e-2)
BF16 = dict(atol=3e-2, rtol=1e-2)


_check_path = check_path  # test_user_sweep_gpu's: ran on its table entry's path


def _silu(x):
    return x * torch.sigmoid(x)


def _gelu(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


def _zeros(shape, dtype=torch.float32):
    return torch.zeros(shape, device="cuda", dtype=dtype)


def _ints(lo, hi, shape, seed, dtype=torch.int32):
    return torch.randint(lo, hi, shape, device="cuda", generator=sweep._gen(seed), dtype=dtype)


# ----------------------------------------------------------------------------------------------- RoPE


def test_rope_interleaved_offsets():
    x = randn((2, 64, 4, 64), "float16", 1)
    start = torch.tensor([0, 37], device="cuda", dtype=torch.int32)
    args = run("rope_interleaved_offsets", {0: x, 1: start})
    pos = (start[:, None] + torch.arange(64, device="cuda")[None]).double()
    inv = 10000.0 ** (-torch.arange(0, 64, 2, device="cuda").double() / 64)
    ang = pos[:, :, None, None] * inv
    x0, x1 = x.double()[..., 0::2], x.double()[..., 1::2]
    ref = torch.stack([x0 * ang.cos() - x1 * ang.sin(), x0 * ang.sin() + x1 * ang.cos()], -1).flatten(-2)
    close(args[2], ref, atol=3e-3, rtol=2e-3)
    _check_path("rope_interleaved_offsets", args)


def test_rope_half_qk_pos_ids():
    q, k = randn((2, 4, 32, 64), "bfloat16", 2), randn((2, 2, 32, 64), "bfloat16", 3)
    inv = 10000.0 ** (-torch.arange(0, 64, 2, device="cuda").double() / 64)
    tab = torch.arange(128, device="cuda").double()[:, None] * inv
    cos, sin = tab.cos().float(), tab.sin().float()
    pos = torch.randperm(128, device="cuda", generator=sweep._gen(4))[:64].view(2, 32).int()
    args = run("rope_half_qk_pos_ids", {0: q, 1: k, 2: cos, 3: sin, 4: pos})
    c, s = cos.double()[pos.long()][:, None], sin.double()[pos.long()][:, None]

    def rot(x):
        x1, x2 = x.double()[..., :32], x.double()[..., 32:]
        return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)

    close(args[5], rot(q), **BF16)
    close(args[6], rot(k), **BF16)
    _check_path("rope_half_qk_pos_ids", args)


# ----------------------------------------------------------------------------------------------- gated MLPs


def test_mm_swiglu_fused_gate_up():
    x, w = randn((128, 256), "float16", 5, 0.25), randn((256, 512), "float16", 6, 0.25)
    args = run("mm_swiglu_fused_gate_up", {0: x, 1: w})
    h = x.double() @ w.double()
    close(args[2], _silu(h[:, :256]) * h[:, 256:], atol=3e-3, rtol=5e-3)
    _check_path("mm_swiglu_fused_gate_up", args)


def test_mm_geglu_bias_epilogue():
    x = randn((200, 128), "float16", 7, 0.25)
    wg, wu = randn((128, 256), "float16", 8, 0.25), randn((128, 256), "float16", 9, 0.25)
    bg, bu = randn((256,), "float32", 10), randn((256,), "float32", 11)
    args = run("mm_geglu_bias_epilogue", {0: x, 1: wg, 2: wu, 3: bg, 4: bu})
    ref = _gelu(x.double() @ wg.double() + bg.double()) * (x.double() @ wu.double() + bu.double())
    close(args[5], ref, atol=3e-3, rtol=5e-3)
    _check_path("mm_geglu_bias_epilogue", args)


def test_silu_and_mul_sample_on_chunked_views():
    """A and B the two halves of one ``[6, 600]`` tensor (``chunk(2, -1)``: row stride 600), as the
    MoE sample passes them; the 512-wide tile reads past each half's 300 columns."""
    ab = randn((6, 600), "float16", 12, 2.0)
    a, b = ab.chunk(2, dim=-1)
    args = run("silu_and_mul_sample", {0: a, 1: b})
    close(args[2], _silu(a.double()) * b.double(), atol=3e-3, rtol=3e-3)
    _check_path("silu_and_mul_sample", args)


def test_geglu_split_rows():
    x = randn((10, 256), "float32", 13)
    args = run("geglu_split_rows", {0: x})
    close(args[1], _gelu(x.double()[:, :128]) * x.double()[:, 128:], atol=1e-2, rtol=8e-3)
    _check_path("geglu_split_rows", args)


# ----------------------------------------------------------------------------------------------- MoE


def _moe_align(topk_ids, tm, n_exp, blocks):
    """The sample's host-side alignment (replica ids sorted by expert, padded per expert to ``tm``
    with the sentinel), padded to ``blocks`` row tiles."""
    flat = topk_ids.reshape(-1).cpu()
    order = torch.argsort(flat, stable=True)
    ids, experts, pos = [], [], 0
    for e in range(n_exp):
        cnt = int((flat == e).sum())
        nb = -(-cnt // tm)
        ids += order[pos:pos + cnt].tolist() + [flat.numel()] * (nb * tm - cnt)
        experts += [e] * nb
        pos += cnt
    ids += [flat.numel()] * (blocks * tm - len(ids))
    experts += [0] * (blocks - len(experts))
    return (torch.tensor(ids[:blocks * tm], device="cuda", dtype=torch.int32),
            torch.tensor(experts[:blocks], device="cuda", dtype=torch.int32))


def test_moe_sorted_gather_gemm():
    t, topk, n_exp = 24, 2, 4
    x, w = randn((t, 128), "float16", 14), randn((n_exp, 128, 128), "float16", 15, 0.125)  # W [E, N, K]
    g = sweep._gen(16)
    topk_ids = torch.stack([torch.randperm(n_exp, device="cuda", generator=g)[:topk] for _ in range(t)]).int()
    topw = torch.rand((t * topk,), device="cuda", generator=g)
    ids, experts = _moe_align(topk_ids, 16, n_exp, 6)
    assert int((ids < t * topk).sum()) == t * topk
    args = run("moe_sorted_gather_gemm", {0: x, 1: w, 3: topw, 4: ids, 5: experts})
    flat = topk_ids.reshape(-1).long()
    ref = torch.stack([(x[r // topk].double() @ w[flat[r]].double().T) * topw[r].double() for r in range(t * topk)])
    close(args[2], ref, atol=1e-3, rtol=2e-3)
    _check_path("moe_sorted_gather_gemm", args)


def test_moe_expert_offsets_gemm():
    x, w = randn((150, 128), "float16", 17), randn((3, 128, 128), "float16", 18, 0.125)
    offs = torch.tensor([0, 70, 70, 150], device="cuda", dtype=torch.int32)
    args = run("moe_expert_offsets_gemm", {0: x, 1: w, 3: offs})
    ref = torch.cat([x[:70].double() @ w[0].double(), x[70:].double() @ w[2].double()])
    close(args[2], ref, atol=1e-3, rtol=2e-3)
    _check_path("moe_expert_offsets_gemm", args)


def test_grouped_gemm_lists_persistent():
    """Two groups (a 128 x 128 of K 64, a ragged 100 x 64 of K 96) over 3 persistent programs."""
    shapes = [(128, 64, 128), (100, 96, 64)]
    a = [randn((m, k), "float16", 19 + g) for g, (m, k, n) in enumerate(shapes)]
    b = [randn((k, n), "float16", 29 + g) for g, (m, k, n) in enumerate(shapes)]
    c = [torch.full((m, n), float("nan"), device="cuda") for m, k, n in shapes]
    args = run("grouped_gemm_lists_persistent", {0: a, 1: b, 2: c})
    for g in range(2):
        close(c[g], a[g].double() @ b[g].double(), atol=2e-3, rtol=1e-3)
    _check_path("grouped_gemm_lists_persistent", args)


# ----------------------------------------------------------------------------------------------- vocabulary rows


def test_topk_vocab_running():
    x = randn((3, 5000), "float32", 31)
    x[0, 4990] = 50.0
    x[1, [10, 3000]] = 40.0
    args = run("topk_vocab_running", {0: x})
    order = torch.from_numpy(np.argsort(-x.cpu().numpy(), axis=1, kind="stable")[:, :4]).cuda()
    assert torch.equal(args[2].long(), order)
    close(args[1], torch.gather(x, 1, order), atol=0, rtol=0)
    _check_path("topk_vocab_running", args)


def test_greedy_gumbel_sample():
    logits = randn((3, 3000), "bfloat16", 32, 3.0)
    u = torch.rand((3, 3000), device="cuda", generator=sweep._gen(33)).clamp(1e-6, 1 - 1e-6)
    noise = -torch.log(-torch.log(u))
    temp = torch.tensor([0.5, 1.0, 2.0], device="cuda")
    args = run("greedy_gumbel_sample", {0: logits, 1: noise, 2: temp})
    z = logits.double() / temp.double()[:, None] + noise.double()
    picked = torch.gather(z, 1, args[3][:, None]).squeeze(1)  # the token's score is the best (to rounding)
    assert (picked >= z.amax(1) - 1e-5).all(), (picked, z.amax(1))
    _check_path("greedy_gumbel_sample", args)


def test_cross_entropy_vocab_smooth_zloss():
    z = randn((4, 32000), "bfloat16", 34, 2.0)
    lab = torch.tensor([0, 31999, 12345, 7], device="cuda", dtype=torch.int32)
    args = run("cross_entropy_vocab_smooth_zloss", {0: z, 1: lab, 4: _zeros((1,))})
    zd = z.double()
    lse = torch.logsumexp(zd, 1)
    loss = 0.9 * (lse - zd[torch.arange(4), lab.long()]) + 0.1 * (lse - zd.mean(1)) + 1e-4 * lse * lse
    close(args[3], lse, atol=1e-4, rtol=1e-5)
    close(args[2], loss, atol=1e-4, rtol=1e-5)
    close(args[4], loss.mean()[None], atol=1e-4, rtol=1e-5)
    _check_path("cross_entropy_vocab_smooth_zloss", args)


def test_cross_entropy_bwd_inplace():
    z = randn((4, 5000), "bfloat16", 35, 2.0)
    lab = torch.tensor([3, 4999, 2048, 0], device="cuda", dtype=torch.int32)
    lse = torch.logsumexp(z.double(), 1).float()
    dl = torch.tensor([1.0, 0.5, 2.0, 0.25], device="cuda")
    ref = torch.exp(z.double() - lse.double()[:, None])
    ref[torch.arange(4), lab.long()] -= 1
    ref = ref * dl.double()[:, None]
    g = z.clone()
    args = run("cross_entropy_bwd_inplace", {0: g, 1: lab, 2: lse, 3: dl})
    close(g, ref, atol=2e-3, rtol=1e-2)
    _check_path("cross_entropy_bwd_inplace", args)


# ----------------------------------------------------------------------------------------------- norms


def _rms(x, w, eps=1e-6):
    x = x.double()
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w.double()


def test_residual_add_rmsnorm():
    x, res, w = randn((6, 1000), "bfloat16", 36), randn((6, 1000), "bfloat16", 37), randn((1000,), "bfloat16", 38)
    args = run("residual_add_rmsnorm", {0: x, 1: res, 2: w})
    h = x.double() + res.double()
    close(args[4], h, atol=2e-2, rtol=8e-3)
    close(args[3], _rms(h, w), atol=3e-2, rtol=1e-2)
    _check_path("residual_add_rmsnorm", args)


def test_rmsnorm_static_persistent():
    x, w = randn((37, 256), "float16", 39), randn((256,), "float32", 40)
    args = run("rmsnorm_static_persistent", {0: x, 2: w})
    close(args[1], _rms(x, w), atol=4e-3, rtol=4e-3)
    _check_path("rmsnorm_static_persistent", args)


def test_rmsnorm_gather_scatter():
    x, w = randn((5, 300), "bfloat16", 41), randn((300,), "bfloat16", 42)
    args = run("rmsnorm_gather_scatter", {0: x, 1: w})
    xd = x.double()
    close(args[3], torch.rsqrt((xd * xd).mean(1) + 1e-6), atol=1e-5, rtol=1e-5)
    close(args[2], _rms(x, w), atol=3e-2, rtol=1e-2)
    _check_path("rmsnorm_gather_scatter", args)


def test_layernorm_sample_backward():
    """Part 1 (dX, the dW / dB partials under the spin locks; every lock released), then part 2."""
    x, dy, w = randn((12, 200), "float32", 43), randn((12, 200), "float32", 44), randn((200,), "float32", 45)
    mean, var = x.double().mean(1), x.double().var(1, unbiased=False)
    rstd = torch.rsqrt(var + 1e-5)
    locks = _zeros((4,), torch.int32)
    dw, db = _zeros((4, 200)), _zeros((4, 200))
    args = run("layernorm_bwd_dx_locked_dwdb", {1: dy, 2: dw, 3: db, 4: x, 5: w, 6: mean.float(), 7: rstd.float(),
                                                8: locks})
    xhat = (x.double() - mean[:, None]) * rstd[:, None]
    wdy = w.double() * dy.double()
    c1, c2 = (xhat * wdy).mean(1, keepdim=True), wdy.mean(1, keepdim=True)
    close(args[0], (wdy - (xhat * c1 + c2)) * rstd[:, None], atol=1e-4, rtol=1e-4)
    grp = torch.arange(12, device="cuda") % 4
    close(dw, torch.stack([(dy.double() * xhat)[grp == g].sum(0) for g in range(4)]), atol=1e-4, rtol=1e-4)
    close(db, torch.stack([dy.double()[grp == g].sum(0) for g in range(4)]), atol=1e-4, rtol=1e-4)
    assert torch.equal(locks, _zeros((4,), torch.int32))
    _check_path("layernorm_bwd_dx_locked_dwdb", args)
    out = run("layernorm_bwd_dwdb_reduce", {0: dw, 1: db})
    close(out[2], (dy.double() * xhat).sum(0), atol=1e-4, rtol=1e-4)
    close(out[3], dy.double().sum(0), atol=1e-4, rtol=1e-4)
    _check_path("layernorm_bwd_dwdb_reduce", out)


def test_softmax_bwd_chunked():
    y, dy = randn((3, 700), "float16", 46).abs(), randn((3, 700), "float16", 47)
    args = run("softmax_bwd_chunked", {0: y, 1: dy})
    yd, dyd = y.double(), dy.double()
    close(args[2], yd * (dyd - (yd * dyd).sum(1, keepdim=True)), atol=1e-4, rtol=1e-4)
    _check_path("softmax_bwd_chunked", args)


def test_welford_tuple_reduce():
    x = randn((50, 40), "float32", 48, 3.0) + 10.0
    args = run("welford_tuple_reduce", {0: x})
    close(args[1], x.double().mean(0), atol=1e-5, rtol=1e-5)
    close(args[2], x.double().var(0, unbiased=False), atol=1e-4, rtol=1e-4)
    _check_path("welford_tuple_reduce", args)


# ----------------------------------------------------------------------------------------------- quantisation


def test_quant_int8_per_token_3d():
    x = randn((2, 48, 64), "bfloat16", 49)
    x[1, 5] = 0
    args = run("quant_int8_per_token_3d", {0: x})
    xf = x.float()
    amax = xf.abs().amax(2)
    s = torch.where(amax > 0, amax / 127.0, torch.ones_like(amax))
    q = torch.clamp(torch.floor(xf / s[..., None] + 0.5), -127, 127)
    close(args[2], s, atol=1e-7, rtol=1e-6)
    assert (args[1].float() - q).abs().max() <= 1 and (args[1].float() == q).float().mean() > 0.99
    _check_path("quant_int8_per_token_3d", args)


def test_dequant_int8_groupwise():
    q = _ints(-128, 128, (10, 128), 50, torch.int8)
    s = (torch.rand((10, 4), device="cuda", generator=sweep._gen(51)) * 0.1).half()
    args = run("dequant_int8_groupwise", {0: q, 1: s})
    close(args[2], (q.double().view(10, 4, 32) * s.double()[:, :, None]).view(10, 128), atol=1e-3, rtol=1e-3)
    _check_path("dequant_int8_groupwise", args)


def test_quant_fp8_e4m3_per_tensor():
    x = randn((100, 96), "bfloat16", 52, 4.0)
    amax = (x.float().abs().max() * 0.5).reshape(1)
    args = run("quant_fp8_e4m3_per_tensor", {0: x, 1: amax})
    scale = 448.0 / amax
    ref = torch.clamp(x.float() * scale, -448, 448).to(torch.float8_e4m3fn)
    assert torch.equal(args[2].view(torch.uint8), ref.view(torch.uint8))
    close(args[3], 1.0 / scale, atol=1e-7, rtol=1e-6)
    _check_path("quant_fp8_e4m3_per_tensor", args)


def test_mm_fp8_scaled_amax():
    a = (randn((128, 256), "float32", 53) * 2).to(torch.float8_e4m3fn)
    bt = (randn((256, 256), "float32", 54) * 2).to(torch.float8_e4m3fn)
    sa, sb = torch.tensor([0.5], device="cuda"), torch.tensor([0.25], device="cuda")
    amax = _zeros((1,), torch.int32)
    args = run("mm_fp8_scaled_amax", {0: a, 1: bt, 2: sa, 3: sb, 5: amax})
    ref = (a.double() @ bt.double().T) * 0.125
    close(args[4], ref, atol=0.05, rtol=8e-3)
    close(amax.view(torch.float32), ref.abs().max()[None], atol=1e-3, rtol=1e-5)
    _check_path("mm_fp8_scaled_amax", args)


# ----------------------------------------------------------------------------------------------- GEMM shapes


def test_mm_tf32_bias_gelu_swizzle():
    a, b, bias = randn((200, 96), "float32", 55), randn((96, 136), "float32", 56), randn((136,), "float32", 57)
    args = run("mm_tf32_bias_gelu_swizzle", {0: a, 1: b, 2: bias})
    _gemm_rel(args[3], _gelu(a.double() @ b.double() + bias.double()), 5e-3)  # tf32 operands
    _check_path("mm_tf32_bias_gelu_swizzle", args)


def test_mm_f16_bias_gelu_swizzle():
    a, b = randn((200, 96), "float16", 118, 0.5), randn((96, 136), "float16", 119, 0.5)
    bias = randn((136,), "float32", 120)
    args = run("mm_f16_bias_gelu_swizzle", {0: a, 1: b, 2: bias})
    close(args[3], _gelu(a.double() @ b.double() + bias.double()), atol=4e-3, rtol=5e-3)
    _check_path("mm_f16_bias_gelu_swizzle", args)


def test_mm_tf32_linear_wt():
    x, w = randn((128, 128), "float32", 58), randn((256, 128), "float32", 59)
    args = run("mm_tf32_linear_wt", {0: x, 1: w})
    _gemm_rel(args[2], x.double() @ w.double().T, 5e-3)
    _check_path("mm_tf32_linear_wt", args)


def test_bmm_broadcast_4d():
    a, b = randn((2, 1, 128, 128), "float16", 60, 0.25), randn((1, 3, 128, 128), "float16", 61, 0.25)
    args = run("bmm_broadcast_4d", {0: a, 1: b})
    close(args[2], a.double() @ b.double(), atol=2e-3, rtol=5e-3)
    _check_path("bmm_broadcast_4d", args)


def test_mm_splitk_lock_counts():
    """C starts NaN: the first finisher of each tile stores (count 0), the other adds; both launches
    leave the locks and counts at 0, so a second launch computes the same C."""
    a, b = randn((128, 512), "float16", 62, 0.25), randn((512, 128), "float16", 63, 0.25)
    locks, counts = _zeros((4,), torch.int32), _zeros((4,), torch.int32)
    args = run("mm_splitk_lock_counts", {0: a, 1: b, 3: locks, 4: counts})
    close(args[2], a.double() @ b.double(), atol=1e-4, rtol=1e-4)
    assert not locks.any() and not counts.any()
    c = torch.full((128, 128), float("nan"), device="cuda")
    run("mm_splitk_lock_counts", {0: a, 1: b, 2: c, 3: locks, 4: counts})
    close(c, a.double() @ b.double(), atol=1e-4, rtol=1e-4)
    _check_path("mm_splitk_lock_counts", args)


def test_conv2d_implicit_gemm_nhwc():
    x, w = randn((2, 8, 8, 32), "float16", 64), randn((288, 64), "float16", 65, 0.125)
    args = run("conv2d_implicit_gemm_nhwc", {0: x, 1: w})
    wt = w.double().view(3, 3, 32, 64).permute(3, 2, 0, 1)  # [Cout, C, KH, KW]
    ref = torch.nn.functional.conv2d(x.double().permute(0, 3, 1, 2), wt, padding=1).permute(0, 2, 3, 1)
    close(args[2], ref.reshape(128, 64), atol=3e-3, rtol=3e-3)
    _check_path("conv2d_implicit_gemm_nhwc", args)


def test_conv1d_causal_depthwise_silu():
    x, w, bias = randn((2, 50, 32), "float16", 66), randn((4, 32), "float32", 67), randn((32,), "float32", 68)
    args = run("conv1d_causal_depthwise_silu", {0: x, 1: w, 2: bias})
    ref = torch.nn.functional.conv1d(torch.nn.functional.pad(x.double().transpose(1, 2), (3, 0)),
                                     w.double().T[:, None, :], bias.double(), groups=32).transpose(1, 2)
    close(args[3], _silu(ref), atol=3e-3, rtol=3e-3)
    _check_path("conv1d_causal_depthwise_silu", args)


# ----------------------------------------------------------------------------------------------- memory shapes


def test_embedding_scaled_positional():
    ids = _ints(0, 100, (2, 48), 69)
    e, p = randn((100, 64), "bfloat16", 70), randn((48, 64), "float32", 71)
    args = run("embedding_scaled_positional", {0: ids, 1: e, 2: p})
    close(args[3], e.double()[ids.long()] * 8.0 + p.double()[None], atol=5e-2, rtol=8e-3)
    _check_path("embedding_scaled_positional", args)


def test_embedding_bwd_scatter_add():
    g = randn((50, 32), "float32", 72)
    ids = _ints(0, 20, (50,), 73)
    ids[:5] = 3
    de = _zeros((20, 32))
    args = run("embedding_bwd_scatter_add", {0: g, 1: ids, 2: de})
    ref = torch.zeros((20, 32), device="cuda", dtype=torch.float64).index_add_(0, ids.long(), g.double())
    close(de, ref, atol=1e-5, rtol=1e-5)
    _check_path("embedding_bwd_scatter_add", args)


def test_kv_cache_append():
    new, cache = randn((2, 3, 4, 64), "float16", 74), randn((2, 3, 32, 64), "float16", 75)
    lens = torch.tensor([5, 30], device="cuda", dtype=torch.int32)
    ref = cache.clone()
    ref[0, :, 5:9] = new[0]
    ref[1, :, 30:32] = new[1, :, :2]
    args = run("kv_cache_append", {0: new, 1: cache, 2: lens})
    assert torch.equal(cache, ref)
    _check_path("kv_cache_append", args)


def test_transpose_cast_1d_grid():
    x = randn((200, 136), "float32", 76)
    args = run("transpose_cast_1d_grid", {0: x})
    assert torch.equal(args[1], x.T.to(torch.bfloat16))
    _check_path("transpose_cast_1d_grid", args)


def test_transpose_batched_3d_cast():
    x = randn((3, 96, 64), "float16", 77)
    args = run("transpose_batched_3d_cast", {0: x})
    assert torch.equal(args[1], x.transpose(1, 2).float())
    _check_path("transpose_batched_3d_cast", args)


def test_histogram_private_onehot():
    x = randn((1000,), "float32", 78, 1.5)
    hist = _zeros((16,), torch.int32)
    args = run("histogram_private_onehot", {0: x, 1: hist})
    b = torch.clamp(torch.floor((x + 2.0) / 0.25), 0, 15).long()
    assert torch.equal(hist, torch.bincount(b, minlength=16).int())
    _check_path("histogram_private_onehot", args)


def test_two_program_prefix_sum():
    x = _ints(-50, 50, (1000,), 79)
    out = run("scan_block_local", {0: x})
    _check_path("scan_block_local", out)
    y = run("scan_add_block_offsets", {0: out[1], 1: out[2]})
    assert torch.equal(y[0], torch.cumsum(x, 0).int())
    _check_path("scan_add_block_offsets", y)


def test_fft_stockham_radix2():
    xr, xi = randn((4, 64), "float32", 80), randn((4, 64), "float32", 81)
    args = run("fft_stockham_radix2", {0: xr, 1: xi})
    ref = torch.fft.fft(torch.complex(xr.double(), xi.double()), dim=1)
    close(args[2], ref.real, atol=1e-4, rtol=1e-4)
    close(args[3], ref.imag, atol=1e-4, rtol=1e-4)
    _check_path("fft_stockham_radix2", args)


def test_fft_factored_dft_matmul():
    """The f32 ``ct.matmul`` dots run as tf32 (tileorch's choice, see the entry's notes): tf32's
    tolerance."""
    x = randn((4, 64, 2), "float32", 82)
    args = run("fft_factored_dft_matmul", {0: x})
    ref = torch.view_as_real(torch.fft.fft(torch.view_as_complex(x.double().contiguous()), dim=1))
    close(args[1], ref, atol=2e-2, rtol=1e-2)
    _check_path("fft_factored_dft_matmul", args)


def test_qk_rmsnorm_heads_3d():
    x, w = randn((20, 4, 64), "bfloat16", 83), randn((64,), "float32", 84)
    args = run("qk_rmsnorm_heads_3d", {0: x, 1: w})
    close(args[2], _rms(x, w), **BF16)
    _check_path("qk_rmsnorm_heads_3d", args)


def test_logit_softcap_temperature():
    x = randn((10, 300), "bfloat16", 85, 40.0)
    args = run("logit_softcap_temperature", {0: x})
    close(args[1], 30.0 * torch.tanh(x.double() / 30.0) / 0.7, atol=0.1, rtol=8e-3)
    _check_path("logit_softcap_temperature", args)


# ----------------------------------------------------------------------------------------------- attention


def _attn(s, v):
    return torch.softmax(s, -1) @ v.double()


def test_attn_f32_inputs_tf32():
    q, k, v = randn((2, 128, 64), "float32", 86), randn((2, 256, 64), "float32", 87), randn((2, 256, 64), "float32", 88)
    args = run("attn_f32_inputs_tf32", {0: q, 1: k, 2: v})
    close(args[3], _attn(q.double() @ k.double().transpose(1, 2) * 0.125, v), atol=5e-3, rtol=1e-2)
    _check_path("attn_f32_inputs_tf32", args)


def test_attn_mla_split_rope():
    qn, qr = randn((2, 128, 128), "float16", 89), randn((2, 128, 64), "float16", 90)
    kn, kr = randn((2, 256, 128), "float16", 91), randn((2, 256, 64), "float16", 92)
    v = randn((2, 256, 128), "float16", 93)
    args = run("attn_mla_split_rope", {0: qn, 1: qr, 2: kn, 3: kr, 4: v})
    s = (qn.double() @ kn.double().transpose(1, 2) + qr.double() @ kr.double().transpose(1, 2)) / math.sqrt(192)
    close(args[5], _attn(s, v), **F16)
    _check_path("attn_mla_split_rope", args)


# ----------------------------------------------------------------------------------------------- more model blocks


def test_ssm_scan_sequential():
    x, dt = randn((2, 20, 32), "float16", 94), randn((2, 20, 32), "float32", 95, 0.2).abs()
    a = -randn((1, 32), "float32", 96).abs()
    args = run("ssm_scan_sequential", {0: x, 1: dt, 2: a})
    h = torch.zeros((2, 32), device="cuda", dtype=torch.float64)
    ys = []
    for t in range(20):
        h = torch.exp(dt[:, t].double() * a.double()) * h + dt[:, t].double() * x[:, t].double()
        ys.append(h)
    close(args[3], torch.stack(ys, 1), atol=1e-5, rtol=1e-5)
    close(args[4], h, atol=1e-5, rtol=1e-5)
    _check_path("ssm_scan_sequential", args)


def test_ssm_scan_parallel_tuple():
    a = torch.rand((2, 64, 64), device="cuda", generator=sweep._gen(97)) * 0.5 + 0.5
    b = randn((2, 64, 64), "float32", 98)
    args = run("ssm_scan_parallel_tuple", {0: a, 1: b})
    acc = torch.zeros((2, 64), device="cuda", dtype=torch.float64)
    ref = []
    for t in range(64):
        acc = a[:, t].double() * acc + b[:, t].double()
        ref.append(acc)
    close(args[2], torch.stack(ref, 1), atol=1e-4, rtol=1e-4)
    _check_path("ssm_scan_parallel_tuple", args)


def test_paged_kv_gather():
    cache = randn((10, 16, 64), "bfloat16", 99)
    table = torch.tensor([[3, 0, 9, 5], [1, 1, 7, 2]], device="cuda", dtype=torch.int32)
    args = run("paged_kv_gather", {0: cache, 1: table})
    assert torch.equal(args[2], cache[table.long()].reshape(2, 64, 64))
    _check_path("paged_kv_gather", args)


def test_mm_w4a16_groupwise():
    x = randn((128, 256), "float16", 100)
    q = _ints(0, 16, (256, 128), 101)
    packed = torch.zeros((32, 128), device="cuda", dtype=torch.int64)
    for i in range(8):
        packed |= q[i::8].long() << (4 * i)
    packed = torch.where(packed >= 2 ** 31, packed - 2 ** 32, packed).int()  # the int32 bit pattern
    sc = (torch.rand((2, 128), device="cuda", generator=sweep._gen(102)) * 0.05).half()
    args = run("mm_w4a16_groupwise", {0: x, 1: packed, 2: sc})
    w = ((q.double() - 8) * sc.double().repeat_interleave(128, 0)).half().double()
    close(args[3], x.double() @ w, atol=1e-2, rtol=5e-3)
    _check_path("mm_w4a16_groupwise", args)


def test_mm_lm_head_partial_lse():
    h, w = randn((128, 128), "float16", 103, 0.25), randn((128, 512), "float16", 104, 0.25)
    args = run("mm_lm_head_partial_lse", {0: h, 1: w})
    z = h.double() @ w.double()
    close(args[2], z, atol=3e-2, rtol=8e-3)
    zt = z.view(128, 4, 128)
    mx = zt.amax(2)
    close(args[3], mx, atol=1e-4, rtol=1e-5)
    close(args[4], torch.exp(zt - mx[..., None]).sum(2), atol=1e-4, rtol=1e-5)
    _check_path("mm_lm_head_partial_lse", args)


def test_moe_router_top2():
    x, wr = randn((100, 128), "float16", 105, 0.5), randn((128, 16), "float16", 106, 0.5)
    args = run("moe_router_top2", {0: x, 1: wr})
    p = torch.softmax(x.double() @ wr.double(), 1)
    pw, top = torch.topk(p, 2, dim=1)
    assert torch.equal(args[2].long(), top)
    close(args[3], pw / pw.sum(1, keepdim=True), atol=1e-5, rtol=1e-5)
    _check_path("moe_router_top2", args)


def test_rmsnorm_fp8_dynamic_quant():
    x, w = randn((10, 128), "bfloat16", 107), randn((128,), "float32", 108)
    args = run("rmsnorm_fp8_dynamic_quant", {0: x, 1: w})
    y = _rms(x, w)
    s = y.abs().amax(1, keepdim=True).clamp_min(1e-12) / 448.0
    close(args[3], s[:, 0], atol=1e-6, rtol=1e-5)
    close(args[2].view(torch.float8_e4m3fn).double(), y / s, atol=2.0 ** -9, rtol=0.07)
    _check_path("rmsnorm_fp8_dynamic_quant", args)


# ----------------------------------------------------------------------------------------------- API corners


def test_embedding_int64_ids():
    ids = _ints(0, 1000, (50,), 109, torch.int64)
    e = randn((1000, 64), "float16", 110)
    args = run("embedding_int64_ids", {0: ids, 1: e})
    assert torch.equal(args[2], e[ids])
    _check_path("embedding_int64_ids", args)


def test_decay_cumprod_both_ways():
    g = torch.rand((2, 32, 16), device="cuda", generator=sweep._gen(111)) * 0.2 + 0.8
    args = run("decay_cumprod_both_ways", {0: g})
    close(args[1], torch.cumprod(g.double(), 1), atol=1e-6, rtol=1e-5)
    close(args[2], torch.cumprod(g.double().flip(1), 1).flip(1), atol=1e-6, rtol=1e-5)
    _check_path("decay_cumprod_both_ways", args)


def test_spectrum_magnitude_phase():
    x = randn((4, 64, 2), "float32", 112)
    x[0, :4] = torch.tensor([[1, 0], [-1, 0], [0, 1], [0, -1]], device="cuda", dtype=torch.float32)
    args = run("spectrum_magnitude_phase", {0: x})
    close(args[1], torch.hypot(x[..., 0].double(), x[..., 1].double()), atol=1e-6, rtol=1e-6)
    close(args[2], torch.atan2(x[..., 1].double(), x[..., 0].double()), atol=2e-6, rtol=1e-6)
    _check_path("spectrum_magnitude_phase", args)


def test_nan_safe_row_mean():
    x = randn((4, 100), "float32", 113)
    x[0, ::3] = float("nan")
    x[2] = float("nan")
    args = run("nan_safe_row_mean", {0: x})
    ref = torch.nanmean(x.double(), 1).nan_to_num(0.0)
    close(args[1], ref, atol=1e-6, rtol=1e-6)
    assert torch.equal(args[2], (~x.isnan()).sum(1).int())
    _check_path("nan_safe_row_mean", args)


def test_pack_halves_by_insert():
    a, b = randn((8, 32), "float16", 114), randn((8, 32), "float16", 115)
    args = run("pack_halves_by_insert", {0: a, 1: b})
    ref = torch.cat([a, b], 1)
    ref[0:2, :32] = 0
    ref[4:6, :32] = 0
    assert torch.equal(args[2], ref)
    _check_path("pack_halves_by_insert", args)


def test_softmax_static_eval_block():
    x = randn((3, 300), "float16", 116, 3.0)
    args = run("softmax_static_eval_block", {0: x})
    close(args[1], torch.softmax(x.double(), 1), atol=1e-3, rtol=5e-3)
    _check_path("softmax_static_eval_block", args)


def test_gather_int64_scalar_offset():
    flat = randn((300,), "float32", 117)
    args = run("gather_int64_scalar_offset", {0: flat})
    assert torch.equal(args[1], flat[100:228])
    _check_path("gather_int64_scalar_offset", args)


def _e8m0():
    if not hasattr(torch, "float8_e8m0fnu"):
        pytest.skip("this torch has no float8_e8m0fnu")
    return torch.float8_e8m0fnu


def test_mm_block_scaled_mxfp8_is_a_located_error():
    """``ct.mma_scaled`` (a Blackwell instruction) stops the launch with the located error naming the
    op at the user's line; nothing runs."""
    p = PROGRAMS["mm_block_scaled_mxfp8"]
    dt = {**sweep.DT, "float8_e8m0fnu": _e8m0()}
    args = [torch.zeros(s[0], device="cuda", dtype=torch.uint8).view(dt[s[1]]) if s[1].startswith("float8")
            else torch.zeros(s[0], device="cuda", dtype=dt[s[1]]) for s in p.spec[:5]]
    with pytest.raises(Exception) as info:
        tileorch.cutile.launch(torch.cuda.current_stream(), p.grid, p.kernel, (*args, *p.spec[5:]))
    assert "user_programs7.py:" in str(info.value) and p.error in str(info.value), str(info.value)


def test_mx_scales_to_f32_is_a_located_error():
    """A torch ``float8_e8m0fnu`` array is taken by the launcher; the compile stops at the load with
    the located "not supported yet" (never a traceback)."""
    s = torch.zeros((4, 32), device="cuda", dtype=torch.uint8).view(_e8m0())
    y = torch.full((4, 32), float("nan"), device="cuda")
    with pytest.raises(Exception) as info:
        tileorch.cutile.launch(torch.cuda.current_stream(), (4,), PROGRAMS["mx_scales_to_f32"].kernel, (s, y, 32))
    assert "user_programs7.py:" in str(info.value), str(info.value)
    assert PROGRAMS["mx_scales_to_f32"].error in str(info.value), str(info.value)


def test_every_program_has_a_gpu_test():
    text = open(__file__).read()
    tested = {n for n in PROGRAMS if f'"{n}"' in text}
    assert tested == set(PROGRAMS), set(PROGRAMS) - tested
