"""The third user sweep on the GPU: every program of ``tileorch.testing.user_programs3`` runs through
``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start NaN / a sentinel inside a larger
buffer whose tail must stay unwritten) against an independent torch reference in fp32 / fp64,
and the path each took (tier, chained, SIMT) is the one the CPU tests expect.  Skipped without a
GPU; needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_user_sweep3_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402
from test_user_sweep_gpu import _gemm_rel, close, randn, run  # noqa: E402

from tileorch.testing.user_programs3 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there
sweep.DT.update({"float8_e5m2": torch.float8_e5m2})

F = torch.nn.functional


def _check_path(name, args):
    sweep.check_path(name, args)  # (the compile's path and the launch's: tileorch.testing.launch_path)


def _ab(seed, m=256, k=256, n=256, dt="float16", scale=1.0):
    return randn((m, k), dt, seed, scale), randn((k, n), dt, seed + 1, scale)


def _ab_of(name, seed, scale=1.0):
    """A and B of the shapes program ``name``'s spec gives (f16)."""
    (m, k), (_, n) = PROGRAMS[name].spec[0][0], PROGRAMS[name].spec[1][0]
    return _ab(seed, m, k, n, scale=scale)


# ----------------------------------------------------------------------------------------------- GEMM


def test_mm_tiled_view():
    a, b = randn((200, 192), "float16", 1), randn((192, 320), "float16", 2)
    args = run("mm_tiled_view", {0: a, 1: b})
    _gemm_rel(args[2], a.float() @ b.float())
    _check_path("mm_tiled_view", args)


def test_mm_load_order_bt():
    a, w = randn((256, 192), "float16", 3), randn((256, 192), "float16", 4)
    args = run("mm_load_order_bt", {0: a, 1: w})
    _gemm_rel(args[2], a.float() @ w.float().t())
    _check_path("mm_load_order_bt", args)


def test_mm_k_slice_reads_only_the_slice():
    a, b = _ab(5, 128, 128, 128)
    args = run("mm_k_slice", {0: a, 1: b})
    _gemm_rel(args[2], a[:, 32:96].float() @ b[32:96].float())
    _check_path("mm_k_slice", args)


def test_mm_overlapping_rows():
    a, b = randn((128, 64), "float16", 6), randn((64, 64), "float16", 7)
    c = run("mm_overlapping_rows", {0: a, 1: b})[2]
    ap = torch.zeros((192, 64), device="cuda")
    ap[:128] = a.float()
    _gemm_rel(c, torch.cat([ap[32 * i:32 * i + 64] @ b.float() for i in range(3)]))


@pytest.mark.parametrize("name", ["mm_divmod_grid", "mm_grid_nm"])
def test_grid_orders(name):
    shape_a, shape_b = PROGRAMS[name].spec[0][0], PROGRAMS[name].spec[1][0]
    a, b = randn(shape_a, "float16", 8), randn(shape_b, "float16", 9)
    args = run(name, {0: a, 1: b})
    _gemm_rel(args[2], a.float() @ b.float())
    _check_path(name, args)


def test_mm_batched_bid0():
    a, b = randn((2, 128, 128), "bfloat16", 10), randn((2, 128, 128), "bfloat16", 11)
    args = run("mm_batched_bid0", {0: a, 1: b})
    _gemm_rel(args[2], torch.bmm(a.float(), b.float()))
    _check_path("mm_batched_bid0", args)


def test_mm_accumulate_into_c():
    a, b = _ab_of("mm_accumulate_into_c", 12)
    c0 = randn((128, 256), "float32", 14)
    c = c0.clone()
    args = run("mm_accumulate_into_c", {0: a, 1: b, 2: c})
    _gemm_rel(c, a.float() @ b.float() + c0, 1e-3)
    _check_path("mm_accumulate_into_c", args)


def test_mm_f16_acc_into_c():
    a, b = randn((128, 128), "float16", 90, 0.5), randn((128, 128), "float16", 91, 0.5)
    c0 = randn((128, 128), "float16", 92)
    c = c0.clone()
    args = run("mm_f16_acc_into_c", {0: a, 1: b, 2: c})
    close(c, c0.double() + a.double() @ b.double(), atol=0.06, rtol=1e-2)
    _check_path("mm_f16_acc_into_c", args)


def test_mm_tf32():
    a, b = randn((128, 128), "float32", 15), randn((128, 128), "float32", 16)
    args = run("mm_tf32", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double(), 3e-3)
    _check_path("mm_tf32", args)


