"""The launcher's K-major copy of an N-major B / M-major A (``tileorch.launchers.k_major_copy``) for the GEMMs
whose WGMMA reads both operands K-major (tf32, fp8, int8).

* the copy programs (``k_major_copy_programs``: cuTile transposes the SIMT path compiles) transpose ragged,
  strided and batched arrays on the CPU interpreter, against numpy's transpose, outputs sentinel-filled;
* :func:`plan`'s launch (pointers, byte strides, grid) for the shapes it takes, and its refusals;
* ``_launch_gemm`` of a tf32 N-major-B program with a stand-in torch and image: the copy is launched on the
  launch's stream before the GEMM, from B's pointer into the buffer the GEMM reads, and the launch is kept
  bound with the copy (before session 43 a launch with a copy was never bound: each call took the full
  path, 1.5-2.3 ms of host time on an H100 for 4096^3); a copy tileorch cannot make is torch's, unbound,
  and the warning says so."""

from __future__ import annotations

import contextlib
import dataclasses
import sys
from types import ModuleType, SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("cuda.tile")

from tileorch.launchers import k_major_copy as kc  # noqa: E402
from tileorch.launchers import launch_copies  # noqa: E402

# ----------------------------------------------------------------------------------------------- plan


def test_plan_of_a_dense_matrix():
    kernel, grid, (x, y, tr, tc) = kc.plan(0x1000, (300, 200), (200, 1), 1, 0x9000)
    assert kernel is kc.kernels()[0] and (tr, tc) == (64, 64)
    assert grid == (5, 4, 1)  # ceil(300 / 64), ceil(200 / 64)
    assert x.__cuda_array_interface__ == {"data": (0x1000, False), "shape": (300, 200), "typestr": "|u1",
                                          "strides": (200, 1), "version": 3}
    assert y.__cuda_array_interface__ == {"data": (0x9000, False), "shape": (200, 300), "typestr": "|u1",
                                          "strides": (300, 1), "version": 3}


def test_plan_of_a_column_slice_of_f32():
    """B = W[:, 8:136] of W [64, 520] f32: its rows 520 elements (2080 bytes) apart, copied to a dense [128, 64]."""
    _, grid, (x, y, tr, tc) = kc.plan(0x2000 + 8 * 4, (64, 128), (520, 1), 4, 0xA000)
    assert (tr, tc) == (32, 64) and grid == (2, 2, 1)
    assert x.__cuda_array_interface__["strides"] == (2080, 4) and x.__cuda_array_interface__["typestr"] == "<u4"
    assert x.__cuda_array_interface__["data"][0] == 0x2020
    assert y.__cuda_array_interface__["strides"] == (256, 4)  # 64 rows of B: y [128, 64], rows 64 * 4 bytes apart


def test_plan_of_a_batch_of_matrices():
    """[2, 3, R, C] nested densely (the batch dimensions one of 6 matrices): the 3-D program, grid z = 6."""
    r, c = 40, 24
    kernel, grid, (x, y, _, _) = kc.plan(0x4000, (2, 3, r, c), (3 * 2 * r * c, 2 * r * c, c, 1), 1, 0xB000)
    assert kernel is kc.kernels()[1] and grid == (1, 1, 6)
    assert x.__cuda_array_interface__["shape"] == (6, r, c)
    assert x.__cuda_array_interface__["strides"] == (2 * r * c, c, 1)  # each matrix 2 R C apart (a strided batch)
    assert y.__cuda_array_interface__["strides"] == (r * c, r, 1)


@pytest.mark.parametrize("shape, strides, itemsize, why", [
    ((4, 3, 8, 8), (8 * 8, 4 * 64, 8, 1), 1, "batch dimensions"),  # [B0, B1] transposed: not one strided dim
    ((8, 8), (8, 1), 8, "8-byte"),
])
def test_plan_refusals_say_why(shape, strides, itemsize, why):
    got = kc.plan(0x1000, shape, strides, itemsize, 0x9000)
    assert isinstance(got, str) and why in got


