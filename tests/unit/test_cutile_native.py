"""``TILEORCH_CUTILE_NATIVE=1``: repeated ``tileorch.cutile.launch`` calls through cuTile's C++
launcher with tileorch's program (tileorch.launchers.cutile_native), without a GPU: a child
process runs cuTile's real launcher against a stand-in ``libcuda.so.1`` (C, built here) that
records each ``cuLaunchKernelEx`` (grid, block, stream, the parameter bytes), and tileorch's
compile is a stand-in.  Checked against tileorch's own packing of the same arguments: the
parameters, the grid and block; one compile per signature, a second block size through its own
kernel object, and a refused program leaving the kernel on tileorch's path."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
CC = shutil.which("cc") or shutil.which("gcc")
pytestmark = [pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed"),
              pytest.mark.skipif(CC is None, reason="no C compiler for the stand-in libcuda")]

ROOT = Path(__file__).resolve().parents[2]

STUB = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
typedef unsigned long long u64;
int n_launches = 0, n_capture = 0; unsigned grid_block[6]; u64 stream_fn[2]; unsigned char params[32][8];
int cuInit(unsigned f) { return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x10; return 0; }
int cuCtxSetCurrent(void *c) { return 0; }
int cuCtxGetCurrent(void **c) { *c = (void *)0x10; return 0; }
int cuCtxGetDevice(int *d) { *d = 0; return 0; }
int cuCtxGetId(void *c, u64 *id) { *id = 1; return 0; }
int cuCtxPushCurrent(void *c) { return 0; }
int cuCtxPopCurrent(void **c) { if (c) *c = (void *)0x10; return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuStreamGetCtx(void *s, void **c) { *c = (void *)0x10; return 0; }
int cuStreamGetId(void *s, u64 *id) { *id = 7; return 0; }
int cuStreamIsCapturing(void *s, int *st) { *st = 0; return 0; }
int cuStreamSynchronize(void *s) { return 0; }
int cuDeviceGetName(char *name, int len, int d) { strncpy(name, "stub H100", len); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) { *v = a == 75 ? 9 : a == 16 ? 132 : 0; return 0; }
int cuLibraryLoadData(void **lib, const void *code, void *a, void **b, unsigned n, void *c, void **d, unsigned m) {
  *lib = (void *)0x50; return 0; }
int cuLibraryGetKernel(void **k, void *lib, const char *name) { *k = (void *)0x60; return 0; }
int cuLibraryUnload(void *lib) { return 0; }
int cuKernelGetFunction(void **f, void *k) { *f = (void *)0x30; return 0; }
int cuKernelGetAttribute(int *v, int a, void *k, int dev) { *v = a == 0 ? 1024 : 0; return 0; }
int cuKernelSetAttribute(int a, int v, void *k, int dev) { return 0; }
int cuPointerGetAttribute(void *data, int a, u64 p) { *(u64 *)data = 0; return 0; }
int cuMemGetAddressRange(u64 *b, size_t *s, u64 p) { if (b) *b = p; if (s) *s = 1 << 30; return 0; }
int cuLaunchKernelEx(const unsigned *config, void *f, void **p, void **extra) {
  n_launches++; for (int i = 0; i < 6; i++) grid_block[i] = config[i];
  stream_fn[0] = *(const u64 *)((const char *)config + 32); stream_fn[1] = (u64)f;
  for (int i = 0; i < n_capture && i < 32; i++) memcpy(params[i], p[i], 8);
  return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned smem, void *s, void **p, void **e) { return 999; }
int cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_STUB"; return 0; }
int cuGetErrorString(int e, const char **s) { *s = "stub error"; return 0; }
static int missing(void) { return 999; }
int cuGetProcAddress_v2(const char *symbol, void **pfn, int v, u64 flags, int *status) {
  void *p = dlsym(RTLD_DEFAULT, symbol); *pfn = p ? p : (void *)missing; if (status) *status = 0; return 0; }
int cuGetProcAddress(const char *symbol, void **pfn, int v, u64 flags) {
  return cuGetProcAddress_v2(symbol, pfn, v, flags, 0); }
"""

