"""``tileorch.cli.main.program``: the ``tileorch`` program (console script, ``python -m tileorch``)
ends without the interpreter's teardown, yet as ``sys.exit`` would end it: the same exit
status, every byte of output flushed (to a pipe too), ``atexit`` handlers run."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.unit.test_lazy_import import PROGRAM  # a small SIMT program


def _run(args, **kw):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=300, **kw)


PROBE = textwrap.dedent("""
    import atexit, builtins, os, runpy, sys
    class Probe:  # freed only by the interpreter's teardown
        def __del__(self):
            os.write(1, b"teardown\\n")
    builtins._tileorch_probe = Probe()
    atexit.register(lambda: print("atexit ran"))
    sys.argv = ["tileorch", *sys.argv[2:]]
""")


def _probe(entry: str, *argv: str) -> subprocess.CompletedProcess:
    """Run the ``tileorch`` command through ``entry`` (``program``: ``python -m tileorch``;
    ``main``: the function alone, with the usual teardown) with the probe installed."""
    run = ("runpy.run_module('tileorch', run_name='__main__')" if entry == "program" else
           "from tileorch.cli.main import main; main()")
    code = PROBE + run + "\n"
    return _run(["-c", code, entry, *argv])


def test_the_teardown_is_skipped_but_atexit_handlers_run():
    plain = _probe("main", "--version")
    assert plain.returncode == 0, plain.stderr
    assert "tileorch " in plain.stdout and "atexit ran" in plain.stdout
    assert "teardown" in plain.stdout  # the probe works: a normal exit frees it
    fast = _probe("program", "--version")
    assert fast.returncode == 0, fast.stderr
    assert "tileorch " in fast.stdout and "atexit ran" in fast.stdout
    assert "teardown" not in fast.stdout


def test_exit_statuses_are_those_of_sys_exit(tmp_path):
    bad_option = _probe("program", "compile", "--no-such-option")
    assert bad_option.returncode == 2 and "error: the following arguments are required" in bad_option.stderr
    src = tmp_path / "bad.mlir"
    src.write_text("cuda_tile.module @m {\n  entry @k() {\n    %x = no_such_op\n  }\n}\n")
    error = _run(["-m", "tileorch", "compile", str(src), "--no-cache"])
    assert error.returncode == 1 and f"{src}:" in error.stderr and "error:" in error.stderr, error.stderr
    assert "Traceback" not in error.stderr
    message = _run(["-c", "import sys, tileorch.cli.main as m\n"
                          "m.main = lambda: sys.exit('stopped: a message')\nm.program()\n"])
    assert message.returncode == 1 and message.stderr.strip() == "stopped: a message"


def test_all_output_reaches_a_pipe(tmp_path):
    """PTX written to standard output (a pipe: block-buffered) arrives whole, as the same PTX
    written to a file."""
    src = tmp_path / "expk.mlir"
    src.write_text(PROGRAM)
    out = tmp_path / "expk.ptx"
    to_file = _run(["-m", "tileorch", "compile", str(src), "-o", str(out), "--no-ptxas", "--no-cache"])
    assert to_file.returncode == 0, to_file.stderr
    to_pipe = _run(["-m", "tileorch", "compile", str(src), "--no-ptxas", "--no-cache"])
    assert to_pipe.returncode == 0, to_pipe.stderr
    assert len(to_pipe.stdout) > 1000 and to_pipe.stdout == out.read_text()