# ----------------------------------------------------------------------------------------------- the programs


def _interp_run(kernel, shape, dt, strides, values, grid, tiles):
    """The copy program on the CPU lockstep interpreter (tests/unit/simt_interp.py)."""
    import test_user_sweep_interp as sweep

    from tileorch.testing.user_programs import UserProgram

    out_shape = (*shape[:-2], shape[-1], shape[-2])
    name = f"k_major_copy_{len(shape)}d_{dt}"
    sweep.PROGRAMS[name] = p = UserProgram(kernel, [(shape, dt, strides), (out_shape, dt), *tiles], grid, "simt")
    try:
        return sweep.run(name, {0: values}, p)[1]
    finally:
        sweep.PROGRAMS.pop(name, None)


@pytest.mark.parametrize("shape, dt, pad", [
    ((70, 100), "uint8", 0),  # ragged in both dimensions (64 x 64 tiles)
    ((40, 70), "uint32", 10),  # a column slice: rows 80 elements apart
])
def test_the_2d_copy_program_transposes(shape, dt, pad):
    pytest.importorskip("xdsl")
    rng = np.random.default_rng(43)
    values = rng.integers(0, 250, size=shape).astype(dt)
    strides = (shape[1] + pad, 1)
    itemsize = np.dtype(dt).itemsize
    kernel, grid, (_, _, tr, tc) = kc.plan(0x1000, shape, strides, itemsize, 0x9000)
    got = _interp_run(kernel, shape, dt, strides, values, grid, (tr, tc))
    np.testing.assert_array_equal(got, values.T)


def test_the_3d_copy_program_transposes_each_matrix():
    pytest.importorskip("xdsl")
    shape, dt = (2, 33, 70), "uint8"
    values = np.random.default_rng(7).integers(0, 250, size=shape).astype(dt)
    strides = (33 * 70, 70, 1)
    kernel, grid, (_, _, tr, tc) = kc.plan(0x1000, shape, strides, 1, 0x9000)
    assert grid[2] == 2
    got = _interp_run(kernel, shape, dt, strides, values, grid, (tr, tc))
    np.testing.assert_array_equal(got, np.swapaxes(values, 1, 2))


# ----------------------------------------------------------------------------------------------- the launch


class _Tensor:
    """What the launcher reads of a torch tensor (no memory)."""

    def __init__(self, ptr, shape, strides=None, dtype="torch.float32", itemsize=4, seen=None):
        self.ptr, self.shape, self.dtype, self.itemsize, self.seen = ptr, tuple(shape), dtype, itemsize, seen
        if strides is None:
            strides, step = [], 1
            for d in reversed(shape):
                strides.insert(0, step)
                step *= d
        self.strides, self.device = tuple(strides), "cuda:0"

    def data_ptr(self):
        return self.ptr

    def stride(self):
        return self.strides

    def element_size(self):
        return self.itemsize

    def transpose(self, i, j):
        s, st = list(self.shape), list(self.strides)
        s[i], s[j], st[i], st[j] = s[j], s[i], st[j], st[i]
        return _Tensor(self.ptr, s, st, self.dtype, self.itemsize, self.seen)

    def copy_(self, other):
        self.seen.append(("torch copy", other.ptr, other.shape, other.strides, self.ptr))


def _fake_torch(seen):
    torch = ModuleType("torch")
    torch.Tensor = _Tensor
    stream = SimpleNamespace(cuda_stream=9)
    made = iter(range(0x7000_0000, 0x8000_0000, 0x100_0000))

    def empty(shape, dtype=None, device=None):
        t = _Tensor(next(made), shape, dtype=dtype, seen=seen)
        seen.append(("empty", t.ptr, tuple(shape)))
        return t

    torch.empty = empty
    torch.cuda = SimpleNamespace(current_stream=lambda device=None: stream,
                                 default_stream=lambda device=None: SimpleNamespace(cuda_stream=0),
                                 stream=lambda on: contextlib.nullcontext(),
                                 ExternalStream=lambda handle, device=None: SimpleNamespace(cuda_stream=handle))
    return torch


