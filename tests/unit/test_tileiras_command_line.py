"""``tileorch compile`` on the command line a cuTile user brings from tileiras (what cuTile itself
runs: ``tileiras F.bytecode -o F.cubin --gpu-name sm_90 -O3 --lineinfo``) and on the outputs and
inputs of a first hour: what is accepted (``--gpu-name``, ``-O3``, ``--remarks=all``, ``-o F.cubin``
writing the cubin, bytecode on standard input), what is accepted with a warning (``-g``,
``--lineinfo``: no debug or line information is generated) and what is refused, each before
anything is compiled (other targets, other ``-O`` levels, a cubin that no ptxas makes, an output in
a directory that does not exist or that is a directory, an empty or truncated ``.tileirbc``).
docs/troubleshooting.md's session-21 table lists the same cases.  Every case runs the real command
(a fork of tests/tool_forkserver.py's server)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_cli_errors import TILEORCH, run, write

from tileorch.backend.ptxas import ptxas_available

BYTECODE = Path(__file__).resolve().parent / "cutile_bytecode" / "add.tileirbc"
"""A cuTile export (vector add: the SIMT path)."""

needs_ptxas = pytest.mark.skipif(not ptxas_available(), reason="needs ptxas")


@pytest.fixture
def program(tmp_path) -> Path:
    return write(tmp_path, "k.tileirbc", BYTECODE.read_bytes())


@needs_ptxas
def test_cutiles_tileiras_command_line_writes_a_cubin(tmp_path, program):
    """The arguments cuTile gives tileiras compile to a cubin (an ELF file, not PTX text); -O3 is the
    one level, --lineinfo a warning that nothing of it is generated."""
    code, out = run([*TILEORCH, "compile", "k.tileirbc", "-o", "k.cubin", "--gpu-name", "sm_90", "-O3", "--lineinfo"],
                    tmp_path)
    assert code == 0, out
    assert (tmp_path / "k.cubin").read_bytes()[:4] == b"\x7fELF"
    assert "k.tileirbc: wrote k.cubin (" in out and "bytes of cubin from ptxas -arch=sm_90a" in out, out
    assert "warning: --lineinfo is not applied: tileorch generates no line information" in out, out


@needs_ptxas
def test_o_cubin_of_an_mlir_module_is_the_cubin(tmp_path):
    """``-o F.cubin`` of any input is ptxas's cubin (was the PTX text under a .cubin name)."""
    (tmp_path / "ws.mlir").write_text((Path(__file__).resolve().parents[2] / "examples" / "ws_pipeline.mlir").read_text())
    code, out = run([*TILEORCH, "compile", "ws.mlir", "-o", "ws.cubin"], tmp_path)
    assert code == 0, out
    assert (tmp_path / "ws.cubin").read_bytes()[:4] == b"\x7fELF"
    assert "ws.mlir: wrote ws.cubin (" in out and "lines of ptx" not in out, out


@pytest.mark.parametrize("argv,message", [
    (["--gpu-name", "sm_80"], "argument --gpu-name: unsupported target 'sm_80'; tileorch generates code for sm_90a "
                              "(--gpu-name sm_90) and sm_100a (--gpu-name sm_100) only"),
    (["--gpu-name", "sm_120"], "argument --gpu-name: unsupported target 'sm_120'"),
    (["-O0"], "argument -O: -O0: tileorch compiles at one optimization level, tileiras's default -O3"),
    (["-O", "2"], "argument -O: -O2: tileorch compiles at one optimization level"),
    (["--arch", "sm_90"], "unsupported target 'sm_90'; tileorch generates code for sm_90a and sm_100a (for an sm_90 "
                          "GPU: --arch sm_90a, or tileiras's spelling --gpu-name sm_90)"),
    (["--arch", "sm_100a", "--gpu-name", "sm_90"], "--arch sm_100a and --gpu-name name different targets (sm_90a)"),
    (["--emit=mlir", "-o", "k.cubin"], "-o k.cubin names a cubin, which ptxas makes, but this command writes "
                                       "--emit=mlir's text: name the output .mlir"),
    (["--no-ptxas", "-o", "k.cubin"], "writes PTX without ptxas (--no-ptxas): name the output .ptx"),
    (["-o", "a.cubin", "--cubin", "b.cubin"], "-o a.cubin and --cubin b.cubin both ask for the cubin; give one"),
    (["--remarks=memory"], "argument --remarks: ignored explicit argument 'memory'"),
])
def test_tileiras_spellings_tileorch_does_not_take_are_refused_up_front(tmp_path, program, argv, message):
    code, out = run([*TILEORCH, "compile", "k.tileirbc", *argv], tmp_path)
    assert code == 2, out
    assert message in out, out
    assert not list(tmp_path.glob("*.cubin")), "nothing is written"


