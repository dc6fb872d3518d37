"""Host time per bound launch through cuda-python's binding and through the ctypes path
(:mod:`tileorch.runtime.direct_launch`), without a GPU (issue 22).

A stand-in ``libcuda.so.1`` (C, built here with ``cc``: every entry point the runtime calls returns
at once; ``cuGetProcAddress_v2`` hands cuda-python the others) is put first on the library path of
a child process, so that the real ``cuda.bindings.driver`` and ``ctypes.CDLL("libcuda.so.1")``
both call it: what is measured is everything on the host side of a launch except the driver's own
work (about 5.5 us per launch on an H200 host, benchmarks/results/launch_overhead_gpu_*.json).

Usage::

    python benchmarks/launch_paths_stub.py [--calls 20000] [--src SRC] [--instructions] [--out build/launch_paths_stub]

``--src``: the ``src`` directory of the tileorch to measure (default: this checkout's), e.g. an
older tree for a before/after comparison (a tree without the ctypes path measures cuda-python's
only).  Needs cuda-python (``cuda-bindings``) importable, a C compiler, and cuda-tile for the
``tileorch.cutile.launch`` part.  Each figure is the mean of ``--calls`` calls (``timeit``), the
best of 7 repeats, in nanoseconds; with ``--instructions``, the instructions per call counted by
callgrind around the calls only (one child each; needs valgrind and its headers): deterministic,
where wall times on a shared machine are not.
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
int cuCtxGetCurrent(void **c) { *c = (void *)0x10; return 0; }
int cuCtxGetDevice(int *d) { *d = 0; return 0; }
int cuCtxGetId(void *c, u64 *id) { *id = 1; return 0; }
int cuCtxPushCurrent(void *c) { return 0; }
int cuCtxPopCurrent(void **c) { if (c) *c = (void *)0x10; return 0; }
int cuStreamGetCtx(void *s, void **c) { *c = (void *)0x10; return 0; }
int cuStreamGetId(void *s, u64 *id) { *id = 7; return 0; }
int cuStreamIsCapturing(void *s, int *st) { *st = 0; return 0; }
int cuLibraryLoadData(void **lib, const void *code, void *a, void **b, unsigned n, void *c, void **d, unsigned m) {
  *lib = (void *)0x50; return 0; }
int cuLibraryGetKernel(void **k, void *lib, const char *name) { *k = (void *)0x60; return 0; }
int cuLibraryUnload(void *lib) { return 0; }
int cuKernelGetFunction(void **f, void *k) { *f = (void *)0x30; return 0; }
int cuKernelGetAttribute(int *v, int a, void *k, int dev) { *v = a == 0 ? 1024 : 0; return 0; }
int cuKernelSetAttribute(int a, int v, void *k, int dev) { return 0; }
int cuPointerGetAttribute(void *data, int a, u64 p) { *(u64 *)data = 0; return 0; }
int cuMemGetAddressRange(u64 *b, size_t *s, u64 p) { if (b) *b = p; if (s) *s = 1 << 30; return 0; }
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


def calls_of(with_cutile: bool) -> tuple[dict, dict]:
    """(the measured functions by name, facts), in the process whose libcuda is the stand-in."""
    import ctypes

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
    facts: dict = {"ctypes_path": direct_launch is not None}
    fns: dict = {}
    kernel = runtime.Module(PTX).kernel("fill")
    os.environ["TILEORCH_LAUNCH_CTYPES"] = "0"
    via_binding = BoundLaunch(kernel, (1024, 1, 1), 128, [0x7000_0000_0000, 7, 2.5])
    launchers = {"cuda-python": via_binding.launcher()}
    os.environ["TILEORCH_LAUNCH_CTYPES"] = "1"  # (cuda-python's binding is the default)
    if direct_launch is not None:
        via_ctypes = BoundLaunch(kernel, (1024, 1, 1), 128, [0x7000_0000_0000, 7, 2.5])
        assert via_ctypes.path == "ctypes", via_ctypes.path_reason
        launchers["ctypes"] = via_ctypes.launcher()
        d = via_ctypes._direct
        cfg, fn, table = d.config(0), d.function, direct_launch._Ref(via_ctypes._params)
        fns["ctypes cuLaunchKernelEx (the call alone)"] = lambda: d.launch_ex(cfg, fn, table, None)
        os.environ.pop("TILEORCH_LAUNCH_CTYPES", None)  # unset: the compiled C launcher (s33), where it builds
        via_c = BoundLaunch(kernel, (1024, 1, 1), 128, [0x7000_0000_0000, 7, 2.5])
        facts["c_path"] = via_c.path == "c" or via_c.path_reason
        if via_c.path == "c":
            launchers["c"] = via_c.launcher()
            go = via_c.pointer_launcher([0])
            fns["pointer launch, c, stream 0"] = lambda: go(0, (0x7000_0000_1000,))
        os.environ["TILEORCH_LAUNCH_CTYPES"] = "1"
    config = via_binding.stream_config(0)
    fns["cuda-python cuLaunchKernelEx (the call alone)"] = lambda: drv.cuLaunchKernelEx(
        config, kernel.function, via_binding._params, 0)
    for path, launch in launchers.items():
        fns[f"bound launch, {path}, stream 0"] = lambda launch=launch: launch(0)
        fns[f"bound launch, {path}, stream 0x1234"] = lambda launch=launch: launch(0x1234)
    if not with_cutile:
        return fns, facts
    try:
        import cuda.tile as ct
    except ImportError as exc:
        facts["cutile_skipped"] = str(exc)
        return fns, facts
    fns.update(cutile(ct, stub, direct_launch is not None))
    return fns, facts


def cutile(ct, stub, have_ctypes: bool) -> dict:
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
        kernels["c"] = ct.kernel(scale)  # TILEORCH_LAUNCH_CTYPES unset: the C launcher (s33), where it builds
    for path, kernel in kernels.items():
        os.environ.pop("TILEORCH_LAUNCH_CTYPES", None)
        if path != "c":
            os.environ["TILEORCH_LAUNCH_CTYPES"] = "0" if path == "cuda-python" else "1"
        launch(0, (1024,), kernel, args)  # compiled (the stand-in) and bound
        os.environ.pop("TILEORCH_LAUNCH_CTYPES", None)
    fns = {f"tileorch.cutile.launch repeated, {path}": (lambda kernel=kernel: launch(0, (1024,), kernel, args))
           for path, kernel in kernels.items()}
    if "torch" not in sys.modules:  # (s33) stand-in torch tensors: the hot path's torch pattern (C-checked repeats)
        class Tensor:  # what the launcher reads of a torch tensor; the reads are Python-level (torch's are C getters)
            is_cuda = True

            def __init__(self, ptr, n):
                self._ptr, self.shape, self._strides, self.dtype, self.device = ptr, (n,), (1,), "torch.float32", \
                    "cuda:0"

            def data_ptr(self):
                return self._ptr

            def stride(self):
                return self._strides

        sys.modules["torch"] = types.SimpleNamespace(Tensor=Tensor, __name__="torch")
        targs = (Tensor(0x7F00_0000_0000, 1 << 20), Tensor(0x7F00_0100_0000, 1 << 20), 2.0, 1024)
        for path in list(kernels):
            kernel = ct.kernel(scale)
            os.environ.pop("TILEORCH_LAUNCH_CTYPES", None)
            if path != "c":
                os.environ["TILEORCH_LAUNCH_CTYPES"] = "0" if path == "cuda-python" else "1"
            launch(0, (1024,), kernel, targs)
            launch(0, (1024,), kernel, targs)  # (learnt on the first call: the hot launcher from the second)
            os.environ.pop("TILEORCH_LAUNCH_CTYPES", None)
            fns[f"tileorch.cutile.launch repeated, torch-like tensors, {path}"] = \
                lambda kernel=kernel: launch(0, (1024,), kernel, targs)
    # cuTile's own launcher (C++) on the same stand-in: cuda.tile.launch of a kernel whose compile is
    # a stand-in, and tileorch.cutile.launch with TILEORCH_CUTILE_NATIVE=1 (tileorch's stand-in program)
    own = ct.kernel(scale)
    own._compile = lambda signature, context, compute_capability=None: (b"\x7fELF stand-in", "scale", None, ())
    fns["cuda.tile.launch repeated (cuTile's C++ launcher)"] = lambda: ct.launch(0, (1024,), own, args)
    from tileorch.launchers import cutile_native

    native_kernel = ct.kernel(scale)
    cutile_native.set_enabled(True)
    for kernel in kernels.values():
        cutile_native._refuse(kernel, "measured on the Python path")
    launch(0, (1024,), native_kernel, args)
    if cutile_native.routes.get(native_kernel) is not None:
        fns["tileorch.cutile.launch repeated, TILEORCH_CUTILE_NATIVE=1"] = \
            lambda: launch(0, (1024,), native_kernel, args)
    return fns


def child(calls: int) -> dict:
    """Nanoseconds per call of every measured function."""
    fns, facts = calls_of(True)
    return facts | {name: best_ns(fn, calls) for name, fn in fns.items()}


_CALLGRIND_HELPER = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS; }
"""


