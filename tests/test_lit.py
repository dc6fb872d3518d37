"""Runs the lit/FileCheck suite under tests/filecheck as part of pytest."""

import os
import subprocess
import sys
from pathlib import Path

FILECHECK_DIR = Path(__file__).parent / "filecheck"


def test_lit_suite():
    bindir = os.path.dirname(sys.executable)
    lit = os.path.join(bindir, "lit")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    proc = subprocess.run(
        [lit, "-q", "-j", str(os.cpu_count() or 2), str(FILECHECK_DIR)],
        capture_output=True, text=True, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
