"""Host time per bound launch through cuda-python's binding and through the ctypes path
(:mod:`tileorch.runtime.direct_launch`), without a GPU (issue 22).

A stand-in ``libcuda.so.1`` (C, built here with ``cc``: every entry point the runtime calls returns
at once; ``cuGetProcAddress_v2`` hands cuda-python the others) is put first on the library path of
a child process, so that the real ``cuda.bindings.driver`` and ``ctypes.CDLL("libcuda.so.1")``
both call it: what is measured is everything on the host side of a launch except the driver's own
work (about 5.5 us per launch on an H200 host, benchmarks/results/launch_overhead_gpu_*.json).

Usage::

    python benchmarks/launch_paths_stub.py [--calls 20000] [--src SRC] [--out build/launch_paths_stub]

``--src``: the ``src`` directory of the tileorch to measure (default: this checkout's), e.g. an
older tree for a before/after comparison (a tree without the ctypes path measures cuda-python's
only).  Needs cuda-python (``cuda-bindings``) importable, a C compiler, and cuda-tile for the
``tileorch.cutile.launch`` part.  Each figure is the mean of ``--calls`` calls (``timeit``), the
best of 7 repeats, in nanoseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

STUB_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
typedef unsigned long long u64;
static int n_sizes = 0; static unsigned long sizes[64];
void stub_set_param_sizes(int n, const int *s) { n_sizes = n; for (int i = 0; i < n; i++) sizes[i] = s[i]; }
int cuInit(unsigned f) { return 0; }
int cuDriverGetVersion(int *v) { *v = 13000; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x10; return 0; }
int cuCtxSetCurrent(void *c) { return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuDeviceGetName(char *name, int len, int d) { strncpy(name, "stub H100", len); return 0; }
int cuDeviceGetAttribute(int *v, int a, int d) { *v = a == 75 ? 9 : a == 16 ? 132 : 0; return 0; }
int cuModuleLoadData(void **m, const void *image) { *m = (void *)0x20; return 0; }
int cuModuleGetFunction(void **f, void *m, const char *name) { *f = (void *)0x30; return 0; }
int cuFuncGetParamInfo(void *f, size_t i, size_t *offset, size_t *size) {
  if ((int)i >= n_sizes) return 1; *offset = 0; *size = sizes[i]; return 0; }
int cuFuncGetAttribute(int *v, int a, void *f) { *v = 32; return 0; }
int cuFuncSetAttribute(void *f, int a, int v) { return 0; }
int cuLaunchKernelEx(const void *config, void *f, void **params, void **extra) { return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned smem, void *s, void **p, void **e) { return 0; }
int cuEventCreate(void **e, unsigned f) { *e = (void *)0x40; return 0; }
int cuEventRecord(void *e, void *s) { return 0; }
int cuEventQuery(void *e) { return 0; }
int cuEventDestroy(void *e) { return 0; }
int cuStreamSynchronize(void *s) { return 0; }
int cuMemsetD8Async(u64 p, unsigned char v, size_t n, void *s) { return 0; }
int cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_STUB"; return 0; }
int cuGetErrorString(int e, const char **s) { *s = "stub error"; return 0; }
static int missing(void) { return 999; }
int cuGetProcAddress_v2(const char *symbol, void **pfn, int v, u64 flags, int *status) {
  void *p = dlsym(RTLD_DEFAULT, symbol); *pfn = p ? p : (void *)missing; if (status) *status = 0; return 0; }
int cuGetProcAddress(const char *symbol, void **pfn, int v, u64 flags) {
  return cuGetProcAddress_v2(symbol, pfn, v, flags, 0); }
"""

PTX = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry fill(.param .u64 a, .param .u32 b, " \
      ".param .f32 c)\n{ ret; }\n"


def best_ns(fn, calls: int, repeat: int = 7) -> float:
    return min(timeit.repeat(fn, number=calls, repeat=repeat)) / calls * 1e9


