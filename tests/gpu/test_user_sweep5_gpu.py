"""The fifth user sweep on the GPU: every program of ``tileorch.testing.user_programs5`` runs through
``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start NaN / a sentinel inside a larger
buffer whose tail must stay unwritten) against an independent torch reference in fp32 / fp64, and
the path each took (tier, chained, SIMT) is the one the CPU tests expect.  Skipped without a GPU;
needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_user_sweep5_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402

import tileorch.cutile  # noqa: E402
from test_user_sweep_gpu import _gemm_rel, check_path, close, randn, run  # noqa: E402

from tileorch.testing.user_programs5 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there
sweep.DT.update({"float8_e5m2": torch.float8_e5m2})

LOG2E = 1.4426950408889634
S = 0.125 * LOG2E


_check_path = check_path  # test_user_sweep_gpu's: ran on its table entry's path


def _attention(q, k, v, scale, keep=None, bias=None, weight=None):
    s = (q.double() @ k.double().transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias.double()
    if keep is not None:
        s = s.masked_fill(~keep, float("-inf"))
    p = torch.softmax(s, -1)
    if weight is not None:
        p = p * weight
    return p @ v.double()


def _qkv(shape_q, shape_k, dt, seed):
    return randn(shape_q, dt, seed), randn(shape_k, dt, seed + 1), randn(shape_k, dt, seed + 2)


def _ints(shape, lo, hi, seed, dtype=torch.int8):
    return torch.randint(lo, hi, shape, device="cuda", generator=sweep._gen(seed), dtype=dtype)


# ----------------------------------------------------------------------------------------------- GEMM


def test_mm_4d_heads():
    a, b = randn((2, 2, 128, 128), "float16", 1), randn((2, 2, 128, 256), "float16", 2)
    args = run("mm_4d_heads", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_4d_heads", args)


def test_mm_4d_heads_three_batches_five_heads():
    """The flattened batch index ``b * H + h`` over B = 3, H = 5 (15 matrices; program ids past the
    batch count would read other matrices): the tensor-core kernel since session 15."""
    a, b = randn((3, 5, 128, 128), "float16", 61), randn((3, 5, 128, 256), "float16", 62)
    c = torch.full((3, 5, 128, 256), float("nan"), device="cuda", dtype=torch.float16)
    tileorch.cutile.launch(torch.cuda.current_stream(), (1, 2, 15), PROGRAMS["mm_4d_heads"].kernel,
                           (a, b, c, 5, 128, 128, 64))
    torch.cuda.synchronize()
    _gemm_rel(c, a.double() @ b.double())


def test_mm_4d_heads_on_head_strided_storage():
    """A and C as ``[B, S, H, D]`` storage viewed ``[B, H, S, D]``: batch dimensions that do not flatten
    into one (the launcher sends the program to the SIMT path, with a warning); still correct."""
    a_st = randn((2, 128, 2, 128), "float16", 63)
    a, b = a_st.transpose(1, 2), randn((2, 2, 128, 256), "float16", 64)
    args = run("mm_4d_heads", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())


def test_mm_fp8_tensor_scales():
    a = (randn((128, 256), "float32", 3) * 4).to(torch.float8_e4m3fn)
    b = (randn((256, 256), "float32", 4) * 4).to(torch.float8_e4m3fn)
    sa = torch.tensor([0.5], device="cuda")
    sb = torch.tensor([0.03125], device="cuda")
    args = run("mm_fp8_tensor_scales", {0: a, 1: b, 2: sa, 3: sb})
    _gemm_rel(args[4], (a.double() @ b.double()) * (0.5 * 0.03125))
    _check_path("mm_fp8_tensor_scales", args)


def test_mm_e5m2_scalar_scales():
    a = (randn((128, 128), "float32", 5) * 4).to(torch.float8_e5m2)
    b = (randn((128, 256), "float32", 6) * 4).to(torch.float8_e5m2)
    args = run("mm_e5m2_scalar_scales", {0: a, 1: b})
    _gemm_rel(args[2], (a.double() @ b.double()) * 0.125)
    _check_path("mm_e5m2_scalar_scales", args)


def test_mm_int8_bias_i32():
    a, b = _ints((128, 256), -128, 128, 7), _ints((256, 128), -128, 128, 8)
    bias = _ints((128,), -100000, 100000, 9, torch.int32)
    args = run("mm_int8_bias_i32", {0: a, 1: b, 2: bias})
    assert torch.equal(args[3], ((a.double() @ b.double()) + bias.double()).to(torch.int32))
    _check_path("mm_int8_bias_i32", args)


def test_mm_weight_only_int8():
    a, w = randn((128, 128), "float16", 10), _ints((128, 128), -127, 128, 11)
    s = randn((128,), "float32", 12).abs() * 0.01
    args = run("mm_weight_only_int8", {0: a, 1: w, 2: s})
    _gemm_rel(args[3], (a.double() @ w.double()) * s.double())
    _check_path("mm_weight_only_int8", args)


def test_mm_k_tiles_scalar():
    a, b = randn((128, 256), "float16", 13), randn((256, 128), "float16", 14)
    args = run("mm_k_tiles_scalar", {0: a, 1: b})
    close(args[2], a[:, :192].double() @ b[:192].double(), atol=1e-3, rtol=1e-5)
    _check_path("mm_k_tiles_scalar", args)


def test_mm_f16_epilogue_chain():
    a, b = randn((128, 128), "float16", 15), randn((128, 256), "float16", 16, 0.25)
    bias, r = randn((256,), "float16", 17), randn((128, 256), "float16", 18)
    args = run("mm_f16_epilogue_chain", {0: a, 1: b, 2: bias, 3: r})
    y = (a.double() @ b.double()).half().double() + bias.double()
    y = y.half().double() + r.double()
    close(args[4], y.clamp_min(0), atol=2e-2, rtol=5e-3)
    _check_path("mm_f16_epilogue_chain", args)


def test_mm_persistent_grouped():
    a, b = randn((384, 128), "float16", 19), randn((128, 256), "float16", 20)
    args = run("mm_persistent_grouped", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_persistent_grouped", args)


def test_mm_splitk_workspace_then_reduce():
    a, b = randn((128, 512), "float16", 21), randn((512, 128), "float16", 22)
    args = run("mm_splitk_workspace", {0: a, 1: b})
    for z in range(3):
        ks = torch.cat([torch.arange(k * 64, k * 64 + 64, device="cuda") for k in range(z, 8, 3)])
        close(args[2][z], a[:, ks].double() @ b[ks].double(), atol=1e-3, rtol=1e-4)
    _check_path("mm_splitk_workspace", args)


def test_splitk_reduce():
    w = randn((3, 96, 80), "float32", 23)
    args = run("splitk_reduce", {0: w})
    close(args[1], w.double().sum(0), atol=2e-2, rtol=2e-3)
    _check_path("splitk_reduce", args)


def test_mm_grouped_tile_table():
    a, b = randn((3, 128, 128), "float16", 24), randn((3, 128, 128), "float16", 25)
    table = torch.tensor([[0, 0, 0], [0, 1, 0], [1, 0, 0], [2, 1, 0], [2, 0, 0]], device="cuda", dtype=torch.int32)
    args = run("mm_grouped_tile_table", {0: a, 1: b, 3: table})
    ref = a.double() @ b.double()
    for g, i, _ in table.tolist():
        close(args[2][g, i * 64:(i + 1) * 64], ref[g, i * 64:(i + 1) * 64], atol=1e-3, rtol=1e-4)
    assert torch.isnan(args[2][1, 64:]).all()
    _check_path("mm_grouped_tile_table", args)


def test_mm_rowsum_epilogue():
    a, b = randn((128, 128), "float16", 26), randn((128, 256), "float16", 27)
    args = run("mm_rowsum_epilogue", {0: a, 1: b})
    ref = a.double() @ b.double()
    close(args[2], ref, atol=1e-3, rtol=1e-5)
    close(args[3], ref.view(128, 2, 128).sum(-1), atol=2e-2, rtol=1e-5)
    _check_path("mm_rowsum_epilogue", args)


# ----------------------------------------------------------------------------------------------- attention


def test_attn_head32():
    q, k, v = _qkv((2, 256, 32), (2, 256, 32), "float16", 30)
    args = run("attn_head32", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 1 / math.sqrt(32)), atol=3e-3, rtol=1e-2)
    _check_path("attn_head32", args)


def test_attn_gqa_mul_form():
    q, k, v = _qkv((2, 4, 256, 64), (2, 2, 256, 64), "float16", 33)
    args = run("attn_gqa_mul_form", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_gqa_mul_form", args)


def test_attn_window_scalar():
    q, k, v = _qkv((2, 384, 64), (2, 384, 64), "float16", 36)
    args = run("attn_window_scalar", {0: q, 1: k, 2: v})
    pos = torch.arange(384, device="cuda")
    keep = (pos[None, :] <= pos[:, None]) & (pos[None, :] > pos[:, None] - 100)
    close(args[3], _attention(q, k, v, 0.125, keep), atol=3e-3, rtol=1e-2)
    _check_path("attn_window_scalar", args)


def test_attn_alibi_slopes_causal():
    q, k, v = _qkv((4, 256, 64), (4, 256, 64), "float16", 39)
    slopes = torch.tensor([0.25, 0.0625], device="cuda")
    args = run("attn_alibi_slopes_causal", {0: q, 1: k, 2: v, 3: slopes})
    pos = torch.arange(256, device="cuda")
    dist = (pos[None, :] - pos[:, None]).double()
    bias = (slopes.double()[[0, 1, 0, 1]][:, None, None] / LOG2E) * dist
    close(args[4], _attention(q, k, v, 0.125, dist <= 0, bias=bias), atol=3e-3, rtol=1e-2)
    _check_path("attn_alibi_slopes_causal", args)


def test_attn_varlen_table():
    q, k, v = _qkv((4, 128, 64), (4, 256, 64), "float16", 42)
    k[:, 200:] = 100.0
    lens = torch.tensor([200, 64], device="cuda", dtype=torch.int32)
    args = run("attn_varlen_table", {0: q, 1: k, 2: v, 3: lens})
    keep = torch.arange(256, device="cuda")[None, None, :] < lens.repeat_interleave(2)[:, None, None]
    close(args[4], _attention(q, k, v, 0.125, keep), atol=3e-3, rtol=1e-2)
    _check_path("attn_varlen_table", args)


def test_attn_bias_shared_batches():
    q, k, v = _qkv((4, 256, 64), (4, 256, 64), "float16", 45)
    bias = randn((2, 256, 256), "float32", 48, 2.0)
    args = run("attn_bias_shared_batches", {0: q, 1: k, 2: v, 3: bias})
    close(args[4], _attention(q, k, v, 0.125, bias=bias[[0, 1, 0, 1]]), atol=3e-3, rtol=1e-2)
    _check_path("attn_bias_shared_batches", args)


def test_attn_short_kv():
    q, k, v = _qkv((2, 256, 64), (2, 40, 64), "float16", 49)
    args = run("attn_short_kv", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_short_kv", args)


def test_attn_softcap():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 52)
    q, k = q * 2, k * 2
    args = run("attn_softcap", {0: q, 1: k, 2: v})
    s = 5.0 * torch.tanh((q.double() @ k.double().transpose(-1, -2)) * 0.125 / 5.0)
    close(args[3], torch.softmax(s, -1) @ v.double(), atol=3e-3, rtol=1e-2)
    _check_path("attn_softcap", args)


def test_attn_causal_bool_mul():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 55)
    args = run("attn_causal_bool_mul", {0: q, 1: k, 2: v})
    pos = torch.arange(256, device="cuda")
    close(args[3], _attention(q, k, v, 0.125, pos[None, :] <= pos[:, None]), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_bool_mul", args)


def _dropout_keep(bh, sq, sk, seed):
    qi = torch.arange(sq, device="cuda", dtype=torch.int64)[:, None]
    ki = torch.arange(sk, device="cuda", dtype=torch.int64)[None, :]
    m = 0xFFFFFFFF
    x = (((bh * sq + qi) * sk + ki) & m) ^ seed
    x = (x * 0x9E3779B1) & m
    x = x ^ (x >> 15)
    x = (x * 0x85EBCA77) & m
    x = x ^ (x >> 13)
    return (x & 3) != 0


def test_attn_hash_dropout():
    q, k, v = _qkv((2, 128, 64), (2, 256, 64), "float16", 58)
    args = run("attn_hash_dropout", {0: q, 1: k, 2: v})
    w = torch.stack([_dropout_keep(bh, 128, 256, 1234) for bh in range(2)]).double() / 0.75
    close(args[3], _attention(q, k, v, 0.125, weight=w), atol=3e-3, rtol=1e-2)
    _check_path("attn_hash_dropout", args)


def _bwd_inputs(seed):
    q, k, v = _qkv((2, 128, 64), (2, 128, 64), "float16", seed)
    do = randn((2, 128, 64), "float16", seed + 3)
    s = (q.double() @ k.double().transpose(-1, -2)) * 0.125
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse[..., None])
    delta = ((p @ v.double()) * do.double()).sum(-1)
    ds = p * (do.double() @ v.double().transpose(-1, -2) - delta[..., None])
    inputs = {0: q, 1: k, 2: v, 3: do, 4: (lse * LOG2E).float(), 5: delta.float()}
    return q, k, do, p, ds, inputs


def test_attn_bwd_dq():
    q, k, do, p, ds, inputs = _bwd_inputs(61)
    args = run("attn_bwd_dq", inputs)
    close(args[6], ds @ k.double() * 0.125, atol=2e-2, rtol=2e-2)
    _check_path("attn_bwd_dq", args)


def test_attn_bwd_dkdv():
    q, k, do, p, ds, inputs = _bwd_inputs(65)
    args = run("attn_bwd_dkdv", inputs)
    close(args[7], p.transpose(-1, -2) @ do.double(), atol=2e-2, rtol=2e-2)
    close(args[6], ds.transpose(-1, -2) @ q.double() * 0.125, atol=2e-2, rtol=2e-2)
    _check_path("attn_bwd_dkdv", args)


# ----------------------------------------------------------------------------------------------- memory-bound


def test_softmax_bwd_rows():
    y, g = randn((10, 300), "float16", 70), randn((10, 300), "float16", 71)
    args = run("softmax_bwd_rows", {0: y, 1: g})
    yd, gd = y.double(), g.double()
    close(args[2], yd * (gd - (yd * gd).sum(1, keepdim=True)), atol=2e-2, rtol=5e-3)
    _check_path("softmax_bwd_rows", args)


def test_layernorm_bwd_dwdb():
    x, g, mu = randn((10, 96), "float32", 72), randn((10, 96), "float32", 73), randn((10,), "float32", 74)
    rs = randn((10,), "float32", 75).abs() + 0.5
    args = run("layernorm_bwd_dwdb", {0: x, 1: g, 2: mu, 3: rs})
    xhat = (x.double() - mu.double()[:, None]) * rs.double()[:, None]
    for p, (lo, hi) in enumerate([(0, 4), (4, 8), (8, 10)]):
        close(args[4][p], (g.double() * xhat)[lo:hi].sum(0), atol=1e-5, rtol=1e-5)
        close(args[5][p], g.double()[lo:hi].sum(0), atol=1e-5, rtol=1e-5)
    _check_path("layernorm_bwd_dwdb", args)


def test_cross_entropy_chunked_ignore():
    x = randn((5, 300), "bfloat16", 76, 3.0)
    labels = torch.tensor([0, 299, -100, 128, 77], device="cuda", dtype=torch.int32)
    args = run("cross_entropy_chunked_ignore", {0: x, 1: labels})
    ref = torch.nn.functional.cross_entropy(x.double(), labels.long(), ignore_index=-100, reduction="none")
    close(args[2], ref, atol=1e-4, rtol=1e-5)
    _check_path("cross_entropy_chunked_ignore", args)


def test_argmax_online_chunks():
    x = randn((4, 200), "float32", 77)
    x[1, [30, 150]] = 9.0
    x[2, [70, 71]] = 9.0
    args = run("argmax_online_chunks", {0: x})
    assert torch.equal(args[2], x.argmax(1).int())
    assert torch.equal(args[1], x.amax(1))
    _check_path("argmax_online_chunks", args)


def test_cumsum_cols_carry():
    x = randn((50, 20), "float32", 78)
    args = run("cumsum_cols_carry", {0: x})
    inc = x.double().cumsum(0)
    close(args[1], inc, atol=1e-5, rtol=1e-6)
    close(args[2], inc - x.double(), atol=1e-5, rtol=1e-6)
    _check_path("cumsum_cols_carry", args)


def test_rope_bshd_cat():
    x = randn((2, 8, 2, 32), "float16", 79)
    inv = 10000.0 ** (-torch.arange(16, device="cuda", dtype=torch.float64) / 16)
    ang = torch.arange(8, device="cuda", dtype=torch.float64)[:, None] * inv[None, :]
    cos, sin = ang.cos().float(), ang.sin().float()
    args = run("rope_bshd_cat", {0: x, 1: cos, 2: sin})
    x1, x2 = x.double()[..., :16], x.double()[..., 16:]
    c, s = cos.double()[None, :, None, :], sin.double()[None, :, None, :]
    close(args[3], torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1), atol=4e-3, rtol=2e-3)
    _check_path("rope_bshd_cat", args)


def test_permute_bshd_bhsd():
    x = randn((2, 10, 2, 8), "float32", 80)
    args = run("permute_bshd_bhsd", {0: x})
    assert torch.equal(args[1], x.permute(0, 2, 1, 3))
    _check_path("permute_bshd_bhsd", args)


def test_cat_rank3():
    a, b = randn((4, 8, 8), "float32", 81), randn((4, 8, 8), "float32", 82)
    args = run("cat_rank3", {0: a, 1: b})
    assert torch.equal(args[2], torch.cat([a, b], 1))
    assert torch.equal(args[3], torch.cat([b * 2, a], 2))
    _check_path("cat_rank3", args)


def test_reshape_rank4():
    x = randn((4, 64), "float32", 83)
    args = run("reshape_rank4", {0: x})
    u = x.view(2, 2, 8, 8)
    close(args[1], u.double().sum(3).sum(1).reshape(16), atol=1e-5, rtol=1e-6)
    assert torch.equal(args[2], u.permute(3, 2, 1, 0).reshape(256))
    _check_path("reshape_rank4", args)


def test_int4_unpack_dequant():
    p = _ints((96,), 0, 256, 84, torch.int32).to(torch.uint8)
    s = torch.tensor([0.5, 1.0, 0.125], device="cuda")
    args = run("int4_unpack_dequant", {0: p, 1: s})
    lo, hi = (p & 15).long(), (p >> 4).long()
    lo, hi = torch.where(lo >= 8, lo - 16, lo), torch.where(hi >= 8, hi - 16, hi)
    ref = torch.stack([lo, hi], 1).reshape(-1).double() * s.double().repeat_interleave(64)
    assert torch.equal(args[2].double(), ref)
    _check_path("int4_unpack_dequant", args)


def test_hash_dropout():
    x = randn((300,), "float32", 85)
    args = run("hash_dropout", {0: x})
    idx = torch.arange(300, device="cuda", dtype=torch.int64)
    m = 0xFFFFFFFF
    h = (idx * 0x9E3779B1 + 7) & m
    h = h ^ (h >> 16)
    h = (h * 0x7FEB352D) & m
    h = h ^ (h >> 15)
    assert torch.equal(args[1], torch.where((h & 1) == 1, x * 2, torch.zeros_like(x)))
    _check_path("hash_dropout", args)


def test_bool_rows_any_all():
    b = torch.rand((4, 16), device="cuda", generator=sweep._gen(86)) < 0.4
    b[0], b[1] = False, True
    args = run("bool_rows_any_all", {0: b})
    assert torch.equal(args[1], b.any(1)) and torch.equal(args[2], b.all(1))
    assert torch.equal(args[3], b.sum(1).int()) and torch.equal(args[4], b)
    _check_path("bool_rows_any_all", args)


def test_int_where_chain():
    a, b = _ints((300,), -20, 20, 87, torch.int32), _ints((300,), -50, 50, 88, torch.int32)
    args = run("int_where_chain", {0: a, 1: b})
    c = a.clamp(-5, 7)
    c = torch.where(a % 2 == 0, b, c)  # torch's % on ints is floor-mod, like cuTile's
    c = torch.where((a % 3 == 0) & (a % 2 != 0), -c, c)
    assert torch.equal(args[2], c + torch.minimum(a, b) - torch.maximum(a, b))
    _check_path("int_where_chain", args)


def test_groupnorm_3d():
    x = randn((2, 8, 32), "float16", 89, 2.0)
    w, bb = randn((8,), "float32", 90), randn((8,), "float32", 91)
    args = run("groupnorm_3d", {0: x, 1: w, 2: bb})
    ref = torch.nn.functional.group_norm(x.double(), 4, w.double(), bb.double(), eps=1e-5)
    close(args[3], ref, atol=1e-2, rtol=5e-3)
    _check_path("groupnorm_3d", args)


def test_pairwise_sqdist():
    x, z = randn((20, 8), "float32", 92), randn((12, 8), "float32", 93)
    args = run("pairwise_sqdist", {0: x, 1: z})
    close(args[2], torch.cdist(x.double(), z.double()) ** 2, atol=1e-4, rtol=1e-5)
    _check_path("pairwise_sqdist", args)


def test_scalar_loop_bounds():
    x = randn((10, 32), "float32", 94)
    args = run("scalar_loop_bounds", {0: x})
    close(args[1], x.double()[1:9:3].mean(0, keepdim=True), atol=1e-6, rtol=1e-6)
    _check_path("scalar_loop_bounds", args)


def test_welford_chunks():
    x = randn((3, 150), "float32", 95, 2.0) + 5
    args = run("welford_chunks", {0: x})
    close(args[1], x.double().mean(1), atol=1e-5, rtol=1e-6)
    close(args[2], x.double().var(1, unbiased=False), atol=1e-4, rtol=1e-5)
    _check_path("welford_chunks", args)


def test_embedding_bag_lengths():
    ids = _ints((3, 8), 0, 20, 96, torch.int32)
    ids[0, 5:] = 1000
    lens = torch.tensor([5, 8, 0], device="cuda", dtype=torch.int32)
    e = randn((20, 16), "float32", 97)
    args = run("embedding_bag_lengths", {0: ids, 1: lens, 2: e})
    ref = torch.stack([e.double()[ids[b, :n].long()].sum(0) / max(n, 1) for b, n in enumerate(lens.tolist())])
    close(args[3], ref, atol=1e-5, rtol=1e-6)
    _check_path("embedding_bag_lengths", args)


def test_quant_int8_rows():
    x = randn((4, 100), "float16", 98, 3.0)
    x[2] = 0
    args = run("quant_int8_rows", {0: x})
    xd = x.double()
    amax = xd.abs().amax(1, keepdim=True)
    s = torch.where(amax > 0, amax / 127, torch.ones_like(amax)).float().double()
    q = torch.sign(xd) * torch.minimum(torch.floor(xd.abs() / s + 0.5), torch.full_like(xd, 127))
    close(args[2], s[:, 0], atol=1e-7, rtol=1e-6)
    diff = (args[1].long() - q.long()).abs()
    assert diff.max() <= 1 and (diff == 0).double().mean() > 0.98
    _check_path("quant_int8_rows", args)


def test_compact_positive():
    x = randn((100,), "float32", 99)
    args = run("compact_positive", {0: x})
    kept = x[x > 0]
    assert int(args[2][0]) == kept.numel()
    assert torch.equal(args[1][:kept.numel()], kept)
    assert torch.isnan(args[1][kept.numel():]).all()
    _check_path("compact_positive", args)


def test_gemv_rows():
    a, x = randn((50, 70), "float16", 100), randn((70,), "float16", 101)
    args = run("gemv_rows", {0: a, 1: x})
    close(args[2], a.double() @ x.double(), atol=1e-3, rtol=1e-4)
    _check_path("gemv_rows", args)


def test_every_program_has_a_gpu_test():
    tested = {n[5:] for n in globals() if n.startswith("test_")} | {"mm_splitk_workspace"}  # (..._then_reduce)
    assert not set(PROGRAMS) - tested, sorted(set(PROGRAMS) - tested)


# ----------------------------------------------------------------------------------------------- lists of arrays


def test_mm_grouped_lists():
    """Lists of arrays through tileorch.cutile.launch (found by this sweep: refused): three groups of
    different M, N, K, outputs NaN-filled; the tile table lists every output tile once."""
    shapes = [(128, 64, 128), (64, 96, 64), (192, 128, 64)]
    a = [randn((m, k), "float16", 110 + g) for g, (m, k, n) in enumerate(shapes)]
    b = [randn((k, n), "float16", 120 + g) for g, (m, k, n) in enumerate(shapes)]
    c = [torch.full((m, n), float("nan"), device="cuda") for m, k, n in shapes]
    tiles = torch.tensor([(g, i, j) for g, (m, k, n) in enumerate(shapes)
                          for i in range(m // 64) for j in range(n // 64)], device="cuda", dtype=torch.int32)
    args = run("mm_grouped_lists", {0: a, 1: b, 2: c, 3: tiles})
    for g in range(3):
        close(c[g], a[g].double() @ b[g].double(), atol=2e-3, rtol=1e-3)
    _check_path("mm_grouped_lists", args)


def test_list_sums():
    xs = [randn((n,), "float32", 130 + i) for i, n in enumerate((100, 37, 256))]
    args = run("list_sums", {0: xs})
    ref = torch.stack([x.double().sum() for x in xs])
    close(args[1], torch.cat([ref, ref.sum()[None]]), atol=1e-4, rtol=1e-5)
    # a second call with other arrays (another table) and a shorter list
    ys = [randn((n,), "float32", 140 + i) for i, n in enumerate((5, 300))]
    out = torch.full((4,), float("nan"), device="cuda")
    tileorch.cutile.launch(torch.cuda.current_stream(), (1,), PROGRAMS["list_sums"].kernel, (ys, out, 64))
    torch.cuda.synchronize()
    ref = torch.stack([y.double().sum() for y in ys])
    close(out[:3], torch.cat([ref, ref.sum()[None]]), atol=1e-4, rtol=1e-5)
    assert torch.isnan(out[3])
    _check_path("list_sums", args)


# ----------------------------------------------------------------------------------------------- batch 2


def test_neg_axes_3d():
    x = randn((2, 8, 32), "float32", 150)
    args = run("neg_axes_3d", {0: x})
    close(args[1], torch.softmax(x.double(), -1), atol=1e-6, rtol=1e-5)
    close(args[2], torch.cat([x[:, 4 * i:4 * i + 4].double().cumsum(-2) for i in range(2)], 1), atol=1e-5, rtol=1e-6)
    assert torch.equal(args[3], torch.cat([x[..., 16:], x[..., :16]], -1).amax(0))
    _check_path("neg_axes_3d", args)


def test_attn_3d_tiles():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 151)
    args = run("attn_3d_tiles", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_3d_tiles", args)


def test_attn_two_heads_shared_kv():
    q, k, v = _qkv((2, 4, 128, 64), (2, 2, 128, 64), "float16", 154)
    args = run("attn_two_heads_shared_kv", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_two_heads_shared_kv", args)


def test_attn_kv_broadcast_batch():
    q, k, v = _qkv((3, 256, 64), (1, 256, 64), "float16", 157)
    args = run("attn_kv_broadcast_batch", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k.expand(3, -1, -1), v.expand(3, -1, -1), 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_kv_broadcast_batch", args)


def test_uint_int_ops():
    u = torch.randint(0, 2**32, (256,), device="cuda", generator=sweep._gen(160), dtype=torch.int64)
    u[:3] = torch.tensor([0, 0x80000000, 0xFFFFFFFF])
    x = _ints((256,), -2**31, 2**31 - 1, 161, torch.int32)
    x[:3] = torch.tensor([-1, -2**31, 2**31 - 1], dtype=torch.int32)
    args = run("uint_int_ops", {0: u.to(torch.uint32), 1: x})
    assert torch.equal(args[2].long() & 0xFFFFFFFF, (u // 7 + u % 7 + (u >> 29)) & 0xFFFFFFFF)
    xl = x.long()
    assert torch.equal(args[3].long(), (xl >> 3) + torch.div(xl, -4, rounding_mode="floor"))
    assert torch.equal(args[4], torch.bitwise_not(x) ^ (x << 2))
    assert torch.equal(args[5], (u > 0x80000000).int())
    _check_path("uint_int_ops", args)


def test_int64_row_sums():
    x = _ints((3, 64), 2**30, 2**31 - 1, 162, torch.int32)
    x[2] = -x[2]
    args = run("int64_row_sums", {0: x})
    assert torch.equal(args[1], x.long().sum(1))
    assert torch.equal(args[2], x[:, 0].long() * x[:, 1].long())
    _check_path("int64_row_sums", args)


def test_none_indexing_3d():
    a, b = randn((20, 16), "float32", 163), randn((16, 16), "float32", 164)
    args = run("none_indexing_3d", {0: a, 1: b})
    assert torch.equal(args[2], (a[:, :, None] + b[None, :, :]).amin(1))
    _check_path("none_indexing_3d", args)


def test_mm_static_iter_k():
    a, b = randn((128, 256), "float16", 165), randn((256, 128), "float16", 166)
    args = run("mm_static_iter_k", {0: a, 1: b})
    close(args[2], a.double() @ b.double(), atol=1e-3, rtol=1e-4)
    _check_path("mm_static_iter_k", args)


# ----------------------------------------------------------------------------------------------- batch 3


def test_mm_peeled_first_k():
    a, b = randn((128, 256), "float16", 170), randn((256, 128), "float16", 171)
    args = run("mm_peeled_first_k", {0: a, 1: b})
    close(args[2], a.double() @ b.double(), atol=1e-3, rtol=1e-4)
    _check_path("mm_peeled_first_k", args)


def test_mm_two_k_loops():
    a1, b1 = randn((128, 128), "float16", 172), randn((128, 128), "float16", 173)
    a2, b2 = randn((128, 192), "float16", 174), randn((192, 128), "float16", 175)
    args = run("mm_two_k_loops", {0: a1, 1: b1, 2: a2, 3: b2})
    close(args[4], a1.double() @ b1.double() + a2.double() @ b2.double(), atol=2e-3, rtol=1e-4)
    _check_path("mm_two_k_loops", args)


def test_attn_acc_added_after():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 176)
    args = run("attn_acc_added_after", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_acc_added_after", args)


def test_attn_matmul_operator():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 179)
    args = run("attn_matmul_operator", {0: q, 1: k, 2: v})
    s = (q.double() @ k.double().transpose(-1, -2)).half().double() * 0.125
    close(args[3], torch.softmax(s, -1) @ v.double(), atol=4e-3, rtol=1e-2)
    _check_path("attn_matmul_operator", args)


def test_attn_causal_bm_twice_bn():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 182)
    args = run("attn_causal_bm_twice_bn", {0: q, 1: k, 2: v})
    pos = torch.arange(256, device="cuda")
    close(args[3], _attention(q, k, v, 0.125, pos[None, :] <= pos[:, None]), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_bm_twice_bn", args)


def test_mm_epilogue_row_gather():
    a, b = randn((256, 128), "float16", 185), randn((128, 128), "float16", 186)
    perm = torch.randperm(256, device="cuda", generator=sweep._gen(187)).int()
    scale = randn((256,), "float32", 188)
    args = run("mm_epilogue_row_gather", {0: a, 1: b, 2: perm, 3: scale})
    close(args[4], (a.double() @ b.double()) * scale.double()[perm.long()][:, None], atol=2e-3, rtol=1e-4)
    _check_path("mm_epilogue_row_gather", args)


# ----------------------------------------------------------------------------------------------- batch 4


def test_mm_tk128():
    a, b = randn((192, 320), "float16", 190), randn((320, 256), "float16", 191)
    args = run("mm_tk128", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_tk128", args)


def test_attn_scale_after_max():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 192)
    args = run("attn_scale_after_max", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_scale_after_max", args)


def test_attn_bm64_bn128():
    q, k, v = _qkv((2, 384, 64), (2, 384, 64), "bfloat16", 195)
    args = run("attn_bm64_bn128", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=2e-2, rtol=2e-2)
    _check_path("attn_bm64_bn128", args)


def test_attn_fp8_e4m3():
    q, k, v = ((randn((2, 256, 64), "float32", 198 + i) * 0.5).to(torch.float8_e4m3fn) for i in range(3))
    args = run("attn_fp8_e4m3", {0: q, 1: k, 2: v})
    s = (q.double() @ k.double().transpose(-1, -2)) * (0.125 * LOG2E)
    m = torch.full((2, 256, 1), float("-inf"), device="cuda", dtype=torch.float64)
    den = torch.zeros((2, 256, 1), device="cuda", dtype=torch.float64)
    acc = torch.zeros((2, 256, 64), device="cuda", dtype=torch.float64)
    for j in range(4):  # the program's online softmax, P rounded to e4m3 for the PV dot
        sj = s[:, :, 64 * j:64 * j + 64]
        m2 = torch.maximum(m, sj.amax(-1, keepdim=True))
        pj = torch.exp2(sj - m2)
        c = torch.exp2(m - m2)
        den = den * c + pj.sum(-1, keepdim=True)
        acc = acc * c + pj.float().to(torch.float8_e4m3fn).double() @ v[:, 64 * j:64 * j + 64].double()
        m = m2
    close(args[3], acc * 0.5 / den, atol=2e-3, rtol=1e-2)
    _check_path("attn_fp8_e4m3", args)


def test_attn_3d_causal():
    q, k, v = _qkv((2, 256, 64), (2, 256, 64), "float16", 201)
    args = run("attn_3d_causal", {0: q, 1: k, 2: v})
    pos = torch.arange(256, device="cuda")
    close(args[3], _attention(q, k, v, 0.125, pos[None, :] <= pos[:, None]), atol=3e-3, rtol=1e-2)
    _check_path("attn_3d_causal", args)
