"""Bad input to the command-line tools gives ``file:line:col: error: ...`` (or ``TOOL: error: ...``
when there is no position) and a non-zero exit: never a Python traceback, never "internal error".
Each case runs the real command in a subprocess (a fork of a server that imported tileorch once:
tests/tool_forkserver.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tool_forkserver import forked

from tileorch.backend.ptxas import ptxas_available

ROOT = Path(__file__).resolve().parents[2]
OPT = [sys.executable, "-m", "tileorch.tools.opt"]
TILEORCH = [sys.executable, "-m", "tileorch.cli.main"]
# a module every stage accepts quickly (nothing to lower)
EMPTY = "module {\n}\n"
# "// \xff": the invalid byte is the 4th byte of line 2 (after two spaces and "//" and a space: col 6)
NOT_UTF8 = b"module {\n  // \xff\n}\n"


def run(cmd: list[str], cwd: Path) -> tuple[int, str]:
    proc = subprocess.run(forked(cmd), cwd=cwd, capture_output=True, text=True, timeout=120)
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out and "internal error" not in out, out
    return proc.returncode, out


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


# --- tileorch-opt ----------------------------------------------------------------------------

def test_opt_missing_input(tmp_path):
    code, out = run([*OPT, "missing.mlir"], tmp_path)
    assert code == 1
    assert "tileorch-opt: error: cannot read missing.mlir: No such file or directory" in out


def test_opt_reads_dot_bc_as_bytecode(tmp_path):
    """cuda-tile-translate names bytecode ``.bc``: read (and rejected) as bytecode, not refused
    for its extension."""
    write(tmp_path, "k.bc", b"\x7fTileIR\x00" + bytes([13, 3, 0, 0, 0x7F]))
    code, out = run([*OPT, "k.bc"], tmp_path)
    assert code == 1 and "k.bc: error: invalid CUDA Tile IR bytecode at offset 12: unknown section id 127" in out, out


@pytest.mark.parametrize("args", [["-"], []], ids=["dash", "none"])
def test_opt_reads_standard_input(tmp_path, args):
    ok = subprocess.run(forked([*OPT, *args]), cwd=tmp_path, input="builtin.module {\n}\n", capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0 and "builtin.module" in ok.stdout, ok.stderr
    bad = subprocess.run(forked([*OPT, *args]), cwd=tmp_path, input='builtin.module {\n  "foo.bar"() : () -> ()\n}\n',
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "stdin:2:12: error: Operation foo.bar is not registered" in bad.stderr, bad.stderr


def test_opt_directory_input(tmp_path):
    (tmp_path / "d.mlir").mkdir()
    code, out = run([*OPT, "d.mlir"], tmp_path)
    assert code == 1
    assert "tileorch-opt: error: cannot read d.mlir: Is a directory" in out


def test_opt_unwritable_output(tmp_path):
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*OPT, "x.mlir", "-o", "/nonexistent/dir/x.mlir"], tmp_path)
    assert code == 1
    assert "tileorch-opt: error: cannot write /nonexistent/dir/x.mlir: No such file or directory" in out


def test_opt_non_utf8_input_is_located(tmp_path):
    write(tmp_path, "bad.mlir", NOT_UTF8)
    code, out = run([*OPT, "bad.mlir"], tmp_path)
    assert code == 1
    assert "bad.mlir:2:6: error: invalid UTF-8 byte 0xff" in out


def test_opt_non_utf8_in_a_later_split_chunk(tmp_path):
    # chunk 2 starts after line 3 ("// -----"); its bad byte is on line 5 of the file, column 1
    write(tmp_path, "bad.mlir", b"module {\n}\n// -----\nmodule {\n\xfe}\n")
    code, out = run([*OPT, "bad.mlir", "--split-input-file"], tmp_path)
    assert code == 1
    assert "bad.mlir:5:1: error: invalid UTF-8 byte 0xfe" in out


@pytest.mark.parametrize("type_text,col,message", [
    # columns count from 1 at the start of the line `  %0 = "test.op"() : () -> TYPE`;
    # the prefix is 27 characters, so TYPE starts at column 28
    ("!cutlass.pipeline<stages = 0, producers = 1, consumers = 1>", 28 + 27, "pipeline stage count must be in [1, 32], found 0"),
    ("!cutlass.pipeline<stages = 2, producers = 1, consumers = 17>", 28 + 57, "pipeline consumer count must be in [1, 16], found 17"),
    ("!cutlass.seq_bar<depth = 2, length = 0>", 28 + 37, "seq_bar length must be in [1, 16], found 0"),
    ("!cutlass.pipeline_state<0>", 28 + 24, "pipeline_state stage count must be in [1, 32], found 0"),
])
def test_type_parameter_error_points_at_the_parameter(tmp_path, type_text, col, message):
    line = f'  %0 = "test.op"() : () -> {type_text}'
    assert line.index(type_text) == 27
    write(tmp_path, "t.mlir", f"module {{\n{line}\n}}\n")
    code, out = run([*OPT, "t.mlir"], tmp_path)
    assert code == 1
    assert f"t.mlir:2:{col}: error: {message}" in out


# --- tileorch compile / check / run ------------------------------------------------------------

@pytest.mark.parametrize("command", [["compile", "--emit=mlir"], ["check"]])
def test_non_utf8_input_is_located(tmp_path, command):
    write(tmp_path, "bad.mlir", NOT_UTF8)
    code, out = run([*TILEORCH, *command, "bad.mlir"], tmp_path)
    assert code == 1
    assert "bad.mlir:2:6: error: invalid UTF-8 byte 0xff" in out


PTX = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 8.6\n.target sm_90a\n"
CUBIN = b"\x7fELF\x02\x01\x01" + bytes(57)


@pytest.mark.parametrize("command", [[*TILEORCH, "compile", "--emit=mlir"], [*TILEORCH, "check"],
                                     [*TILEORCH, "simulate"], [*OPT, "-f", "mlir"]],
                         ids=["compile", "check", "simulate", "opt"])
@pytest.mark.parametrize("name,data,message", [
    ("k.ptx", PTX, "this is PTX (it starts with a .version or .target directive), not MLIR text"),
    ("k.cubin", CUBIN, "this is an ELF file (a cubin or another compiled binary), not MLIR text"),
], ids=["ptx", "cubin"])
def test_ptx_and_cubin_say_what_they_are(tmp_path, command, name, data, message):
    # was "k.ptx:1:1: error: Expected three consecutive '.' for an ellipsis" / "Unexpected character: \x7f"
    write(tmp_path, name, data)
    code, out = run([*command, name], tmp_path)
    assert code == 1
    assert f"{name}:1:1: error: {message}" in out


@pytest.mark.parametrize("data,message", [
    (b"\xef\xbb\xbfmodule {\n}\n", "1:1: error: unexpected byte-order mark (U+FEFF): MLIR text is UTF-8 without one"),
    (b"module {\x00\n}\n", "1:9: error: unexpected character U+0000 (a control character)"),
], ids=["bom", "nul"])
def test_invisible_characters_are_named(tmp_path, data, message):
    # was "Unexpected character: " followed by the character itself (invisible on a terminal)
    write(tmp_path, "k.mlir", data)
    code, out = run([*TILEORCH, "compile", "--emit=mlir", "k.mlir"], tmp_path)
    assert code == 1
    assert f"k.mlir:{message}" in out


def test_compile_missing_input(tmp_path):
    code, out = run([*TILEORCH, "compile", "missing.mlir"], tmp_path)
    assert code == 1
    assert "tileorch compile: error: cannot read missing.mlir: No such file or directory" in out


def test_compile_unwritable_output(tmp_path):
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "compile", "x.mlir", "--emit=mlir", "-o", "/nonexistent/x.ptx"], tmp_path)
    assert code == 1
    assert "tileorch compile: error: cannot write /nonexistent/x.ptx: No such file or directory" in out


@pytest.mark.parametrize("arch", ["sm_12", "sm_80", "sm_90"])
def test_compile_rejects_unsupported_arch_up_front(tmp_path, arch):
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "compile", "x.mlir", "--arch", arch], tmp_path)
    assert code == 2
    assert f"tileorch compile: error: argument --arch: unsupported target '{arch}'" in out
    assert "sm_90a and sm_100a" in out and "Cannot select" not in out


def test_compile_rejects_unsupported_ptx_version(tmp_path):
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "compile", "x.mlir", "--ptx-version", "12"], tmp_path)
    assert code == 2 and "argument --ptx-version: unsupported PTX version '12'" in out


@pytest.mark.parametrize("spec,message", [
    ("canonicalize{", "error: malformed pass pipeline 'canonicalize{' at column 14: Expected argument name here"),
    ("cse,,", "error: malformed pass pipeline 'cse,,' at column 5"),
    ("bogus-pass", "error: Unrecognized passes: ['bogus-pass']"),
])
def test_compile_rejects_a_bad_extra_pipeline(tmp_path, spec, message):
    """A -p spec that does not parse was xDSL's ArgSpecParseError, a BaseException that escaped
    every handler (a traceback); now it is an error as an unknown pass is."""
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "compile", "x.mlir", "--emit=mlir", "-p", spec, "-o", "x.out"], tmp_path)
    assert code == 1 and message in out, out


@pytest.mark.parametrize("argv,message", [
    (["--iterations", "99999999999"], "tileorch check: error: --iterations must be at most 256, got 99999999999"),
    (["--jobs", "0"], "tileorch check: error: --jobs must be at least 1, got 0"),
])
def test_check_rejects_bad_counts(tmp_path, argv, message):
    """--iterations 10**11 ran out of memory (an internal error); --jobs 0 was taken silently."""
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "check", "x.mlir", *argv], tmp_path)
    assert code == 2 and message in out, out


@pytest.mark.parametrize("argv,message", [
    (["--iterations", "100000"], "tileorch simulate: error: --iterations must be at most 4096, got 100000"),
    (["--runs", "0"], "tileorch simulate: error: --runs must be at least 1, got 0"),
])
def test_simulate_rejects_bad_counts(tmp_path, argv, message):
    """--iterations 100000 was killed for memory at 24 GB; --runs 0 ran once silently."""
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "simulate", "x.mlir", *argv], tmp_path)
    assert code == 2 and message in out, out


def test_a_reader_that_stops_early_is_not_an_internal_error(tmp_path):
    """`tileorch simulate k.mlir | head -1`: the closed pipe was 'internal error (BrokenPipeError)'."""
    src = ROOT / "examples" / "ws_stream_copy.mlir"
    proc = subprocess.Popen(forked([*TILEORCH, "simulate", str(src)]), cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # before the command writes anything
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "internal error" not in err and "Traceback" not in err, err


def test_check_missing_input(tmp_path):
    code, out = run([*TILEORCH, "check", "missing.mlir"], tmp_path)
    assert code == 1 and "missing.mlir" in out and "No such file or directory" in out


@pytest.mark.parametrize("argv,message", [
    (["--smem", "-1"], "argument --smem: expected a non-negative number of bytes, got '-1'"),
    (["--timeout", "0"], "argument --timeout: expected a positive, finite number of seconds, got '0'"),
    (["--args", "buf:f32:-4"], "bad element count in 'buf:f32:-4'"),
    (["--args", "buf:f32:0"], "bad element count in 'buf:f32:0'"),
])
def test_run_rejects_bad_sizes(tmp_path, argv, message):
    write(tmp_path, "x.mlir", EMPTY)
    code, out = run([*TILEORCH, "run", "x.mlir", "--kernel", "k", "--block", "1", *argv], tmp_path)
    assert code == 2 and message in out


@pytest.mark.parametrize("argv,message", [
    (["--kernel", "nope", "--args", "i32:1"], "tileorch run: error: k.mlir has no kernel named 'nope' (kernels: k)"),
    (["--kernel", "k", "--args", "buf:f32:4"], "k.mlir:1:1: error: kernel 'k' takes 2 argument(s) (!llvm.ptr<1>, i32), "
                                               "--args gives 1"),
    (["--kernel", "k", "--args", "i32:1", "i32:1"], "k.mlir:1:1: error: argument 0 of kernel 'k' is a pointer"),
    (["--kernel", "k", "--args", "buf:f32:4", "buf:f32:4"], "k.mlir:1:1: error: argument 1 of kernel 'k' is a i32, "
                                                            "not a pointer"),
    (["--kernel", "k", "--args", "buf:f32:4", "i64:1"], "argument 1 of kernel 'k' is a i32, --args gives a int64"),
    (["--kernel", "k", "--args", "buf:f32:4", "f32:1"], "argument 1 of kernel 'k' is a i32, --args gives a float32"),
])
def test_run_checks_the_kernel_and_its_arguments_before_the_gpu(tmp_path, argv, message):
    """A missing kernel or arguments that do not fit its parameters were reported only after
    the GPU was found (without one: 'no GPU', the mistake unseen)."""
    write(tmp_path, "k.mlir", "func.func @k(%p: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel} {\n  func.return\n}\n")
    code, out = run([*TILEORCH, "run", "k.mlir", "--block", "32", *argv], tmp_path)
    assert code == 1 and message in out and "nothing was run" in out and "no GPU" not in out, out


@pytest.mark.parametrize("argv,message", [
    (["--block", "2048"], "block (2048, 1, 1) is not one CUDA launches (at most 1024 threads;"),
    (["--block", "32,32,2"], "block (32, 32, 2) is not one CUDA launches"),
    (["--block", "32", "--grid", "1,65536"], "grid (1, 65536, 1) is not one CUDA launches"),
    (["--block", "32", "--grid", "4", "--cluster", "32"], "cluster (32, 1, 1) is not one CUDA launches (at most 16 CTAs"),
    (["--block", "32", "--grid", "3", "--cluster", "2"], "grid (3, 1, 1) is not a multiple of cluster (2, 1, 1)"),
    (["--block", "32", "--smem", "300000"], "dynamic shared memory of 300000 bytes is more than a CTA has"),
], ids=["block-threads", "block-product", "grid-y", "cluster-size", "cluster-divides", "smem"])
def test_run_checks_the_launch_configuration_before_the_gpu(tmp_path, argv, message):
    """Were the driver's bare CUDA_ERROR_INVALID_VALUE on a GPU, and 'no GPU' without one."""
    write(tmp_path, "k.mlir", "func.func @k(%n: i32) attributes {nvvm.kernel} {\n  func.return\n}\n")
    code, out = run([*TILEORCH, "run", "k.mlir", "--kernel", "k", *argv, "--args", "i32:1"], tmp_path)
    assert code == 2 and f"tileorch run: error: {message}" in out and "no GPU" not in out, out


