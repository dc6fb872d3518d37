"""The copies a launch makes around its kernel, and the scratch buffers they write: one mechanism for the launcher.

Five launch-time copies keep programs on the tensor-core path where an operand's layout is one the kernel cannot
read or write in place (sessions 42-43):

* the K-major copy of an N-major B / M-major A (:mod:`tileorch.launchers.k_major_copy`): a dense ``[..., C, R]``
  torch tensor (role ``k_major``, layout: operand, shape, dtype, device), written by tileorch's transpose program
  (or torch's copy) before the GEMM;
* the aligned copy of a K vector's array TMA cannot read in place (``cutile.kvec_copies``): rows padded to 16 bytes
  (role ``kvec``, layout: argument position, shape, strides, dtype), one 2-D copy before the GEMM;
* the packed scratch C of a batched C whose matrices are not stacked (``cutile`` c_scatter): ``[L, M, N]`` (role
  ``c_scatter``, layout: its bytes), copied into C after the GEMM (and C into it before, where the launch grid
  covers part of C: :func:`reversed_copies`);
* the padded copy of a chained (attention) program's array TMA cannot address (``cutile.chained_copies``): rows
  padded to 16 bytes, N-D (role ``padded``, layout: argument position, shape, strides, dtype), before the kernel;
* the key-major copy of a chained program's fp8 V (``cutile.chained_copies``, session 45): ``[..., S, D]`` as
  ``[..., D, S16]`` with each 16 keys permuted as the fp8 register-A fragment of P holds them (role
  ``key_major16``, layout: argument position, shape, strides, dtype; :func:`key_major16`), before the kernel.

Every scratch buffer is one per (role, layout, bytes, **stream**) (:func:`scratch`): launches of one stream share
it in stream order (each launch's copies write it after the previous launch's kernel read it, on the same stream),
new arrays each call do not keep a buffer each, and at most :data:`LIMITS` ``[role]`` are kept here (a launch kept
bound keeps its own alive).  The copies are enqueued on the launch's stream handle: 2-D copies by
``cuMemcpy2DAsync`` (:func:`run_2d`), the K-major copy by tileorch's transpose program or torch's copy on torch's
object for that stream.  A launch kept bound with copies is one function (:func:`sequence`: the copies, then the
kernel's launch -- a prepared GEMM's makes its own 2-D copies in and out around the kernel -- on one stream
handle), and since its scratch is its stream's, a replay of it on another
stream is ordered with that stream (:func:`homed`).  Each decision is said by the launcher as a launch remark and,
once per program, a PerformanceWarning at the kernel's line (:func:`warn_once`).

(The GEMM host's own staging of operands whose rows TMA cannot take, ``gemm_host.StagingPlan``, keeps its buffers
per prepared launch: the launches of one prepared GEMM have equal arguments, so they write the same C.)

Known limits of :func:`homed` (review of session 43): the replay records and waits on the home stream's handle, so
that stream must still exist (a bound launch made on a temporary cupy / cuda-python stream that was destroyed, then
replayed with equal arguments on another stream, uses a dangling handle); and a replay on a stream being captured
into a CUDA graph pulls the home stream into the capture."""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

Copy2D = tuple[int, int, int, int, int, int]
"""``(src, src pitch, dst, dst pitch, width, rows)`` in bytes: one ``cuMemcpy2DAsync``."""

LIMITS = {"k_major": 8, "kvec": 8, "c_scatter": 4, "padded": 8, "key_major16": 8}
"""Scratch buffers kept per role (the oldest dropped first; the launches that write one keep it alive)."""

_pools: dict[str, OrderedDict] = {role: OrderedDict() for role in LIMITS}


def scratch(role: str, layout: tuple, nbytes: int, stream: int, alloc: Callable[[int], Any] | None = None) -> Any:
    """The scratch buffer of ``role`` for ``layout`` (what tells two of one launch apart: an argument's position,
    shape, strides, dtype) of ``nbytes`` on ``stream``, shared by the launches of that layout on that stream.
    ``alloc(nbytes)`` makes it (default :class:`~tileorch.runtime.buffers.DeviceBuffer`)."""
    pool = _pools[role]
    key = (layout, nbytes, stream)
    buf = pool.get(key)
    if buf is None:
        if alloc is None:
            from tileorch.runtime import buffers

            alloc = buffers.DeviceBuffer
        buf = pool[key] = alloc(nbytes)
        while len(pool) > LIMITS[role]:
            pool.popitem(last=False)
    pool.move_to_end(key)
    return buf


