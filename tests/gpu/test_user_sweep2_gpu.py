"""The second user sweep on the GPU: every program of ``tileorch.testing.user_programs2`` that
compiles runs through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start NaN /
a sentinel inside a larger buffer whose tail must stay unwritten) against an independent torch
reference in fp32 or fp64.  Skipped without a GPU; needs torch and cuda-tile."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

from test_user_sweep_gpu import _gemm_rel, _gen, close, randn, run  # noqa: E402

from tileorch.testing.user_programs2 import PROGRAMS  # noqa: E402

F = torch.nn.functional


def _attention(q, k, v, scale, mask=None, bias=None):
    """softmax(q k^T * scale + bias) v in fp32, ``mask`` True where a key is kept."""
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if bias is not None:
        s = s + bias
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ v.float()


# ----------------------------------------------------------------------------------------------- GEMM


def _ab(seed, dt="float16", m=256, k=192, n=256, scale=1.0):
    return randn((m, k), dt, seed, scale), randn((k, n), dt, seed + 1)


def test_gemm_bias_relu():
    a, b = _ab(1)
    bias = randn((256,), "float16", 3)
    c = run("gemm_bias_relu", {0: a, 1: b, 2: bias})[3]
    _gemm_rel(c, torch.relu(a.float() @ b.float() + bias.float()))


def test_gemm_channel_scale_bf16():
    a, b = _ab(4)
    s = randn((256,), seed=6).abs() + 0.5
    c = run("gemm_channel_scale_bf16", {0: a, 1: b, 2: s})[3]
    assert c.dtype == torch.bfloat16
    _gemm_rel(c, (a.float() @ b.float()) * s)


def test_gemm_residual():
    a, b = _ab(7)
    r = randn((256, 256), "float16", 9)
    _gemm_rel(run("gemm_residual", {0: a, 1: b, 2: r})[3], a.float() @ b.float() + r.float())


def test_gemm_silu():
    a, b = _ab(10, scale=0.2)
    _gemm_rel(run("gemm_silu", {0: a, 1: b})[2], F.silu(a.float() @ b.float()))


def test_gemm_gelu_tanh():
    a, b = _ab(12, scale=0.2)
    ref = F.gelu(a.float() @ b.float(), approximate="tanh")
    close(run("gemm_gelu_tanh", {0: a, 1: b})[2], ref, atol=2e-3, rtol=2e-3)


def test_gemm_ragged_k():
    a, b = randn((256, 200), "float16", 14), randn((200, 256), "float16", 15)
    close(run("gemm_ragged_k", {0: a, 1: b})[2], a.double() @ b.double(), atol=2e-2, rtol=2e-3)


def test_gemm_range_step():
    a, b = _ab(16)
    _gemm_rel(run("gemm_range_step", {0: a, 1: b})[2], a.float() @ b.float())


def test_gemm_alpha_array():
    a, b = _ab(18)
    alpha = torch.tensor([0.75], device="cuda")
    _gemm_rel(run("gemm_alpha_array", {0: a, 1: b, 2: alpha})[3], 0.75 * (a.float() @ b.float()))


def test_gemm_a_transposed():
    at, b = randn((192, 256), "float16", 20), randn((192, 256), "float16", 21)
    _gemm_rel(run("gemm_a_transposed", {0: at, 1: b})[2], at.float().t() @ b.float())


def test_gemm_bf16_f32out():
    a, b = randn((256, 128), "bfloat16", 22), randn((128, 384), "bfloat16", 23)
    _gemm_rel(run("gemm_bf16_f32out", {0: a, 1: b})[2], a.float() @ b.float())


@pytest.mark.parametrize("name", ["gemm_batched_3d", "gemm_batched_reshape"])
def test_gemm_batched(name):
    a, b = randn((3, 128, 128), "float16", 24), randn((3, 128, 128), "float16", 25)
    _gemm_rel(run(name, {0: a, 1: b})[2], torch.bmm(a.float(), b.float()))


def _tier_program(name, args):
    """The compiled program ``name`` ran as (after :func:`run`)."""
    from tileorch.launchers import cutile as rc

    kernel = PROGRAMS[name].kernel
    return rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent").program


def test_gemm_split_k():
    """64x64 tiles with K tiles of 32: the 64-row WGMMA kernel (one consumer warp group, 64-byte
    swizzled K rows), the partial products added by the atomic epilogue."""
    a, b = randn((128, 512), "float16", 26), randn((512, 128), "float16", 27)
    c = torch.zeros((128, 128), device="cuda")  # the partial products are added into C
    args = run("gemm_split_k", {0: a, 1: b, 2: c})
    close(c, a.double() @ b.double(), atol=5e-2, rtol=1e-3)
    program = _tier_program("gemm_split_k", args)
    assert program.kind == "gemm" and program.gemm_config.tile_m == 64, program.remarks


def test_gemm_grouped_raster():
    a, b = randn((512, 256), "float16", 28), randn((256, 384), "float16", 29)
    _gemm_rel(run("gemm_grouped_raster", {0: a, 1: b})[2], a.float() @ b.float())


# ----------------------------------------------------------------------------------------------- attention


def test_fmha_gqa():
    q = randn((2, 4, 256, 64), "float16", 30)
    k, v = randn((2, 2, 256, 64), "float16", 31), randn((2, 2, 256, 64), "float16", 32)
    ref = _attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1), 0.125)
    close(run("fmha_gqa", {0: q, 1: k, 2: v})[3].float(), ref, atol=5e-3, rtol=5e-3)


def test_fmha_alibi():
    q, k, v = (randn((4, 256, 64), "float16", s) for s in (33, 34, 35))
    slopes = torch.tensor([0.5, 0.0625], device="cuda")
    pos = torch.arange(256, device="cuda")
    dist = (pos[None, :] - pos[:, None]).float()
    bias = slopes.repeat(2)[:, None, None] * dist  # head = bh % 2
    ref = _attention(q, k, v, 0.125, mask=pos[None, :] <= pos[:, None], bias=bias)
    close(run("fmha_alibi", {0: q, 1: k, 2: v, 4: slopes})[3].float(), ref, atol=5e-3, rtol=5e-3)


def test_fmha_sliding_window():
    q, k, v = (randn((2, 256, 64), "bfloat16", s) for s in (36, 37, 38))
    pos = torch.arange(256, device="cuda")
    d = pos[:, None] - pos[None, :]
    ref = _attention(q, k, v, 0.125, mask=(d >= 0) & (d < 100))
    close(run("fmha_sliding_window", {0: q, 1: k, 2: v})[3].float(), ref, atol=3e-2, rtol=2e-2)


def test_fmha_bias_tile():
    q, k, v = (randn((2, 256, 32), "float16", s) for s in (39, 40, 41))
    bias = randn((256, 256), seed=42)
    ref = _attention(q, k, v, 1 / math.sqrt(32), bias=bias)
    close(run("fmha_bias_tile", {0: q, 1: k, 2: v, 3: bias})[4].float(), ref, atol=5e-3, rtol=5e-3)


def test_fmha_padded_head():
    q, k, v = (randn((2, 256, 96), "float16", s) for s in (43, 44, 45))
    ref = _attention(q, k, v, 1 / math.sqrt(96))
    close(run("fmha_padded_head", {0: q, 1: k, 2: v})[3].float(), ref, atol=5e-3, rtol=5e-3)


@pytest.mark.parametrize("persistent", ["1", "0"])
@pytest.mark.parametrize("scale", [1 / math.sqrt(64), 0.3])
def test_fmha_q_prescaled_lse(scale, persistent, monkeypatch):
    """On the chained (TMA + WGMMA) path: the Q prologue ``(q * scale).astype(bf16)`` applied in place
    to the Q tile in shared memory (persistent kernel with two Q slots, or one CTA per instance);
    the reference rounds the scaled Q to bf16 as the program does (0.3: not a power of two)."""
    from tileorch.launchers import cutile as rc

    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", persistent)
    rc.clear_caches()  # the in-process programs are not keyed by the environment
    q, k, v = (randn((2, 256, 64), "bfloat16", s) for s in (46, 47, 48))
    try:
        args = run("fmha_q_prescaled_lse", {0: q, 1: k, 2: v, 5: scale})
        kernel = PROGRAMS["fmha_q_prescaled_lse"].kernel
        program = rc.compiled(kernel, rc.describe_arguments(kernel, tuple(args)), "sm_90a", "persistent").program
    finally:
        rc.clear_caches()
    assert program.kind == "chained" and program.chained["q_prologue"], program.remarks
    assert bool(program.chained.get("persistent")) == (persistent == "1"), program.chained
    qs = (q.float() * scale).bfloat16()
    close(args[3].float(), _attention(qs, k, v, 1.0), atol=3e-2, rtol=2e-2)
    lse = torch.logsumexp(qs.float() @ k.float().transpose(-1, -2), -1)
    close(args[4], lse, atol=3e-2, rtol=1e-2)


# ----------------------------------------------------------------------------------------------- SIMT


def test_vector_add_tail():
    a, b = randn((1000,), seed=50), randn((1000,), seed=51)
    assert torch.equal(run("vector_add_tail", {0: a, 1: b})[2], a + b)


def test_layernorm_fwd():
    x, w, b = randn((5, 200), "float16", 52), randn((200,), "float16", 53), randn((200,), "float16", 54)
    args = run("layernorm_fwd", {0: x, 1: w, 2: b})
    ref = F.layer_norm(x.float(), (200,), w.float(), b.float(), eps=1e-5)
    close(args[3].float(), ref, atol=1e-2, rtol=1e-2)
    close(args[4], x.double().mean(1), atol=1e-5)
    close(args[5], torch.rsqrt(x.double().var(1, unbiased=False) + 1e-5), atol=1e-4, rtol=1e-5)


def test_softmax_rows_block():
    x = randn((10, 100), seed=55)
    close(run("softmax_rows_block", {0: x})[1], torch.softmax(x.double(), 1), atol=1e-6)


def test_col_mean_var():
    x = randn((32, 64), seed=56)
    args = run("col_mean_var", {0: x})
    close(args[1], x.double().mean(0), atol=1e-6)
    close(args[2], x.double().var(0), atol=1e-5)


def test_row_argmin_i64():
    x = randn((6, 90), seed=57)
    args = run("row_argmin_i64", {0: x})
    assert torch.equal(args[1], x.argmin(1)) and torch.equal(args[2], x.min(1).values)


def test_cumsum_reverse_cols():
    x = randn((16, 64), seed=58)
    close(run("cumsum_reverse_cols", {0: x})[1], x.double().flip(0).cumsum(0).flip(0), atol=1e-5)


def test_prod_and_max_axis():
    x = 1 + 0.1 * randn((8, 16), seed=59)
    args = run("prod_and_max_axis", {0: x})
    close(args[1], x.double().prod(1), atol=1e-5, rtol=1e-5)
    assert torch.equal(args[2], x.max(0).values)


def test_row_l2_normalize():
    x = randn((4, 300), "bfloat16", 60)
    close(run("row_l2_normalize", {0: x})[1].float(), F.normalize(x.float(), dim=1, eps=1e-12), atol=1e-2,
          rtol=1e-2)


def test_transpose_permute():
    x = randn((64, 96), "float16", 61)
    assert torch.equal(run("transpose_permute", {0: x})[1], x.t())


def test_int16_saturate():
    g = _gen(62)
    a = torch.randint(-32768, 32768, (256,), device="cuda", generator=g, dtype=torch.int32).to(torch.int16)
    b = torch.randint(-32768, 32768, (256,), device="cuda", generator=g, dtype=torch.int32).to(torch.int16)
    ref = (a.int() + b.int()).clamp(-32768, 32767).to(torch.int16)
    assert torch.equal(run("int16_saturate", {0: a, 1: b})[2], ref)


def test_bool_mask_store():
    x = randn((300,), seed=63)
    args = run("bool_mask_store", {0: x})
    assert torch.equal(args[2], x > 0.25)
    counts = torch.stack([(x[128 * i:128 * (i + 1)] > 0.25).sum() for i in range(3)]).int()
    assert torch.equal(args[3], counts)


def test_where_broadcast():
    x = randn((16, 32), seed=64)
    flag = torch.randint(0, 2, (16,), device="cuda", generator=_gen(65), dtype=torch.int32)
    ref = torch.where(flag[:, None] != 0, x, torch.full_like(x, -1.0))
    assert torch.equal(run("where_broadcast", {0: x, 1: flag})[2], ref)


def test_tile_4d_sum():
    x = randn((2, 4, 8, 16), seed=66)
    w = torch.arange(4, device="cuda", dtype=torch.float64)[None, :, None]
    close(run("tile_4d_sum", {0: x})[1], x.double().sum(3) * w, atol=1e-5)


def test_outer_product():
    u, v = randn((48,), seed=67), randn((80,), seed=68)
    assert torch.equal(run("outer_product", {0: u, 1: v})[2], torch.outer(u, v))


def test_cat_halves():
    x = randn((256,), seed=69)
    assert torch.equal(run("cat_halves", {0: x})[1], x.view(2, 2, 64).flip(1).reshape(256))


def test_constants_mixed():
    x = randn((256,), seed=70)
    args = run("constants_mixed", {0: x})
    w = torch.tensor([1.0, -1.0, 0.5, 2.0], device="cuda").repeat(64)
    close(args[1], (x.double() * 3 + 1) * w, atol=1e-5)
    lut = torch.tensor([10, 20, 30, 40], device="cuda", dtype=torch.int32).repeat(64)
    assert torch.equal(args[2], lut + torch.arange(256, device="cuda", dtype=torch.int32) % 128)


def test_mixed_promotion():
    h = randn((256,), "float16", 71)
    k = torch.randint(-100, 100, (256,), device="cuda", generator=_gen(72), dtype=torch.int32)
    close(run("mixed_promotion", {0: h, 1: k})[2], h.double() * (k.double() + 0.5), atol=1e-4, rtol=1e-6)


def test_pow_isnan():
    x = randn((256,), seed=73)
    x[::9] = float("nan")
    t = torch.nan_to_num(x.double(), nan=0.0)
    close(run("pow_isnan", {0: x})[1], t ** 3 + (t.abs() + 1.0) ** -0.5, atol=1e-4, rtol=1e-5)


def test_scalar_0d_io():
    alpha = torch.tensor(1.5, device="cuda")
    x = randn((200,), seed=74)
    close(run("scalar_0d_io", {0: alpha, 1: x})[2], 1.5 * x.double().sum(), atol=1e-4)


def test_strided_tile_sum():
    x = randn((1000,), seed=75)
    pad = torch.zeros(1024, device="cuda", dtype=torch.float64)
    pad[:1000] = x
    close(run("strided_tile_sum", {0: x})[1], pad.view(16, 64)[1:16:3].sum(0), atol=1e-5)


def test_newton_rsqrt_while():
    x = randn((256,), seed=76).abs() * 0.5 + 0.25  # in (0.25, ~2.2): Newton from 1 converges
    close(run("newton_rsqrt_while", {0: x})[1], torch.rsqrt(x.double()), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("mode,negate", [(0, True), (1, False), (1, True), (2, True), (5, False)])
def test_nested_if_modes(mode, negate):
    x = randn((256,), seed=77)
    r = x if mode == 0 else x * x if mode == 1 else x.abs()
    ref = -r if negate and mode != 0 else r
    assert torch.equal(run("nested_if_modes", {0: x, 2: mode, 3: negate})[1], ref)


def test_tanh_rows():
    """``ct.tanh`` at its default (full) precision and with ``rounding_mode=APPROX``."""
    x = torch.linspace(-12.0, 12.0, 4096, device="cuda")
    args = run("tanh_rows", {0: x})
    ref = torch.tanh(x.double())
    close(args[1], ref, atol=0.0, rtol=1e-6)
    close(args[2], ref, atol=1e-6, rtol=2 ** -10)


def test_helper_and_static_iter():
    x = randn((512,), seed=78)
    ref = F.gelu(x.double(), approximate="tanh").view(2, 4, 64).sum(1).reshape(128)
    close(run("helper_and_static_iter", {0: x})[1], ref, atol=1e-5)


def test_loop_tail_mask():
    x = randn((1000,), seed=79)
    assert torch.equal(run("loop_tail_mask", {0: x})[1], 2 * x)


def test_row_gather_scatter_add():
    src = randn((8, 64), seed=80)
    idx = torch.tensor([0, 3, 1, 3, 0, 2, 2, 3], device="cuda", dtype=torch.int32)
    out = torch.zeros((4, 64), device="cuda")
    run("row_gather_scatter_add", {0: src, 1: idx, 2: out})
    close(out, torch.zeros(4, 64, device="cuda").index_add_(0, idx.long(), src), atol=1e-5)


def test_atomic_max_rows():
    x = torch.randint(-10**6, 10**6, (6, 64), device="cuda", generator=_gen(81), dtype=torch.int32)
    best = torch.full((1,), -2**31, device="cuda", dtype=torch.int32)
    run("atomic_max_rows", {0: x, 1: best})
    assert int(best) == int(x.max())


def test_divisible_hint():
    x = randn((1024,), seed=82)
    close(run("divisible_hint", {0: x})[1], x.double().view(8, 128).sum(0).repeat(2), atol=1e-5)


def test_gemm_persistent():
    """12 output tiles walked by 5 programs (``range(bid, tiles, num_blocks)``)."""
    a, b = randn((512, 256), "float16", 83), randn((256, 384), "float16", 84)
    _gemm_rel(run("gemm_persistent", {0: a, 1: b})[2], a.float() @ b.float())


def test_gemm_b_colmajor():
    a, w = randn((256, 192), "float16", 85), randn((256, 192), "float16", 86)  # w: [N, K]
    _gemm_rel(run("gemm_b_colmajor", {0: a, 1: w})[2], a.float() @ w.float().t())


def test_gemm_fp8():
    a = (randn((256, 256), seed=86) * 0.5).to(torch.float8_e4m3fn)
    b = (randn((256, 256), seed=87) * 0.5).to(torch.float8_e4m3fn)
    _gemm_rel(run("gemm_fp8", {0: a, 1: b})[2], a.float() @ b.float())


def test_fp8_quant_rows():
    x = randn((4, 300), "bfloat16", 88)
    args = run("fp8_quant_rows", {0: x})
    amax = x.float().abs().amax(1, keepdim=True)
    ref_q = (x.float() * (448.0 / amax)).to(torch.float8_e4m3fn).float()
    got = args[1].float()
    close(got, ref_q, atol=0, rtol=0.13)  # at most one e4m3 step apart (the row maximum: 448 vs a tie)
    assert (got == ref_q).float().mean() > 0.99
    close(args[2], (amax / 448.0).reshape(4), atol=0, rtol=1e-6)


def test_uint8_normalize():
    img = torch.randint(0, 256, (1000,), device="cuda", generator=_gen(89), dtype=torch.uint8)
    mean = torch.tensor([0.45], device="cuda")
    close(run("uint8_normalize", {0: img, 1: mean})[2], img.double() / 255.0 - 0.45, atol=1e-6)


def test_int_div_scalar():
    x = torch.randint(-1000, 1000, (256,), device="cuda", generator=_gen(90), dtype=torch.int32)
    q, r = torch.div(x, 7, rounding_mode="floor"), torch.remainder(x, 7)
    assert torch.equal(run("int_div_scalar", {0: x})[1], (q ^ (x & 7)) + (r << 1))


def test_sum_all_axes_3d():
    x = randn((3, 8, 16), seed=91)
    close(run("sum_all_axes_3d", {0: x})[1], x.double().sum((1, 2)), atol=1e-5)


def test_softmax_exp2_ftz():
    x = randn((4, 300), "float16", 92)
    close(run("softmax_exp2_ftz", {0: x})[1].float(), torch.softmax(x.float(), 1), atol=2e-3)


def test_cumsum_bool_count():
    m = torch.rand(300, device="cuda", generator=_gen(93)) < 0.5
    pad = torch.zeros(384, device="cuda", dtype=torch.int32)
    pad[:300] = m.int()
    ref = pad.view(3, 128).cumsum(1).int().reshape(384)[:300]
    assert torch.equal(run("cumsum_bool_count", {0: m})[1], ref)


def test_max_int8():
    x = torch.randint(-128, 128, (4, 64), device="cuda", generator=_gen(94), dtype=torch.int8)
    assert torch.equal(run("max_int8", {0: x})[1], x.max(1).values)


def test_float_mod_floordiv():
    x = randn((256,), seed=95, scale=3.0)
    args = run("float_mod_floordiv", {0: x})
    close(args[1], torch.remainder(x.double(), 0.75), atol=1e-6)
    # (f32 results up to ~18: 1e-6 absolute is below their ulp; rtol 1e-6 is about 8 ulp)
    close(args[2], torch.div(x.double(), 0.5, rounding_mode="floor") + x.double().abs().sqrt(), atol=1e-6,
          rtol=1e-6)


def test_atomics_bits():
    vals = torch.randint(0, 2**30, (256,), device="cuda", generator=_gen(96), dtype=torch.int32)
    flags = torch.zeros(8, device="cuda", dtype=torch.int32)
    run("atomics_bits", {0: flags, 1: vals})
    ref = [0] * 8
    for j, v in enumerate(vals.tolist()):
        ref[j % 128 % 4] |= v & 0xF
        ref[4 + j // 128] ^= v
    ref[6], ref[7] = int(vals[:128].max()), int(vals[128:].max())
    assert flags.tolist() == ref


def test_batched_tile2():
    """Two batches per program at program id 0: the batched WGMMA GEMM (batch tile split, the
    batch walked as L)."""
    a, b = randn((4, 64, 128), "float16", 97), randn((4, 128, 64), "float16", 98)
    args = run("batched_tile2", {0: a, 1: b})
    _gemm_rel(args[2], torch.bmm(a.float(), b.float()))
    program = _tier_program("batched_tile2", args)
    assert program.kind == "gemm" and program.gemm_config.batched, program.remarks


def test_gemm_const_k():
    a, b = _ab(99)
    _gemm_rel(run("gemm_const_k", {0: a, 1: b})[2], a.float() @ b.float())


def test_mlp_gelu_chain():
    x = randn((256, 64), "float16", 100)
    w1, w2 = randn((64, 256), "float16", 101, 0.125), randn((256, 64), "float16", 102, 0.0625)
    h = F.gelu(x.float() @ w1.float(), approximate="tanh").half().float()
    _gemm_rel(run("mlp_gelu_chain", {0: x, 1: w1, 2: w2})[3], h @ w2.float())


def test_cat_cols_2d():
    x, z = randn((16, 32), seed=103), randn((16, 32), seed=104)
    assert torch.equal(run("cat_cols_2d", {0: x, 1: z})[2], torch.cat([z, x], 1))


def test_extract_dynamic():
    x = randn((256,), seed=105)
    assert torch.equal(run("extract_dynamic", {0: x})[1], 2 * x.view(4, 64))


def test_f16_scalar_math():
    x = randn((256,), "float16", 106)
    t = x.double()
    ref = torch.rsqrt(t.abs() + 1) * torch.exp(t * 0.5) + torch.clamp(t, max=0.25)
    close(run("f16_scalar_math", {0: x})[1].double(), ref, atol=1e-2, rtol=2e-3)


def test_argmax_int_tile():
    x = torch.randint(-50, 50, (4, 100), device="cuda", generator=_gen(107), dtype=torch.int32)
    x[2] = -7  # below the zero padding: the first padded column (100) wins
    ref = torch.where(x.max(1).values >= 0, x.argmax(1), torch.full((4,), 100, device="cuda"))
    assert torch.equal(run("argmax_int_tile", {0: x})[1].long(), ref)


def test_every_compiling_program_is_run_here():
    """A program added to the second sweep gets its GPU test too."""
    import sys

    here = sys.modules[__name__]
    names = " ".join(n for n in dir(here) if n.startswith("test_"))
    source = open(here.__file__).read()
    missing = [n for n, p in PROGRAMS.items() if p.path != "error" and n not in names and f'"{n}"' not in source]
    assert not missing, missing