def test_run_timeout_must_be_finite(tmp_path):
    # inf turned the watchdog off: a hung kernel was waited for for ever
    write(tmp_path, "k.mlir", "func.func @k() attributes {nvvm.kernel} {\n  func.return\n}\n")
    code, out = run([*TILEORCH, "run", "k.mlir", "--kernel", "k", "--block", "32", "--timeout", "inf"], tmp_path)
    assert code == 2 and "argument --timeout: expected a positive, finite number of seconds, got 'inf'" in out


# --- tileorch schedule -------------------------------------------------------------------------

SMALL = ["--problem", "256", "256", "256"]


def test_schedule_unwritable_plot(tmp_path):
    code, out = run([*TILEORCH, "schedule", *SMALL, "--plot", "/nonexistent/x.png"], tmp_path)
    assert code == 2
    assert "tileorch schedule: error: cannot write /nonexistent/x.png: No such file or directory" in out


def test_schedule_huge_json_is_refused_with_advice(tmp_path):
    argv = ["--problem", "40000", "40000", "40000", "--tile", "1x1x1"]
    code, out = run([*TILEORCH, "schedule", *argv, "--json"], tmp_path)
    assert code == 2
    assert "tileorch schedule: error:" in out and "work items" in out
    assert "larger --tile" in out and "drop --json" in out
    # the summary still works: parameters and workspace need no per-item work
    code, out = run([*TILEORCH, "schedule", *argv], tmp_path)
    assert code == 0
    # 40000 tiles along each of M and N with 1x1x1 tiles; K tiles per output tile = K / 1
    assert "tiles 40000x40000x1 (padded), 40000 K tiles per output tile" in out
    assert "per-CTA work not computed" in out and "workspace" in out
    # 10**16 tiles wrap CUTLASS's 32-bit tile count: refused, not summarised
    code, out = run([*TILEORCH, "schedule", "--problem", "99999999", "99999999", "99999999", "--tile", "1x1x1"],
                    tmp_path)
    assert code == 2 and "32-bit integers" in out and "Traceback" not in out