@pytest.mark.parametrize("argv", [["-g"], ["--lineinfo"]])
def test_debug_flags_are_a_warning_not_silence(tmp_path, program, argv):
    """-g and --lineinfo are taken (cuTile passes --lineinfo) with a warning; --emit=mlir: no ptxas."""
    code, out = run([*TILEORCH, "compile", "k.tileirbc", "--emit=mlir", "-o", "k.mlir", *argv], tmp_path)
    assert code == 0, out
    assert f"tileorch compile: warning: {argv[0]} is not applied: tileorch generates no" in out, out
    assert "llvm.func" in (tmp_path / "k.mlir").read_text()


def test_remarks_all_is_remarks(tmp_path, program):
    code, out = run([*TILEORCH, "compile", "k.tileirbc", "--emit=mlir", "-o", "k.mlir", "--remarks=all"], tmp_path)
    assert code == 0, out
    assert "k.tileirbc: remark: @" in out and "SIMT layout" in out, out  # named by the file, as for .mlir input


@pytest.mark.parametrize("output,message", [
    ("nodir/sub/k.ptx", "cannot write nodir/sub/k.ptx: No such file or directory (the directory nodir/sub does not "
                        "exist; tileorch creates no directories)"),
    (".", "cannot write .: it is a directory (give a file name)"),
])
def test_an_output_that_cannot_be_written_is_refused_before_compiling(tmp_path, program, output, message):
    code, out = run([*TILEORCH, "compile", "k.tileirbc", "-o", output, "--timings"], tmp_path)
    assert code == 1, out
    assert f"tileorch compile: error: {message}" in out, out
    assert "tile-program" not in out, "refused before the program was read and lowered"


def test_a_cubin_in_a_missing_directory_is_refused_before_compiling(tmp_path, program):
    code, out = run([*TILEORCH, "compile", "k.tileirbc", "--cubin", "no/k.cubin", "-o", "k.ptx"], tmp_path)
    assert code == 1 and "cannot write no/k.cubin: No such file or directory" in out, out
    assert not (tmp_path / "k.ptx").exists()


@pytest.mark.parametrize("name,data,message", [
    ("e.tileirbc", b"", "e.tileirbc:1:1: error: e.tileirbc is empty: CUDA Tile IR bytecode starts with the 8-byte "
                        "magic number \\x7fTileIR\\x00"),
    ("e.bytecode", b"", "e.bytecode:1:1: error: e.bytecode is empty"),
    ("t.tileirbc", b"\x7fTile", "t.tileirbc:1:1: error: t.tileirbc is truncated CUDA Tile IR bytecode: 5 byte(s), "
                                "not even the 8-byte magic number"),
    ("t.mlir", b"\x7fTileIR", "t.mlir:1:1: error: t.mlir is truncated CUDA Tile IR bytecode: 7 byte(s)"),
    # random bytes named as bytecode: was "invalid UTF-8 byte 0xc7 (the input must be UTF-8 text)" at 1:1
    ("r.tileirbc", bytes([0xC7, 0x9A, 0x3E, 0xCD]) * 40,
     "r.tileirbc:1:1: error: r.tileirbc is not CUDA Tile IR bytecode: it starts with c7 9a 3e cd c7 9a 3e cd"),
    ("r.bytecode", b"\x7fELF\xff\xfe" + bytes(50), "r.bytecode:1:1: error: r.bytecode is not CUDA Tile IR bytecode"),
])
def test_empty_or_truncated_bytecode_is_an_error(tmp_path, name, data, message):
    """Was: an empty .tileirbc compiled as an empty MLIR module (a warning, exit 0); a truncated
    magic number read 'unexpected character U+007F'."""
    write(tmp_path, name, data)
    code, out = run([*TILEORCH, "compile", name], tmp_path)
    assert code == 1, out
    assert message in out, out


