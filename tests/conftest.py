"""Suite-wide settings: lowering bugs are reported at the pass that made them (every pass's
output is verified, which ``tileorch compile`` skips for speed)."""

import os

os.environ.setdefault("TILEORCH_VERIFY_EACH_PASS", "1")
if "TILEORCH_CACHE_DIR" not in os.environ:  # compiled kernels of this run only: no stale hits, no litter
    import tempfile

    os.environ["TILEORCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="tileorch-test-cache-")


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