@pytest.mark.parametrize("argv,message", [
    (["--accumulator-bits", "7"], "argument --accumulator-bits: expected the bit width of the accumulator "
                                  "element, one of 16, 32, 64, got '7'"),
    (["--accumulator-bits", "0"], "argument --accumulator-bits"),
    (["--sms", "0"], "argument --sms: expected an integer >= 1, got '0'"),
    (["--splits", "-2"], "argument --splits: expected an integer >= 1, got '-2'"),
    (["--mma-warp-groups", "0"], "argument --mma-warp-groups: expected an integer >= 1, got '0'"),
    (["--max-swizzle", "-1"], "argument --max-swizzle: expected an integer >= 0, got '-1'"),
    (["--tile", "0x128x64"], "--tile must be 3 positive integers"),
])
def test_schedule_rejects_bad_numbers(tmp_path, argv, message):
    code, out = run([*TILEORCH, "schedule", *SMALL, *argv], tmp_path)
    assert code == 2 and message in out


@pytest.mark.parametrize("bits,reduction", [(16, 2 * 64 * 64 * 64), (64, 8 * 64 * 64 * 64)])
def test_schedule_accumulator_bits_size_the_reduction_workspace(tmp_path, bits, reduction):
    # split-K over 512x512 in 64x64 tiles: each of the 8*8 = 64 output tiles has a partial-accumulator
    # slot of 64*64 elements of bits/8 bytes (CUTLASS's reduction workspace; already 128-aligned)
    argv = ["--problem", "512", "512", "1024", "--tile", "64x64x64", "--splits", "2", "--decomposition",
            "split_k", "--sms", "60", "--accumulator-bits", str(bits)]
    code, out = run([*TILEORCH, "schedule", *argv], tmp_path)
    assert code == 0 and f"(reduction {reduction}," in out


