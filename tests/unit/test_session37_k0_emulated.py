"""benchmarks/session37_k0.py's probe on the PTX emulator: the persistent chained kernel instrumented with the
K0 timeline (``%globaltimer`` / ``%clock64`` / ``%smid`` events into a shared record, copied to a module-scope array
at the exit) writes bit-identical output to the plain kernel, every event of each warp group is recorded in order,
and ``%smid`` reads as the emulator's CTA index.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "session37_k0.py"


def _probe():
    spec = importlib.util.spec_from_file_location("session37_k0", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_k0_probe_emulated(monkeypatch, capsys):
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    assert _probe().emulate(None) == 0, capsys.readouterr().out
    assert "[k0-emu] OK" in capsys.readouterr().out


def test_k0_instrument_leaves_other_ptx_alone():
    ptx = ".version 8.0\n.target sm_90a\n.visible .entry other()\n{\n\tret;\n}\n"
    assert _probe().instrument(ptx) == (ptx, 0)