def child(calls: int) -> dict:
    """The measurements, in the process whose libcuda is the stand-in."""
    import ctypes
    import types

    stub = ctypes.CDLL("libcuda.so.1")
    stub.stub_set_param_sizes(3, (ctypes.c_int * 3)(8, 4, 4))
    from tileorch import runtime
    from tileorch.runtime.driver import api
    from tileorch.runtime.launch import BoundLaunch

    drv = api()
    try:
        from tileorch.runtime import direct_launch
    except ImportError:
        direct_launch = None
    out: dict = {"ctypes_path": direct_launch is not None}
    kernel = runtime.Module(PTX).kernel("fill")
    os.environ["TILEORCH_LAUNCH_CTYPES"] = "0"
    via_binding = BoundLaunch(kernel, (1024, 1, 1), 128, [0x7000_0000_0000, 7, 2.5])
    launchers = {"cuda-python": via_binding.launcher()}
    os.environ.pop("TILEORCH_LAUNCH_CTYPES")
    if direct_launch is not None:
        via_ctypes = BoundLaunch(kernel, (1024, 1, 1), 128, [0x7000_0000_0000, 7, 2.5])
        assert via_ctypes.path == "ctypes", via_ctypes.path_reason
        launchers["ctypes"] = via_ctypes.launcher()
        d = via_ctypes._direct
        cfg, fn, table = d.config(0), d.function, direct_launch._Ref(via_ctypes._params)
        out["ctypes cuLaunchKernelEx (the call alone)"] = best_ns(lambda: d.launch_ex(cfg, fn, table, None), calls)
    config = via_binding.stream_config(0)
    out["cuda-python cuLaunchKernelEx (the call alone)"] = best_ns(
        lambda: drv.cuLaunchKernelEx(config, kernel.function, via_binding._params, 0), calls)
    for path, launch in launchers.items():
        out[f"bound launch, {path}, stream 0"] = best_ns(lambda: launch(0), calls)
        out[f"bound launch, {path}, stream 0x1234"] = best_ns(lambda: launch(0x1234), calls)
    try:
        import cuda.tile as ct
    except ImportError as exc:
        out["cutile_skipped"] = str(exc)
        return out
    out.update(cutile(ct, stub, calls, direct_launch is not None))
    return out


def cutile(ct, stub, calls: int, have_ctypes: bool) -> dict:
    """``tileorch.cutile.launch`` of a SIMT ``scale`` kernel on arrays with
    ``__cuda_array_interface__``, repeated (the hot path), per path; the compile is a stand-in
    that reads the exported entry's parameter sizes (nothing is compiled)."""
    import ctypes
    import types

    import tileorch.cutile
    import tileorch.driver as frontend
    from tileorch.frontend.cuda_tile_bytecode import read_bytecode

    globals()["ct"] = ct  # the kernel's annotations are read in this module's namespace

    def scale(x, y, alpha, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * alpha)

    sizes = {"tile<ptr<f32>>": 8, "tile<i32>": 4, "tile<f32>": 4}

    def compile_program(data, name, arch="sm_90a", schedule="persistent", ptxas=True, **_):
        entry = read_bytecode(data).body.block.first_op.body.block.first_op
        s = [sizes[str(t).removeprefix("!cuda_tile.")] for t in entry.function_type.inputs.data]
        stub.stub_set_param_sizes(len(s), (ctypes.c_int * len(s))(*s))
        return types.SimpleNamespace(kind="simt", ptx=f".visible .entry {entry.sym_name.data}()\n", cubin=None,
                                     kernel=entry.sym_name.data, threads=128, gemm_config=None, gemm_args=None)

    class Dev:
        def __init__(self, ptr, n):
            self.__cuda_array_interface__ = {"data": (ptr, False), "shape": (n,), "typestr": "<f4",
                                             "strides": None, "version": 3}

    frontend.compile_program = compile_program
    os.environ["TILEORCH_CACHE"] = "0"
    launch = tileorch.cutile.launch
    x, y = Dev(0x7F00_0000_0000, 1 << 20), Dev(0x7F00_0100_0000, 1 << 20)
    args = (x, y, 2.0, 1024)
    kernels = {"cuda-python": ct.kernel(scale)}
    if have_ctypes:
        kernels["ctypes"] = ct.kernel(scale)
    out = {}
    for path, kernel in kernels.items():
        if path == "cuda-python":
            os.environ["TILEORCH_LAUNCH_CTYPES"] = "0"
        launch(0, (1024,), kernel, args)  # compiled (the stand-in) and bound
        os.environ.pop("TILEORCH_LAUNCH_CTYPES", None)
    for path, kernel in kernels.items():
        out[f"tileorch.cutile.launch repeated, {path}"] = best_ns(lambda: launch(0, (1024,), kernel, args), calls)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    parser.add_argument("--out", default="build/launch_paths_stub")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.calls)))
        return 0
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("no C compiler (cc) to build the stand-in libcuda", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tileorch-stub-libcuda-") as tmp:
        (Path(tmp) / "stub.c").write_text(STUB_C)
        subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(Path(tmp) / "libcuda.so.1"), str(Path(tmp) / "stub.c"),
                        "-ldl"], check=True)
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = tmp + os.pathsep + env.get("LD_LIBRARY_PATH", "")
        env["PYTHONPATH"] = args.src + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("TILEORCH_LAUNCH_CTYPES", None)
        done = subprocess.run([sys.executable, __file__, "--child", "--calls", str(args.calls)], env=env,
                              capture_output=True, text=True)
    if done.returncode:
        print(done.stdout + done.stderr, file=sys.stderr)
        return done.returncode
    record = {"src": args.src, "calls": args.calls, "python": platform.python_version(),
              "machine": platform.machine(), "ns_per_call": json.loads(done.stdout.strip().splitlines()[-1])}
    for name, value in record["ns_per_call"].items():
        print(f"{name:55s} {value:8.0f} ns" if isinstance(value, float) else f"{name:55s} {value}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "launch_paths_stub.json").write_text(json.dumps(record, indent=1))
    print(f"wrote {out / 'launch_paths_stub.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
