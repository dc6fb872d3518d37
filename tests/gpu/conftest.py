"""GPU tests: every test under tests/gpu carries the ``gpu`` marker and is skipped, with the
reason, only when no GPU or no cuda-python is present.

A kernel that hangs or faults leaves the process's CUDA context unusable; under pytest-xdist
(``-n N``) the worker then exits after the test, so xdist starts a fresh worker (fresh context)
for the remaining tests instead of failing them all."""

from __future__ import annotations

import os
import sys

import pytest

from tileorch.runtime import gpu_status
from tileorch.runtime.device import _devices


def pytest_collection_modifyitems(config, items):
    ok, reason = gpu_status()
    skip = pytest.mark.skip(reason=f"needs an NVIDIA GPU: {reason}")
    for item in items:
        if "tests/gpu/" in item.nodeid.replace("\\", "/") or item.nodeid.startswith("gpu/"):
            item.add_marker(pytest.mark.gpu)
            if not ok:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _fresh_process_after_poison():
    yield
    poisoned = [d.poisoned_by for d in _devices.values() if d.poisoned_by]
    if poisoned and os.environ.get("PYTEST_XDIST_WORKER"):
        print(f"\nCUDA context lost ({poisoned[0]}); restarting the worker", file=sys.stderr, flush=True)
        os._exit(70)


def pytest_runtest_logreport(report):
    """``TILEORCH_GPU_FAILURE_LOG=PATH``: append each failure's report to PATH as it happens, so a
    device run cut by its time limit (before pytest's summary) still names the failures and says why."""
    path = os.environ.get("TILEORCH_GPU_FAILURE_LOG")
    if path and report.failed:
        with open(path, "a") as log:
            log.write(f"==== {report.nodeid} ({report.when}, worker {os.environ.get('PYTEST_XDIST_WORKER', '-')})\n"
                      f"{report.longreprtext}\n")
