"""A lockstep CPU interpreter for the kernels ``convert-nv-tileaa-to-simt`` emits (``func.func``
with ``arith``/``scf``/``llvm``/``nvvm`` ops), so that the SIMT lowering's layouts, vector
accesses and warp shuffles can be checked against numpy on a machine without a GPU.

Every value is a numpy array over the CTA's threads (a vector: one row per thread); ops run
for all threads at once under an active mask (``scf.if`` runs both sides masked, then
selects), so ``nvvm.barrier`` needs no model (it must be reached by every thread: checked),
and ``shfl.sync.bfly``/``up``/``down``/``idx`` read the partner lane's value (all lanes active: checked).  CTAs of the
grid run one after the other on one global memory; each gets fresh shared memory.  Loads and
stores check bounds and the alignment of the access (a misaligned vector access is an error,
as on the GPU).  Integers are held as int64 bit patterns wrapped to their width.

The PTX system call ``vprintf`` (``ct.printf``) is modelled as CUDA's host side reads its
record: the format string and the argument buffer (each argument at an offset aligned to its
size; an integer conversion with length ``l``/``ll`` reads 8 bytes, other integer conversions 4,
float conversions an 8-byte double), formatted with C's rules; the text of every call is appended
to ``Interpreter.printed`` in the order the threads make the calls.  Module globals other than the
scratch (the format strings, the print lock) are placed in global memory; an ``llvm.alloca`` is
per-thread memory in the entry block.

Each op runs in decoded form, made at its first execution (``Interpreter._decode``): the ops
kernels run most have a decoder (``_DECODERS``) that reads the op's operands, result, widths and
attributes once and returns the function that computes it; every other op runs
``Interpreter._general``.  No op has both: each op's meaning is written once.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np
from xdsl.dialects.builtin import (BFloat16Type, Float16Type, Float32Type, Float64Type, FloatAttr, IntegerAttr,
                                   IntegerType, VectorType)

from tileorch.testing.ptx_emulator import sqrt_rounded

SHARED_BASE = 1 << 40
_I1 = IntegerType(1)  # compared with result types in the hot loop: built once, not per op
_INT_BINARY = {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
               "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor}
_FLOAT_BINARY = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply, "arith.divf": np.divide}


def _whole_warps(mask: np.ndarray) -> bool:
    """Every warp of the CTA either all active or all inactive (a shuffle needs its whole warp)."""
    if mask.all():  # the common case: one reduction
        return True
    m = mask.reshape(-1, 32) if mask.size % 32 == 0 else mask.reshape(1, -1)
    return bool((m.all(axis=1) | ~m.any(axis=1)).all())


def _fp8_type(kind: str):
    import ml_dtypes

    return {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}[kind]


def _to_fp8(x, kind: str) -> np.ndarray:
    """The bits of f32 ``x`` rounded to fp8 ``kind`` (nearest even, ``satfinite``: beyond the
    largest finite value the largest finite value, NaN kept), as int64."""
    t = _fp8_type(kind)
    big = float(np.finfo(t).max)
    x = np.asarray(x, np.float32)
    return np.clip(x, -big, big).astype(t).view(np.uint8).astype(np.int64)


def _from_fp8(bits, kind: str) -> np.ndarray:
    return np.asarray(bits, np.uint8).view(_fp8_type(kind)).astype(np.float16)


class SimtError(Exception):
    pass


def _np_float(t):
    return {Float16Type: np.float16, Float32Type: np.float32, Float64Type: np.float64}[type(t)]


def _width(t) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    raise SimtError(f"type {t}")


def _wrap(x, w: int):
    if type(x) is np.ndarray and x.ndim and 1 < w < 63:  # the hot case: one pass, no temporaries of np.where
        if x.dtype != np.int64:
            x = x.astype(np.int64)
        h = 1 << (w - 1)  # ((x + h) mod 2^w) - h: the low w bits read as two's complement
        return ((x + h) & ((1 << w) - 1)) - h
    x = np.asarray(x, dtype=np.int64)
    if w >= 64:
        return x
    x = x & ((1 << w) - 1)
    return np.where(x >= (1 << (w - 1)), x - (1 << w), x) if w > 1 else x


def _unsigned(x, w: int):
    x = np.asarray(x, dtype=np.int64)
    if w >= 64:
        return x.astype(np.uint64)
    return (x & ((1 << w) - 1)).astype(np.uint64)


_LOAD_INTS = {1: np.int8, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_STORE_INTS = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
_FLOATS = {Float16Type: np.float16, Float32Type: np.float32, Float64Type: np.float64}


def _load_plan(typ, align) -> tuple:
    """What a load of ``typ`` (a scalar or a vector) with alignment ``align`` (None: the element's
    size) needs, worked out once per op: (lanes, bytes per thread, alignment, the values' numpy
    type, the numpy type its bytes are read as (None: an integer width without one, raised after
    the addresses are checked), the element width, the byte offsets 0..size-1, whether a vector)."""
    vector = isinstance(typ, VectorType)
    elt = typ.element_type if vector else typ
    lanes = typ.get_shape()[0] if vector else 1
    width = _width(elt)
    w = width // 8 if width > 1 else 1
    size = w * lanes
    integer = isinstance(elt, IntegerType)
    out_dt = np.int64 if integer else _np_float(elt)
    return (lanes, size, align or w, out_dt, _LOAD_INTS.get(width) if integer else out_dt, width, np.arange(size),
            vector)


def _store_plan(typ, align) -> tuple:
    """What a store of ``typ`` with alignment ``align`` needs (as :func:`_load_plan`): (lanes,
    bytes per thread, alignment, whether integer, the numpy type its bytes are written as (None:
    none for the width or float type, raised after the addresses are checked: the look-up key
    follows), the element width, that key, the byte offsets 0..size-1)."""
    vector = isinstance(typ, VectorType)
    elt = typ.element_type if vector else typ
    lanes = typ.get_shape()[0] if vector else 1
    width = _width(elt)
    w = max(1, width // 8)
    size = w * lanes
    integer = isinstance(elt, IntegerType)
    dt = _STORE_INTS.get(max(8, width)) if integer else _FLOATS.get(type(elt))
    return lanes, size, align or w, integer, dt, width, max(8, width) if integer else type(elt), np.arange(size)


class Memory:
    """Global memory: buffers placed at 256-byte aligned addresses (plus an optional offset)."""

    def __init__(self):
        self.buffers: list[tuple[int, np.ndarray]] = []
        self.next = 1 << 20

    def place(self, data: bytes | np.ndarray, offset: int = 0) -> int:
        raw = np.frombuffer(bytes(data) if not isinstance(data, np.ndarray) else data.tobytes(), np.uint8).copy()
        addr = self.next + offset
        self.buffers.append((addr, raw))
        self.next = (addr + len(raw) + 4096) // 256 * 256
        return addr

    def find(self, addr: int, size: int) -> tuple[np.ndarray, int]:
        for base, raw in self.buffers:
            if base <= addr and addr + size <= base + len(raw):
                return raw, addr - base
        raise SimtError(f"global access of {size} bytes at {addr:#x} outside every buffer")


class Interpreter:
    def __init__(self, fn, memory: Memory, threads: int, smem_bytes: int = 1 << 16, globals_: dict | None = None):
        self.fn = fn
        self.mem = memory
        self.T = threads
        self.smem_bytes = smem_bytes
        self.globals = globals_ or {}
        """Module global name -> its address in ``memory`` (the scratch is not one of them)."""
        self.printed: list[str] = []
        self._runs: dict = {}
        """op -> its decoded form (:meth:`_decode`), made at its first execution."""
        self._block_ops: dict = {}
        """block -> its ops, each with its decoded form (None for the terminator), listed once (the IR
        is not changed while it runs)."""

    # ---------------------------------------------------------------- memory
    def _region(self, addr: int, size: int):
        if addr >= SHARED_BASE:
            off = addr - SHARED_BASE
            if off < 0 or off + size > len(self.smem):
                raise SimtError(f"shared access at {off} of {size} bytes outside the scratch")
            return self.smem, off
        return self.mem.find(addr, size)

    def _gather_plan(self, addrs, mask, size: int, need: int, misaligned):
        """Where each active thread's ``size`` bytes at ``addrs`` lie: (thread ids, [(buffer,
        byte offsets of those threads, their positions in the thread ids)]).  The first active
        thread (in thread order) whose address is misaligned (``need``: ``misaligned(address)``
        is the message) or outside every region raises the error a thread-by-thread walk
        reports first."""
        threads = np.nonzero(mask)[0]
        a = np.asarray(addrs)[threads].astype(np.int64, copy=False)  # (the indexing made a new array)
        one = self._one_region(a, size, need)
        if one is not None:
            return threads, one
        bad_align = (a % need) != 0
        placed = np.zeros(len(a), bool)
        groups = []
        shared = a >= SHARED_BASE
        if shared.any():
            off = a - SHARED_BASE
            ok = shared & (off + size <= len(self.smem))
            sel = np.nonzero(ok)[0]
            if len(sel):
                groups.append((self.smem, off[sel], sel))
            placed |= ok
        rest = ~shared
        if rest.any():
            for base, raw in self.mem.buffers:
                ok = rest & ~placed & (a >= base) & (a + size <= base + len(raw))
                sel = np.nonzero(ok)[0]
                if len(sel):
                    groups.append((raw, a[sel] - base, sel))
                    placed |= ok
        bad = bad_align | ~placed
        if bad.any():
            i = int(np.argmax(bad))
            addr = int(a[i])
            if bad_align[i]:
                raise SimtError(misaligned(addr))
            self._region(addr, size)  # raises its error
        return threads, groups

    def _one_region(self, a, size: int, need: int):
        """The common case of :meth:`_gather_plan`: every address of ``a`` aligned to ``need`` and
        all ``size``-byte accesses inside one buffer (or the scratch) -> that one group, as the
        general walk finds it then (the buffers do not overlap); None otherwise (the walk decides)."""
        if not len(a) or (need > 1 and ((a & (need - 1)) if need & (need - 1) == 0 else a % need).any()):
            return None
        lo, hi = int(a.min()), int(a.max())
        if lo >= SHARED_BASE:
            if hi - SHARED_BASE + size <= len(self.smem):
                return [(self.smem, a - SHARED_BASE, np.arange(len(a)))]
            return None
        if hi >= SHARED_BASE:
            return None
        for base, raw in self.mem.buffers:
            if base <= lo and hi + size <= base + len(raw):
                return [(raw, a - base, np.arange(len(a)))]
        return None

    def _load(self, addrs, typ, mask, align):
        return self._load_planned(_load_plan(typ, align), addrs, mask)

    def _load_planned(self, plan, addrs, mask):
        """A load of the type and alignment ``plan`` (:func:`_load_plan`) describes."""
        lanes, size, need, out_dt, dt, width, span, vector = plan
        out = np.zeros((self.T, lanes), dtype=out_dt)
        threads, groups = self._gather_plan(
            addrs, mask, size, need, lambda a: f"misaligned load of {size} bytes at {a:#x} (align {need})")
        if dt is None:
            raise KeyError(width)
        for raw, off, sel in groups:
            chunk = raw[off[:, None] + span]  # (threads, size) bytes, C-contiguous
            out[threads[sel]] = chunk.view(dt).reshape(len(sel), lanes)
        return out if vector else out[:, 0]

    def _predicated_element_load(self, op, ins, mask):
        """``Emitter.load_element_if``: ``{ ...; mov.b{n} $0, fill; @p ld.global.b{n} $0, [addr]; }``
        -> the element where the predicate holds, else the fill value (the operand), one per thread."""
        pred, addrs, fill = ins
        on = mask & (pred != 0)
        out = np.array(fill, copy=True)
        if on.any():
            loaded = self._load(addrs, op.results[0].type, on, None)
            out[on] = loaded[on]
        return out

    def _predicated_load(self, op, ins, mask):
        """``Emitter.load_words_if``: ``{ ...; @p ld.global.v{n}.b32 {words}, [addr]; }`` ->
        the words (where the predicate is false: the ``mov`` immediates before the load, zeros
        by default), one row per thread; misaligned or
        out-of-bounds accesses of an active, predicated thread are errors."""
        pred, addrs = ins
        n = len(op.constraints.data.split(",")) - 2
        out = np.zeros((self.T, n), np.int64)
        for i, w in re.findall(r"mov\.b32 \$(\d+), (0x[0-9a-fA-F]+|\d+);", op.asm_string.data):  # the fill words
            out[:, int(i)] = _wrap(int(w, 0), 32)
        threads, groups = self._gather_plan(addrs, mask & (pred != 0), 4 * n, 4 * n,
                                            lambda a: f"misaligned predicated load of {4 * n} bytes at {a:#x}")
        span = np.arange(4 * n)
        for raw, off, sel in groups:
            out[threads[sel]] = raw[off[:, None] + span].view(np.int32).reshape(len(sel), n)
        return out if n > 1 else out[:, 0]

    def _store(self, addrs, value, typ, mask, align):
        self._store_planned(_store_plan(typ, align), addrs, value, mask)

    def _store_planned(self, plan, addrs, value, mask):
        """A store of the type and alignment ``plan`` (:func:`_store_plan`) describes, thread by
        thread in thread order: a later thread's bytes win where two overlap."""
        lanes, size, need, integer, dt, width, key, span = plan
        vals = value.reshape(self.T, lanes)
        threads, groups = self._gather_plan(
            addrs, mask, size, need, lambda a: f"misaligned store of {size} bytes at {a:#x} (align {need})")
        if dt is None:
            raise KeyError(key)
        data = _wrap(vals[threads], width).astype(dt) if integer else vals[threads].astype(dt)
        data = np.ascontiguousarray(data).view(np.uint8).reshape(len(threads), size)
        for raw, off, sel in groups:
            # sel ascends: numpy's assignment through repeated indices keeps the last (a later thread's)
            raw[(off[:, None] + span).reshape(-1)] = data[sel].reshape(-1)

    def _atomicrmw(self, op, addrs, vals, mask):
        """``llvm.atomicrmw``: the active threads one at a time in thread order (each read-modify-
        write whole before the next: atomic by construction); the old values."""
        from tileorch.dialects.llvm_ext import ATOMIC_BIN_OP_NAMES

        kind = ATOMIC_BIN_OP_NAMES[op.bin_op.value.data]
        typ = op.operands[1].type
        w = _width(typ)
        signed = lambda x: _wrap(np.int64(x), w)  # noqa: E731
        unsigned = lambda x: _unsigned(np.int64(x), w)  # noqa: E731
        combine = {"add": lambda o, v: o + v, "fadd": lambda o, v: o + v, "xchg": lambda o, v: v,
                   "max": lambda o, v: max(signed(o), signed(v)), "min": lambda o, v: min(signed(o), signed(v)),
                   "umax": lambda o, v: max(unsigned(o), unsigned(v)), "umin": lambda o, v: min(unsigned(o), unsigned(v)),
                   "_and": lambda o, v: np.int64(o) & np.int64(v), "_or": lambda o, v: np.int64(o) | np.int64(v),
                   "_xor": lambda o, v: np.int64(o) ^ np.int64(v)}[kind]
        old = np.zeros(self.T, np.int64 if isinstance(typ, IntegerType) else _np_float(typ))
        load, store = _load_plan(typ, None), _store_plan(typ, None)
        for t in np.nonzero(mask)[0]:
            at = int(addrs[t])
            old[t] = self._load_one(load, at)
            new = np.zeros(1, old.dtype)
            new[0] = combine(old[t], vals[t])
            self._store_one(store, at, new)
        return old

    def _cmpxchg(self, typ, addrs, expected, new, mask):
        """``llvm.cmpxchg`` of the active threads one after the other in thread order (each compare-and-swap
        whole before the next, as :meth:`_atomicrmw`): (old value, success) per thread.  The addresses are
        checked and the memory read once for all threads (the error the first bad thread in thread order
        meets, as a thread-by-thread walk reports it); the chain of swaps on each address then runs on Python
        integers and each address's last stored value is written once.  A CAS loop of every thread of a CTA
        on a few addresses took one gather and one store per thread and round before (a histogram sweep
        test: 122k single-thread accesses, 4 s)."""
        load, store = _load_plan(typ, None), _store_plan(typ, None)
        out = np.zeros((self.T, 2), np.int64)
        threads = np.nonzero(mask)[0]
        if not len(threads):
            return out
        width, dt = store[5], store[4]
        first = self._load_planned(load, addrs, mask)  # every active thread's address checked, in thread order
        # the value a load reads back after a thread stores its new value (what the next thread compares)
        stored = _wrap(np.asarray(new)[threads], width) if dt is None else \
            _wrap(np.asarray(new)[threads], width).astype(dt).astype(np.int64)
        current: dict = {}  # address -> the value there now, once a thread swapped it
        last: dict = {}  # address -> the thread whose value is there now
        olds, oks = [], []
        for t, at, seen, want, value in zip(threads.tolist(), np.asarray(addrs)[threads].tolist(),
                                            np.asarray(first)[threads].tolist(),
                                            np.asarray(expected)[threads].tolist(), stored.tolist()):
            old = current.get(at, seen)
            ok = old == want
            if ok:
                current[at] = value
                last[at] = t
            olds.append(old)
            oks.append(int(ok))
        out[threads, 0] = olds
        out[threads, 1] = oks
        if last:
            winners = np.zeros(self.T, bool)
            winners[list(last.values())] = True
            self._store_planned(store, addrs, np.asarray(new), winners)
        return out

    def _load_one(self, plan, addr: int):
        """:meth:`_load_planned` of one thread's scalar at ``addr`` (the thread alone active): the
        same value, the same error.  The atomics run their threads one at a time, and a whole-CTA
        mask, gather plan and result row per thread made a CAS loop's kernel cost O(threads^2) per
        round (three quarters of an atomics sweep test's interpreter time)."""
        lanes, size, need, out_dt, dt, width, span, vector = plan
        assert lanes == 1 and not vector, "a scalar access"
        if addr % need:
            raise SimtError(f"misaligned load of {size} bytes at {addr:#x} (align {need})")
        raw, off = self._region(addr, size)
        if dt is None:
            raise KeyError(width)
        return raw[off:off + size].view(dt).astype(out_dt)[0]

    def _store_one(self, plan, addr: int, value):
        """:meth:`_store_planned` of one thread's scalar ``value`` (a one-element array) at ``addr``
        (the thread alone active): the same bytes, the same error."""
        lanes, size, need, integer, dt, width, key, span = plan
        assert lanes == 1 and value.shape == (1,), "a scalar access"
        if addr % need:
            raise SimtError(f"misaligned store of {size} bytes at {addr:#x} (align {need})")
        raw, off = self._region(addr, size)
        if dt is None:
            raise KeyError(key)
        data = _wrap(value, width).astype(dt) if integer else value.astype(dt)
        raw[off:off + size] = np.ascontiguousarray(data).view(np.uint8)

    def _bf16_atomic_add(self, addrs, bits, mask):
        """``atom.global.add.noftz.bf16 old, [addr], v`` (16-bit registers): the active threads one
        at a time, each sum of the two bf16 values rounded to nearest even; the old bits."""
        old = np.zeros(self.T, np.int64)
        as_f32 = lambda x: np.array([(int(x) & 0xFFFF) << 16], np.uint32).view(np.float32)[0]  # noqa: E731
        load, store = _load_plan(IntegerType(16), None), _store_plan(IntegerType(16), None)
        for t in np.nonzero(mask)[0]:
            at = int(addrs[t])
            old[t] = int(self._load_one(load, at)) & 0xFFFF
            total = np.array([np.float64(as_f32(old[t])) + np.float64(as_f32(bits[t]))], np.float32)  # exact in f64
            b = int(total.view(np.uint32)[0])
            new = np.zeros(1, np.int64)
            new[0] = _wrap((b + 0x7FFF + ((b >> 16) & 1)) >> 16, 16)
            self._store_one(store, at, new)
        return _wrap(old, 16)

    # ---------------------------------------------------------------- running
    def run(self, args: list, grid: tuple[int, int, int]) -> None:
        """Run the kernel over ``grid`` with the cuTile entry's ``args``.  A kernel that runs one
        program per warp (``tileorch.warp_programs``) gets the programs along x as its trailing
        parameter and runs ``T / 32`` warps per CTA, each ``tileorch.programs_per_warp``
        programs (1 when absent), the last CTA partly idle; one whose final atomics are combined
        (``tileorch.combined_atomics``) its two trailing parameters, as the launcher gives them, with
        ``tileorch.launchers.cutile.emulated_launch``'s instances per CTA."""
        if "tileorch.warp_programs" in self.fn.attributes:
            per_warp = self.fn.attributes.get("tileorch.programs_per_warp")
            per_cta = self.T // 32 * (per_warp.value.data if per_warp is not None else 1)
            args = [*args, grid[0]]
            grid = (-(-grid[0] // per_cta), grid[1], grid[2])
        if "tileorch.combined_atomics" in self.fn.attributes:  # several instances per CTA (combined_atomics.py)
            from tileorch.launchers.cutile import emulated_launch

            extra, grid = emulated_launch(tuple(grid))
            args = [*args, *extra]
        self.grid = grid
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    self.smem = np.zeros(self.smem_bytes, np.uint8)
                    self.ctaid = (x, y, z)
                    env = {}
                    block = self.fn.body.blocks[0]
                    for a, v in zip(block.args, args):  # a float scalar parameter as its float type
                        floating = isinstance(a.type, (Float16Type, Float32Type, Float64Type))
                        env[a] = np.full(self.T, v, dtype=_np_float(a.type) if floating else np.int64)
                    self.block(block, env, np.ones(self.T, bool))

    def block(self, block, env, mask):
        plan = self._block_ops.get(block)
        if plan is None:
            plan = self._block_ops[block] = tuple(
                (op, None if op.name in _TERMINATORS else self._run_of(op)) for op in block.ops)
        for op, run in plan:
            if run is None:  # scf.yield, func.return
                return [env[v] for v in op.operands]
            run(env, mask)
        return []

    def v(self, env, val):
        return env[val]

    def op(self, op, env, mask):
        """Run ``op`` for the threads of ``mask`` (its decoded form, :meth:`_decode`)."""
        self._run_of(op)(env, mask)

    def _run_of(self, op):
        run = self._runs.get(op)
        if run is None:
            run = self._runs[op] = self._decode(op)
        return run

    def _decode(self, op):
        """``op`` as a function of (env, mask): the ops kernels run most are decoded by their entry
        of :data:`_DECODERS` (operands, result, widths and attributes looked up once, here); every
        other op runs :meth:`_general`.  Each op has one of the two, never both.  A decoder that
        raises on the op (an unsupported type) gives a function that raises the same error when
        the op runs, where the op would have raised it."""
        decoder = _DECODERS.get(op.name)
        if decoder is None:
            return functools.partial(self._general, op)
        try:
            return decoder(self, op)
        except Exception as exc:  # noqa: BLE001 - raised where the op runs, as before decoding
            def fail(env, mask, exc=exc):
                raise exc
            return fail

    def _general(self, op, env, mask):  # noqa: C901 - one dispatch for the ops without a decoder
        name = op.name
        T = self.T
        ins = [env[v] for v in op.operands]
        res = op.results[0] if op.results else None
        rt = res.type if res is not None else None

        def put(x):
            env[res] = x

        if name in ("arith.maxui", "arith.minui"):
            w = _width(rt)
            pick = (np.maximum if name == "arith.maxui" else np.minimum)(_unsigned(ins[0], w), _unsigned(ins[1], w))
            put(_wrap(pick.astype(np.int64), w))
        elif name == "arith.cmpf":
            a, b = ins
            p = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
                 "uno", "true"][op.predicate.value.data]
            with np.errstate(invalid="ignore"):
                unord = np.isnan(a) | np.isnan(b)
                base = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": a != b}
                if p in ("false", "true"):
                    r = np.full(T, p == "true")
                elif p == "ord":
                    r = ~unord
                elif p == "uno":
                    r = unord
                elif p[0] == "o":
                    r = base[p[1:]] & ~unord
                else:
                    r = base[p[1:]] | unord
            put(r)
        elif name == "arith.uitofp":  # integers are held sign-wrapped: read the operand's bits unsigned
            put(_unsigned(ins[0].astype(np.int64), _width(op.operands[0].type)).astype(_np_float(rt)))
        elif name in ("arith.fptosi", "arith.fptoui"):  # toward zero, saturated to the range, NaN 0 (cvt.rzi)
            w = _width(rt)
            lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if name == "arith.fptosi" else (0, (1 << w) - 1)
            x = np.trunc(np.nan_to_num(ins[0].astype(np.float64), nan=0.0))
            if w < 64:  # the clamped values fit int64 exactly
                put(_wrap(np.clip(x, lo, hi).astype(np.int64), w))
            else:  # 64-bit: Python integers, read back as int64 bits
                put(np.array([(max(lo, min(hi, int(v))) + (1 << 63)) % (1 << 64) - (1 << 63) for v in x.reshape(-1)],
                             dtype=np.int64).reshape(x.shape))
        elif name == "llvm.call_intrinsic":
            intr = op.intrin.data
            if intr == "llvm.nvvm.shfl.sync.bfly.i32":
                if not _whole_warps(mask):
                    raise SimtError("shfl.sync.bfly with inactive lanes")
                _, x, m, _ = ins
                lane_mask = int(m[0])
                put(x[np.arange(T) ^ lane_mask])
            elif intr in ("llvm.nvvm.shfl.sync.up.i32", "llvm.nvvm.shfl.sync.down.i32", "llvm.nvvm.shfl.sync.idx.i32"):
                if not _whole_warps(mask):
                    raise SimtError(f"{intr} with inactive lanes")
                _, x, arg, _ = ins
                tid = np.arange(T)
                lane, warp = tid & 31, tid & ~31
                if intr.endswith("up.i32"):
                    src = np.where(lane >= arg, tid - arg, tid)
                elif intr.endswith("down.i32"):
                    src = np.where(lane + arg <= 31, tid + arg, tid)
                else:
                    src = warp | (arg.astype(np.int64) & 31)
                put(x[src])
            elif intr == "llvm.nvvm.f2tf32.rn":  # cvt.rn.tf32.f32: nearest, ties to even, at 13 bits
                bits = ins[0].astype(np.float32).view(np.uint32).astype(np.int64)
                put(_wrap(((bits + 0xFFF + ((bits >> 13) & 1)) >> 13) << 13, 32))
            elif intr.startswith("llvm.nvvm.ff.to.") and intr.endswith("x2.rn"):
                # cvt.rn.satfinite.{e4m3,e5m2}x2.f32 d, a, b: a in the high byte, b in the low one
                put((_to_fp8(ins[0], intr[16:20]) << 8) | _to_fp8(ins[1], intr[16:20]))
            elif intr in ("llvm.nvvm.e4m3x2.to.f16x2.rn", "llvm.nvvm.e5m2x2.to.f16x2.rn"):
                # cvt.rn.f16x2.{e4m3,e5m2}x2: the low byte is element 0 (exact)
                bits = _wrap(ins[0], 16).astype(np.int64)
                put(np.stack([_from_fp8(bits & 255, intr[10:14]), _from_fp8(bits >> 8, intr[10:14])], 1))
            else:
                raise SimtError(f"intrinsic {intr}")
        elif name == "nvvm.ldmatrix":
            if not _whole_warps(mask):
                raise SimtError("ldmatrix with inactive lanes")
            put(self.ldmatrix(op.num.value.data, ins[0], mask))
        elif name == "nvvm.mma.sync":
            if not _whole_warps(mask):
                raise SimtError("mma.sync with inactive lanes")
            put(mma_sync(op, ins, mask))
        elif name == "llvm.mlir.addressof":
            put(np.full(T, self.globals.get(op.global_name.root_reference.data, SHARED_BASE), np.int64))
        elif name == "llvm.alloca":
            count = int(ins[0][0])
            size = count * max(1, _width(op.elem_type) // 8)
            base = self.mem.place(np.zeros(size * T, np.uint8))
            put(base + np.arange(T, dtype=np.int64) * size)
        elif name == "llvm.call" and op.callee.string_value() == "vprintf":
            for t in np.nonzero(mask)[0]:
                self.printed.append(self._vprintf(int(ins[0][t]), int(ins[1][t])))
            put(np.zeros(T, np.int64))
        elif name == "llvm.fence":
            pass
        elif name == "llvm.atomicrmw":
            put(self._atomicrmw(op, ins[0], ins[1], mask))
        elif name == "llvm.cmpxchg":
            put(self._cmpxchg(op.operands[1].type, ins[0], ins[1], ins[2], mask))
        elif name == "scf.while" and (op.arguments or op.results):
            env.update(zip(op.results, self._while_with_values(op, env, mask, ins)))
        elif name == "scf.while":
            active = mask.copy()
            for _ in range(1 << 16):
                before = op.before_region.blocks[0]
                for inner in before.ops:
                    if inner.name == "scf.condition":
                        active &= env[inner.condition].astype(bool)
                        break
                    self.op(inner, env, active)
                if not active.any():
                    break
                self.region(op.after_region, env, active)
            else:
                raise SimtError("scf.while did not end (a lock never released?)")
        elif name == "llvm.mlir.poison":
            lanes = rt.get_shape()[0]
            dt = np.int64 if isinstance(rt.element_type, IntegerType) else _np_float(rt.element_type)
            put(np.zeros((T, lanes), dt))
        elif name.startswith("nvvm.read.ptx.sreg."):
            reg = name[len("nvvm.read.ptx.sreg."):]
            if reg == "tid.x":
                put(np.arange(T, dtype=np.int64))
            elif reg == "ntid.x":
                put(np.full(T, T, np.int64))
            elif reg in ("cluster.ctarank", "cluster.nctarank"):  # CTAs run alone: clusters of one
                put(np.full(T, 0 if reg == "cluster.ctarank" else 1, np.int64))
            elif reg.startswith("clusterid."):
                put(np.full(T, self.ctaid["xyz".index(reg[-1])], np.int64))
            elif reg.startswith("ctaid."):
                put(np.full(T, self.ctaid["xyz".index(reg[-1])], np.int64))
            elif reg.startswith("nctaid."):
                put(np.full(T, self.grid["xyz".index(reg[-1])], np.int64))
            else:
                raise SimtError(f"special register {reg}")
        elif name in ("nvvm.cluster.arrive", "nvvm.cluster.wait"):
            if not mask.all():
                raise SimtError(f"{name} under divergent control flow")
        elif name == "nvvm.barrier":
            if not mask.all():
                raise SimtError("bar.sync under divergent control flow")
        elif name in ("nvvm.mbarrier.init.shared", "nvvm.fence.mbarrier.init", "nvvm.fence.proxy",
                      "nvvm.mbarrier.arrive.expect_tx.shared"):
            pass  # the row cache's bulk fill (row_bulk_fill.py): its copies complete when issued (below)
        elif name == "llvm.addrspacecast":
            put(ins[0])  # one address space here: shared addresses are SHARED_BASE + offset
        elif name == "nvvm.cp.async.bulk.shared.cluster.global":
            # (dst, src, mbarrier, bytes): the copy done at issue by each active thread; the emulator
            # (tileorch.testing.ptx_emulator) checks the waits' order, this interpreter only the values
            for t in np.nonzero(mask)[0]:
                n = int(ins[3][t])
                if int(ins[0][t]) % 16 or int(ins[1][t]) % 16 or n % 16:
                    raise SimtError(f"cp.async.bulk of {n} bytes from {int(ins[1][t]):#x} not 16-byte aligned")
                src, so = self._region(int(ins[1][t]), n)
                dst, do = self._region(int(ins[0][t]), n)
                dst[do:do + n] = src[so:so + n]
        elif name == "nvvm.mbarrier.try_wait.parity.shared":
            put(np.ones(T, np.int64))  # the copies completed when issued
        elif name == "scf.if":
            cond = ins[0].astype(bool)
            then_mask, else_mask = mask & cond, mask & ~cond
            # a side no active thread takes is not run (as on the GPU: its barriers are not reached)
            outs_t = self.region(op.true_region, env, then_mask) if then_mask.any() else None
            outs_e = self.region(op.false_region, env, else_mask) if else_mask.any() else None
            for i, r in enumerate(op.results):
                if outs_t is None and outs_e is None:  # inside a region no thread runs: any value
                    env[r] = self._placeholder(r.type)
                    continue
                a = outs_t[i] if outs_t is not None else outs_e[i]
                b = outs_e[i] if outs_e is not None else outs_t[i]
                env[r] = np.where(cond.reshape(-1, *([1] * (a.ndim - 1))), a, b)
        elif name == "scf.for":
            lb, ub, st = ins[:3]
            act = np.nonzero(mask)[0]
            lo, hi, step = (int(x[act[0]]) for x in (lb, ub, st))
            carried = ins[3:]
            body = op.body.blocks[0]
            if any(not (x[act] == x[act[0]]).all() for x in (lb, ub, st)):
                # per-thread bounds (a CTA of several programs, one per warp, each with its own trip
                # count): each thread runs its own iterations; a barrier in the body is then under
                # divergent control flow and raises, as it would hang on the GPU
                env.update(zip(op.results, self._for_per_thread(body, env, mask, lb, ub, st, carried)))
                return
            for i in range(lo, hi, step):
                env[body.args[0]] = np.full(T, i, np.int64)
                for a, c in zip(body.args[1:], carried):
                    env[a] = c
                carried = self.block(body, env, mask)
            for r, c in zip(op.results, carried):
                env[r] = c
        else:
            raise SimtError(f"op {name} not modelled")

    def _cstring(self, addr: int) -> str:
        raw, off = self.mem.find(addr, 1)
        end = off
        while raw[end] != 0:
            end += 1
        return bytes(raw[off:end]).decode()

    def _vprintf(self, fmt_addr: int, buf: int) -> str:
        """One ``vprintf(format, buffer)`` as CUDA's host side formats it (module docstring)."""
        fmt = self._cstring(fmt_addr)
        out, pos, at = "", 0, 0
        for m in re.finditer(r"%%|%([-+ #0]*)(\d*)(?:\.(\d*))?(hh|h|ll|l)?([diouxXeEfFgG])", fmt):
            out += fmt[pos:m.start()]
            pos = m.end()
            if m.group(0) == "%%":
                out += "%"
                continue
            flags, width, prec, length, spec = m.groups()
            size = 8 if spec in "eEfFgG" or length in ("l", "ll") else 4
            at = -(-at // size) * size
            raw, off = self.mem.find(buf + at, size)
            data = bytes(raw[off:off + size])
            at += size
            py = "%" + flags + width + ("." + prec if prec is not None else "")
            if spec in "eEfFgG":
                out += (py + spec) % np.frombuffer(data, np.float64)[0]
                continue
            bits = {"hh": 8, "h": 16}.get(length or "", size * 8)
            v = int.from_bytes(data, "little") & ((1 << bits) - 1)
            if spec in "di" and v >> (bits - 1):
                v -= 1 << bits
            if spec == "o" and "#" in flags:  # C's alternate octal form: one leading 0
                digits = "%o" % v
                digits = digits if digits[0] == "0" else "0" + digits
                out += ("%" + ("-" if "-" in flags else "") + width + "s") % digits
                continue
            out += (py + ("d" if spec in "iu" else spec)) % v
        return out + fmt[pos:]

    def ldmatrix(self, num: int, addrs, mask) -> np.ndarray:
        """``ldmatrix.sync.aligned.m8n8.x{num}.shared.b16`` as the PTX ISA states it: lanes
        ``8j..8j+7`` address the rows (8 x 16 bits, 16-byte aligned) of matrix ``j``; lane ``l``
        receives the elements ``2 (l % 4)`` and ``2 (l % 4) + 1`` of row ``l / 4`` of each matrix
        (the lower-indexed element in the lower half).  Inactive warps load nothing."""
        warps = self.T // 32
        rows = np.zeros((warps, 32), bool)  # the row-address lanes of the active warps
        rows[np.asarray(mask[::32][:warps], bool), :8 * num] = True
        threads, groups = self._gather_plan(addrs, rows.reshape(-1), 16, 16,
                                            lambda a: f"ldmatrix row address {a:#x} is not 16-byte aligned")
        words = np.zeros((self.T, 4), np.uint32)  # each row-address lane's row: 8 x 16 bits as 4 words
        span = np.arange(16)
        for raw, off, sel in groups:
            words[threads[sel]] = raw[off[:, None] + span].view(np.uint32)
        # lane l of matrix j: word l % 4 of the row at lane 8 j + l / 4 (elements 2 (l % 4), 2 (l % 4) + 1)
        per_warp = words.reshape(warps, 32, 4)[:, :8 * num].reshape(warps, num, 32)
        out = _wrap(per_warp.transpose(0, 2, 1).reshape(self.T, num).astype(np.int64), 32)
        out[~np.repeat(np.asarray(mask[::32][:warps], bool), 32)] = 0
        return out if num > 1 else out[:, 0]

    def _placeholder(self, t):
        lanes = (t.get_shape()[0],) if isinstance(t, VectorType) else ()
        elt = t.element_type if isinstance(t, VectorType) else t
        floating = isinstance(elt, (Float16Type, Float32Type, Float64Type))
        return np.zeros((self.T, *lanes), _np_float(elt) if floating else np.int64)

    def _for_per_thread(self, body, env, mask, lb, ub, st, carried):
        """``scf.for`` whose bounds differ between the active threads: iteration ``k`` runs, under
        the mask of the threads with ``lb + k * st < ub``, the body with each thread's own induction
        value; a thread past its bound keeps its carried values.  Returns the final carried values."""
        lb, ub, st = (np.asarray(x, np.int64) for x in (lb, ub, st))
        if (st[mask] <= 0).any():
            raise SimtError("scf.for with a step that is not positive")
        trips = np.where(mask, np.maximum(0, -(-(ub - lb) // np.where(mask, st, 1))), 0)
        carried = list(carried)
        for k in range(int(trips.max(initial=0))):
            live = mask & (k < trips)
            env[body.args[0]] = lb + k * st
            for a, c in zip(body.args[1:], carried):
                env[a] = c
            outs = self.block(body, env, live)
            carried = [np.where(live.reshape(-1, *([1] * (np.ndim(o) - 1))), o, c) for o, c in zip(outs, carried)]
        return carried

    def _while_with_values(self, op, env, mask, ins):
        """``scf.while`` carrying values (a data-dependent loop: ``while n != 1``) for the threads of ``mask``:
        each round runs the before region under the threads still looping; a thread whose ``scf.condition``
        is false leaves with the values it forwards (the op's results), the others run the after region
        with them and loop on its yield.  Returns the results per thread."""
        before, after = op.before_region.blocks[0], op.after_region.blocks[0]
        vals, active = list(ins), mask.copy()
        final = [self._placeholder(r.type) for r in op.results]

        def pick(keep, new, old):
            return np.where(keep.reshape(-1, *([1] * (np.ndim(new) - 1))), new, old)

        for _ in range(1 << 20):
            env.update(zip(before.args, vals))
            for inner in before.ops:
                if inner.name == "scf.condition":
                    cond = env[inner.condition].astype(bool)
                    fwd = [env[a] for a in inner.args]
                    break
                self.op(inner, env, active)
            final = [pick(active & ~cond, f, old) for f, old in zip(fwd, final)]
            active = active & cond
            if not active.any():
                return final
            env.update(zip(after.args, fwd))
            vals = [pick(active, o, v) for o, v in zip(self.block(after, env, active), vals)]
        raise SimtError("scf.while did not end")

    def region(self, region, env, mask):
        if not region.blocks:
            return []
        return self.block(region.blocks[0], env, mask)

    def asm(self, op, ins, put):
        self.ptx_math(op.asm_string.data, ins, put)

    def ptx_math(self, text: str, ins, put):
        """The scalar PTX instruction ``text`` (its opcode and modifiers, then a space and anything) of ``ins``:
        an inline assembly's text, or the instruction a math intrinsic stands for (:data:`_MATH_INTRINSICS`)."""
        with np.errstate(all="ignore"):
            f32 = [x.astype(np.float32) for x in ins]  # (an f64 instruction's operands overflow here: unused)
            directed = re.match(r"(add|sub|mul|fma)\.(rz|rm|rp)\.f(32|64) ", text)
            if directed:  # a directed rounding (Emitter.arith_directed): the exact result rounded that way
                put(_directed(directed.group(1), directed.group(2), ins, np.float32 if directed.group(3) == "32"
                              else np.float64))
            elif text.startswith("mul.hi.u64"):  # the high 64 bits of the unsigned product (f64_trig.py)
                a, b = (np.asarray(v, np.int64).astype(np.uint64) for v in ins[:2])
                hi = [(int(p) * int(q)) >> 64 for p, q in zip(*(v.ravel() for v in np.broadcast_arrays(a, b)))]
                put(np.array(hi, np.uint64).view(np.int64).reshape(np.broadcast(a, b).shape))
            elif ".f64 " in text and not text.startswith("cvt."):  # f64 forms: exact in float64
                self.asm_f64(text, [np.asarray(x, np.float64) for x in ins], put)
            elif text.startswith("ex2.approx"):
                put(np.exp2(f32[0]).astype(np.float32))
            elif text.startswith("rsqrt.approx"):
                put((1 / np.sqrt(f32[0])).astype(np.float32))
            elif text.startswith(("sqrt.rn", "sqrt.rz", "sqrt.rm", "sqrt.rp")):
                put(sqrt_rounded(f32[0], text[5:7]))
            elif text.startswith("tanh.approx"):
                put(np.tanh(f32[0]))
            elif text.startswith(("div.approx.", "div.full.")):
                put((f32[0] / f32[1]).astype(np.float32))
            elif text.startswith("abs.f32"):
                put(np.abs(f32[0]))
            elif text.startswith(("rcp.rn.f32", "rcp.approx")):
                put((1 / f32[0].astype(np.float64)).astype(np.float32))
            elif text.startswith("copysign.f32"):  # d = b with the sign of a
                put(np.copysign(f32[1], f32[0]).astype(np.float32))
            elif text.startswith(("max.NaN.f32", "min.NaN.f32")):
                put((np.maximum if text.startswith("max") else np.minimum)(f32[0], f32[1]))
            elif text.startswith("max.f32"):
                put(np.fmax(f32[0], f32[1]))
            elif text.startswith("min.f32"):
                put(np.fmin(f32[0], f32[1]))
            elif text.startswith("mul.rn.f32"):
                put((f32[0] * f32[1]).astype(np.float32))
            elif text.startswith("neg.f32"):
                put(-f32[0])
            elif text.startswith("mul.rz.f32"):  # the exact product (f64) rounded toward zero
                exact = f32[0].astype(np.float64) * f32[1].astype(np.float64)
                r = exact.astype(np.float32)
                put(np.where(np.abs(r.astype(np.float64)) > np.abs(exact), np.nextafter(r, np.float32(0)), r))
            elif text.startswith("fma.rn.sat.f32"):  # clamped to [0, 1], NaN -> 0
                r = (f32[0].astype(np.float64) * f32[1] + f32[2]).astype(np.float32)
                put(np.where(np.isnan(r), np.float32(0), np.clip(r, np.float32(0), np.float32(1))))
            elif text.startswith("fma.rn.f32"):
                put((f32[0].astype(np.float64) * f32[1] + f32[2]).astype(np.float32))
            elif text.startswith("lg2.approx"):
                put(np.log2(f32[0]).astype(np.float32))
            elif text.startswith(("sin.approx", "cos.approx")):
                put((np.sin if text.startswith("sin") else np.cos)(f32[0]).astype(np.float32))
            elif text.startswith(("cvt.rzi.f", "cvt.rmi.f", "cvt.rpi.f", "cvt.rni.f")):
                rnd = {"rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil, "rni": np.rint}[text[4:7]]
                put(rnd(ins[0]) if ".f64.f64" in text else rnd(f32[0]))
            elif re.match(r"cvt\.rz\.f32\.(f64|[su](32|64)) ", text):  # toward zero (Emitter.to_f32_odd)
                put(_rz_to_f32(ins[0], text.split()[0].rsplit(".", 1)[1]))
            elif text.startswith("cvt.rz.bf16.f32"):  # the high half (NaN: the canonical 0x7FFF)
                bits = f32[0].view(np.uint32).astype(np.int64) >> 16
                put(_wrap(np.where(np.isnan(f32[0]), 0x7FFF, bits), 16))
            elif text.startswith("cvt.rz.f16.f32"):  # nearest, stepped back toward zero where it grew
                with np.errstate(over="ignore"):
                    rn = f32[0].astype(np.float16)
                grew = np.abs(rn.astype(np.float64)) > np.abs(f32[0].astype(np.float64))
                rz = np.where(grew, np.nextafter(rn, np.float16(0)), rn).astype(np.float16)
                put(rz.view(np.uint16).astype(np.int64))
            elif text.startswith("cvt.rn.bf16.f32"):
                bits = f32[0].view(np.uint32).astype(np.int64)
                rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
                put(_wrap(rounded, 16))
            else:
                raise SimtError(f"inline asm {text!r}")

    @staticmethod
    def asm_f64(text: str, d: list, put) -> None:
        """The f64 instructions of the SIMT path (PTX ISA: IEEE round-to-nearest; max/min return
        the other operand of a NaN)."""
        if text.startswith("abs.f64"):
            put(np.abs(d[0]))
        elif text.startswith(("sqrt.rn.f64", "sqrt.rz.f64", "sqrt.rm.f64", "sqrt.rp.f64")):
            put(sqrt_rounded(d[0], text[5:7]))
        elif text.startswith("rcp.rn.f64"):
            put(1 / d[0])
        elif text.startswith("fma.rn.f64"):  # one rounding: the exact a * b + c (fractions) rounded once
            from fractions import Fraction

            def fma(a, b, c):
                if not all(map(math.isfinite, (a, b, c))):
                    return a * b + c
                v = Fraction(a) * Fraction(b) + Fraction(c)
                if v == 0:  # (a Fraction has no -0): IEEE's signed zero of an exact zero
                    return _exact_zero_fma(a, b, c)
                try:
                    return float(v)
                except OverflowError:  # past the largest finite f64: an infinity of the sum's sign
                    return math.copysign(math.inf, v)

            put(np.array([fma(float(a), float(b), float(c)) for a, b, c in
                          zip(*(x.ravel() for x in np.broadcast_arrays(d[0], d[1], d[2])))]).reshape(np.shape(d[0])))
        elif text.startswith("copysign.f64"):  # d = b with the sign of a
            put(np.copysign(d[1], d[0]))
        elif text.startswith("max.f64"):
            put(np.fmax(d[0], d[1]))
        elif text.startswith("min.f64"):
            put(np.fmin(d[0], d[1]))
        else:
            raise SimtError(f"inline asm {text!r}")


# ---------------------------------------------------------------- decoded ops
# The meaning of the ops kernels run most, one decoder per op (Interpreter._decode): it reads the
# op's operands, result, widths and attributes once and returns run(env, mask), which computes the
# op for the threads.  The ops without a decoder run Interpreter._general.

_TERMINATORS = frozenset({"scf.yield", "func.return"})
_INT64 = np.dtype(np.int64)


def _d_constant(interp, op):
    res, val, T = op.results[0], op.value, interp.T
    if isinstance(val, IntegerAttr):
        const = np.full(T, _wrap(val.value.data, _width(res.type)), np.int64)
    elif isinstance(val, FloatAttr):
        const = np.full(T, val.value.data, _np_float(res.type))
    else:
        raise SimtError(f"constant {val}")
    const.flags.writeable = False  # shared by every execution: no op writes its operands

    def run(env, mask):
        env[res] = const
    return run


def _d_int_binary(interp, op):
    (x, y), res, name = op.operands, op.results[0], op.name
    f = _INT_BINARY[name]
    if res.type == _I1:
        if name == "arith.xori":
            def run(env, mask):
                env[res] = env[x].astype(bool) ^ env[y].astype(bool)
        else:
            def run(env, mask):
                env[res] = f(env[x].astype(bool), env[y].astype(bool))
        return run
    w = _width(res.type)
    if not (1 < w < 63 or w == 64):
        def run(env, mask):
            env[res] = _wrap(f(env[x].astype(np.int64), env[y].astype(np.int64)), w)
        return run
    h, m = 1 << (w - 1), (1 << w) - 1

    def run(env, mask):
        a, b = env[x], env[y]
        if a.dtype is not _INT64:  # (integers are held as int64: no copy then)
            a = a.astype(np.int64)
        if b.dtype is not _INT64:
            b = b.astype(np.int64)
        v = f(a, b)  # a fresh array, wrapped to w bits in place (_wrap's arithmetic)
        if w != 64:
            v += h
            v &= m
            v -= h
        env[res] = v
    return run


def _d_extractvalue(interp, op):
    (pos,), src, res = op.position.get_values(), op.operands[0], op.results[0]

    def run(env, mask):
        env[res] = env[src][:, pos]
    return run


def _d_getelementptr(interp, op):
    base, res, size = op.operands[0], op.results[0], max(1, _width(op.elem_type) // 8)
    if len(op.operands) > 1:
        idx = op.operands[1]

        def run(env, mask):
            env[res] = env[base] + env[idx] * size
    else:
        zero = np.zeros(interp.T, np.int64)

        def run(env, mask):
            env[res] = env[base] + zero
    return run


def _d_llvm_bitcast(interp, op):
    src, res, T = op.operands[0], op.results[0], interp.T
    if not isinstance(res.type, VectorType):
        raise SimtError(f"op {op.name} not modelled")

    def run(env, mask):  # i32 -> vector<2xf16>
        env[res] = _wrap(env[src], 32).astype(np.int32).view(np.float16).reshape(T, 2)
    return run


def _alignment(op):
    align = op.properties.get("alignment")
    return align.value.data if align is not None else None


def _d_load(interp, op):
    addr, res, load = op.operands[0], op.results[0], interp._load_planned
    plan = _load_plan(res.type, _alignment(op))

    def run(env, mask):
        env[res] = load(plan, env[addr], mask)
    return run


def _d_store(interp, op):
    (val, addr), store = op.operands, interp._store_planned
    plan = _store_plan(val.type, _alignment(op))

    def run(env, mask):
        store(plan, env[addr], env[val], mask)
    return run


def _d_extremum(interp, op):
    (x, y), res, name = op.operands, op.results[0], op.name
    # signed integers are held sign-extended; floats: maxnum / minnum forms
    f = {"arith.maxsi": np.maximum, "arith.minsi": np.minimum}.get(name) or (np.fmax if "max" in name else np.fmin)

    def run(env, mask):
        env[res] = f(env[x], env[y])
    return run


def _d_division(interp, op):
    (x, y), res, name = op.operands, op.results[0], op.name
    w = _width(res.type)
    if name in ("arith.divui", "arith.remui"):
        divide = name == "arith.divui"

        def run(env, mask):
            bs = np.where(mask, env[y], 1)
            bs = np.where(bs == 0, 1, bs)
            ua, ub = _unsigned(env[x], w), _unsigned(bs, w)
            env[res] = _wrap((ua // ub if divide else ua % ub).astype(np.int64), w)
        return run
    quotient = name == "arith.divsi"

    def run(env, mask):
        bs = np.where(mask, env[y], 1)
        bs = np.where(bs == 0, 1, bs)
        # truncation toward zero in integers (a float quotient loses digits past 2**53)
        a, bs = np.asarray(env[x], np.int64), np.asarray(bs, np.int64)
        with np.errstate(over="ignore"):
            q = a // bs
        q = q + ((a % bs != 0) & ((a < 0) != (bs < 0)))
        env[res] = _wrap(q if quotient else a - q * bs, w)
    return run


def _d_shift(interp, op):
    (x, y), res, name = op.operands, op.results[0], op.name
    w = _width(res.type)
    if name == "arith.shli":
        def run(env, mask):
            env[res] = _wrap(np.left_shift(env[x], env[y]), w)
    elif name == "arith.shrui":
        def run(env, mask):
            env[res] = _wrap((_unsigned(env[x], w) >> _unsigned(env[y], 64)).astype(np.int64), w)
    else:
        def run(env, mask):
            env[res] = _wrap(np.right_shift(env[x], env[y]), w)
    return run


_CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal}


def _d_cmpi(interp, op):
    (x, y), res = op.operands, op.results[0]
    p, w = _CMPI[op.predicate.value.data], _width(x.type)
    f = _CMP[p.lstrip("su") if p not in ("eq", "ne") else p]
    if p.startswith("u"):
        def run(env, mask):
            env[res] = f(_unsigned(env[x], w), _unsigned(env[y], w))
    else:
        def run(env, mask):
            env[res] = f(env[x], env[y])
    return run


def _d_select(interp, op):
    (c, x, y), res = op.operands, op.results[0]
    if op.name == "llvm.select":
        def run(env, mask):
            env[res] = np.where(env[c].astype(bool), env[x], env[y])
    else:
        def run(env, mask):
            a = env[x]
            env[res] = np.where(env[c].astype(bool).reshape(-1, *([1] * (a.ndim - 1))), a, env[y])
    return run


def _d_int_cast(interp, op):
    src, res = op.operands[0], op.results[0]
    if op.name == "arith.extui":
        w = _width(src.type)

        def run(env, mask):
            env[res] = _unsigned(env[src].astype(np.int64), w).astype(np.int64)
    elif res.type == _I1:  # trunci to i1
        def run(env, mask):
            env[res] = env[src].astype(np.int64) & 1
    else:
        w = _width(res.type)

        def run(env, mask):
            env[res] = _wrap(env[src].astype(np.int64), w)
    return run


def _d_astype(interp, op):
    src, res = op.operands[0], op.results[0]
    dt = np.int64 if op.name == "arith.index_cast" else _np_float(res.type)

    def run(env, mask):
        env[res] = env[src].astype(dt)
    return run


def _d_arith_bitcast(interp, op):
    src, res = op.operands[0], op.results[0]
    st, rt = src.type, res.type
    if isinstance(rt, IntegerType) and isinstance(st, IntegerType):
        def run(env, mask):  # a signedness change: same bits
            env[res] = env[src]
    elif isinstance(rt, IntegerType):
        dt, ft = {16: np.int16, 32: np.int32, 64: np.int64}[_width(rt)], _np_float(st)

        def run(env, mask):
            env[res] = env[src].astype(ft).view(dt).astype(np.int64)
    else:
        w = _width(st)
        dt, ft = {16: np.int16, 32: np.int32, 64: np.int64}[w], _np_float(rt)

        def run(env, mask):
            env[res] = _wrap(env[src], w).astype(dt).view(ft)
    return run


def _d_float_binary(interp, op):
    (x, y), res = op.operands, op.results[0]
    f, dt = _FLOAT_BINARY[op.name], _np_float(res.type)

    def run(env, mask):
        with np.errstate(all="ignore"):
            env[res] = f(env[x], env[y]).astype(dt)
    return run


def _d_negf(interp, op):
    src, res = op.operands[0], op.results[0]

    def run(env, mask):
        env[res] = -env[src]
    return run


def _d_same(interp, op):
    src, res = op.operands[0], op.results[0]

    def run(env, mask):  # addresses are int64 here
        env[res] = env[src]
    return run


def _rz_to_f32(x, src: str) -> np.ndarray:
    """``cvt.rz.f32.<src>`` per element: the f32 of largest magnitude not above ``|x|`` (NaN and infinities
    kept), ``x`` read as ``src`` (f64, s32/u32/s64/u64 held as int64), compared exactly."""
    from fractions import Fraction

    out = np.empty(len(x), np.float32)
    for i, v in enumerate(np.asarray(x).tolist()):
        if src == "f64":
            v = float(v)
            if v != v or v in (float("inf"), float("-inf")):
                out[i] = np.float32(v)
                continue
        else:
            bits = int(src[1:])
            v = int(v) & ((1 << bits) - 1) if src[0] == "u" else int(v)
        exact = Fraction(v)
        with np.errstate(over="ignore"):
            f = np.float32(float(v))
        while np.isinf(f) or abs(Fraction(float(f))) > abs(exact):
            f = np.nextafter(f, np.float32(0), dtype=np.float32)
        while True:
            up = np.nextafter(f, np.float32(np.inf if exact > 0 else -np.inf), dtype=np.float32)
            if np.isinf(up) or abs(Fraction(float(up))) > abs(exact):
                break
            f = up
        out[i] = f
    return out


def _d_inline_asm(interp, op):
    text, operands = op.asm_string.data, op.operands
    res = op.results[0] if op.results else None
    if "ld.global" in text and len(operands) == 3:  # Emitter.load_element_if: (predicate, address, fill)
        def run(env, mask):
            env[res] = interp._predicated_element_load(op, [env[v] for v in operands], mask)
    elif "ld.global" in text:
        def run(env, mask):
            env[res] = interp._predicated_load(op, [env[v] for v in operands], mask)
    elif "@p st.global" in text:  # Emitter.store_element_if: (predicate, address, value)
        typ = operands[2].type

        def run(env, mask):
            pred, addrs, value = (env[v] for v in operands)
            interp._store(addrs, value, typ, mask & (pred != 0), None)
    elif text.startswith("atom.global.add.noftz.bf16"):
        def run(env, mask):
            env[res] = interp._bf16_atomic_add(env[operands[0]], env[operands[1]], mask)
    elif re.fullmatch(r"mov\.u32 \$0, (%dynamic_smem_size|\d+);", text):  # a row cache's sizes (row_cache_lowering.py)
        word = text.split(", ")[1].rstrip(";")
        const = np.full(interp.T, interp.smem_bytes if word == "%dynamic_smem_size" else int(word), np.int64)

        def run(env, mask):
            env[res] = const
    else:
        def run(env, mask):
            interp.asm(op, [env[v] for v in operands], functools.partial(env.__setitem__, res))
    return run


_MATH_INTRINSICS = {
    "llvm.fma.f32": "fma.rn.f32", "llvm.fma.f64": "fma.rn.f64", "llvm.nvvm.fma.rn.sat.f": "fma.rn.sat.f32",
    "llvm.nvvm.mul.rn.f": "mul.rn.f32", "llvm.fabs.f32": "abs.f32", "llvm.fabs.f64": "abs.f64",
    "llvm.maxnum.f32": "max.f32", "llvm.minnum.f32": "min.f32", "llvm.maximum.f32": "max.NaN.f32",
    "llvm.minimum.f32": "min.NaN.f32", "llvm.maxnum.f64": "max.f64", "llvm.minnum.f64": "min.f64",
    "llvm.copysign.f32": "copysign.f32", "llvm.copysign.f64": "copysign.f64",
    "llvm.nvvm.ex2.approx.ftz.f": "ex2.approx.ftz.f32", "llvm.nvvm.rcp.approx.ftz.f": "rcp.approx.ftz.f32",
    "llvm.nvvm.lg2.approx.f": "lg2.approx.f32", "llvm.nvvm.rsqrt.approx.f": "rsqrt.approx.f32",
    "llvm.nvvm.tanh.approx.f32": "tanh.approx.f32", "llvm.nvvm.sin.approx.f": "sin.approx.f32",
    "llvm.nvvm.cos.approx.f": "cos.approx.f32", "llvm.nvvm.rcp.rn.d": "rcp.rn.f64",
    "llvm.nvvm.div.approx.f": "div.approx.f32", "llvm.nvvm.div.approx.ftz.f": "div.approx.ftz.f32",
    "llvm.nvvm.div.full": "div.full.f32", "llvm.nvvm.div.full.ftz": "div.full.ftz.f32",
    "llvm.nvvm.mulhi.ull": "mul.hi.u64", "llvm.nvvm.d2f.rz": "cvt.rz.f32.f64", "llvm.nvvm.i2f.rz": "cvt.rz.f32.s32",
    "llvm.nvvm.ui2f.rz": "cvt.rz.f32.u32", "llvm.nvvm.ll2f.rz": "cvt.rz.f32.s64", "llvm.nvvm.ull2f.rz": "cvt.rz.f32.u64",
    **{f"llvm.nvvm.sqrt.{m}.{s}": f"sqrt.{m}.f{w}" for m in ("rn", "rz", "rm", "rp") for s, w in (("f", 32), ("d", 64))},
    **{f"llvm.nvvm.{o}.{m}.{s}": f"{o}.{m}.f{w}" for o in ("add", "mul", "fma") for m in ("rz", "rm", "rp")
       for s, w in (("f", 32), ("d", 64))},
    **{f"llvm.{n}.f{w}": f"cvt.{p}.f{w}.f{w}" for n, p in (("roundeven", "rni"), ("trunc", "rzi"), ("floor", "rmi"),
                                                         ("ceil", "rpi")) for w in (32, 64)},
}
"""The math intrinsics of the SIMT path -> the PTX instruction each stands for (NVPTX selects it; the PTX ISA's
meaning: :meth:`Interpreter.ptx_math`).  ``llvm.copysign(mag, sign)`` takes PTX ``copysign``'s operands reversed."""


def _d_call_intrinsic(interp, op):
    name, res, operands = op.intrin.data, op.results[0] if op.results else None, list(op.operands)
    text = _MATH_INTRINSICS.get(name)
    if text is not None:
        if name.startswith("llvm.copysign"):
            operands.reverse()

        def run(env, mask):
            interp.ptx_math(text + " ", [env[v] for v in operands], functools.partial(env.__setitem__, res))
    elif name == "llvm.nvvm.read.ptx.sreg.dynamic_smem_size":  # a row cache's sizes (row_cache_lowering.py)
        const = np.full(interp.T, interp.smem_bytes, np.int64)

        def run(env, mask):
            env[res] = const
    else:  # shuffles, fp8 / tf32 conversions: Interpreter._general
        return functools.partial(interp._general, op)
    return run


def _d_element(interp, op):
    res, rows = op.results[0], np.arange(interp.T)
    if op.name == "llvm.extractelement":
        vec, pos = op.operands

        def run(env, mask):
            env[res] = env[vec][rows, env[pos].astype(np.int64)]
    else:
        vec, val, pos = op.operands

        def run(env, mask):
            out = env[vec].copy()
            out[rows, env[pos].astype(np.int64)] = env[val]
            env[res] = out
    return run


_DECODERS = {
    "arith.constant": _d_constant, **dict.fromkeys(_INT_BINARY, _d_int_binary),
    "llvm.extractvalue": _d_extractvalue, "llvm.getelementptr": _d_getelementptr, "llvm.bitcast": _d_llvm_bitcast,
    "llvm.load": _d_load, "llvm.store": _d_store,
    **dict.fromkeys(("arith.maxsi", "arith.minsi", "arith.maximumf", "arith.minimumf", "arith.maxnumf",
                     "arith.minnumf"), _d_extremum),
    **dict.fromkeys(("arith.divsi", "arith.remsi", "arith.divui", "arith.remui"), _d_division),
    **dict.fromkeys(("arith.shli", "arith.shrui", "arith.shrsi"), _d_shift),
    "arith.cmpi": _d_cmpi, "arith.select": _d_select, "llvm.select": _d_select,
    **dict.fromkeys(("arith.extsi", "arith.trunci", "arith.extui"), _d_int_cast),
    **dict.fromkeys(("arith.sitofp", "arith.extf", "arith.truncf", "arith.index_cast"), _d_astype),
    "arith.bitcast": _d_arith_bitcast, **dict.fromkeys(_FLOAT_BINARY, _d_float_binary), "arith.negf": _d_negf,
    "llvm.ptrtoint": _d_same, "llvm.inttoptr": _d_same, "llvm.inline_asm": _d_inline_asm,
    "llvm.call_intrinsic": _d_call_intrinsic,
    "llvm.extractelement": _d_element, "llvm.insertelement": _d_element,
}
"""Op name -> its decoder (:meth:`Interpreter._decode`)."""


# ---------------------------------------------------------------- mma.sync
# The fragment layouts of ``mma.sync.aligned.m16n8k{8,16,32}.row.col`` as the PTX ISA states them
# ("Matrix Fragments for mma.m16n8k8 / m16n8k16 / m16n8k32"), element by element: with
# ``g = laneid >> 2`` (groupID) and ``t = laneid % 4`` (threadID_in_group), element ``i`` of a
# thread's fragment (registers in order, the lower-indexed element in the lower bits of a register)
# is at (row, column):


def _frag_a(k: int, g: int, t: int, i: int) -> tuple[int, int]:
    if k == 8:  # tf32: a0..a3, one per register
        return g + 8 * (i % 2), t + 4 * (i // 2)
    if k == 16:  # f16/bf16: a0..a7, two per register
        return g + 8 * ((i // 2) % 2), 2 * t + (i & 1) + 8 * (i >= 4)
    return g + 8 * ((i // 4) % 2), 4 * t + (i & 3) + 16 * (i >= 8)  # 8-bit: a0..a15, four per register


def _frag_b(k: int, g: int, t: int, i: int) -> tuple[int, int]:
    if k == 8:
        return t + 4 * i, g
    if k == 16:
        return 2 * t + (i & 1) + 8 * (i >= 2), g
    return 4 * t + (i & 3) + 16 * (i >= 4), g


def _frag_c(g: int, t: int, i: int) -> tuple[int, int]:
    return g + 8 * (i >= 2), 2 * t + (i & 1)


def _elements(x: np.ndarray, ptx: str) -> np.ndarray:
    """The elements each thread's register ``x`` holds, lowest bits first: (threads, elements),
    float64 (integers: int64)."""
    if ptx == "f16":  # vector<2xf16>
        return np.asarray(x).reshape(len(x), -1).astype(np.float64)
    word = np.asarray(x).astype(np.int64) & 0xFFFFFFFF
    if ptx == "bf16":
        halves = np.stack([(word >> s & 0xFFFF) << 16 for s in (0, 16)], axis=1)
        return halves.astype(np.uint32).view(np.float32).astype(np.float64)
    if ptx == "tf32":  # the low 13 bits are not read
        return (word & ~0x1FFF).astype(np.uint32).view(np.float32).astype(np.float64)[:, None]
    raw = np.stack([word >> s & 0xFF for s in (0, 8, 16, 24)], axis=1)
    if ptx == "u8":
        return raw
    if ptx == "s8":
        return np.where(raw >= 128, raw - 256, raw)
    if ptx in ("e4m3", "e5m2"):  # fp8: each byte decoded exactly
        return raw.astype(np.uint8).view(_fp8_type(ptx)).astype(np.float64)
    raise SimtError(f"mma.sync on {ptx} operands is not modelled")


@functools.lru_cache(maxsize=None)
def _fragment_index(which: str, k: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, columns), each (32 lanes, ``count`` elements), of fragment ``which`` ("a", "b",
    "c") of an m16n8k``k`` ``mma.sync``: element ``i`` of lane ``l`` sits at ``rows[l, i]``,
    ``columns[l, i]``."""
    frag = {"a": lambda g, t, i: _frag_a(k, g, t, i), "b": lambda g, t, i: _frag_b(k, g, t, i), "c": _frag_c}[which]
    places = [[frag(lane >> 2, lane % 4, i) for i in range(count)] for lane in range(32)]
    return np.array([[r for r, _ in lane] for lane in places]), np.array([[c for _, c in lane] for lane in places])


def mma_sync(op, ins, mask) -> np.ndarray:
    """``nvvm.mma.sync``: each warp's 16 x K A and K x 8 B gathered from its lanes' fragments,
    ``D = A B + C`` (floats summed in float64 then rounded to f32; integers exact, wrapped to
    32 bits), D scattered back; a (threads, 4) array, one row per thread (zeros in inactive warps)."""
    k = op.shape.k.data
    ta, tb = op.multiplicandAPtxType.data.value, op.multiplicandBPtxType.data.value
    na, nb = len(op.operandA), len(op.operandB)
    regs_a, regs_b, regs_c = ins[:na], ins[na:na + nb], ins[na + nb:]
    integer = ta in ("s8", "u8")
    T = regs_c[0].shape[0]
    kind = np.int64 if integer else np.float64
    a = np.concatenate([_elements(r, ta) for r in regs_a], axis=1).astype(kind)  # (threads, elements)
    b = np.concatenate([_elements(r, tb) for r in regs_b], axis=1).astype(kind)
    c = np.stack([np.asarray(r).astype(np.int64) if integer else np.asarray(r).astype(np.float64) for r in regs_c],
                 axis=1)
    ra, ca = _fragment_index("a", k, a.shape[1])
    rb, cb = _fragment_index("b", k, b.shape[1])
    rc, cc = _fragment_index("c", k, 4)
    out = np.zeros((T, 4), np.int64 if integer else np.float32)
    W = T // 32
    warps = np.nonzero(np.asarray(mask)[:32 * W:32])[0]  # the active warps (a warp's first lane says)
    if not len(warps):
        return out
    n = len(warps)
    # every active warp's fragments scattered at once; each warp's product as one 2-D dot, as before
    a = a[:32 * W].reshape(W, 32, -1)[warps]
    b = b[:32 * W].reshape(W, 32, -1)[warps]
    c = c[:32 * W].reshape(W, 32, -1)[warps]
    A, B, C = np.zeros((n, 16, k), kind), np.zeros((n, k, 8), kind), np.zeros((n, 16, 8), kind)
    A[:, ra, ca] = a
    B[:, rb, cb] = b
    C[:, rc, cc] = c
    D = np.stack([A[i].dot(B[i]) for i in range(n)]) + C
    D = D[:, rc, cc].reshape(n * 32, 4)
    rows = (32 * warps[:, None] + np.arange(32)).reshape(-1)
    out[rows] = _wrap(D & 0xFFFFFFFF, 32) if integer else D.astype(np.float32)
    return out


__all__ = ["Interpreter", "Memory", "SimtError", "mma_sync"]


def export_kernels(tmp_path_factory, folder: str, script: str):
    """Run ``script`` (a cuTile program that exports its kernels' bytecode into ``argv[1]``) in a
    fresh interpreter; the folder it wrote (a module-scoped fixture's value)."""
    import subprocess
    import sys

    out = tmp_path_factory.mktemp(folder)
    path = out / "kernels.py"
    path.write_text(script)
    subprocess.run([sys.executable, str(path), str(out)], check=True, capture_output=True, timeout=300)
    return out


def run_cutile(kernel, spec: list, arrays: list, grid: tuple, arch: str = "sm_90a",
               printed: list | None = None) -> list:
    """Lower the cuTile ``kernel`` (exported for ``spec``, see ``tileorch.testing.export``) to the
    SIMT path and run it on the CPU: ``arrays`` are its array arguments in order (numpy; their
    own shapes, which may differ from the spec's), ``grid`` three block counts; returns each
    array's contents afterwards (``printed``: extended with the text of its ``vprintf`` calls)."""
    from xdsl.dialects import func

    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    ctx = make_context()
    kind, module = lower_program(load(cutile_bytecode(kernel, spec), "kernel", ctx), ctx, arch)
    assert kind == "simt", kind
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
    mem, args, placed = Memory(), [], []
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import StringAttr

    globals_ = {}
    for g in module.body.block.ops:
        if isinstance(g, llvm.GlobalOp) and g.addr_space.value.data != 3:
            data = g.value.data.encode() + b"\0" if isinstance(g.value, StringAttr) else bytes(8)
            globals_[g.sym_name.data] = mem.place(data)
    for a in arrays:
        buf = np.ascontiguousarray(a)
        base = mem.place(buf)
        placed.append((base, buf))
        args += [base, *buf.shape, *[st // buf.itemsize for st in buf.strides]]
    interp = Interpreter(fn, mem, fn.attributes["nvvm.maxntid"].get_values()[0], globals_=globals_)
    interp.run(args, grid)
    if printed is not None:
        printed.extend(interp.printed)
    out = []
    for base, buf in placed:
        raw, off = mem.find(base, buf.nbytes)
        out.append(np.frombuffer(raw[off:off + buf.nbytes].tobytes(), buf.dtype).reshape(buf.shape))
    return out


def _exact_zero_fma(a: float, b: float, c: float) -> float:
    """The round-to-nearest ``fma(a, b, c)`` whose exact value is zero, with IEEE 754's sign: a zero
    product plus a zero addend is the float sum of the two signed zeros (``-0 * x + -0`` is -0); a
    nonzero product cancelled by ``c`` is +0."""
    return (a * b) + c if a == 0 or b == 0 else 0.0


def _directed(base: str, mode: str, ins: list, dt) -> np.ndarray:
    """PTX ``<base>.<mode>.f32`` / ``.f64`` (``add`` / ``sub`` / ``mul`` / ``fma``, ``rz`` / ``rm`` / ``rp``) of
    ``ins``: the exact result rounded in that direction (:func:`tileorch.testing.ptx_emulator.arith_rounded`, from
    the nearest: numpy's IEEE result, the fma's rounded once from rationals)."""
    from fractions import Fraction

    from tileorch.testing.ptx_emulator import arith_rounded

    a = [np.asarray(x, dt) for x in np.broadcast_arrays(*ins)]
    if base == "fma":
        def one(x, y, z):
            if not all(map(math.isfinite, (x, y, z))):
                return x * y + z
            if Fraction(x) * Fraction(y) + Fraction(z) == 0:
                return _exact_zero_fma(x, y, z)
            try:
                return float(Fraction(x) * Fraction(y) + Fraction(z))
            except OverflowError:
                return math.inf if Fraction(x) * Fraction(y) + Fraction(z) > 0 else -math.inf
        near = np.array([one(float(x), float(y), float(z)) for x, y, z in zip(*(v.ravel() for v in a))]).astype(dt)
        near = near.reshape(a[0].shape)
    else:
        near = {"add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1]}[base]()
    return arith_rounded(base, a, np.asarray(near, dt), mode)
