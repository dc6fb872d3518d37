"""The eighth user sweep on the GPU: every program of ``tileorch.testing.user_programs8`` (the thin
corners of the cuTile API, dots written unusually) that compiles runs through
``tileorch.cutile.launch`` (test_user_sweep_gpu.run: outputs start NaN / a sentinel inside a larger
buffer whose tail must stay unwritten) against an independent torch reference in fp32 / fp64, and
the path each took (GEMM tier, chained tier, SIMT) is the one the CPU tests expect.  Skipped
without a GPU; needs torch and cuda-tile.  Run: ``python -m pytest -q tests/gpu/test_user_sweep8_gpu.py``."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import test_user_sweep_gpu as sweep  # noqa: E402

import tileorch.cutile  # noqa: E402, F401
from test_user_sweep_gpu import _gemm_rel, check_path, close, randn, run  # noqa: E402

from tileorch.testing.user_programs8 import PROGRAMS  # noqa: E402

sweep.PROGRAMS.update(PROGRAMS)  # run() looks programs up there
sweep.DT.update({"uint16": torch.uint16, "uint64": torch.uint64, "float8_e5m2": torch.float8_e5m2})


_check_path = check_path  # test_user_sweep_gpu's: ran on its table entry's path


def _ints(lo, hi, shape, seed, dtype=torch.int32):
    return torch.randint(lo, hi, shape, device="cuda", generator=sweep._gen(seed), dtype=dtype)


def _eq(got, ref):
    assert torch.equal(got.cpu(), ref.cpu()), (got, ref)


# ----------------------------------------------------------------------------------------------- rounding and integers


def test_floor_ceil_trunc_rows():
    x = randn((5, 100), "float32", 1, 4.0)
    x[0, :6] = torch.tensor([-2.5, -0.5, 0.5, 2.5, -3.0, 3.0])
    args = run("floor_ceil_trunc_rows", {0: x})
    _eq(args[1], torch.floor(x))
    _eq(args[2], torch.ceil(x))
    _eq(args[3], torch.trunc(x).int())
    _check_path("floor_ceil_trunc_rows", args)


def test_int_floordiv_mod_tiles():
    x = _ints(-1000, 1000, (256,), 2)
    y = _ints(1, 50, (256,), 3) * (_ints(0, 2, (256,), 4) * 2 - 1)
    args = run("int_floordiv_mod_tiles", {0: x, 1: y})
    _eq(args[2], torch.div(x, y, rounding_mode="floor"))
    _eq(args[3], torch.remainder(x, y))
    _eq(args[4], torch.div(x, -3, rounding_mode="floor"))
    _check_path("int_floordiv_mod_tiles", args)


def test_int64_divmod_scalar_tile():
    x = _ints(-2**40, 2**40, (256,), 5, torch.int64)
    args = run("int64_divmod_scalar_tile", {0: x})
    _eq(args[1], torch.div(x, -7, rounding_mode="floor"))
    _eq(args[2], torch.remainder(x, -7))


def test_uint16_wrapping_ops():
    xi, yi = _ints(0, 2**16, (256,), 6, torch.int64), _ints(0, 2**16, (256,), 7, torch.int64)
    args = run("uint16_wrapping_ops", {0: xi.to(torch.uint16), 1: yi.to(torch.uint16)})
    _eq(args[2].to(torch.int64), (xi + yi) % 65536)
    _eq(args[3].to(torch.int64), (xi * yi) % 65536)
    _eq(args[4].to(torch.int64), xi >> 3)


def test_uint64_xorshift_hash():
    m = (1 << 64) - 1
    ref = []
    for v in range(12345, 12345 + 512):
        z = (v * 0x9E3779B97F4A7C15) & m
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        z ^= z >> 31
        ref.append((z >> 40) / 16777216.0)
    args = run("uint64_xorshift_hash", {})
    close(args[0], torch.tensor(ref, device="cuda"), 0.0)


def test_compare_funcs_to_bool():
    x = randn((300,), "float16", 8)
    y = x.clone()
    y[::3] = randn((100,), "float16", 9)
    args = run("compare_funcs_to_bool", {0: x, 1: y})
    for i, ref in ((2, x < y), (3, x <= y), (4, x == y), (5, x != y)):
        _eq(args[i], ref)


def test_bool_tile_logic_to_int():
    a = torch.rand((16, 64), device="cuda", generator=sweep._gen(10)) < 0.5
    b = torch.rand((16, 64), device="cuda", generator=sweep._gen(11)) < 0.3
    args = run("bool_tile_logic_to_int", {0: a, 1: b})
    ref = torch.stack([(a & b).sum(1), (a | b).sum(1), (a ^ b).sum(1), (~(a | b)).sum(1)], 1).int()
    _eq(args[2], ref)


def test_astype_rounding_modes():
    x = randn((256,), "float32", 12, 100.0)
    args = run("astype_rounding_modes", {0: x})
    _eq(args[1], x.half())
    _eq(args[2], x.bfloat16())


def _toward_zero(x, dtype):
    """``x`` (f32) converted to ``dtype`` toward zero: the nearest conversion (in float64 from f32:
    exact) stepped one ulp back where it grew the magnitude (inf: back to the largest finite)."""
    rn = x.to(dtype)
    grew = rn.double().abs() > x.double().abs()
    return torch.where(grew, torch.nextafter(rn, torch.zeros_like(rn)), rn)


def test_astype_toward_zero():
    x = randn((256,), "float32", 87, 100.0)
    x[:4] = torch.tensor([1e6, -1e6, 65519.0, -3.0e-8])
    args = run("astype_toward_zero", {0: x})
    _eq(args[1], _toward_zero(x, torch.float16))
    _eq(args[2], _toward_zero(x, torch.bfloat16))
    _check_path("astype_toward_zero", args)


def test_f16_abs_by_bitcast():
    x = randn((256,), "float16", 13)
    args = run("f16_abs_by_bitcast", {0: x})
    _eq(args[1], x.abs())
    _eq(args[2], x.view(torch.uint16))


def test_negative_sub_bitwise_or():
    x, y = randn((128,), "float32", 14), randn((128,), "float32", 15)
    i, j = _ints(-2**31, 2**31 - 1, (128,), 16), _ints(-2**31, 2**31 - 1, (128,), 17)
    args = run("negative_sub_bitwise_or", {0: x, 1: y, 2: i, 3: j})
    _eq(args[4], -x)
    _eq(args[5], x - y)  # normal values: the flush_to_zero the program asks for changes nothing
    _eq(args[6], i | j)


def test_hyperbolic_tan_rows():
    x = randn((3, 200), "float32", 18, 0.4)
    args = run("hyperbolic_tan_rows", {0: x})
    close(args[1], torch.tan(x.double()) + torch.tanh(x.double()), 2e-6, 1e-5)


# ----------------------------------------------------------------------------------------------- constructors, constants, grids


def test_full_ones_arange_dtypes():
    args = run("full_ones_arange_dtypes", {})
    _eq(args[0], torch.full((128,), -5, dtype=torch.int8, device="cuda"))
    _eq(args[1], torch.full((128,), 0.375, dtype=torch.float16, device="cuda"))
    _eq(args[2], torch.ones(128, dtype=torch.bool, device="cuda"))
    _eq(args[3], torch.arange(128, device="cuda").div(64, rounding_mode="floor").int())
    ar = torch.arange(64, device="cuda") * 3 + 5
    _eq(args[4], torch.cat([ar, ar + 1000]).int())


def test_constant_float_bool_params():
    x = randn((256,), "float32", 19)
    args = run("constant_float_bool_params", {0: x})
    _eq(args[1], torch.clamp_min(x * -1.5, 0.0))


def test_grid3_num_blocks_ids():
    args = run("grid3_num_blocks_ids", {})
    z, y, x = torch.meshgrid(torch.arange(2), torch.arange(3), torch.arange(4), indexing="ij")
    _eq(args[0], ((z * 3 + y) * 4 + x).repeat_interleave(32, dim=2).int())


def test_load_at_item_offsets():
    x = randn((512,), "float32", 20)
    off = torch.tensor([5, 0, 7], device="cuda", dtype=torch.int32)
    args = run("load_at_item_offsets", {0: x, 1: off})
    _eq(args[2], torch.cat([x[o * 64:(o + 1) * 64] for o in (5, 0, 7)]))


def test_loads_without_bounds_checks():
    x = randn((64, 128), "float16", 21)
    args = run("loads_without_bounds_checks", {0: x})
    _eq(args[1], (x.float() * 2 + 1).half())


# ----------------------------------------------------------------------------------------------- padding modes


def test_nan_padding_counts_valid():
    x = randn((4, 300), "float32", 22)
    args = run("nan_padding_counts_valid", {0: x})
    _eq(args[1], torch.full((4,), 300, dtype=torch.int32, device="cuda"))
    close(args[2], x.double().sum(1), 1e-4, 1e-5)


def test_inf_paddings_min_max():
    x = (randn((4, 70), "float32", 23) + 100.0).bfloat16()
    args = run("inf_paddings_min_max", {0: x})
    _eq(args[1], x.float().min(1).values)
    x2 = -x
    args = run("inf_paddings_min_max", {0: x2})
    _eq(args[2], x2.float().max(1).values)


def test_neg_zero_padding_sign():
    x = randn((100,), "float32", 24).abs() + 0.5
    args = run("neg_zero_padding_sign", {0: x})
    _eq(args[1], torch.cat([torch.ones(100), -torch.ones(28)]).cuda())


def test_nan_propagating_max_min():
    x = randn((4, 64), "float32", 25)
    x[1, 3] = float("nan")
    x[2, 40] = float("nan")
    args = run("nan_propagating_max_min", {0: x})
    xn = x.cpu().numpy()
    _eq(args[1].cpu(), torch.from_numpy(np.nanmax(xn, 1)))
    assert torch.equal(args[3].isnan().cpu(), torch.tensor([False, True, True, False]))
    a, b = xn[:, :32], xn[:, 32:]
    _eq(args[2].cpu(), torch.from_numpy(np.fmin(a, b)))
    np.testing.assert_array_equal(args[4].cpu().numpy(), np.minimum(a, b))


# ----------------------------------------------------------------------------------------------- gather / scatter


def test_gather_padding_value_mask():
    x = randn((100,), "float32", 26)
    idx = _ints(0, 130, (128,), 27)
    args = run("gather_padding_value_mask", {0: x, 1: idx})
    even = (torch.arange(128, device="cuda") % 64) % 2 == 0
    ref = torch.where(even & (idx < 100), x[idx.clamp_max(99).long()], torch.tensor(-1.0, device="cuda"))
    _eq(args[2], ref)


def test_scatter_2d_mask_no_check():
    x = randn((32, 16), "float32", 28)
    rows = torch.randperm(32, device="cuda", generator=sweep._gen(29)).int()
    rows[::5] = -1
    y = torch.full((32, 16), float("nan"), device="cuda")
    args = run("scatter_2d_mask_no_check", {0: x, 1: rows, 2: y})
    ref = torch.full((32, 16), float("nan"), device="cuda")
    keep = rows >= 0
    ref[rows[keep].long()] = x[keep]
    torch.testing.assert_close(args[2], ref, equal_nan=True, atol=0, rtol=0)


def test_gather_3d_indices():
    x = randn((64, 8, 4), "float16", 30)
    args = run("gather_3d_indices", {0: x})
    _eq(args[1], x.permute(2, 1, 0).contiguous())


def test_scatter_scalar_value():
    idx = torch.randperm(300, device="cuda", generator=sweep._gen(31))[:128].int()
    y = torch.zeros(300, dtype=torch.int32, device="cuda")
    args = run("scatter_scalar_value", {0: y, 1: idx})
    ref = torch.zeros(300, dtype=torch.int32, device="cuda")
    ref[idx.long()] = 7
    _eq(args[0], ref)


# ----------------------------------------------------------------------------------------------- shapes


def test_cat_each_axis_3d():
    a, b = randn((2, 4, 8), "float32", 32), randn((2, 4, 8), "float32", 33)
    args = run("cat_each_axis_3d", {0: a, 1: b})
    _eq(args[2], torch.cat([a, b], 0))
    _eq(args[3], torch.cat([a, b], 1))
    _eq(args[4], torch.cat([b, a], 2))


def test_permute_rank3_rank4():
    x3, x4 = randn((2, 4, 8), "float16", 34), randn((2, 4, 2, 8), "float32", 35)
    args = run("permute_rank3_rank4", {0: x3, 1: x4})
    _eq(args[2], x3.permute(2, 0, 1))
    _eq(args[3], x4.permute(0, 2, 3, 1))


def test_reduce_axis0_of_3d():
    x = randn((8, 16, 16), "float32", 36)
    args = run("reduce_axis0_of_3d", {0: x})
    close(args[1], x.double().view(8, 2, 8, 16).sum(0), 1e-5, 1e-5)
    _eq(args[2], torch.cat([x[:, :8].amax(1), x[:, 8:].amax(1)], 1))
    _eq(args[3], x.argmin(2).int())


def test_scans_each_axis_3d():
    x = randn((4, 8, 16), "float32", 37)
    args = run("scans_each_axis_3d", {0: x})
    xd = x.double()
    close(args[1], xd.cumsum(0), 1e-5, 1e-5)
    close(args[2], xd.flip(1).cumsum(1).flip(1), 1e-5, 1e-5)
    close(args[3], xd.cumsum(2), 1e-5, 1e-5)
    close(args[4], xd.cumprod(0), 1e-5, 1e-5)


def test_int_cumsum_axis0_2d():
    x = _ints(-100, 100, (32, 64), 38)
    args = run("int_cumsum_axis0_2d", {0: x})
    _eq(args[1], x.cumsum(0).int())


def test_width_one_tiles():
    x, s = randn((64, 64), "float32", 39), randn((64, 1), "float32", 40)
    args = run("width_one_tiles", {0: x, 1: s})
    close(args[2], (x.double() * s.double() * s[0, 0].double()).sum(1, keepdim=True), 1e-5, 1e-5)


def test_expand_dims_broadcast_to_3d():
    x, v = randn((32, 64), "float32", 41), randn((64,), "float32", 42)
    args = run("expand_dims_broadcast_to_3d", {0: x, 1: v})
    close(args[2], 2 * x.double() * v.double(), 1e-6, 1e-6)


def test_ragged_odd_2d_copy_scale():
    x = randn((37, 53), "float32", 43)
    args = run("ragged_odd_2d_copy_scale", {0: x})
    close(args[1], (x.double() * 3 - 1).half(), 0, 1e-3)


def test_tiled_view_atomic_store_add():
    x, acc0 = randn((6, 64), "float32", 82), randn((2, 64), "float32", 83)
    args = run("tiled_view_atomic_store_add", {0: x, 1: acc0.clone()})
    close(args[1], acc0.double() + torch.stack([x[0::2].double().sum(0), x[1::2].double().sum(0)]), 1e-5, 1e-6)


def test_advanced_index_slices():
    x = randn((40, 80), "float32", 84)
    rows = _ints(0, 45, (32,), 85)
    args = run("advanced_index_slices", {0: x, 1: rows})
    xp = torch.cat([x, torch.zeros((5, 80), device="cuda")])
    _eq(args[2], xp[rows.long()][:, 3:67] * 2)


def test_sum_all_keepdims_3d():
    x = randn((4, 8, 16), "float32", 86)
    args = run("sum_all_keepdims_3d", {0: x})
    close(args[1], x.double().sum().view(1), 1e-4, 1e-5)
    _eq(args[2], x.amax(dim=(0, 2), keepdim=True))


# ----------------------------------------------------------------------------------------------- GEMMs


GEMMS = ["mm_iadd_matmul_operator", "mm_while_k_loop", "mm_k_loop_hints", "mm_b_without_tma",
         "mm_num_blocks_grid_stride", "mm_k_range_reversed_step", "mm_extract_halves_of_a"]


@pytest.mark.parametrize("name", GEMMS)
def test_f16_gemm_spellings(name):
    a, b = randn((256, 256), "float16", 44, 0.5), randn((256, 128), "float16", 45, 0.5)
    args = run(name, {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path(name, args)


def test_mm_f16_out_toward_zero():
    a, b = randn((256, 256), "float16", 88, 0.5), randn((256, 128), "float16", 89, 0.5)
    args = run("mm_f16_out_toward_zero", {0: a, 1: b})
    ref = a.double() @ b.double()
    _gemm_rel(args[2], ref)
    assert (args[2].double().abs() <= ref.abs() + 1e-4).float().mean() > 0.999  # rounded toward zero
    _check_path("mm_f16_out_toward_zero", args)


def test_mm_neg_zero_padded_a():
    a, b = randn((200, 256), "float16", 90, 0.5), randn((256, 128), "float16", 91, 0.5)
    args = run("mm_neg_zero_padded_a", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_neg_zero_padded_a", args)


def test_mm_single_tile_matmul_no_acc():
    a, b = randn((256, 64), "float16", 46, 0.5), randn((64, 128), "float16", 47, 0.5)
    args = run("mm_single_tile_matmul_no_acc", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_single_tile_matmul_no_acc", args)


def test_mm_store_order_transposed():
    a, b = randn((256, 256), "float16", 48, 0.5), randn((256, 128), "float16", 49, 0.5)
    args = run("mm_store_order_transposed", {0: a, 1: b})
    _gemm_rel(args[2], (a.double() @ b.double()).T)
    _check_path("mm_store_order_transposed", args)


def test_mm_heads_3d_epilogue():
    x, w, bias = randn((256, 128), "float16", 50, 0.5), randn((128, 128), "float16", 51, 0.5), randn((4, 32), "float32", 52)
    args = run("mm_heads_3d_epilogue", {0: x, 1: w, 2: bias})
    _gemm_rel(args[3], (x.double() @ w.double()).view(256, 4, 32) + bias.double())
    _check_path("mm_heads_3d_epilogue", args)


def test_mm_4d_output_bshd():
    x, w = randn((2, 128, 128), "float16", 53, 0.5), randn((2, 128, 64), "float16", 54, 0.5)
    args = run("mm_4d_output_bshd", {0: x, 1: w})
    _gemm_rel(args[2], torch.einsum("bsk,hkd->bshd", x.double(), w.double()))
    _check_path("mm_4d_output_bshd", args)


def test_mm_constant_float_bool_epilogue():
    a, b = randn((256, 256), "float16", 55, 0.5), randn((256, 128), "float16", 56, 0.5)
    args = run("mm_constant_float_bool_epilogue", {0: a, 1: b})
    _gemm_rel(args[2], (a.double() @ b.double() * 0.5).clamp_min(0))
    _check_path("mm_constant_float_bool_epilogue", args)


def test_mm_grid3_batched():
    a, b = randn((3, 128, 128), "float16", 57, 0.5), randn((3, 128, 128), "float16", 58, 0.5)
    args = run("mm_grid3_batched", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_grid3_batched", args)


def test_mm_int8_requant_epilogue():
    a, b = _ints(-128, 128, (128, 256), 59, torch.int8), _ints(-128, 128, (256, 128), 60, torch.int8)
    rs = torch.rand(128, device="cuda", generator=sweep._gen(61)) * 1e-3
    cs = torch.rand(128, device="cuda", generator=sweep._gen(62)) * 1e-2
    args = run("mm_int8_requant_epilogue", {0: a, 1: b, 2: rs, 3: cs})
    acc = (a.long().cpu() @ b.long().cpu()).cuda()
    ref = torch.floor(acc.float() * rs[:, None] * cs[None, :] + 0.5).clamp(-128, 127)
    diff = (args[4].float() - ref).abs()
    assert diff.max() <= 1 and (diff == 0).float().mean() > 0.99
    _check_path("mm_int8_requant_epilogue", args)


def test_mm_fp8_e5m2_both():
    a = randn((128, 256), "float32", 63).to(torch.float8_e5m2)
    b = randn((256, 128), "float32", 64).to(torch.float8_e5m2)
    args = run("mm_fp8_e5m2_both", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_fp8_e5m2_both", args)


def test_mm_fp8_fast_acc():
    a = randn((128, 256), "float32", 65).to(torch.float8_e4m3fn)
    b = randn((256, 128), "float32", 66).to(torch.float8_e4m3fn)
    args = run("mm_fp8_fast_acc", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("mm_fp8_fast_acc", args)


def test_bmm_broadcast_b_in_tile():
    a, b = randn((4, 128, 128), "float16", 67, 0.5), randn((128, 64), "float16", 68, 0.5)
    args = run("bmm_broadcast_b_in_tile", {0: a, 1: b})
    _gemm_rel(args[2], a.double() @ b.double())
    _check_path("bmm_broadcast_b_in_tile", args)


def test_mm_bias_from_item():
    a, b = randn((256, 256), "float16", 69, 0.5), randn((256, 128), "float16", 70, 0.5)
    bias = torch.tensor([0.75], device="cuda")
    args = run("mm_bias_from_item", {0: a, 1: b, 2: bias})
    _gemm_rel(args[3], a.double() @ b.double() + 0.75)
    _check_path("mm_bias_from_item", args)


def test_mm_rowmax_colsum_outputs():
    a, b = randn((256, 256), "float16", 71, 0.5), randn((256, 128), "float16", 72, 0.5)
    args = run("mm_rowmax_colsum_outputs", {0: a, 1: b})
    c = a.double() @ b.double()
    _gemm_rel(args[2], c)
    close(args[3], c.view(256, 2, 64).amax(2), 2e-3, 1e-3)
    close(args[4], c.view(2, 128, 2, 64).sum(1).reshape(2, 128), 2e-2, 1e-3)
    _check_path("mm_rowmax_colsum_outputs", args)


def test_mm_bf16_where_mask_epilogue():
    a, b = randn((256, 256), "bfloat16", 73, 0.5), randn((256, 128), "bfloat16", 74, 0.5)
    m = torch.rand((256, 128), device="cuda", generator=sweep._gen(75)) < 0.7
    args = run("mm_bf16_where_mask_epilogue", {0: a, 1: b, 2: m})
    c = a.double() @ b.double()
    got = args[3]
    assert torch.equal(torch.isinf(got) & (got < 0), ~m)
    _gemm_rel(torch.where(m, got.double(), 0.0), torch.where(m, c, 0.0))
    _check_path("mm_bf16_where_mask_epilogue", args)


# ----------------------------------------------------------------------------------------------- chained dots


def test_mlp_chain_iadd_operator():
    x = randn((256, 64), "float16", 76, 0.5)
    w1, w2 = randn((64, 256), "float16", 77, 0.25), randn((256, 64), "float16", 78, 0.25)
    args = run("mlp_chain_iadd_operator", {0: x, 1: w1, 2: w2})
    h = (x.double() @ w1.double()).clamp_min(0).half()
    _gemm_rel(args[3], h.double() @ w2.double())
    _check_path("mlp_chain_iadd_operator", args)


def test_attn_plain_iadd_exp2():
    q, k, v = (randn((2, 256, 64), "float16", s) for s in (79, 80, 81))
    args = run("attn_plain_iadd_exp2", {0: q, 1: k, 2: v})
    ref = torch.softmax(q.double() @ k.double().transpose(1, 2) * 0.125, -1) @ v.double()
    close(args[3], ref, 3e-3, 1e-2)
    _check_path("attn_plain_iadd_exp2", args)
