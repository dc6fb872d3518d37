"""Interop the other way: modules written in upstream MLIR's ``llvm``/``nvvm`` syntax (custom and
generic, as upstream's NVGPU-to-NVVM conversion produces them for mbarriers, bulk and TMA copies and
WGMMA) are read by tileorch-opt and compiled by ``tileorch compile`` / ``tileorch.compile``.

Each input in ``tests/upstream_inputs/`` lists the PTX instructions it must produce
(``// EXPECT-PTX: ...``).  Where ``iree-opt`` (upstream MLIR) is installed the inputs are first
checked to be upstream MLIR indeed.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import tileorch
from tileorch.backend.ptxas import ptxas_available
from tileorch.diagnostics import parse_module, verify_located
from tileorch.registry import make_context
from tool_forkserver import forked

INPUTS = sorted((Path(__file__).resolve().parents[1] / "upstream_inputs").glob("*.mlir"))
HERE_IREE = Path(sys.executable).parent / "iree-opt"


def _iree_opt() -> str | None:
    import shutil

    return str(HERE_IREE) if HERE_IREE.exists() else shutil.which("iree-opt")


def _expected(path: Path) -> list[str]:
    return re.findall(r"^// EXPECT-PTX: (.*)$", path.read_text(), re.M)


def _squash(text: str) -> str:
    return re.sub(r"[ \t]+", " ", text)


def test_there_are_inputs():
    assert len(INPUTS) >= 3 and all(_expected(p) for p in INPUTS)


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.stem)
def test_input_is_upstream_mlir(path):
    iree = _iree_opt()
    if iree is None:
        pytest.skip("iree-opt (pip install iree-base-compiler) not installed")
    proc = subprocess.run([iree, str(path), "-o", "/dev/null"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.stem)
def test_tileorch_reads_and_compiles(path):
    module = parse_module(make_context(), path.read_text(), str(path))
    assert verify_located(module) == []
    kernel = tileorch.compile(path, ptxas=ptxas_available(), cache=False)
    ptx = _squash(kernel.ptx)
    missing = [e for e in _expected(path) if _squash(e) not in ptx]
    assert missing == [], f"PTX lacks {missing}"
    if ptxas_available():
        assert kernel.cubin.startswith(b"\x7fELF")


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.stem)
def test_reads_upstream_reprinting(path):
    """What upstream prints back for the input (its canonical custom form, SSA names renumbered)
    also compiles to the same PTX."""
    iree = _iree_opt()
    if iree is None:
        pytest.skip("iree-opt (pip install iree-base-compiler) not installed")
    printed = subprocess.run([iree, str(path)], capture_output=True, text=True, timeout=120, check=True).stdout
    again = tileorch.compile(printed, ptxas=False, cache=False)
    assert again.ptx == tileorch.compile(path, ptxas=False, cache=False).ptx


def test_cli_compiles_an_upstream_module(tmp_path):
    path = next(p for p in INPUTS if p.stem == "mbarrier_pipeline")
    out = tmp_path / "k.ptx"
    cmd = [sys.executable, "-m", "tileorch.cli.main", "compile", str(path), "-o", str(out), "--no-cache"]
    if not ptxas_available():
        cmd.append("--no-ptxas")
    proc = subprocess.run(forked(cmd), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert ".visible .entry handshake(" in out.read_text()
