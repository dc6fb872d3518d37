"""Twenty-third user sweep (``tileorch.testing.user_programs23``: programs as users write them, mostly without
a dot): each program, exported through cuTile's exporter (no GPU) and compiled for sm_90a, takes the path its
table entry names with no internal error: the programs without a dot the SIMT path with no refusal; the Gram
matrix the TileAS tier's WGMMA kernel; the two dots the tier refuses (a per-key-tile score tile stored in the
loop, a one-hot operand built in the kernel) the SIMT path's mma.sync with a *located* warning inside the
kernel.  Their PTX holds what the idioms need (f32 atomics, unsigned min / max, the saturating e4m3
conversion, f64 ``exp`` / ``log`` in f64 arithmetic, not the f32 MUFU), and assembles with ptxas without spills
as the driver assembles it (:data:`HINT_DROPPED`, :data:`SPILLS`).  :data:`REJECTED_BY_CUTILE`: cuTile's own
error at the user's line.  Results: test_user_sweep23_interp.py (the SIMT interpreter),
test_user_sweep23_emulated.py (the PTX emulator), tests/gpu/test_user_sweep23_gpu.py (the GPU)."""

from __future__ import annotations

import inspect
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs23  # noqa: E402
from tileorch.testing.user_programs23 import PROGRAMS, REJECTED_BY_CUTILE  # noqa: E402
from dot_sweep_checks import assert_takes_its_path  # noqa: E402
from invalid_sweep_checks import cutile_rejects_tests  # noqa: E402
from simt_sweep_checks import assert_on_the_simt_path, compile_sweep_program  # noqa: E402

SOURCE = user_programs23.__file__
ATOM = r"(atom|red)(\.\w+)*\.global(\.\w+)*\.{}(\.\w+)*\.{}"
PTX_NEEDS = {
    "histc_float_bins_atomic": [ATOM.format("add", r"(u32|s32)")],
    "gather_scatter_index_holes": [ATOM.format("add", "f32")],
    "fp8_e4m3_per_row_scale_clamp": [r"cvt\.rn\.satfinite\.e4m3x2\.f32"],
    "uint32_min_max_shift_high_values": [r"min\.u32", r"max\.u32", r"shr\.u32"],
    "int_floordiv_mod_negatives_shifts": [r"div\.s32", r"shr\.s32"],
    "f64_two_pass_variance_exp": [r"fma\.rn\.f64", r"div\.rn\.f64"],
    "cumprod_axis1_f64_reverse": [r"mul\.(rn\.)?f64"],
    "casts_nan_inf_overflow_f16_bf16": [r"cvt\.rn\.f16\.f32", r"cvt\.rn\.bf16\.f32"],
    "causal_scores_per_head_three_axes": [r"mma\.sync\.aligned\.m16n8k16\S*\.bf16\.bf16"],
    "embedding_grad_onehot_matmul": [r"mma\.sync\.aligned\.m16n8k16\S*\.f16\.f16"],
}
"""Per program: regular expressions its PTX must match (the idiom lowered, not refused)."""
NO_F32_MATH = {"f64_two_pass_variance_exp"}
"""Programs whose exp / log are f64: no MUFU ``ex2`` / ``lg2`` (an f32 approximation) in their PTX."""
DOTS = {"gram_matrix_xtx_transposed_tile", "causal_scores_per_head_three_axes", "embedding_grad_onehot_matmul"}
"""The programs with a dot (the rest have none)."""


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    return compile_sweep_program(PROGRAMS, name)


def _source(p):
    return inspect.getsource(p.kernel._annotated_function.pyfunc)


def test_the_sweep_has_its_programs():
    """At least 30 programs, each with a docstring and outputs; a dot in :data:`DOTS` only."""
    assert len(PROGRAMS) >= 30
    for name, p in PROGRAMS.items():
        assert p.kernel._annotated_function.pyfunc.__doc__ and p.outputs, name
        has_dot = "ct.mma(" in _source(p) or " @ " in _source(p) or "ct.matmul(" in _source(p)
        assert has_dot == (name in DOTS), name


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - DOTS))
def test_program_without_a_dot_compiles_on_the_simt_path(name):
    assert_on_the_simt_path(compiled(name), name, PTX_NEEDS)
    if name in NO_F32_MATH:
        assert not re.search(r"\b(ex2|lg2)\.approx", compiled(name).ptx)


