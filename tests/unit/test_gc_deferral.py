"""``tileorch.gc_deferral.gc_deferred``: the collector's thresholds raised inside, the caller's
exactly again after the block, also when it raises; nested blocks and a caller's higher
threshold left alone; and the compiles that run under it (``compile_program`` from the
bytecode's load on, the cuTile launcher's export and compile, ``tileorch.gemm``'s kernel
compile), restored after a compile error; the process's first compile runs without the collector and
moves what it made to the oldest generation unexamined (no young collection walks the imported compiler)."""

from __future__ import annotations

import gc

import pytest

from tileorch.gc_deferral import GC_THRESHOLD, gc_deferred


@pytest.fixture
def thresholds():
    """Run with the caller's thresholds (1000, 20, 30) and give the saved ones back after.  What lives
    before is frozen first (gc.freeze, as tests/conftest.py does after the collection): the full
    collections these low thresholds start walk the objects made since, not an xdist worker's whole
    heap (4.5 CPU s of the 2026-12-06 run in the first test here)."""
    gc.freeze()
    saved = gc.get_threshold()
    gc.set_threshold(1000, 20, 30)
    yield (1000, 20, 30)
    gc.set_threshold(*saved)


def test_raised_inside_and_restored_exactly(thresholds):
    with gc_deferred():
        assert gc.get_threshold() == (GC_THRESHOLD, 50, 50)
        with gc_deferred():
            assert gc.get_threshold() == (GC_THRESHOLD, 50, 50)
        assert gc.get_threshold() == (GC_THRESHOLD, 50, 50)
    assert gc.get_threshold() == thresholds
    assert gc.isenabled()


def test_restored_after_an_exception(thresholds):
    with pytest.raises(KeyError, match="inside"):
        with gc_deferred():
            with gc_deferred():
                raise KeyError("inside")
    assert gc.get_threshold() == thresholds


def test_older_generations_above_50_and_a_higher_caller_threshold_are_kept(thresholds):
    gc.set_threshold(2000, 80, 90)
    with gc_deferred():
        assert gc.get_threshold() == (GC_THRESHOLD, 80, 90)
    gc.set_threshold(5 * GC_THRESHOLD, 3, 4)
    with gc_deferred():
        assert gc.get_threshold() == (5 * GC_THRESHOLD, 3, 4)
    assert gc.get_threshold() == (5 * GC_THRESHOLD, 3, 4)


def test_compile_program_runs_deferred_from_the_load_on(thresholds, monkeypatch):
    from tileorch import driver
    from tileorch.diagnostics import CompileError

    seen = []

    def fails(*args):
        seen.append(gc.get_threshold())
        raise CompileError(["x.mlir:1:1: error: stand-in"])

    monkeypatch.setattr(driver, "_compile_program", fails)
    with pytest.raises(CompileError, match="stand-in"):
        driver.compile_program(b"not read", "x.mlir")
    assert seen == [(GC_THRESHOLD, 50, 50)] and gc.get_threshold() == thresholds


def test_the_cutile_launchers_export_and_compile_run_deferred(thresholds, monkeypatch):
    from tileorch.launchers import cutile as rc

    seen = {}

    def export(kernel, arguments):
        seen["export"] = gc.get_threshold()
        return b"bytecode"

    def compile_fails(data, name, arch, schedule, config="", resume=None):
        seen["compile"] = gc.get_threshold()
        raise ValueError("stand-in compile error")

    monkeypatch.setattr(rc, "export_bytecode", export)
    monkeypatch.setattr(rc, "_compile_program", compile_fails)
    monkeypatch.setattr(rc, "kernel_name", lambda kernel: "k")
    rc.clear_caches()
    try:
        with pytest.raises(ValueError, match="stand-in"):
            rc.compiled(object(), [], "sm_90a", "simt")  # a kernel object (hashable), no arguments
    finally:
        rc.clear_caches()
    assert seen == {"export": (GC_THRESHOLD, 50, 50), "compile": (GC_THRESHOLD, 50, 50)}
    assert gc.get_threshold() == thresholds