def test_mm_int8_i32():
    g = sweep._gen(17)
    a = torch.randint(-128, 128, (128, 256), device="cuda", generator=g, dtype=torch.int8)
    b = torch.randint(-128, 128, (256, 128), device="cuda", generator=g, dtype=torch.int8)
    args = run("mm_int8_i32", {0: a, 1: b})
    assert torch.equal(args[2].cpu().long(), a.cpu().long() @ b.cpu().long())  # (no integer matmul on CUDA)
    _check_path("mm_int8_i32", args)


def test_mm_leaky_relu():
    a, b = _ab_of("mm_leaky_relu", 18)
    args = run("mm_leaky_relu", {0: a, 1: b})
    _gemm_rel(args[2], F.leaky_relu(a.float() @ b.float(), 0.01))
    _check_path("mm_leaky_relu", args)


def test_mm_where_scalar_zero():
    a, b = _ab_of("mm_where_scalar_zero", 20)
    args = run("mm_where_scalar_zero", {0: a, 1: b})
    h = a.double() @ b.double()
    close(args[2], torch.where(h.abs() < 4.0, 0.0, h), atol=1e-3, rtol=1e-3)
    _check_path("mm_where_scalar_zero", args)


def test_mm_swish_beta():
    a, b = _ab(22, scale=0.2)
    args = run("mm_swish_beta", {0: a, 1: b})
    h = a.float() @ b.float()
    _gemm_rel(args[2], h * torch.sigmoid(1.7 * h))
    _check_path("mm_swish_beta", args)


def test_mm_rowscale_colbias():
    a, b = randn((200, 128), "float16", 24), randn((128, 256), "float16", 25)
    r, cb = randn((200,), "float32", 26), randn((256,), "float32", 27)
    args = run("mm_rowscale_colbias", {0: a, 1: b, 2: r, 3: cb})
    close(args[4], (a.double() @ b.double()) * r.double()[:, None] + cb.double(), atol=1e-3, rtol=1e-4)
    _check_path("mm_rowscale_colbias", args)


def test_mm_clamp_scalars():
    a, b = _ab(28, scale=0.3)
    args = run("mm_clamp_scalars", {0: a, 1: b})
    close(args[2], (a.double() @ b.double()).clamp(-2.0, 3.0), atol=4e-3, rtol=2e-3)
    _check_path("mm_clamp_scalars", args)


def test_mm_residual_gate():
    a, b = _ab_of("mm_residual_gate", 30)
    r, g = randn((128, 256), "float16", 32), randn((128, 256), "float32", 33)
    args = run("mm_residual_gate", {0: a, 1: b, 2: r, 3: g})
    _gemm_rel(args[4], r.float() + g * (a.float() @ b.float()))
    _check_path("mm_residual_gate", args)


def test_mm_fp8_out():
    a, b = _ab_of("mm_fp8_out", 34, scale=0.5)
    args = run("mm_fp8_out", {0: a, 1: b})
    ref = ((a.float() @ b.float()) * 0.125).clamp(-448, 448)
    got = args[2].float()
    assert not torch.isnan(got).any()
    # one e4m3 rounding: 2^-4 relative (3 mantissa bits), plus the subnormal step
    assert ((got - ref).abs() <= ref.abs() * 2 ** -4 + 2 ** -9).all()
    _check_path("mm_fp8_out", args)


def test_mm_e5m2_out():
    a, b = randn((200, 128), "float16", 35), randn((128, 256), "float16", 38)
    args = run("mm_e5m2_out", {0: a, 1: b})
    ref = a.double() @ b.double()
    got = args[2].double()
    assert not torch.isnan(got).any()
    # one e5m2 rounding (2 mantissa bits) of the f32 accumulator: half a step at |ref|, plus slack
    step = torch.exp2(torch.floor(torch.log2(ref.abs().clamp_min(2.0 ** -14))) - 2)
    assert ((got - ref).abs() <= step / 2 + ref.abs() * 1e-5 + 1e-3).all()
    _check_path("mm_e5m2_out", args)


def test_mm_bias_as_start():
    a, b = randn((256, 128), "float16", 81), randn((128, 256), "float16", 82)
    bias = randn((256,), "float32", 83)
    args = run("mm_bias_as_start", {0: a, 1: b, 2: bias})
    close(args[3], a.double() @ b.double() + bias.double(), atol=1e-3, rtol=1e-4)
    _check_path("mm_bias_as_start", args)


def test_mm_lower_triangle():
    a, b = _ab_of("mm_lower_triangle", 84)
    args = run("mm_lower_triangle", {0: a, 1: b})
    close(args[2], torch.tril(a.double() @ b.double()), atol=1e-3, rtol=1e-4)
    _check_path("mm_lower_triangle", args)


