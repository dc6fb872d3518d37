"""``ct.assert_`` on the GPU: a program whose assertion holds runs as without it; one whose
assertion fails prints CUDA's assertion line (the message, the assert's file and line) and its
launch fails with an assert error (checked in a child process: the failure ends the context)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")
ct = pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.testing.assert_programs import assert_line, checked_copy  # noqa: E402


def test_assert_that_holds_changes_nothing():
    x = torch.rand(4096, device="cuda") * 99.0
    y = torch.full_like(x, float("nan"))
    tileorch.cutile.launch(torch.cuda.current_stream(), (4096 // 256,), checked_copy, (x, y, 256))
    torch.cuda.synchronize()
    assert torch.equal(y, x)


def test_assert_that_fails_stops_the_kernel_with_its_message():
    child = textwrap.dedent("""
        import torch, tileorch.cutile
        from tileorch.testing.assert_programs import checked_copy
        x = torch.zeros(4096, device="cuda")
        x[1234] = 500.0
        y = torch.empty_like(x)
        try:
            tileorch.cutile.launch(torch.cuda.current_stream(), (16,), checked_copy, (x, y, 256))
            torch.cuda.synchronize()
        except Exception as exc:
            print("RAISED:", type(exc).__name__, exc, flush=True)
            raise SystemExit(3)
        print("NO ERROR", flush=True)
    """)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, out
    assert "x must be below 100" in out and f"assert_programs.py:{assert_line(checked_copy)}" in out, out
    assert "assert" in out.split("RAISED:", 1)[1].lower(), out
