"""GEMM programs whose tiles have a unit middle dimension (``tileorch.testing.mid3d_programs``) compiled for sm_90a
as the launcher compiles them (the tier's own configuration, no override): each takes its table entry's path; a
tensor-core program says at each tile batched in its middle dimension that it is (a remark at the user's line, the
kernel named ``_mid<roles>``, ``GemmConfig.batch_mid``); the refused one says why at the load's line and runs on the
SIMT path.  CI: bf16 all three, the e4m3 projection with a K-major B, the N-major e4m3 B's refusal and the refusal
of a mid tile through a permuted view (review H2: it compiled to the tier as an M-major A and computed garbage) (the
computed middle index's refusal: tests/filecheck/tileas/tier_mid_batch.mlir); ``TILEORCH_EMULATE_ALL=1``: every
program.  Results: test_mid3d_emulated.py and tests/gpu/test_mid3d_gpu.py."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import mid3d_programs  # noqa: E402
from tileorch.testing.mid3d_programs import PROGRAMS  # noqa: E402

SOURCE = mid3d_programs.__file__
IN_CI = ["mid_all_three_bf16", "mid_a_fp8_bt", "mid_b_n_major_fp8", "mid_a_order_last_two"]
NAMES = sorted(PROGRAMS) if os.environ.get("TILEORCH_EMULATE_ALL") else IN_CI


def _compiled(name):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[name]
    return p, compile_cutile(p.kernel, p.spec, name)


@pytest.mark.parametrize("name", NAMES)
def test_the_program_takes_its_path_and_says_so(name):
    p, prog = _compiled(name)
    assert prog.kind == p.path, prog.remarks
    if p.path == "gemm":
        cfg = prog.gemm_config
        roles = [r for r, label in (("a", "A's"), ("b", "B's"), ("c", "C's"))
                 if any(f"remark: {label} array holds the batch in its middle dimension" in x for x in prog.remarks)]
        assert cfg.batched and cfg.batch_mid == "".join(roles), (cfg.name, prog.remarks)
        assert f"_mid{cfg.batch_mid}" in cfg.name, cfg.name
        located = [x for x in prog.remarks if "middle dimension (" in x]
        assert located and all(x.startswith(f"{SOURCE}:") for x in located), located
    else:
        said = [x for x in prog.remarks if p.error in x]
        assert said and said[0].startswith(f"{SOURCE}:") and "warning" in said[0], prog.remarks


def test_the_table_covers_each_role_and_spelling():
    """A alone, B alone (N- and K-major), A and C, all three; reshape, permute, order=, a fused epilogue; f16, bf16,
    e4m3, f32 as tf32; the refusals (a computed middle index, an N-major e4m3 B, dots sharing A with such Bs)."""
    from tileorch.testing.gemm_emulation import compile_cutile  # noqa: F401 (the table imports without compiling)

    assert {"mid_a_reshape", "mid_b_reshape", "mid_b_k_major", "mid_a_c_shared_w", "mid_all_three", "mid_a_permute",
            "mid_a_order", "mid_bias_relu", "mid_a_fp8_bt", "mid_a_tf32_bt", "mid_all_three_bf16"} <= set(PROGRAMS)
    assert sorted(n for n, p in PROGRAMS.items() if p.path != "gemm") == [
        "mid_a_order_last_two", "mid_a_reversed_batch", "mid_b_n_major_fp8", "mid_two_dots_mid_bs"]


@pytest.mark.parametrize("role, strides, row", [
    # (all three batched in the middle, one batch each: the others' rows their cols apart)
    ("a", ((3 * 72, 72, 1), None, None), (3 * 72, 80, 80)),  # X[:, 1:2, :] of a [M, 3, K]: rows 3 K apart
    ("c", (None, None, (4 * 80, 80, 1)), (72, 80, 4 * 80)),  # Y[:, 1:2, :] of a [M, 4, N]
])
def test_the_launcher_passes_a_sliced_operands_own_row_stride(role, strides, row):
    """Review H1: the launcher's problem (``gemm_problem_operand_batches``) of A or C a one-batch slice of a wider
    middle dimension keeps the array's row stride, and ``mid_row_strides`` hands it to the host (``mid_ld``); before,
    the rows were taken ``L cols`` apart (the contiguous array's)."""
    import dataclasses

    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import FakeDeviceArray

    p, prog = _compiled("mid_all_three_bf16")
    shapes = [(100, 1, 72), (72, 1, 80), (100, 1, 80)]
    args = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray((i + 1) << 20, shape) for i, shape in
                                                 enumerate(shapes)) + tuple(p.spec[3:]))
    args = [dataclasses.replace(a, dtype=p.spec[a.position][1], strides=strides[a.position] or a.strides)
            if isinstance(a, rc.ArrayArg) else a for a in args]
    a, b, c, m, n, k, batch, _ = rc.gemm_problem_operand_batches(prog, args)
    assert (m, n, k, batch) == (100, 80, 72, 1)
    assert rc.mid_row_strides(prog.gemm_config, a, b, c) == row
