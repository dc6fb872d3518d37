"""A C that is a column slice of a wider array with an odd number of columns (``Y[:, :71]`` of an f32
``Y [M, 128]``): the direct epilogue stores each thread's two adjacent columns with one store guarded by the
first column alone (``atom.store_fragment``), so written in place the slice's last pair also wrote the column
after it, outside the view (found by review 25 on the PTX emulator: ``Y[:, 71]`` became 0).  The launcher now
stages such a C (a padded buffer, only C's own columns copied out: ``gemm_host.OperandRows.ends_mid_pair``), with
the reason in its performance warning; a slice of whole pairs stays in place, and a TMA epilogue's C (its
stores stop at the map's last column) too."""

from __future__ import annotations

import numpy as np
import pytest

from tileorch.kernels.gemm.config import GemmConfig
from tileorch.launchers.gemm_host import operand_rows, staging_reasons

DIRECT = GemmConfig(tile_n=128, dtype="f16", out_dtype="f32", epilogue="direct", c_ld=True)


@pytest.mark.parametrize("out_dtype,cols", [("f32", 71), ("f32", 1), ("e4m3", 127), ("s32", 33)])
def test_an_odd_column_slice_is_staged(out_dtype, cols):
    cfg = GemmConfig(tile_n=128, dtype="s8" if out_dtype == "s32" else "f16", out_dtype=out_dtype,
                     epilogue="direct", c_ld=True)
    reasons = staging_reasons(cfg, 0x1000, 0x2000, 0x3000, 100, cols, 64, ldc=256)
    assert [r.split(":")[0] for r in reasons] == ["C"], reasons
    assert "inside a pair of columns" in reasons[0] and f"({cols}, odd)" in reasons[0], reasons
    assert operand_rows(cfg, 0x1000, 0x2000, 0x3000, 100, cols, 64, ldc=256)[2].tma_ok  # (TMA alone would take it)


@pytest.mark.parametrize("cols", [72, 2, 128])
def test_a_slice_of_whole_pairs_stays_in_place(cols):
    assert staging_reasons(DIRECT, 0x1000, 0x2000, 0x3000, 100, cols, 64, ldc=256) == []


def test_a_tma_epilogues_odd_slice_stays_in_place():
    cfg = GemmConfig(tile_n=128, dtype="f16", out_dtype="f16", c_ld=True)
    assert cfg.epilogue == "tma"
    assert staging_reasons(cfg, 0x1000, 0x2000, 0x3000, 100, 71, 64, ldc=256) == []


def test_the_direct_epilogue_writes_the_column_after_an_odd_slice_in_place():
    """Why the launcher stages: the c_ld kernel run on the emulator into ``Y[:, :71]`` of ``Y [70, 128]`` in
    place (as the launcher ran it before) computes the slice right and also writes ``Y[:, 71]``."""
    pytest.importorskip("cuda.tile")
    pytest.importorskip("xdsl")
    from tileorch.testing.column_view_programs import KERNELS
    from tileorch.testing.gemm_emulation import compile_cutile, run_gemm

    m, k, n, ld = 70, 64, 71, 128
    spec = [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float32"), 64, 64, 64]
    prog = compile_cutile(KERNELS["mm_plain"], spec, "rv25_mm_odd_slice", config="cluster_m=1,epilogue=direct,c_ld=1")
    assert prog.gemm_config.c_ld and prog.gemm_config.epilogue == "direct"
    rng = np.random.default_rng(2528)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = np.zeros((k, 72), np.float16)  # (B's padded copy: its rows are not whole 16-byte units)
    b[:, :n] = rng.standard_normal((k, n))
    y = np.full((m, ld), -7.0, np.float32)
    base = 3 << 32
    assert not run_gemm(prog, a, b, base, (m, n, k), [ld], [(base, y.view(np.uint8).reshape(-1), "Y")])
    np.testing.assert_allclose(y[:, :n], a.astype(np.float64) @ b[:, :n].astype(np.float64), atol=1e-2, rtol=1e-2)
    assert (y[:, n] != -7.0).all() and (y[:, n + 1:] == -7.0).all()
