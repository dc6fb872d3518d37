"""``TILEORCH_COMPUTED_OPERAND=prefetch``: a computed GEMM operand's K-indexed vectors (``a * gamma[k]``,
a group's scale row) loaded one K step ahead, carried by the consumer's K loop
(``tileas/prefetch_k_vectors.py``); ``pairs``: f16 values of the operand's type packed as bits, not
through f32 (``convert_to_cutlass.pack_bits``); ``rows``: each of two consumer warp groups computes the A
rows its own WGMMAs read, behind its own named barrier.  Ragged programs on the PTX emulator against numpy float64, the
loads' placement in the PTX, and ``tileorch check`` of the changed loop.  Needs cuda-tile."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
ct = pytest.importorskip("cuda.tile")

import test_user_sweep4_emulated as s4  # noqa: E402

from tileorch.testing.computed_b_programs import a8_dequant, a_times_gamma, w8a16_group_scale  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402

RNG = np.random.default_rng(2222)
M, K, N = 120, 200, 136  # ragged: a partial row tile, a K tile of 8 (and the next K tile past the array), 3 N tiles

PROGRAMS = {
    "gamma_ragged": UserProgram(a_times_gamma, [((M, K), "float16"), ((K,), "float16"), ((K, N), "float16"),
                                                ((M, N), "float32"), 64, 64, 64], (2, 3), "gemm", "", "", (3,)),
    # 128x128 tiles: two consumer warp groups (rows); M, N, K ragged
    "gamma_ragged_128": UserProgram(a_times_gamma, [((M + 80, K), "float16"), ((K,), "float16"),
                                                    ((K, N), "float16"), ((M + 80, N), "float32"), 128, 128, 64],
                                    (2, 2), "gemm", "", "", (3,)),
    "a8_ragged_128": UserProgram(a8_dequant, [((M + 80, K), "int8"), ((K, N), "float16"), ((M + 80, N), "float32"),
                                              0.05, 128, 128, 64], (2, 2), "gemm", "", "", (2,)),
    "group_scale_ragged_n": UserProgram(w8a16_group_scale, [((128, 256), "float16"), ((256, N), "int8"),
                                                            ((2, N), "float32"), ((128, N), "float32"), 64, 64, 64,
                                                            128], (2, 3), "gemm", "", "", (3,)),
}


@pytest.fixture(autouse=True)
def _programs(monkeypatch):
    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "prefetch")


def _compile(name):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    return compile_cutile(p.kernel, p.spec)


def _f16_round(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


@pytest.mark.parametrize("switch", ["prefetch,registers", "prefetch,staged", "prefetch,pairs,staged"])
def test_a_times_gamma_prefetched_ragged(switch, monkeypatch):
    """``(a * gamma[k]) @ b`` with gamma of K tile ``kt + 1`` loaded in step ``kt``: every K tile's product
    uses its own gamma (a step-shifted carry would pair K tile ``kt`` with ``gamma`` of ``kt +- 1``), the
    ragged last K tile's padding stays zero; A as WGMMA's register A (default) or staged."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", switch)
    a = RNG.standard_normal((M, K)).astype(np.float16)
    g = (RNG.random(K) * 1.5 + 0.25).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = s4._s3_gemm("gamma_ragged", {0: a, 1: g, 2: b})[3]
    s4._check(c, (a * g[None, :]).astype(np.float64) @ b.astype(np.float64), 2e-3, 2e-3)


