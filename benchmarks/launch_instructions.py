"""Instructions per repeated launch call with the CUDA driver stubbed, counted by callgrind
(deterministic, unlike wall times on a shared machine): the Python a repeated
``tileorch.cutile.launch`` or ``tileorch.gemm`` call runs (issue 22).

Usage::

    python benchmarks/launch_instructions.py [--calls 2000] [--cases cutile_cai,cutile_tensor,...]

Each case runs in a child process under ``valgrind --tool=callgrind --instr-atstart=no``: the
child makes the calls of its warm-up (compiling nothing: ``launch_overhead.stubbed_cutile``),
then turns the instrumentation on around ``--calls`` repeated calls through callgrind's client
requests (a helper compiled with ``cc`` from ``<valgrind/callgrind.h>`` into ``build/``), so
imports and warm-up are not counted; the report is the collected instructions / calls.

Each case calls the public entry (``tileorch.cutile.launch``, ``tileorch.gemm``), so what a
wrapper around the launcher costs is counted.

Cases:

* ``cutile_cai``: ``scale(x, y, 2.0, 1024)`` with arrays exposing ``__cuda_array_interface__``,
  an int stream;
* ``cutile_tensor``: the same with stand-in ``torch.Tensor`` objects (a class registered as
  ``torch.Tensor``; its reads are Python-level, where torch's are C getters);
* ``cutile_torch_stream``: ``cutile_tensor`` on a stand-in ``torch.cuda.Stream``;
* ``cutile_new_arrays``: ``cutile_cai`` with an ``x`` not seen in the last 512 calls at each call
  (16-byte aligned addresses; more than the launcher keeps bound);
* ``cutile_tensor_new_arrays``: ``cutile_tensor`` with an ``x`` not seen in the last 512 calls
  (the re-pointed launch of the usual PyTorch pattern: new tensors of the same shapes each call);
* ``gemm``: ``tileorch.gemm(a, b, c)`` against the stand-in torch and driver of
  ``tests/unit/test_gemm_bound.py``;
* ``cutile_cai_hot``: ``cutile_cai``'s call made to the kernel's hot launcher itself (what the public
  entry's own Python frame costs is the difference).

Needs valgrind, its headers and cc; cuTile Python for the cutile cases.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import itertools
import os
import re
import subprocess
import sys
import tempfile
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ("cutile_cai", "cutile_tensor", "cutile_torch_stream", "cutile_new_arrays", "cutile_tensor_new_arrays", "gemm",
         "cutile_cai_hot")
_HELPER_SOURCE = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; CALLGRIND_START_INSTRUMENTATION; }
void cg_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; CALLGRIND_DUMP_STATS; }
"""


def helper(build: Path) -> Path:
    """The client-request helper library (compiled once into ``build``)."""
    lib = build / "libcallgrind_requests.so"
    if not lib.exists():
        build.mkdir(parents=True, exist_ok=True)
        src = build / "callgrind_requests.c"
        src.write_text(_HELPER_SOURCE)
        subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return lib


class _Tensor:
    """A stand-in torch tensor: the facts the launchers read."""

    __slots__ = ("_ptr", "shape", "_strides", "dtype", "device", "is_cuda")

    def __init__(self, ptr: int, n: int):
        self._ptr, self.shape, self._strides, self.dtype, self.device = ptr, (n,), (1,), "torch.float32", "cuda:0"
        self.is_cuda = True

    def data_ptr(self) -> int:
        return self._ptr

    def stride(self) -> tuple[int, ...]:
        return self._strides


