"""``tileorch compile --timings`` / ``tileorch.compile(..., timings=True)`` (issue 22 item 1):
the wall time of each phase and of each pass of each pipeline, as ``mlir-opt --mlir-timing``
prints it, for every input kind (cutlass MLIR, an nv_tileaa tile program, cuTile bytecode)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tileorch import timing
from tileorch.backend.pipeline import PIPELINE, pass_name
from tileorch.backend.ptxas import ptxas_available

ROOT = Path(__file__).resolve().parents[2]
WS_STREAM_COPY = ROOT / "examples" / "ws_stream_copy.mlir"
TILE_GEMM = ROOT / "examples" / "tile_gemm.mlir"
GEMM_BYTECODE = Path(__file__).resolve().parent / "cutile_bytecode" / "gemm.tileirbc"

needs_ptxas = pytest.mark.skipif(not ptxas_available(), reason="no ptxas (pip install nvidia-cuda-nvcc)")


def cli_timings(path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict[str, float]]:
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "compile", str(path), "-o", "-", "--no-cache",
                           "--timings", *extra], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return proc, timing.parse_report(proc.stderr)


def check_sums(t: dict[str, float], slack: float = 0.0) -> None:
    """No part exceeds the whole: the top-level phases sum to at most the total, the children of
    each phase to at most that phase (``slack``: the table's rounding to 0.1 ms)."""
    total = t[timing.TOTAL]
    keys = [k for k in t if k != timing.TOTAL]
    assert sum(t[k] for k in keys if "/" not in k) <= total + slack
    for parent in keys:
        children = [k for k in keys if k.rsplit("/", 1)[0] == parent and "/" in k]
        assert sum(t[k] for k in children) <= t[parent] + slack, parent
    assert all(v >= 0 for v in t.values())


def test_report_round_trips():
    t = {"read": 0.001, "parse": 0.25, "lower": 0.5, "lower/convert-scf-to-cf": 0.125,
         "lower/verify": 0.0625, "tile-program": 0.3, "tile-program/tileas-tier": 0.2,
         "tile-program/tileas-tier/tileas-plan-cta": 0.1, "codegen": 0.125, timing.TOTAL: 1.5}
    text = timing.format_report(t)
    assert "Total Execution Time: 1.5000 seconds" in text
    assert "----Wall Time----" in text and "(rest)" in text
    assert timing.parse_report(text) == pytest.approx(t, abs=1e-4)
    assert list(timing.parse_report(text)) == list(t)


def test_nested_scopes_share_one_timer():
    with timing.collect() as outer:
        with timing.timed("a"):
            with timing.collect() as inner, timing.timed("b"):
                assert inner is outer
    d = outer.as_dict()
    assert list(d) == ["a", "a/b", timing.TOTAL]
    assert d["a/b"] <= d["a"] <= d[timing.TOTAL]
    with timing.timed("outside"):  # no scope: nothing recorded, nothing raised
        pass
    assert timing.active() is None


@needs_ptxas
def test_cli_cutlass_example_names_every_phase_and_pass():
    proc, t = cli_timings(WS_STREAM_COPY)
    assert ".entry" in proc.stdout  # the PTX still goes to stdout, the report to stderr
    assert "tileorch compile timing report" in proc.stderr and "Total Execution Time" in proc.stderr
    for phase in ("read", "parse", "verify", "lower", "translate", "codegen", "ptxas", timing.TOTAL):
        assert phase in t, (phase, proc.stderr)
    for name in PIPELINE:
        assert f"lower/{pass_name(name)}" in t, (name, proc.stderr)
    passes = [k for k in t if k.startswith("lower/") and k != "lower/verify"]
    # in pipeline order; a pass the pipeline runs twice (cse-constants) is one entry, at its first run, timing both
    assert passes == list(dict.fromkeys(f"lower/{pass_name(n)}" for n in PIPELINE))
    assert sum(t[k] for k in passes) <= t[timing.TOTAL]
    check_sums(t, slack=2e-3)


@needs_ptxas
def test_cli_tile_program_times_the_tier_pass_by_pass():
    from tileorch.transforms.tileas.tier import TILEAS_PASSES

    _, t = cli_timings(TILE_GEMM)
    assert "tile-program/tileas-tier" in t and "tile-program/convert-nv-tileas-to-cutlass" in t
    for name in TILEAS_PASSES:
        assert f"tile-program/tileas-tier/{name}" in t, name
    for name in PIPELINE:
        assert f"lower/{pass_name(name)}" in t, name
    check_sums(t, slack=2e-3)


def test_cli_cutile_bytecode_and_emit_mlir():
    _, t = cli_timings(GEMM_BYTECODE, "--emit=mlir")
    for key in ("read", "parse", "verify", "tile-program/convert-cudatile-to-tileaa", "tile-program/tileas-tier",
                "lower/convert-func-to-llvm", "print"):
        assert key in t, key
    assert "codegen" not in t and "ptxas" not in t  # stopped at MLIR
    check_sums(t, slack=2e-3)


def test_cli_failure_still_reports_the_phases_run(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("builtin.module {\n  %0 = \"test.nope\"() : () -> i32\n  func.func @f( {\n}\n")
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "compile", str(bad), "--no-cache", "--timings"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 1
    assert "error" in proc.stderr
    t = timing.parse_report(proc.stderr)
    assert "parse" in t and timing.TOTAL in t and "lower" not in t


@needs_ptxas
def test_python_field_holds_the_report_data(capsys, monkeypatch):
    """The API's timings field is the printed table, and the CLI reports the same phases and
    passes.  Verified after every pass in both (with one verification per pipeline the API, not
    isolated, verifies inside ``lower`` while the isolated CLI overlaps it with code generation:
    the same work under another phase name)."""
    import tileorch

    monkeypatch.setenv("TILEORCH_VERIFY_EACH_PASS", "1")

    kernel = tileorch.compile(str(WS_STREAM_COPY), None, cache=False, timings=True)
    t = kernel.timings
    printed = timing.parse_report(capsys.readouterr().err)
    assert list(printed) == list(t)  # the table printed is the field
    assert printed == pytest.approx(t, abs=1e-4)
    for name in PIPELINE:
        assert f"lower/{pass_name(name)}" in t
    for phase in ("read", "parse", "verify", "translate", "codegen", "ptxas"):
        assert phase in t
    check_sums(t)
    _, cli = cli_timings(WS_STREAM_COPY)  # the CLI reports the same phases and passes (plus its imports)
    assert set(t) - {"import"} <= set(cli)


def test_python_timings_of_compile_text_and_bytecode():
    import tileorch
    from tileorch.driver import compile_text

    result = compile_text(TILE_GEMM.read_text(), str(TILE_GEMM), emit="llvm")
    t = result.timings
    assert list(t)[0] == "parse" and list(t)[-1] == timing.TOTAL
    assert "tile-program/tileas-tier/tileas-plan-cta" in t and "translate" in t
    check_sums(t)
    kernel = tileorch.compile(GEMM_BYTECODE.read_bytes(), cache=False, ptxas=False)
    assert "tile-program/convert-cudatile-to-tileaa" in kernel.timings and "codegen" in kernel.timings
    check_sums(kernel.timings)


def _fake_backend(monkeypatch):
    """``tileorch.gemm``'s compile with the backend stood in (the tier runs): what the GEMM route
    times itself, without LLVM and ptxas."""
    from types import SimpleNamespace

    import tileorch.driver as driver

    def compile_module(module, **kwargs):
        with timing.timed("lower"):
            pass
        return SimpleNamespace(ptxas=SimpleNamespace(cubin=b"\x7fELF gemm"), timings={})

    monkeypatch.setattr(driver, "compile_module", compile_module)
    monkeypatch.setenv("TILEORCH_CACHE", "0")


def test_gemm_compile_times_its_imports_and_the_tier_pass_by_pass(monkeypatch):
    """``compile_gemm`` (``tileorch gemm --compile``, ``tileorch.gemm``'s first call): the
    compiler's imports are a phase (a first compile's largest: outside every phase before), the
    tier's own imports, the tile program's construction and each tier pass are timed under ``tier``."""
    from tileorch.launchers.gemm import default_config
    from tileorch.launchers.gemm_host import compile_gemm
    from tileorch.transforms.tileas.tier import TILEAS_PASSES

    _fake_backend(monkeypatch)
    seconds = compile_gemm(default_config(256, 256, 256, "bf16", "bf16", "k", "auto", 132), use_cache=False).seconds
    assert [k for k in seconds if "/" not in k] == ["import", "tier", "lower", timing.TOTAL]
    assert [k for k in seconds if k.startswith("tier/") and k.count("/") == 1] == [
        "tier/import", "tier/program", "tier/tileas-tier", "tier/convert-nv-tileas-to-cutlass"]
    assert [k.rsplit("/", 1)[1] for k in seconds if k.startswith("tier/tileas-tier/")] == list(TILEAS_PASSES)
    check_sums(seconds)


def test_cli_gemm_compile_timings_prints_the_report(monkeypatch, capsys):
    from tileorch.cli.main import main

    _fake_backend(monkeypatch)
    with pytest.raises(SystemExit) as done:
        main(["gemm", "256", "256", "256", "--compile", "--timings"])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert "seconds: import " in out
    t = timing.parse_report(err)
    assert "tier/tileas-tier/tileas-plan-cta" in t and "tier/import" in t
    check_sums(t, slack=2e-4)


def test_cli_gemm_compile_with_the_cache_off_names_no_cache_path(monkeypatch, capsys):
    """With ``TILEORCH_CACHE=0`` the cubin is stored nowhere: the line says so, and the cache key
    (the compiler's fingerprint, a walk of its sources) is not computed after the compile."""
    from tileorch import cache
    from tileorch.cli.main import main

    _fake_backend(monkeypatch)

    def no_key(*args, **kwargs):
        raise AssertionError("a cache key computed with the cache off")

    monkeypatch.setattr(cache, "make_key", no_key)
    with pytest.raises(SystemExit) as done:
        main(["gemm", "256", "256", "256", "--compile"])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert "B cubin -> not cached (TILEORCH_CACHE=0); seconds: import " in out, out + err


def test_cli_gemm_timings_without_compile_is_an_error(capsys):
    from tileorch.cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["gemm", "256", "256", "256", "--timings"])
    assert done.value.code == 2
    assert "tileorch gemm: error: --timings times the compile: add --compile" in capsys.readouterr().err
