"""Dots whose operand rows are gathered (``tileorch.testing.gathered_dot_programs``: MoE over sorted tokens,
router-weight scaling, a masked ragged tail, embedding rows into a dense layer, paged rows, gathered B rows):
each takes the path its table entry names with its remark -- a gathered A the GEMM tier's (the consumers load
WGMMA's register A, a remark at the gather says so), the others the SIMT path after a *located* warning at the
gather's line that names the operand, the dimension its index array picks and what the tier lacks
(:data:`REASONS`) --, and its PTX assembles without spills.  Results against
numpy: test_gathered_dot_interp.py (CPU) and tests/gpu/test_gathered_dot_gpu.py.  Needs cuda-tile."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from dot_sweep_checks import assert_takes_its_path, compile_sweep_program, spilled_programs  # noqa: E402

from tileorch.testing.gathered_dot_programs import PROGRAMS  # noqa: E402

REASONS = {
    "lora_gathered_adapter_rows": "B's rows (K) are gathered",
    "gathered_b_rows_sparse_k": "A's columns (K) are gathered",
}
"""The refusal of each program the tier does not take: the operand and the dimension its gather picks."""


def compiled(name):
    return compile_sweep_program(PROGRAMS, name)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path_and_says_why(name):
    p = PROGRAMS[name]
    prog = compiled(name)
    assert_takes_its_path(p, prog, inspect.getsourcefile(p.kernel._annotated_function.pyfunc))
    if p.path == "simt":
        assert any(REASONS[name] in r for r in prog.remarks), prog.remarks
    else:
        assert prog.gemm_config.a_gather and prog.gemm_config.a_regs, prog.gemm_config
        assert any(": remark: dot operand A gathered (ct.gather)" in r for r in prog.remarks), prog.remarks


def test_every_program_assembles_without_spills():
    assert spilled_programs(PROGRAMS, compiled) == set()




def test_the_gathered_a_kernel_loads_only_b_by_tma():
    """The tier's gathered-A kernels: one TMA load site (B's), no prefetch of an A tensor map, every WGMMA with A
    from four registers, the A elements as 16-bit global loads, no shared-memory reads of an A tile."""
    import re

    for name in sorted(n for n, p in PROGRAMS.items() if p.path == "gemm"):
        ptx = compiled(name).ptx
        assert len(re.findall(r"cp\.async\.bulk\.tensor\.[2-5]d\.shared::cluster\.global", ptx)) == 1, name
        assert len(re.findall(r"prefetch(?:\.param)?\.tensormap", ptx)) == 1, name  # (B's map, in parameter space)
        wgmma = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.f16\.f16 \{[^}]*\}, (\S+)", ptx)
        assert wgmma and all(a.startswith("{%r") for a in wgmma), (name, wgmma[:2])
        assert len(re.findall(r"ld\.global(?:\.\w+)*\.b16", ptx)) >= 32, name
        assert not re.search(r"ld\.shared(?:\.\w+)*\.b32", ptx), name


def test_the_switch_keeps_the_simt_path(monkeypatch):
    """``TILEORCH_GATHERED_A=simt``: the gathered A is refused at its gather, naming the switch; the SIMT path runs it."""
    monkeypatch.setenv("TILEORCH_GATHERED_A", "simt")
    prog = compiled("embedding_rows_dense")
    assert prog.kind == "simt", prog.remarks
    assert any(": warning: this dot operand is gathered: A's rows (M) are gathered" in r
               and "TILEORCH_GATHERED_A=simt is set" in r for r in prog.remarks), prog.remarks


def test_the_gathered_a_kernel_checks_clean(tmp_path):
    """The model checker (``tileorch check``) on the tier's lowering of the vLLM-layout MoE (B's ring alone: the
    producer loads no A): free of deadlocks and races over every trip count, every load's bytes stated."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import load_module as load_protocols
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    p, ctx = PROGRAMS["moe_gathered_rows_expert_table"], make_context()
    kind, module = lower_program(load(cutile_bytecode(p.kernel, p.spec), "moe", ctx), ctx, "sm_90a", "persistent")
    assert kind == "gemm"
    protocols, errors = load_protocols(module)  # (test_computed_b_gemm: the printed module reads the same)
    assert not errors and [len(q.pipelines) for q in protocols] == [1], errors
    for result in (check(q) for q in protocols):
        assert result.ok, (result.values, result.violation)
    assert not protocols[0].notes, protocols[0].notes


def test_a_k_tile_beyond_a_128_byte_row_is_refused_at_the_gather():
    """A gathered A's K tile is the kernel's own (the gather reads the K index) and WGMMA's register A takes K rows
    of 32, 64 or 128 bytes: K tiles of 128 f16 are refused at the gather, the SIMT path runs them."""
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["embedding_rows_dense"]  # the lowering only: nothing here reads the SIMT fallback's PTX
    prog = lower_once(cutile_bytecode(p.kernel, p.spec[:-1] + [128]), "embedding_rows_dense_tk128", arch="sm_90a")
    lines, first = inspect.getsourcelines(p.kernel._annotated_function.pyfunc)
    line = first + next(i for i, ln in enumerate(lines) if "a = ct.gather(Table" in ln)
    assert prog.kind == "simt", prog.remarks
    assert any(f":{line}:" in r and "a gathered A is taken with K tiles of 16, 32 or 64 f16 elements" in r
               and "got 128" in r for r in prog.remarks), prog.remarks
