"""Which ptxas tileorch runs: TILEORCH_PTXAS, then the nvidia-cuda-nvcc wheel, then PATH."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch.backend import ptxas
from tileorch.backend.ptx import BackendError


def _fake_ptxas(directory: Path, version: str = "12.3.45") -> Path:
    """A shell script that answers ``--version`` like ptxas."""
    directory.mkdir(parents=True, exist_ok=True)
    exe = directory / "ptxas"
    exe.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then\n'
        "  echo 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
        f"  echo 'Cuda compilation tools, release {version.rsplit('.', 1)[0]}, V{version}'\n"
        "  exit 0\nfi\nexit 3\n"
    )
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return exe


pytestmark = pytest.mark.skipif(os.name == "nt", reason="uses a shell-script stand-in for ptxas")


def test_env_var_wins(tmp_path, monkeypatch):
    exe = _fake_ptxas(tmp_path / "env")
    monkeypatch.setenv("TILEORCH_PTXAS", str(exe))
    monkeypatch.setattr(ptxas, "wheel_ptxas", lambda: str(_fake_ptxas(tmp_path / "wheel")))
    loc = ptxas.find_ptxas()
    assert loc == ptxas.PtxasLocation(str(exe), "TILEORCH_PTXAS")
    assert ptxas.ptxas_version(loc.path) == "12.3.45"


def test_env_var_naming_nothing_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEORCH_PTXAS", str(tmp_path / "missing"))
    with pytest.raises(BackendError, match="TILEORCH_PTXAS=.*missing is not an executable file"):
        ptxas.find_ptxas()
    assert not ptxas.ptxas_available()


def test_wheel_before_path(tmp_path, monkeypatch):
    monkeypatch.delenv("TILEORCH_PTXAS", raising=False)
    wheel = _fake_ptxas(tmp_path / "wheel")
    monkeypatch.setattr(ptxas, "wheel_ptxas", lambda: str(wheel))
    monkeypatch.setenv("PATH", str(_fake_ptxas(tmp_path / "onpath").parent))
    assert ptxas.find_ptxas() == ptxas.PtxasLocation(str(wheel), "nvidia-cuda-nvcc wheel")


def test_path_last_and_none_found(tmp_path, monkeypatch):
    monkeypatch.delenv("TILEORCH_PTXAS", raising=False)
    monkeypatch.setattr(ptxas, "wheel_ptxas", lambda: None)
    onpath = _fake_ptxas(tmp_path / "onpath")
    monkeypatch.setenv("PATH", str(onpath.parent))
    assert ptxas.find_ptxas() == ptxas.PtxasLocation(str(onpath), "PATH")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert ptxas.find_ptxas() is None
    with pytest.raises(BackendError, match="ptxas not found: set TILEORCH_PTXAS, `pip install nvidia-cuda-nvcc`"):
        ptxas.run_ptxas(".version 8.6\n.target sm_90a\n.address_size 64\n", "sm_90a")


def test_run_ptxas_uses_the_found_binary(tmp_path, monkeypatch):
    """run_ptxas runs the located file, not a bare ``ptxas`` from PATH."""
    log = tmp_path / "argv"
    exe = tmp_path / "bin" / "myptxas"
    exe.parent.mkdir()
    exe.write_text(f'#!/bin/sh\necho "$@" > {log}\nwhile [ $# -gt 1 ]; do shift; done\nprintf ELF > "$1"\n')
    exe.chmod(0o755)
    monkeypatch.setenv("TILEORCH_PTXAS", str(exe))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = ptxas.run_ptxas("// ptx\n", "sm_90a")
    assert log.read_text().startswith("-arch=sm_90a ")
    assert result.cubin == b"ELF" and result.cubin_bytes == 3


def test_installed_wheel_is_found():
    """Where the nvidia-cuda-nvcc wheel is installed (a tileorch dependency), its ptxas is found
    and runs."""
    import importlib.metadata as md

    try:
        md.distribution("nvidia-cuda-nvcc")
    except md.PackageNotFoundError:
        pytest.skip("nvidia-cuda-nvcc is not installed")
    path = ptxas.wheel_ptxas()
    assert path is not None and Path(path).name == "ptxas"
    assert ptxas.ptxas_version(path) is not None


def test_compile_with_only_the_wheel(tmp_path):
    """`tileorch compile` assembles with the wheel's ptxas when PATH has no ptxas and
    TILEORCH_PTXAS is unset (the README's first command on a machine without CUDA)."""
    if ptxas.wheel_ptxas() is None:
        pytest.skip("nvidia-cuda-nvcc is not installed")
    env = {k: v for k, v in os.environ.items() if k != "TILEORCH_PTXAS"}
    env["PATH"] = "/usr/bin:/bin"  # the interpreter is named by path below
    example = Path(__file__).resolve().parents[2] / "examples" / "ws_stream_copy.mlir"
    out = tmp_path / "k.ptx"
    proc = subprocess.run(
        [sys.executable, "-m", "tileorch.cli.main", "compile", str(example), "-o", str(out)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "accepted by ptxas -arch=sm_90a" in proc.stderr
    assert ".entry ws_stream_copy" in out.read_text()