def held(role: str) -> OrderedDict:
    """The scratch buffers of ``role`` kept here: ``(layout, nbytes, stream) -> buffer``, oldest first."""
    return _pools[role]


def forget(*roles: str) -> None:
    """Drop the scratch buffers of ``roles`` (all when none is named); launches kept bound keep theirs."""
    for role in roles or tuple(_pools):
        _pools[role].clear()


# ----------------------------------------------------------------------------------------------- planning


def padded_pitch(width: int) -> int:
    """A row of ``width`` bytes rounded up to a multiple of 16 (what TMA's row strides need)."""
    return -(-width // 16) * 16


def padded_layout(shape: Sequence[int], itemsize: int) -> tuple[int, tuple[int, ...], int]:
    """(pitch in bytes, strides in elements, bytes) of the packed copy of an N-D array of ``shape`` whose rows (its
    last dimension) are padded to a multiple of 16 bytes."""
    nd = len(shape)
    pitch = padded_pitch(shape[-1] * itemsize)
    packed = [1] * nd
    if nd > 1:
        packed[-2] = pitch // itemsize
        for i in range(nd - 3, -1, -1):
            packed[i] = packed[i + 1] * shape[i + 1]
    rows = math.prod(shape[:-1]) if nd > 1 else 1
    return pitch, tuple(packed), pitch * rows


def padded_copies(ptr: int, shape: Sequence[int], strides: Sequence[int], itemsize: int, dst: int) -> list[Copy2D]:
    """The 2-D copies of the array at ``ptr`` (``strides`` in elements, its last dimension contiguous) into its
    packed copy at ``dst`` (:func:`padded_layout`): one where the outer dimensions are rows of rows, else one per
    outer index."""
    es, nd = itemsize, len(shape)
    width = shape[-1] * es
    pitch, packed, _ = padded_layout(shape, es)
    rows = shape[-2] if nd > 1 else 1
    outer = tuple(shape[:-2])
    spitch = strides[-2] * es if nd > 1 and rows > 1 else width
    real = [i for i in range(nd - 2) if shape[i] > 1]  # (an extent-1 dimension's stride is never used)
    inner = rows * (strides[-2] if nd > 1 and rows > 1 else shape[-1])
    if all(strides[i] == inner * math.prod(shape[i + 1:nd - 2]) for i in real):  # rows of rows: one copy
        return [(ptr, spitch, dst, pitch, width, rows * math.prod(outer))]
    copies = []
    for idx in itertools.product(*(range(d) for d in outer)):
        src = ptr + sum(i * st for i, st in zip(idx, strides)) * es
        copies.append((src, spitch, dst + sum(i * st for i, st in zip(idx, packed)) * es, pitch, width, rows))
    return copies


def padded(role: str, array: Any, stream: int, alloc: Callable[[int], Any] | None = None) -> tuple[Any, list, Any]:
    """The padded copy of ``array`` (the launcher's ``ArrayArg``): (the array re-described at its copy, the 2-D
    copies that make it, the buffer).  The buffer is the stream's scratch of ``role`` for the array's position and
    layout (:func:`scratch`), or ``alloc(nbytes)``'s own when given."""
    import dataclasses

    _, packed, nbytes = padded_layout(array.shape, array.itemsize)
    if alloc is None:
        buf = scratch(role, (array.position, tuple(array.shape), tuple(array.strides), array.dtype), nbytes, stream)
    else:
        buf = alloc(nbytes)
    copies = padded_copies(array.ptr, array.shape, array.strides, array.itemsize, buf.ptr)
    return dataclasses.replace(array, ptr=buf.ptr, strides=packed), copies, buf


def unpacking_copies(c: Any, scratch: int) -> list[Copy2D]:
    """The 2-D copies from a packed ``[L, M, N]`` scratch at ``scratch`` into the launcher's array ``c`` (``[L, M, N]``,
    strides in elements, contiguous along N, its matrices not stacked: ``cutile.scattered_c``): one per matrix, or one
    for all of them where C's rows are ``N`` apart (each matrix one row of ``M N`` elements, C's batch stride the
    destination's pitch)."""
    count, rows, cols = c.shape
    es = c.itemsize
    if rows == 1 or c.strides[1] == cols:  # (each matrix contiguous: one copy of L rows of M N elements)
        whole = rows * cols * es
        return [(scratch, whole, c.ptr, c.strides[0] * es if count > 1 else whole, whole, count)]
    return [(scratch + l * rows * cols * es, cols * es, c.ptr + l * c.strides[0] * es, c.strides[1] * es, cols * es,
             rows) for l in range(count)]


def reversed_copies(copies: Sequence[Copy2D]) -> list[Copy2D]:
    """Each copy the other way (destination to source): the copy in of what ``copies`` copy out, so the parts of the
    destination a kernel does not write come back unchanged."""
    return [(d, dp, s, sp, w, r) for s, sp, d, dp, w, r in copies]


# ----------------------------------------------------------------------------------------------- key-major V

KEY_MAJOR16 = "key_major16"
"""A chained kernel's tensor map of this ``copy`` (``record["tmaps"][i]["copy"]``, set by
``tileas/chained_dots.py``'s ``KEY_MAJOR_COPY``: an fp8 ``P @ V``) reads :func:`key_major16` of its array."""


def key_major16_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """The shape of :func:`key_major16`'s copy of a ``[..., S, D]`` array: ``[..., D, S16]`` (S rounded up to 16)."""
    *lead, s, d = shape
    return (*lead, d, -(-s // 16) * 16)


def key_major16_axes(nd: int) -> tuple[int, ...]:
    """The axis order taking ``[lead (nd - 2 axes), S16 / 16, i1, t, i0, D]`` (key ``16 b + 8 i1 + 2 t + i0``) to
    ``[lead, D, S16 / 16, t, i1, i0]`` (position ``16 b + 4 t + 2 i1 + i0``): the fp8 register-A fragment's key
    order (``tileas/pack16.py`` ``fp8_key_of_position``)."""
    lead = nd - 2
    return (*range(lead), lead + 4, lead, lead + 2, lead + 1, lead + 3)


def key_major16(x: Any) -> Any:
    """The key-major copy of a ``[..., S, D]`` numpy array (an fp8 V, or its bytes): ``[..., D, S16]``, zeros past S,
    copy column ``16 b + 4 t + 2 i1 + i0`` holding key ``16 b + 8 i1 + 2 t + i0`` (:func:`key_major16_axes`).  The
    emulated tests' reference of the launch's copy (:func:`key_major16_torch` on the device)."""
    import numpy as np

    *lead, s, d = x.shape
    s16 = key_major16_shape(x.shape)[-1]
    if s16 != s:
        x = np.concatenate([x, np.zeros((*lead, s16 - s, d), dtype=x.dtype)], axis=-2)
    y = x.reshape(*lead, s16 // 16, 2, 4, 2, d).transpose(key_major16_axes(x.ndim))
    return np.ascontiguousarray(y).reshape(*lead, d, s16)


def key_major16_torch(torch: Any, x: Any, out: Any) -> None:
    """:func:`key_major16` of the torch tensor ``x`` ``[..., S, D]`` into the dense ``out`` ``[..., D, S16]`` (on the
    current torch stream): one strided copy (a padded staging copy first where S is not a multiple of 16)."""
    *lead, s, d = x.shape
    s16 = out.shape[-1]
    if s16 != s:
        padded_x = torch.zeros((*lead, s16, d), dtype=x.dtype, device=x.device)
        padded_x[..., :s, :].copy_(x)
        x = padded_x
    src = x.reshape(*lead, s16 // 16, 2, 4, 2, d).permute(*key_major16_axes(x.dim()))
    out.view(*lead, d, s16 // 16, 4, 2, 2).copy_(src)


# ----------------------------------------------------------------------------------------------- running


def run_2d(copies: Sequence[Copy2D], stream: int) -> None:
    """Enqueue each 2-D device copy on ``stream`` (``cuMemcpy2DAsync``), in order."""
    if not copies:
        return
    from cuda.bindings import driver as drv

    from tileorch.runtime.driver import check

    for src, spitch, dst, dpitch, width, rows in copies:
        cp = drv.CUDA_MEMCPY2D()
        cp.srcMemoryType = drv.CUmemorytype.CU_MEMORYTYPE_DEVICE
        cp.dstMemoryType = drv.CUmemorytype.CU_MEMORYTYPE_DEVICE
        cp.srcDevice, cp.srcPitch = drv.CUdeviceptr(src), spitch
        cp.dstDevice, cp.dstPitch = drv.CUdeviceptr(dst), dpitch
        cp.WidthInBytes, cp.Height = width, rows
        check(drv.cuMemcpy2DAsync(cp, drv.CUstream(stream)), "cuMemcpy2DAsync(staged GEMM operand)")


def copier_2d(copies: Sequence[Copy2D], keep: Sequence[Any] = ()) -> Callable[[int], None]:
    """``go(stream)`` enqueuing ``copies`` (:func:`run_2d`, looked up at each call); it keeps ``keep`` (the
    buffers they write) alive as long as it is kept."""
    def go(stream: int, _copies: Sequence[Copy2D] = copies, _keep: Sequence[Any] = keep) -> None:
        run_2d(_copies, stream)

    return go


def sequence(before: Sequence[Callable[[int], None]], launch: Callable[[int], None]) -> Callable[[int], None]:
    """One launch function: each of ``before`` (the copies), then ``launch``, enqueued on the same stream handle."""
    if not before:
        return launch
    if len(before) == 1:
        first = before[0]

        def go(handle: int) -> None:
            first(handle)
            launch(handle)
        return go
    steps = tuple(before)

    def go_all(handle: int) -> None:
        for step in steps:
            step(handle)
        launch(handle)
    return go_all


# ----------------------------------------------------------------------------------------------- streams


def order_after(waiter: int, on: int) -> None:
    """Make stream ``waiter`` wait for the work queued on stream ``on`` so far (an event recorded on ``on``,
    waited for by ``waiter``; the event destroyed at once: the driver releases it once it completed)."""
    from tileorch.runtime.driver import api, check
    from tileorch.runtime.watchdog import CU_EVENT_DISABLE_TIMING

    drv = api()
    event = check(drv.cuEventCreate(CU_EVENT_DISABLE_TIMING), "cuEventCreate")
    try:
        check(drv.cuEventRecord(event, drv.CUstream(on)), "cuEventRecord")
        check(drv.cuStreamWaitEvent(drv.CUstream(waiter), event, 0), "cuStreamWaitEvent")
    finally:
        drv.cuEventDestroy(event)


def homed(go: Callable[[int], None], home: int, warning: str) -> Callable[[int], None]:
    """``go`` (a bound launch taking a stream handle) for a launch that writes stream ``home``'s scratch: on
    ``home`` itself ``go`` (one int compare); on another stream ``go`` ordered after the work queued on ``home`` so
    far and ``home``'s later work after it (:func:`order_after`, an event each way), so the scratch is used in one
    stream's order at a time (two GEMMs bound to one stream's buffer never write it from two streams at once:
    review of session 43).  ``warning``: the head of the PerformanceWarning said the first time it runs on another
    stream (the two streams do not overlap for it)."""
    said = [False]

    def on_stream(handle: int, go: Callable[[int], None] = go, home: int = home) -> None:
        if handle == home:
            go(handle)
            return
        order_after(handle, home)
        go(handle)
        order_after(home, handle)
        if not said[0]:
            said[0] = True
            import warnings

            from tileorch.diagnostics import PerformanceWarning, user_stacklevel

            warnings.warn(f"{warning}: a launch kept bound on stream {home} was replayed on stream {handle}; its "
                          f"scratch buffer is stream {home}'s, so it runs after the work queued on stream {home} and "
                          f"stream {home}'s later work after it (the two streams do not overlap for it)",
                          PerformanceWarning, stacklevel=user_stacklevel())

    on_stream.home = home  # type: ignore[attr-defined]
    return on_stream


def warn_once(owner: Any, flag: str, head: str, text: str) -> None:
    """A PerformanceWarning ``head: text`` at the user's line, once per ``owner`` (its attribute ``flag`` set)."""
    if getattr(owner, flag):
        return
    import warnings

    from tileorch.diagnostics import PerformanceWarning, user_stacklevel

    setattr(owner, flag, True)
    warnings.warn(f"{head}: {text}", PerformanceWarning, stacklevel=user_stacklevel())
