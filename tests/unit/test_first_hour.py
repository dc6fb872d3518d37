"""A new user's first-hour mistakes at ``tileorch.cutile.launch`` and ``tileorch compile``, each
answered before any GPU call with an error naming the argument (docs/troubleshooting.md has the
whole table of cases and answers): a float scalar beyond float32, a grid beyond CUDA's limits,
an array on another GPU or in host memory, an array whose base address is not a multiple of its
element size, the Python file of a kernel given to ``tileorch compile``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from tileorch.launchers import cutile as rc
from tool_forkserver import forked

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def axpy(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        t = ct.load(x, index=(i,), shape=(tile,)) * alpha
        ct.store(y, index=(i,), tile=t + ct.load(y, index=(i,), shape=(tile,)))

    @ct.kernel
    def store_of_another_rank(x, out, tile: ct.Constant[int]):
        i = ct.bid(0)
        t = ct.load(x, index=(i, 0), shape=(tile, tile))
        ct.store(out, index=(i,), tile=t)  # STORE: a rank-2 tile into a rank-1 array

    @ct.kernel
    def huge_tile(x, out, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * 2)  # LOAD

    @ct.kernel
    def first(xs, out):
        ct.store(out, index=(0,), tile=ct.load(xs[0], index=(0,), shape=(16,)))


class Dev:
    """A device array as cupy exposes it (``__cuda_array_interface__``)."""

    def __init__(self, ptr, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": typestr,
                                         "strides": None, "version": 3}


class FakeTensor:
    """What the launcher reads of a torch tensor."""

    def __init__(self, ptr, device="cuda:0", dtype="torch.float32", shape=(1024,)):
        self.dtype, self.shape, self._ptr, self.device = dtype, shape, ptr, device
        self.is_cuda = "cuda" in str(device)

    def stride(self):
        return (1,)

    def data_ptr(self):
        return self._ptr


X, Y = Dev(0x100000, (1024,)), Dev(0x200000, (1024,))


@needs_cutile
@pytest.mark.parametrize("value", [1e300, -1e39, 3.5e38])
def test_a_float_scalar_beyond_float32_is_refused_naming_it(value):
    """A Python float is passed as float32 (as cuTile does): one beyond float32's range was a
    struct OverflowError from deep in the launch (after the compile) before."""
    with pytest.raises(ValueError, match=r"argument 2 \('alpha'\) = .* does not fit in float32"):
        rc.describe_arguments(axpy, (X, Y, value, 256))
    for fine in (3.4e38, float("inf"), float("nan"), -0.0, 1e-50):  # in range, or not finite on purpose
        assert rc.describe_arguments(axpy, (X, Y, fine, 256))[2].dtype == "float32"


@needs_cutile
@pytest.mark.parametrize("grid", [(2**31,), (1, 65536), (1, 1, 70000), (2**31 - 1, 65536, 1)])
def test_a_grid_beyond_cudas_limits_is_refused_before_the_gpu(grid):
    """CUDA launches at most 2^31-1 blocks along x and 65535 along y and z: a larger grid was sent
    to the driver (CUDA_ERROR_INVALID_VALUE, unlocated)."""
    with pytest.raises(ValueError, match=r"grid .* exceeds what CUDA launches \(x at most 2147483647, y and z at most "
                                         r"65535\)"):
        rc.launch(0, grid, axpy, (X, Y, 1.0, 256))
    assert rc.normalize_grid((2**31 - 1, 65535, 65535)) == (2**31 - 1, 65535, 65535)


@needs_cutile
@pytest.mark.parametrize("device", ["cuda:1", SimpleNamespace(index=3, type="cuda")])
def test_an_array_on_another_gpu_is_refused(monkeypatch, device):
    """Kernels run on device 0: a tensor on cuda:1 was passed to a kernel on device 0 (a fault, or
    peer reads) without a word."""
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(Tensor=FakeTensor, __name__="torch"))
    with pytest.raises(ValueError, match=r"argument 1 \('y'\) is on cuda:[13]; tileorch.cutile.launch runs kernels "
                                         r"on device 0"):
        rc.describe_arguments(axpy, (FakeTensor(0x1000), FakeTensor(0x2000, device), 1.0, 256))
    with pytest.raises(ValueError, match=r"argument 0 \('xs'\) item 1 is on cuda:"):  # an item of a list argument
        rc.describe_arguments(first, ([FakeTensor(0x1000), FakeTensor(0x2000, device)], FakeTensor(0x3000)))
    assert rc.describe_arguments(axpy, (FakeTensor(0x1000, "cuda"), FakeTensor(0x2000), 1.0, 256))[0].ptr == 0x1000


@needs_cutile
def test_a_numpy_array_is_named_as_host_memory():
    """A numpy array (the commonest first mistake) was 'DLPack device type 1'."""
    with pytest.raises(TypeError, match=r"argument 0 \('x'\) is a numpy array, in host memory: cuTile kernels take GPU "
                                        r"arrays; copy it to the GPU first"):
        rc.describe_arguments(axpy, (np.zeros(1024, np.float32), Y, 1.0, 256))


@needs_cutile
@pytest.mark.parametrize("ptr,typestr,size", [(0x100002, "<f4", 4), (0x100004, "<f8", 8), (0x100001, "<f2", 2)])
def test_a_misaligned_base_address_is_refused(ptr, typestr, size):
    """An array whose data does not start at a multiple of its element size (a byte view's odd
    slice) would fault on the GPU (a misaligned address poisons the context)."""
    with pytest.raises(ValueError, match=rf"argument 0 \('x'\): base address {ptr:#x} is not a multiple of its "
                                         rf"{size}-byte"):
        rc.describe_arguments(axpy, (Dev(ptr, (1024,), typestr), Y, 1.0, 256))
    assert rc.describe_arguments(axpy, (Dev(0, (0,)), Y, 1.0, 256))[0].ptr == 0  # an empty array's null pointer


@needs_cutile
def test_the_bad_cases_are_refused_before_any_gpu_call(monkeypatch):
    """The launch checks run before the driver is asked (no GPU here, and none needed for them)."""
    from tileorch.runtime import driver

    def no_driver():
        raise AssertionError("the driver was asked")

    monkeypatch.setattr(driver, "api", no_driver)
    for grid, args, exc in (((2**31,), (X, Y, 1.0, 256), ValueError),
                            ((1,), (X, Y, 1e300, 256), ValueError),
                            ((1,), (Dev(0x100002, (1024,)), Y, 1.0, 256), ValueError)):
        with pytest.raises(exc):
            rc.launch(0, grid, axpy, args)


def test_tileorch_compile_of_a_python_file_says_what_to_give_it(tmp_path):
    """``tileorch compile kernel.py`` (the kernel's Python source) was 'Operation import is not
    registered': the answer names what the command reads and how to get it from cuTile."""
    src = tmp_path / "kernel.py"
    src.write_text("import cuda.tile as ct\n\n@ct.kernel\ndef k(a):\n    pass\n")
    out = subprocess.run(forked([sys.executable, "-m", "tileorch", "compile", str(src)]), capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"{src}:1:1: error: {src.name} is Python source"), out.stderr
    assert "tileorch.cutile.launch" in out.stderr and "export_kernel" in out.stderr
    import tileorch
    from tileorch.diagnostics import CompileError

    for given in (str(src), src):  # tileorch.compile: the same answer
        with pytest.raises(CompileError) as info:
            tileorch.compile(given)
        assert info.value.lines == [out.stderr.strip()]


def test_tileorch_compile_arch_of_another_type_is_a_type_error():
    """``arch=90`` was an AttributeError ('int' object has no attribute 'rstrip') from the driver."""
    import tileorch

    with pytest.raises(TypeError, match=r"arch must be a target name such as 'sm_90a' \(or None: the module's\), "
                                        r"got 90"):
        tileorch.compile("builtin.module {}", arch=90)


def _line(kernel, marker: str) -> int:
    import inspect

    lines, start = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return start + next(i for i, text in enumerate(lines) if marker in text)


@needs_cutile
def test_a_store_of_another_rank_is_located_with_a_hint():
    """cuTile 1.7 exports a store of a rank-2 tile into a rank-1 array; the error, at the store's
    line, was only the IR's rule ('make_partition_view' ... rank ... to match)."""
    from tileorch.diagnostics import CompileError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    data = cutile_bytecode(store_of_another_rank, [((64, 64), "float32"), ((64,), "float32"), 16])
    with pytest.raises(CompileError) as info:
        compile_program(data, ptxas=False)
    (line,) = info.value.lines
    assert line.startswith(f"{__file__}:{_line(store_of_another_rank, '# STORE')}:8: error: 'make_partition_view' has "
                           "an invalid result type (expected tensor_view rank and tile rank to match, got tensor_view "
                           "of rank 1 and tiles of rank 2): the tile a ct.load reads or a ct.store writes has the "
                           "array's rank; ct.reshape the tile"), line


@needs_cutile
def test_a_tile_too_large_for_registers_says_so_at_its_line():
    """A 2^20-element tile: located at the load, named as too large (it said 'nv_tileaa.tiled_load'
    is not supported yet), with the way out."""
    from tileorch.diagnostics import LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    data = cutile_bytecode(huge_tile, [((1 << 20,), "float32"), ((1 << 20,), "float32"), 1 << 20])
    with pytest.raises(LocatedError) as info:
        compile_program(data, ptxas=False)
    text = str(info.value)
    assert text.startswith(f"{__file__}:{_line(huge_tile, '# LOAD')}:"), text
    assert "error: a tile of 1048576 elements is too large: 2048 registers per thread on 512 threads (at most 512); " \
           "use smaller tiles" in text and "not supported yet" not in text


@pytest.mark.parametrize("script,words", [
    ("not a program\n", r"cannot run ptxas .*fake-ptxas: Exec format error"),
    ("#!/bin/sh\nexit 3\n", r"ptxas .*fake-ptxas exited with status 3 and printed nothing"),
    ("#!/bin/sh\nkill -9 $$\n", r"ptxas .*fake-ptxas was killed by signal 9 and printed nothing"),
    ("#!/bin/sh\nexit 0\n", r"ptxas .*fake-ptxas exited with status 0 but wrote no cubin"),
    (None, r"TILEORCH_PTXAS=.*fake-ptxas is not an executable file"),
])
def test_a_ptxas_that_cannot_run_is_the_installations_error(tmp_path, monkeypatch, script, words):
    """TILEORCH_PTXAS naming something that is not a working ptxas: an OSError traceback (Exec
    format error), 'ptxas rejected the PTX:' with nothing after it, or a missing cubin's
    OSError before; now PtxasUnavailable, and ``ptxas: error: ...`` without a source position
    from tileorch.compile (the installation's fault, not the program's)."""
    import tileorch
    from tileorch.backend.ptxas import PtxasUnavailable, run_ptxas
    from tileorch.diagnostics import CompileError

    exe = tmp_path / "fake-ptxas"
    if script is not None:
        exe.write_text(script)
        exe.chmod(0o755)
    monkeypatch.setenv("TILEORCH_PTXAS", str(exe))
    monkeypatch.delenv("TILEORCH_BACKEND_MEMO", raising=False)
    with pytest.raises(PtxasUnavailable, match=words):
        run_ptxas(".version 8.6\n.target sm_90a\n.address_size 64\n", "sm_90a")
    with pytest.raises(CompileError) as info:
        tileorch.compile("builtin.module {}", cache=False)
    (line,) = info.value.lines
    assert line.startswith("ptxas: error: ") and line.endswith("(compile without ptxas: --no-ptxas, ptxas=False)")


@pytest.mark.parametrize("command", [["simulate"], ["check"], ["run", "--kernel", "k", "--block", "128"]])
def test_commands_that_do_not_read_cuda_tile_bytecode_say_what_it_is(tmp_path, command):
    """An exported .tileirbc given to ``tileorch simulate``/``check`` was 'invalid UTF-8 byte 0x82';
    to ``tileorch run`` it went to the driver's module loader as it was (tileorch not involved),
    or said 'no GPU' first."""
    path = tmp_path / "k.tileirbc"
    path.write_bytes(b"\x7fTileIR\x00\x0d\x04\x00\x82\x01" + bytes(64))
    out = subprocess.run(forked([sys.executable, "-m", "tileorch", command[0], str(path), *command[1:]]),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"{path}:1:1: error: "), out.stderr
    assert "CUDA Tile IR bytecode" in out.stderr and "tileorch compile" in out.stderr and "UTF-8" not in out.stderr


@needs_cutile
@pytest.mark.parametrize("kind", ["gemm", "chained", "simt"])
def test_a_programs_warnings_reach_the_caller_on_every_path(monkeypatch, kind):
    """A program's ``warning:`` remarks (no ptxas: the driver's JIT; ptxas spills) are one
    PerformanceWarning at its first launch on every path; they were issued for SIMT programs
    only (a GEMM or chained program without ptxas was JIT-compiled silently).  A refusal remark
    is the SIMT path's to report, not a GEMM's."""
    import warnings

    from tileorch.diagnostics import PerformanceWarning
    from tileorch.runtime import driver

    program = SimpleNamespace(kind=kind, remarks=["remark: the tier refused nothing here",
                                                  "warning: ptxas not found: the CUDA driver JIT-compiles the PTX"],
                              threads=128, smem=0, cubin=b"", ptx="", kernel="k", warp_programs=0, cluster_split=0)
    entry = rc._Compiled(program)
    launched = []
    monkeypatch.setattr(driver, "api", lambda: None)
    monkeypatch.setattr(rc, "_check_device", lambda arch: SimpleNamespace(sm_count=132))
    monkeypatch.setattr(rc, "compiled", lambda *a, **k: entry)
    monkeypatch.setattr(rc, "_launch_gemm", lambda *a, **k: launched.append("gemm"))
    monkeypatch.setattr(rc, "_launch_chained", lambda *a, **k: launched.append("chained"))
    monkeypatch.setattr(rc, "_run", lambda *a, **k: launched.append("simt"))
    monkeypatch.setattr(entry, "image", SimpleNamespace(registers=lambda: 32), raising=False)
    for _ in range(2):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            rc._launch(0, (1,), axpy, (X, Y, 1.0, 256), "sm_90a", "auto", False, "auto", None)
        texts = [str(w.message) for w in got if issubclass(w.category, PerformanceWarning)]
        if _ == 0:
            assert len(texts) == 1 and "the CUDA driver JIT-compiles the PTX" in texts[0], texts
            assert ("refused" in texts[0]) == (kind == "simt")
        else:
            assert texts == []  # once per compiled program
    assert launched == [kind, kind]


@needs_cutile
def test_no_gpu_says_so_in_words(monkeypatch):
    """Without a GPU the launcher's error was cuda-python's import failure alone ('cuda-python is
    not usable (...)'): now it says what the launch needs, what was found, and what works
    without a GPU."""
    from tileorch.runtime import driver
    from tileorch.runtime.errors import GpuUnavailable

    def none():
        raise GpuUnavailable("no NVIDIA driver found (OSError: libcuda.so.1: cannot open shared object file)")

    monkeypatch.setattr(driver, "api", none)
    with pytest.raises(GpuUnavailable) as info:
        rc.launch(0, (4,), axpy, (X, Y, 1.0, 256))
    text = str(info.value)
    assert text.startswith("tileorch.cutile.launch needs an NVIDIA GPU (compute capability 9.0) and cuda-python, and "
                           "found none: no NVIDIA driver found (OSError: libcuda.so.1"), text
    assert "tileorch compile compiles it" in text


@pytest.mark.parametrize("path", ["kernels/missing.txt", "examples/ws_stream_copy.MLIR", "k.ptx", "./a/b"])
def test_a_mistyped_path_is_a_path(path):
    """A one-line string of path characters with a '/' or a '.' that names no file was parsed as
    MLIR text ('Operation kernels is not registered'); it is read as a path: 'cannot read'."""
    import tileorch
    from tileorch.diagnostics import CompileError

    with pytest.raises(CompileError) as info:
        tileorch.compile(path, cache=False)
    assert info.value.lines == [f"tileorch.compile: error: cannot read {path}: No such file or directory"]
    assert tileorch.compile("builtin.module {}", cache=False, ptxas=False).entries == []  # text stays text


@needs_cutile
@pytest.mark.parametrize("kind", ["simt", "chained", "gemm"])
def test_a_gemm_option_on_a_program_without_a_gemm_is_said(monkeypatch, kind):
    """``schedule="streamk"`` or ``tiles="program"`` on a kernel the SIMT path compiles (a vector
    add) were ignored without a word; now one UserWarning per compiled program says so."""
    import warnings

    from tileorch.runtime import driver

    entry = rc._Compiled(SimpleNamespace(kind=kind, remarks=[], threads=128, smem=0, cubin=b"", ptx="", kernel="k",
                                         warp_programs=0, cluster_split=0))
    monkeypatch.setattr(driver, "api", lambda: None)
    monkeypatch.setattr(rc, "_check_device", lambda arch: SimpleNamespace(sm_count=132))
    monkeypatch.setattr(rc, "compiled", lambda *a, **k: entry)
    for name in ("_launch_gemm", "_launch_chained", "_run"):
        monkeypatch.setattr(rc, name, lambda *a, **k: None)
    monkeypatch.setattr(entry, "image", SimpleNamespace(registers=lambda: 32), raising=False)
    said = []
    for schedule, tiles in (("streamk", "program"), ("dp", "auto"), ("auto", "auto"), ("simt", "auto")):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            rc._launch(0, (1,), axpy, (X, Y, 1.0, 256), "sm_90a", schedule, False, tiles, None)
        said += [str(w.message) for w in got if w.category is UserWarning]
    if kind != "simt":  # the tier's programs
        assert said == []
    else:
        where = f"{__file__}:{next(i for i, t in enumerate(open(__file__).read().splitlines(), 1) if t.strip().startswith('def axpy('))}:5"
        assert said == [f"{where}: warning: cuTile kernel axpy: schedule='streamk' and tiles='program' not applied: "
                        "the kernel has no GEMM "
                        "the TileAS tier compiles (the SIMT path compiled it); these options pick the tier GEMM's "
                        "tile scheduler and tiles"]  # once per compiled program


def test_no_ptxas_at_all_is_one_plain_line(monkeypatch):
    """No TILEORCH_PTXAS, no wheel, nothing on PATH: the backend's not-found text (which names
    --no-ptxas itself) as a ptxas error, without a source position."""
    import tileorch
    from tileorch.backend import ptxas
    from tileorch.diagnostics import CompileError

    monkeypatch.setattr(ptxas, "find_ptxas", lambda: None)
    monkeypatch.delenv("TILEORCH_BACKEND_MEMO", raising=False)
    with pytest.raises(CompileError) as info:
        tileorch.compile("builtin.module {}", cache=False)
    assert info.value.lines == [f"ptxas: error: {ptxas.NOT_FOUND}"]
    assert info.value.lines[0].count("--no-ptxas") == 1


@needs_cutile
@pytest.mark.parametrize("options,words", [
    ({"occupancy": 4}, ["occupancy=4 (cuTile's hint of CTAs resident per SM) is not applied"]),
    ({"num_ctas": 2}, ["num_ctas=2 (cuTile's CTAs per cluster) is not applied: the SIMT path runs one CTA per program"]),
    ({"occupancy": 1}, []),
    ({}, []),
])
def test_launch_hints_tileorch_does_not_apply_are_warnings(options, words):
    """``@ct.kernel(occupancy=4)`` / ``num_ctas=2`` on a SIMT program were dropped without a word
    (the occupancy attribute had no reader); now a located warning each (a PerformanceWarning at
    launch, printed by tileorch compile)."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    kernel = ct.kernel(axpy._annotated_function.pyfunc, **options)
    program = compile_program(cutile_bytecode(kernel, [((1024,), "float32"), ((1024,), "float32"), 1.0, 256]),
                              ptxas=False)
    warned = [r for r in program.remarks if ": warning: " in r]
    assert len(warned) == len(words) and all(w in r for w, r in zip(words, warned)), warned
    assert all(r.startswith(f"{__file__}:") for r in warned)


@needs_cutile
def test_a_float_for_an_integer_scalar_annotation_names_the_argument():
    """A float for a ``ct.ScalarInt64`` parameter reached cuTile's exporter ('Invalid kernel
    parameter 'n': ScalarConstraint.dtype float32 does not match the annotated dtype int64')."""

    @ct.kernel
    def wide(x: ct.IndexedWithInt64, n: ct.ScalarInt64, tile: ct.Constant[int]):
        ct.store(x, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(tile,)) + n)

    with pytest.raises(TypeError, match=r"argument 1 \('n'\) is annotated as an int64 scalar, got a float \(2.5\)"):
        rc.describe_arguments(wide, (X, 2.5, 256))
    assert rc.describe_arguments(wide, (X, 3, 256))[1].dtype == "int64"


