"""The tier GEMM's epilogue round by round (``convert_to_cutlass._compile_epilogue``): each round of 64
accumulator columns is computed, converted and stored (staged + TMA store, or direct stores) before
the next round's values are computed, so a 128x256 tile's GELU epilogue stays in registers.
``TILEORCH_EPILOGUE_ROUNDS=0`` keeps the old order (the whole fragment first).

Checked on the PTX (where each round's tanh sits relative to the TMA stores), on ptxas's ``-v``
resources (spills), and, for the direct rounds of an f32 output, on the CPU: the kernel run by
``tileorch.testing.ptx_emulator`` against numpy float64 on ragged M and N.  Needs cuda-tile; the
spill checks need ptxas."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

pytest.importorskip("cuda.tile")

import cuda.tile as ct  # noqa: E402

from tileorch.backend.ptxas import ptxas_available  # noqa: E402
from tileorch.testing.dot_programs import PROGRAMS  # noqa: E402
from tileorch.testing.gemm_emulation import array_params, compile_cutile, run_gemm  # noqa: E402
from tileorch.testing.gemm_structure import ptx_consumer_bodies  # noqa: E402

needs_ptxas = pytest.mark.skipif(not ptxas_available(), reason="no ptxas (pip install nvidia-cuda-nvcc)")
TMA_STORE = re.compile(r"cp\.async\.bulk\.tensor\.\dd\.global\.shared::cta")
SPILLS = re.compile(r"remark: ptxas: .*?: \d+ registers, (?:0 spills|(\d+) B spill stores \+ (\d+) B spill loads)")
GELU_C = math.sqrt(2 / math.pi)


def _linear_gelu_128x256():
    """linear_gelu_bf16 of the zoo (``gelu_tanh(X @ W^T + bias)``, W [N, K]) with 128x256 tiles."""
    m, n, k = 1024, 512, 384
    spec = [((m, k), "bfloat16"), ((n, k), "bfloat16"), ((n,), "bfloat16"), ((m, n), "bfloat16"), 128, 256, 64]
    return compile_cutile(PROGRAMS["linear_gelu_bf16"].kernel, spec, "linear_gelu", ptxas=True)


def _spill_bytes(program) -> int:
    """Spill stores + loads of the kernel (ptxas -v, from the compile's resource remark)."""
    found = [SPILLS.search(r) for r in program.remarks]
    found = [f for f in found if f]
    assert found, program.remarks
    return sum(int(x or 0) for x in found[0].groups())


def _tanh_per_store(ptx: str) -> list[int]:
    """The ``ex2.approx`` (one per full-precision tanh) before each TMA store of C, and after the last."""
    return [s.count("ex2.approx") for s in TMA_STORE.split(ptx)]


@needs_ptxas
@pytest.mark.parametrize("bodies", ["1", "2"])
def test_gelu_128x256_epilogue_runs_in_rounds_without_spills(bodies, monkeypatch):
    """4 rounds, each TMA store of C preceded by its round's 64 x 64 / 128 = 32 tanh: once in the one consumer body
    the two warp groups share (the default), twice with a body per warp group (``TILEORCH_GEMM_SHARED_CONSUMER=0``)."""
    monkeypatch.setenv("TILEORCH_GEMM_SHARED_CONSUMER", "1" if bodies == "1" else "0")
    p = _linear_gelu_128x256()
    cfg = p.gemm_config
    assert p.kind == "gemm" and cfg.tile_n == 256 and cfg.epilogue == "tma", p.remarks
    assert any("epilogue round by round: 4 rounds of 64 accumulator columns" in r for r in p.remarks), p.remarks
    assert ptx_consumer_bodies(p.ptx) == int(bodies)
    assert _tanh_per_store(p.ptx) == [32] * 4 * int(bodies) + [0]
    assert _spill_bytes(p) == 0, [r for r in p.remarks if "ptxas" in r]


@needs_ptxas
def test_whole_fragment_first_behind_the_switch(monkeypatch):
    """``TILEORCH_EPILOGUE_ROUNDS=0``: the consumer body's 128 tanh before its first TMA store (one body, shared
    by the two warp groups), and ptxas spills (the reason for the rounds: 460 B stores / 444 B loads measured with
    ptxas 13.0)."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_ROUNDS", "0")
    p = _linear_gelu_128x256()
    assert any("whole fragment computed before its first store" in r for r in p.remarks), p.remarks
    assert ptx_consumer_bodies(p.ptx) == 1
    assert _tanh_per_store(p.ptx) == [128, 0, 0, 0, 0]
    assert _spill_bytes(p) > 0


@ct.kernel
def gemm_bias_gelu_f32(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """``C = gelu_tanh(A @ B + bias)`` stored as f32: the direct epilogue (no staging buffer)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    x = acc + ct.reshape(ct.load(bias, index=(bn,), shape=(tn,)), (1, tn))
    y = 0.5 * x * (1.0 + ct.tanh(GELU_C * (x + 0.044715 * x * x * x)))
    ct.store(C, index=(bm, bn), tile=y)


@pytest.mark.parametrize("rounds", ["1", "0"])
def test_direct_rounds_match_numpy_on_the_emulator(rounds, monkeypatch):
    """An f32 output takes the direct rounds too (4 x 64 columns of a 128x256 tile): every CTA of the
    persistent grid run by the PTX emulator, M and N ragged (200 x 320: a half row tile, a 64-column
    last column tile), C NaN-prefilled, against float64."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_ROUNDS", rounds)
    m, n, k = 200, 320, 96
    spec = [((m, k), "float16"), ((k, n), "float16"), ((n,), "float32"), ((m, n), "float32"), 128, 256, 64]
    # the emulator runs one CTA at a time: no multicast
    p = compile_cutile(gemm_bias_gelu_f32, spec, config="cluster_m=1")
    cfg = p.gemm_config
    assert p.kind == "gemm" and cfg.epilogue == "direct" and cfg.tile_n == 256, p.remarks
    assert any(("4 rounds of 64 accumulator columns" if rounds == "1" else "whole fragment") in r
               for r in p.remarks), p.remarks
    rng = np.random.default_rng(18)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    base = {"A": 1 << 32, "B": 2 << 32, "C": 3 << 32, "bias": 4 << 32}
    # the tile kernel's parameters after the GEMM's (each array: base, shape, strides)
    tile = [*array_params(base["A"], (m, k)), *array_params(base["B"], (k, n)), *array_params(base["bias"], (n,)),
            *array_params(base["C"], (m, n))]
    memory = [(base["C"], c.view(np.uint8).reshape(-1), "C"), (base["bias"], bias.view(np.uint8).reshape(-1), "bias")]
    errors = run_gemm(p, a, b, base["C"], (m, n, k), tile, memory)
    assert not errors, errors[:5]
    h = a.astype(np.float64) @ b.astype(np.float64) + bias
    ref = 0.5 * h * (1 + np.tanh(GELU_C * (h + 0.044715 * h ** 3)))
    assert not np.isnan(c).any()
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)
