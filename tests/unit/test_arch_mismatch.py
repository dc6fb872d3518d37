"""`--arch` (or ``arch=``) that contradicts the module's ``cutlass.target`` is a located error,
not a kernel silently built for another architecture (issue 10)."""

import subprocess
import sys
from pathlib import Path

import pytest
from tool_forkserver import forked

pytest.importorskip("xdsl")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ws_stream_copy.mlir"


def test_cli_rejects_an_arch_that_contradicts_the_module(tmp_path):
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(EXAMPLE), "--arch", "sm_100a",
                           "-o", str(tmp_path / "k.ptx"), "--no-ptxas"]), capture_output=True, text=True)
    assert proc.returncode == 1
    line = EXAMPLE.read_text().splitlines().index('builtin.module attributes {cutlass.target = "sm_90a"} {') + 1
    assert f"{EXAMPLE}:{line}:1: error: the target given (sm_100a) differs from the module's cutlass.target \"sm_90a\"" \
        in proc.stderr
    assert not (tmp_path / "k.ptx").exists()


def test_api_rejects_it_and_accepts_the_same_target():
    from tileorch.backend.compile import CompileError
    from tileorch.driver import compile_text

    text = EXAMPLE.read_text()
    with pytest.raises(CompileError) as err:
        compile_text(text, "k.mlir", arch="sm_100a", emit="mlir")
    assert "differs from the module's cutlass.target" in err.value.lines[0]
    assert compile_text(text, "k.mlir", arch="sm_90a", emit="mlir").mlir


def test_arch_is_the_target_the_pipeline_rules_check_when_the_module_names_none():
    """Without ``cutlass.target`` the pipeline's compute capability is checked against ``--arch``."""
    from tileorch.backend.compile import CompileError
    from tileorch.driver import compile_text

    coop = (EXAMPLE.parent / "coop_pipeline.mlir").read_text()
    text = coop.replace('cutlass.target = "sm_90a", ', "").replace(
        "pipeline_compute_capability sm90", "pipeline_compute_capability sm100")
    assert "cutlass.target" not in text
    with pytest.raises(CompileError) as err:
        compile_text(text, "k.mlir", arch="sm_90a", emit="mlir")
    assert "compute_capability sm100 needs an sm_100 family target, but the module's cutlass.target is sm_90a" \
        in err.value.lines[0]
    assert err.value.lines[0].startswith("k.mlir:")
    assert compile_text(text, "k.mlir", arch="sm_100a", emit="mlir").mlir
