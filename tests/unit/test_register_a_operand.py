"""A dot's A operand computed in the K loop as WGMMA's register A (``tileas/register_a_operand.py``, the default;
``TILEORCH_COMPUTED_OPERAND=staged`` keeps the staged A): ragged programs on the PTX emulator against numpy
float64 with NaN-prefilled outputs (f16 raw tiles swizzled by their 128-byte K rows, int8 ones by their 64-byte
rows, one and two consumer warp groups), the kernel's shape in the PTX, ptxas without spills (``tileorch check`` of
the changed K step: tests/unit/test_computed_operand_prefetch.py).  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.computed_b_programs import a8_dequant, a_times_gamma, relu_a  # noqa: E402
from tileorch.testing.user_programs11 import mm_fp8_a_widened_to_f16  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2323)
M, K, N = 200, 200, 136  # ragged: a partial second row tile, a K tile of 8 past the last whole one, 3 N tiles

PROGRAMS = {
    "rega_gamma_128": UserProgram(a_times_gamma, [((M, K), "float16"), ((K,), "float16"), ((K, N), "float16"),
                                                  ((M, N), "float32"), 128, 128, 64], (2, 2), "gemm", "", "", (3,)),
    "rega_gamma_64": UserProgram(a_times_gamma, [((M - 80, K), "float16"), ((K,), "float16"), ((K, N), "float16"),
                                                 ((M - 80, N), "float32"), 64, 64, 64], (2, 3), "gemm", "", "", (3,)),
    "rega_a8_128": UserProgram(a8_dequant, [((M, K), "int8"), ((K, N), "float16"), ((M, N), "float32"), 0.05,
                                            128, 128, 64], (2, 2), "gemm", "", "", (2,)),
    "rega_fp8_128x64": UserProgram(mm_fp8_a_widened_to_f16, [((M, K), "float8_e4m3fn"), ((K, N), "float16"),
                                                            ((M, N), "float16"), 128, 64, 64], (2, 3), "gemm", "", "",
                                   (2,)),
    # bf16 (compiled and assembled here; bf16 WGMMA is not emulated: tests/gpu/test_register_a_gpu.py runs it)
    "rega_gamma_bf16_128": UserProgram(a_times_gamma, [((M, K), "bfloat16"), ((K,), "bfloat16"),
                                                       ((K, N), "bfloat16"), ((M, N), "float32"), 128, 128, 64],
                                       (2, 2), "gemm", "", "", (3,)),
    "rega_relu_64": UserProgram(relu_a, [((M - 80, K), "float16"), ((K, N), "float16"), ((M - 80, N), "float32"),
                                         64, 64, 64], (2, 3), "gemm", "", "", (2,)),
}


@pytest.fixture(autouse=True)
def _programs(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.delenv("TILEORCH_COMPUTED_OPERAND", raising=False)


def _compile(name):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    return compile_cutile(p.kernel, p.spec)


def _f16(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


@pytest.mark.parametrize("name", ["rega_gamma_128", "rega_gamma_64"])
def test_gamma_as_register_a_ragged(name, monkeypatch):
    """``(a * gamma[k]) @ b`` (the f16 products the program's f16 multiply makes) as register A
    (``TILEORCH_COMPUTED_OPERAND=registers``: staged by default), M, N and K ragged: every output written
    (the NaN prefill gone), every K tile with its own gamma, the padding past K zero."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "registers")
    rows = PROGRAMS[name].spec[0][0][0]
    a = RNG.standard_normal((rows, K)).astype(np.float16)
    g = (RNG.random(K) * 1.5 + 0.25).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = s4._s3_gemm(name, {0: a, 1: g, 2: b})[3]
    s4._check(c, (a * g[None, :]).astype(np.float64) @ b.astype(np.float64), 2e-3, 2e-3)
    assert _compile(name).gemm_config.a_regs


def test_int8_activations_as_register_a_ragged():
    """int8 ``A`` dequantized by a scalar (``(a * s).astype(f16)``): 64-byte raw K rows (64-byte swizzle), two
    consumer warp groups, one 16-bit shared load per fragment register."""
    q = RNG.integers(-128, 128, (M, K)).astype(np.int8)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = s4._s3_gemm("rega_a8_128", {0: q, 1: b})[2]
    s4._check(c, _f16(q.astype(np.float32) * np.float32(0.05)) @ b.astype(np.float64), 2e-3, 2e-3)
    prog = _compile("rega_a8_128")
    assert prog.gemm_config.a_regs and prog.gemm_config.a_raw_swizzle == 64
    assert prog.ptx.count("ld.shared.b16") == 2 * 16  # 16 per K step in each consumer warp group's loop


def test_fp8_activations_widened_as_register_a_ragged():
    """e4m3 ``A`` widened to f16 (``astype``): 64-byte raw K rows, each fp8 pair converted exactly in registers."""
    import ml_dtypes

    q = (RNG.standard_normal((M, K)) * 4).astype(ml_dtypes.float8_e4m3fn)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = s4._s3_gemm("rega_fp8_128x64", {0: q, 1: b})[2]
    s4._check(c, _f16(q.astype(np.float32)) @ b.astype(np.float64), 2e-2, 2e-3)  # an f16 output
    prog = _compile("rega_fp8_128x64")
    assert prog.gemm_config.a_regs and prog.gemm_config.a_raw == "e4m3" and prog.gemm_config.a_raw_swizzle == 64


def test_relu_as_register_a_ragged():
    """``relu(a) @ b`` (an elementwise A with no second operand), one consumer warp group, M and K ragged: the
    register-A path taken (``gemm_config.a_regs``), every output written, relu applied per element."""
    a = RNG.standard_normal((M - 80, K)).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = s4._s3_gemm("rega_relu_64", {0: a, 1: b})[2]
    s4._check(c, np.maximum(a.astype(np.float64), 0) @ b.astype(np.float64), 2e-3, 2e-3)
    assert _compile("rega_relu_64").gemm_config.a_regs


def test_register_a_kernel_shape_and_ptxas(monkeypatch):
    """The K step: 16 shared loads of the raw tile per consumer thread (one 32-bit word per fragment register),
    the products packed by their bits after ``wgmma.wait_group 0``, wgmma with A from registers, no A
    operand tile written (no ``st.shared``, ``fence.proxy.async`` or named barrier 3); ptxas: no spill.
    (``a * gamma[k]`` takes register A only with ``TILEORCH_COMPUTED_OPERAND=registers``.)"""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "registers")
    prog = _compile("rega_gamma_128")
    cfg = prog.gemm_config
    assert cfg.a_regs and cfg.a_raw_swizzle == 128 and cfg.a_stage_bytes == 0
    assert cfg.stage_bytes == 128 * 64 * 2 * 2  # B's tile and A's raw tile
    ptx = prog.ptx
    assert ptx.count("ld.shared.b32") == 2 * 16
    assert ptx.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16") == 2 * 4
    assert ptx.count("}, {%r") == 2 * 4  # each WGMMA's A: four registers
    assert "st.shared" not in ptx and "fence.proxy.async" not in ptx and "bar.sync \t3," not in ptx
    assert "cvt.rn.f16x2.f32" not in ptx  # f16 products: their bits
    bf16 = _compile("rega_gamma_bf16_128")
    assert bf16.gemm_config.a_regs and bf16.ptx.count("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16") == 8
    assert bf16.ptx.count("cvt.rn.bf16x2.f32") == 2 * 16  # bf16 products through f32: one rounding per pair
    from tileorch.backend.ptxas import ptxas_available, run_ptxas, spilled

    if not ptxas_available():
        pytest.skip("needs ptxas")
    for name in PROGRAMS:
        result = run_ptxas(_compile(name).ptx, "sm_90a")
        assert result.resources and not spilled(result, set(result.resources)), (name, result.resources)


