"""The fourth attention set (``tileorch.testing.attention_programs4``, issue 20: the backward, paged /
varlen / split-KV / MLA / document-mask forwards, the while forms): each program exported through
the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a without
the back end (``compile_memo.lowered_program``: the driver's decision and remarks) takes the path
its table entry names; a program the tensor-core tier refuses says why at the user's line (a
located warning naming the refusal's text from the table); chained kernels assemble with ptxas
without spilling; ``tileorch check`` proves the kernel this set lifted (paged KV, page number read
by ``ct.load(...).item()``: ``tileas-scalar-tile-loads``), the dV kernel whose second dot reads
``ct.transpose(p)`` (``tileas-transpose-computed-operand``) and the backward's dQ and dK/dV kernels
(session 23: first dots with their own A tiles, B2 read in a first dot's stage, two second dots);
the backward's chained kernels are cheap to lower and run here in full.

CPU cost (session 22, 2 shared cores, fresh compile memo, both attention_programs4 test files:
``--cpu-durations=0``): 22 CPU s (271 s wall under load) for this file, 12 (154) for the emulated
one; the lowerings are shared through the compile memo; the backward's other 8 SIMT programs (10-35 s
each) are lowered only with TILEORCH_TEST_ALL_ATTN4=1."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import attention_programs4  # noqa: E402
from tileorch.testing.attention_programs4 import PROGRAMS  # noqa: E402

SOURCE = str(Path(attention_programs4.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"
CHAINED = sorted(n for n, p in PROGRAMS.items() if p.path == "chained")
# CI lowers one of each backward kernel (the SIMT lowering of four dots costs 10-35 s each); the GPU
# file checks every program's path; TILEORCH_TEST_ALL_ATTN4=1 lowers all of them here
CI_BACKWARD = {"bwd_dkdv_d64_f16_causal", "bwd_dq_d64_f16", "bwd_dv_transposed_p", "bwd_preprocess",
               "bwd_dkdv_atomic_dq"}


BACKWARD_CHAINS = ["bwd_dq_d64_f16", "bwd_dq_d128_f16_causal", "bwd_dkdv_d64_bf16_causal", "bwd_dkdv_d128_f16_causal"]
"""The backward kernels on the tensor-core tier whose PTX ptxas assembles without spilling and whose
pipelines ``tileorch check`` proves (dQ and dK/dV, one per head dim; dK/dV at head dim 128: the
register budget of :data:`~tileorch.transforms.tileas.chained_dots.SEVERAL_SECONDS_REGS`)."""


@pytest.mark.parametrize("name", [n for n in BACKWARD_CHAINS if n.startswith("bwd_dq_")])
def test_dq_remarks_name_the_shared_tiles(name):
    """dQ's two first dots read their own A tiles (Q, dO) and its second dot reads the K tile of the
    first dot's stage: each says so at its line, and the kernel's tensor maps are Q's, dO's, K's and
    V's (none for a second K)."""
    import inspect

    prog = _lowered(name)
    src, first = inspect.getsourcelines(attention_programs4.bwd_dq._annotated_function.pyfunc)
    dp = first + next(i for i, ln in enumerate(src) if "dp = ct.mma(" in ln)
    dq = first + next(i for i, ln in enumerate(src) if "dq = ct.mma(" in ln)
    remarks = list(prog.remarks)
    assert any(r.startswith(f"{SOURCE}:{dp}:") and "reads its own A tile" in r for r in remarks), remarks
    assert any(r.startswith(f"{SOURCE}:{dq}:") and "N-major in that dot's ring stage" in r for r in remarks), remarks
    tmaps = _compiled(name).chained["tmaps"]  # Q, dO, K, V: K's tensor map once
    assert [t["arg"] // 7 for t in tmaps] == [0, 3, 1, 2], tmaps  # entry parameters: 7 per rank-3 array


SPILL_CHECKED = ["paged_gqa_item", "split_kv_partials", "mla_latent_cache", "varlen_cu_seqlens_tiles",
                 "bwd_dv_transposed_p_causal_bf16", *BACKWARD_CHAINS]
"""The chained kernels ptxas assembles here without spills (test_chained_kernels_assemble_without_spills)."""
COMPILED = {*SPILL_CHECKED, "bwd_dkdv_d64_f16_causal", "bwd_dkdv_d128_bf16"}
"""Every program a test of this file compiles in full (``_compiled``): their lowering is read off that compile
(``lower_once_compiled``: lowered once for both)."""


def _lowered(name):
    from tileorch.testing.compile_memo import lower_once, lower_once_compiled
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    lower = lower_once_compiled if name in COMPILED else lower_once
    return lower(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


def _compiled(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def test_the_set_has_its_programs():
    assert len(PROGRAMS) >= 25
    assert len(CHAINED) >= 9
    assert sum(n.startswith("bwd_") for n in PROGRAMS) >= 12


def _names():
    every = os.environ.get("TILEORCH_TEST_ALL_ATTN4") == "1"
    return [n for n in sorted(PROGRAMS) if every or not n.startswith("bwd_") or n in CI_BACKWARD
            or PROGRAMS[n].path == "chained"]


@pytest.mark.parametrize("name", _names())
def test_program_takes_its_path(name):
    """The path of the table; a chained kernel says it took the tensor cores; a dot program that does
    not names the refusal at a line of this file (never a silent SIMT fallback); no internal error."""
    p = PROGRAMS[name]
    prog = _lowered(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
    if p.path == "chained":
        assert any(TENSOR_CORES in r for r in remarks), remarks


@pytest.mark.parametrize("name", ["bwd_dkdv_d64_f16_causal", "bwd_dkdv_d128_bf16"])
def test_dkdv_remarks_name_its_second_dots(name):
    """The dK/dV kernel (refused until session 23 as '4 dots in one K loop that do not read the same A
    tile: 2 of them') takes the tensor cores: dV's and dK's dots each say their B is a first dot's
    tile (dO: dP^T's, Q: S^T's), the last one that the chain feeds two accumulators; the kernel's
    tensor maps are K's, V's, Q's and dO's (none for a second Q or dO)."""
    import inspect

    src, first = inspect.getsourcelines(attention_programs4.bwd_dkdv._annotated_function.pyfunc)
    dv = first + next(i for i, ln in enumerate(src) if "dv = ct.mma(" in ln)
    dk = first + next(i for i, ln in enumerate(src) if "dk = ct.mma(" in ln)
    remarks = list(_lowered(name).remarks)
    shared = [r for r in remarks if "N-major in that dot's ring stage" in r]
    assert [r.split(":")[1] for r in shared] == [str(dv), str(dk)], remarks
    assert "first dot 2 reads" in shared[0] and "first dot 1 reads" in shared[1], shared
    assert any(r.startswith(f"{SOURCE}:{dk}:") and "2 second dots read the chain" in r for r in remarks), remarks
    tmaps = _compiled(name).chained["tmaps"]
    assert [t["arg"] // 7 for t in tmaps] == [1, 2, 0, 3], tmaps  # entry parameters: 7 per rank-3 array


@pytest.mark.parametrize("name", ["bwd_dv_transposed_p", "bwd_dv_transposed_p_causal_bf16"])
def test_transposed_p_remark_names_the_dot(name):
    """The dV kernel written with ``ct.transpose(p)`` as the dot's A takes the tensor cores and says why,
    at the dot's line (tileas-transpose-computed-operand)."""
    import inspect

    from tileorch.transforms.tileas.transpose_computed_operand import REMARK

    src, first = inspect.getsourcelines(attention_programs4.bwd_dv_transposed_p._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(src) if "dv = ct.mma(ct.transpose(" in ln)
    assert any(r.startswith(f"{SOURCE}:{line}:") and REMARK in r for r in _lowered(name).remarks)


def test_chained_kernels_assemble_without_spills():
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    for name in SPILL_CHECKED:
        prog = _compiled(name)
        assert "wgmma.mma_async" in prog.ptx
        result = run_ptxas(prog.ptx, "sm_90a")
        assert not result.spill_warnings(), (name, result.summary())


@pytest.mark.parametrize("name", ["paged_gqa_item", "bwd_dv_transposed_p_causal_bf16", *BACKWARD_CHAINS])
def test_lifted_kernel_is_proved(name):
    """``tileorch check`` proves the K/V ring of the kernels this set lifted (the producer replaying
    the page read; the transposed chain; the backward's chains: first dots with their own A tiles,
    the second dot's B read in a first dot's stage)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    ctx = make_context()
    kind, lowered = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx)
    assert kind == "chained"
    (proto,) = extract(lowered)
    result = check(proto)
    assert result.ok, result.violation