@needs_cutile
def test_a_kernel_without_a_source_file_says_where_it_was_defined():
    """A kernel defined in ``python -c`` (or a stdin script): cuTile's exporter raised inspect's
    bare 'could not get source code'."""
    code = ("import cuda.tile as ct\n"
            "@ct.kernel\n"
            "def k(a, tile: ct.Constant[int]):\n"
            "    ct.store(a, index=(ct.bid(0),), tile=ct.load(a, index=(ct.bid(0),), shape=(tile,)) * 2)\n"
            "from tileorch.testing.export import cutile_bytecode\n"
            "try:\n"
            "    cutile_bytecode(k, [((1024,), 'float32'), 256])\n"
            "except OSError as e:\n"
            "    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("cuTile could not read the source of kernel 'k' (defined in <string>: could not get "
                                  "source code); cuTile compiles a kernel from its source file: define it in a .py "
                                  "file"), out.stdout


def test_gemm_without_torch_says_what_it_needs(monkeypatch):
    """``tileorch.gemm`` where torch is not installed (was Python's bare "No module named 'torch'")."""
    from tileorch.launchers import gemm as launcher

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ModuleNotFoundError
    monkeypatch.setattr(launcher, "_TORCH", None)
    with pytest.raises(ModuleNotFoundError, match=r"tileorch.gemm multiplies torch CUDA tensors and needs torch, "
                                                  r"which is not installed: pip install torch") as info:
        launcher.gemm(object(), object())
    assert info.value.name == "torch"


def test_gemm_run_without_torch_says_so(monkeypatch, capsys):
    from tileorch.cli.main import main

    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(SystemExit) as info:
        main(["gemm", "64", "64", "64", "--run"])
    assert info.value.code == 1
    assert "tileorch gemm: error: --run/--bench need torch with CUDA and a Hopper GPU, and torch is not installed" \
        in capsys.readouterr().err


def test_gen_dialect_doc_outside_a_checkout_says_why(tmp_path, capsys):
    """An installed tileorch has no docs/ beside it (was a FileNotFoundError traceback)."""
    from tileorch.tools import gen_dialect_doc

    assert gen_dialect_doc.main(["--path", str(tmp_path / "no" / "dialect.md")]) == 1
    assert "gen_dialect_doc: error: cannot write" in capsys.readouterr().err