class _Prepared:
    def __init__(self, seen, warned):
        self.seen = seen
        self.staging = SimpleNamespace(warn=lambda where, reasons: warned.extend(reasons))

    def launcher(self):
        return lambda stream: self.seen.append(("gemm", stream))


class _Image:
    def __init__(self, cfg, seen, warned):
        self.cfg, self.seen, self.warned = cfg, seen, warned

    def prepare(self, a_ptr, b_ptr, c_ptr, m, n, k, sms, **kw):
        self.seen.append(("prepare", a_ptr, b_ptr, c_ptr, m, n, k))
        return _Prepared(self.seen, self.warned)


M, N, K = 256, 384, 192
A_PTR, B_PTR, C_PTR = 1 << 32, 2 << 32, 3 << 32


@pytest.fixture(scope="module")
def tf32_n_major_program():
    from tileorch.testing.dot_programs import PROGRAMS
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS["gemm_tf32_n_major_b"]
    spec = [((M, K), "float32"), ((K, N), "float32"), ((M, N), "float32"), *p.tiles]
    prog = compile_cutile(p.kernel, spec, "gemm_tf32_n_major_b")
    assert prog.kind == "gemm" and prog.gemm_config.transpose_b, prog.gemm_config
    return p.kernel, spec, prog


def _launch(monkeypatch, program, copy_launch):
    """``_launch_gemm`` of the program once, with the call key ``("key",)``; the copy's ``tileorch.cutile.launch``
    replaced by ``copy_launch``.  Returns (what ran, the warning's reasons, the torch tensors)."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import cutile_bound
    from tileorch.testing.export import FakeDeviceArray

    kernel, spec, prog = program
    seen, warned = [], []
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(seen))
    monkeypatch.setattr(rc, "launch", copy_launch(seen))
    monkeypatch.setattr(rc, "_prepared", type(rc._prepared)())
    monkeypatch.setattr(cutile_bound, "bound_launches", {})
    monkeypatch.setitem(launch_copies._pools, "k_major", type(launch_copies.held("k_major"))())
    ptrs = (A_PTR, B_PTR, C_PTR)
    arguments = rc.describe_arguments(kernel, tuple(FakeDeviceArray(ptrs[i], s[0]) if isinstance(s, tuple) else s
                                                    for i, s in enumerate(spec)))
    arguments = [dataclasses.replace(a, dtype="float32") if isinstance(a, rc.ArrayArg) else a for a in arguments]
    tensors = tuple(_Tensor(ptrs[i], s[0], seen=seen) for i, s in enumerate(spec[:3]))

    def compiled(*a, **k):  # (no recompile is asked for: tiles="program" keeps the program's own kernel)
        raise AssertionError(f"compiled again: {a[3:]}")

    monkeypatch.setattr(rc, "compiled", compiled)
    entry = rc._Compiled(prog, image=_Image(prog.gemm_config, seen, warned))
    dev = SimpleNamespace(sm_count=132)
    rc._launch_gemm(entry, kernel, arguments, "sm_90a", "persistent", 9, dev, False, "program",
                    (*tensors, *spec[3:]), ("key",), grid=(M // 128, N // 128, 1))
    return seen, warned, cutile_bound.bound_launches


def _recording_launch(seen):
    from tileorch.launchers import cutile_bound

    def launch(stream, grid, kernel, args):  # a first launch: kept bound under its key, as the launcher does
        def go(handle):
            seen.append(("copy", handle, grid, args[0].__cuda_array_interface__, args[1].__cuda_array_interface__))
        go(stream)
        cutile_bound.keep(cutile_bound.call_key(kernel, grid, args, "sm_90a", "auto", "auto"), go)
    return launch


def test_the_copy_runs_before_the_gemm_and_the_launch_is_kept_bound_with_it(monkeypatch, tf32_n_major_program):
    seen, warned, bound = _launch(monkeypatch, tf32_n_major_program, _recording_launch)
    (buf,) = [e[1] for e in seen if e[0] == "empty"]
    x = {"data": (B_PTR, False), "shape": (K, N), "typestr": "<u4", "strides": (N * 4, 4), "version": 3}
    y = {"data": (buf, False), "shape": (N, K), "typestr": "<u4", "strides": (K * 4, 4), "version": 3}
    ran = [e for e in seen if e[0] in ("copy", "gemm", "prepare")]
    assert ran == [("copy", 9, (-(-K // 32), -(-N // 64), 1), x, y), ("prepare", A_PTR, buf, C_PTR, M, N, K),
                   ("gemm", 9)]
    assert not any(e[0] == "torch copy" for e in seen)
    assert len(warned) == 1 and "tileorch's copy program k_major_copy_2d" in warned[0], warned
    # the next call with these arguments: the bound launch enqueues the copy, then the GEMM, on its stream
    del seen[:]
    bound[("key",)](9)
    assert seen == [("copy", 9, (-(-K // 32), -(-N // 64), 1), x, y), ("gemm", 9)]
    # on another stream: the buffer is stream 9's, so the replay is ordered after stream 9's work and stream 9's
    # later work after it (before session 43's review it wrote stream 9's buffer from stream 11 unordered)
    from tileorch.launchers import launch_copies as stream_home

    monkeypatch.setattr(stream_home, "order_after", lambda waiter, on: seen.append(("wait", waiter, on)))
    del seen[:]
    with pytest.warns(Warning, match="kept bound on stream 9 was replayed on stream 11"):
        bound[("key",)](11)
    assert seen == [("wait", 11, 9), ("copy", 11, (-(-K // 32), -(-N // 64), 1), x, y), ("gemm", 11),
                    ("wait", 9, 11)]


def test_two_gemms_bound_to_one_streams_buffer_never_write_it_from_two_streams_at_once(monkeypatch,
                                                                                      tf32_n_major_program):
    """Review of session 43 (HIGH): two GEMMs X and Z with different A, B, C of the same shapes, both first launched
    on stream 9, are bound to stream 9's one K-major buffer.  X replayed on stream 11 while Z runs on stream 9 wrote
    that buffer from both streams at once (wrong results, no error).  Every use of the buffer from another stream
    must now be ordered with stream 9: the stream waits for stream 9 before the copy, and stream 9 for it after
    the GEMM."""
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import cutile_bound
    from tileorch.launchers import launch_copies as stream_home
    from tileorch.testing.export import FakeDeviceArray

    kernel, spec, prog = tf32_n_major_program
    seen, warned = [], []
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(seen))
    monkeypatch.setattr(rc, "launch", _recording_launch(seen))
    monkeypatch.setattr(rc, "_prepared", type(rc._prepared)())
    monkeypatch.setattr(cutile_bound, "bound_launches", {})
    monkeypatch.setitem(launch_copies._pools, "k_major", type(launch_copies.held("k_major"))())
    monkeypatch.setattr(rc, "compiled", lambda *a, **k: pytest.fail("compiled again"))
    monkeypatch.setattr(stream_home, "order_after", lambda waiter, on: seen.append(("wait", waiter, on)))
    entry = rc._Compiled(prog, image=_Image(prog.gemm_config, seen, warned))
    for tag, base in (("X", 1 << 36), ("Z", 2 << 36)):
        ptrs = (base + A_PTR, base + B_PTR, base + C_PTR)
        arguments = rc.describe_arguments(kernel, tuple(FakeDeviceArray(ptrs[i], s[0]) if isinstance(s, tuple) else s
                                                        for i, s in enumerate(spec)))
        arguments = [dataclasses.replace(a, dtype="float32") if isinstance(a, rc.ArrayArg) else a for a in arguments]
        tensors = tuple(_Tensor(ptrs[i], s[0], seen=seen) for i, s in enumerate(spec[:3]))
        rc._launch_gemm(entry, kernel, arguments, "sm_90a", "persistent", 9, SimpleNamespace(sm_count=132), False,
                        "program", (*tensors, *spec[3:]), (tag,), grid=(M // 128, N // 128, 1))
    bufs = {e[1] for e in seen if e[0] == "empty"}
    assert len(bufs) == 1  # (one buffer per stream and shape: both launches write it)
    del seen[:]
    with pytest.warns(Warning, match="replayed on stream 11"):
        cutile_bound.bound_launches[("X",)](11)
    cutile_bound.bound_launches[("Z",)](9)
    # from stream 11 the buffer is written only between a wait for stream 9 and stream 9's wait for stream 11
    writes = [(i, e[1]) for i, e in enumerate(seen) if e[0] in ("copy", "gemm")]
    for i, stream in writes:
        if stream != 9:
            assert ("wait", stream, 9) in seen[:i], seen
            assert ("wait", 9, stream) in seen[i:], seen
            later9 = [j for j, s_ in writes if s_ == 9 and j > i]
            assert all(seen.index(("wait", 9, stream)) < j for j in later9), seen
    assert [e[1] for e in seen if e[0] == "copy"] == [11, 9]


def test_a_copy_tileorch_cannot_make_is_torchs_and_not_bound(monkeypatch, tf32_n_major_program):
    def refusing(seen):
        def launch(stream, grid, kernel, args):
            raise RuntimeError("no GPU here")
        return launch

    seen, warned, bound = _launch(monkeypatch, tf32_n_major_program, refusing)
    (buf,) = [e[1] for e in seen if e[0] == "empty"]
    assert [e for e in seen if e[0] != "empty"] == [("torch copy", B_PTR, (N, K), (1, N), buf),
                                                   ("prepare", A_PTR, buf, C_PTR, M, N, K), ("gemm", 9)]
    assert ("key",) not in bound
    assert "torch's copy" in warned[0] and "not kept bound" in warned[0] and "no GPU here" in warned[0]


def test_with_copies_orders_every_copy_before_the_gemm():
    seen = []
    go = launch_copies.sequence([lambda h: seen.append(("b", h)), lambda h: seen.append(("a", h))],
                        lambda h: seen.append(("gemm", h)))
    go(5)
    assert seen == [("b", 5), ("a", 5), ("gemm", 5)]


def test_the_bound_launch_keeps_its_buffer_alive(monkeypatch, tf32_n_major_program):
    """The buffers are dropped past ``launch_copies.LIMITS["k_major"]`` (or by clear_caches); a launch kept bound
    still writes its buffer (by pointer), so the buffer must live as long as that launch: freed, torch's allocator
    would hand the memory to another tensor, which the bound copy would then overwrite."""
    import gc
    import weakref

    seen, _warned, bound = _launch(monkeypatch, tf32_n_major_program, _recording_launch)
    (buf,) = launch_copies.held("k_major").values()
    alive = weakref.ref(buf)
    del buf
    launch_copies.forget("k_major")
    gc.collect()
    assert alive() is not None, "the K-major buffer was freed while a launch bound with it is kept"
    del bound[("key",)]
    gc.collect()
    assert alive() is None  # (and no longer once the launch is dropped)


def test_plan_ignores_batch_dimensions_of_extent_one():
    """[1, 6, R, C] whose extent-1 dimension has any stride (a view of a larger array): still 6 matrices, each
    2 R C apart; [6, 1, R, C] likewise."""
    r, c = 40, 24
    for shape, strides in (((1, 6, r, c), (12345, 2 * r * c, c, 1)), ((6, 1, r, c), (2 * r * c, 777, c, 1))):
        found = kc.plan(0x4000, shape, strides, 4, 0xB000)
        assert not isinstance(found, str), found
        _, grid, (x, _, _, _) = found
        assert grid[2] == 6 and x.__cuda_array_interface__["strides"][0] == 2 * r * c * 4
