"""Twenty-first user sweep (``tileorch.testing.user_programs21``: issue 21 item 1, fused kernels of real
models without a dot): each program, exported through cuTile's exporter (no GPU) and compiled for
sm_90a, takes the SIMT path with no refusal and no internal error, and its PTX holds the
instructions its idiom needs (``atom.max.s32`` for the amax on float bits and the found-inf flag,
``atom.add`` returning the old count for the MoE slots, f32 atomic adds for dgamma, the saturating
e4m3 / e5m2 conversions, ``cvt.rmi`` / ``cvt.rpi`` for floor / ceil, the ``1.5 * 2**23`` magic add of
round-to-nearest-even kept (not folded away as ``(y + c) - c``), the arithmetic 64-bit shift of the
requantization, 8-bit stores); every program's PTX assembles with ptxas without spills as the
driver assembles it (the resident-CTA hint of a loop-free gather dropped where ptxas spills to meet
it: :data:`HINT_DROPPED`).  Their results against numpy: test_user_sweep21_interp.py (the SIMT
interpreter), test_user_sweep21_emulated.py (the PTX emulator) and tests/gpu/test_user_sweep21_gpu.py
(the GPU)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs21 import PROGRAMS  # noqa: E402
from simt_sweep_checks import compile_sweep_program, simt_sweep_compile_tests  # noqa: E402

ATOM = r"(atom|red)(\.\w+)*\.global(\.\w+)*\.{}(\.\w+)*\.{}"
PTX_NEEDS = {
    "rmsnorm_residual_fp8_quant_amax": [r"atom(\.\w+)*\.global(\.\w+)*\.max\.s32", r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "adam_amsgrad_unscale_found_inf": [r"atom(\.\w+)*\.global(\.\w+)*\.max\.s32"],
    "moe_expert_counts_and_slots": [r"atom(\.\w+)*\.global(\.\w+)*\.add\.(u32|s32)"],  # (the old value is read)
    "layernorm_bwd_rows_block_atomic_dgamma": [ATOM.format("add", "f32")],
    "bincount_drops_bad_ids": [ATOM.format("add", r"(u32|s32)")],
    "per_channel_pixel_histogram_u8": [ATOM.format("add", r"(u32|s32)")],
    "e5m2_block_quant_roundtrip_recip_scale": [r"cvt\.rn\.satfinite\.e5m2x2\.f32"],
    "int8_per_token_quant_rounding_modes": [r"cvt\.rmi\.f32\.f32", r"cvt\.rpi\.f32\.f32", r"0f4B400000",
                                            r"st\.global(\.\w+)*\.(b8|u8|s8)"],
    "int32_requant_multiplier_rounding_shift": [r"shr\.s64"],
    "int4_signed_pack_unpack_shifts": [r"shr\.s(8|16|32)"],
    "kv_cache_append_paged_slots": [r"st\.global(\.\w+)*\.(b16|u16|s16)"],
    "norm_interval_bounds_directed_sqrt": [r"sqrt\.rm\.f32", r"sqrt\.rp\.f32", r"sqrt\.rz\.f64"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""


test_the_sweep_has_its_programs, test_program_compiles_on_the_simt_path, _ = simt_sweep_compile_tests(
    PROGRAMS, 40, PTX_NEEDS)

HINT_DROPPED = {"causal_conv1d_width4_silu", "rope_interleaved_pairs_extract_cat", "layernorm_bwd_rows_block_atomic_dgamma"}
"""Programs whose loop-free gathers get the resident-CTA hint (tileaa_to_simt/gather_occupancy.py:
32 CTAs of 32 threads, 64 registers a thread) that ptxas meets only by spilling (session 25, ptxas of
the machine, sm_90a: the 4-tap conv1d's four 2-D gathers 76 B of spill stores, rotary's cos / sin
row gathers of a ``(16, 64)`` tile 456 B); the backend assembles them again without the hint (80 and
128 registers, no spill).  The layernorm backward whose dgamma / dbeta rows are added by combined atomics
(TILEORCH_COMBINE_ATOMICS=auto, the default since session 34) asks for 32 CTAs of 64 threads (32 registers a
thread): ptxas 13 spills 1276 B to meet it, 128 registers without it (one instance per CTA: 152, no hint).  A
program leaving the list (or joining it) fails."""


def test_every_program_assembles_without_spills_as_the_driver_does():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas, spilled, without_ctas_hint

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    dropped = set()
    for name in sorted(PROGRAMS):
        ptx = compile_sweep_program(PROGRAMS, name).ptx
        result = run_ptxas(ptx, "sm_90a")
        hinted = {k for k in re.findall(r"\.entry\s+([\w$.]+)", ptx)
                  if re.search(rf"\.entry\s+{re.escape(k)}\b[^{{]*\.minnctapersm", ptx)}
        bad = spilled(result, hinted)
        if bad:  # what backend/compile.py's _drop_spilling_hints does
            dropped.add(name)
            result = run_ptxas(without_ctas_hint(ptx, bad), "sm_90a")
        assert result.cubin_bytes > 0 and not result.spill_warnings(), (name, result.summary())
    assert dropped == HINT_DROPPED


def test_ignored_flush_to_zero_of_sqrt_and_rsqrt_is_a_located_warning():
    """``ct.rsqrt`` / ``ct.sqrt`` with ``flush_to_zero=True``: ``rsqrt.approx.f32`` / ``sqrt.rn.f32`` keep
    subnormals, and a warning at each op's line says so (ftz_warnings.py; before session 25 silent)."""
    import inspect

    from tileorch.testing import user_programs21

    prog = compile_sweep_program(PROGRAMS, "l2_normalize_rows_flush_to_zero")
    here = re.escape(user_programs21.__file__)
    said = {}
    for r in prog.remarks:
        m = re.match(rf"{here}:(\d+):\d+: warning: flush_to_zero on 'cuda_tile\.(sqrt|rsqrt)' is not applied", r)
        if m:
            said[m.group(2)] = int(m.group(1))
    source = inspect.getsource(user_programs21).splitlines()
    assert set(said) == {"sqrt", "rsqrt"}, prog.remarks
    assert "ct.rsqrt(ss + 1e-12, flush_to_zero=True)" in source[said["rsqrt"] - 1]
    assert "ct.sqrt(ss, flush_to_zero=True)" in source[said["sqrt"] - 1]