def counted_child(calls: int, name: str, helper: str) -> None:
    """``calls`` calls of the function ``name`` with callgrind's instrumentation on."""
    import ctypes

    fns, _ = calls_of(name.startswith(("tileorch.cutile", "cuda.tile")))
    fn = fns[name]
    for _ in range(3):
        fn()
    requests = ctypes.CDLL(helper)
    requests.cg_start()
    for _ in range(calls):
        fn()
    requests.cg_stop()


def instructions(env: dict, calls: int, tmp: str, cc: str, src: str) -> dict:
    """Instructions per call of each measured function (one child under callgrind each:
    deterministic, unlike wall time on a shared machine)."""
    import re

    helper = Path(tmp) / "libcallgrind_requests.so"
    (Path(tmp) / "cg.c").write_text(_CALLGRIND_HELPER)
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(helper), str(Path(tmp) / "cg.c")], check=True)
    names = subprocess.run([sys.executable, __file__, "--child", "--list"], env=env, capture_output=True, text=True,
                           check=True).stdout.split("\n")
    out = {}
    for name in filter(None, names):
        dump = Path(tmp) / "cg"
        dump.mkdir(exist_ok=True)
        for f in dump.glob("*"):
            f.unlink()
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={dump}/out",
                        sys.executable, __file__, "--child", "--calls", str(calls), "--count", name, "--helper",
                        str(helper)], env=dict(env, PYTHONHASHSEED="0"), check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        total = sum(int(m) for f in dump.glob("out*") for m in re.findall(r"^totals:\s+(\d+)", f.read_text(), re.M))
        out[name] = total // calls
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--src", default=str(Path(__file__).resolve().parents[1] / "src"))
    parser.add_argument("--out", default="build/launch_paths_stub")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per call under callgrind instead of timing (needs valgrind)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--list", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--count", default="", help=argparse.SUPPRESS)
    parser.add_argument("--helper", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child and args.list:
        print("\n".join(calls_of(True)[0]))
        return 0
    if args.child and args.count:
        counted_child(args.calls, args.count, args.helper)
        return 0
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
        env["TILEORCH_LAUNCH_C"] = "1"  # the C launcher and the C check of repeats (the default since s34; on
        # for an older --src too, where it was opt-in)
        record = {"src": args.src, "calls": args.calls, "python": platform.python_version(),
                  "machine": platform.machine()}
        if args.instructions:
            record["instructions_per_call"] = measured = instructions(env, args.calls, tmp, cc, args.src)
            unit = "instructions"
        else:
            done = subprocess.run([sys.executable, __file__, "--child", "--calls", str(args.calls)], env=env,
                                  capture_output=True, text=True)
            if done.returncode:
                print(done.stdout + done.stderr, file=sys.stderr)
                return done.returncode
            record["ns_per_call"] = measured = json.loads(done.stdout.strip().splitlines()[-1])
            unit = "ns"
    for name, value in measured.items():
        print(f"{name:55s} {value:8.0f} {unit}" if isinstance(value, (int, float)) and not isinstance(value, bool)
              else f"{name:55s} {value}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "launch_paths_stub.json").write_text(json.dumps(record, indent=1))
    print(f"wrote {out / 'launch_paths_stub.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