def test_own_rows_two_warp_groups_ragged(monkeypatch):
    """``rows`` (with prefetch and pairs): at 128x128 each consumer warp group writes only its 64 A rows and
    waits on its own barrier; gamma and an int8 A dequantized by a scalar, M = 200 (the second row tile
    partial), K = 200, N = 136."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "prefetch,pairs,rows")
    a = RNG.standard_normal((M + 80, K)).astype(np.float16)
    g = (RNG.random(K) * 1.5 + 0.25).astype(np.float16)
    b = RNG.standard_normal((K, N)).astype(np.float16)
    c = s4._s3_gemm("gamma_ragged_128", {0: a, 1: g, 2: b})[3]
    s4._check(c, (a * g[None, :]).astype(np.float64) @ b.astype(np.float64), 2e-3, 2e-3)
    q = RNG.integers(-128, 128, (M + 80, K)).astype(np.int8)
    c = s4._s3_gemm("a8_ragged_128", {0: q, 1: b})[2]
    s4._check(c, _f16_round(q.astype(np.float32) * np.float32(0.05)) @ b.astype(np.float64), 2e-3, 2e-3)
    prog = _compile("gamma_ragged_128")
    assert prog.ptx.count("bar.sync \t12, 128;") == 1 and prog.ptx.count("bar.sync \t13, 128;") == 1
    assert "bar.sync \t3," not in prog.ptx


def test_group_scales_prefetched_ragged_n():
    """A computed B: the int8 weight's group scale row ``S[k * 64 // 128, n]`` carried one K step ahead, N ragged."""
    a = RNG.standard_normal((128, 256)).astype(np.float16)
    w = RNG.integers(-128, 128, (256, N)).astype(np.int8)
    s = (RNG.random((2, N)) * 0.02 + 0.001).astype(np.float32)
    c = s4._s3_gemm("group_scale_ragged_n", {0: a, 1: w, 2: s})[3]
    s4._check(c, a.astype(np.float64) @ _f16_round(w.astype(np.float32) * np.repeat(s, 128, axis=0)), 2e-3, 2e-3)


def test_gamma_loads_before_the_loop_and_one_step_ahead(monkeypatch):
    """Each consumer thread's 4 units of a 64x64 A tile share one 8-column K slice: 8 gamma loads per K step,
    once before each consumer warp group's K loop (K tile 0) and once in it (K tile kt + 1); the loop
    carries the 8 values (the staged A).  ptxas: no spill."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "prefetch,staged")
    prog = _compile("gamma_ragged")
    assert prog.kind == "gemm" and prog.gemm_config.a_raw == "f16", prog.remarks
    loads = prog.ptx.count("ld.global.b16")
    assert loads == 2 * 8, loads  # one consumer warp group at 64x64 tiles
    assert prog.ptx.count("cvt.rn.f16x2.f32") == 4 * 4  # each unit's 4 pairs, 4 units per thread
    from tileorch.backend.ptxas import ptxas_available, run_ptxas, spilled

    if ptxas_available():
        result = run_ptxas(prog.ptx, "sm_90a")
        assert result.resources and not spilled(result, set(result.resources)), result.resources


def test_pairs_pack_f16_products_as_bits(monkeypatch):
    """``pairs``: the f16 products ``a * gamma`` are the operand's values themselves: packed by their bits
    (no ``cvt.rn.f16x2.f32``) in the staged A; the PTX differs from ``prefetch`` alone only there."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", "prefetch,pairs,staged")
    prog = _compile("gamma_ragged")
    assert prog.kind == "gemm", prog.remarks
    assert "cvt.rn.f16x2.f32" not in prog.ptx
    assert prog.ptx.count("ld.global.b16") == 2 * 8


@pytest.mark.parametrize("name,switch", [("gamma_ragged", "prefetch,registers"), ("gamma_ragged", "prefetch,staged"),
                                         ("gamma_ragged_128", "prefetch,pairs,rows"), ("gamma_ragged_128", "registers"),
                                         ("gamma_ragged_128", "")])
def test_prefetched_loop_pipeline_is_proved(tmp_path, monkeypatch, name, switch):
    """``tileorch check`` of the lowered kernel with the carried vectors (and, with ``rows``, each consumer
    warp group's own transform barrier; with ``registers`` A as WGMMA's register A, each consumer warp group
    releasing the previous stage after ``wait_group 0`` in the next K step): the producer's fills, the
    consumers' waits, releases and named barriers, for every trip count."""
    monkeypatch.setenv("TILEORCH_COMPUTED_OPERAND", switch)
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
    text = str(module)
    assert text.count("scf.for") >= 1
    # register A (gamma[k] read from global memory, prefetched: only with "registers"; session 41: the default, ""
    # with gamma TMA-loaded by the producer, is register A too): each consumer warp group releases the previous
    # stage after wait_group 0
    assert ("atom.wgmma_mma_async_reg_a" in text) == ("registers" in switch or switch == "")
    protocols, errors = load_protocols(module, None, 3)  # (test_computed_b_gemm: the printed module reads the same)
    assert not errors and protocols
    for proto in protocols:
        result = check(proto)
        assert result.ok, result.violation