def test_tileorch_gemms_kernel_compile_runs_deferred(thresholds, monkeypatch):
    from types import SimpleNamespace

    from tileorch.kernels.gemm.config import GemmConfig
    from tileorch.launchers import gemm as gapi
    from tileorch.launchers import gemm_host

    seen = []
    monkeypatch.setattr(gemm_host, "compile_gemm", lambda cfg: seen.append(gc.get_threshold()) or
                        SimpleNamespace(cubin=b"\x7fELF", pdl=False))
    monkeypatch.setattr(gemm_host, "GemmKernel", lambda cfg, cubin, pdl=False: ("kernel", cfg, cubin))
    monkeypatch.setattr(gapi, "_kernels", {})
    cfg = GemmConfig()
    assert gapi.kernel_for(cfg) == ("kernel", cfg, b"\x7fELF")
    assert seen == [(GC_THRESHOLD, 50, 50)] and gc.get_threshold() == thresholds


def test_the_cli_compile_and_tileorch_compile_run_deferred_from_their_imports_on(thresholds, monkeypatch):
    """``tileorch compile`` and ``tileorch.compile`` defer the collector before they import the
    compiler (the imports are ~8% faster so), and give the thresholds back after a failure."""
    import argparse

    from tileorch import api
    from tileorch.cli import compile as cli_compile

    seen = {}

    def cli_run(args):
        seen["cli"] = gc.get_threshold()
        raise ValueError("stand-in")

    def api_compile(*args):
        seen["api"] = gc.get_threshold()
        raise ValueError("stand-in")

    monkeypatch.setattr(cli_compile, "_run", cli_run)
    monkeypatch.setattr(api, "_lookup", lambda *args: ())  # a cache miss: the compile's own work follows
    monkeypatch.setattr(api, "_build", api_compile)
    with pytest.raises(ValueError, match="stand-in"):
        cli_compile.run(argparse.Namespace(timings=False))
    with pytest.raises(ValueError, match="stand-in"):
        api.compile("x.mlir")
    assert seen == {"cli": (GC_THRESHOLD, 50, 50), "api": (GC_THRESHOLD, 50, 50)}
    assert gc.get_threshold() == thresholds