CHILD = '''
import ctypes, json, os, struct, sys
from types import SimpleNamespace
import cuda.tile as ct
import tileorch.cutile
import tileorch.driver as frontend
from tileorch.frontend.cuda_tile_bytecode import read_bytecode
from tileorch.launchers import cutile as rc
from tileorch.launchers import cutile_native as native

lib = ctypes.CDLL("libcuda.so.1")
compiles = []


def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
    entry = read_bytecode(data).body.block.first_op.body.block.first_op
    compiles.append(entry.sym_name.data)
    tile = int(entry.sym_name.data.rsplit("_I", 1)[1])
    kind = "gemm" if tile == 1024 else "simt"  # a tile of 1024: a program cuTile's launcher cannot run
    return SimpleNamespace(kind=kind, ptx="", cubin=b"\\x7fELF stand-in", kernel=f"k{len(compiles)}",
                           threads=128 if tile == 256 else 64, smem=0, warp_programs=0, cluster_split=0,
                           gemm_config=None, gemm_args=None, seconds=0.0)


frontend.compile_program = compile_program


@ct.kernel
def add(a, b, c, alpha, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(tile,)) * alpha + ct.load(b, index=(i,), shape=(tile,)))


class Dev:
    def __init__(self, ptr, n, strides=None):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (n,), "typestr": "<f4", "strides": strides,
                                         "version": 3}


def last():
    n = ctypes.c_int.in_dll(lib, "n_launches").value
    gb = list((ctypes.c_uint * 6).in_dll(lib, "grid_block"))
    sf = list((ctypes.c_ulonglong * 2).in_dll(lib, "stream_fn"))
    raw = (ctypes.c_ubyte * (32 * 8)).in_dll(lib, "params")
    return n, gb, sf, bytes(raw)


def expected(args):
    return [p.hex() for p in rc.pack_simt_arguments(rc.describe_arguments(add, args))]


def sizes(args):
    return [len(p) for p in rc.pack_simt_arguments(rc.describe_arguments(add, args))]


def captured(raw, args):
    return [raw[8 * i:8 * i + s].hex() for i, s in enumerate(sizes(args))]


out = {}
a, b, c = Dev(0x100000, 4096), Dev(0x200000, 4096), Dev(0x300000, 4000)
calls = [("first", (a, b, c, 3.0, 256), (4,)), ("again", (a, b, c, 3.0, 256), (4,)),
         ("other values", (Dev(0x500000, 4096), b, c, -1.5, 256), (2, 1)),
         ("tile 512", (a, b, c, 3.0, 512), (8,)), ("tile 256 again", (a, b, c, 2.0, 256), (4,)),
         ("other shape", (a, b, Dev(0x300000, 3000), 2.0, 256), (4,)),
         ("strided", (Dev(0x100000, 2048, (8,)), b, c, 2.0, 256), (4,))]
for label, args, grid in calls:
    ctypes.c_int.in_dll(lib, "n_capture").value = len(sizes(args))  # the entry's parameters (the stand-in copies them)
    tileorch.cutile.launch(5, grid, add, args)
    n, gb, sf, raw = last()
    out[label] = {"launches": n, "grid_block": gb, "stream": sf[0], "params": captured(raw, args),
                  "expected": expected(args), "compiles": len(compiles)}
try:  # a call cuTile's launcher refuses (an argument short): tileorch's path raises its own error
    tileorch.cutile.launch(5, (4,), add, (a, b, c, 3.0))
except TypeError as exc:
    out["short_call"] = str(exc)
out["route_kept"] = native.routes.get(add) is not None and add not in native.refused
ctypes.c_int.in_dll(lib, "n_capture").value = len(sizes((a, b, c, 3.0, 256)))
tileorch.cutile.launch(5, (4,), add, (a, b, c, 3.0, 256))
out["after_short_call"] = last()[0]
out["exported"] = "cuda.tile._compile" in sys.modules
try:
    tileorch.cutile.launch(5, (4,), add, (a, b, c, 3.0, 1024))
except Exception as exc:  # tileorch's own path: no GPU runtime in this child
    out["refused_error"] = type(exc).__name__
out["refused"] = native.refused.get(add, "")
out["launches_after_refusal"] = last()[0]
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def stub_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("stub-libcuda")
    (d / "stub.c").write_text(STUB)
    subprocess.run([CC, "-O1", "-shared", "-fPIC", "-o", str(d / "libcuda.so.1"), str(d / "stub.c"), "-ldl"],
                   check=True)
    return d


def run_child(stub_dir, native: str, **env_vars) -> dict:
    env = dict(os.environ, LD_LIBRARY_PATH=f"{stub_dir}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}",
               TILEORCH_CUTILE_NATIVE=native, TILEORCH_CACHE="0",
               PYTHONPATH=f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    env.update(env_vars)
    script = stub_dir / f"child_{native}.py"
    script.write_text(textwrap.dedent(CHILD))
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_native_route_passes_tileorchs_parameters_grid_and_block(stub_dir):
    out = run_child(stub_dir, "1")
    for label in ("first", "again", "other values", "tile 512", "tile 256 again", "other shape", "strided"):
        assert out[label]["params"] == out[label]["expected"], label
        assert out[label]["stream"] == 5
    assert [out[k]["launches"] for k in ("first", "again", "other values", "tile 512", "tile 256 again")] == \
        [1, 2, 3, 4, 5]
    assert out["first"]["grid_block"] == [4, 1, 1, 128, 1, 1]
    assert out["other values"]["grid_block"] == [2, 1, 1, 128, 1, 1]
    assert out["tile 512"]["grid_block"] == [8, 1, 1, 64, 1, 1]  # its program's block size
    assert out["tile 256 again"]["grid_block"] == [4, 1, 1, 128, 1, 1]
    # one compile per signature: the first, the tile-512 one; nothing for repeated calls or values
    assert [out[k]["compiles"] for k in ("first", "again", "other values", "tile 512", "tile 256 again")] == \
        [1, 1, 1, 2, 2]
    # a call cuTile's launcher refuses takes tileorch's path (its error), the kernel keeps the route
    assert out["short_call"] == "kernel 'add' takes 5 arguments (a, b, c, alpha, tile), got 4"
    assert out["route_kept"] and out["after_short_call"] == 8
    # a program cuTile's launcher cannot run: the kernel goes to tileorch's path, nothing launched natively
    assert out["refused"].startswith("Refused: a gemm program") and out["launches_after_refusal"] == 8
    # another shape (3000: not a multiple of 16, another cuTile signature) and a strided array
    # (stride 2: another one again) each compile for their signature, with their own parameters
    assert [out[k]["compiles"] for k in ("other shape", "strided")] == [3, 4]
    assert out["strided"]["params"][2] == "02000000" and out["other shape"]["params"][7] == "b80b0000"


def test_a_new_process_reads_the_native_program_by_the_source_identity(stub_dir, tmp_path):
    """With the on-disk cache on, a second process compiles nothing and does not import cuTile's
    compiler for the signatures the first one compiled."""
    env = {"TILEORCH_CACHE": "1", "TILEORCH_CACHE_DIR": str(tmp_path / "cache")}
    first = run_child(stub_dir, "1", **env)
    second = run_child(stub_dir, "1", **env)
    assert first["tile 256 again"]["compiles"] == 2 and first["exported"]
    assert second["first"]["compiles"] == 0 and second["tile 256 again"]["compiles"] == 0 and not second["exported"]
    assert second["tile 512"]["grid_block"] == [8, 1, 1, 64, 1, 1]
    assert second["first"]["params"] == second["first"]["expected"]


def test_without_the_switch_cutiles_launcher_is_not_used(stub_dir):
    """Switch off: tileorch's own path (which needs a GPU runtime this child lacks) takes the call."""
    env_out = None
    try:
        env_out = run_child(stub_dir, "0")
    except AssertionError as exc:  # the first call fails in tileorch's runtime (no cuda-python here)
        assert "launch" in str(exc) or "Error" in str(exc)
        return
    assert env_out["first"]["launches"] == 0
