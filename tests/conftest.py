"""Suite-wide settings: lowering bugs are reported at the pass that made them (every pass's
output is verified, which ``tileorch compile`` skips for speed)."""

import os

import pytest

os.environ.setdefault("TILEORCH_VERIFY_EACH_PASS", "1")
if "TILEORCH_CACHE_DIR" not in os.environ:  # compiled kernels of this run only: no stale hits, no litter
    import tempfile

    os.environ["TILEORCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="tileorch-test-cache-")
if "TILEORCH_BACKEND_MEMO" not in os.environ:  # LLVM codegen and ptxas run once per distinct input of
    import tempfile  # the run, shared by the xdist workers (tileorch.backend.memo); "" turns it off

    os.environ["TILEORCH_BACKEND_MEMO"] = tempfile.mkdtemp(prefix="tileorch-test-backend-memo-")


def _ptxas_on_path() -> None:
    """Tests and lit RUN lines that call a bare ``ptxas`` use the one tileorch finds
    (``TILEORCH_PTXAS``, else the ``nvidia-cuda-nvcc`` wheel) when PATH has none: a machine with
    pip alone and no CUDA toolkit runs them too."""
    import shutil

    if shutil.which("ptxas") is not None:
        return
    try:
        from tileorch.backend.ptxas import find_ptxas

        loc = find_ptxas()
    except Exception:  # noqa: BLE001  (a bad TILEORCH_PTXAS is reported by the tests that use it)
        return
    if loc is not None and os.path.basename(loc.path) in ("ptxas", "ptxas.exe"):
        os.environ["PATH"] = os.path.dirname(loc.path) + os.pathsep + os.environ.get("PATH", "")


_ptxas_on_path()


def _gpu_present() -> bool:
    """An NVIDIA device node (cheap; no driver call): GPU tests then run serially."""
    return os.path.exists("/dev/nvidia0") or os.path.exists("/dev/nvidiactl")


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """Spread the suite over the CPUs (pytest-xdist, one worker per core, tests handed out one by one)
    when xdist is installed, no ``-n`` was given, there is no GPU here (GPU tests share the device:
    they run serially) and ``TILEORCH_XDIST`` is not ``0``."""
    if os.environ.get("TILEORCH_XDIST", "1") == "0" or _gpu_present():
        return None
    if not config.pluginmanager.hasplugin("xdist") or getattr(config.option, "numprocesses", None):
        return None
    if os.environ.get("PYTEST_XDIST_WORKER"):  # inside a worker already
        return None
    workers = os.cpu_count() or 1
    if workers < 2:
        return None
    config.option.numprocesses = workers
    if getattr(config.option, "dist", "no") == "no":
        config.option.dist = "load"
    return None


GPU_SKIP_PREFIX = "needs an NVIDIA GPU: "  # tests/gpu/conftest.py's skip reason


def _gpu_skip_reason(report) -> str | None:
    """The reason of a GPU test skipped for want of a GPU, else None."""
    if not report.skipped or "gpu" not in getattr(report, "keywords", {}):
        return None
    longrepr = report.longrepr
    message = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    if GPU_SKIP_PREFIX not in message:
        return None
    return message.split(GPU_SKIP_PREFIX, 1)[1]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line saying that the GPU tests were skipped, and why, when there is no GPU here."""
    reasons = [r for r in map(_gpu_skip_reason, terminalreporter.stats.get("skipped", [])) if r is not None]
    if reasons:
        terminalreporter.write_line(
            f"{len(reasons)} GPU tests skipped: no Hopper GPU / cuda-python here (expected on CPU-only machines; "
            f"{reasons[0]})")
