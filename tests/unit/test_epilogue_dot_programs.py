"""Programs whose second dot reads a K loop's result after the loop (``tileorch.testing.epilogue_dot_programs``,
GEMM then GEMM): the GEMM kernel's second dot on the accumulator (``transforms/tileas/epilogue_dot.py``) takes
them, says so in a remark, and their PTX run CTA by CTA on the CPU by ``tileorch.testing.ptx_emulator``
matches numpy (ragged M, N and K, outputs NaN-prefilled); the shapes it does not take are refused at the
program's line and run on the SIMT path.  Needs cuda-tile and ml_dtypes, no GPU, no ptxas (the spill check
skips without it)."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

from tileorch.testing import epilogue_dot_programs as P  # noqa: E402

RNG = np.random.default_rng(2024)
EMULATE = "cluster_m=1,epilogue=direct"
"""The emulator's subset of the kernel (direct stores; the second dot already runs 1-CTA clusters)."""
NAN_RESULTS = False
"""Set by a test whose outputs may be NaN (:func:`_emulate` then leaves them; its sentinel prefill shows unwritten
ones)."""


def _spec(*items):
    return [(s, dt) if isinstance(s, tuple) else s for s, dt in items]


def _a(shape, dt="float16"):
    return (shape, dt)


def _h(*shape, scale=1.0):
    return (RNG.standard_normal(shape) * scale).astype(np.float16)


def _compile(kernel, spec, config=EMULATE):
    from tileorch.testing.gemm_emulation import compile_cutile

    return compile_cutile(kernel, spec, kernel.__name__ if hasattr(kernel, "__name__") else "k", config=config)


def _lower(kernel, spec, config=""):
    """The lowering's record of ``kernel`` (its kind, remarks, GEMM configuration) without the back end, for the
    tests whose point is the tier's decision and not the PTX (``tileorch.testing.compile_memo.lower_once``: a
    refused program's SIMT back end was ~4/5 of its compile's CPU)."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    return lower_once(cutile_bytecode(kernel, spec), kernel.__name__ if hasattr(kernel, "__name__") else "k",
                      arch="sm_90a", config=config)


def _emulate(kernel, spec, inputs: dict, out: int, e: int, more_b: tuple[int, ...] = (), epi_c: int = 1,
             config: str = EMULATE):
    """Run the program on its spec's shapes (A argument 0, B 1, E ``e``, C ``out``, the other Bs ``more_b``; a kernel
    looping over N tiles, ``epi_c`` of them per work tile; ``config``: the compile's overrides); returns its
    output."""
    errors, y = _emulate_program(_compile(kernel, spec, config), kernel, spec, inputs, out, e, more_b, epi_c)
    assert not errors, errors[:4]
    assert NAN_RESULTS or not np.isnan(y).any(), "unwritten outputs"
    return y


def _emulate_program(prog, kernel, spec, inputs: dict, out: int, e: int, more_b: tuple[int, ...] = (),
                     epi_c: int = 1):
    """:func:`_emulate` of the compiled ``prog`` (its PTX as given; ``e`` None: no second dot): (the emulator's
    errors, the output)."""
    import test_user_sweep3_emulated as s3

    from tileorch.testing.gemm_emulation import run_gemm
    from tileorch.testing.user_programs import UserProgram

    assert prog.kind == "gemm", prog.remarks
    p = UserProgram(kernel, spec, (1,), "gemm", outputs=(out,))
    arrays = s3._arrays(p, inputs)
    bases = {i: (i + 1) << 32 for i in arrays}
    args = s3._described(p, bases)
    tile = s3._tile_params(p, args, bases)
    (m, k), n = arrays[0].shape, arrays[out].shape[1]
    memory = [(bases[i], arrays[i].view(np.uint8).reshape(-1), f"arg{i}") for i in arrays
              if i not in (0, 1, e, *more_b)]
    errors = run_gemm(prog, arrays[0], arrays[1], bases[out], (m, n, k), tile, memory,
                      more_b=[arrays[i] for i in more_b], epi=None if e is None else arrays[e], epi_c=epi_c)
    return errors, arrays[out].astype(np.float64)


def _f16(x):
    return np.asarray(x, np.float64).astype(np.float16).astype(np.float64)


def test_lowrank_chain_with_an_epilogue_on_the_second_accumulator():
    m, k, r, n = 200, 200, 64, 130
    spec = [_a((m, k)), _a((k, r)), _a((r, n)), _a((n,), "float32"), _a((m, n)), 0.5, r, 128, 64, 64]
    x, la, lb = _h(m, k), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    bias = RNG.standard_normal(n).astype(np.float32)
    y = _emulate(P.lowrank_scaled_bias, spec, {0: x, 1: la, 2: lb, 3: bias}, 4, 2)
    t = _f16(x.astype(np.float64) @ la.astype(np.float64))  # the program rounds the rank-R product to f16
    np.testing.assert_allclose(y, 0.5 * (t @ lb.astype(np.float64)) + bias[None, :], atol=2e-2, rtol=1e-2)



def test_lowrank_chain_with_a_ragged_rank():
    """A rank of 48 in a 64-column tile: B's columns and E's rows past 48 are TMA's zeros, as the program's
    padded loads; ragged M and N beside it."""
    m, k, r, n = 130, 200, 48, 130
    spec = [_a((m, k)), _a((k, r)), _a((r, n)), _a((n,), "float32"), _a((m, n)), 0.5, 64, 128, 128, 64]
    x, la, lb = _h(m, k), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    bias = RNG.standard_normal(n).astype(np.float32)
    y = _emulate(P.lowrank_scaled_bias, spec, {0: x, 1: la, 2: lb, 3: bias}, 4, 2)
    t = _f16(x.astype(np.float64) @ la.astype(np.float64))
    np.testing.assert_allclose(y, 0.5 * (t @ lb.astype(np.float64)) + bias[None, :], atol=2e-2, rtol=1e-2)


def test_a_mask_on_the_hidden_positions_between_the_dots():
    """A ``ct.where`` on the hidden column positions (below a runtime bound) between the dots: the masked
    columns, whose exponential would be 1, add nothing (ragged M and N)."""
    m, k, h, n, valid = 130, 200, 64, 130, 40
    spec = [_a((m, k)), _a((k, h)), _a((h, n)), _a((m, n)), valid, 64, 128, 128, 64]
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.125), _h(h, n, scale=0.25)
    y = _emulate(P.mlp_exp_masked_hidden, spec, {0: x, 1: w1, 2: w2}, 3, 2)
    a = _f16(np.exp(0.125 * (x.astype(np.float64) @ w1.astype(np.float64))))
    a[:, valid:] = 0.0
    np.testing.assert_allclose(y, a @ w2.astype(np.float64), atol=2e-2, rtol=1e-2)

def test_fused_mlp_silu_between_the_dots():
    m, k, h, n = 130, 256, 64, 192
    spec = [_a((m, k)), _a((k, h)), _a((h, n)), _a((m, n)), h, 64, 64, 64]
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.125), _h(h, n, scale=0.25)
    y = _emulate(P.mlp_silu_one_hidden_tile, spec, {0: x, 1: w1, 2: w2}, 3, 2)
    z = x.astype(np.float64) @ w1.astype(np.float64)
    np.testing.assert_allclose(y, _f16(_f16(z / (1 + np.exp(-z))) @ w2.astype(np.float64)), atol=2e-2, rtol=1e-2)


def test_fused_mlp_relu_hidden_128_f32_output():
    m, k, h, n = 100, 72, 128, 64
    spec = [_a((m, k)), _a((k, h)), _a((h, n)), _a((m, n), "float32"), 0.5, h, 128, 64, 64]
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.25), _h(h, n, scale=0.25)
    y = _emulate(P.mlp_relu_scaled, spec, {0: x, 1: w1, 2: w2}, 3, 2)
    a = _f16(np.maximum(0.5 * (x.astype(np.float64) @ w1.astype(np.float64)), 0))
    np.testing.assert_allclose(y, a @ w2.astype(np.float64), atol=1e-2, rtol=1e-2)


def test_fused_mlp_with_biases_reads_a_vector_between_the_dots():
    """``relu(x W1 + b1) W2 + b2``: the first bias, a vector along the first accumulator's columns (the hidden
    units), is read per element in the packing; the second on the second accumulator's (the outputs)."""
    m, k, h, n = 200, 136, 64, 128
    spec = [_a((m, k)), _a((k, h)), _a((h,), "float32"), _a((h, n)), _a((n,), "float32"), _a((m, n)), h, 128, 64, 64]
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.125), _h(h, n, scale=0.25)
    b1, b2 = (RNG.standard_normal(s).astype(np.float32) for s in (h, n))
    y = _emulate(P.mlp_biases_relu, spec, {0: x, 1: w1, 2: b1, 3: w2, 4: b2}, 5, 3)
    a = _f16(np.maximum(x.astype(np.float64) @ w1.astype(np.float64) + b1[None, :], 0))
    np.testing.assert_allclose(y, a @ w2.astype(np.float64) + b2[None, :], atol=2e-2, rtol=1e-2)


