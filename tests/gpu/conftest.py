"""GPU tests: every test under tests/gpu carries the ``gpu`` marker and is skipped, with the
reason, only when no GPU or no cuda-python is present."""

from __future__ import annotations

import pytest

from tileorch.runtime import gpu_status


def pytest_collection_modifyitems(config, items):
    ok, reason = gpu_status()
    skip = pytest.mark.skip(reason=f"needs an NVIDIA GPU: {reason}")
    for item in items:
        if "tests/gpu/" in item.nodeid.replace("\\", "/") or item.nodeid.startswith("gpu/"):
            item.add_marker(pytest.mark.gpu)
            if not ok:
                item.add_marker(skip)
