"""Fourteenth user sweep (``tileorch.testing.user_programs14``: issue 22, dot programs of the kinds users
write that the dot zoo and the earlier sweeps miss): each program, exported through cuTile's exporter
(no GPU) and compiled for sm_90a, takes the path its table entry names: "gemm" (the TileAS tier's TMA +
WGMMA kernel, with the tier's remark) or "simt" with a *located* warning (``file:line:col`` at the
program's own line) saying why the tensor-core path refused it, and the SIMT path's remark that its
dot runs on mma.sync tensor cores (no silent fallback); every program's PTX (and the split-K's second
kernel's) assembles with ptxas without spills.  Results against numpy: test_user_sweep14_emulated.py
(the PTX emulator, f16 operands) and tests/gpu/test_user_sweep14_gpu.py (H200, every program)."""

from __future__ import annotations

import inspect
import re

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs14  # noqa: E402
from tileorch.testing.user_programs14 import PROGRAMS, SIMT_KERNELS  # noqa: E402


def compiled(name):
    """The program's compile for sm_90a, shared by the tests of a run (``compile_once``)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    kernel, spec = (PROGRAMS[name].kernel, PROGRAMS[name].spec) if name in PROGRAMS else SIMT_KERNELS[name][:2]
    return compile_once(cutile_bytecode(kernel, spec), name, arch="sm_90a", ptxas=False)


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 25
    for name, p in PROGRAMS.items():
        assert p.path in ("gemm", "simt") and p.outputs, name
        assert p.path == "gemm" or p.error, name
        src = inspect.getsource(p.kernel._annotated_function.pyfunc)
        assert p.kernel._annotated_function.pyfunc.__doc__, name
        assert "ct.mma(" in src or "ct.matmul(" in src or " @ " in src, name


def _line_of(name: str, text: str) -> int:
    lines, first = inspect.getsourcelines(PROGRAMS[name].kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_so(name):
    p = PROGRAMS[name]
    prog = compiled(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r], remarks
    if p.path == "gemm":
        assert any("compiled through the TileAS tier to the warp-specialized TMA/WGMMA kernel" in r for r in remarks)
        assert re.search(r"wgmma\.mma_async", prog.ptx)
        return
    # a refused dot program: the reason, located at the program's own line, and the SIMT path's dot
    here = re.escape(user_programs14.__file__)
    why = [r for r in remarks if p.error in r]
    assert why and all(re.match(here + r":\d+:\d+: warning: ", r) for r in why), remarks
    first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)[1]
    lines = [int(re.match(here + r":(\d+):", r).group(1)) for r in why]
    assert all(first < ln < first + 40 for ln in lines), (lines, first)
    assert any("the SIMT path computes this" in r and "on tensor cores with mma.sync" in r for r in remarks), remarks


def test_a_refusal_points_at_the_line_that_causes_it():
    """The gathered A whose product is scattered is named at its ``ct.gather``; the argmax at its store."""
    for name, text in (("moe_ragged_groups_offsets", "a = ct.gather("), ("logits_lse_and_argmax", "ct.store(Am")):
        want = f"{user_programs14.__file__}:{_line_of(name, text)}:"
        assert any(r.startswith(want) and PROGRAMS[name].error in r for r in compiled(name).remarks), name


def test_a_row_reduction_stored_without_keepdims_is_a_side_output():
    """``ct.store(Mx, index=(bm,), tile=ct.max(acc, axis=1))`` into an ``[M]`` array: refused until
    session 22 ("the product is stored as a 1-D tile [128] of a batch extent above 1"); now the row
    reduction folded in the accumulator's registers beside C, as the ``[tile_m, 1]`` form."""
    prog = compiled("logits_and_row_max_1d")
    assert prog.kind == "gemm"
    assert any("1 row reduction(s) of the result stored beside it" in r for r in prog.remarks), prog.remarks
    assert "shfl.sync.bfly" in prog.ptx


def test_the_split_k_second_kernel_is_simt():
    assert compiled("splitk_sum_partials").kind == "simt"


SPILLS = {"logits_lse_and_argmax", "logits_row_max_only", "w4_nibbles_two_halves"}
"""Programs whose PTX ptxas assembles with spills (session 22): three of the tier's refusals, whose SIMT
fallback keeps a 128-row f32 accumulator (128 x 128: 128 registers of it per thread) on the default 4
warps: 255 registers and 384 to 424 B of spill stores (the row max / logsumexp programs 416 B, the W4
halves 384 B; the two products, 28 B on the SIMT path, left the list in session 27: the WGMMA kernel takes
them).  The split-K's second kernel (no dot: a loop summing ``(1, 128, 128)`` f32 tiles, which the SIMT
layout gives 512 threads, capping a thread at 128 registers) spilled 12 B until review 28's loop lowering
(f0d8a187) and left the list.  Listed so that the spill is not silent; a program
leaving the list (or joining it) fails."""


def test_every_program_assembles_without_spills():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    spilled = set()
    for name in sorted(PROGRAMS) + sorted(SIMT_KERNELS):
        result = run_ptxas(compiled(name).ptx, "sm_90a")
        if result.spill_warnings():
            spilled.add(name)
    assert spilled == SPILLS
