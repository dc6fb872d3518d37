"""Runs the lit/FileCheck suite under tests/filecheck as part of pytest, in shards (lit's
``--num-shards``/``--run-shard``) so that pytest-xdist spreads them over the CPUs.  The RUN lines'
``tileorch-opt``, ``tileorch`` and ``filecheck`` run as forks of one server per pytest process
that imported them once (tests/tool_forkserver.py): a fifth of the CPU of fresh Pythons."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import tool_forkserver  # noqa: E402

FILECHECK_DIR = Path(__file__).parent / "filecheck"
SHARDS = 8


@pytest.fixture(scope="module")
def forkserver_env():
    with tool_forkserver.running() as env:
        yield env


@pytest.mark.parametrize("shard", range(1, SHARDS + 1))
def test_lit_suite(shard, forkserver_env):
    bindir = os.path.dirname(sys.executable)
    lit = os.path.join(bindir, "lit")
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), **forkserver_env)
    jobs = 1 if os.environ.get("PYTEST_XDIST_WORKER") else (os.cpu_count() or 2)
    proc = subprocess.run(
        [lit, "-q", "-j", str(jobs), f"--num-shards={SHARDS}", f"--run-shard={shard}", str(FILECHECK_DIR)],
        capture_output=True, text=True, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
