"""``check(jobs=N)``'s worker processes never stall the caller (session 18, the stall risk of
session 17): they are not forks of the caller (a fork inherits the locks other threads hold:
llvmlite's, logging's, an xdist worker's execnet threads), a worker that dies is reported with
what to do, and a parallel search past its ``timeout`` stops with a clear error instead of a wait
without end.  The verdicts, counts and counterexample equal the serial search's
(tests/unit/test_checker_gemm.py::test_parallel_check_gives_the_serial_verdict_counts_and_counterexample)."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("xdsl")

from tileorch.analysis import explore  # noqa: E402
from tileorch.analysis.explore import ParallelSearchFailed, check  # noqa: E402
from tileorch.analysis.extract import load  # noqa: E402

def test_workers_are_not_forks_of_a_threaded_caller():
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait, args=(60,))
    other.start()
    try:
        ctx = explore._pool_context()
    finally:
        stop.set()
        other.join()
    assert ctx is not None
    assert ctx.get_start_method() in ("forkserver", "spawn")


class _DiesWhenLoaded:
    """A protocol stand-in whose unpickling in the worker ends that process (as the kernel's
    out-of-memory killer would)."""

    name = "dies_in_the_worker"

    def __reduce__(self):
        return os._exit, (3,)


def test_a_worker_that_dies_is_reported_not_waited_for():
    ctx = explore._pool_context()
    searches = explore._parallel_searches(_DiesWhenLoaded(), [{"k": 1}, {"k": 2}], True, True, 2, 1000, None, ctx)
    with pytest.raises(ParallelSearchFailed, match=r"dies_in_the_worker: a worker process of the parallel "
                                                   r"search died .* instance k=1; check it serially \(jobs=1"):
        next(searches)


def _small_protocol(tmp_path):
    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.kernels.gemm.ir import gemm_kernel_ir

    cfg = GemmConfig(stages=2, cluster_m=1, schedule="persistent", tile_n=128).check()
    path = tmp_path / f"{cfg.name}.mlir"
    path.write_text(gemm_kernel_ir(cfg))
    protocols, errors = load(str(path))
    assert not errors and protocols
    return protocols[0]


def test_a_parallel_search_past_its_timeout_stops_with_an_error(tmp_path):
    protocol = _small_protocol(tmp_path)
    assert len(explore.instances(protocol)) > 1  # else there is no parallel search
    with pytest.raises(ParallelSearchFailed, match=r"did not finish within 0 s .*check it serially"):
        check(protocol, jobs=2, timeout=0)
    assert check(protocol, jobs=2, timeout=600).ok  # the same search with time to finish
