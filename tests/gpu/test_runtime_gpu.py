"""The runtime on a real GPU, with hand-written PTX (tests/gpu/runtime_kernels.ptx): JIT and
cubin loading, argument passing, cluster launch, DLPack/CUDA-array-interface buffers, and the
watchdog's hang and fault reports (each in its own process: both leave the context unusable)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tileorch import runtime

PTX = Path(__file__).with_name("runtime_kernels.ptx")
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def module():
    return runtime.Module.from_file(PTX)


def test_device_is_hopper(module):
    assert module.device.compute_capability == (9, 0), module.device.name


def test_jit_module_arguments(module):
    rng = np.random.default_rng(1)
    host = rng.integers(0, 1 << 40, 1000, dtype=np.uint64)
    buf = runtime.DeviceBuffer.from_array(host)
    runtime.launch(module.kernel("axpb"), grid=8, block=128, args=[buf, 999, 3, (1 << 50) + 7])
    expect = host.copy()
    expect[:999] = expect[:999] * np.uint64(3) + np.uint64((1 << 50) + 7)
    assert np.array_equal(buf.download(np.uint64), expect)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas not on PATH")
def test_cubin_module(tmp_path):
    cubin = tmp_path / "k.cubin"
    subprocess.run(["ptxas", "-arch=sm_90a", str(PTX), "-o", str(cubin)], check=True)
    mod = runtime.Module.from_file(cubin)
    assert not mod.is_ptx
    buf = runtime.DeviceBuffer.from_array(np.arange(4, dtype=np.uint64))
    runtime.launch(mod.kernel("axpb"), 1, 32, [buf, 4, 2, 1])
    assert buf.download(np.uint64).tolist() == [1, 3, 5, 7]


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2), (4, 1)])
def test_cluster_launch(module, cluster):
    grid = (4, 2)
    out = runtime.DeviceBuffer(16 * 8)
    out.fill_bytes(0xFF)
    runtime.launch(module.kernel("cluster_ids"), grid, 64, [out], cluster=cluster)
    got = out.download(np.uint32).reshape(8, 4)
    for y in range(2):
        for x in range(4):
            cx, cy = cluster
            rank = (x % cx) + (y % cy) * cx
            assert got[y * 4 + x].tolist() == [x, y, rank, cx * cy]


def test_torch_tensor_as_buffer(module):
    torch = pytest.importorskip("torch")
    t = torch.arange(64, dtype=torch.int64, device="cuda")
    runtime.launch(module.kernel("axpb"), 1, 64, [t, 64, 1, 5])
    torch.cuda.synchronize()
    assert t.cpu().tolist() == [i + 5 for i in range(64)]
    u = torch.zeros(8, dtype=torch.int64, device="cuda")
    assert runtime.device_pointer(u) == u.data_ptr()
    assert runtime.buffers._dlpack_pointer(u[2:]) == u.data_ptr() + 16


def _child(body: str) -> subprocess.CompletedProcess:
    """Run ``body`` (with ``runtime`` and ``mod`` bound) in a fresh process; it prints the
    exception it ends with and exits 3, or exits 0."""
    lines = [
        "import os, sys",
        f"sys.path.insert(0, {str(SRC)!r})",
        "from tileorch import runtime",
        f"mod = runtime.Module.from_file({str(PTX)!r})",
        "try:",
        textwrap.indent(textwrap.dedent(body).strip(), "    "),
        "except Exception as exc:",
        "    print(type(exc).__name__ + ': ' + str(exc), flush=True)",
        "    os._exit(3)",
        "os._exit(0)",
    ]
    return subprocess.run([sys.executable, "-c", "\n".join(lines)], capture_output=True, text=True,
                          timeout=120)


def test_watchdog_reports_hang():
    proc = _child("""
        flag = runtime.DeviceBuffer(4)
        flag.fill_bytes(0)
        runtime.launch(mod.kernel('spin'), (2, 1), 64, [flag], cluster=(2, 1), timeout_s=1.0)
    """)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "KernelHang: kernel 'spin' did not finish within 1 s (grid=(2, 1, 1) block=(64, 1, 1) " \
        "cluster=(2, 1, 1) smem=0)" in proc.stdout


def test_watchdog_reports_trap():
    proc = _child("runtime.launch(mod.kernel('trapper'), 1, 32, [])")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "KernelFault: kernel 'trapper' (grid=(1, 1, 1) block=(32, 1, 1) smem=0) failed" in proc.stdout