def test_mm_pre_and_post():
    a, b = _ab_of("mm_pre_and_post", 86)
    args = run("mm_pre_and_post", {0: a, 1: b})
    h = a.double() @ b.double()
    _gemm_rel(args[2], h)
    close(args[3], torch.relu(h), atol=1e-3, rtol=1e-4)
    _check_path("mm_pre_and_post", args)


def test_mm_small_tiles_sigmoid():
    a, b = randn((192, 128), "float16", 36), randn((128, 192), "float16", 37)
    args = run("mm_small_tiles_sigmoid", {0: a, 1: b})
    close(args[2], torch.sigmoid(a.double() @ b.double()), atol=1e-5, rtol=1e-5)
    _check_path("mm_small_tiles_sigmoid", args)


# ----------------------------------------------------------------------------------------------- attention / MLP


def _attention(q, k, v, scale, mask=None):
    s = (q.float() @ k.float().transpose(-1, -2)) * scale
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf"))
    return torch.softmax(s, -1) @ v.float()


def test_attn_packed_qkv():
    qkv = randn((2, 256, 3, 2, 64), "float16", 40)
    args = run("attn_packed_qkv", {0: qkv})
    q, k, v = (qkv[:, :, i].transpose(1, 2) for i in range(3))  # [B, H, S, D]
    close(args[1], _attention(q, k, v, 0.125).transpose(1, 2), atol=3e-3, rtol=1e-2)
    _check_path("attn_packed_qkv", args)


def test_attn_cross_ragged_kv():
    q, k, v = randn((2, 128, 64), "float16", 41), randn((2, 200, 64), "float16", 42), randn((2, 200, 64), "float16", 43)
    args = run("attn_cross_ragged_kv", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=3e-3, rtol=1e-2)
    _check_path("attn_cross_ragged_kv", args)


def test_attn_rowvec_state():
    """Scores from ``ct.matmul`` of f16 tiles (an f16 dot, widened to f32 by tileas-fold-dot-accumulate)
    and 1-D running max / sum in the chained kernel."""
    q, k, v = (randn((2, 256, 64), "float16", 44 + i) for i in range(3))
    args = run("attn_rowvec_state", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 0.125), atol=1e-2, rtol=2e-2)
    _check_path("attn_rowvec_state", args)


def test_attn_causal_cdiv_heads3():
    q, k, v = (randn((2, 2, 256, 64), "float16", 47 + i) for i in range(3))
    args = run("attn_causal_cdiv_heads3", {0: q, 1: k, 2: v})
    pos = torch.arange(256, device="cuda")
    close(args[3], _attention(q, k, v, 0.125, pos[None, :] <= pos[:, None]), atol=3e-3, rtol=1e-2)
    _check_path("attn_causal_cdiv_heads3", args)


def test_attn_bf16_d128():
    q, k, v = (randn((2, 256, 128), "bfloat16", 50 + i) for i in range(3))
    args = run("attn_bf16_d128", {0: q, 1: k, 2: v})
    close(args[3], _attention(q, k, v, 1 / math.sqrt(128)), atol=2e-2, rtol=2e-2)
    _check_path("attn_bf16_d128", args)


def test_attn_alibi_iota_gqa():
    q, k, v = randn((4, 192, 32), "float16", 87), randn((2, 192, 32), "float16", 88), randn((2, 192, 32), "float16", 89)
    args = run("attn_alibi_iota_gqa", {0: q, 1: k, 2: v})
    pos = torch.arange(192, device="cuda", dtype=torch.float32)
    slopes = 2.0 ** (-8.0 * (torch.arange(4, device="cuda") + 1) / 4)
    kk, vv = k.repeat_interleave(2, 0).float(), v.repeat_interleave(2, 0).float()
    s = (q.float() @ kk.transpose(1, 2)) / math.sqrt(32) - slopes[:, None, None] * (pos[None, :] - pos[:, None]).abs()
    close(args[3], torch.softmax(s, -1) @ vv, atol=3e-3, rtol=1e-2)
    _check_path("attn_alibi_iota_gqa", args)


def test_mlp_swiglu():
    x = randn((128, 64), "float16", 53)
    w1, w3 = randn((64, 128), "float16", 54, 0.125), randn((64, 128), "float16", 55, 0.125)
    w2 = randn((128, 64), "float16", 56, 0.0625)
    args = run("mlp_swiglu", {0: x, 1: w1, 2: w3, 3: w2})
    h = (F.silu(x.float() @ w1.float()) * (x.float() @ w3.float())).half().float()
    _gemm_rel(args[4], h @ w2.float(), 2e-2)
    _check_path("mlp_swiglu", args)


