"""GEMM host side on the CPU: configuration rules, scheduler params, Stream-K workspace and the
params record the kernel reads (everything before the driver calls)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tileorch.kernels.gemm.config import SMEM_LIMIT, GemmConfig, GemmConfigError
from tileorch.launchers.gemm_host import (check_problem, operand_rows, scheduler_params, staging_reasons,
                                          streamk_workspace_bytes)
from tileorch.kernels.gemm.build import descriptor_constant
from tileorch.kernels.gemm.ir import gemm_kernel_ir
from tileorch.schedulers.device_params import pack_device_params, record_bytes


@pytest.mark.parametrize("change, message", [
    ({"tile_m": 256}, "tile_m must be 128 or 64"),
    ({"tile_m": 64, "schedule": "streamk"}, "64-row tile"),
    ({"tile_n": 320}, "wgmma n <= 256"),
    ({"tile_k": 48}, "tile_k must be 64, 32 or 16"),
    ({"tile_k": 8}, "tile_k must be 64, 32 or 16"),
    ({"stages": 5}, f"sm_90 allows {SMEM_LIMIT}"),
    ({"stages": 1}, "one stage deadlocks"),
    ({"cluster_m": 4}, "cluster_m must be 1 or 2"),
    ({"schedule": "split"}, "schedule must be one of"),
    ({"dtype": "f32"}, "dtype must be one of"),
    ({"producer_regs": 44}, "multiple of 8"),
    # 56 + 2 x 232 = 520 > 3 x 168: a CTA of 384 threads starts each with at most 168 of the SM's 64 Ki
    ({"producer_regs": 56, "consumer_regs": 232}, "needs 520 registers .* starts with 504"),
    ({"b_major": "n", "tile_n": 192}, "64-column boxes"),
    ({"out_dtype": "f32"}, "epilogue='direct'"),
    ({"epilogue": "smem"}, "epilogue must be"),
    ({"dtype": "e4m3", "tile_k": 96}, "tile_k must be 128"),
    ({"dtype": "e4m3", "tile_k": 128, "b_major": "n"}, "K-major"),
    ({"dtype": "e5m2", "tile_k": 128, "a_major": "m"}, "K-major"),
    ({"a_major": "x"}, "a_major must be"),
    # int8 -> int32: K-major operands like fp8, i32 accumulators, an s32 output stored directly
    ({"dtype": "s8", "tile_k": 16}, "tile_k must be 128"),
    ({"dtype": "u8", "tile_k": 128, "b_major": "n"}, "u8 WGMMA reads both operands K-major"),
    ({"dtype": "s8", "tile_k": 128, "out_dtype": "s32"}, "an s32 output needs epilogue='direct'"),
    ({"out_dtype": "s32", "epilogue": "direct"}, "an s32 output needs integer"),
    ({"dtype": "s8", "tile_k": 128, "out_dtype": "s8"}, "an s8 output needs epilogue='direct'"),
    ({"b_dtype": "s8"}, "b_dtype"),
    ({"dtype": "s8", "tile_k": 128, "b_dtype": "e4m3"}, "b_dtype"),
    ({"scratch_bytes": 100}, "scratch_bytes must be a non-negative multiple of 16"),
    # a register A: a computed A (a_raw), K-major, whose raw K row is one swizzle span (32, 64 or 128 bytes)
    ({"a_regs": True}, r"a register A \(a_regs\) is a computed A \(a_raw\).*got a_raw ''"),
    ({"a_raw": "f16", "a_major": "m", "a_regs": True, "cluster_m": 1, "dtype": "f16"}, r"a register A .*m-major"),
    ({"a_raw": "f32", "a_regs": True, "cluster_m": 1, "dtype": "f16", "stages": 2}, r"a register A .*256-byte rows"),
    ({"stages": 4, "scratch_bytes": 1 << 14}, r"\+ 16384 scratch bytes\) need"),
])
def test_config_rules(change, message):
    with pytest.raises(GemmConfigError, match=message):
        replace(GemmConfig(), **change).check()


def test_an_s8_output_of_a_float_dot_converts_each_value():
    """An s8 C of a bf16 dot (session 26: was refused as needing integer inputs): the direct epilogue's
    fragment store converts each f32 value as cuTile's ``astype(int8)`` (``fptosi`` to i32, clamped to
    [-128, 127]) before storing its low byte."""
    from tileorch.dialects.atoms import StoreFragmentOp
    from tileorch.kernels.gemm.build import build_gemm_kernel
    from tileorch.transforms.store_fragment import lower_store_fragment

    cfg = replace(GemmConfig(), out_dtype="s8", epilogue="direct", cluster_m=1).check()
    stores = [o for o in build_gemm_kernel(cfg).walk() if isinstance(o, StoreFragmentOp)]
    assert stores
    for store in stores:
        names = [o.name for o in lower_store_fragment(store)]
        values = store.column_range()[1] // 8 * 4  # four values per 8-column group of the fragment
        assert (names.count("arith.fptosi"), names.count("arith.minsi"), names.count("arith.maxsi")) == (values,) * 3


def test_64_row_tile_with_64_byte_k_rows():
    """A 64 x 64 x 32 f16 tile: one consumer warp group (256 threads), stages of 4 + 4 KiB, K-major
    descriptors with the 64-byte swizzle (layout type 2, 8-row atoms 512 bytes apart), N-major chunks
    of 32 K rows x 128 bytes (4 KiB apart); the 128-row 64-deep tile keeps 128-byte everything."""
    cfg = GemmConfig(tile_m=64, tile_n=64, tile_k=32, cluster_m=1, dtype="f16", out_dtype="f32",
                     epilogue="direct").check()
    assert (cfg.threads, cfg.consumer_groups, cfg.stage_bytes, cfg.k_row_bytes, cfg.mn_chunk_bytes) == \
        (256, 1, 8192, 64, 4096)
    assert descriptor_constant(16, 512, 64) == (1 << 16) | (32 << 32) | (2 << 62)
    assert descriptor_constant(16, 1024) == (1 << 16) | (64 << 32) | (1 << 62)
    ir = gemm_kernel_ir(cfg)
    assert ir.count("nvvm.wgmma.mma_async") == 2 and ir.count("<m = 64, n = 64, k = 16>") == 2  # one warp group
    assert GemmConfig().k_row_bytes == 128 and GemmConfig().mn_chunk_bytes == 8192


def test_fp8_stage_is_the_same_bytes_as_16_bit():
    """fp8 tiles are 128 elements deep: the same 128-byte swizzle rows, 4 k32 WGMMAs per stage."""
    cfg = replace(GemmConfig(), dtype="e4m3", tile_k=128).check()
    assert cfg.stage_bytes == GemmConfig().stage_bytes and cfg.mma_k == 32


def test_int8_config_is_fp8_shaped_with_i32_accumulators():
    """s8/u8 tiles are 128 elements deep like fp8 (k32 WGMMAs); the accumulator is s32 in as many
    registers as f32; B may have the other signedness."""
    cfg = replace(GemmConfig(), dtype="u8", b_dtype="s8", tile_k=128, out_dtype="s32", epilogue="direct").check()
    assert cfg.stage_bytes == replace(GemmConfig(), epilogue="direct").stage_bytes and cfg.mma_k == 32
    assert (cfg.acc_type, cfg.dtype_b, cfg.is_integer, cfg.accumulators) == ("s32", "s8", True, 128)
    assert GemmConfig().acc_type == "f32" and GemmConfig().dtype_b == "bf16"
    assert "u8xs8_s32" in cfg.name and cfg.name != replace(cfg, b_dtype="").name


@pytest.mark.parametrize("schedule", ["persistent", "streamk"])
def test_int8_kernel_ir_has_s32_wgmma_and_i32_accumulators(schedule):
    from tileorch.backend.compile import parse_text, _verify
    from tileorch.registry import make_context

    cfg = replace(GemmConfig(), dtype="u8", b_dtype="s8", tile_k=128, out_dtype="s32", epilogue="direct",
                  schedule=schedule)
    text = gemm_kernel_ir(cfg)
    assert "D[<s32>, <one>], A[<u8>, <one>, <row>], B[<s8>, <one>, <col>]" in text
    assert "!llvm.struct<(i32, i32" in text and "!llvm.struct<(f32" not in text  # i32 accumulator registers
    assert 'dtype = "s32"' in text
    _verify(parse_text(make_context(), text, "gemm.mlir"), "input")


def test_stage_and_smem_arithmetic():
    cfg = GemmConfig()
    assert cfg.stage_bytes == 128 * 64 * 2 + 256 * 64 * 2 == 49152
    # 4 stages + the TMA epilogue's two 64 x 128 bf16 staging buffers
    assert cfg.smem_bytes == 4 * 49152 + 2 * 64 * 128 * 2 <= SMEM_LIMIT
    assert replace(cfg, epilogue="direct").smem_bytes == 4 * 49152
    # the tier epilogue's scratch (a column reduction's exchange) comes after the staging buffers
    scratch = replace(cfg, stages=3, scratch_bytes=8192)
    assert scratch.scratch_offset == 3 * 49152 + 2 * 64 * 128 * 2
    assert scratch.smem_bytes == scratch.scratch_offset + 8192
    assert scratch.name.endswith("_x8192") and "_x" not in cfg.name.split("_")[-1]
    assert cfg.threads == 384 and cfg.accumulators == 128


def test_descriptor_constant_matches_cutlass_bits():
    # 128B swizzle (bit 62), SBO 1024 B -> 64 at bit 32, LBO 16 B -> 1 at bit 16
    assert descriptor_constant(16, 1024) == 0x4000004000010000
    # N-major B: LBO = 8 KiB between 64-column chunks, SBO = 1 KiB between 8-row K groups
    assert descriptor_constant(8192, 1024) == (512 << 16) | (64 << 32) | (1 << 62)


@pytest.mark.parametrize("m, n, k, message", [(0, 8, 8, "positive"), (8, -1, 8, "positive"), (2**31, 8, 8, "2\\*\\*31")])
def test_problem_size_errors(m, n, k, message):
    with pytest.raises(GemmConfigError, match=message):
        check_problem(m, n, k, GemmConfig())


@pytest.mark.parametrize("cfg_kw, m, n, k, ptrs, staged", [
    ({}, 128, 256, 64, (0, 256, 512), []),
    ({}, 128, 256, 700, (0, 256, 512), ["A: row stride 1400", "B: row stride 1400"]),
    ({"b_major": "n"}, 128, 260, 64, (0, 256, 512), ["B: row stride 520", "C: row stride 520"]),
    ({"a_major": "m", "b_major": "n"}, 129, 256, 700, (0, 256, 512), ["A: row stride 258"]),
    ({}, 128, 256, 64, (8, 256, 512), ["A: base address 0x8"]),
    ({"out_dtype": "f32", "epilogue": "direct"}, 128, 6, 64, (0, 256, 512), ["C: row stride 24"]),
])
def test_operands_tma_cannot_address_are_staged(cfg_kw, m, n, k, ptrs, staged):
    """Row strides that are not 16-byte multiples (K = 700 in f16, ragged M of an A^T, ...) or an
    unaligned base go through padded copies; the reasons name the operand and the rule."""
    cfg = replace(GemmConfig(), **cfg_kw)
    reasons = staging_reasons(cfg, *ptrs, m, n, k)
    assert len(reasons) == len(staged), reasons
    for got, want in zip(reasons, staged):
        assert got.startswith(want), (got, want)


@pytest.mark.parametrize("schedule", ["persistent", "dp", "streamk"])
def test_params_record_and_grid(schedule):
    cfg = replace(GemmConfig(), schedule=schedule)
    m, n, k = 2016, 2176, 8192
    p = scheduler_params(cfg, m, n, k, 132)
    gx, gy, gz = p.grid
    assert gz == 1 and gx % cfg.cluster_m == 0
    tiles = -(-m // 128) * -(-n // 256)
    if schedule == "dp":
        assert gx * gy >= tiles
    else:
        assert gx * gy <= 132
    red, bar = streamk_workspace_bytes(cfg, m, n, k, 132) if schedule == "streamk" else (0, 0)
    record = pack_device_params(p, 0x1000, red, bar)
    assert len(record) == record_bytes(schedule == "streamk")
    if schedule == "streamk":
        # every stream-K tile needs a 128x256 f32 partial and one lock per consumer warp group
        assert red > 0 and bar > 0 and red % (128 * 256 * 4) == 0


@pytest.mark.parametrize("schedule", ["persistent", "streamk", "dp"])
def test_kernel_ir_parses_and_verifies(schedule):
    from tileorch.backend.compile import parse_text, _verify
    from tileorch.registry import make_context

    module = parse_text(make_context(), gemm_kernel_ir(replace(GemmConfig(), schedule=schedule)), "gemm.mlir")
    _verify(module, "input")


def test_cubin_cache_key_is_the_configuration_and_the_compiler(monkeypatch, tmp_path):
    from tileorch import cache
    from tileorch.launchers import gemm_host as host

    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path))
    base = GemmConfig()
    assert host.cache_key(base) == host.cache_key(replace(base))
    # fields that leave the name alone (the name omits transpose_b) still change the key
    assert host.cache_key(replace(base, transpose_b=True)) != host.cache_key(base)
    assert host.cache_key(replace(base, stages=3)) != host.cache_key(base)
    assert str(host.cubin_path(base)).startswith(str(tmp_path))
    before = host.cache_key(base)
    monkeypatch.setattr(cache, "_FINGERPRINT", "another compiler")
    assert host.cache_key(base) != before


def test_host_module_imports_without_the_compiler():
    """A GPU machine without xDSL launches cached cubins: the host side (and its cache key)
    must not import the compiler."""
    import subprocess
    import sys

    code = "import sys, tileorch.launchers.gemm_host as h; h.cubin_path(h.GemmConfig()); assert 'xdsl' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_batched_operands_at_their_own_matrix_counts(monkeypatch):
    """``[B, H, M, K] @ [H, K, N]`` (a kernel reading each operand's batch index per work tile): A's
    tensor map and staged rows hold A's 6 matrices, B's its 3, C's C's 6 (until session 23 all three
    held C's count: B's map then reached 3 matrices past W's end); without ``operand_batches`` every
    map holds ``batch`` (B: one when it is shared)."""
    from tileorch.launchers import gemm_host

    seen = {}

    def encode(ptr, dtype, dims, row_bytes, box, swizzle=128):
        seen[ptr] = (dims, row_bytes)
        return bytes(128)

    monkeypatch.setattr(gemm_host, "encode_tensor_map", encode)
    cfg = replace(GemmConfig(), batched=True)
    m, n, k = 128, 192, 64
    gemm_host.tensor_maps(cfg, 0x1000, 0x2000, 0x3000, m, n, k, batch=6, operand_batches=(6, 3))
    assert seen[0x1000][0][-1] == 6 and seen[0x2000][0][-1] == 3 and seen[0x3000][0][-1] == 6, seen
    assert seen[0x2000][1][-1] == seen[0x2000][1][0] * seen[0x2000][0][1]  # a matrix's bytes apart
    rows = {op.name: op.rows for op in operand_rows(cfg, 0x1000, 0x2000, 0x3000, m, n, k, 6, operand_batches=(6, 3))}
    assert rows == {"A": 6 * m, "B": 3 * (n if cfg.b_major == "k" else k), "C": 6 * m}, rows
    seen.clear()
    gemm_host.tensor_maps(cfg, 0x1000, 0x2000, 0x3000, m, n, k, batch=6)
    assert [seen[p][0][-1] for p in (0x1000, 0x2000, 0x3000)] == [6, 6, 6]
    seen.clear()
    gemm_host.tensor_maps(replace(cfg, b_shared=True), 0x1000, 0x2000, 0x3000, m, n, k, batch=6)
    assert [seen[p][0][-1] for p in (0x1000, 0x2000, 0x3000)] == [6, 1, 6]
