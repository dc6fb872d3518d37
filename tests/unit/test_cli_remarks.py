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