def _swiglu_case(name, seed):
    """Program ``name`` (a SwiGLU MLP: X, W1, W3, W2, Y; W1 / W3 ``[D, H]`` or, ``_wt``, ``[H, D]``)
    on its spec's shapes and dtype against fp32 torch, the gated product rounded to the inputs'
    dtype as the program's cast does; the chained path (two first dots sharing x)."""
    spec = PROGRAMS[name].spec
    (m, d), dt = spec[0]
    w_shape, (h, do) = spec[1][0], spec[3][0]
    x = randn((m, d), dt, seed)
    w1, w3 = randn(w_shape, dt, seed + 1, d ** -0.5), randn(w_shape, dt, seed + 2, d ** -0.5)
    w2 = randn((h, do), dt, seed + 3, h ** -0.5)
    args = run(name, {0: x, 1: w1, 2: w3, 3: w2})
    a1, a3 = (w1.float().t(), w3.float().t()) if name.endswith("_wt") else (w1.float(), w3.float())
    g = (F.silu(x.float() @ a1) * (x.float() @ a3)).to(x.dtype).float()
    _gemm_rel(args[4], g @ w2.float(), 2e-2)
    _check_path(name, args)


SWIGLU_VARIANTS = ["mlp_swiglu_bf16", "mlp_swiglu_tm64", "mlp_swiglu_wt", "mlp_swiglu_wide"]  # wide: SIMT path


@pytest.mark.parametrize("name", SWIGLU_VARIANTS)
def test_mlp_swiglu_variants(name):
    _swiglu_case(name, 60)


def test_mlp_three_gates():
    """Three first dots sharing x (one n = 96 WGMMA), ``relu(g) * u + v``, then ``@ W2``."""
    x = randn((128, 64), "float16", 70)
    w1, w3, w4 = (randn((64, 96), "float16", 71 + i, 0.125) for i in range(3))
    w2 = randn((96, 64), "float16", 74, 0.1)
    args = run("mlp_three_gates", {0: x, 1: w1, 2: w3, 3: w4, 4: w2})
    xf = x.float()
    h = (torch.relu(xf @ w1.float()) * (xf @ w3.float()) + xf @ w4.float()).half().float()
    _gemm_rel(args[5], h @ w2.float(), 2e-2)
    _check_path("mlp_three_gates", args)


def test_mlp_geglu_two_inputs():
    """Two A tiles (refused by the chained kernel): the SIMT path's mma.sync dots."""
    x, z = randn((128, 64), "float16", 64), randn((128, 64), "float16", 65)
    w1, w3 = randn((64, 128), "float16", 66, 0.125), randn((64, 128), "float16", 67, 0.125)
    w2 = randn((128, 64), "float16", 68, 0.0625)
    args = run("mlp_geglu_two_inputs", {0: x, 1: z, 2: w1, 3: w3, 4: w2})
    h = (torch.relu(x.float() @ w1.float()) * (z.float() @ w3.float())).half().float()
    _gemm_rel(args[5], h @ w2.float(), 2e-2)
    _check_path("mlp_geglu_two_inputs", args)


def test_mlp_relu_sq_chain():
    x = randn((192, 64), "float16", 57)
    w1, w2 = randn((64, 128), "float16", 58, 0.125), randn((128, 64), "float16", 59, 0.09)
    args = run("mlp_relu_sq_chain", {0: x, 1: w1, 2: w2})
    h = torch.relu(x.float() @ w1.float())
    _gemm_rel(args[3], (h * h).half().float() @ w2.float(), 2e-2)
    _check_path("mlp_relu_sq_chain", args)


# ----------------------------------------------------------------------------------------------- memory-bound


def test_softmax_custom_reduce():
    x = randn((6, 300), "float16", 60)
    close(run("softmax_custom_reduce", {0: x})[1], torch.softmax(x.double(), 1), atol=1e-3, rtol=2e-3)


def test_argmax_tuple_reduce():
    x = randn((5, 200), "float32", 61)
    x[2, [7, 50, 199]] = 9.0
    assert torch.equal(run("argmax_tuple_reduce", {0: x})[1].long(), x.argmax(1))


def test_chunked_cumsum_scan():
    x = randn((3, 500), "float32", 62)
    close(run("chunked_cumsum_scan", {0: x})[1], x.double().cumsum(1), atol=1e-4)


