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


