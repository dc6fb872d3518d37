"""A starved pipeline (consumers wait for one stage more than is produced) compiled with the
lowering's ``debug-timeout``: the wait traps with a message naming the barrier, stage and phase,
and the runtime reports the trap as a fault of that kernel, not as a hang.  Runs in a child
process: the trap leaves the CUDA context unusable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"

CHILD = f"""
import os, sys
sys.path[:0] = [{str(SRC)!r}, {str(HERE)!r}]
import numpy as np
import conformance
from cases_pipeline import STARVED, STARVED_NAME
from tileorch import runtime
kernel = conformance.kernel(STARVED_NAME)
iters = 3
src = runtime.DeviceBuffer.from_array(np.arange(iters * STARVED.stage_words, dtype=np.uint32))
out = runtime.DeviceBuffer(4 * (iters + 1) * STARVED.stage_words)
try:
    runtime.launch(kernel, 1, STARVED.block, [src, out, iters], smem=STARVED.smem, timeout_s=30)
except Exception as exc:
    print(type(exc).__name__ + ": " + str(exc), flush=True)
    os._exit(3)
os._exit(0)
"""


def test_debug_timeout_traps_with_the_barrier():
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, out
    assert "KernelFault: kernel 'starved_debug'" in out, out
    assert "tileorch: timeout after 256 polls waiting on pipeline" in out and "barrier: stage" in out, out