def test_layernorm_chunked():
    x, w, b = randn((4, 700), "bfloat16", 63, 2.0), randn((700,), "bfloat16", 64), randn((700,), "bfloat16", 65)
    ref = F.layer_norm(x.double(), (700,), w.double(), b.double(), 1e-5)
    close(run("layernorm_chunked", {0: x, 1: w, 2: b})[3], ref, atol=3e-2, rtol=1e-2)


def test_rmsnorm_2d_tile():
    x, w = randn((5, 384), "bfloat16", 66), randn((384,), "bfloat16", 67)
    xd = x.double()
    ref = xd * torch.rsqrt((xd * xd).mean(1, keepdim=True) + 1e-6) * w.double()
    close(run("rmsnorm_2d_tile", {0: x, 1: w})[2], ref, atol=3e-2, rtol=1e-2)


def test_logsumexp_online():
    x = randn((4, 1000), "float32", 68, 3.0)
    close(run("logsumexp_online", {0: x})[1], torch.logsumexp(x.double(), 1), atol=1e-4)


def test_argmin_cols_keepdims():
    x = randn((30, 64), "float32", 69)
    assert torch.equal(run("argmin_cols_keepdims", {0: x})[1].long(), x.argmin(0))


def test_permute_3d_201():
    x = randn((4, 8, 64), "float16", 70)
    assert torch.equal(run("permute_3d_201", {0: x})[1], x.permute(2, 0, 1))


def test_window_mean_overlap():
    x = randn((512,), "float32", 71)
    ref = torch.stack([x[32 * i:32 * i + 64].double().sum() / 64 for i in range(15)])
    close(run("window_mean_overlap", {0: x})[1], ref, atol=1e-6)


def test_gather_rows_advanced():
    table = randn((40, 32), "float32", 72)
    ids = torch.randint(0, 40, (64,), device="cuda", generator=sweep._gen(73), dtype=torch.int32)
    assert torch.equal(run("gather_rows_advanced", {0: table, 1: ids})[2], 2 * table[ids.long()])


def test_scatter_masked_rows():
    src = randn((300,), "float32", 74)
    perm = torch.randperm(300, device="cuda", generator=sweep._gen(75)).int()
    dst = run("scatter_masked_rows", {0: src, 2: perm})[1]
    ref = torch.full((300,), float("nan"), device="cuda")
    ref[perm[:250].long()] = src[:250]
    torch.testing.assert_close(dst, ref, equal_nan=True, atol=0, rtol=0)


def test_byte_histogram():
    data = torch.randint(0, 256, (1000,), device="cuda", generator=sweep._gen(76), dtype=torch.uint8)
    hist = torch.zeros(256, device="cuda", dtype=torch.int32)
    run("byte_histogram", {0: data, 1: hist})
    assert torch.equal(hist.long(), torch.bincount(data.long(), minlength=256))


def test_clamp_where_chain():
    x, y = randn((1000,), "float16", 77, 2.0), randn((1000,), "float16", 78)
    x[::37] = float("nan")
    xd, yd = x.double(), y.double()
    c = torch.where(torch.isnan(xd), 0.0, xd.clamp(-1.5, 2.0))
    ref = c * torch.where(yd >= 0, 1.0, -1.0) + yd * 0.5
    close(run("clamp_where_chain", {0: x, 1: y})[2], ref, atol=2e-3, rtol=1e-3)


def test_fp8_roundtrip():
    x = randn((300,), "float32", 79, 8.0)
    args = run("fp8_roundtrip", {0: x})
    e5 = x.to(torch.float8_e5m2)
    assert torch.equal(args[1].view(torch.uint8), e5.view(torch.uint8))
    assert torch.equal(args[2].view(torch.uint8), x.clamp(-448, 448).to(torch.float8_e4m3fn).view(torch.uint8))
    assert torch.equal(args[3], e5.float())


def test_dtype_ladder():
    x = randn((300,), "bfloat16", 80, 300.0)
    args = run("dtype_ladder", {0: x})
    assert torch.equal(args[1], x.half())
    xi = x.float().trunc().to(torch.int16)
    assert torch.equal(args[2], xi)
    assert torch.equal(args[3], (xi.int() & 255).to(torch.uint8))


def test_every_program_has_a_gpu_test():
    import sys

    tested = {n for n in PROGRAMS if any(n in name for name in dir(sys.modules[__name__]) if name.startswith("test_"))}
    tested |= {"mm_divmod_grid", "mm_grid_nm", *SWIGLU_VARIANTS}  # parametrized
    runnable = {n for n, p in PROGRAMS.items() if p.path != "error"}  # (the others: test_user_sweep3_compile.py)
    assert tested >= runnable, sorted(runnable - tested)