N_LOOP_REMARK = "remark: the first dot once per work tile, the second dot over N tiles"


@pytest.mark.parametrize("epi_c", [1, 2, 3, 5])
def test_fused_mlp_loops_over_the_n_tiles_of_a_work_tile(epi_c):
    """``relu(x W1 + b1) W2 + b2`` on 5 N tiles of 128 columns (the last 88 wide): each work tile computes the
    first dot once and runs the second dot and C's store for ``epi_c`` N tiles (2 and 3 do not divide 5: the
    last work tile of each row covers fewer), the second bias read at each N tile's columns; ragged M and K,
    C NaN-prefilled."""
    m, k, h, n = 200, 136, 64, 600
    spec = [_a((m, k)), _a((k, h)), _a((h,), "float32"), _a((h, n)), _a((n,), "float32"), _a((m, n)), h, 128, 128, 64]
    prog = _compile(P.mlp_biases_relu, spec)
    assert prog.gemm_config.epi_loop and prog.gemm_config.epi_stages == 2, prog.gemm_config
    assert any(r.startswith(N_LOOP_REMARK) for r in prog.remarks), prog.remarks
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.125), _h(h, n, scale=0.25)
    b1, b2 = (RNG.standard_normal(s).astype(np.float32) for s in (h, n))
    y = _emulate(P.mlp_biases_relu, spec, {0: x, 1: w1, 2: b1, 3: w2, 4: b2}, 5, 3, epi_c=epi_c)
    a = _f16(np.maximum(x.astype(np.float64) @ w1.astype(np.float64) + b1[None, :], 0))
    np.testing.assert_allclose(y, _f16(a @ w2.astype(np.float64) + b2[None, :]), atol=2e-2, rtol=1e-2)