def _cutile_calls(case: str):
    """(a context manager, the function of one repeated call) of a cutile case."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import launch_overhead as lo

    stream = 0
    tensors = case in ("cutile_tensor", "cutile_torch_stream", "cutile_tensor_new_arrays")
    if tensors:
        sys.modules["torch"] = types.SimpleNamespace(Tensor=_Tensor, __name__="torch")
    if case == "cutile_torch_stream":
        stream_type = type("Stream", (), {"cuda_stream": 0})
        sys.modules["torch.cuda"] = types.SimpleNamespace(Stream=stream_type, ExternalStream=None)
        stream = stream_type()
    context = lo.stubbed_cutile()
    _, scale, dev = context.__enter__()
    array = _Tensor if tensors else dev
    args = (array(0x7F0000000000, 1 << 20), array(0x7F0001000000, 1 << 20), 2.0, 1024)
    import tileorch.cutile

    launch = tileorch.cutile.launch  # the public entry (the launcher's own function since s9-launch)
    if case == "cutile_cai_hot":
        from tileorch.launchers import cutile_bound as cb

        launch(stream, (1024,), scale, args)
        hot = cb.hot_launchers[scale]
        return context, lambda: hot(stream, (1024,), args, "sm_90a", "auto", "auto")
    if case in ("cutile_new_arrays", "cutile_tensor_new_arrays"):
        fresh = itertools.cycle([(array(0x7E0000000000 + (i << 22), 1 << 20), *args[1:]) for i in range(lo.FRESH)])
        return context, lambda: launch(stream, (1024,), scale, next(fresh))
    return context, lambda: launch(stream, (1024,), scale, args)


def _gemm_calls():
    spec = importlib.util.spec_from_file_location("gemm_bound_stand_ins", ROOT / "tests/unit/test_gemm_bound.py")
    t = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(t)
    import struct

    from tileorch.launchers import gemm as gapi
    from tileorch.launchers import gemm_host
    from tileorch.runtime.driver import use_api

    ns = types.SimpleNamespace
    torch = ns(__name__="torch", Tensor=t.Tensor, float16=t.F16, bfloat16=t.BF16, float32=t.F32, uint8=t.U8,
               empty=lambda shape, dtype=t.F16, device=t.CUDA0: t.Tensor(shape, dtype, device=device),
               cuda=ns(get_device_capability=lambda device=None: (9, 0),
                       get_device_properties=lambda device=None: ns(multi_processor_count=132)),
               _C=ns(_cuda_getCurrentRawStream=lambda index: 0x51))
    sys.modules["torch"] = torch
    gapi._TORCH = torch
    gemm_host.encode_tensor_map = lambda ptr, *a, **k: struct.pack("<Q", ptr) + bytes(120)

    def kernel_for(cfg):
        if cfg not in gapi._kernels:
            kernel = gemm_host.GemmKernel(cfg, b"\x7fELF stand-in cubin")
            kernel._mac = 66
            gapi._kernels[cfg] = kernel
        return gapi._kernels[cfg]

    gapi.kernel_for = kernel_for
    drv = t.Driver()
    drv.cuLaunchKernelEx = lambda config, fn, params, extra: (0,)
    a, b, c = t.Tensor((256, 512)), t.Tensor((512, 384)), t.Tensor((256, 384))
    import tileorch

    gemm = tileorch.gemm  # the public entry (tileorch.launchers.gemm.gemm itself since s9-launch)
    return use_api(drv), lambda: gemm(a, b, c)


def child(case: str, calls: int, lib: Path) -> None:
    """Warm up, then ``calls`` calls with callgrind's instrumentation on."""
    if case == "gemm":
        context, call = _gemm_calls()
        context.__enter__()
    else:
        context, call = _cutile_calls(case)
    for _ in range(3):
        call()
    requests = ctypes.CDLL(str(lib))
    requests.cg_start()
    for _ in range(calls):
        call()
    requests.cg_stop()
    context.__exit__(None, None, None)


def count(case: str, calls: int, lib: Path) -> int:
    """Instructions per call of ``case`` (a child under callgrind)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        env = dict(os.environ, LAUNCH_INSTRUCTIONS_CHILD=case)
        env.setdefault("PYTHONHASHSEED", "0")  # the same dict probes at every run
        subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
                        sys.executable, __file__, "--calls", str(calls), "--helper", str(lib)],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        total = sum(int(m) for f in Path(tmp).glob("callgrind.out*")
                    for m in re.findall(r"^totals:\s+(\d+)", f.read_text(), re.M))
    return total // calls


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--helper", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    case = os.environ.get("LAUNCH_INSTRUCTIONS_CHILD")
    if case:
        child(case, args.calls, Path(args.helper))
        return 0
    lib = helper(ROOT / "build" / "launch_instructions")
    for case in args.cases.split(","):
        print(f"{case:22s} {count(case, args.calls, lib):7d} instructions per call", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