def test_the_gram_matrix_takes_the_tensor_core_tier():
    assert_takes_its_path(PROGRAMS["gram_matrix_xtx_transposed_tile"], compiled("gram_matrix_xtx_transposed_tile"),
                          SOURCE)


@pytest.mark.parametrize("name", sorted(DOTS - {"gram_matrix_xtx_transposed_tile"}))
def test_a_refused_dot_says_why_inside_the_kernel_and_runs_on_mma_sync(name):
    """The tier's refusal a located warning at a line of the kernel (whatever its words), then the SIMT path's
    mma.sync remark: no silent fallback."""
    prog, p = compiled(name), PROGRAMS[name]
    assert prog.kind == p.path == "simt", prog.remarks
    assert not [r for r in prog.remarks if "internal error" in r], prog.remarks
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    at = [int(m.group(1)) for r in prog.remarks
          if (m := re.match(re.escape(SOURCE) + r":(\d+):\d+: warning: ", r))]
    assert at and all(first < ln < first + len(lines) for ln in at), (at, prog.remarks)
    assert any("the SIMT path computes this" in r and "on tensor cores with mma.sync" in r for r in prog.remarks)
    for pattern in PTX_NEEDS[name]:
        assert re.search(pattern, prog.ptx), pattern


def test_f64_exp_says_how_it_is_computed():
    """The math remark of an f64 ``exp``: f64 arithmetic (not the f32 form's ``ex2.approx``)."""
    said = [r for r in compiled("f64_two_pass_variance_exp").remarks if "exp:" in r and "computed by" in r]
    assert said and all("f64 arithmetic" in r and "ex2.approx" not in r for r in said), said


HINT_DROPPED = {"rope_interleaved_gather_pairs"}
"""Programs whose loop-free gathers get the resident-CTA hint that ptxas meets only by spilling (session 32,
ptxas 13, sm_90a: the interleaved rotary's four 2-D gathers of a ``(16, 32)`` tile, 184 B of spill stores); the
backend assembles them again without the hint (95 registers, no spill).  A program leaving the list (or joining
it) fails."""
SPILLS: dict[str, int] = {}
"""Programs ptxas assembles with a few bytes of spill stores, and the most allowed.  Listed so that a spill is never
silent; a program joining the list (or leaving it) fails.  (Session 32, ptxas 13: ``f64_two_pass_variance_exp``,
the f64 row statistics and logsumexp, spilled 8 B at 56 registers; since session 41's SIMT math as LLVM intrinsics
(LLVM now folds and schedules what inline assembly hid) it assembles without.)"""


def test_every_program_assembles_without_spills_as_the_driver_does():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas, spilled, without_ctas_hint

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    dropped, spilling = set(), set()
    for name in sorted(PROGRAMS):
        ptx = compiled(name).ptx
        result = run_ptxas(ptx, "sm_90a")
        hinted = {k for k in re.findall(r"\.entry\s+([\w$.]+)", ptx)
                  if re.search(rf"\.entry\s+{re.escape(k)}\b[^{{]*\.minnctapersm", ptx)}
        bad = spilled(result, hinted)
        if bad:  # what backend/compile.py's _drop_spilling_hints does
            dropped.add(name)
            result = run_ptxas(without_ctas_hint(ptx, bad), "sm_90a")
        assert result.cubin_bytes > 0, name
        stored = [int(b) for b in re.findall(r"(\d+) B spill stores", result.summary())]
        if any(stored):
            spilling.add(name)
            assert max(stored) <= SPILLS.get(name, 0), (name, result.summary())
    assert dropped == HINT_DROPPED
    assert spilling == set(SPILLS)


test_cutile_rejects_at_the_users_line = cutile_rejects_tests(REJECTED_BY_CUTILE, SOURCE)