# --- tileorch gemm, --version, --help ------------------------------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["0", "128", "128"], "argument m: '0' must be a positive integer"),
    (["128", "-1", "128"], "argument n: '-1' must be a positive integer"),
    (["128", "128", "0"], "argument k: '0' must be a positive integer"),
    (["128", "128", "x"], "argument k: 'x' is not an integer"),
    (["128", "128", "128", "--sms", "0"], "argument --sms: '0' must be a positive integer"),
    (["128", "128", "128", "--cluster-m", "0"], "argument --cluster-m: '0' must be a positive integer"),
])
def test_gemm_rejects_non_positive_sizes(tmp_path, argv, message):
    """`tileorch gemm 0 128 128` was an internal error (ZeroDivisionError, exit 70)."""
    code, out = run([*TILEORCH, "gemm", *argv], tmp_path)
    assert code == 2 and f"tileorch gemm: error: {message}" in out


def test_gemm_emit_mlir_writes_only_the_kernel_ir_to_stdout(tmp_path):
    proc = subprocess.run(forked([*TILEORCH, "gemm", "256", "512", "128", "--emit", "mlir"]), cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("256x512x128: gemm_") and "grid (" in proc.stderr  # the summary
    assert "256x512x128" not in proc.stdout and "grid (" not in proc.stdout
    (tmp_path / "gemm.mlir").write_text(proc.stdout)
    opt = subprocess.run(forked([*OPT, "gemm.mlir"]), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert opt.returncode == 0, opt.stderr  # the emitted IR parses and verifies
    assert "cutlass.pipeline.init" in opt.stdout


@pytest.mark.skipif(not ptxas_available(), reason="needs ptxas")
def test_gemm_compile_one_shot(tmp_path):
    """``tileorch gemm --compile`` (the program: collector off, LLVM loaded by a code generation
    child forked at its start) compiles to a cubin; a configuration error with ``--compile``
    exits 1 at once (the waiting child ends with the process)."""
    env = {**os.environ, "TILEORCH_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "tileorch", "gemm", "256", "512", "128", "--compile"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "B cubin ->" in proc.stdout and "ptxas" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "tileorch", "gemm", "256", "512", "128", "--compile", "--stages", "1"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and "tileorch gemm: error:" in proc.stderr and "stages" in proc.stderr


def test_version(tmp_path):
    from tileorch import __version__

    code, out = run([*TILEORCH, "--version"], tmp_path)
    assert code == 0 and out.strip() == f"tileorch {__version__}"


@pytest.mark.parametrize("command", ["run", "schedule", "compile", "check", "simulate", "doctor", "gemm"])
def test_every_subcommand_help_has_a_plain_text_description(tmp_path, command):
    from tileorch.cli.main import SUBCOMMANDS

    assert command in SUBCOMMANDS
    code, out = run([*TILEORCH, command, "--help"], tmp_path)
    assert code == 0
    # usage, a blank line, then the description: at least one line of words before the arguments
    after_usage = out.split("\n\n", 1)[1]
    description = after_usage.split("\n\n", 1)[0].strip()
    assert description and not description.startswith(("positional arguments:", "options:")), out
    assert len(description.split()) >= 5, description
    for markup in ("``", ":func:`", ":class:`", ":mod:`", ":meth:`", ":data:`"):
        assert markup not in out, f"raw reStructuredText {markup!r} in `tileorch {command} --help`"
    assert not re.search(r"^\s*\.\. [\w-]+::", out, re.M), out  # no RST directives


TIER_FRONT = ("convert-tileaa-to-tileas,tileas-assign-dot-layouts,tileas-assign-load-store-layouts,tileas-plan-cta,"
              "tileas-remove-layout-conversions,sink-negf-through-shapes,tileas-prepare-for-scheduling")


def test_smem_budget_past_the_target_is_refused(tmp_path):
    # was planned with: 8 stages of 49168 bytes, a kernel no launch could give its shared memory
    code, out = run([*OPT, str(ROOT / "examples" / "tile_gemm.mlir"), "-p",
                     f"{TIER_FRONT},tileas-materialize-schedule{{smem-budget=99999999999}}"], tmp_path)
    assert code == 1
    assert re.search(r"tile_gemm.mlir:\d+:\d+: error: tileas-materialize-schedule: smem-budget = 99999999999 bytes is "
                     r"more than the target's 232448 bytes of shared memory per CTA", out), out


@pytest.mark.parametrize("passes,message", [
    # was exit 0 without checking any trip count
    ("verify-pipelines{iterations=-1}", "verify-pipelines: iterations must be in [0, 256]"),
    # was a run that did not end
    ("verify-pipelines{iterations=100000000}", "verify-pipelines: iterations must be in [0, 256]"),
    # was a wait that trapped after 5 polls while its message said 4294967301
    ("cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm{debug-timeout=4294967301}",
     "convert-pipeline-to-nvvm: debug-timeout must be in [0, 4294967295] (0 = off; the polls are counted in 32 bits), "
     "got 4294967301"),
    # were reported as "49168 bytes per stage do not fit twice in the ... bytes of shared memory left"
    (f"{TIER_FRONT},tileas-materialize-schedule{{smem-budget=-1}}",
     "tileas-materialize-schedule: smem-budget must be >= 0 bytes (0: the target's maximum), got -1"),
    (f"{TIER_FRONT},tileas-materialize-schedule{{max-stages=0}}",
     "tileas-materialize-schedule: max-stages must be in [1, 32] (a pipeline's stage count), got 0"),
], ids=["iterations-negative", "iterations-huge", "debug-timeout-past-32-bits", "smem-budget-negative",
        "max-stages-0"])
def test_pass_options_out_of_range_are_refused(tmp_path, passes, message):
    example = "tile_gemm.mlir" if "tileas" in passes else "ws_pipeline.mlir"
    code, out = run([*OPT, str(ROOT / "examples" / example), "-p", passes], tmp_path)
    assert code == 2
    assert f"tileorch-opt: error: {message}" in out


def test_debug_timeout_at_the_32_bit_limit_compares_the_whole_count(tmp_path):
    code, out = run([*OPT, str(ROOT / "examples" / "ws_pipeline.mlir"), "-p",
                     "cutlass-stamp-arrive-counts,convert-pipeline-to-nvvm{debug-timeout=4294967295}"], tmp_path)
    assert code == 0
    assert "llvm.mlir.constant(-1 : i32) : i32" in out and "timeout after 4294967295 polls" in out


def test_check_that_reaches_its_state_bound_says_so(tmp_path):
    # a 2x1x7 cluster (fuzz finding): the search ran for about 25 minutes, then an internal error; since session 41
    # the copies' layout is checked first: the 7 CTAs along z put their stages on each other's bytes (located, at once)
    text = (ROOT / "examples" / "coop_pipeline.mlir").read_text().replace("array<i32: 2, 1, 1>", "array<i32: 2, 1, 7>")
    write(tmp_path, "k.mlir", text)
    code, out = run([*TILEORCH, "check", "k.mlir", "--max-states", "2000", "--jobs", "1"], tmp_path)
    assert code == 1
    assert re.search(r"k.mlir:\d+:\d+: error: stage-slots: .* two stages of one pipeline on the same bytes", out), out
    # the state bound itself, on the example as written (its 2-CTA cluster: 4 agents), at the kernel (session 22)
    write(tmp_path, "k2.mlir", (ROOT / "examples" / "coop_pipeline.mlir").read_text())
    code, out = run([*TILEORCH, "check", "k2.mlir", "--max-states", "50", "--jobs", "1"], tmp_path)
    assert code == 1
    assert re.search(r"k2.mlir:\d+:\d+: error: coop_mainloop: not checked: the search passed 50 states without "
                     r"finishing \(4 agents over a cluster of 2 CTAs\)", out), out


def test_check_max_states_must_be_positive(tmp_path):
    code, out = run([*TILEORCH, "check", str(ROOT / "examples" / "ws_pipeline.mlir"), "--max-states", "0"], tmp_path)
    assert code == 2 and "tileorch check: error: --max-states must be at least 1, got 0" in out
