"""`tileorch doctor`: one line per toolchain fact, absent things reported as `not found`."""

from __future__ import annotations

import subprocess
import sys

from tileorch.cli import doctor
from tool_forkserver import forked


def test_doctor_prints_every_fact():
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "doctor"]),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    names = [line.split(":", 1)[0] for line in proc.stdout.splitlines()]
    assert names == ["tileorch", "Python", "xDSL", "LLVM (llvmlite)", "ptxas", "compile cache", "settings", "cuda-python",
                     "CUDA driver", "GPU", "launch path", "upstream MLIR (iree-opt)", "cuTile (cuda-tile)", "tileiras"]
    assert "xDSL:" in proc.stdout and "0.74.0" in proc.stdout
    assert "NVPTX backend present" in proc.stdout


def test_the_compile_cache_directory_is_reported(tmp_path, monkeypatch):
    """Where programs are kept, and an unwritable TILEORCH_CACHE_DIR (a file) said plainly (it
    otherwise only shows as every process compiling again)."""
    monkeypatch.delenv("TILEORCH_CACHE", raising=False)
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path / "cache"))
    fact = doctor._cache()
    assert fact.ok and fact.value.startswith(f"{tmp_path / 'cache' / 'kernels'} (writable")
    (tmp_path / "afile").write_text("x")
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path / "afile"))
    fact = doctor._cache()
    assert not fact.ok and not fact.required
    assert fact.value.startswith(f"{tmp_path / 'afile' / 'kernels'} cannot be written (FileExistsError") or \
        fact.value.startswith(f"{tmp_path / 'afile' / 'kernels'} cannot be written (NotADirectoryError"), fact.value
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    assert doctor._cache().value.startswith("off (TILEORCH_CACHE=0)")


def test_missing_ptxas_is_reported_and_strict_fails(tmp_path):
    env = {"PATH": str(tmp_path), "TILEORCH_PTXAS": str(tmp_path / "nope")}
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "doctor", "--strict"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    line = next(l for l in proc.stdout.splitlines() if l.startswith("ptxas:"))
    assert "not found" in line and "is not an executable file" in line
    assert "cannot compile to a cubin: missing ptxas" in proc.stderr


class _FakeLibcuda:
    """The five driver entry points doctor calls, answering like one H100 on driver 12.8."""

    def cuDriverGetVersion(self, out):
        out._obj.value = 12080
        return 0

    def cuInit(self, flags):
        return 0

    def cuDeviceGetCount(self, out):
        out._obj.value = 1
        return 0

    def cuDeviceGet(self, out, ordinal):
        out._obj.value = ordinal
        return 0

    def cuDeviceGetName(self, buf, size, dev):
        buf.value = b"NVIDIA H100 80GB HBM3"
        return 0

    def cuDeviceGetAttribute(self, out, attr, dev):
        out._obj.value = {doctor.CC_MAJOR: 9, doctor.CC_MINOR: 0}[attr]
        return 0


def test_driver_and_gpu_from_libcuda():
    driver, gpu = doctor._driver_and_gpu(load=_FakeLibcuda)
    assert (driver.value, gpu.value) == ("12.8", "0: NVIDIA H100 80GB HBM3 (sm_90)")


def test_no_driver():
    def load():
        raise OSError("libcuda.so.1: cannot open shared object file")

    driver, gpu = doctor._driver_and_gpu(load=load)
    assert driver.value.startswith("not found (libcuda.so.1") and not driver.ok
    assert gpu.value == "not found (no driver)"


def test_the_launch_path_and_why(monkeypatch):
    from tileorch.runtime import direct_launch as dl

    monkeypatch.setenv(dl.ENV, "1")
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    assert dl.planned_path(load=_FakeLaunchLibcuda) == ("ctypes", "libcuda's cuLaunchKernelEx called through ctypes "
                                                                  "(TILEORCH_LAUNCH_CTYPES=1; unset: the C launcher)")

    def missing():
        raise OSError("libcuda.so.1: cannot open shared object file")

    assert dl.planned_path(load=missing) == ("cuda-python", "libcuda could not be loaded through ctypes (OSError: "
                                                            "libcuda.so.1: cannot open shared object file)")
    assert dl.planned_path(load=_FakeLibcuda)[0] == "cuda-python"  # no cuLaunchKernelEx
    monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "1")
    assert dl.planned_path(load=_FakeLaunchLibcuda)[0] == "cuda-python"
    monkeypatch.setenv(dl.ENV, "0")
    assert dl.planned_path(load=_FakeLaunchLibcuda) == ("cuda-python", "TILEORCH_LAUNCH_CTYPES=0")
    line = doctor._launch_path()
    assert (line.name, line.value) == ("launch path", "cuda-python: TILEORCH_LAUNCH_CTYPES=0")
    from tileorch.launchers import cutile_native

    monkeypatch.setattr(cutile_native, "enabled", [True])
    assert doctor._launch_path().value == ("cuda-python: TILEORCH_LAUNCH_CTYPES=0; tileorch.cutile.launch of plain "
                                           "SIMT programs: cuTile's C++ launcher (TILEORCH_CUTILE_NATIVE=1)")


class _FakeLaunchLibcuda(_FakeLibcuda):
    def cuLaunchKernelEx(self, config, f, params, extra):
        return 0


def test_cutile_and_tileiras_are_reported(tmp_path, monkeypatch):
    """doctor says whether cuTile (the cuda_tile package) and its compiler tileiras are found."""
    import importlib.util
    import os

    fake = tmp_path / "tileiras"
    fake.write_text("#!/bin/sh\necho 'tileiras: NVIDIA (R) Tile IR compiler'\necho 'Cuda compilation tools, release 13.4, V13.4.1'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setattr(doctor, "tileiras_candidates", lambda: [(str(fake), "PATH")])
    tileiras = doctor._tileiras()
    assert tileiras.ok and tileiras.value == f"Cuda compilation tools, release 13.4, V13.4.1 at {fake} (from PATH)"
    monkeypatch.setattr(doctor, "tileiras_candidates", lambda: [])
    missing = doctor._tileiras()
    assert not missing.ok and missing.value.startswith("not found (optional")

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "cuda.tile" else real_find_spec(name, *a))
    absent = doctor._cutile()
    assert not absent.ok and absent.value.startswith("not found (") and "pip install cuda-tile" in absent.value


def test_tileiras_lookup_follows_path(tmp_path, monkeypatch):
    import os

    fake = tmp_path / "tileiras"
    fake.write_text("#!/bin/sh\necho 'release 13.4'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    assert (str(fake), "PATH") in doctor.tileiras_candidates()
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "doctor"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PATH": str(tmp_path)})
    line = next(l for l in proc.stdout.splitlines() if l.startswith("tileiras:"))
    assert line.endswith(f"release 13.4 at {fake} (from PATH)") or "(from the nvidia.cu13 pip wheels)" in line
    assert any(l.startswith("cuTile (cuda-tile):") for l in proc.stdout.splitlines())