def test_nn_linear_mlp_loops_over_n_tiles_with_a_k_major_e():
    """Both weights in nn.Linear's layout (E ``[N, H]``, K-major): E's tiles stream through the two-stage pipeline
    as ``epi_n``-row boxes; 3 N tiles per work tile of 4 (the last 44 columns wide); bf16."""
    m, k, h, n = 130, 200, 64, 300
    spec = [_a((m, k), "bfloat16"), _a((h, k), "bfloat16"), _a((h,), "float32"), _a((n, h), "bfloat16"),
            _a((m, n), "bfloat16"), 64, 128, 64, 64]
    prog = _compile(P.mlp_nn_linear_weights, spec)
    assert prog.gemm_config.epi_loop and prog.gemm_config.epi_major == "k", prog.gemm_config
    x, w1, w2 = _bf(m, k), _bf(h, k, scale=0.125), _bf(n, h, scale=0.25)
    b1 = RNG.standard_normal(h).astype(np.float32)
    y = _emulate(P.mlp_nn_linear_weights, spec, {0: x, 1: w1, 2: b1, 3: w2, 4: np.full((m, n), np.nan, x.dtype)}, 4,
                 3, epi_c=3)
    z = x.astype(np.float64) @ w1.astype(np.float64).T + b1[None, :]
    a = _round(z / (1 + np.exp(-z)), x)
    np.testing.assert_allclose(y, _round(a @ w2.astype(np.float64).T, x), atol=3e-2, rtol=2e-2)


def test_a_hidden_activation_reading_the_column_tile_keeps_one_n_tile_per_work_tile():
    """``relu(x W1) * (bn + 1)``: the second dot's A reads program id 1, so the kernel does not loop over N tiles
    (a remark says why) and still matches numpy, one N tile per work tile."""
    m, k, h, n = 130, 128, 64, 384
    spec = [_a((m, k)), _a((k, h)), _a((h, n)), _a((m, n)), h, 128, 128, 64]
    prog = _compile(P.mlp_hidden_scaled_by_column_tile, spec)
    assert not prog.gemm_config.epi_loop, prog.gemm_config
    assert any("one N tile per work tile (the first dot recomputed for each): the second dot's A reads program id 1"
               in r for r in prog.remarks), prog.remarks
    x, w1, w2 = _h(m, k), _h(k, h, scale=0.125), _h(h, n, scale=0.25)
    y = _emulate(P.mlp_hidden_scaled_by_column_tile, spec, {0: x, 1: w1, 2: w2}, 3, 2)
    relu = np.maximum(x.astype(np.float64) @ w1.astype(np.float64), 0)
    want = np.concatenate([_f16(relu * (j + 1)) @ w2[:, 128 * j:128 * (j + 1)].astype(np.float64) for j in range(3)],
                          axis=1)
    np.testing.assert_allclose(y, _f16(want), atol=2e-2, rtol=1e-2)


def test_the_setting_off_keeps_one_n_tile_per_work_tile(monkeypatch):
    """``TILEORCH_EPILOGUE_DOT_COARSEN=off``: the kernel of session 25 (one N tile per work tile, E's one-stage
    pipeline), with a remark naming the setting."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", "off")
    spec = [_a((200, 256)), _a((256, 64)), _a((64, 192)), _a((200, 192)), 64, 128, 128, 64]
    prog = _lower(P.mlp_silu_one_hidden_tile, spec)
    assert not prog.gemm_config.epi_loop and prog.gemm_config.epi_stages == 1, prog.gemm_config
    assert any("one N tile per work tile (the first dot recomputed for each): TILEORCH_EPILOGUE_DOT_COARSEN=off" in r
               for r in prog.remarks), prog.remarks


def _bf(*shape, scale=1.0):
    import ml_dtypes

    return (RNG.standard_normal(shape) * scale).astype(ml_dtypes.bfloat16)


def _round(x, like):
    """``x`` rounded to ``like``'s element type (f16 or bf16), as f64."""
    return np.asarray(x, np.float64).astype(like.dtype).astype(np.float64)


def test_k_major_e_read_by_a_transpose():
    """E given ``[N2, R]`` (nn.Linear's layout) and its ``[tn, R]`` tile turned by ``ct.transpose``: the second
    dot's B K-major (rank 48 short of the 64-column tile: E's columns past it are TMA's zeros; ragged M and N)."""
    m, k, r, n = 130, 200, 48, 130
    spec = [_a((m, k)), _a((k, r)), _a((n, r)), _a((m, n)), 64, 128, 64, 64]
    x, la, lbt = _h(m, k), _h(k, r, scale=0.125), _h(n, r, scale=0.25)
    y = _emulate(P.lowrank_e_transposed, spec, {0: x, 1: la, 2: lbt}, 3, 2)
    t = _f16(x.astype(np.float64) @ la.astype(np.float64))
    np.testing.assert_allclose(y, _f16(t @ lbt.astype(np.float64).T), atol=2e-2, rtol=1e-2)


def test_k_major_e_read_through_a_transposed_view():
    """E given ``[N2, R]`` read as ``[R, tn]`` tiles of a view with its dimensions swapped (``order=(1, 0)``):
    K-major as by a transpose; rank 128 (two 64-column K boxes of E), output tile 128."""
    m, k, r, n = 200, 136, 128, 250
    spec = [_a((m, k)), _a((k, r)), _a((n, r)), _a((m, n)), r, 128, 128, 64]
    x, la, lbt = _h(m, k), _h(k, r, scale=0.125), _h(n, r, scale=0.25)
    y = _emulate(P.lowrank_e_view_transposed, spec, {0: x, 1: la, 2: lbt}, 3, 2)
    t = _f16(x.astype(np.float64) @ la.astype(np.float64))
    np.testing.assert_allclose(y, _f16(t @ lbt.astype(np.float64).T), atol=2e-2, rtol=1e-2)