def test_staged_switch_keeps_the_staged_a(monkeypatch):
    """``TILEORCH_COMPUTED_OPERAND=staged``: the A operand tile in each stage, written by the consumers, fence
    and barrier 3, WGMMA A from its descriptor; the remark says why."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "staged")
    prog = _compile("rega_gamma_128")
    assert not prog.gemm_config.a_regs and prog.gemm_config.a_raw_swizzle == 0
    assert "bar.sync \t3, 256;" in prog.ptx and "}, {%r" not in prog.ptx
    (remark,) = [r for r in prog.remarks if "dot operand A computed in the K loop" in r]
    assert "not WGMMA's register A operand: TILEORCH_COMPUTED_OPERAND asks for the staged path" in remark


def test_k_indexed_vector_keeps_a_staged_by_default(monkeypatch):
    """``(a * gamma[k]) @ b`` with gamma loaded by the consumers (``global_k_vectors``; session 41: by default the
    producer TMA-loads it and A is register A, tests/unit/test_k_vector_tma.py): A's map reads a vector indexed by
    the K tile from global memory, so A is staged (0.87x measured as register A, session 25), with a remark naming
    the vector and the switch; ``relu(a)`` (no vector) stays register A; ``TILEORCH_COMPUTED_OPERAND=registers``
    takes register A for gamma."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "global_k_vectors")
    for name in ("rega_gamma_128", "rega_gamma_bf16_128"):
        prog = _compile(name)
        assert not prog.gemm_config.a_regs and "bar.sync \t3, 256;" in prog.ptx and "}, {%r" not in prog.ptx
        (remark,) = [r for r in prog.remarks if "dot operand A computed in the K loop" in r]
        assert ("not WGMMA's register A operand: A's map reads 1 vector(s) indexed by the K tile" in remark
                and "TILEORCH_COMPUTED_OPERAND=registers takes register A" in remark), remark
    assert _compile("rega_relu_64").gemm_config.a_regs and _compile("rega_a8_128").gemm_config.a_regs
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "registers,global_k_vectors")
    assert _compile("rega_gamma_128").gemm_config.a_regs
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "")  # gamma TMA-loaded: register A
    assert _compile("rega_gamma_128").gemm_config.a_regs
