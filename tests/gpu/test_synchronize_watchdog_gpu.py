"""A kernel that never ends (the starved pipeline of ``cases_pipeline`` compiled without
``debug-timeout``: its consumers wait forever for a stage no producer fills), launched
asynchronously: ``tileorch.cutile.synchronize(timeout_s=...)`` raises ``KernelHang`` past the
deadline instead of waiting forever as ``cuStreamSynchronize`` / ``torch.cuda.synchronize`` do,
and a later launch raises ``ContextPoisoned``.  The same kernel compiled with ``debug_timeout``
(``tileorch.cli.run.compile_mlir``, the driver's bound-barrier-waits) traps with the barrier's
line instead.  Each runs in a child process: a hang or a trap leaves the CUDA context unusable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"

CHILD = f"""
import os, sys, time
sys.path[:0] = [{str(SRC)!r}, {str(HERE)!r}]
import numpy as np
from cases_pipeline import STARVED
from kernels_pipeline import pipeline_kernel
from tileorch import runtime
from tileorch.cli.run import compile_mlir
import tileorch.cutile
debug = int(sys.argv[1])
kernel = runtime.Module(compile_mlir(pipeline_kernel(STARVED, "starved", starve=True), "starved.mlir", debug),
                        label="starved").kernel("starved")
iters = 3
src = runtime.DeviceBuffer.from_array(np.arange(iters * STARVED.stage_words, dtype=np.uint32))
out = runtime.DeviceBuffer(4 * (iters + 1) * STARVED.stage_words)
runtime.launch(kernel, 1, STARVED.block, [src, out, iters], smem=STARVED.smem, wait=False)
start = time.monotonic()
try:
    tileorch.cutile.synchronize(0, timeout_s=3)
except Exception as exc:
    print(f"{{type(exc).__name__}} after {{time.monotonic() - start:.1f}} s: {{exc}}", flush=True)
    try:
        runtime.launch(kernel, 1, STARVED.block, [src, out, iters], smem=STARVED.smem, timeout_s=1)
    except Exception as again:
        print(type(again).__name__ + ": " + str(again), flush=True)
    os._exit(3)
os._exit(0)
"""


@pytest.mark.parametrize("debug", [0, 256])
def test_synchronize_bounds_a_kernel_that_never_ends(debug):
    proc = subprocess.run([sys.executable, "-c", CHILD, str(debug)], capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, out
    if debug:
        assert "KernelFault" in out and "tileorch: timeout after 256 polls waiting on pipeline" in out, out
    else:
        assert "KernelHang after 3." in out and "did not finish within 3 s" in out, out
    assert "ContextPoisoned" in out, out
