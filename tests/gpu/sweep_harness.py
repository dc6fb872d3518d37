"""The GPU run of a user sweep's numpy-referenced CPU tests (sweeps 10 and 12): :func:`gpu_run`
has ``test_user_sweep_interp.run``'s contract on the GPU, for the programs of one sweep's table.

Program ``name`` of ``programs`` is launched by ``tileorch.cutile.launch`` on its spec's shapes and
grid, ``inputs`` (argument position -> numpy array or scalar) given, every other array the fill of
the interpreter's runs (NaN, the integer type's minimum / unsigned maximum, the fp8 NaN byte 0x7F,
the byte 2 for bool: neither False nor True); each array lies inside a larger buffer of the fill
whose :data:`TAIL` must stay the fill.  Returns every array argument after the run (host numpy:
bf16 as float32 values, fp8 and bool as their bytes), and checks that the compiled program took
the path its table entry names and that the launch ran it (tileorch.testing.launch_path: the launcher's record of
the path the launch ran; a tier program whose launch fell back to the SIMT path fails).  A spec entry ``(shape, dtype, strides)`` is a strided view of a buffer the
fill spans (test_user_sweep_interp.strided_buffer).  Needs torch, a GPU, cuda-tile and ml_dtypes (the test modules
skip without them before importing this one)."""

from __future__ import annotations

import numpy as np
import test_user_sweep_gpu as sweep
import test_user_sweep_interp as interp
import torch

import tileorch.cutile
from tileorch.testing import launch_path

sweep.DT.update({"uint16": torch.uint16, "uint64": torch.uint64, "float8_e5m2": torch.float8_e5m2})

TAIL = 256
"""Spare elements of the fill after each array (must stay the fill)."""


def _storage(dtype: str):
    """The numpy type holding an element's bits on the host (bf16: uint16, fp8 and bool: uint8)."""
    return np.uint16 if dtype == "bfloat16" else np.uint8 if dtype in ("bool_", "float8_e4m3fn", "float8_e5m2") \
        else interp.NP[dtype]


def _host(value, dtype: str) -> np.ndarray:
    """An input (numpy, bf16 as float32 values, fp8 as its bytes, bool as bool or 0/1) as host bits."""
    if dtype == "bfloat16":
        return interp._bf16_bits(value)
    return np.asarray(value, np.uint8 if dtype == "bool_" else _storage(dtype))


def gpu_run(programs: dict, name: str, inputs: dict, ran: str | None = None) -> dict:
    """Run ``programs[name]`` on the GPU (see the module docstring); the compile must take the path of the program's
    table entry and the launch run it (``ran``: a launch the test expects to run another path, e.g. ``"simt"`` for
    arrays the tensor maps cannot address; tileorch.testing.launch_path)."""
    p = programs[name]
    args, placed = [], []
    for i, s in enumerate(p.spec):
        if not isinstance(s, tuple):
            args.append(inputs.get(i, s))
            continue
        if len(s) == 3:  # (shape, dtype, strides): a strided view (test_user_sweep_interp.strided_buffer)
            shape, dtype, strides = s
            flat, view = interp.strided_buffer(shape, dtype, strides, inputs.get(i))
            n = flat.size
            host = np.concatenate([flat, interp._empty((TAIL,), dtype)])
            device = torch.from_numpy(host.view(np.uint8).copy()).cuda().view(sweep.DT[dtype])
            args.append(torch.as_strided(device, tuple(shape), tuple(strides)))
            placed.append((i, device, view, dtype, n, host[n:].copy()))
            continue
        shape, dtype = s
        n = int(np.prod(shape, dtype=np.int64))
        host = interp._empty((n + TAIL,), dtype)
        if i in inputs:
            given = _host(inputs[i], dtype)
            assert given.shape == tuple(shape), (name, i, given.shape, shape)
            host[:n] = given.reshape(-1)
        device = torch.from_numpy(host.view(np.uint8).copy()).cuda().view(sweep.DT[dtype])
        args.append(device[:n].view(shape))
        placed.append((i, device, shape, dtype, n, host[n:].copy()))
    def go():
        tileorch.cutile.launch(torch.cuda.current_stream(), p.grid, p.kernel, tuple(args))
        torch.cuda.synchronize()

    # the path the launch ran (the launcher's record), not only the compile's: a launch-time SIMT fall back fails
    launch_path.checked_launch(name, p.path, p.kernel, p.grid, args, go, ran=ran)
    out = {}
    for i, device, shape, dtype, n, tail in placed:
        back = device.view(torch.uint8).cpu().numpy().view(_storage(dtype))
        assert np.array_equal(back[n:].view(np.uint8), tail.view(np.uint8)), f"{name}: argument {i} written past its end"
        got = shape(back[:n]) if callable(shape) else back[:n].reshape(shape)
        out[i] = interp._bf16_value(got) if dtype == "bfloat16" else got
    return out


def generator(seed: int):
    """A CUDA ``torch.Generator`` seeded with ``seed`` (the torch-referenced kernels' inputs)."""
    return torch.Generator(device="cuda").manual_seed(seed)


def launch(grid, kernel, args) -> None:
    """``tileorch.cutile.launch`` on the current stream, then a synchronize."""
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()


def filled(shape, dtype):
    """A CUDA tensor of ``shape`` holding the fill an output starts as: NaN for floats, the minimum
    of a signed integer type, the maximum of an unsigned one."""
    if dtype.is_floating_point:
        return torch.full(shape, float("nan"), device="cuda", dtype=dtype)
    info = torch.iinfo(dtype)
    return torch.full(shape, info.min if info.min < 0 else info.max, device="cuda", dtype=dtype)


def numpy_reference_tests(programs: dict, references, each=None):
    """The two tests a sweep's GPU file runs on its CPU test module ``references`` (its ``run``
    swapped for :func:`gpu_run` of ``programs``): every program has a test there, and each of its
    ``test_`` functions passes on the GPU (called through ``each(test)`` when given: a module whose
    parametrized tests need their cases).  A file binds them to its ``test_`` names."""
    import inspect

    import pytest

    def test_every_program_has_a_test():
        source = inspect.getsource(references)
        assert all(f'run("{name}"' in source for name in programs), [n for n in programs if f'run("{n}"' not in source]

    @pytest.mark.parametrize("test", sorted(n for n in dir(references) if n.startswith("test_")))
    def test_on_the_gpu_against_numpy(test, monkeypatch):
        monkeypatch.setattr(references, "run", lambda name, inputs: gpu_run(programs, name, inputs))
        (each or (lambda fn: fn()))(getattr(references, test))

    return test_every_program_has_a_test, test_on_the_gpu_against_numpy


__all__ = ["TAIL", "filled", "generator", "gpu_run", "launch", "numpy_reference_tests"]
