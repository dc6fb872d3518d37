"""Without a GPU, the test run's summary says in one line that the GPU tests were skipped and
why (issue 23: a new user saw only a row of 's' and a skip count)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch.runtime import gpu_status

TESTS = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(gpu_status()[0], reason="a GPU is present: the GPU tests run")
def test_summary_line_counts_skipped_gpu_tests():
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(TESTS / "gpu" / "test_runtime_gpu.py")],
        capture_output=True, text=True, timeout=300, cwd=TESTS.parent)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [l for l in proc.stdout.splitlines() if "GPU tests skipped" in l]
    assert len(lines) == 1, proc.stdout
    line = lines[0]
    match = re.match(r"(\d+) GPU tests skipped: no Hopper GPU / cuda-python here \(expected on CPU-only machines; "
                     r"(.+)\)$", line)
    assert match, line
    skipped = re.search(r"(\d+) skipped", proc.stdout)
    assert skipped and int(match.group(1)) == int(skipped.group(1)) > 0
    assert match.group(2) == gpu_status()[1]


def test_no_summary_line_when_no_gpu_test_is_skipped():
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(Path(__file__)),
         "-k", "not no_summary_line and not counts_skipped"],
        capture_output=True, text=True, timeout=300, cwd=TESTS.parent)
    assert "GPU tests skipped" not in proc.stdout
