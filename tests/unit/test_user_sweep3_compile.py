"""Third user sweep (``tileorch.testing.user_programs3``, issues 20-22: programs acceptance has not
seen): each program exported through the launcher's argument description and cuTile's exporter
(no GPU) and compiled for sm_90a takes the path it should; a program a tensor-core tier refuses
says why at the user's line; no internal error.  The programs whose results the CPU checks
(test_user_sweep3_emulated.py: the f16 GEMM and chained ones, asserting their path there) are
not compiled again here.

Found by this sweep (each failed before its fix): ``Array.slice`` operands of a GEMM were
multiplied whole (the tier read the entry arrays' tensor maps: now refused, the SIMT path runs
it); ``C += A @ B`` dropped C's start (now added in the epilogue; an f16 accumulator started from C
is refused); ``tiled_view(traversal_steps=...)`` (``make_strided_view``) did not lower; an fp8
GEMM output, attention on a packed ``[B, S, 3, H, D]`` QKV tensor (unit tile dimensions between
rows and columns), scores from ``ct.matmul`` of f16 tiles (an f16 dot) and 1-D running max / sum
were refused by the tensor-core tiers.  Still refused (a remark at the user's line; the SIMT
path's mma.sync dots run it): SwiGLU with 128-wide hidden and output tiles (``mlp_swiglu_wide``:
the two first dots' accumulators, P and the output accumulator exceed the consumer's register
budget).  SwiGLU's three dots in one loop (two sharing x, then the down projection) were refused
('3 dots in one K loop that do not read the same A tile'): the chained kernel now takes several
first dots that share their A tile (one WGMMA over their B tiles side by side,
tests/unit/test_chained_first_dots.py); a gated MLP whose two first dots read different A tiles
(``mlp_geglu_two_inputs``) was refused until session 23: each first dot now reads its own A tile."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs3  # noqa: E402
from tileorch.testing.user_programs3 import CUTILE_REFUSES, PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs3.__file__))
# asserted to take the tensor cores (and run) by test_user_sweep3_emulated.py
EMULATED = {"mm_tiled_view", "mm_load_order_bt", "mm_bias_as_start", "mm_lower_triangle", "mm_pre_and_post", "mm_divmod_grid", "mm_grid_nm", "mm_accumulate_into_c", "mm_leaky_relu",
            "mm_where_scalar_zero", "mm_rowscale_colbias", "mm_clamp_scalars", "mm_residual_gate",
            "mm_small_tiles_sigmoid", "attn_cross_ragged_kv", "attn_causal_cdiv_heads3", "mlp_relu_sq_chain",
            "attn_rowvec_state", "mm_fp8_out", "mm_e5m2_out", "attn_packed_qkv", "attn_alibi_iota_gqa",
            "mlp_swiglu", "mlp_swiglu_tm64", "mlp_swiglu_wt", "mlp_three_gates"}


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) + len(CUTILE_REFUSES) >= 40
    assert EMULATED <= set(PROGRAMS)


@pytest.mark.parametrize("name", sorted(n for n in PROGRAMS if n not in EMULATED and PROGRAMS[n].path != "error"))
def test_program_compiles_on_its_path(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    elif p.path in ("gemm", "chained"):
        assert not refusals, remarks
    if p.path == "gemm":
        assert "wgmma.mma_async" in prog.ptx


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "error"))
def test_program_the_compiler_cannot_take_is_a_located_error(name):
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    with pytest.raises((LocatedError, CompileError)) as info:
        compile_program(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    message = str(info.value)
    assert message.startswith(SOURCE + ":") and "internal error" not in message
    assert p.error in message


@pytest.mark.parametrize("name", sorted(CUTILE_REFUSES))
def test_program_cutile_refuses_stops_at_the_export(name):
    """Head dim 96 as a 96-wide tile: cuTile's own type check refuses it at the user's line (tiles
    are powers of two; user_programs2.fmha_padded_head is the way: a 128-wide zero-padded tile)."""
    from tileorch.testing.export import cutile_bytecode

    kernel, spec, words = CUTILE_REFUSES[name]
    with pytest.raises(Exception) as info:  # noqa: PT011 - cuTile's exception classes
        cutile_bytecode(kernel, spec)
    assert SOURCE in str(info.value) and words in str(info.value)
    assert "tileorch" not in type(info.value).__module__


def test_packed_qkv_tensor_maps_put_the_box_rows_on_the_sequence(monkeypatch):
    """The host's tensor maps of attn_packed_qkv: rank 5 over [B, S, 3, H, D], the box (innermost
    first) 64 columns of D, one H, one of the three, the CTA's rows of S (Q) or the tile's (K, V), one B."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm_host
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import FakeDeviceArray, cutile_bytecode

    p = PROGRAMS["attn_packed_qkv"]
    prog = compile_once(cutile_bytecode(p.kernel, p.spec), "attn_packed_qkv", arch="sm_90a", ptxas=False)
    assert prog.kind == "chained", prog.remarks
    args = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray(0x7F0000000000 + (i + 1) * 0x10000000, s[0])
                                                 if isinstance(s, tuple) else s for i, s in enumerate(p.spec)))
    seen = []
    monkeypatch.setattr(gemm_host, "encode_tensor_map", lambda ptr, dt, dims, strides, box, swizzle=128:
                        seen.append((dims, strides, box)) or b"")
    rc.chained_tensor_maps(prog.chained, args)
    dims = (64, 2, 3, 256, 2)
    strides = tuple(2 * x for x in (64, 64 * 2, 64 * 2 * 3, 64 * 2 * 3 * 256))  # bytes, innermost first
    # Q's box: 256 rows of S, the four 64-row slices of the default's row groups (d64 with 64-wide key tiles:
    # TILEORCH_ATTN_ROW_GROUPS=auto); K and V: the key tile's 64
    assert seen == [(dims, strides, (64, 1, 1, 256, 1)), (dims, strides, (64, 1, 1, 64, 1)),
                    (dims, strides, (64, 1, 1, 64, 1))]