def test_a_transposed_view_and_a_transpose_cancel():
    """E given ``[R, N2]`` read through a transposed view as a ``[tn, R]`` tile and transposed back: N-major."""
    m, k, r, n = 130, 200, 64, 192
    spec = [_a((m, k)), _a((k, r)), _a((r, n)), _a((m, n)), r, 128, 64, 64]
    prog = _compile(P.lowrank_e_view_and_tile_transposed, spec)
    assert prog.gemm_config.epi_major == "n", prog.gemm_config
    x, la, lb = _h(m, k), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    y = _emulate(P.lowrank_e_view_and_tile_transposed, spec, {0: x, 1: la, 2: lb}, 3, 2)
    t = _f16(x.astype(np.float64) @ la.astype(np.float64))
    np.testing.assert_allclose(y, _f16(t @ lb.astype(np.float64)), atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("dtype,h,hidden,tn", [("float16", 128, 128, 64), ("float16", 72, 128, 128),
                                               ("bfloat16", 128, 128, 128), ("bfloat16", 40, 64, 256)])
def test_mlp_with_both_weights_in_nn_linear_layout(dtype, h, hidden, tn):
    """``silu(x W1^T + b1) W2^T``, ``W1 [H, K]`` and ``W2 [N, H]``: both dots' B K-major (W1's tiles TMA-read
    as ``[H, tk]`` boxes, W2's as ``tile_n / 64`` K-row boxes); a hidden width short of the tile (72 of 128,
    40 of 64: the padded hidden units are silu(0) = 0 times W2's zero-filled columns); ragged M, N and K;
    f16 and bf16 (the PTX emulator's WGMMA reads bf16 bits as bf16)."""
    m, k, n = 130, 200, 300
    make = _h if dtype == "float16" else _bf
    spec = [_a((m, k), dtype), _a((h, k), dtype), _a((h,), "float32"), _a((n, h), dtype), _a((m, n), dtype), hidden,
            128, tn, 64]
    x, w1, w2 = make(m, k), make(h, k, scale=0.125), make(n, h, scale=0.25)
    b1 = RNG.standard_normal(h).astype(np.float32)
    y = _emulate(P.mlp_nn_linear_weights, spec, {0: x, 1: w1, 2: b1, 3: w2, 4: np.full((m, n), np.nan, x.dtype)}, 4,
                 3)
    z = x.astype(np.float64) @ w1.astype(np.float64).T + b1[None, :]
    a = _round(z / (1 + np.exp(-z)), x)
    np.testing.assert_allclose(y, _round(a @ w2.astype(np.float64).T, x), atol=3e-2, rtol=2e-2)


def test_sweep18_squared_relu_mlp_with_w2_stored_n_by_h():
    """Sweep 18's ``mlp_relu_sq_chain_wt`` (``W2`` ``[N, H]`` read by ``ct.transpose``), at its table's shapes,
    on the GEMM kernel's second dot with a K-major E."""
    from tileorch.testing import user_programs18 as U

    spec = U.PROGRAMS["mlp_relu_sq_chain_wt"].spec
    x, w1, w2t = _h(200, 256), _h(256, 64, scale=0.125), _h(192, 64, scale=0.25)
    y = _emulate(U.mlp_relu_sq_chain_wt, spec, {0: x, 1: w1, 2: w2t}, 3, 2)
    z = np.maximum(x.astype(np.float64) @ w1.astype(np.float64), 0.0)
    np.testing.assert_allclose(y, _f16(_f16(z * z) @ w2t.astype(np.float64).T), atol=2e-2, rtol=1e-2)


def test_a_k_range_of_the_programs_own_beside_the_second_dot():
    """``range(1, K tiles)`` (the first K tile skipped) beside the second dot: the K loop's trip count and first tile
    evaluated per work tile, as in the plain GEMM (refused until session 29); ragged M and K, Y NaN-prefilled."""
    m, k, r, n = 200, 200, 64, 192
    spec = [_a((m, k)), _a((k, r)), _a((r, n)), _a((m, n)), r, 128, 64, 64]
    x, la, lb = _h(m, k), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    y = _emulate(P.k_range_from_tile_one, spec, {0: x, 1: la, 2: lb}, 3, 2)
    t = _f16(x[:, 64:].astype(np.float64) @ la[64:].astype(np.float64))
    np.testing.assert_allclose(y, t @ lb.astype(np.float64), atol=2e-2, rtol=1e-2)


REFUSED = {
    "lowrank_scaled_bias@R32": ([_a((200, 256)), _a((256, 32)), _a((32, 192)), _a((192,), "float32"), _a((200, 192)),
                                 0.5, 32, 128, 64, 64], "the first dot's N (the second dot's K) is 32", "y = ct.mma("),
    "refused_rank_tile_one": ([_a((200, 256)), _a((256, 64)), _a((128, 192)), _a((200, 192)), 64, 128, 64, 64],
                              "row tile index other than the constant 0", "Lb, index=(1, bn)"),
    "refused_a_reads_a_tile": ([_a((200, 256)), _a((256, 64)), _a((200, 64)), _a((64, 192)), _a((200, 192)), 64, 128,
                                64, 64], "more than an elementwise function of the first dot's accumulator",
                               "ct.load(G, "),
    "refused_second_acc_loaded": ([_a((200, 256)), _a((256, 64)), _a((64, 192)), _a((200, 192), "float32"),
                                   _a((200, 192), "float32"), 64, 128, 64, 64], "starts from a value other than zeros",
                                  "y = ct.mma("),
    "refused_e8_second_dot": ([_a((200, 256)), _a((256, 64)), _a((192, 64), "float8_e4m3fn"), _a((200, 192)), 64,
                               128, 64, 64], "the second dot's operands are f8E4M3FN: a K-major E", "y = ct.mma("),
    "refused_mixed_dot_types@e4m3": ([_a((200, 256)), _a((256, 64)), _a((64, 192), "float8_e4m3fn"),
                                      _a((200, 192)), 64, 128, 64, 64],
                                     "the second dot's operands are f8E4M3FN: an N-major E (stored [K2, N2]) never "
                                     "runs", "y = ct.mma("),
    "refused_lora_onto_a_loaded_tile": ([_a((200, 256)), _a((256, 192)), _a((256, 64)), _a((64, 192)),
                                         _a((200, 192), "float32"), _a((200, 192)), 64, 128, 128, 64],
                                        "accumulates into a value other than the main dot's accumulator or zeros",
                                        "lo = ct.mma("),
    "refused_mixed_dot_types": ([_a((200, 256)), _a((256, 64)), _a((64, 192), "bfloat16"), _a((200, 192)), 64, 128,
                                 64, 64], "the first dot's operands are f16 and the second's bf16", "y = ct.mma("),
    "refused_e_computed": ([_a((200, 256)), _a((256, 64)), _a((64, 192)), _a((200, 192)), 64, 128, 64, 64],
                           "the second dot's B is not a TMA tile load of an argument", "y = ct.mma("),
    "refused_e_fixed_column": ([_a((200, 256)), _a((256, 64)), _a((64, 192)), _a((200, 192)), 64, 128, 64, 64],
                               "column tile index other than program id 1", "ct.load(Lb, index=(0, 0)"),
    "refused_first_b_at_column_tile": ([_a((200, 256)), _a((256, 384)), _a((64, 384)), _a((200, 384)), 64, 128, 64,
                                        64], "the first dot's B is read at a column tile index other than the constant "
                                        "0", "ct.load(W1, index=(k, bn)"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_at_the_programs_line(name):
    import inspect

    spec, words, source = REFUSED[name]
    kernel = getattr(P, name.split("@")[0])
    prog = _lower(kernel, spec)
    assert prog.kind == "simt", prog.remarks
    here = re.escape(P.__file__)
    hits = [r for r in prog.remarks if re.match(rf"{here}:\d+:\d+: warning: convert-nv-tileas-to-cutlass: a dot on "
                                                 "the K loop's result: ", r)]
    assert hits and words in hits[0], prog.remarks
    line = int(hits[0].split(":")[1])
    assert source in inspect.getsource(P).splitlines()[line - 1], (line, hits[0])



def test_e_padded_with_nan_is_refused_at_its_load():
    """E loaded with ``padding_mode=NAN`` is refused at its load with the tier's padding reason (TMA pads
    with zeros), as a first dot's operand is; not as an operand that is not a TMA load."""
    import inspect

    spec = [_a((200, 256)), _a((256, 48)), _a((48, 192)), _a((200, 192)), 64, 128, 64, 64]
    prog = _lower(P.refused_e_padded_nan, spec)
    assert prog.kind == "simt", prog.remarks
    here = re.escape(P.__file__)
    hits = [r for r in prog.remarks if re.match(rf"{here}:\d+:\d+: warning: this dot operand is loaded with "
                                                 "padding_mode=NAN", r)]
    assert hits, prog.remarks
    line = int(hits[0].split(":")[1])
    assert "padding_mode=ct.PaddingMode.NAN" in inspect.getsource(P).splitlines()[line - 1], (line, hits[0])

PROGRAMS = {
    "lowrank_scaled_bias": [_a((200, 200)), _a((200, 64)), _a((64, 192)), _a((192,), "float32"), _a((200, 192)), 0.5,
                            64, 128, 128, 64],
    "mlp_silu_one_hidden_tile": [_a((200, 256)), _a((256, 64)), _a((64, 192)), _a((200, 192)), 64, 128, 256, 64],
    "mlp_relu_scaled": [_a((200, 200)), _a((200, 128)), _a((128, 128)), _a((200, 128), "float32"), 0.5, 128, 128, 128,
                        64],
    "mlp_nn_linear_weights": [_a((200, 200)), _a((128, 200)), _a((128,), "float32"), _a((256, 128)), _a((200, 256)),
                              128, 128, 128, 64],
    "mlp_nn_linear_weights@bf16": [_a((200, 200), "bfloat16"), _a((64, 200), "bfloat16"), _a((64,), "float32"),
                                   _a((256, 64), "bfloat16"), _a((200, 256), "bfloat16"), 64, 128, 256, 64],
    "lowrank_e_transposed": [_a((200, 256)), _a((256, 128)), _a((192, 128)), _a((200, 192)), 128, 128, 128, 64],
}
"""The programs at the tiles a user would pick (128-row tiles, N tiles of 128 and 256: a stage then holds E's
64 x 256 tile, larger than a K step's), as compiled by default."""


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_default_compile_takes_the_gemm_tier_and_assembles_without_spills(name):
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    prog = _compile(getattr(P, name.split("@")[0]), PROGRAMS[name], config="")
    assert prog.kind == "gemm", prog.remarks
    assert any(r.startswith("remark: a dot on the K loop's result: ") for r in prog.remarks), prog.remarks
    cfg = prog.gemm_config
    assert cfg.epi_n == PROGRAMS[name][-2] and cfg.tile_n == PROGRAMS[name][-4], cfg
    k_major = "transposed" in name or "nn_linear" in name  # E stored [N2, R]
    assert cfg.epi_major == ("k" if k_major else "n"), cfg
    assert any(("stored [N2, K2]: K-major" if k_major else "stored [K2, N2]: N-major") in r for r in prog.remarks)
    rank, n, t = cfg.tile_n, cfg.epi_n, cfg.dtype
    # register A, B from shared memory: the immediate after the descriptor's scale-d is tnspB (1: N-major)
    mma = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{n}k16\.f32\.{t}\.{t}\s+\{{[^}}]*\}},\s*\{{[^}}]*\}},"
                     r"\s*%rd\d+,\s*[^,]+,\s*1,\s*1,\s*(\d);", prog.ptx)
    assert mma == ["0" if k_major else "1"] * (rank // 16 * cfg.consumer_groups), mma
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


@pytest.mark.parametrize("source,tiles", [("tier_epilogue_dot.mlir", (64, 128, 0, "n")),
                                          ("tier_epilogue_dot_kmajor.mlir", (64, 128, 0, "k")),
                                          ("tier_epilogue_dot_lora.mlir", (128, 128, 64, "n"))])
def test_the_tiers_kernel_checks_clean(tmp_path, source, tiles):
    """The model checker (``tileorch check``) on the tier's lowering of tests/filecheck/tileas/tier_epilogue_dot.mlir
    (the low-rank chain with its epilogue), of its K-major E variant and of LoRA's three dots: the ring and E's
    one-stage pipeline free of deadlocks and races over every trip count, every load's bytes stated."""
    _tiers_kernel_checks_clean(tmp_path, source, tiles)


def _tiers_kernel_checks_clean(tmp_path, source: str, tiles: tuple):
    """:func:`test_the_tiers_kernel_checks_clean` of tests/filecheck/tileas/``source`` lowered to ``tiles``; returns
    the lowering's ``GemmConfig``.  Each protocol searched once per test run (``check_once``: the default switches'
    kernel is proved here and by test_epilogue_dot_tma_store.py with its switch set to the default)."""
    from pathlib import Path

    from tileorch.testing.check_memo import check_once as check
    from tileorch.analysis.extract import load_module
    from tileorch.transforms.tileas.nv_tileas_to_cutlass import lower_tile_program

    src = Path(__file__).resolve().parents[1] / "filecheck" / "tileas" / source
    cfg, module = lower_tile_program(src.read_text(), name=str(src))
    assert (cfg.tile_n, cfg.epi_n, cfg.lora_rank, cfg.epi_major) == tiles, cfg
    # what `tileorch check` reads of the printed lowering, read off the module itself (verified, extracted):
    # test_the_printed_lowering_reads_back_to_the_same_protocols shows the printed text reads back to these
    protocols, errors = load_module(module)
    assert not errors, errors
    assert [len(p.pipelines) for p in protocols][:1] == [2]
    for result in (check(p) for p in protocols):
        assert result.ok, (result.values, result.violation)
    assert not protocols[0].notes, protocols[0].notes
    return cfg


def test_the_printed_lowering_reads_back_to_the_same_protocols(tmp_path):
    """The tier's lowering of tier_epilogue_dot.mlir printed to a file and read by ``tileorch check``'s loader
    (parse, verify, extract) gives the protocols the module in memory gives (the other check tests of the tier's
    lowerings extract them from the module, without printing and parsing ~260 KB of IR each)."""
    from pathlib import Path

    from tileorch.analysis.extract import load, load_module
    from tileorch.transforms.tileas.nv_tileas_to_cutlass import lower_tile_program

    src = Path(__file__).resolve().parents[1] / "filecheck" / "tileas" / "tier_epilogue_dot.mlir"
    _, module = lower_tile_program(src.read_text(), name=str(src))
    path = tmp_path / "lowered.mlir"
    path.write_text(str(module))
    read, errors = load(str(path))
    assert not errors, errors
    direct, errors = load_module(module)
    assert not errors, errors
    assert read and [len(p.pipelines) for p in read] == [len(p.pipelines) for p in direct]
    assert [repr(p) for p in read] == [repr(p) for p in direct]


def _launcher_arguments(kernel, spec: list, out: int):
    """(the default compile of ``kernel`` for ``spec``, its arguments as the launcher describes them at made-up
    addresses): what the launcher's operand checks read, without a GPU."""
    import test_user_sweep3_emulated as s3

    from tileorch.testing.user_programs import UserProgram

    p = UserProgram(kernel, spec, (1,), "gemm", outputs=(out,))
    arrays = sum(isinstance(x, tuple) for x in spec)
    return _compile(kernel, spec, config=""), s3._described(p, {i: (i + 1) << 32 for i in range(arrays)})


def test_the_launcher_reads_e_after_the_other_bs():
    """The launcher's problem for the low-rank chain: B the [K, R] block (N from C), E the argument after the other
    Bs in ``gemm_args``; an E whose rows are not whole 16-byte units (N = 130 f16) is refused, as TMA reads it in
    place, and so is an E of another shape."""
    from tileorch.launchers import cutile as rc

    def described(n, e_rows=64):
        return _launcher_arguments(P.lowrank_scaled_bias, [_a((200, 200)), _a((200, 64)), _a((e_rows, n)),
                                                           _a((n,), "float32"), _a((200, n)), 0.5, 64, 128, 128, 64], 4)

    prog, args = described(192)
    a, b, c, m, n, k, _ = rc.gemm_problem_batched(prog, args)
    assert (a.position, b.position, c.position, m, n, k) == (0, 1, 4, 200, 192, 200)
    assert rc.more_b_operands(prog, args, b) == [] and rc.epi_operand(prog, args, b, c).position == 2
    for shape, words in (((130,), "16-byte"), ((192, 128), r"row-major \[64, 192\]")):
        prog, args = described(*shape)
        a, b, c, *_ = rc.gemm_problem_batched(prog, args)
        with pytest.raises(rc.LayoutNotSupported, match=words):
            rc.epi_operand(prog, args, b, c)


def test_the_launcher_takes_a_k_major_e_as_n_by_r():
    """A K-major E (``ct.transpose`` of its ``[tn, R]`` tile) is given ``[N, R]``: the launcher takes that shape and
    refuses E given ``[R, N]`` (the shape of an N-major E) with the shape it wants."""
    from tileorch.launchers import cutile as rc

    def described(e_shape):
        prog, args = _launcher_arguments(P.lowrank_e_transposed, [_a((200, 256)), _a((256, 64)), _a(e_shape),
                                                                  _a((200, 192)), 64, 128, 64, 64], 3)
        assert prog.gemm_config.epi_major == "k", prog.gemm_config
        return prog, args

    prog, args = described((192, 64))
    a, b, c, *_ = rc.gemm_problem_batched(prog, args)
    assert rc.epi_operand(prog, args, b, c).position == 2
    prog, args = described((64, 192))
    a, b, c, *_ = rc.gemm_problem_batched(prog, args)
    with pytest.raises(rc.LayoutNotSupported, match=r"row-major \[192, 64\] .*C's columns x the first dot's N"):
        rc.epi_operand(prog, args, b, c)


# ----------------------------------------------------------------------------------------------- LoRA (three dots)


def _lora_reference(x, w, la, lb, s, bias=None, transposed=False):
    """``x W + ((s x A) rounded) B (+ bias)``, rounded to x's type; ``transposed``: the weights given in nn.Linear's
    layout (``W [N, K]``, ``A [R, K]``, ``B [N, R]``)."""
    w, la, lb = (np.asarray(v, np.float64) for v in (w, la, lb))
    if transposed:
        w, la, lb = w.T, la.T, lb.T
    x64 = x.astype(np.float64)
    t = _round(s * (x64 @ la), x)
    y = x64 @ w + t @ lb + (0.0 if bias is None else bias[None, :])
    return _round(y, x)


def test_lora_low_rank_branch_accumulates_onto_the_main_dot():
    """``y = x W + ((0.5 x A) rounded) B``: W's and A's tiles in one stage beside x's, the low-rank accumulator packed
    after the loop into a second dot that accumulates onto the main accumulator (ragged M, N and K)."""
    m, k, n, r = 200, 200, 250, 64
    spec = [_a((m, k)), _a((k, n)), _a((k, r)), _a((r, n)), _a((m, n)), 0.5, r, 128, 128, 64]
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    prog = _compile(P.lora_linear, spec)
    assert prog.gemm_config.lora_rank == r and prog.gemm_config.b_operands == 2, prog.gemm_config
    assert any(r_.startswith("remark: a low-rank branch beside the dot (LoRA, three dots)") for r_ in prog.remarks)
    # (its second dot accumulates onto the work tile's own x W tile: no loop over N tiles)
    assert not prog.gemm_config.epi_loop and any("one N tile per work tile (the first dot recomputed for each): a "
                                                 "low-rank branch" in r_ for r_ in prog.remarks), prog.remarks
    y = _emulate(P.lora_linear, spec, {0: x, 1: w, 2: la, 3: lb}, 4, 3, (2,))
    np.testing.assert_allclose(y, _lora_reference(x, w, la, lb, 0.5), atol=2e-2, rtol=1e-2)


def test_lora_low_rank_product_added_after_its_own_dot():
    """``y = x W + 0.5 ((x A) rounded) B`` written ``acc + 0.5 * ct.mma(a, B, zeros)``: the second dot runs into an
    accumulator of its own and the epilogue reads the main one beside it (``lora_own_acc``); ragged M, N and K."""
    m, k, n, r = 200, 200, 250, 64
    spec = [_a((m, k)), _a((k, n)), _a((k, r)), _a((r, n)), _a((m, n)), 0.5, r, 128, 128, 64]
    x, w, la, lb = _h(m, k), _h(k, n, scale=0.125), _h(k, r, scale=0.125), _h(r, n, scale=0.25)
    prog = _compile(P.lora_added_after, spec)
    assert prog.gemm_config.lora_own_acc and prog.gemm_config.lora_rank == r, prog.gemm_config
    assert any("into an accumulator of its own beside the main one" in r_ for r_ in prog.remarks), prog.remarks
    y = _emulate(P.lora_added_after, spec, {0: x, 1: w, 2: la, 3: lb}, 4, 3, (2,))
    t = _f16(x.astype(np.float64) @ la.astype(np.float64))
    np.testing.assert_allclose(y, _f16(x.astype(np.float64) @ w.astype(np.float64) + 0.5 * (t @ lb.astype(np.float64))),
                               atol=2e-2, rtol=1e-2)


@pytest.mark.parametrize("dtype,r,rank_tile,tn", [("float16", 40, 64, 64), ("bfloat16", 128, 128, 128)])
def test_lora_with_peft_weight_layouts_and_a_bias(dtype, r, rank_tile, tn):
    """PEFT's layouts (``W [N, K]``, ``lora_A [R, K]``, ``lora_B [N, R]``): every B K-major, E's rank-wide K rows;
    a rank short of its tile (40 of 64: A's rows and B's columns past it zero-filled) and a rank of 128 (two K
    boxes of E); f16 and bf16; a bias in the epilogue; ragged M, N and K."""
    m, k, n = 130, 136, 300
    make = _h if dtype == "float16" else _bf
    spec = [_a((m, k), dtype), _a((n, k), dtype), _a((r, k), dtype), _a((n, r), dtype), _a((n,), "float32"),
            _a((m, n), dtype), 0.5, rank_tile, 128, tn, 64]
    x, w, la, lb = make(m, k), make(n, k, scale=0.125), make(r, k, scale=0.125), make(n, r, scale=0.25)
    bias = RNG.standard_normal(n).astype(np.float32)
    prog = _compile(P.lora_nn_linear, spec)
    cfg = prog.gemm_config
    assert (cfg.b_major, cfg.epi_major, cfg.lora_rank) == ("k", "k", rank_tile), cfg
    y = _emulate(P.lora_nn_linear, spec, {0: x, 1: w, 2: la, 3: lb, 4: bias, 5: np.full((m, n), np.nan, x.dtype)}, 5,
                 3, (2,))
    np.testing.assert_allclose(y, _lora_reference(x, w, la, lb, 0.5, bias, transposed=True), atol=3e-2, rtol=2e-2)


@pytest.mark.parametrize("kernel,spec", [
    ("lora_nn_linear", [_a((512, 512)), _a((512, 512)), _a((64, 512)), _a((512, 64)), _a((512,), "float32"),
                        _a((512, 512)), 2.0, 64, 128, 128, 64]),
    ("lora_added_after", [_a((512, 512)), _a((512, 512)), _a((512, 64)), _a((64, 512)), _a((512, 512)), 2.0, 64, 128,
                          128, 64]),
    # benchmarks/epilogue_dot.py's programs and sizes (8192 x 4096, rank 64, N 4096; 128 x 128 x 64 tiles, which the
    # launcher keeps for an epilogue-dot program): the GEMM kernels its "tileorch" variant runs
    ("lora_nn_linear", [_a((8192, 4096)), _a((4096, 4096)), _a((64, 4096)), _a((4096, 64)), _a((4096,), "float32"),
                        _a((8192, 4096)), 0.5, 64, 128, 128, 64]),
    ("mlp_nn_linear_weights", [_a((8192, 4096)), _a((64, 4096)), _a((64,), "float32"), _a((4096, 64)),
                               _a((8192, 4096)), 64, 128, 128, 64]),
])
def test_epilogue_dot_default_compile_assembles_without_spills(kernel, spec):
    """LoRA at a user's tiles (128 x 128, rank 64; PEFT's layouts, and the product added after its own dot) and the
    MLP with nn.Linear's weights, as compiled by default: the GEMM tier, the second dot's four register-A WGMMAs
    per consumer group with B untransposed (tnspB 0) for K-major E, transposed (1) for N-major, no spills (the
    spills session 25's GPU run reported for these programs were their SIMT comparison kernels')."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    prog = _compile(getattr(P, kernel), spec, config="")
    assert prog.kind == "gemm", prog.remarks
    cfg = prog.gemm_config
    mma = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.f16\.f16\s+\{[^}]*\},\s*\{[^}]*\},"
                     r"\s*%rd\d+,\s*[^,]+,\s*1,\s*1,\s*(\d);", prog.ptx)
    assert mma == ["0" if cfg.epi_major == "k" else "1"] * (64 // 16 * cfg.consumer_groups), mma
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


def test_the_launcher_reads_the_low_rank_b_and_e():
    """LoRA's operands: B the main weight, B1 the low-rank ``[K, R]`` A (not laid out as B), E the ``[R, N]`` B;
    a low-rank A wider than its rank tile is refused with the shape it wants."""
    from tileorch.launchers import cutile as rc

    def described(r):
        return _launcher_arguments(P.lora_linear, [_a((200, 256)), _a((256, 192)), _a((256, r)), _a((r, 192)),
                                                   _a((200, 192)), 0.5, 64, 128, 128, 64], 4)

    prog, args = described(48)
    a, b, c, m, n, k, _ = rc.gemm_problem_batched(prog, args)
    assert (a.position, b.position, c.position, m, n, k) == (0, 1, 4, 200, 192, 256)
    more = rc.more_b_operands(prog, args, b)
    assert [x.position for x in more] == [2] and rc.epi_operand(prog, args, more[0], c).position == 3
    prog, args = described(72)  # (the program's rank tile is 64)
    a, b, c, *_ = rc.gemm_problem_batched(prog, args)
    with pytest.raises(rc.LayoutNotSupported, match=r"low-rank branch's B must be a row-major \[K, R\]"):
        rc.more_b_operands(prog, args, b)
