"""GEMM then GEMM on the GPU: the programs of ``tileorch.testing.epilogue_dot_programs`` that the GEMM kernel's
second dot on the accumulator takes, through ``tileorch.cutile.launch`` on ragged M and K (arrays inside larger
NaN-filled buffers: tests/gpu/sweep_harness.gpu_run, the tails must stay NaN, the path checked), against torch
fp32; and one refused program (a rank beyond one tile) on the SIMT path.  Session 25: E stored ``[N, R]``
(nn.Linear's layout, K-major) by a transpose and a transposed view, an MLP with both weights in that layout (f16,
bf16), LoRA's three dots (N-major, and PEFT's layouts in bf16 with a rank short of its tile).  Session 26: the
second dot over several N tiles per work tile (TILEORCH_EPILOGUE_DOT_COARSEN auto, off and counts), and its refusal
where the hidden activation reads the column tile.  Skipped without a
GPU; needs torch, cuda-tile and ml_dtypes.  Run: ``python -m pytest -q tests/gpu/test_epilogue_dot_gpu.py``."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
pytest.importorskip("ml_dtypes")

UNIT = str(Path(__file__).resolve().parents[1] / "unit")
if UNIT not in sys.path:  # sweep_harness reads the CPU tests' interpreter helpers (appended: tests/gpu's come first)
    sys.path.append(UNIT)

import sweep_harness  # noqa: E402

from tileorch.testing import epilogue_dot_programs as P  # noqa: E402
from tileorch.testing.user_programs import UserProgram  # noqa: E402

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU", allow_module_level=True)

RNG = np.random.default_rng(2424)
M, K, N = 200, 200, 192
TABLE = {
    "lowrank": UserProgram(P.lowrank_scaled_bias, [((M, K), "float16"), ((K, 64), "float16"), ((64, N), "float16"),
                                                   ((N,), "float32"), ((M, N), "float16"), 0.5, 64, 128, 64, 64],
                           (2, 3), "gemm", outputs=(4,)),
    "silu": UserProgram(P.mlp_silu_one_hidden_tile, [((M, 256), "float16"), ((256, 64), "float16"),
                                                     ((64, N), "float16"), ((M, N), "float16"), 64, 64, 64, 64],
                        (4, 3), "gemm", outputs=(3,)),
    "relu128": UserProgram(P.mlp_relu_scaled, [((M, K), "float16"), ((K, 128), "float16"), ((128, N), "float16"),
                                               ((M, N), "float32"), 0.5, 128, 128, 64, 64], (2, 3), "gemm",
                           outputs=(3,)),
    "biases": UserProgram(P.mlp_biases_relu, [((M, K), "float16"), ((K, 64), "float16"), ((64,), "float32"),
                                              ((64, N), "float16"), ((N,), "float32"), ((M, N), "float16"), 64, 128,
                                              64, 64], (2, 3), "gemm", outputs=(5,)),
    "e_transposed": UserProgram(P.lowrank_e_transposed, [((M, K), "float16"), ((K, 128), "float16"),
                                                         ((N, 128), "float16"), ((M, N), "float16"), 128, 128, 128,
                                                         64], (2, 2), "gemm", outputs=(3,)),
    "e_view_transposed": UserProgram(P.lowrank_e_view_transposed, [((M, K), "float16"), ((K, 64), "float16"),
                                                                   ((N, 64), "float16"), ((M, N), "float16"), 64, 128,
                                                                   64, 64], (2, 3), "gemm", outputs=(3,)),
    "nn_linear_f16": UserProgram(P.mlp_nn_linear_weights, [((M, K), "float16"), ((72, K), "float16"),
                                                          ((72,), "float32"), ((N, 72), "float16"),
                                                          ((M, N), "float16"), 128, 128, 64, 64], (2, 3), "gemm",
                                 outputs=(4,)),
    "nn_linear_bf16": UserProgram(P.mlp_nn_linear_weights, [((M, K), "bfloat16"), ((64, K), "bfloat16"),
                                                           ((64,), "float32"), ((N, 64), "bfloat16"),
                                                           ((M, N), "bfloat16"), 64, 128, 128, 64], (2, 2), "gemm",
                                  outputs=(4,)),
    "lora": UserProgram(P.lora_linear, [((M, K), "float16"), ((K, N), "float16"), ((K, 64), "float16"),
                                        ((64, N), "float16"), ((M, N), "float16"), 0.5, 64, 128, 128, 64], (2, 2),
                        "gemm", outputs=(4,)),
    "lora_added_after": UserProgram(P.lora_added_after, [((M, K), "float16"), ((K, N), "float16"),
                                                         ((K, 64), "float16"), ((64, N), "float16"),
                                                         ((M, N), "float16"), 0.5, 64, 128, 128, 64], (2, 2), "gemm",
                                    outputs=(4,)),
    "lora_peft_bf16": UserProgram(P.lora_nn_linear, [((M, K), "bfloat16"), ((N, K), "bfloat16"), ((40, K), "bfloat16"),
                                                     ((N, 40), "bfloat16"), ((N,), "float32"), ((M, N), "bfloat16"),
                                                     0.5, 64, 128, 64, 64], (2, 3), "gemm", outputs=(5,)),
    "refused_rank_tile_one": UserProgram(P.refused_rank_tile_one, [((M, K), "float16"), ((K, 64), "float16"),
                                                                  ((128, N), "float16"), ((M, N), "float16"), 64, 128,
                                                                  64, 64], (2, 3), "simt", outputs=(3,)),
}


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _t(x):
    return torch.from_numpy(np.asarray(x, np.float32)).cuda()


def _check(out, ref, atol):
    out = np.asarray(out, np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref.double().cpu().numpy(), atol=atol, rtol=1e-2)


def test_lowrank_scaled_bias():
    x, la, lb = _h(M, K), _h(K, 64, scale=0.125), _h(64, N, scale=0.25)
    bias = RNG.standard_normal(N).astype(np.float32)
    y = sweep_harness.gpu_run(TABLE, "lowrank", {0: x, 1: la, 2: lb, 3: bias})[4]
    _check(y, 0.5 * ((_t(x) @ _t(la)).half().float() @ _t(lb)) + _t(bias)[None, :], 3e-2)


def test_mlp_silu_one_hidden_tile():
    x, w1, w2 = _h(M, 256), _h(256, 64, scale=0.125), _h(64, N, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "silu", {0: x, 1: w1, 2: w2})[3]
    _check(y, torch.nn.functional.silu(_t(x) @ _t(w1)).half().float() @ _t(w2), 3e-2)


def test_mlp_relu_hidden_128_f32_output():
    x, w1, w2 = _h(M, K), _h(K, 128, scale=0.25), _h(128, N, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "relu128", {0: x, 1: w1, 2: w2})[3]
    _check(y, torch.relu(0.5 * (_t(x) @ _t(w1))).half().float() @ _t(w2), 2e-2)


def test_mlp_biases_relu():
    x, w1, w2 = _h(M, K), _h(K, 64, scale=0.125), _h(64, N, scale=0.25)
    b1, b2 = (RNG.standard_normal(s).astype(np.float32) for s in (64, N))
    y = sweep_harness.gpu_run(TABLE, "biases", {0: x, 1: w1, 2: b1, 3: w2, 4: b2})[5]
    a = torch.relu(_t(x) @ _t(w1) + _t(b1)[None, :]).half().float()
    _check(y, a @ _t(w2) + _t(b2)[None, :], 3e-2)


def test_refused_rank_beyond_one_tile_runs_on_the_simt_path():
    x, la, lb = _h(M, K), _h(K, 64, scale=0.125), _h(128, N, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "refused_rank_tile_one", {0: x, 1: la, 2: lb})[3]
    _check(y, (_t(x) @ _t(la)).half().float() @ _t(lb[64:]), 3e-2)


# ------------------------------------------------------------------- session 25: K-major E (nn.Linear's layout), LoRA


def _f(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _bf(x):
    return _t(x).bfloat16().float()


def test_e_stored_n_by_r_read_by_a_transpose():
    x, la, lbt = _h(M, K), _h(K, 128, scale=0.125), _h(N, 128, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "e_transposed", {0: x, 1: la, 2: lbt})[3]
    _check(y, (_t(x) @ _t(la)).half().float() @ _t(lbt).T, 3e-2)


def test_e_stored_n_by_r_read_through_a_transposed_view():
    x, la, lbt = _h(M, K), _h(K, 64, scale=0.125), _h(N, 64, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "e_view_transposed", {0: x, 1: la, 2: lbt})[3]
    _check(y, (_t(x) @ _t(la)).half().float() @ _t(lbt).T, 3e-2)


def test_mlp_with_both_weights_in_nn_linear_layout_f16():
    """Hidden width 72 in a 128 tile (W1's rows and W2's columns past it zero-filled by TMA)."""
    x, w1, w2, b1 = _h(M, K), _h(72, K, scale=0.125), _h(N, 72, scale=0.25), _f(72)
    y = sweep_harness.gpu_run(TABLE, "nn_linear_f16", {0: x, 1: w1, 2: b1, 3: w2})[4]
    a = torch.nn.functional.silu(_t(x) @ _t(w1).T + _t(b1)[None, :]).half().float()
    _check(y, a @ _t(w2).T, 3e-2)


def test_mlp_with_both_weights_in_nn_linear_layout_bf16():
    x, w1, w2, b1 = _f(M, K), _f(64, K, scale=0.125), _f(N, 64, scale=0.25), _f(64)
    y = sweep_harness.gpu_run(TABLE, "nn_linear_bf16", {0: x, 1: w1, 2: b1, 3: w2})[4]
    a = torch.nn.functional.silu(_bf(x) @ _bf(w1).T + _t(b1)[None, :]).bfloat16().float()
    _check(y, a @ _bf(w2).T, 6e-2)


def test_lora_low_rank_branch_onto_the_main_dot():
    x, w, la, lb = _h(M, K), _h(K, N, scale=0.125), _h(K, 64, scale=0.125), _h(64, N, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "lora", {0: x, 1: w, 2: la, 3: lb})[4]
    _check(y, _t(x) @ _t(w) + (0.5 * (_t(x) @ _t(la))).half().float() @ _t(lb), 3e-2)


def test_lora_product_added_after_its_own_dot():
    x, w, la, lb = _h(M, K), _h(K, N, scale=0.125), _h(K, 64, scale=0.125), _h(64, N, scale=0.25)
    y = sweep_harness.gpu_run(TABLE, "lora_added_after", {0: x, 1: w, 2: la, 3: lb})[4]
    _check(y, _t(x) @ _t(w) + 0.5 * ((_t(x) @ _t(la)).half().float() @ _t(lb)), 3e-2)


def test_lora_peft_layouts_bf16_rank_40():
    x, w, la, lb, bias = _f(M, K), _f(N, K, scale=0.125), _f(40, K, scale=0.125), _f(N, 40, scale=0.25), _f(N)
    y = sweep_harness.gpu_run(TABLE, "lora_peft_bf16", {0: x, 1: w, 2: la, 3: lb, 4: bias})[5]
    t = (0.5 * (_bf(x) @ _bf(la).T)).bfloat16().float()
    _check(y, _bf(x) @ _bf(w).T + t @ _bf(lb).T + _t(bias)[None, :], 6e-2)


# ------------------------------------------------------------------- session 26: the second dot over several N tiles

N_WIDE = 600  # 5 N tiles of 128, the last 88 wide
TABLE.update({
    "biases_wide": UserProgram(P.mlp_biases_relu, [((M, K), "float16"), ((K, 64), "float16"), ((64,), "float32"),
                                                   ((64, N_WIDE), "float16"), ((N_WIDE,), "float32"),
                                                   ((M, N_WIDE), "float16"), 64, 128, 128, 64], (2, 5), "gemm",
                               outputs=(5,)),
    "nn_linear_wide_bf16": UserProgram(P.mlp_nn_linear_weights, [((M, K), "bfloat16"), ((64, K), "bfloat16"),
                                                                ((64,), "float32"), ((N_WIDE, 64), "bfloat16"),
                                                                ((M, N_WIDE), "bfloat16"), 64, 128, 128, 64], (2, 5),
                                       "gemm", outputs=(4,)),
    "column_tile_scaled": UserProgram(P.mlp_hidden_scaled_by_column_tile,
                                      [((M, K), "float16"), ((K, 64), "float16"), ((64, 384), "float16"),
                                       ((M, 384), "float16"), 64, 128, 128, 64], (2, 3), "gemm", outputs=(3,)),
})


@pytest.mark.parametrize("coarsen", ["auto", "off", "2", "3", "5"])
def test_mlp_biases_over_several_n_tiles_per_work_tile(coarsen, monkeypatch):
    """``TILEORCH_EPILOGUE_DOT_COARSEN``: each work tile computes the first dot once and runs the second dot and
    C's store for c of the 5 N tiles (2 and 3 do not divide 5; off: one N tile per work tile); ragged M and the
    last N tile, the second bias at each N tile's columns."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", coarsen)
    x, w1, w2 = _h(M, K), _h(K, 64, scale=0.125), _h(64, N_WIDE, scale=0.25)
    b1, b2 = (RNG.standard_normal(s).astype(np.float32) for s in (64, N_WIDE))
    y, counts = _run_counted("biases_wide", {0: x, 1: w1, 2: b1, 3: w2, 4: b2})
    a = torch.relu(_t(x) @ _t(w1) + _t(b1)[None, :]).half().float()
    _check(y[5], a @ _t(w2) + _t(b2)[None, :], 3e-2)
    # (auto: 2 M tiles leave the SMs room for every N tile on its own)
    assert counts == [1 if coarsen in ("auto", "off") else int(coarsen)], counts


