"""Runs the lit/FileCheck suite under tests/filecheck as part of pytest, in shards (lit's
``--num-shards``/``--run-shard``) so that pytest-xdist spreads them over the CPUs.  The RUN lines'
``tileorch-opt``, ``tileorch`` and ``filecheck`` run as forks of one server per pytest process
that imported them once (tests/tool_forkserver.py): a fifth of the CPU of fresh Pythons."""

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
import tool_forkserver  # noqa: E402

FILECHECK_DIR = Path(__file__).parent / "filecheck"
SHARDS = 8
SHARD_TIMEOUT_S = 480
"""A shard (~30 RUN files, a few CPU seconds) still running after this is stopped and fails with
what it printed, before pyproject.toml's faulthandler_timeout (600 s) would end the worker."""


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
    proc = subprocess.Popen(
        # --order=lexical: every shard must partition the same list.  lit's default ("smart") sorts by the times
        # each run writes to tests/filecheck/.lit_test_times.txt, so a shard started after another shard wrote it
        # may cut a different list, and a file can fall in no shard (session 38: tileas/tier_chained_dots.mlir
        # failed under lit alone since session 37 while every pytest shard passed)
        [lit, "-q", "-j", str(jobs), "--order=lexical", f"--num-shards={SHARDS}", f"--run-shard={shard}",
         str(FILECHECK_DIR)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=SHARD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        # the shard and every RUN line it started (one process group), then what they printed
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # a tool forked by the fork server still holds the pipes
            out, err = "", "(no output: the pipes stayed open)"
        pytest.fail(f"lit shard {shard} ran past {SHARD_TIMEOUT_S} s (stopped):\n{out}{err}")
    assert proc.returncode == 0, out + err
