"""``tileorch`` starts without xDSL: ``--help`` and ``run FILE.ptx`` need only numpy (and, to
launch, cuda-python), as on a GPU machine where the compiler is not installed.  Each case runs
the real command in a subprocess whose import system refuses ``xdsl`` (and ``cuda``, so that the
outcome is the no-GPU path on any machine)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# a meta-path finder that makes `import xdsl...` / `import cuda...` fail as if not installed, then
# the CLI entry point with the given argv; finally it reports whether any xdsl module got loaded
HIDE_AND_RUN = """
import sys
HIDDEN = ("xdsl", "cuda")
class Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
import atexit
atexit.register(lambda: print("xdsl modules loaded:", sorted(m for m in sys.modules if m.startswith("xdsl"))))
from tileorch.cli.main import main
main(sys.argv[1:])
"""

PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry fill(.param .u64 out) { ret; }
"""


def tileorch_without_xdsl(tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-c", HIDE_AND_RUN, *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and "ImportError" not in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def test_help_lists_every_subcommand(tmp_path):
    code, out, _ = tileorch_without_xdsl(tmp_path, "--help")
    assert code == 0
    from tileorch.cli.main import SUBCOMMANDS

    assert "{" + ",".join(SUBCOMMANDS) + "}" in out and "doctor" in SUBCOMMANDS
    assert "launch one kernel on the GPU" in out


def test_run_ptx_parses_its_arguments_and_reports_the_missing_gpu(tmp_path):
    (tmp_path / "build.ptx").write_text(PTX)
    code, out, err = tileorch_without_xdsl(tmp_path, "run", "build.ptx", "--kernel", "fill", "--grid", "2",
                                           "--block", "32", "--args", "buf:f32:4:iota")
    assert code == 1
    assert "tileorch run: error: no GPU: cuda-python is not usable (ModuleNotFoundError" in err
    assert "nothing was run" in err
    assert "xdsl modules loaded: []" in out
    code, out, err = tileorch_without_xdsl(tmp_path, "run", "build.ptx", "--kernel", "fill", "--grid", "2",
                                           "--block", "32", "--args", "buf:f32:4:iota", "--simulate")
    assert code == 1
    assert "tileorch run: no GPU: cuda-python is not usable (ModuleNotFoundError" in err
    assert "tileorch run: only .mlir files can be simulated; nothing was run" in err
    assert "xdsl modules loaded: []" in out


def test_version_without_xdsl(tmp_path):
    code, out, _ = tileorch_without_xdsl(tmp_path, "--version")
    from tileorch import __version__

    assert code == 0 and out.splitlines()[0] == f"tileorch {__version__}"


def test_run_argument_errors_are_reported_without_xdsl(tmp_path):
    (tmp_path / "build.ptx").write_text(PTX)
    code, _, err = tileorch_without_xdsl(tmp_path, "run", "build.ptx", "--kernel", "fill", "--block", "32",
                                         "--args", "quux:1")
    assert code == 2
    assert "tileorch run: error: unknown argument kind 'quux'" in err
    code, _, err = tileorch_without_xdsl(tmp_path, "run", "build.ptx", "--kernel", "fill", "--block", "0")
    assert code == 2
    assert "argument --block: expected 1 to 3 positive extents, got '0'" in err


def test_commands_that_need_xdsl_name_the_missing_package(tmp_path):
    (tmp_path / "k.mlir").write_text("module {\n}\n")
    for command in ("compile", "check", "simulate"):
        code, _, err = tileorch_without_xdsl(tmp_path, command, "k.mlir")
        assert code == 1, command
        assert err.startswith(f"tileorch {command}: error: this command needs the Python package 'xdsl'"), err


def test_compile_emit_choices_are_the_backend_stages():
    from tileorch.backend.compile import STAGES
    from tileorch.cli.compile import EMIT_STAGES

    assert EMIT_STAGES == STAGES