def test_an_empty_mlir_file_stays_an_empty_module(tmp_path):
    """MLIR tools read an empty .mlir file as an empty module: a warning, not an error."""
    write(tmp_path, "e.mlir", b"")
    code, out = run([*TILEORCH, "compile", "e.mlir", "--emit=mlir"], tmp_path)
    assert code == 0 and "warning: nothing to compile" in out, out


def test_bytecode_on_standard_input_compiles(tmp_path):
    """``-`` reads bytecode too (was: '<stdin>:1:1: error: this is CUDA Tile IR bytecode ...: `tileorch
    compile` compiles it', from tileorch compile itself)."""
    from tool_forkserver import forked

    proc = subprocess.run(forked([*TILEORCH, "compile", "-", "--emit=mlir", "-o", "k.mlir"]), cwd=tmp_path,
                          input=BYTECODE.read_bytes(), capture_output=True, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "<stdin>: wrote k.mlir (" in err and "cuTile program, SIMT kernel" in err, err
    assert "llvm.func" in (tmp_path / "k.mlir").read_text()


def test_tileorch_compile_api_refuses_an_empty_bytecode_file(tmp_path):
    import tileorch
    from tileorch.diagnostics import CompileError

    path = write(tmp_path, "e.tileirbc", b"")
    with pytest.raises(CompileError, match="e.tileirbc is empty: CUDA Tile IR bytecode starts with"):
        tileorch.compile(str(path))


def test_an_unreadable_file_says_why(tmp_path, monkeypatch, capsys):
    """A file the user may not read (stood in for by a PermissionError: the tests may run as root,
    who reads everything): 'cannot read', exit 1, no traceback."""
    import pathlib

    from tileorch import diagnostics
    from tileorch.cli.main import main

    path = write(tmp_path, "k.tileirbc", BYTECODE.read_bytes())

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(pathlib.Path, "read_bytes", denied)
    monkeypatch.setattr(diagnostics, "open", denied, raising=False)
    with pytest.raises(SystemExit) as info:
        main(["compile", str(path), "--emit=mlir"])
    assert info.value.code == 1
    assert f"tileorch compile: error: cannot read {path}: Permission denied" in capsys.readouterr().err


@pytest.mark.parametrize("data, message", [
    (b"", "<bytes>:1:1: error: <bytes> is empty: CUDA Tile IR bytecode starts with the 8-byte magic number"),
    (b"\x7fTile", "<bytes>:1:1: error: <bytes> is truncated CUDA Tile IR bytecode: 5 byte(s)"),
])
def test_tileorch_compile_api_refuses_empty_or_truncated_bytecode_bytes(data, message):
    """``tileorch.compile(b"")`` was accepted as an empty MLIR module (exit 0, a PTX file without an
    entry point and a warning); bytes stand for bytecode (found by tools/fuzz_inputs.py)."""
    import tileorch
    from tileorch.diagnostics import CompileError

    with pytest.raises(CompileError) as info:
        tileorch.compile(data, cache=False)
    assert message in str(info.value)
