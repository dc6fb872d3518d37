"""A dot operand B computed in the K loop from its tile load (mixed-input / weight-only-quantized
GEMMs) on the GEMM tier's TMA + WGMMA kernel (``GemmConfig.b_raw``): the producer TMA-loads the raw
tile, the consumer warp groups evaluate the program's ops into the WGMMA's B tile.  Programs run on
the PTX emulator against numpy float64 (every CTA, the launcher's problem and tensor maps); the
lowered kernel's pipeline and named barriers are proved by ``tileorch check``; the forms still
refused are located errors at the user's line.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing import computed_b_programs as cbp  # noqa: E402
from tileorch.testing.computed_b_programs import (a8_dequant, a_and_b_computed, a_times_gamma,  # noqa: E402
                                                  b_times_scalar, fp8_b_upcast, relu_a, w8a16_batched_shared_weight, w8a16_channel_scale_kn,
                                                  w8a16_channel_scale_nk, w8a16_group_scale, w8a16_linear,
                                                  w8a16_zero_point)
from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(1616)


@ct.kernel
def b_scaled_per_k_row(A, B, R, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """B scaled by a per-K-row vector loaded in the loop (a form still refused: located)."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        r = ct.load(R, index=(k,), shape=(tk,))
        b = ct.load(B, index=(k, j), shape=(tk, tn)) * r[:, None]
        acc = ct.mma(ct.load(A, index=(i, k), shape=(tm, tk)), b, acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def a_times_rms_scale(A, B, S, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A scaled per row in the loop (``x * rms_scale``): a computed A, still refused (located); found on
    the way: before, the GEMM tier read A as its load and dropped the scale."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    s = ct.load(S, index=(i,), shape=(tm,))
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = (ct.load(A, index=(i, k), shape=(tm, tk)).astype(ct.float32) * s[:, None]).astype(ct.float16)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def a_times_scalar(A, B, C, alpha: float, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A scaled by a scalar in the loop: a computed A, refused (located) rather than read as its load."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = (ct.load(A, index=(i, k), shape=(tm, tk)).astype(ct.float32) * alpha).astype(ct.float16)
        acc = ct.mma(a, ct.load(B, index=(k, j), shape=(tk, tn)), acc)
    ct.store(C, index=(i, j), tile=acc.astype(C.dtype))


@ct.kernel
def relu_a_two_dots(A, B1, B2, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """A computed A shared by two dots (SwiGLU on relu(a)): one register A per K step feeds both Bs."""
    i, j = ct.bid(0), ct.bid(1)
    g = ct.zeros((tm, tn), dtype=ct.float32)
    u = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.maximum(ct.load(A, index=(i, k), shape=(tm, tk)), 0.0)
        g = ct.mma(a, ct.load(B1, index=(k, j), shape=(tk, tn)), g)
        u = ct.mma(a, ct.load(B2, index=(k, j), shape=(tk, tn)), u)
    ct.store(C, index=(i, j), tile=(g * u).astype(C.dtype))


PROGRAMS = {
    "w8a16_linear": UserProgram(w8a16_linear, [((256, 256), "float16"), ((256, 256), "int8"), ((256,), "float32"),
                                           ((256, 256), "float16"), 128, 128, 64], (2, 2), "gemm", "", "", (3,)),
    "b_times_scalar": UserProgram(b_times_scalar, [((128, 192), "float16"), ((192, 128), "float16"),
                                                         ((128, 128), "float32"), 0.5, 64, 128, 64], (2, 1), "gemm", "",
                                   "", (2,)),
    "w8a16_zero_point": UserProgram(w8a16_zero_point, [((128, 128), "float16"), ((128, 128), "int8"),
                                                       ((128, 128), "float32"), 64, 64, 64], (2, 2), "gemm", "", "",
                                    (2,)),
    "fp8_b_upcast": UserProgram(fp8_b_upcast, [((128, 192), "float16"), ((128, 192), "float8_e4m3fn"),
                                               ((128, 128), "float32"), 64, 64, 64], (2, 2), "gemm", "", "", (2,)),
    "w8a16_batched_shared_weight": UserProgram(w8a16_batched_shared_weight,
                                               [((2, 128, 192), "float16"), ((128, 192), "int8"),
                                                ((2, 128, 128), "float16"), 64, 64, 64], (2, 2, 2), "gemm", "", "",
                                               (2,)),
    "b_scaled_per_k_row": UserProgram(b_scaled_per_k_row, [((128, 128), "float16"), ((128, 128), "float16"),
                                                       ((128,), "float16"), ((128, 128), "float32"), 64, 64, 64],
                                  (2, 2), "gemm", "", "", (3,)),
    "w8a16_channel_scale_kn": UserProgram(w8a16_channel_scale_kn, [((128, 192), "float16"), ((192, 128), "int8"),
                                                                   ((128,), "float32"), ((128, 128), "float32"), 64,
                                                                   64, 64], (2, 2), "gemm", "", "", (3,)),
    "w8a16_channel_scale_nk": UserProgram(w8a16_channel_scale_nk, [((128, 192), "float16"), ((128, 192), "int8"),
                                                                   ((128,), "float16"), ((128, 128), "float16"), 128,
                                                                   128, 64], (1, 1), "gemm", "", "", (3,)),
    "w8a16_group_scale": UserProgram(w8a16_group_scale, [((128, 256), "float16"), ((256, 128), "int8"),
                                                         ((2, 128), "float32"), ((128, 128), "float32"), 64, 64, 64,
                                                         128], (2, 2), "gemm", "", "", (3,)),
    "a_times_rms_scale": UserProgram(a_times_rms_scale, [((128, 128), "float16"), ((128, 128), "float16"),
                                                         ((128,), "float32"), ((128, 128), "float32"), 64, 64, 64],
                                     (2, 2), "gemm", "", "", (3,)),
    "a_times_scalar": UserProgram(a_times_scalar, [((128, 128), "float16"), ((128, 128), "float16"),
                                                   ((128, 128), "float32"), 0.5, 64, 64, 64], (2, 2), "gemm", "", "",
                                  (2,)),
    "relu_a": UserProgram(relu_a, [((128, 192), "float16"), ((192, 128), "float16"), ((128, 128), "float32"), 64, 64,
                                   64], (2, 2), "gemm", "", "", (2,)),
    "a8_dequant": UserProgram(a8_dequant, [((128, 192), "int8"), ((192, 128), "float16"), ((128, 128), "float32"),
                                           0.05, 128, 128, 64], (1, 1), "gemm", "", "", (2,)),
    "a_times_gamma": UserProgram(a_times_gamma, [((128, 192), "float16"), ((192,), "float16"), ((192, 128), "float16"),
                                                 ((128, 128), "float32"), 64, 64, 64], (2, 2), "gemm", "", "", (3,)),
    "relu_a_two_dots": UserProgram(relu_a_two_dots, [((128, 128), "float16"), ((128, 128), "float16"),
                                                     ((128, 128), "float16"), ((128, 128), "float32"), 128, 128, 64],
                                   (1, 1), "gemm", "", "", (3,)),
    "group_scale_k32": UserProgram(w8a16_group_scale, [((128, 256), "float16"), ((256, 128), "int8"),
                                                       ((2, 128), "float32"), ((128, 128), "float32"), 64, 64, 32,
                                                       128], (2, 2), "simt", "", "", (3,)),
    "a_and_b_computed": UserProgram(a_and_b_computed, [((128, 192), "float16"), ((128, 192), "int8"),
                                                       ((128,), "float16"), ((128, 128), "float32"), 128, 128, 64],
                                    (1, 1), "gemm", "", "", (3,)),
}


@pytest.fixture(autouse=True)
def _programs(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)


def _compile(name):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    return compile_cutile(p.kernel, p.spec, name)


def test_w8a16_linear_with_two_consumer_warp_groups():
    """A K-major int8 weight ([N, K], nn.Linear's layout) on 128x128 tiles: both consumer warp groups
    convert their share of each raw tile and meet at named barrier 3 (256 threads)."""
    x = RNG.standard_normal((256, 256)).astype(np.float16)
    w = RNG.integers(-128, 128, (256, 256)).astype(np.int8)
    s = (RNG.random(256) * 0.01 + 0.001).astype(np.float32)
    y = s4._s3_gemm("w8a16_linear", {0: x, 1: w, 2: s})[3]
    s4._check(y, (x.astype(np.float64) @ w.T.astype(np.float64)) * s[None, :], 2e-3, 2e-3)


def test_b_scaled_by_a_scalar_argument():
    """The operand's ops read a kernel scalar (alpha = 0.5, the spec's: the runner passes its scalars) and
    round to f16 as the program does (a 64-row tile: one consumer warp group, 3 K tiles).  Found on the
    way: before this tier took computed operands, this B (an f16 tile through f32 and back) was read as
    its load, the scale dropped (a wrong result on the GEMM tier)."""
    a = RNG.standard_normal((128, 192)).astype(np.float16)
    b = RNG.standard_normal((192, 128)).astype(np.float16)
    c = s4._s3_gemm("b_times_scalar", {0: a, 1: b})[2]
    bs = (b.astype(np.float32) * np.float32(0.5)).astype(np.float16).astype(np.float64)
    s4._check(c, a.astype(np.float64) @ bs, 1e-3, 1e-3)


def test_w8a16_with_a_zero_point():
    a = RNG.standard_normal((128, 128)).astype(np.float16)
    w = RNG.integers(-128, 128, (128, 128)).astype(np.int8)
    c = s4._s3_gemm("w8a16_zero_point", {0: a, 1: w})[2]
    prog = _compile("w8a16_zero_point")
    assert "prmt.b32" not in prog.ptx and "cvt.rn.f16x2.f32" in prog.ptx  # the program's ops, element by element
    s4._check(c, a.astype(np.float64) @ (w.astype(np.float64) - 3.0), 1e-3, 1e-3)


def test_fp8_b_upcast_to_f16():
    """An e4m3 weight [N, K] upcast to f16 in the loop (WGMMA has no fp8 x f16 form): the raw fp8 tile,
    converted exactly by the consumers.  Was refused ('A and B must have the same element type')."""
    import ml_dtypes

    a = RNG.standard_normal((128, 192)).astype(np.float16)
    b = (RNG.standard_normal((128, 192)) * 4).astype(ml_dtypes.float8_e4m3fn)
    c = s4._s3_gemm("fp8_b_upcast", {0: a, 1: b})[2]
    assert _compile("fp8_b_upcast").gemm_config.b_raw == "e4m3"
    s4._check(c, a.astype(np.float64) @ b.astype(np.float64).T, 1e-3, 1e-3)


def test_batched_activations_times_one_int8_weight():
    """X [2, 128, 192] (program id 2) times one int8 W [128, 192]: batched, B shared by the batches, B's raw
    tile loaded at batch 0 for every work tile."""
    x = RNG.standard_normal((2, 128, 192)).astype(np.float16)
    w = RNG.integers(-128, 128, (128, 192)).astype(np.int8)
    y = s4._s3_gemm("w8a16_batched_shared_weight", {0: x, 1: w})[2]
    cfg = _compile("w8a16_batched_shared_weight").gemm_config
    assert cfg.batched and cfg.b_shared and cfg.b_raw == "s8"
    s4._check(y, x.astype(np.float64) @ w.astype(np.float64).T, 2e-3, 2e-3)


def test_remark_names_the_computed_operand_at_the_users_line():
    prog = _compile("w8a16_linear")
    assert prog.kind == "gemm", prog.remarks
    # the `acc = ct.mma(..., ct.transpose(w), acc)` line: the tier moves the cast after the transpose
    line = w8a16_linear._annotated_function.pyfunc.__code__.co_firstlineno + 7
    (remark,) = [r for r in prog.remarks if "dot operand B computed in the K loop" in r]
    assert remark.startswith(f"{cbp.__file__}:{line}:"), remark
    assert ": remark: dot operand B computed in the K loop (sitofp of an i8 tile)" in remark
    assert "named barrier 3" in remark and "256 threads" in remark
    assert prog.gemm_config.b_raw == "s8" and prog.gemm_config.b_major == "k"
    assert any("no cluster: a B computed in the K loop is not multicast" in r for r in prog.remarks)  # num_ctas auto
    assert "bar.sync \t3, 256;" in prog.ptx and "fence.proxy.async.shared::cta" in prog.ptx
    # the bare astype: 4 prmt per 8-byte unit, 4 units per thread (64 x 128 / 8 / 256), in each warp group's loop
    assert prog.ptx.count("prmt.b32") == 2 * 4 * 4



@pytest.mark.parametrize("name", ["w8a16_linear", "a8_dequant", "a_and_b_computed"])
def test_the_lowered_kernel_pipeline_and_barriers_are_proved(tmp_path, name):
    """``tileorch check``: the producer's raw-tile fills (A's, B's, or both), both consumer warp groups'
    waits, releases and their named barrier 3 every K step: no deadlock, no race, for every trip count."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import load_module as load_protocols
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    ctx = make_context()
    kind, module = lower_program(load(cutile_bytecode(p.kernel, p.spec), "k", ctx), ctx, "sm_90a")
    assert kind == "gemm"
    protocols, errors = load_protocols(module, None, 3)  # (what ``tileorch check`` reads of the printed module:
    assert not errors and protocols                       # test_the_printed_kernel_reads_back_to_the_same_protocols)
    for proto in protocols:
        bars = [a for a in proto.agents if a.threads == 128]
        assert len(bars) == 2, proto.agents
        result = check(proto)
        assert result.ok, result.violation


def test_the_printed_kernel_reads_back_to_the_same_protocols(tmp_path):
    """The GEMM tier's lowering of a program with a computed B, printed to a file and read by ``tileorch check``'s
    loader (parse, verify, extract), gives the protocols the module in memory gives (the tier's GEMM check tests
    extract them from the module, without printing and parsing it)."""
    from tileorch.analysis.extract import load as load_file
    from tileorch.analysis.extract import load_module
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["w8a16_linear"]
    ctx = make_context()
    kind, module = lower_program(load(cutile_bytecode(p.kernel, p.spec), "k", ctx), ctx, "sm_90a")
    assert kind == "gemm"
    path = tmp_path / "kernel.mlir"
    path.write_text(str(module))
    read, errors = load_file(str(path), None, 3)
    assert not errors and read, errors
    direct, errors = load_module(module, None, 3)
    assert not errors, errors
    assert [repr(q) for q in read] == [repr(q) for q in direct]


def _f16_round(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


def test_b_times_a_per_k_row_vector_loaded_in_the_loop():
    """``B * R[k]`` (R loaded in the loop at the K tile): was refused ('no other tile loaded in the loop');
    now the consumers load R's element at each unit's K row in every K step (the loop's kt for the
    program's k).  The product rounds to f16 as the program's f16 multiply does."""
    a = RNG.standard_normal((128, 128)).astype(np.float16)
    b = RNG.standard_normal((128, 128)).astype(np.float16)
    r = (RNG.random(128) + 0.5).astype(np.float16)
    c = s4._s3_gemm("b_scaled_per_k_row", {0: a, 1: b, 2: r})[3]
    s4._check(c, a.astype(np.float64) @ _f16_round(b.astype(np.float32) * r[:, None].astype(np.float32)), 2e-3,
              2e-3)


def test_w8a16_per_output_channel_scale_n_major():
    """``(w.astype(f32) * s[None, :]).astype(f16)`` with ``S [N]`` loaded before the loop (the most common
    W8A16 form): was refused ('a per-column vector'); each thread's 8 scale elements per unit are loaded
    once per work tile, before the K loop."""
    a = RNG.standard_normal((128, 192)).astype(np.float16)
    w = RNG.integers(-128, 128, (192, 128)).astype(np.int8)
    s = (RNG.random(128) * 0.02 + 0.001).astype(np.float32)
    c = s4._s3_gemm("w8a16_channel_scale_kn", {0: a, 1: w, 2: s})[3]
    s4._check(c, a.astype(np.float64) @ _f16_round(w.astype(np.float32) * s[None, :]), 2e-3, 2e-3)
    prog = _compile("w8a16_channel_scale_kn")
    (remark,) = [r for r in prog.remarks if "dot operand B computed in the K loop" in r]
    assert "1 vector(s) that do not change along K loaded from global memory once per work tile" in remark


def test_w8a16_per_output_channel_scale_k_major_two_warp_groups():
    """nn.Linear's ``W [N, K]`` with ``S [N]`` per row of the ``[tn, tk]`` tile (f16 multiply), transposed into
    the dot, 128x128 tiles (both consumer warp groups)."""
    x = RNG.standard_normal((128, 192)).astype(np.float16)
    w = RNG.integers(-128, 128, (128, 192)).astype(np.int8)
    s = (RNG.random(128) * 0.02 + 0.001).astype(np.float16)
    y = s4._s3_gemm("w8a16_channel_scale_nk", {0: x, 1: w, 2: s})[3]
    wq = (w.astype(np.float16) * s[:, None]).astype(np.float64)  # f16 products, rounded as the program's mulf
    s4._check(y, x.astype(np.float64) @ wq.T, 3e-3, 3e-3)


def test_w8a16_group_scales_loaded_per_k_step():
    """``S [K // 128, N]``: the scale row of K tile ``k`` (``k * 64 // 128``) loaded in the loop, K = 256 in 4
    K tiles over 2 groups."""
    a = RNG.standard_normal((128, 256)).astype(np.float16)
    w = RNG.integers(-128, 128, (256, 128)).astype(np.int8)
    s = (RNG.random((2, 128)) * 0.02 + 0.001).astype(np.float32)
    c = s4._s3_gemm("w8a16_group_scale", {0: a, 1: w, 2: s})[3]
    deq = _f16_round(w.astype(np.float32) * np.repeat(s, 128, axis=0))
    s4._check(c, a.astype(np.float64) @ deq, 2e-3, 2e-3)
    (remark,) = [r for r in _compile("w8a16_group_scale").remarks if "dot operand B computed" in r]
    # (session 41: TMA-loaded by the producer into each stage, tests/unit/test_k_vector_tma.py)
    assert "1 vector(s) indexed by the K tile TMA-loaded by the producer into each stage" in remark


def _a_ref(a32, b):
    return _f16_round(a32) @ b.astype(np.float64)


def test_a_times_scalar():
    """``(a.astype(f32) * alpha).astype(f16) @ b``: was a located refusal (before that, read as its load with the
    scale dropped)."""
    a = RNG.standard_normal((128, 128)).astype(np.float16)
    b = RNG.standard_normal((128, 128)).astype(np.float16)
    c = s4._s3_gemm("a_times_scalar", {0: a, 1: b})[2]
    s4._check(c, _a_ref(a.astype(np.float32) * np.float32(0.5), b), 1e-3, 1e-3)


def test_a_times_a_per_row_vector_loaded_before_the_loop():
    """``x * rms_scale[m]`` (a per-row vector of A's tile, loaded before the loop): hoisted out of the K loop."""
    a = RNG.standard_normal((128, 128)).astype(np.float16)
    b = RNG.standard_normal((128, 128)).astype(np.float16)
    s = (RNG.random(128) + 0.5).astype(np.float32)
    c = s4._s3_gemm("a_times_rms_scale", {0: a, 1: b, 2: s})[3]
    s4._check(c, _a_ref(a.astype(np.float32) * s[:, None], b), 2e-3, 2e-3)


@pytest.mark.parametrize("switch", ["", "staged"])
def test_relu_of_a(switch, monkeypatch):
    """``relu(a) @ b``: A computed as WGMMA's register A (default) or staged (``staged``); the remark says which."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", switch)
    a = RNG.standard_normal((128, 192)).astype(np.float16)
    b = RNG.standard_normal((192, 128)).astype(np.float16)
    c = s4._s3_gemm("relu_a", {0: a, 1: b})[2]
    s4._check(c, np.maximum(a.astype(np.float64), 0) @ b.astype(np.float64), 1e-3, 1e-3)
    prog = _compile("relu_a")
    (remark,) = [r for r in prog.remarks if "dot operand A computed in the K loop" in r]
    line = relu_a._annotated_function.pyfunc.__code__.co_firstlineno + 6  # the `a = ct.maximum(...)` line
    assert remark.startswith(f"{cbp.__file__}:{line}:"), remark
    assert "(maxf of an f16 tile)" in remark
    assert ("not WGMMA's register A operand" in remark) == bool(switch), remark
    assert ("WGMMA's register A operand: the producer TMA-loads the raw 64x64 tile (8192 bytes, 128-byte "
            "swizzle)" in remark) == (not switch), remark
    assert ("(B operand tiles, raw A tiles)" in remark) == (not switch), remark
    assert prog.gemm_config.a_raw == "f16" and not prog.gemm_config.b_raw and prog.gemm_config.a_regs == (not switch)


def test_int8_activations_dequantized_on_two_warp_groups():
    """int8 ``A [M, K]`` converted and scaled in the loop (128x128 tiles: both consumer warp groups write the A tile,
    named barrier 3 over 256 threads); the host passes the int8 array (its raw tile's tensor map)."""
    a = RNG.integers(-128, 128, (128, 192)).astype(np.int8)
    b = RNG.standard_normal((192, 128)).astype(np.float16)
    c = s4._s3_gemm("a8_dequant", {0: a, 1: b})[2]
    s4._check(c, _a_ref(a.astype(np.float32) * np.float32(0.05), b), 2e-3, 2e-3)
    assert _compile("a8_dequant").gemm_config.a_raw == "s8"


def test_a_times_gamma_loaded_per_k_step():
    """An RMSNorm weight folded into the next GEMM: ``a * gamma[k]`` with gamma loaded at each K tile (f16 products
    as the program's f16 multiply)."""
    a = RNG.standard_normal((128, 192)).astype(np.float16)
    g = (RNG.random(192) + 0.5).astype(np.float16)
    b = RNG.standard_normal((192, 128)).astype(np.float16)
    c = s4._s3_gemm("a_times_gamma", {0: a, 1: g, 2: b})[3]
    s4._check(c, (a * g[None, :]).astype(np.float64) @ b.astype(np.float64), 2e-3, 2e-3)


@pytest.mark.parametrize("switch", ["", "staged"])
def test_a_and_b_computed_in_one_kernel(switch, monkeypatch):
    """``relu(a) @ (w.astype(f16) * s[n])^T``: both raw tiles in each stage; by default A is WGMMA's register A
    (no A operand tile: B's operand and raw tiles, A's raw tile), with ``staged`` A's operand tile too and one
    fence and barrier for both."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", switch)
    a = RNG.standard_normal((128, 192)).astype(np.float16)
    w = RNG.integers(-128, 128, (128, 192)).astype(np.int8)
    s = (RNG.random(128) * 0.02 + 0.001).astype(np.float16)
    c = s4._s3_gemm("a_and_b_computed", {0: a, 1: w, 2: s})[3]
    wq = (w.astype(np.float16) * s[:, None]).astype(np.float64)
    s4._check(c, np.maximum(a.astype(np.float64), 0) @ wq.T, 3e-3, 3e-3)
    cfg = _compile("a_and_b_computed").gemm_config
    a_tile = 16384 if switch else 0  # 128 x 64 f16
    assert cfg.a_raw == "f16" and cfg.b_raw == "s8" and cfg.a_regs == (not switch)
    assert cfg.stage_bytes == a_tile + 16384 + 8192 + 16384  # + B's operand tile, B's raw (s8), A's raw (f16)


def _refusal(name):
    """The refusal remark of the program ``name`` refuses: its lowering only (``lower_once``; the SIMT fallback's
    back end would be most of its compile and nothing here reads its PTX)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    prog = lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")
    assert prog.kind == "simt", prog.remarks
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    return refusal


def test_a_computed_a_shared_by_two_dots_runs_as_one_register_a():
    """``relu(a)`` read by both dots (session 26; was refused as "2 dots in one K loop that do not read the same
    A tile"): the consumers evaluate it once per K step into WGMMA's register A, copied for the second B."""
    a, b1, b2 = (RNG.standard_normal((128, 128)).astype(np.float16) for _ in range(3))
    c = s4._s3_gemm("relu_a_two_dots", {0: a, 1: b1, 2: b2})[3]
    r = np.maximum(a.astype(np.float64), 0)
    s4._check(c, (r @ b1.astype(np.float64)) * (r @ b2.astype(np.float64)), 1e-2, 1e-3)
    cfg = _compile("relu_a_two_dots").gemm_config
    assert cfg.a_regs and cfg.b_operands == 2, cfg


def test_a_k_indexed_vector_with_another_k_tile_is_refused_at_its_load():
    """K tiles of 32 f16 elements run as 64 (one 128-byte row): the consumers' kt would not be the program's
    k, so a vector loaded at k is refused at its load."""
    refusal = _refusal("group_scale_k32")
    line = 1 + open(cbp.__file__).read().splitlines().index(
        "        s = ct.load(S, index=(k * tk // group, j), shape=(1, tn))")
    assert refusal.startswith(f"{cbp.__file__}:{line}:"), refusal
    assert "the program's K tile (32) is not the WGMMA kernel's (64" in refusal


def test_int4_unpacked_by_reshape_stays_refused_at_the_operand():
    """W4A16 (``mm_w4a16_groupwise``: int32-packed nibbles unpacked by a broadcast shift and a reshape that moves
    elements): a tile of another shape than B's; the refusal names the op computing B (the scale row it also
    loads in the loop no longer hides it behind a count of staged loads)."""
    from tileorch.testing import user_programs7 as up7

    spec = [((128, 256), "float16"), ((32, 128), "int32"), ((2, 128), "float16"), ((128, 128), "float16"), 64, 64,
            64, 128]
    from tileorch.testing.gemm_emulation import compile_cutile

    prog = compile_cutile(up7.mm_w4a16_groupwise, spec, "mm_w4a16_groupwise")
    assert prog.kind == "simt"
    (refusal,) = [r for r in prog.remarks if "refused" in r]
    assert "this dot operand is computed in the kernel" in refusal and "no tile reshaped, unpacked" in refusal
