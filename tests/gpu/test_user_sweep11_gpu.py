"""The eleventh user sweep on the GPU: every program of ``tileorch.testing.user_programs11`` (dot programs
as users write them) runs through ``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start
NaN / a sentinel inside a larger buffer whose tail must stay unwritten) against an independent torch
reference in fp64, and the path each took (GEMM tier, chained tier or SIMT) is the one its table entry
names.  ``TILEORCH_QUICK_GPU=1`` runs the :data:`QUICK` subset (what this sweep fixed, and the chains).
Skipped without a GPU; needs torch and cuda-tile.
Run: ``python -m pytest -q tests/gpu/test_user_sweep11_gpu.py``."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402

import tileorch.cutile  # noqa: E402, F401
from test_user_sweep_gpu import _gemm_rel, _unwritten, close, launch_checked, randn, random_input  # noqa: E402

from tileorch.testing.user_programs11 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there

QUICK = {"mm_splitk_bias_first_split", "mm_residual_rmsnorm_bf16", "mm_persistent_2d_grid_linearised",
         "mm_bf16_a_f32_b_cast_in_loop", "mm_at_permute_bt_transpose", "syrk_upper_tiles", "mm_early_return_runtime_m",
         "bmm_4d_head_scale_gather", "mm_fp8_a_widened_to_f16", "mm_f16_quantised_to_e4m3_in_loop",
         "attn_bwd_dv_recompute", "attn_gemma2_softcap_window_gqa", "attn_alibi_array_causal_gqa_bf16",
         "xattn_ragged_dv64_bf16", "mlp_bias_gelu_bias_bf16", "bsmm_skip_zero_blocks", "attn_residual_if_flag"}
LOG2E = 1.4426950408889634


_in = random_input  # argument i of a program, random, by its spec


def _d(x):
    return x.double()


def _go(name, inputs, **overrides):
    return launch_checked(name, inputs, QUICK, **overrides)


# ----------------------------------------------------------------------------------------------- GEMM tier


@pytest.mark.parametrize("name", ["mm_persistent_2d_grid_linearised", "mm_two_k_tiles_per_iteration",
                                  "mm_even_odd_accumulators"])
def test_plain_products(name):
    a, b = _in(name, 0, 1), _in(name, 1, 2)
    args = _go(name, {0: a, 1: b})
    _gemm_rel(args[2], _d(a) @ _d(b))


def test_a_permuted_b_transposed_bf16():
    name = "mm_at_permute_bt_transpose"
    at, bt = _in(name, 0, 3), _in(name, 1, 4)
    args = _go(name, {0: at, 1: bt})
    _gemm_rel(args[2], _d(at).T @ _d(bt).T)


def test_gram_and_syrk_from_one_array():
    a = _in("gram_at_a_one_array", 0, 5)
    _gemm_rel(_go("gram_at_a_one_array", {0: a})[1], _d(a).T @ _d(a), 1e-4)
    c = _go("syrk_upper_tiles", {0: a})[1]
    ref = _d(a) @ _d(a).T
    _gemm_rel(torch.cat([c[:128], c[128:, 128:]], 1), torch.cat([ref[:128], ref[128:, 128:]], 1), 1e-4)
    assert _unwritten(c[128:, :128]).all()


def test_4d_batch_head_scale():
    name = "bmm_4d_head_scale_gather"
    a, b = _in(name, 0, 6), _in(name, 1, 7)
    s = torch.tensor([0.5, 2.0], device="cuda")
    args = _go(name, {0: a, 1: b, 2: s})
    _gemm_rel(args[3], (_d(a) @ _d(b)) * _d(s)[None, :, None, None])


def test_split_k_bias_by_split_zero():
    name = "mm_splitk_bias_first_split"
    a, b, bias = _in(name, 0, 8), _in(name, 1, 9), randn((128,), "float32", 10)
    c0 = torch.zeros((256, 128), device="cuda")
    args = _go(name, {0: a, 1: b, 2: bias, 3: c0})
    close(args[3], _d(a) @ _d(b) + _d(bias), 2e-3, 1e-4)


def test_split_k_runtime_chunk():
    name = "mm_splitk_runtime_chunk"
    a, b = _in(name, 0, 11), _in(name, 1, 12)
    args = _go(name, {0: a, 1: b, 2: torch.zeros((256, 128), device="cuda")})
    close(args[2], _d(a) @ _d(b), 2e-3, 1e-4)


@pytest.mark.parametrize("name", ["mm_residual_rmsnorm_bf16", "mm_residual_rmsnorm_f16"])
def test_residual_rmsnorm(name):
    x, w, r, g = _in(name, 0, 13), _in(name, 1, 14, 0.2), _in(name, 2, 15), _in(name, 3, 16)
    args = _go(name, {0: x, 1: w, 2: r, 3: g})
    h = _d(x) @ _d(w) + _d(r)
    _gemm_rel(args[5], h)
    _gemm_rel(args[4], h * torch.rsqrt((h * h).mean(1, keepdim=True) + 1e-6) * _d(g))


def test_bias_by_row_and_by_column():
    name = "mm_bias_row_and_col"
    a, b, r, c = _in(name, 0, 17), _in(name, 1, 18), randn((256,), "float32", 19), randn((128,), "float32", 20)
    args = _go(name, {0: a, 1: b, 2: r, 3: c})
    _gemm_rel(args[4], _d(a) @ _d(b) + _d(r)[:, None] + _d(c)[None, :])


def test_alpha_beta_from_arrays():
    name = "mm_alpha_beta_from_arrays"
    a, b, c = _in(name, 0, 21), _in(name, 1, 22), _in(name, 2, 23)
    alpha, beta = torch.tensor([1.5], device="cuda"), torch.tensor([-0.25], device="cuda")
    args = _go(name, {0: a, 1: b, 2: c, 3: alpha, 4: beta})
    close(args[5], 1.5 * (_d(a) @ _d(b)) - 0.25 * _d(c), 2e-3, 1e-4)


def test_sigmoid_gate_tile():
    name = "mm_sigmoid_gate_tile"
    a, b, g = _in(name, 0, 24), _in(name, 1, 25), _in(name, 2, 26, 2.0)
    args = _go(name, {0: a, 1: b, 2: g})
    _gemm_rel(args[3], (_d(a) @ _d(b)) * torch.sigmoid(_d(g)))


def test_rows_masked_by_runtime_count():
    name = "mm_rows_masked_by_runtime_count"
    a, b = _in(name, 0, 27), _in(name, 1, 28)
    args = _go(name, {0: a, 1: b})
    ref = _d(a) @ _d(b)
    ref[200:] = 0
    _gemm_rel(args[2], ref)


@pytest.mark.parametrize("name", ["mm_bf16_a_f32_b_cast_in_loop", "mm_f16_a_f32_b_cast_in_loop"])
def test_f32_weight_converted_in_the_loop(name):
    a, b = _in(name, 0, 29), _in(name, 1, 30)
    args = _go(name, {0: a, 1: b})
    _gemm_rel(args[2], _d(a) @ _d(b.to(a.dtype)))


def test_fp8_activation_widened_to_f16():
    name = "mm_fp8_a_widened_to_f16"
    a, b = _in(name, 0, 31), _in(name, 1, 32)
    args = _go(name, {0: a, 1: b})
    _gemm_rel(args[2], _d(a.float()) @ _d(b))


def test_f16_quantised_to_e4m3_in_loop():
    name = "mm_f16_quantised_to_e4m3_in_loop"
    a, b = _in(name, 0, 33, 2.0), _in(name, 1, 34, 2.0)
    args = _go(name, {0: a, 1: b})
    ref = _d(a.to(torch.float8_e4m3fn).float()) @ _d(b.to(torch.float8_e4m3fn).float())
    close(args[2], ref, 1e-2, 1e-4)


def test_int8_range_step_tk():
    name = "mm_int8_range_step_tk"
    a, b = _in(name, 0, 35), _in(name, 1, 36)
    args = _go(name, {0: a, 1: b})
    # (the exact integer reference on the CPU: CUDA has no int64 matmul -- "addmm_cuda" not implemented for 'Long')
    assert torch.equal(args[2].long().cpu(), a.long().cpu() @ b.long().cpu())


def test_early_return_past_runtime_m():
    name = "mm_early_return_runtime_m"
    a, b = _in(name, 0, 37), _in(name, 1, 38)
    args = _go(name, {0: a, 1: b})
    _gemm_rel(args[2][:128], (_d(a) @ _d(b))[:128])
    assert _unwritten(args[2][128:]).all()  # M = 100: the second row tile's programs return


# ----------------------------------------------------------------------------------------------- chained tier


def _softmax(s):
    return torch.softmax(s, -1)


def test_mlp_bias_gelu_bias():
    name = "mlp_bias_gelu_bias_bf16"
    x, w1, b1, w2, b2 = (_in(name, i, 40 + i, 0.3) for i in range(5))
    args = _go(name, {0: x, 1: w1, 2: b1, 3: w2, 4: b2})
    z = _d(x) @ _d(w1) + _d(b1)
    act = (0.5 * z * (1 + torch.tanh(0.7978845608028654 * (z + 0.044715 * z ** 3)))).to(torch.bfloat16)
    _gemm_rel(args[5], _d(act) @ _d(w2) + _d(b2), 2e-2)


def test_attention_backward_dv():
    name = "attn_bwd_dv_recompute"
    q, k, do = _in(name, 0, 46, 1.0), _in(name, 1, 47, 1.0), _in(name, 2, 48, 1.0)
    s = (_d(q) @ _d(k).transpose(1, 2)) * (0.125 * LOG2E)
    lse = (s.max(-1).values + torch.log2(torch.exp2(s - s.max(-1, keepdim=True).values).sum(-1))).float()
    args = _go(name, {0: q, 1: k, 2: do, 3: lse})
    p = torch.exp2(s - _d(lse)[..., None])
    _gemm_rel(args[4], p.transpose(1, 2) @ _d(do), 2e-2)


def test_gemma2_softcap_window_gqa():
    name = "attn_gemma2_softcap_window_gqa"
    q, k, v = _in(name, 0, 49, 1.0), _in(name, 1, 50, 3.0), _in(name, 2, 51, 1.0)
    args = _go(name, {0: q, 1: k, 2: v})
    kk, vv = _d(k).repeat_interleave(2, 1), _d(v).repeat_interleave(2, 1)
    s = 50.0 * torch.tanh((_d(q) @ kk.transpose(-1, -2)) * 0.125 / 50.0)
    i, j = torch.arange(256, device="cuda")[:, None], torch.arange(256, device="cuda")[None, :]
    s = s.masked_fill(~((j <= i) & (j > i - 96)), -math.inf)
    _gemm_rel(args[3], _softmax(s) @ vv, 2e-2)


@pytest.mark.parametrize("name, scale", [("attn_fa1_normalised_each_step", 0.125),
                                         ("attn_k_transposed_by_3d_permute", 0.125)])
def test_plain_attention_spellings(name, scale):
    q, k, v = _in(name, 0, 52, 1.0), _in(name, 1, 53, 1.0), _in(name, 2, 54, 1.0)
    args = _go(name, {0: q, 1: k, 2: v})
    _gemm_rel(args[3], _softmax((_d(q) @ _d(k).transpose(1, 2)) * scale) @ _d(v), 2e-2)


def test_attention_epilogue_under_flag():
    name = "attn_residual_if_flag"
    q, k, v = _in(name, 0, 92, 1.0), _in(name, 1, 93, 1.0), _in(name, 2, 94, 1.0)
    args = _go(name, {0: q, 1: k, 2: v})  # add_q = 1
    _gemm_rel(args[3], _softmax((_d(q) @ _d(k).transpose(1, 2)) * 0.125) @ _d(v) + _d(q), 2e-2)


def test_cross_attention_ragged_dv64():
    name = "xattn_ragged_dv64_bf16"
    q, k, v = _in(name, 0, 55, 1.0), _in(name, 1, 56, 1.0), _in(name, 2, 57, 1.0)
    args = _go(name, {0: q, 1: k, 2: v})
    _gemm_rel(args[3], _softmax((_d(q) @ _d(k).transpose(1, 2)) / math.sqrt(128)) @ _d(v), 2e-2)


def test_alibi_from_array_causal_gqa():
    name = "attn_alibi_array_causal_gqa_bf16"
    q, k, v = _in(name, 0, 58, 1.0), _in(name, 1, 59, 1.0), _in(name, 2, 60, 1.0)
    slopes = torch.tensor([0.5, 0.25, 0.125, 0.0625], device="cuda")
    args = _go(name, {0: q, 1: k, 2: v, 3: slopes})
    qh = _d(q).permute(0, 2, 1, 3)  # [B, H, S, D]
    kh, vh = (_d(x).permute(0, 2, 1, 3).repeat_interleave(2, 1) for x in (k, v))
    i, j = torch.arange(256, device="cuda")[:, None], torch.arange(256, device="cuda")[None, :]
    s = (qh @ kh.transpose(-1, -2)) * 0.125 + _d(slopes)[None, :, None, None] * (j - i)
    o = _softmax(s.masked_fill(j > i, -math.inf)) @ vh
    _gemm_rel(args[4], o.permute(0, 2, 1, 3), 2e-2)


def test_expert_weight_by_scalar():
    """B a view of W at the scalar e (W[1]; tests/gpu/test_operand_views_gpu.py: every e, ragged)."""
    name = "mm_expert_weight_by_scalar"
    x, w = _in(name, 0, 61), _in(name, 1, 62)
    _gemm_rel(_go(name, {0: x, 1: w})[2], _d(x) @ _d(w[1]))


# ----------------------------------------------------------------------------------------------- SIMT fallbacks


def test_store_into_column_slice():
    name = "mm_store_into_column_slice"
    a, b = _in(name, 0, 63), _in(name, 1, 64)
    out = _go(name, {0: a, 1: b})[2]
    _gemm_rel(out[:, 128:256], _d(a) @ _d(b))
    assert _unwritten(out[:, :128]).all() and _unwritten(out[:, 256:]).all()


def test_batched_persistent_user_loop():
    name = "bmm_persistent_user_loop"
    a, b = _in(name, 0, 65), _in(name, 1, 66)
    _gemm_rel(_go(name, {0: a, 1: b})[2], _d(a) @ _d(b))


def test_moe_offsets_scan():
    name = "moe_group_by_offsets_scan"
    x, w = _in(name, 0, 67), _in(name, 1, 68, 0.2)
    offs = torch.tensor([0, 128, 128, 384], device="cuda", dtype=torch.int32)
    y = _go(name, {0: x, 1: w, 2: offs})[3]
    _gemm_rel(y, torch.cat([_d(x[:128]) @ _d(w[0]), _d(x[128:]) @ _d(w[2])]))


def test_equal_groups_by_bid2():
    name = "grouped_equal_groups_bid2"
    x, w = _in(name, 0, 69), _in(name, 1, 70, 0.2)
    y = _go(name, {0: x, 1: w})[2]
    _gemm_rel(y, torch.cat([_d(x[:256]) @ _d(w[0]), _d(x[256:]) @ _d(w[1])]))


def test_f32_operands_to_f32_accuracy():
    name = "mm_f32_operands_as_is"
    a, b = _in(name, 0, 71), _in(name, 1, 72)
    _gemm_rel(_go(name, {0: a, 1: b})[2], _d(a) @ _d(b), 1e-5)


def test_int8_zero_points():
    name = "mm_int8_zero_points"
    a, b = _in(name, 0, 73), _in(name, 1, 74)
    c = _go(name, {0: a, 1: b})[2]
    assert torch.equal(c.long().cpu(), (a.long().cpu() - 3) @ (b.long().cpu() + 2))  # (CPU: no int64 matmul on CUDA)


def test_triangular_and_banded_k_ranges():
    name = "trmm_lower_triangular"
    lower, b = torch.tril(_in(name, 0, 75)), _in(name, 1, 76)
    _gemm_rel(_go(name, {0: lower, 1: b})[2], _d(lower) @ _d(b))
    name = "mm_banded_k_range"
    a, b = _in(name, 0, 77), _in(name, 1, 78)
    blk = torch.arange(4, device="cuda")
    band = ((blk[:, None] - blk[None, :]).abs() <= 1).repeat_interleave(128, 0).repeat_interleave(128, 1)
    _gemm_rel(_go(name, {0: a, 1: b})[2], (_d(a) * band) @ _d(b))


def test_block_sparse_skip():
    name = "bsmm_skip_zero_blocks"
    a, b = _in(name, 0, 79), _in(name, 1, 80)
    flags = torch.tensor([[1, 0, 0, 1], [0, 1, 1, 0]], device="cuda", dtype=torch.int32)
    mask = flags.repeat_interleave(128, 0).repeat_interleave(64, 1)
    _gemm_rel(_go(name, {0: a, 1: b, 2: flags})[3], (_d(a) * mask) @ _d(b))


def test_qkv_by_branch():
    name = "qkv_weight_by_branch"
    x = _in(name, 0, 81)
    ws = [_in(name, i, 82 + i, 0.2) for i in (1, 2, 3)]
    args = _go(name, {0: x, 1: ws[0], 2: ws[1], 3: ws[2]})
    for i in range(3):
        _gemm_rel(args[4 + i], _d(x) @ _d(ws[i]))


def test_swiglu_gate_transposed():
    name = "swiglu_gate_transposed_up_plain"
    x, wgt, wu = _in(name, 0, 85), _in(name, 1, 86, 0.2), _in(name, 2, 87, 0.2)
    g, u = _d(x) @ _d(wgt).T, _d(x) @ _d(wu)
    _gemm_rel(_go(name, {0: x, 1: wgt, 2: wu})[3], torch.nn.functional.silu(g) * u)


def test_t5_bucket_bias():
    name = "attn_t5_bucket_bias_gather"
    q, k, v = _in(name, 0, 88, 0.3), _in(name, 1, 89, 0.3), _in(name, 2, 90, 1.0)
    table = randn((2, 32), "float32", 91)
    o = _go(name, {0: q, 1: k, 2: v, 3: table})[4]
    i, j = torch.arange(128, device="cuda")[:, None], torch.arange(128, device="cuda")[None, :]
    rel = j - i
    bucket = (rel > 0).long() * 16 + rel.abs().clamp(max=15)
    bias = _d(table)[torch.arange(2, device="cuda") % 2][:, bucket]  # [BH, S, S], head = bh % 2
    _gemm_rel(o, _softmax(_d(q) @ _d(k).transpose(1, 2) + bias) @ _d(v), 2e-2)
