"""``tileorch.compile`` -> ``Kernel`` (PTX, cubin, launch) and its content-addressed disk cache."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from tool_forkserver import forked

import tileorch
from tileorch import api
from tileorch.backend.compile import CompileError
from tileorch.backend.ptxas import ptxas_available
from tileorch.runtime import GpuUnavailable
from tileorch.runtime import device as rt_device
from tileorch.runtime.driver import use_api

ROOT = Path(__file__).resolve().parents[2]

# one kernel writing its thread index to out[tid] (kernel params: a global pointer and an i32)
SOURCE = """
func.func @store_tid(%out: !llvm.ptr<1>, %n: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %p = llvm.getelementptr %out[%tid] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
  llvm.store %tid, %p <alignment = 4> : i32, !llvm.ptr<1>
  func.return
}
"""

needs_ptxas = pytest.mark.skipif(not ptxas_available(), reason="no ptxas (pip install nvidia-cuda-nvcc)")


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEORCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILEORCH_CACHE", raising=False)
    return tmp_path / "cache" / "kernels"


def _entries(cache_dir: Path) -> list[Path]:
    return sorted(p for p in cache_dir.glob("*/*") if p.is_dir()) if cache_dir.exists() else []


@needs_ptxas
def test_compile_text_gives_ptx_cubin_and_entries(cache_dir):
    k = tileorch.compile(SOURCE, arch="sm_90a")
    assert isinstance(k, tileorch.Kernel)
    assert k.entries == ["store_tid"] and k.name == "store_tid"
    assert ".visible .entry store_tid(" in k.ptx and ".target sm_90a" in k.ptx
    assert k.cubin.startswith(b"\x7fELF") and k.arch == "sm_90a"
    assert 'define ptx_kernel void @"store_tid"' in k.llvm_ir
    assert not k.from_cache and len(k.key) == 64


@needs_ptxas
def test_cache_hit_same_result_and_misses_on_any_change(cache_dir):
    first = tileorch.compile(SOURCE)
    assert [p.name for p in _entries(cache_dir)] == [first.key]
    again = tileorch.compile(SOURCE)
    assert again.from_cache and (again.ptx, again.cubin, again.entries) == (first.ptx, first.cubin, first.entries)
    other = tileorch.compile(SOURCE.replace("128, 1, 1", "256, 1, 1"))
    assert not other.from_cache and other.key != first.key and ".maxntid 256" in other.ptx
    no_ptxas = tileorch.compile(SOURCE, ptxas=False)
    assert not no_ptxas.from_cache and no_ptxas.cubin == b"" and no_ptxas.ptx == first.ptx
    assert len(_entries(cache_dir)) == 3


@needs_ptxas
def test_cache_off_and_corrupt_entries(cache_dir, monkeypatch):
    monkeypatch.setenv("TILEORCH_CACHE", "0")
    tileorch.compile(SOURCE)
    assert _entries(cache_dir) == []
    monkeypatch.delenv("TILEORCH_CACHE")
    k = tileorch.compile(SOURCE)
    (cache_dir / k.key[:2] / k.key / "meta.json").write_text("{not json")
    again = tileorch.compile(SOURCE)  # an unreadable entry is recompiled, not an error
    assert not again.from_cache and again.ptx == k.ptx
    meta = json.loads((cache_dir / k.key[:2] / k.key / "meta.json").read_text())
    assert meta["entries"] == ["store_tid"]


def test_compile_error_is_located(cache_dir):
    bad = SOURCE.replace("nvvm.read.ptx.sreg.tid.x : i32", "nvvm.read.ptx.sreg.tid.x : i64")
    with pytest.raises(CompileError) as info:
        tileorch.compile(bad, ptxas=False)
    assert info.value.lines[0].startswith("<string>:4:") and "i64" in info.value.lines[0]
    assert _entries(cache_dir) == []  # failures are not cached


def test_malformed_extra_pipeline_is_a_compile_error():
    """xDSL's ArgSpecParseError is a BaseException: it escaped tileorch.compile as a raw traceback."""
    with pytest.raises(CompileError) as info:
        tileorch.compile(SOURCE, ptxas=False, cache=False, extra_pipeline="canonicalize{")
    assert info.value.lines == ["<string>:1:1: error: malformed pass pipeline 'canonicalize{' at column 14: "
                                "Expected argument name here"]


