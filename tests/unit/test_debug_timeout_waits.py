"""``debug_timeout``: every wait loop of the generated kernels is bounded, whichever path emitted it.

A representative set, lowered with ``debug_timeout`` through the backend's pipeline up to the
std lowering (``bound-barrier-waits`` is its last cutlass-side pass): the TileAS tier's GEMM
(``gemm.tileirbc``: pipeline waits of ``convert-pipeline-to-nvvm``), the chained-dots
(attention) kernel (its own mbarrier waits, which ``debug-timeout`` did not reach before), a
Stream-K GEMM (the fix-up lock's spin) and a SIMT program whose print takes the global print
lock (a spin loop).  ``unbounded_waits`` (blocking mbarrier waits, loops polling an mbarrier or
marked as spins without a trap) must be empty, and is not without the option (so the check can
fail).  The PTX of a debug build carries one report and one ``trap;`` per bounded wait, and the
reports name the barrier (the chained kernel's by its name, with the stage).  The CLI and API
take the option and refuse bad values."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch.transforms.bound_waits import BLOCKING_WAITS, SPIN_SITE, unbounded_waits

HERE = Path(__file__).parent
GEMM = HERE / "cutile_bytecode" / "gemm.tileirbc"
HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _lowered(data: bytes, name: str, debug_timeout: int, schedule: str = "persistent"):
    """(kind, the module after the cutlass-side passes of the backend pipeline)."""
    from tileorch.backend import pipeline
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    ctx = make_context()
    kind, module = lower_program(load(data, name, ctx), ctx, schedule=schedule, remarks=[])
    names = pipeline.lowering_pipeline(module, kind == "simt", debug_timeout)
    cut = names.index(pipeline.STD_LOWERING[0])
    pipeline.run_passes(ctx, module, pipeline.make_passes(names[:cut]))
    return kind, module


def _attention_bytecode() -> bytes:
    from test_chained_dots import _arrays

    from tileorch.launchers import cutile as rc
    from tileorch.testing.attention_programs import attention_fwd

    args = _arrays(4, (4, 1000, 64)) + (0.18, 1000, 128, 64, 64, True)
    return rc.export_bytecode(attention_fwd, rc.describe_arguments(attention_fwd, args))


def _print_bytecode() -> bytes:
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.print_programs import PROGRAMS

    kernel, spec, _grid = PROGRAMS["long_row"]  # several calls per print: the print lock
    return cutile_bytecode(kernel, spec)


def _programs():
    yield pytest.param(lambda: GEMM.read_bytes(), "persistent", "gemm", id="gemm-persistent")
    yield pytest.param(lambda: GEMM.read_bytes(), "streamk", "gemm", id="gemm-streamk")
    yield pytest.param(_attention_bytecode, "persistent", "chained", id="attention", marks=needs_cutile)
    yield pytest.param(_print_bytecode, "persistent", "simt", id="simt-print", marks=needs_cutile)


@pytest.mark.parametrize("source, schedule, kind", list(_programs()))
def test_every_wait_is_bounded_with_the_option_and_not_without(source, schedule, kind):
    data = source()
    got, release = _lowered(data, "k.tileirbc", 0, schedule)
    assert got == kind
    loose = unbounded_waits(release)
    assert loose, "the release build has blocking waits or spins (else this check could not fail)"
    _, debug = _lowered(data, "k.tileirbc", 1000, schedule)
    assert unbounded_waits(debug) == []
    assert not any(isinstance(o, BLOCKING_WAITS) or SPIN_SITE in o.attributes for o in debug.walk())


@needs_cutile
def test_attention_reports_name_the_kernel_barrier_and_stage():
    from tileorch.driver import compile_module
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context

    ctx = make_context()
    result = compile_module(load(_attention_bytecode(), "attn.tileirbc", ctx), ctx, ptxas=False, debug_timeout=77)
    assert result.kind == "chained"
    texts = _messages(result.ptx)
    assert texts and all(t.startswith("tileorch: timeout after 77 polls waiting on chained-dots kernel @") for t in texts)
    assert any("K/V ring full barrier" in t and ": stage %d, phase %d (block %d, thread %d)" in t for t in texts)
    assert any("K/V ring empty barrier (producer)" in t for t in texts)
    assert any("Q tile full barrier" in t for t in texts)
    # each names the program's source position (the key loop's line), not the bytecode file's 0:0
    from tileorch.testing.attention_programs import attention_fwd

    lines, start = inspect.getsourcelines(attention_fwd._annotated_function.pyfunc)
    loop_line = start + next(i for i, line in enumerate(lines) if "for j in range(" in line)
    assert all(f"attention_programs.py:{loop_line}:" in t for t in texts), texts
    assert result.ptx.count("trap;") == len(texts)
    assert any("debug-timeout=77" in r and "remark" in r for r in result.remarks)


def _messages(ptx: str) -> list[str]:
    """The timeout report strings of a PTX module (``.global .b8 __tileorch_timeout_msg_N[] = {...}``)."""
    import re

    out = []
    for body in re.findall(r"__tileorch_timeout_msg_\d+\[\d+\] = \{([^}]*)\}", ptx):
        out.append(bytes(int(b) for b in body.split(",")).rstrip(b"\0").decode())
    return out


def test_gemm_debug_build_through_the_api_reports_pipeline_stages():
    import tileorch

    kernel = tileorch.compile(GEMM, ptxas=False, cache=False, debug_timeout=5)
    texts = _messages(kernel.ptx)
    assert texts and all("timeout after 5 polls waiting on pipeline" in t for t in texts), texts
    assert all("stage %d" in t and "phase %d" in t for t in texts)
    release = tileorch.compile(GEMM, ptxas=False, cache=False)
    assert "trap;" not in release.ptx and not _messages(release.ptx)
    assert kernel.key != release.key, "the cache keeps debug and release builds apart"


@pytest.mark.parametrize("value, error", [(-1, ValueError), (2**32, ValueError), ("9", TypeError), (True, TypeError),
                                          (1.5, TypeError)])
def test_api_refuses_a_bad_debug_timeout(value, error):
    import tileorch

    with pytest.raises(error, match="debug_timeout"):
        tileorch.compile(GEMM, ptxas=False, cache=False, debug_timeout=value)


def test_cli_debug_timeout(tmp_path):
    out = tmp_path / "g.ptx"
    ok = subprocess.run([sys.executable, "-m", "tileorch", "compile", str(GEMM), "--no-ptxas", "--no-cache",
                         "--debug-timeout", "1000", "-o", str(out), "--remarks"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "remark: debug-timeout=1000" in ok.stderr
    assert out.read_text().count("trap;") == len(_messages(out.read_text())) > 0
    bad = subprocess.run([sys.executable, "-m", "tileorch", "compile", str(GEMM), "--debug-timeout", "-3"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "argument --debug-timeout: expected a number of polls" in bad.stderr
    assert "Traceback" not in bad.stderr
