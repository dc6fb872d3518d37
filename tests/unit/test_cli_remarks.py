"""``tileorch compile --remarks`` says what the compiler decided: the path a tile program took and
the kernel's registers, spills and stack from ptxas (spills are always reported, as warnings)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from tool_forkserver import forked

from tileorch.backend.ptxas import ptxas_available

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not ptxas_available(), reason="no ptxas (pip install nvidia-cuda-nvcc)")


def _compile(path: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(ROOT / path), "-o", "/dev/null",
                           *extra]), capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_remarks_name_the_tier_path_and_ptxas_resources():
    r = _compile("examples/tile_gemm.mlir", "--remarks")
    assert r.returncode == 0, r.stderr
    assert "remark: dot kernel compiled through the TileAS tier" in r.stderr
    m = re.search(r"remark: ptxas: (gemm_f16_f16_bn_128x256x64\w*): (\d+) registers, 0 spills, 0 B stack", r.stderr)
    assert m and 24 <= int(m.group(2)) <= 255, r.stderr


def test_without_remarks_only_the_summary_line():
    r = _compile("examples/tile_gemm.mlir")
    assert r.returncode == 0, r.stderr
    assert "remark:" not in r.stderr and "accepted by ptxas -arch=sm_90a" in r.stderr


def test_cutile_simt_kernel_remarks(tmp_path):
    """A cuTile program the SIMT path compiles: the decisions its lowering recorded on the kernel
    (one program per warp, the division by the row's sum through one reciprocal per thread) are
    remarks of ``tileorch compile --remarks`` as of the launcher's compile."""
    pytest.importorskip("cuda.tile")
    from tileorch.testing.export import export_cutile
    from tileorch.testing.memory_programs import softmax

    path = export_cutile("softmax", softmax, [((64, 1000), "float16"), ((64, 1000), "float16"), 1024], tmp_path)
    r = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(path), "-o", "/dev/null",
                               "--no-ptxas", "--no-cache", "--remarks"]), capture_output=True, text=True, timeout=300,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert re.search(r"remark: @softmax\w*: one program per warp, up to 2 per CTA", r.stderr), r.stderr
    assert re.search(r"remark: @softmax\w*: 1 tile division\(s\) by a value shared by the whole tile", r.stderr), r.stderr
    quiet = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(path), "-o", "/dev/null",
                                   "--no-ptxas", "--no-cache"]), capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert quiet.returncode == 0 and "remark:" not in quiet.stderr, quiet.stderr