def test_compile_path_and_module(tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text(SOURCE)
    by_path = tileorch.compile(path, ptxas=False, cache=False)
    assert by_path.entries == ["store_tid"]
    with pytest.raises(CompileError) as info:
        tileorch.compile(str(path).replace("k.mlir", "k.mlir"), ptxas=False, cache=False, name="named.mlir",
                         extra_pipeline="no-such-pass")
    assert "named.mlir" in info.value.lines[0]
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    module = parse_module(make_context(), SOURCE, "m.mlir")
    assert tileorch.compile(module, ptxas=False, cache=False).ptx == by_path.ptx
    with pytest.raises(TypeError, match="MLIR text, a .mlir path or a ModuleOp"):
        tileorch.compile(42)


def test_launch_without_gpu_is_a_clear_error(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cuda(name, *a, **k):
        if name.startswith("cuda"):
            raise ImportError("No module named 'cuda'")
        return real_import(name, *a, **k)

    k = tileorch.compile(SOURCE, ptxas=False, cache=False)
    monkeypatch.setattr(builtins, "__import__", no_cuda)
    with use_api(None), pytest.raises(GpuUnavailable, match=r"cuda-python is not usable.*tileorch\[gpu\]"):
        k.launch(1, 128, 1, 0, 5)


def test_launch_goes_through_the_runtime(monkeypatch):
    """With a (fake) driver: the cubin is loaded and launched with grid/block/cluster/smem and
    the arguments packed by the kernel's parameter sizes."""
    sys.path.insert(0, str(Path(__file__).parent))
    try:
        from test_runtime import FakeDriver
    finally:
        sys.path.pop(0)
    k = api.Kernel(ptx=".version 8.6\n.visible .entry store_tid(.param .u64 a, .param .u32 b)\n{ ret; }\n",
                   cubin=b"\x7fELF fake", arch="sm_90a", entries=["store_tid"])
    drv = FakeDriver(params={"store_tid": [8, 4]})
    loaded = []
    real_load = drv.cuModuleLoadData
    drv.cuModuleLoadData = lambda data: (loaded.append(data), real_load(data))[1]
    rt_device.forget_devices()
    try:
        with use_api(drv):
            k.launch((2, 1, 1), (128, 1, 1), (2, 1, 1), 0x1000, 7, smem=1024)
            with pytest.raises(ValueError, match="no kernel named 'other'"):
                k.launch(1, 1, 1, name="other")
    finally:
        rt_device.forget_devices()
    assert loaded == [b"\x7fELF fake"]
    (launch,) = drv.launches
    cfg = launch["config"]
    assert (cfg.gridDimX, cfg.blockDimX, cfg.sharedMemBytes, cfg.numAttrs) == (2, 128, 1024, 1)
    assert launch["params"] == [struct.pack("<Q", 0x1000), struct.pack("<i", 7)]


def test_name_needs_one_kernel():
    k = api.Kernel(ptx="", cubin=b"", arch="sm_90a", entries=["a", "b"])
    with pytest.raises(ValueError, match="2 kernels"):
        k.name


@needs_ptxas
def test_cli_writes_cubin_and_uses_the_cache(tmp_path, cache_dir):
    src = tmp_path / "k.mlir"
    src.write_text(SOURCE)
    cmd = [sys.executable, "-m", "tileorch.cli.main", "compile", str(src), "-o", str(tmp_path / "k.ptx"),
           "--cubin", str(tmp_path / "k.cubin")]
    env = {**__import__("os").environ, "TILEORCH_CACHE_DIR": str(cache_dir.parent)}
    for _ in range(2):
        proc = subprocess.run(forked(cmd), capture_output=True, text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert "accepted by ptxas -arch=sm_90a" in proc.stderr
    assert (tmp_path / "k.cubin").read_bytes().startswith(b"\x7fELF")
    assert len(_entries(cache_dir)) == 1
    proc = subprocess.run(cmd[:-2] + ["--no-ptxas", "--cubin", "x"], capture_output=True, text=True, env=env)
    assert proc.returncode == 2 and "--cubin needs" in proc.stderr


# a cuTile (CUDA Tile IR) kernel, written as bytecode by tileorch's writer for the tests below
CUDA_TILE_COUNT = """
cuda_tile.module @m {
  entry @count(%n: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %r = loop iter_values(%i = %c0) : tile<i32> -> tile<i32> {
      %done = cmpi greater_than_or_equal %i, %n, signed : tile<i32> -> tile<i1>
      if %done {
        break %i : tile<i32>
      }
      %next = addi %i, %c1 : tile<i32>
      continue %next : tile<i32>
    }
  }
}
"""


def _count_bytecode() -> bytes:
    from tileorch.diagnostics import parse_module
    from tileorch.frontend.cuda_tile_bytecode_writer import write_bytecode
    from tileorch.registry import make_context

    return write_bytecode(parse_module(make_context(), CUDA_TILE_COUNT, "count.mlir"))


@pytest.mark.parametrize("path", ["examples/no_such_kernel.mlir", "no_such.tileirbc", "no_such.bc"])
def test_missing_path_is_a_user_error_not_mlir_text(path, tmp_path, monkeypatch):
    """A string that looks like a path is read as a file (it was parsed as MLIR text:
    "Operation examples is not registered")."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CompileError) as info:
        tileorch.compile(path, cache=False)
    assert info.value.lines == [f"tileorch.compile: error: cannot read {path}: No such file or directory"]


def test_relative_and_suffixless_paths_are_read(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    rel = tileorch.compile("examples/ws_stream_copy.mlir", ptxas=False, cache=False)
    assert rel.entries == ["ws_stream_copy"]
    (tmp_path / "kernel.txt").write_text(SOURCE)  # an existing file, whatever its name
    monkeypatch.chdir(tmp_path)
    assert tileorch.compile("kernel.txt", ptxas=False, cache=False).entries == ["store_tid"]
    with pytest.raises(CompileError) as info:
        tileorch.compile(str(tmp_path), cache=False)  # a directory exists but is no file
    assert info.value.lines[0].startswith(f"tileorch.compile: error: cannot read {tmp_path}: ")


def test_tileirbc_path_and_bytecode_bytes(tmp_path, cache_dir):
    """cuTile bytecode compiles from a .tileirbc path and from bytes, as `tileorch compile` does."""
    data = _count_bytecode()
    path = tmp_path / "count.tileirbc"
    path.write_bytes(data)
    by_path = tileorch.compile(str(path), ptxas=False)
    by_bytes = tileorch.compile(data, ptxas=False)
    by_text = tileorch.compile(CUDA_TILE_COUNT, ptxas=False)  # cuda_tile text too
    assert by_path.entries == by_bytes.entries == by_text.entries == ["count"]
    assert by_path.ptx == by_bytes.ptx == by_text.ptx and ".visible .entry count(" in by_path.ptx
    cli = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "compile", str(path), "--no-ptxas"]),
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == by_path.ptx
    assert tileorch.compile(data, ptxas=False).from_cache
    with pytest.raises(CompileError) as info:
        tileorch.compile(data[:20] + b"\xff" * 8, ptxas=False)
    assert info.value.lines[0].startswith("<bytes>: error: invalid CUDA Tile IR bytecode at")


@needs_ptxas
def test_cli_writes_the_cubin_of_a_cutile_program(tmp_path, cache_dir):
    """--cubin is honoured for cuTile bytecode too (it was silently ignored), and refused with
    --no-ptxas as for MLIR inputs."""
    path = tmp_path / "count.tileirbc"
    path.write_bytes(_count_bytecode())
    cubin = tmp_path / "count.cubin"
    cmd = [sys.executable, "-m", "tileorch.cli.main", "compile", str(path), "-o", str(tmp_path / "c.ptx")]
    cli = subprocess.run(forked(cmd + ["--cubin", str(cubin)]), capture_output=True, text=True, timeout=300)
    assert cli.returncode == 0, cli.stderr
    assert cubin.read_bytes().startswith(b"\x7fELF")
    refused = subprocess.run(forked(cmd + ["--no-ptxas", "--cubin", str(tmp_path / "x")]), capture_output=True,
                             text=True, timeout=300)
    assert refused.returncode == 2 and "--cubin needs" in refused.stderr
    assert not (tmp_path / "x").exists()


def test_tile_program_path_goes_through_the_tier(cache_dir):
    k = tileorch.compile(str(ROOT / "examples" / "tile_gemm.mlir"), ptxas=False)
    assert k.entries and any("TileAS tier" in r for r in k.remarks)
    assert "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16" in k.ptx
    with pytest.raises(CompileError, match="applies only to tile programs"):
        tileorch.compile(SOURCE, ptxas=False, schedule="streamk")


@pytest.mark.parametrize("kwargs,error,message", [
    # each was taken: a string flag as true (ptxas="no" ran ptxas), a string PTX version reported
    # as "unsupported PTX version 80; choose one of (80, ...)", an int pipeline an AttributeError,
    # an empty or unknown arch "the target given () differs from the module's"
    (dict(ptxas="no"), TypeError, r"ptxas must be True or False, got 'no' \(a non-empty string is true\)"),
    (dict(cache="off"), TypeError, r"cache must be True or False, got 'off'"),
    (dict(isolate=1.0), TypeError, r"isolate must be True or False, got 1.0"),
    (dict(timings="yes"), TypeError, r"timings must be True or False"),
    (dict(ptx_version="80"), TypeError, r"ptx_version must be an int such as 86, got '80'"),
    (dict(ptx_version=True), TypeError, r"ptx_version must be an int"),
    (dict(ptx_version=70), ValueError, r"ptx_version 70 is not supported; use one of 80, "),
    (dict(extra_pipeline=5), TypeError, r"extra_pipeline must be a pass pipeline string, got int"),
    (dict(schedule="bogus"), ValueError, r"schedule must be one of persistent, streamk, dp, simt \(or None\), got 'bogus'"),
    (dict(schedule=1), ValueError, r"schedule must be one of .*got 1"),
    (dict(arch=""), ValueError, r"arch '' is not a target tileorch generates code for: use one of sm_90a, sm_100a"),
    (dict(arch="sm_90"), ValueError, r"arch 'sm_90' is not a target tileorch generates code for: use one of sm_90a, "
                                     r"sm_100a \(or None: the module's\); for an sm_90 GPU: arch='sm_90a'"),
    (dict(arch="sm_80"), ValueError, r"arch 'sm_80' is not a target"),
    (dict(name=3), TypeError, r"name \(the file name diagnostics show\) must be a str, got int"),
    (dict(debug_timeout=-1), ValueError, r"debug_timeout must be in \[0, 4294967295\] polls \(0 = off; counted in 32 "
                                         r"bits\), got -1"),
    (dict(debug_timeout=1.5), TypeError, r"debug_timeout must be an int \(polls before a wait traps; 0 = off\), got 1.5"),
], ids=lambda v: repr(v) if isinstance(v, dict) else "")
def test_compile_options_are_checked_naming_the_argument(kwargs, error, message):
    with pytest.raises(error, match=message):
        tileorch.compile(SOURCE, **{"ptxas": False, **kwargs})


@pytest.mark.parametrize("source", [None, 3, [SOURCE], {"text": SOURCE}])
def test_a_source_of_another_kind_is_named(source):
    with pytest.raises(TypeError, match=r"tileorch.compile takes MLIR text, a .mlir path or a ModuleOp, or CUDA Tile IR "
                                        r"\(a .tileirbc path or bytecode bytes\), not " + type(source).__name__):
        tileorch.compile(source, ptxas=False)


def test_compile_takes_numpy_bools_and_none_cache():
    np = pytest.importorskip("numpy")
    assert tileorch.compile(SOURCE, ptxas=np.bool_(False), cache=None).entries == ["store_tid"]
