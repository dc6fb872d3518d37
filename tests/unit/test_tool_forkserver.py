"""tests/tool_forkserver.py, the fork server of the lit suite's ``tileorch-opt`` / ``tileorch`` / ``filecheck``:
the server imports what a tool run imports on first use (a tier pass's helpers, xDSL's MLIR printer), so a forked
child imports none of it again; a client hands its arguments (any characters) to the server and exits with the
tool's status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("xdsl")

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
import tool_forkserver  # noqa: E402

CHAINED = TESTS / "filecheck" / "tileas" / "tier_chained_dots_one_row.mlir"

_AFTER_PRELOAD = """
import sys
sys.path.insert(0, {tests!r})
import tool_forkserver
tool_forkserver._preload()
before = set(sys.modules)
from tileorch.tools.opt import main
sys.argv = ["tileorch-opt", {path!r}, "-p", "tileas-tier,convert-nv-tileas-to-cutlass", "-o", "/dev/null"]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
print(sorted(m for m in set(sys.modules) - before if m.startswith(("tileorch.", "xdsl."))))
"""


def test_a_tier_run_imports_nothing_the_server_did_not():
    """What the server imports before forking covers a chained tier run through the cutlass conversion and its
    printed result: the run (as a child would run it) imports no tileorch or xDSL module of its own."""
    env = dict(os.environ, TILEORCH_ATTN_OVERLAP="0", TILEORCH_ATTN_PERSISTENT="0")
    out = subprocess.run([sys.executable, "-c", _AFTER_PRELOAD.format(tests=str(TESTS), path=str(CHAINED))],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_client_passes_any_argument_and_the_tools_status(tmp_path):
    """A file name with non-ASCII characters and a quote reaches the tool as given (its error names it) and the
    tool's exit status is the client's; a run that succeeds prints its output through the client's streams."""
    with tool_forkserver.running() as env:
        opt = os.path.join(env[tool_forkserver.BIN_ENV], "tileorch-opt")
        missing = str(tmp_path / "ké\u00efrnel \"q\" \u2603.mlir")
        bad = subprocess.run([opt, missing], capture_output=True, text=True, timeout=120)
        assert bad.returncode == 1 and missing in bad.stderr, bad.stderr
        good = tmp_path / "m.mlir"
        good.write_text("builtin.module {\n}\n")
        ok = subprocess.run([opt, str(good)], capture_output=True, text=True, timeout=120)
        assert ok.returncode == 0 and "builtin.module" in ok.stdout, (ok.stdout, ok.stderr)


def test_python_m_tileorch_runs_forked_as_a_fresh_interpreter_runs_it(tmp_path):
    """``python -m tileorch`` (the package's ``__main__``: the command-line tests of a source checkout) is forked
    from the server too, as the ``tileorch`` tool (``tileorch.cli.main:main``): the client's status and streams are a fresh interpreter's, for a command that fails
    (located error, exit 1) and one that succeeds."""
    command = tool_forkserver.forked([sys.executable, "-m", "tileorch"])
    assert os.path.basename(command[0]) == "tileorch", command
    bad = tmp_path / "kernel.py"
    bad.write_text("import cuda.tile as ct\n")
    good = tmp_path / "m.mlir"
    good.write_text("builtin.module {\n}\n")
    for args in (["compile", str(bad)], ["compile", str(good), "--emit", "mlir", "--no-cache"]):
        fresh = subprocess.run([sys.executable, "-m", "tileorch", *args], capture_output=True, text=True, timeout=120)
        forked = subprocess.run([*command, *args], capture_output=True, text=True, timeout=120)
        assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.returncode == 0 and "builtin.module" in fresh.stdout, fresh.stderr


def test_a_call_s_switches_do_not_reach_the_next_call(tmp_path):
    """The server runs each call in a child of its own: ``tileorch-opt --disable-verify`` (op verification off, in
    tileorch-opt's own run: tests/unit/test_opt_in_process.py) prints an op that fails its verifier, and the next
    call through the same server still rejects it, located."""
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() -> i32 {\n  func.return\n}\n")
    opt = tool_forkserver.tool("tileorch-opt")
    off = subprocess.run([*opt, str(bad), "--disable-verify"], capture_output=True, text=True, timeout=120)
    assert off.returncode == 0 and "func.return" in off.stdout, (off.stdout, off.stderr)
    on = subprocess.run([*opt, str(bad)], capture_output=True, text=True, timeout=120)
    assert on.returncode == 1 and f"{bad}:2:3: error:" in on.stderr, on.stderr