def test_one_shot_compile_runs_without_the_collector_and_other_commands_with_it():
    """``program()`` (the console script) turns the collector off for ``compile`` and a ``gemm
    --compile`` that runs nothing only; ``main()`` (tests, the fork server) never does."""
    import subprocess
    import sys

    code = ("import gc, sys\n"
            "import tileorch.cli.main as m\n"
            "m.main = lambda: print(gc.isenabled(), flush=True)\n"
            "sys.argv = ['tileorch', *%r]\n"
            "m.program()\n")
    for command, enabled in ((["compile"], "False"), (["check"], "True"), (["gemm"], "True"),
                             (["gemm", "64", "64", "64", "--compile"], "False"),
                             (["gemm", "64", "64", "64", "--compile", "--run"], "True"),
                             (["gemm", "64", "64", "64", "--bench", "--compile"], "True"),
                             (["check", "--compile"], "True")):
        proc = subprocess.run([sys.executable, "-c", code % (command,)], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == enabled, (command, proc.stdout)
    import tileorch.cli.main as m

    assert gc.isenabled() and m.ONE_SHOT_GC_OFF == ("compile",)


FIRST_COMPILE = r"""
import gc, sys
from tileorch.gc_deferral import first_compile, gc_deferred
assert first_compile() and gc.isenabled() and gc.get_freeze_count() == 0
class Node:
    pass
with gc_deferred():
    inside = gc.isenabled()
    kept = Node()
    cycle = Node()
    cycle.me = cycle  # garbage once the name is gone: freed by a full collection, not leaked
    probe = id(cycle)
    del cycle
print(inside, gc.isenabled(), gc.get_freeze_count(), gc.get_count()[0] < 100,
      any(o is kept for o in gc.get_objects(generation=2)))
gc.collect()
print(any(id(o) == probe and type(o) is Node for o in gc.get_objects()))
import tileorch.backend.compile  # the compiler is there: an ordinary block
assert not first_compile()
with gc_deferred():
    print(gc.isenabled())
gc.freeze()  # a caller that froze objects keeps them frozen
frozen = gc.get_freeze_count()
sys.modules.pop("tileorch.backend.compile")
with gc_deferred():
    print(gc.isenabled())
print(gc.get_freeze_count() == frozen)
"""


def test_the_first_compile_runs_without_the_collector_and_moves_what_it_made_to_the_oldest_generation():
    """The outermost block of a process's first compile (the compiler not imported yet): collector off
    inside, on again after, nothing frozen, the young count back near zero (no collection at the block's
    end), an object made inside in the oldest generation, a garbage cycle made inside freed by a full
    collection; once the compiler is imported, or where the caller froze objects, an ordinary block
    (collector on) that leaves the frozen objects frozen."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FIRST_COMPILE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True", "0", "True", "True", "False", "True", "True", "True"], proc.stdout


def test_a_cold_compile_makes_no_young_collection():
    """A fresh process's first ``tileorch.compile`` (the compiler's imports, ~150 thousand objects, and
    the compile): no collection walks them from the compile's start until it returns (before: one inside
    at 100 thousand allocations, one at its end, 30-60 ms together)."""
    import os
    import subprocess
    import sys

    from test_lazy_import import PROGRAM

    code = ("import gc, sys, tempfile, os\n"
            "import tileorch.api as api\n"
            "d = tempfile.mkdtemp(); p = os.path.join(d, 'k.mlir'); open(p, 'w').write(sys.argv[1])\n"
            "seen, on = [], []\n"
            "gc.callbacks.append(lambda phase, info: phase == 'start' and on and seen.append(info['generation']))\n"
            "build = api._build\n"
            "api._build = lambda *a: on.append(1) or build(*a)\n"
            "kernel = api.compile(p, ptxas=False, cache=False)\n"
            "on.clear()\n"
            "assert 'ex2.approx' in kernel.ptx\n"
            "print(seen)\n")
    env = {k: v for k, v in os.environ.items() if k != "TILEORCH_BACKEND_MEMO"}
    proc = subprocess.run([sys.executable, "-c", code, PROGRAM], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout


def test_a_later_compile_never_counts_the_frozen_objects(thresholds, monkeypatch):
    """``gc.get_freeze_count`` walks every frozen object (0.175 s a call after an xdist worker froze 1.1 M
    objects mid-run, paid by every compile after it: session 36's CI grew by ~800 CPU s); a block that is not
    the process's first compile (the compiler imported) never asks it."""
    import tileorch.backend.compile  # noqa: F401  (the compiler imported: no block here is a first compile)

    calls = []
    real = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: calls.append(1) or real())
    for _ in range(3):
        with gc_deferred():
            assert gc.get_threshold() == (GC_THRESHOLD, 50, 50) and gc.isenabled()
    assert calls == [] and gc.get_threshold() == thresholds


def test_a_warm_compile_of_a_large_kernel_makes_no_young_collection_inside(monkeypatch):
    """A later compile (the compiler imported) of one of the largest kernels of the test programs (the causal
    chained attention d128 of tools/ptx_identity.py: ~100 thousand net container allocations from a zero
    young count) runs no collection from its start until it returns: a young collection inside walked the
    live IR (~90 thousand objects) and moved it to the middle generation, where it died and was walked again
    (session 45: the young threshold 100 thousand -> 1 million)."""
    import math

    pytest.importorskip("cuda.tile")
    import tileorch
    import tileorch.api as api
    from tileorch.testing import attention_programs as ap
    from tileorch.testing.export import cutile_bytecode

    bh, seq, d = 4, 1000, 128
    spec = [((bh, seq, d), "float16")] * 4 + [1.0 / math.sqrt(d) / math.log(2.0), seq, 128, 64, d, True]
    data = cutile_bytecode(ap.attention_fwd, spec)
    tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)  # (not the process's first compile)
    on, seen = [], []
    build = api._build

    def building(*args):
        on.append(1)
        try:
            return build(*args)
        finally:
            on.clear()

    def record(phase, info):
        if phase == "start" and on:
            seen.append(info["generation"])

    monkeypatch.setattr(api, "_build", building)
    gc.collect(0)  # (the young count from zero: the compile's own allocations decide)
    gc.callbacks.append(record)
    try:
        kernel = tileorch.compile(data, None, cache=False, ptxas=False, isolate=False)
    finally:
        gc.callbacks.remove(record)
    assert ".entry" in kernel.ptx
    assert seen == [], f"collections of generations {seen} inside the compile"
