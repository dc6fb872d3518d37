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