def _run_counted(name: str, inputs: dict) -> tuple[dict, list[int]]:
    """``gpu_run`` from fresh launcher caches (the setting is read at compile and launch), and the N tiles per work
    tile its launch was prepared with."""
    from tileorch.launchers import cutile as rc

    rc.clear_caches()
    try:
        out = sweep_harness.gpu_run(TABLE, name, inputs)
        return out, [getattr(p, "epi_c", None) for p in rc._prepared.values()]
    finally:
        rc.clear_caches()


def test_nn_linear_mlp_bf16_three_n_tiles_per_work_tile(monkeypatch):
    """K-major E streamed through the two-stage pipeline, 3 of the 5 N tiles per work tile."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", "3")
    x, w1, w2, b1 = _f(M, K), _f(64, K, scale=0.125), _f(N_WIDE, 64, scale=0.25), _f(64)
    y, counts = _run_counted("nn_linear_wide_bf16", {0: x, 1: w1, 2: b1, 3: w2})
    a = torch.nn.functional.silu(_bf(x) @ _bf(w1).T + _t(b1)[None, :]).bfloat16().float()
    _check(y[4], a @ _bf(w2).T, 6e-2)
    assert counts == [3], counts


def test_hidden_activation_reading_the_column_tile(monkeypatch):
    """``relu(x W1) * (bn + 1)``: the second dot's A reads program id 1, so the kernel keeps one N tile per work
    tile whatever the setting asks."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", "3")
    x, w1, w2 = _h(M, K), _h(K, 64, scale=0.125), _h(64, 384, scale=0.25)
    y, counts = _run_counted("column_tile_scaled", {0: x, 1: w1, 2: w2})
    relu = torch.relu(_t(x) @ _t(w1))
    ref = torch.cat([(relu * (j + 1)).half().float() @ _t(w2)[:, 128 * j:128 * (j + 1)] for j in range(3)], dim=1)
    _check(y[3], ref, 3e-2)
    assert counts == [1], counts
