"""A small PTX emulator for one CTA of a warp-specialized TMA + WGMMA kernel (the chained-dots
kernel's subset of PTX) or of a SIMT kernel (predicated ``ld.global.v2/v4``, ``shfl.sync``,
``vote.sync.all/any.pred``, ``%ntid``, one function-scope shared array at offset 0, global atomics,
``vprintf`` and ``__assertfail``, f64 math; clusters along x through :class:`Cluster`, else as
launched without one: a cluster of one CTA), on the CPU with numpy: a test and debugging aid, not a
simulator.

:class:`Emu` runs every thread of one CTA; the threads at the same instruction run together
(vectorized), a warp-collective instruction (``shfl``, ``vote``, ``elect``) waits for its whole warp, a warp-group one
(``wgmma.*``, ``setmaxnreg``) for its warp group, ``bar.sync`` / ``bar.arrive`` count arrivals per
named barrier.

Scheduling: each step runs the threads at one pc; the distinct pcs of the live threads take turns (round robin,
the rotation one further each round) and the first whose threads can move is stepped.  Passed over, as threads
that cannot move: a ``bar.sync`` still missing arrivals, a collective whose unit is incomplete and (with
:attr:`Emu.park_waits`, the default) an mbarrier spin loop's poll that fails for every thread at it, tried again
only after some mbarrier changed phase.  So the runs are round-robin interleavings of the threads that can move in
which a spin loop polls only when the poll succeeds for some thread at it; the interleavings that stepping the
failed polls also produced differ from these only by those polls, which change nothing but the clock (the loop's
predicate registers are written again by the successful poll).  Every check below is made on the state each step
leaves, so each holds for the runs produced; ``wait_delay`` holds a ready ``wgmma.wait_group`` for that many steps of
threads that can move (failed polls no longer count), and a CTA in which no thread can move is a deadlock
(:class:`Fault` naming each waiting pc, its mbarrier phases or named-barrier arrivals) where polling it would have
run into the step limit.  Asynchrony is modelled where it decides correctness:

* ``wgmma.mma_async`` (f32 accumulators of f16, bf16, tf32 or e4m3 / e5m2 operands, s32 ones of s8 / u8) is
  asynchronous: it reads its shared-memory operands and A-fragment registers and computes ``D = A B (+ D)`` only at the ``wgmma.wait_group`` that retires its group
  (committed groups retire oldest first), and writes D then; until then any other instruction that
  names one of its accumulator or A-fragment registers is reported (:attr:`Emu.errors`), so is a
  TMA write into the shared bytes it reads, and an ``mbarrier.arrive`` by its warp group on a
  barrier that ``guards`` those bytes (the release of a stage to the producer before the
  ``wait_group`` that covers its last reader);
* ``wgmma.fence``: a WGMMA whose accumulator or A-fragment registers another instruction of its
  thread wrote after the warp group's last fence is reported (:attr:`Emu.fence_errors`);
* ``cp.async.bulk.tensor`` copies its box at once (2- to 4-D maps; the tensor map's ``box`` contiguous elements,
  64 unless given, and its ``swizzle`` span, 128 bytes unless given; zero fill out of bounds) and
  completes its bytes on the mbarrier; a 2-D bulk tensor store (shared to global) writes its box at issue,
  clipped to the array, and its shared bytes count as read until a ``cp.async.bulk.wait_group`` retires its
  group (a shared write to them before is reported); ``mbarrier`` arrive / expect_tx / try_wait.parity follow the
  phase rules;
* ``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`` (1-D, a cluster of one) copies its bytes
  at issue and completes them on its mbarrier; a thread's ``ld.shared`` of them before its
  ``mbarrier.try_wait.parity`` saw that phase complete is reported, so is a CTA exiting before any thread saw it;
* WGMMA shared-memory descriptors are decoded for the 128-, 64- and 32-byte swizzles (layout type
  1, 2, 3; K-major: rows of the span, 8-row groups SBO apart; MN-major: span-wide chunks LBO apart,
  8-row K groups SBO apart); the swizzle XORs byte-address bits 4.. with bits 7.. (3, 2 or 1 bits);
* a global store outside every registered buffer raises :class:`Fault` ("illegal address"), so does
  a shared address outside the CTA's shared memory; a deadlock raises :class:`Fault` too;
* ``st.shared`` (the generic proxy) is seen by a WGMMA (the async proxy) only after its writer's
  ``fence.proxy.async`` and then a named barrier the writer took part in: a WGMMA reading bytes
  written otherwise is reported (a Q prologue applied in place, chained_dots).

* ``atom`` / ``red`` apply the updates of the threads at the instruction one thread at a time, in
  thread order (one order the hardware may take); ``vprintf`` appends its text to
  :attr:`Emu.printed`, ``__assertfail`` raises :class:`DeviceAssert`.

* :attr:`Emu.traffic` counts what the CTA did (a cost model's inputs, not timing): ``"load:NAME"`` /
  ``"store:NAME"`` bytes of global memory read / written in the buffer ``NAME`` of ``memory``,
  ``"shared"`` bytes of ``ld.shared`` / ``st.shared``, ``"bar"`` thread arrivals at barriers and,
  when :attr:`Emu.count_instructions` is set (a cost per step: off by default), ``"instructions"``
  thread-instructions executed other than branches, calls and barriers (predicated-off threads not
  counted), and ``"op:OPCODE"`` those of each opcode (``"op:div.rn.f32"``).

Not modelled: CTAs of other clusters, timing, memory ordering beyond the above.
Unknown instructions raise :class:`Fault`.
"""
import contextlib
import math
import re
from collections import Counter
from fractions import Fraction

import numpy as np

GBASE = 1 << 40  # generic address of shared offset 0
PARAM_BASE = 1 << 44  # generic address of kernel parameter i: PARAM_BASE + 256 i
DATA_BASE = 1 << 45  # generic address of the module's initialised ``.global`` data (format strings)
LOCAL_BASE = 1 << 46  # thread t's local memory (``__local_depot``): LOCAL_BASE + t * depot size
CLUSTER_BASE = 1 << 47  # shared::cluster address of byte o of rank r's shared memory: CLUSTER_BASE + (r << 32) + o
_CLUSTER_X = ("%cluster_ctarank", "%cluster_ctaid.x", "%cluster_nctarank", "%cluster_nctaid.x", "%clusterid.x",
              "%nclusterid.x")


def chained_launch(record, grid, params: list, ctas: int = 2) -> tuple[list, list, tuple]:
    """How the host launches a chained kernel on the program's ``grid`` (x, y, z): (its parameter
    values: ``params`` followed, for a persistent kernel, by the grid; the CTA ids to run; the
    launch grid).  One CTA per program instance, or for a persistent kernel (``record["persistent"]``)
    ``ctas`` CTAs (at most one per instance), each running its instances in turn."""
    from tileorch.transforms.tileas.split_chains import scaled_grid

    grid = scaled_grid(record, tuple(grid) + (1,) * (3 - len(grid)))  # (tileas-split-chains: G programs each)
    if not record.get("persistent"):
        return list(params), [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])], grid
    n = max(1, min(ctas, grid[0] * grid[1] * grid[2]))
    return [*params, *grid], [(x, 0, 0) for x in range(n)], (n, 1, 1)


def stage_guards(record) -> dict:
    """The ``guards`` of a chained kernel's record (``record["guards"]``: each stage's empty
    barrier offset and the shared byte ranges of its tiles)."""
    return {int(bar): [tuple(int(x) for x in r) for r in ranges] for bar, ranges in record.get("guards", [])}


class Fault(Exception):
    """A fault of the emulated kernel (an out-of-range address, a register read while a WGMMA writes it)."""


class DeviceAssert(Fault):
    """A thread called ``__assertfail`` (a failed ``ct.assert_``): the kernel stops, as CUDA's
    assertion traps.  ``message``, ``file``, ``line``, ``function`` are the call's arguments."""

    def __init__(self, message: str, file: str, line: int, function: str):
        super().__init__(f"{file}:{line}: {function}: Assertion `{message}` failed.")
        self.message, self.file, self.line, self.function = message, file, line, function


def _fma_f32(a, b, c):
    """``a * b + c`` of f32 arrays rounded once to f32 (IEEE fma, round to nearest even): the product
    is exact in f64, the f64 sum is made round-to-odd from its exact error (TwoSum), and a
    round-to-odd 53-bit value rounds to 24 bits as the exact value would (no double rounding)."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    bp = s - c
    err = (p - bp) + (c - (s - bp))  # s + err == p + c exactly (finite s)
    bits = s.view(np.uint64)
    inexact = (err != 0) & np.isfinite(s) & ((bits & np.uint64(1)) == 0)
    toward = np.where(err > 0, np.inf, -np.inf)
    s = np.where(inexact, np.nextafter(s, toward), s)
    return s.astype(np.float32)


_ROUND_TO_INTEGER = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def _fp8_type(kind: str):
    import ml_dtypes  # a test aid's dependency, only for fp8 conversions

    return {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}[kind]


_ATOMIC_OPS = ("add", "min", "max", "and", "or", "xor", "exch", "cas", "inc", "dec")
_ATOMIC_TYPES = {"b32": 4, "u32": 4, "s32": 4, "b64": 8, "u64": 8, "s64": 8, "f32": 4, "f64": 8, "f16": 2, "bf16": 2}


_WGMMA_SHAPE = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)\.(f32|s32)\.(\w+)\.(\w+)$")
_WGMMA_SHAPES: dict = {}
"""``wgmma.mma_async`` opcode -> its shape match (or False): matched once per opcode."""

_FRAGMENTS: dict = {}
"""Accumulator registers per thread -> (row of each thread's first D element, its column, [register, thread] row
and column of D): a WGMMA's fragment layout over the 128 threads of its warp group."""

_OPERAND_PHYS: dict = {}
"""(descriptor, rows, transposed, element bytes) -> (physical addresses, least, greatest + bytes) of a WGMMA shared
operand (:meth:`Emu._operand_phys`): the same for every CTA and step of a kernel."""

_WGMMA_BYTES = {"f16": 2, "bf16": 2, "tf32": 4, "s8": 1, "u8": 1, "e4m3": 1, "e5m2": 1}
"""The operand element types of the modelled WGMMAs and their sizes (a K step is 32 bytes of them)."""

_FP8_FORMATS = {"e4m3": (4, 3, 7), "e5m2": (5, 2, 15)}
"""(exponent bits, mantissa bits, exponent bias) of the 8-bit float formats (OCP 8-bit floating point)."""


def fp8_values(kind: str) -> np.ndarray:
    """The 256 values of the 8-bit float format ``kind`` (``e4m3`` or ``e5m2``) by their byte, as f32 (exact),
    decoded from the formats' definitions: sign bit 7, then the exponent, then the mantissa; a zero exponent
    field is subnormal (``m / 2^mbits * 2^(1 - bias)``), else ``(1 + m / 2^mbits) * 2^(e - bias)``.  e4m3 has no
    infinities and one NaN per sign (exponent and mantissa all ones: ``S.1111.111``), its other all-ones-exponent
    bytes being finite (448 the largest); e5m2 is IEEE-like: an all-ones exponent is infinity (mantissa 0) or a
    NaN."""
    ebits, mbits, bias = _FP8_FORMATS[kind]
    b = np.arange(256)
    sign = np.where(b >> 7, -1.0, 1.0)
    e = (b >> mbits) & ((1 << ebits) - 1)
    m = b & ((1 << mbits) - 1)
    mag = np.where(e == 0, np.ldexp(m / (1 << mbits), 1 - bias), np.ldexp(1 + m / (1 << mbits), e - bias))
    top = e == (1 << ebits) - 1
    if kind == "e4m3":
        mag = np.where(top & (m == (1 << mbits) - 1), np.nan, mag)
    else:
        mag = np.where(top, np.where(m == 0, np.inf, np.nan), mag)
    return (sign * mag).astype(np.float32)


_FP8_VALUES: dict = {}
"""kind -> :func:`fp8_values` (made on first use)."""


def _fp8_to_f32(bits, kind):
    """8-bit float bytes (any unsigned integer array, the low byte read) of ``kind`` as f32 values (exact)."""
    table = _FP8_VALUES.get(kind)
    if table is None:
        table = _FP8_VALUES[kind] = fp8_values(kind)
    return table[np.asarray(bits).astype(np.uint8)]


def _half_to_f32(bits, ty):
    """16-bit float bit patterns (uint16) of ``ty`` (f16 or bf16) as f32 values (exact)."""
    if ty == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    return bits.view(np.float16).astype(np.float32)


def _bf16_bits(x):
    """f32 values ``x`` rounded to bf16 (nearest even; NaN the canonical 0x7FFF): the bits (uint64)."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = (bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
    return np.where(np.isnan(x), np.uint64(0x7FFF), rounded & np.uint64(0xFFFF))


def _float_add_bits(ty, a, b):
    """The bits of ``a + b`` for float bits ``a``, ``b`` of type ``ty`` (f16, bf16, f32, f64), the
    sum rounded once to ``ty`` (nearest even)."""
    if ty == "f64":  # (an add, not .sum(): a reduction starts from +0, and -0 + -0 is -0)
        x = np.array([a, b], dtype=np.uint64).view(np.float64)
        return int(np.float64(x[0] + x[1]).view(np.uint64))
    if ty == "f32":
        x = np.array([a, b], dtype=np.uint32).view(np.float32)
        return int(np.float32(x[0] + x[1]).view(np.uint32))
    if ty == "f16":
        x = np.array([a, b], dtype=np.uint16).view(np.float16).astype(np.float64)
        return int(np.float16(x[0] + x[1]).view(np.uint16))
    x = (np.array([a, b], dtype=np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    s = x[0] + x[1]  # exact in f64 (two bf16); one rounding to bf16 (f32 first would round twice)
    return int(_bf16_bits_f64(s))


def _directed_mode(parts) -> str:
    """The rounding of an instruction's dot-separated ``parts``: ``rz`` / ``rm`` / ``rp``, else ``rn``."""
    mode = _MODES.get(parts) if isinstance(parts, tuple) else None
    if mode is None:
        mode = next((m for m in ("rz", "rm", "rp") if m in parts), "rn")
        if isinstance(parts, tuple):
            _MODES[parts] = mode
    return mode


_MODES: dict[tuple, str] = {}
""":func:`_directed_mode` of each opcode's parts (a tuple), found once."""


def _exact_to_f64(v: Fraction) -> float:
    """The rational ``v`` rounded once to f64 (nearest even), an infinity of its sign past the largest finite value
    (``float`` raises OverflowError there: an ``fma`` of finite operands can overflow)."""
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def div_rounded(a, b, mode: str) -> np.ndarray:
    """``a / b`` of f32 or f64 arrays rounded ``mode`` (``rn``, or the directed ``rz`` / ``rm`` / ``rp`` of PTX
    ``div.<mode>``), in their type: the nearest quotient, moved one step toward zero, -inf or +inf where the exact
    quotient (Python rationals) lies on the other side of it.  Infinities, NaN and division by zero as IEEE has
    them (exact)."""
    with np.errstate(all="ignore"):
        near = np.asarray(a / b)
    if mode == "rn":
        return near
    out = near.copy()
    for i, (x, y, r) in enumerate(zip(np.ravel(a), np.ravel(b), near.reshape(-1))):
        if not (np.isfinite(x) and np.isfinite(y) and y != 0) or x == 0:
            continue
        q = Fraction(float(x)) / Fraction(float(y))
        if not np.isfinite(r):  # past the largest value: rz / the bound's direction give the largest finite
            if mode == "rz" or (mode == "rm") == (q > 0):
                out.reshape(-1)[i] = np.copysign(np.finfo(r.dtype).max, r)
            continue
        rq = Fraction(float(r))
        if rq > q and (mode == "rm" or (mode == "rz" and q > 0)):
            out.reshape(-1)[i] = np.nextafter(r, r.dtype.type(-np.inf))
        elif rq < q and (mode == "rp" or (mode == "rz" and q < 0)):
            out.reshape(-1)[i] = np.nextafter(r, r.dtype.type(np.inf))
    return out


def arith_rounded(base: str, args: list, near, mode: str) -> np.ndarray:
    """``add`` / ``sub`` / ``mul`` / ``fma`` of f32 or f64 arrays ``args`` rounded ``mode`` (``rn``, or the directed
    ``rz`` / ``rm`` / ``rp`` of PTX ``add.<mode>`` ...), in their type, from ``near`` (the result rounded to
    nearest): moved one step toward zero, -inf or +inf where the exact result (Python rationals) lies on the other
    side of it, the largest finite value for ``rz`` / the bound's direction past it, and an exact zero sum of
    addends that are not both +0 a -0 under ``rm`` (IEEE 754's rule; +0 under the others).  Infinities and NaN as
    IEEE has them (exact)."""
    near = np.asarray(near)
    if mode == "rn":
        return near
    out = near.copy()
    flat = [np.ravel(a) for a in args]
    for i, r in enumerate(near.reshape(-1)):
        xs = [float(f[i]) for f in flat]
        if not all(np.isfinite(xs)):
            continue
        x = [Fraction(v) for v in xs]
        if base == "mul":
            exact, addends = x[0] * x[1], None
        elif base == "fma":
            exact = x[0] * x[1] + x[2]
            addends = (np.float64(xs[0]) * np.float64(xs[1]) if exact == 0 else 1.0, xs[2])
        else:
            second = x[1] if base == "add" else -x[1]
            exact, addends = x[0] + second, (xs[0], xs[1] if base == "add" else -xs[1])
        if exact == 0:
            if addends is not None:  # two zeros of one sign keep it; any other exact zero sum is -0 under rm only
                same = all(a == 0 for a in addends) and math.copysign(1, addends[0]) == math.copysign(1, addends[1])
                out.reshape(-1)[i] = math.copysign(0.0, addends[0]) if same else -0.0 if mode == "rm" else 0.0
            continue
        if not np.isfinite(r):  # past the largest value: rz / the bound's direction give the largest finite
            if mode == "rz" or (mode == "rm") == (exact > 0):
                out.reshape(-1)[i] = np.copysign(np.finfo(r.dtype).max, r)
            continue
        rq = Fraction(float(r))
        if rq > exact and (mode == "rm" or (mode == "rz" and exact > 0)):
            out.reshape(-1)[i] = np.nextafter(r, r.dtype.type(-np.inf))
        elif rq < exact and (mode == "rp" or (mode == "rz" and exact < 0)):
            out.reshape(-1)[i] = np.nextafter(r, r.dtype.type(np.inf))
    return out


def sqrt_rounded(x, mode: str) -> np.ndarray:
    """``sqrt`` of f32 or f64 values ``x`` rounded ``mode`` (``rn``, or the directed ``rz`` / ``rm`` /
    ``rp`` of PTX ``sqrt.<mode>``), in ``x``'s type: the nearest root, moved one step toward zero or
    +inf where its exact square (Python rationals) says it lies on the wrong side of ``x``.  NaN,
    negatives (NaN), zeros (sign kept) and +inf as IEEE has them."""
    x = np.asarray(x)
    with np.errstate(invalid="ignore"):
        near = np.sqrt(x)
    if mode == "rn":
        return near
    out = near.copy()
    for i, (v, r) in enumerate(zip(x.reshape(-1), near.reshape(-1))):
        if not np.isfinite(r) or r == 0:
            continue
        sq, exact = Fraction(float(r)) ** 2, Fraction(float(v))
        if mode in ("rz", "rm") and sq > exact:
            out.reshape(-1)[i] = np.nextafter(r, r.dtype.type(0))
        elif mode == "rp" and sq < exact:
            out.reshape(-1)[i] = np.nextafter(r, r.dtype.type(np.inf))
    return out


def _narrowed_toward_zero(x, dst: str):
    """f32 values ``x`` converted to ``dst`` (bf16 or f16) rounding toward zero (``cvt.rz``): the bits
    (uint64).  Finite values past the largest finite one give it (no infinity), infinities stay,
    NaN is the canonical NaN (0x7FFF / 0x7FFF)."""
    x = np.asarray(x, np.float32)
    if dst == "bf16":  # bf16 is f32's top half: cutting the low 16 bits truncates the magnitude
        bits = (x.view(np.uint32) >> np.uint32(16)).astype(np.uint64)
    else:
        with np.errstate(all="ignore"):
            near = x.astype(np.float16)
        past = np.abs(near.astype(np.float64)) > np.abs(x.astype(np.float64))  # rounded away from zero
        near = np.where(past & np.isfinite(x), np.nextafter(near, np.float16(0)), near)
        bits = near.astype(np.float16).view(np.uint16).astype(np.uint64)
    return np.where(np.isnan(x), np.uint64(0x7FFF), bits)


def _bf16_bits_f64(s):
    """An f64 value rounded to bf16 once (nearest even): its bits.  Through f32 rounded to odd
    (toward zero, the last bit set when inexact: 16 spare bits keep the second rounding exact)."""
    if np.isnan(s):
        return 0x7FFF
    with np.errstate(over="ignore"):
        f = np.float32(s)
    if np.isfinite(f) and float(f) != s:
        if abs(float(f)) > abs(s):
            f = np.nextafter(f, np.float32(0))
        f = (np.array([f], np.float32).view(np.uint32) | np.uint32(1)).view(np.float32)[0]
    return int(_bf16_bits(np.array([f], np.float32))[0])


def _swizzle(addr, span):
    """The physical shared-memory byte address of ``addr`` under a ``span``-byte swizzle (128, 64,
    32): the 16-byte chunk bits 4.. XORed with the row bits 7.. (3, 2 or 1 bits)."""
    bits = {128: 7, 64: 3, 32: 1}[span]
    return addr ^ (((addr >> 7) & bits) << 4)


def f32(bits):
    """The f32 values of the low 32 bits of ``bits`` (uint64 / int64 arrays: the cast to uint32 keeps those bits)."""
    return bits.astype(np.uint32).view(np.float32)


def b32(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)


_FUNCTION = re.compile(r"^(\.visible\s+|\.weak\s+)?\.(entry|func)\b")
_REGISTER = re.compile(r"%(rd|rs|r|p|fd|f|h)(\d+)\b")


def _body_insts(body, insts, labels, rename=None):
    """Append the instructions of a function body to ``insts`` (labels into ``labels``);
    ``rename``: a suffix for its virtual registers (a called function's own registers)."""
    body = re.sub(r"//[^\n]*", "", body)
    for raw in re.split(r"[;\n]", body):
        s = raw.strip()
        if not s or s in ("{", "}") or s.startswith(".reg") or s.startswith(".maxntid") or s.startswith(".minnctapersm") or s.startswith(")"):
            continue
        while s.startswith("{") or s.startswith("}"):
            s = s[1:].strip()
        if not s:
            continue
        m = _LABEL.match(s) if s.endswith(":") else None
        if m:
            labels[m.group(1)] = len(insts)
            continue
        if s.startswith((".reg", ".shared", ".param", ".local")):  # a function-scope shared array sits at offset 0
            continue
        if rename:
            s = _REGISTER.sub(lambda r: f"%{r.group(1)}{r.group(2)}_{rename}", s)
        insts.append(s)


def parse(ptx, entry_prefix=".visible .entry", functions=None):
    """(entry parameter names, instructions, labels) of the kernel ``ptx``; the ``.func``
    definitions it calls follow the entry's instructions, each under a label of its name, with
    its registers renamed apart, and (when ``functions`` is a dict) their parameter names in
    ``functions[name]``."""
    lines = ptx.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith(entry_prefix))
    starts = [i for i, l in enumerate(lines) if _FUNCTION.match(l)]
    params = []
    i = start + 1
    while not lines[i].startswith(")"):
        m = re.search(r"(\w+_param_\d+)", lines[i])
        if m:
            params.append(m.group(1))
        i += 1
    end = next((j for j in starts if j > start), len(lines))
    insts, labels = [], {}
    _body_insts("\n".join(lines[i:end]), insts, labels)
    for k, first in enumerate(starts):
        if first == start:
            continue
        last = next((j for j in starts if j > first), len(lines))
        header = re.sub(r"\(\.param[^)]*\)", "", lines[first])
        name = re.findall(r"([\w$]+)\s*\(?\s*$", header)[-1]
        j, fparams = first + 1, []
        while j < last and not lines[j].startswith(")"):
            m = re.search(r"(\w+_param_\d+)", lines[j])
            if m:
                fparams.append(m.group(1))
            j += 1
        body = "\n".join(lines[j + 1:last])
        if "{" not in body:  # a declaration
            continue
        labels[name] = len(insts)
        _body_insts(body, insts, labels, rename=f"f{k}")
        if functions is not None:
            functions[name] = fparams
    return params, insts, labels



_div0 = -1
"""What ``div`` by zero gives (PTX: "an unspecified, machine-specific value"; no trap): all ones,
as the GPU's division does; ``rem`` by zero gives all ones too (an H100, session 27's GPU call:
``rem.s32`` of 7 and of -7 by 0 and ``rem.u32`` of 7 by 0 all gave 0xFFFFFFFF).  A lane whose divisor is
zero is one whose result the program does not keep (a masked-off or padded element, a warp's idle
program slot): the emulator computes it instead of raising."""


def _max_min(base: str, nan: bool, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PTX's floating-point ``max`` / ``min`` (``nan``: the ``.NaN`` form) of ``x`` and ``y``: a NaN
    operand gives the other (``.NaN``: NaN), and when both are zeros "+0.0 > -0.0" (PTX ISA, max /
    min notes), so ``max(+0, -0) = +0`` and ``min(+0, -0) = -0`` in either order (numpy's
    ``fmax`` / ``maximum`` return one of them by position)."""
    r = (np.maximum if nan else np.fmax)(x, y) if base == "max" else (np.minimum if nan else np.fmin)(x, y)
    both_zero = (x == 0) & (y == 0)
    if not np.any(both_zero):
        return r
    negative = np.signbit(x) & np.signbit(y) if base == "max" else np.signbit(x) | np.signbit(y)
    return np.where(both_zero, np.where(negative, -np.zeros_like(r), np.zeros_like(r)), r)


def _sign_extended(v: np.ndarray, ty: str, reg: str) -> np.ndarray:
    """A loaded ``.s8`` / ``.s16`` value ``v`` (its bytes, zero-extended) as PTX's ``ld`` leaves it in register
    ``reg``: sign-extended to the register's width (LLVM's names: ``%rs`` 16 bits, ``%r`` 32, ``%rd`` 64), held
    masked to that width as the emulator holds every register.  Other types are returned as they are."""
    if ty not in ("s8", "s16"):
        return v
    width = 64 if reg.startswith("%rd") else 16 if reg.startswith("%rs") else 32
    bits = int(ty[1:])
    negative = (v >> np.uint64(bits - 1)) & np.uint64(1)
    high = np.uint64(((1 << width) - 1) ^ ((1 << bits) - 1))
    return np.where(negative.astype(bool), v | high, v)


def _bfe(x: int, pos: int, length: int, width: int, signed: bool) -> int:
    """PTX ``bfe``: ``length`` bits of ``x`` from bit ``pos`` (both taken ``& 0xff``), the bits past the
    field or past the width filled with the sign bit ``x[min(pos + length - 1, width - 1)]`` for ``.s``
    types, else 0 (PTX ISA, bfe)."""
    pos, length = pos & 0xFF, length & 0xFF
    n = max(0, min(length, width - pos))
    field = (x >> pos) & ((1 << n) - 1)
    top = pos + length - 1
    if not signed or top < 0 or not (x >> min(top, width - 1)) & 1:
        return field
    return field | (((1 << width) - 1) & ~((1 << n) - 1))


def _trunc_div(x: int, y: int) -> int:
    """``x / y`` rounded toward zero, exactly (Python integers; ``int(x / y)`` loses bits past 2**53)."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def _int_op_exact(base, op, width, signed, a):
    """The integer instruction ``base`` (``op``: its full name) of ``width`` bits (``signed``: an
    ``.s`` type) on the threads' operand bits ``a`` (uint64 arrays), in Python integers: the
    result's bits (uint64).  The reference :func:`_int_op_fast` matches."""
    mask = (1 << width) - 1 if width < 64 else 0xFFFFFFFFFFFFFFFF
    M = np.uint64(mask)

    def sx(v, w=width):
        v = (v & M).astype(object)
        return np.array([x - (1 << w) if x >> (w - 1) else x for x in v], dtype=object)

    def ux(v):
        return (v & M).astype(object)

    A = [sx(x) if signed else ux(x) for x in a]
    if base == "mul":
        if "wide" in op:
            r = A[0] * A[1]
            mask2 = (1 << (2 * width)) - 1
            return np.array([int(x) & mask2 for x in r], dtype=np.uint64)
        if "hi" in op:
            r = (A[0] * A[1]) >> width
        else:
            r = A[0] * A[1]
    elif base == "mad":
        if "wide" in op:  # d and c of twice the width: d = a * b + c (PTX ISA, mad: .wide for 16 / 32 bits)
            if width > 32:
                raise Fault(f"{op}: .wide of {width}-bit operands")
            mask2 = (1 << (2 * width)) - 1
            r = A[0] * A[1] + (a[2] & np.uint64(mask2)).astype(object)
            return np.array([int(x) & mask2 for x in r], dtype=np.uint64)
        if "hi" in op:  # the high half of the product, plus c
            r = ((A[0] * A[1]) >> width) + A[2]
        else:
            r = A[0] * A[1] + A[2]
    elif base == "add": r = A[0] + A[1]
    elif base == "sub": r = A[0] - A[1]
    elif base == "and": r = ux(a[0]) & ux(a[1])
    elif base == "or": r = ux(a[0]) | ux(a[1])
    elif base == "xor": r = ux(a[0]) ^ ux(a[1])
    elif base == "not": r = ~ux(a[0])
    elif base == "neg": r = -A[0]
    elif base == "abs": r = np.array([abs(x) for x in A[0]], dtype=object)  # (PTX ISA: abs of the minimum wraps to it)
    elif base == "shl":  # the amount is a .u32 operand, clamped to the width (PTX ISA, shl)
        r = ux(a[0]) << np.array([min(int(x), 64) for x in (a[1] & np.uint64(0xFFFFFFFF)).astype(object)], dtype=object)
    elif base == "shr":
        sh = np.array([min(int(x), 63) for x in (a[1] & np.uint64(0xFFFFFFFF)).astype(object)], dtype=object)
        r = (A[0] >> sh)
    elif base == "min": r = np.minimum(A[0], A[1])
    elif base == "max": r = np.maximum(A[0], A[1])
    elif base == "div": r = np.array([_div0 if y == 0 else _trunc_div(x, y) if signed else x // y
                                      for x, y in zip(A[0], A[1])], dtype=object)
    elif base == "rem": r = np.array([_div0 if y == 0 else x - _trunc_div(x, y) * y if signed else x % y
                                      for x, y in zip(A[0], A[1])], dtype=object)
    elif base == "bfe":
        r = np.array([_bfe(int(x), int(p), int(n), width, signed) for x, p, n in zip(ux(a[0]), a[1], a[2])], dtype=object)
    return np.array([int(x) & mask for x in r], dtype=np.uint64)


_LOW_BITS = frozenset(("add", "sub", "and", "or", "xor", "mul", "mad", "not", "neg"))
"""The integer instructions whose low ``width`` result bits are those of the same arithmetic on the operands'
64-bit patterns modulo 2^64 (``mul`` / ``mad``: the ``.lo`` forms)."""


def _int_op_fast(base, op, width, signed, a):
    """:func:`_int_op_exact` in numpy's 64-bit integers for the instructions whose result bits
    they give exactly (the low ``width`` bits of a sum, difference, product or shift do not
    depend on the bits above 64), else None (``div``, ``rem``, ``bfe``, 64-bit ``mul.hi`` /
    ``mul.wide``, widths below 2).  The emulator's hot integer path: the Python-integer one
    costs a list comprehension per thread and operand."""
    if width < 2 or width > 64 or base in ("div", "rem", "bfe") or (base == "mad" and ("hi" in op or "wide" in op)):
        return None  # (mad.hi / mad.wide: the exact path)
    u64 = np.uint64
    if width == 64:
        if base == "mul" and ("hi" in op or "wide" in op):
            return None
        u = a
        A = [x.view(np.int64) for x in a] if signed else u
        if base == "add": r = u[0] + u[1]
        elif base == "sub": r = u[0] - u[1]
        elif base == "mul": r = u[0] * u[1]
        elif base == "mad": r = u[0] * u[1] + u[2]
        elif base == "and": r = u[0] & u[1]
        elif base == "or": r = u[0] | u[1]
        elif base == "xor": r = u[0] ^ u[1]
        elif base == "not": r = ~u[0]
        elif base == "neg": r = u64(0) - u[0]
        elif base == "shl":
            sh = u[1] & u64(0xFFFFFFFF)
            r = np.where(sh >= u64(64), u64(0), u[0] << np.minimum(sh, u64(63)))
        elif base == "shr":
            sh = np.minimum(u[1] & u64(0xFFFFFFFF), u64(63))
            r = (A[0] >> sh.astype(np.int64)).view(u64) if signed else u[0] >> sh
        elif base == "min": r = np.minimum(A[0], A[1]).view(u64)
        elif base == "max": r = np.maximum(A[0], A[1]).view(u64)
        else:
            return None
        return np.asarray(r, dtype=u64)
    mask = (1 << width) - 1
    if base in _LOW_BITS and not ("hi" in op or "wide" in op) and all(x.dtype == u64 for x in a):
        # the low `width` bits of these results depend only on the operands' low `width` bits: wrapping uint64
        # arithmetic on the registers' bits, then the mask (no sign extension, no int64 copies)
        if base == "add": r = a[0] + a[1]
        elif base == "sub": r = a[0] - a[1]
        elif base == "and": r = a[0] & a[1]
        elif base == "or": r = a[0] | a[1]
        elif base == "xor": r = a[0] ^ a[1]
        elif base == "mul": r = a[0] * a[1]
        elif base == "mad": r = a[0] * a[1] + a[2]
        elif base == "not": r = ~a[0]
        else: r = u64(0) - a[0]  # neg
        return r & u64(mask)
    ux = [(x & u64(mask)).astype(np.int64) for x in a]
    h = 1 << (width - 1)
    A = [(x ^ h) - h for x in ux] if signed else ux
    if base == "mul":
        if "wide" in op:  # 2 width bits: exact modulo 2^64
            return (A[0] * A[1]).astype(u64) & u64((1 << (2 * width)) - 1)
        if "hi" in op:
            if signed:
                r = (A[0] * A[1]) >> width  # |product| < 2^62: exact
            else:
                r = ((ux[0].astype(u64) * ux[1].astype(u64)) >> u64(width)).astype(np.int64)  # < 2^64: exact
        else:
            r = A[0] * A[1]
    elif base == "mad": r = A[0] * A[1] + A[2]
    elif base == "add": r = A[0] + A[1]
    elif base == "sub": r = A[0] - A[1]
    elif base == "and": r = ux[0] & ux[1]
    elif base == "or": r = ux[0] | ux[1]
    elif base == "xor": r = ux[0] ^ ux[1]
    elif base == "not": r = ~ux[0]
    elif base == "neg": r = -A[0]
    elif base == "shl":
        sh = (a[1] & u64(0xFFFFFFFF)).astype(np.int64)
        r = np.where(sh >= 64, 0, (ux[0].astype(u64) << np.minimum(sh, 63).astype(u64)).view(np.int64))
    elif base == "shr":
        sh = np.minimum(a[1] & u64(0xFFFFFFFF), u64(63)).astype(np.int64)
        r = A[0] >> sh
    elif base == "min": r = np.minimum(A[0], A[1])
    elif base == "max": r = np.maximum(A[0], A[1])
    else:
        return None
    return (r & mask).astype(u64)


def _operands(rest: str) -> list[str]:
    """An instruction's operands: split at the commas outside ``{}`` and ``[]``."""
    if "[" not in rest and "{" not in rest and "]" not in rest and "}" not in rest:  # (every comma separates)
        out = rest.split(",")
        last = out.pop().strip()
        out = [x.strip() for x in out]
        if last:
            out.append(last)
        return out
    out, depth, cur = [], 0, ""
    for ch in rest:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


_PREDICATED = re.compile(r"^@(!?)(%?\w+)\s+(.*)$")
_LABEL = re.compile(r"^(\$?[\w$]+):$")


def _split(s: str) -> tuple:
    """(predicate: (negated, register) or None, opcode, operands) of one instruction."""
    pred = None
    m = _PREDICATED.match(s) if s.startswith("@") else None
    if m:
        pred = (m.group(1) == "!", m.group(2))
        s = m.group(3)
    parts = s.split(None, 1)
    op = parts[0]
    rest = parts[1] if len(parts) > 1 else ""
    return pred, op, _operands(rest)


def _kind(op: str) -> tuple:
    """An instruction's base name and what it waits for: 128 (its warp group), 32 (its warp),
    "bar" (a named barrier, arrive included) or None."""
    collective = None
    if op.startswith("wgmma") or op.startswith("setmaxnreg"):
        collective = 128
    elif op.startswith(("shfl", "vote", "elect")):  # elect.sync: one lane of the converged warp (session 40)
        collective = 32
    if op.startswith(("bar.sync", "bar.arrive", "barrier.arrive")) or op == "barrier.sync":
        collective = "bar"
    return op.split(".")[0], collective


def _distinct(values: np.ndarray) -> list[int]:
    """``sorted(set(values.tolist()))``, cheaper where equal values come in runs (the threads of a
    warp at one pc): one value per run goes through the set."""
    if len(values) < 2:
        return values.tolist()
    starts = (values[1:] != values[:-1]).nonzero()[0]  # each run's last index but the last run's
    if not len(starts):
        return [int(values[0])]
    distinct = set(values[starts + 1].tolist())
    distinct.add(int(values[0]))
    return sorted(distinct)


_SETP_COMPARE = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: (x != y) & (x == x) & (y == y), "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y, "ltu": lambda x, y: ~(x >= y),
    "geu": lambda x, y: ~(x < y), "gtu": lambda x, y: ~(x <= y), "leu": lambda x, y: ~(x > y),
    "neu": lambda x, y: ~(x == y), "equ": lambda x, y: (x == y) | (x != x) | (y != y),
    "nan": lambda x, y: (x != x) | (y != y), "num": lambda x, y: (x == x) & (y == y)}
"""``setp``'s comparisons (``setp.<cmp>.<type>``) of the operands ``x``, ``y`` as their type (floats, or integers
of the signedness): each mask computed alone (not all fourteen per instruction).  ``ne`` is ordered, as every
comparison without ``u``: false where an operand is NaN (PTX ISA, floating-point comparisons; numpy's ``!=`` is
true there)."""

_CONTROL = frozenset(("bra", "call", "ret", "exit"))

_RUNS = [0]
"""How many :meth:`Emu.run` calls are in progress: each ignores numpy's floating-point warnings for the whole run."""
_NO_CONTEXT = contextlib.nullcontext()


def _quiet():
    """``np.errstate(all="ignore")`` for the hot handlers, or inside :meth:`Emu.run` (which already ignores them)
    nothing: entering an errstate costs microseconds per instruction.  (Another thread's run makes it nothing
    here too: a warning then is printed, no value changes.)"""
    return _NO_CONTEXT if _RUNS[0] else np.errstate(all="ignore")

_PRED_BINARY = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
"""``and`` / ``or`` / ``xor.pred`` of two predicates (bool arrays)."""

_AT_ONCE_MIN = 4
"""Global loads / stores of at least this many threads go through one numpy gather / scatter
(:meth:`Emu._one_buffer`); fewer (an atomic's one address) one by one, which costs less there."""
_BYTE_INDEX = np.arange(8, dtype=np.intp)
_ACCUMULATE_WORDS = 8
"""An f32 / f64 ``atom.add`` of at most this many distinct words (or of distinct words only) runs in numpy calls
per word (:meth:`Emu._float_add_at_once`); more, one thread at a time."""

_INT_TYPES = {f"{kind}{width}": width for kind in "bsu" for width in (8, 16, 32, 64)}
"""The integer type suffixes (``.b8`` .. ``.u64``) and their widths."""

_ADDRESSES: dict[str, tuple] = {}
"""Each address operand's (register or symbol, byte offset): ``[%rd4+16]`` -> ``("%rd4", 16)``."""

_PARTS: dict[str, tuple] = {}
"""Each opcode's dot-separated parts (``("ld", "global", "v4", "b32")``), split once."""

_IMMEDIATES: dict[str, int] = {}
"""The bits of each literal operand (``0f3F800000``, ``0d...``, ``-1``, ``0xFFU``) :meth:`Emu.get`
has read: the same in every kernel, parsed once."""
"""The instructions :meth:`Emu.step` moves threads for itself (the others: :meth:`Emu.execute`)."""


_BAR = "bar"
"""A pc of :attr:`_Decoded.waits`: an unpredicated ``bar.sync`` / ``barrier.sync``."""

_IMMEDIATE = re.compile(r"^(-?(\d+|0x[0-9a-fA-F]+)U?|0[fd][0-9a-fA-F]+)$")


def _spin_waits(parsed, labels) -> tuple:
    """Per pc: ``(address operand, parity operand)`` where the instruction is the poll of an mbarrier spin loop,
    else None.  A spin loop, as LLVM and inline assembly spell it::

        L:  mov.b32 %r1, <immediate>;   (any number of unpredicated movs of immediates)
            mbarrier.try_wait.parity.shared.b64 P, [addr], parity(, hint);   (or test_wait)
            not.pred Q, P;  @Q bra L;   (or @!P bra L)

    A failed poll of it changes nothing a thread or the kernel reads after the loop: the movs rewrite the same
    immediates, the poll and the not rewrite P and Q, which the successful poll that ends the loop writes again
    (P true, Q false) before any other instruction reads them.  :meth:`Emu.run` does not step a poll that fails
    for every thread at it (it parks them there until an mbarrier phase changes)."""
    spins = [None] * len(parsed)
    for w, (pred, op, ops) in enumerate(parsed):
        if pred is not None or not op.startswith(("mbarrier.try_wait.parity", "mbarrier.test_wait.parity")):
            continue
        if len(ops) < 3 or w + 1 >= len(parsed):
            continue
        p, used = ops[0].strip(), {ops[0].strip(), ops[1].strip()[1:-1].split("+")[0].strip(), ops[2].strip()}
        branch = parsed[w + 1]
        if branch[0] is None and branch[1] == "not.pred" and w + 2 < len(parsed):
            q = branch[2][0].strip()
            if branch[2][1].strip() != p or q in used:
                continue
            branch = parsed[w + 2]
            if branch[0] != (False, q.lstrip("%")) and branch[0] != (False, q):
                continue
        elif branch[0] not in ((True, p), (True, p.lstrip("%"))):
            continue
        if not branch[1].startswith("bra") or len(branch[2]) != 1:
            continue
        head = labels.get(branch[2][0].strip())
        if head is None or head > w:
            continue
        if all(parsed[k][0] is None and parsed[k][1].startswith("mov.") and len(parsed[k][2]) == 2
               and _IMMEDIATE.match(parsed[k][2][1].strip()) for k in range(head, w)):
            spins[w] = (ops[1], ops[2])
    return tuple(spins)


class _Decoded:
    """What :class:`Emu` reads of a PTX text before running it, the same for every CTA: the
    entry's parameter names, the instructions and labels (:func:`parse`), the called functions'
    parameters, each instruction split (:func:`_split`) and its kind (:func:`_kind`), and the
    module's ``.shared`` / ``.global`` / ``.local`` byte-array declarations.  Read-only."""

    def __init__(self, ptx: str):
        functions: dict = {}
        self.params, self.insts, self.labels = parse(ptx, functions=functions)
        self.params = tuple(self.params)
        self.functions = functions
        self.parsed = [_split(s) for s in self.insts]
        self.kinds = [_kind(op) for _, op, _ in self.parsed]
        # per pc: a step that progresses moves exactly the threads at pc to pc + 1 and changes no
        # thread's liveness (no branch, call, return, barrier or warp / warp-group collective):
        # Emu.run then knows the threads' pcs without counting them again
        # the registers a WGMMA names (accumulators, A fragments): the only ones whose write times
        # (Emu.wtime, the wgmma.fence rule) are read
        # (as Emu.wgmma reads them: D from the first operand, A from the second when it is a register list)
        self.wgmma_regs = frozenset(
            x.strip() for _, op, ops in self.parsed if op.startswith("wgmma") and ops
            for group in (ops[0], *(ops[1:2] if ops[1:2] and ops[1].startswith("{") else ())) for x in group[1:-1].split(","))
        self.straight = tuple(base not in _CONTROL and collective is None and not op.startswith("barrier.")
                              for (base, collective), (_, op, _) in zip(self.kinds, self.parsed))
        # per pc: a step that progresses moves exactly the threads at pc to pc + 1, changing no liveness: the
        # straight instructions and the warp / warp-group collectives (which either wait or step their threads)
        self.advances = tuple(base not in _CONTROL and collective != "bar" and not op.startswith("barrier.")
                              for (base, collective), (_, op, _) in zip(self.kinds, self.parsed))
        self.spins = _spin_waits(self.parsed, self.labels)
        # per pc: what Emu.run parks threads at: a spin loop's poll (its operands), an unpredicated bar.sync (_BAR)
        self.waits = tuple(spin if spin is not None else _BAR if collective == "bar" and pred is None and
                           not op.startswith(("bar.arrive", "barrier.arrive")) else None
                           for spin, (_, collective), (pred, op, _) in zip(self.spins, self.kinds, self.parsed))
        self.shared = re.findall(r"^\s*\.shared\s+(?:\.align\s+(\d+)\s+)?\.b8\s+([\w$]+)\[(\d+)\]", ptx, re.M)
        self.globals = re.findall(
            r"^\s*\.global\s+(?:\.align\s+(\d+)\s+)?\.b8\s+([\w$]+)\[(\d+)\](?:\s*=\s*\{([^}]*)\})?\s*;", ptx, re.M)
        self.locals = re.findall(r"^\s*\.local\s+(?:\.align\s+(\d+)\s+)?\.b8\s+([\w$]+)\[(\d+)\]", ptx, re.M)


_DECODED: dict[str, _Decoded] = {}
_DECODED_MAX = 16  # PTX texts kept (a test runs the CTAs of one or a few kernels)


def _decoded(ptx: str) -> _Decoded:
    """:class:`_Decoded` of ``ptx``, made once per text (the CTAs of a launch share it)."""
    entry = _DECODED.get(ptx)
    if entry is None:
        entry = _Decoded(ptx)
        if len(_DECODED) >= _DECODED_MAX:
            _DECODED.pop(next(iter(_DECODED)))
        _DECODED[ptx] = entry
    return entry


class Emu:
    """One CTA of the kernel in ``ptx``: ``params_values`` (one int per entry parameter: pointers as
    addresses, f32 as bits), ``tmaps`` (tensor-map parameter name -> ``{"array": [b, rows, cols]
    fp16, "rows": box rows}``, 64-column boxes), ``memory`` ([(base address, uint8 view, name)]
    that global loads may read and stores may write), ``guards`` (mbarrier shared offset -> [(lo, hi)] shared byte
    ranges whose readers release them by arriving on that barrier: the stages' empty barriers).
    :meth:`run`, then read :attr:`errors`.  ``wait_delay``: hold each ready ``wgmma.wait_group``
    for that many steps of the other threads (a slow tensor core: races with the producer show)."""

    count_instructions = False
    """Count thread-instructions in :attr:`traffic` (module docstring)."""
    _handler_at = None
    """Per pc: :meth:`execute`'s handler entry, for :meth:`step` (:meth:`_run` makes it; None: through execute)."""
    rcp_approx_ulps = 0
    """``rcp.approx.f32`` off by this many ulps (up for inputs with an even last bit, down for odd ones), as the
    hardware's approximation may be (1 ulp at most): a test of a sequence that must correct it (0: the correctly
    rounded reciprocal, as before).  ``.ftz`` flushes a subnormal input and result to a zero of its sign either
    way, as the hardware does."""

    park_waits = True
    """Threads that cannot move until another thread acts are not stepped (:meth:`run`): an mbarrier spin loop's
    poll (:func:`_spin_waits`) that fails for every thread at it waits until some mbarrier changes phase, a
    ``bar.sync`` whose threads have all arrived until some named barrier completes.  A failed poll changes nothing
    but the clock, so the kernel's results are those of an interleaving in which the poll ran only once its phase
    had completed; a deadlock (every live thread waiting) raises :class:`Fault` naming the barriers waited for, where
    stepping the failed polls ran into the step limit.  False: every poll stepped (as before session 39)."""

    fp8_sum_bits = None
    """None: an 8-bit float WGMMA sums its products (and D) in f32, as the other float WGMMAs.  ``b``: a model of a
    narrower tensor-core adder (reported for H100: about 13 fraction bits, truncating): per WGMMA and element, the
    32 exact products and D are each truncated toward zero to a multiple of ``2^(e - b)``, ``2^e`` the largest
    magnitude's power of two, then summed exactly and rounded to f32.  A test aid to show which inputs such an
    adder sums exactly (not a bit-accurate model: the hardware's grouping and normalization are not modelled)."""

    def __init__(self, ptx, params_values, smem_bytes, nthreads, ctaid, tmaps, memory, guards=None, nctaid=None,
                 cluster=None):
        self.cluster = cluster  # (Cluster, rank): a CTA of a cluster along x (run by Cluster.run), else None
        self.cluster_arrived = np.zeros(nthreads, dtype=np.int64)  # each thread's barrier.cluster.arrive count
        decoded = _decoded(ptx)
        self.functions = dict(decoded.functions)
        self.params, self.insts, self.labels = list(decoded.params), decoded.insts, decoded.labels
        self.pv = dict(zip(self.params, params_values))
        # the entry parameters' bytes (a byval struct given as bytes, any other value as 8 bytes) at
        # their generic addresses: a kernel may load from a parameter through its address
        self.param_mem = np.zeros(256 * max(1, len(self.params)), dtype=np.uint8)
        for i, v in enumerate(params_values[:len(self.params)]):
            raw = bytes(v) if isinstance(v, (bytes, bytearray)) else (int(v) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
            self.param_mem[256 * i:256 * i + len(raw)] = np.frombuffer(raw, dtype=np.uint8)
        memory = [*memory, (PARAM_BASE, self.param_mem, "parameters")]
        self.cpar = {}  # call parameters / return values: name (or ("ret", offset)) -> per-thread values
        self.stack = [[] for _ in range(nthreads)]  # per-thread return addresses of calls
        self.N = nthreads
        self.regs = {}
        self._unwritten = np.full(self.N, 0x7FC00000, dtype=np.uint64)  # a new register's bits (copied)
        # static shared arrays (e.g. demoted mbarriers) first, the dynamic shared memory after them
        # at a 1024-byte boundary (at offset 0 when there are none)
        self.shared_symbols, top = {}, 0
        for align, name, size in decoded.shared:
            top = -(-top // int(align or 1)) * int(align or 1)
            self.shared_symbols[name] = top
            top += int(size)
        self.dynamic_smem = -(-top // 1024) * 1024
        # initialised module data (the format strings of printf / assert) from DATA_BASE on
        self.global_symbols, data = {}, bytearray()
        for align, name, size, init in decoded.globals:
            data += bytes(-len(data) % int(align or 1))
            self.global_symbols[name] = DATA_BASE + len(data)
            values = [int(v, 0) for v in init.split(",")] if init.strip() else []
            data += bytes(values) + bytes(int(size) - len(values))
        # per-thread local memory (the stack the printf arguments are stored on)
        self.local_symbols, local = {}, 0
        for align, name, size in decoded.locals:
            self.local_symbols[name] = local
            local += -(-int(size) // 16) * 16
        self.local_size = local
        self.printed = []  # what vprintf printed, one string per call, in the order the threads called it
        self.smem = np.zeros(self.dynamic_smem + smem_bytes + 1024, dtype=np.uint8)
        self.dynamic_smem_size = smem_bytes  # %dynamic_smem_size: the launch's dynamic shared memory
        self.ctaid = ctaid
        self.nctaid = nctaid  # the grid; a kernel reading %nctaid needs it
        self.tmaps = tmaps  # param name -> dict(array, box rows, ...)
        self.memory = memory  # list of (base, np array uint8 view, name)
        if data:
            self.memory.append((DATA_BASE, np.frombuffer(bytes(data), dtype=np.uint8).copy(), "module data"))
        if self.local_size:
            self.memory.append((LOCAL_BASE, np.zeros(self.local_size * nthreads, dtype=np.uint8), "local"))
        self.mbar = {}
        self.mb_flips = 0  # mbarrier phase changes (and inits) so far: a parked spin loop polls again after one
        self.named = {}
        self.bar_gens = 0  # named-barrier generations completed so far: a parked bar.sync is tried again after one
        self.bar_wait = np.full(self.N, -1, dtype=np.int64)
        self.pc = np.zeros(self.N, dtype=np.int64)
        self.live = np.ones(self.N, dtype=bool)
        self.groups = {}  # warpgroup -> list of groups; group = list of (regs, values, tids)
        self.open = {}
        self.pending = {}  # reg name -> set of warpgroups
        self.errors = []
        self.traffic = Counter()  # module docstring: bytes per buffer, shared bytes, barrier arrivals, instructions
        self.guards = {int(k): [tuple(r) for r in v] for k, v in (guards or {}).items()}
        self.clock = 0  # steps executed
        self.wtime = {}  # reg name -> per-thread step of its last write by a non-WGMMA instruction (WGMMA operands only)
        self.wgmma_regs = decoded.wgmma_regs
        self.fence_t = {}  # warpgroup -> step of its last wgmma.fence
        # WGMMA registers written after the last fence: kept apart from `errors` since LLVM places the
        # copies that zero a chain's tied accumulator after the fence (ptxas folds them into the first
        # WGMMA's zero accumulator input: harmless there, but outside the PTX rule)
        self.fence_errors = []
        # shared bytes written by st.shared (the generic proxy) not yet visible to a WGMMA (the async
        # proxy): 1 unfenced, 2 fenced by the writer but no barrier passed since; the writer's thread
        self.generic_state = np.zeros(len(self.smem), dtype=np.uint8)
        self.generic_writer = np.full(len(self.smem), -1, dtype=np.int64)
        # bulk (TMA) stores whose shared-memory reads have not been waited for: per thread, its uncommitted
        # ranges and its committed groups (oldest first), each a list of [lo, hi) shared byte ranges
        self.bulk_open: dict[int, list[tuple[int, int]]] = {}
        self.bulk_groups: dict[int, list[list[tuple[int, int]]]] = {}
        # bulk copies into shared memory (cp.async.bulk ... complete_tx): [lo, hi, mbarrier, phase, threads that saw it]
        self.bulk_loads: list = []
        self._branch = None  # (any thread took it, any fell through, target) of the branch just stepped
        self.wait_delay = 0  # steps a ready wgmma.wait_group waits while other threads can run
        self.ready_since = {}
        self.parsed = decoded.parsed  # (predicate, op, operands) per pc
        self.kinds = decoded.kinds  # (base name, collective unit) per pc
        self.straight = decoded.straight
        self.advances = decoded.advances
        self.spins = decoded.spins  # per pc: (address, parity) of an mbarrier spin loop's poll, else None
        self.waits = decoded.waits

    _kind = staticmethod(_kind)

    # ------------------------------------------------------------------ parsing helpers
    def _split(self, s):
        return _split(s)

    def _operands(self, rest):
        return _operands(rest)

    # ------------------------------------------------------------------ values
    def get(self, x, T):
        reg = self.regs.get(x)
        if reg is not None:  # a register written before (the common case; never a special register)
            if self.pending and self.pending.get(x):
                self._check_pending(x, T)
            return reg[T]
        imm = _IMMEDIATES.get(x)
        if imm is not None:  # a literal read before
            out = np.empty(np.count_nonzero(T), dtype=np.uint64)
            out.fill(imm)
            return out
        x = x.strip()
        reg = self.regs.get(x)
        if reg is not None:  # (an operand spelled with spaces)
            if self.pending.get(x):
                self._check_pending(x, T)
            return reg[T]
        if x.startswith("%") or x == "p":
            if x in ("%tid.x",):
                return np.arange(self.N, dtype=np.uint64)[T]
            if x == "%dynamic_smem_size":
                return np.full(T.sum(), self.dynamic_smem_size, dtype=np.uint64)
            if x == "%clock64":  # the steps executed so far: a wait on the clock ends
                return np.full(T.sum(), self.clock, dtype=np.uint64)
            if x == "%globaltimer":  # ns on the GPU: here the steps executed so far + 1 (never 0, as on the GPU)
                return np.full(T.sum(), self.clock + 1, dtype=np.uint64)
            if x == "%smid":  # the SM: here the CTA's x index (one CTA per SM)
                return np.full(T.sum(), self.ctaid[0], dtype=np.uint64)
            if self.cluster is not None and x in _CLUSTER_X:  # a CTA of a cluster along x
                cl, rank = self.cluster
                v = {"%cluster_ctarank": rank, "%cluster_ctaid.x": rank, "%cluster_nctarank": cl.size,
                     "%cluster_nctaid.x": cl.size, "%clusterid.x": self.ctaid[0] // cl.size,
                     "%nclusterid.x": self.nctaid[0] // cl.size}[x]
                return np.full(T.sum(), v, dtype=np.uint64)
            if x in ("%tid.y", "%tid.z", "%cluster_ctarank", "%cluster_ctaid.x", "%cluster_ctaid.y",
                     "%cluster_ctaid.z"):  # a one-dimensional CTA, a cluster of one CTA
                return np.zeros(T.sum(), dtype=np.uint64)
            if x.startswith("%ntid."):  # a one-dimensional CTA of N threads
                return np.full(T.sum(), self.N if x.endswith("x") else 1, dtype=np.uint64)
            if x in ("%cluster_nctarank", "%cluster_nctaid.x", "%cluster_nctaid.y", "%cluster_nctaid.z"):
                return np.ones(T.sum(), dtype=np.uint64)  # launched without a cluster: clusters of one CTA
            if x.startswith(("%ctaid.", "%clusterid.")):  # (a cluster of one: the cluster's id is the CTA's)
                return np.full(T.sum(), self.ctaid["xyz".index(x[-1])], dtype=np.uint64)
            if x.startswith(("%nctaid.", "%nclusterid.")):
                if self.nctaid is None:
                    raise ValueError("the kernel reads %nctaid: pass the grid as nctaid=(x, y, z)")
                return np.full(T.sum(), self.nctaid["xyz".index(x[-1])], dtype=np.uint64)
            self._check_pending(x, T)
            if x not in self.regs:
                self.regs[x] = np.full(self.N, 0x7FC00000, dtype=np.uint64)
            return self.regs[x][T]
        if x.startswith("0f"):
            _IMMEDIATES[x] = int(x[2:], 16)
            return np.full(T.sum(), _IMMEDIATES[x], dtype=np.uint64)
        if x.startswith("0d"):  # an f64 immediate: its bits
            _IMMEDIATES[x] = int(x[2:], 16)
            return np.full(T.sum(), _IMMEDIATES[x], dtype=np.uint64)
        if re.match(r"^-?\d+U?$", x) or re.match(r"^-?0x[0-9a-fA-F]+U?$", x):  # (U: LLVM's unsigned spelling)
            _IMMEDIATES[x] = int(x.rstrip("U"), 0) & 0xFFFFFFFFFFFFFFFF
            return np.full(T.sum(), _IMMEDIATES[x], dtype=np.uint64)
        if x in self.pv:
            return np.full(T.sum(), self.param_addr(x), dtype=np.uint64)
        if x in ("__tileorch_dynamic_smem", "__tileorch_simt_scratch"):  # the kernel's one shared array
            return np.full(T.sum(), self.dynamic_smem, dtype=np.uint64)
        if x in self.shared_symbols:
            return np.full(T.sum(), self.shared_symbols[x], dtype=np.uint64)
        if x in self.global_symbols:
            return np.full(T.sum(), self.global_symbols[x], dtype=np.uint64)
        if x in self.local_symbols:  # (local addresses are their generic addresses here: cvta.local keeps them)
            tids = np.nonzero(T)[0].astype(np.uint64)
            return np.uint64(LOCAL_BASE + self.local_symbols[x]) + tids * np.uint64(self.local_size)
        raise Fault(f"operand {x}")

    def param_addr(self, name):
        return PARAM_BASE + self.params.index(name) * 256

    def set(self, x, T, v):
        reg = self.regs.get(x)
        if reg is None:
            x = x.strip()
            reg = self.regs.get(x)
            if reg is None:  # (f32 NaN bits: a register no instruction wrote)
                reg = self.regs[x] = self._unwritten.copy()
        if self.pending and self.pending.get(x):
            self._check_pending(x, T)
        v = np.asarray(v)
        reg[T] = v if v.dtype == np.uint64 else v.astype(np.uint64)
        if x in self.wgmma_regs:  # (no other register's write time is read)
            written = self.wtime.get(x)
            if written is None:
                written = self.wtime[x] = np.full(self.N, -1, dtype=np.int64)
            written[T] = self.clock

    def _check_pending(self, x, T):
        wgs = self.pending.get(x)
        if wgs:
            hit = set((np.nonzero(T)[0] // 128).tolist()) & wgs
            if hit:
                self.errors.append(f"pc {self.cur_pc}: '{self.insts[self.cur_pc]}' touches {x} of an in-flight WGMMA (wg {hit})")

    # ------------------------------------------------------------------ memory
    def addr(self, x, T):
        split = _ADDRESSES.get(x)
        if split is None:
            inner = x.strip()[1:-1]
            m = re.match(r"^(.*?)\s*\+\s*(-?\d+)$", inner)
            split = _ADDRESSES[x] = (m.group(1), int(m.group(2))) if m else (inner, 0)
        x, off = split
        base = self.get(x, T)
        return (base + np.uint64(off & 0xFFFFFFFFFFFFFFFF)) & np.uint64(0xFFFFFFFFFFFFFFFF)

    def shared_off(self, a):
        a = a.astype(np.int64)
        if len(a) and int(a.min()) >= GBASE:  # every address generic (the usual case): one subtraction
            a = a - GBASE
        else:
            a = np.where(a >= GBASE, a - GBASE, a)
        if len(a) and (int(a.min()) < 0 or int(a.max()) >= len(self.smem)):
            raise Fault(f"shared address out of range {a.min()}..{a.max()}")
        return a

    def global_store(self, a, vals, nbytes):
        """Store the low ``nbytes`` bytes of each of ``vals`` (little-endian) at the global addresses
        ``a``, in thread order: each into the first buffer of :attr:`memory` that holds it."""
        if not self._global_store_at_once(a, vals, nbytes):
            self._global_store_each(a, vals, nbytes)

    def _global_store_each(self, a, vals, nbytes):
        for addr, v in zip(a.tolist(), vals.tolist()):
            for base, buf, name in self.memory:
                if base <= addr and addr + nbytes <= base + len(buf):
                    buf[addr - base:addr - base + nbytes] = np.frombuffer(int(v).to_bytes(8, "little")[:nbytes], dtype=np.uint8)
                    self.traffic["store:" + name] += nbytes
                    break
            else:
                self.errors.append(f"ILLEGAL global store at {addr:#x}")
                raise Fault(f"illegal global address {addr:#x}")

    def _global_store_at_once(self, a, vals, nbytes) -> bool:
        """:meth:`_global_store_each` as one numpy scatter, where that is the same: every address
        in one buffer (the first that holds it) and no two stores touching the same byte (so the
        thread order cannot matter).  False (nothing stored) otherwise: the caller stores one by one."""
        where = self._one_buffer(a, nbytes, vals)
        if where is None:
            return False
        buf, name, off = where
        if len(off) > 1:
            ordered = np.sort(off)
            if (ordered[1:] - ordered[:-1] < nbytes).any():  # overlapping stores: thread order decides
                return False
        raw = np.ascontiguousarray(vals, dtype="<u8").view(np.uint8).reshape(-1, 8)[:, :nbytes]
        buf[off[:, None] + _BYTE_INDEX[:nbytes]] = raw
        self.traffic["store:" + name] += nbytes * len(off)
        return True

    def _one_buffer(self, a, nbytes, vals=None):
        """(buffer, its name, the byte offsets of ``a`` in it) when each address of ``a`` (at least
        :data:`_AT_ONCE_MIN` of them) lies, ``nbytes`` long, in the same buffer of :attr:`memory` and no
        earlier buffer holds any of them; else None.  ``vals``: a store's values, which must be
        uint64 (what the scatter writes)."""
        if len(a) < _AT_ONCE_MIN or a.dtype != np.uint64 or not 0 < nbytes <= 8 or (
                vals is not None and (vals.dtype != np.uint64 or vals.shape != a.shape)):
            return None
        lo, hi = int(a.min()), int(a.max())
        for base, buf, name in self.memory:
            if base <= lo and hi + nbytes <= base + len(buf):
                if buf.dtype != np.uint8 or buf.ndim != 1:
                    return None
                return buf, name, (a - np.uint64(base)).astype(np.intp)
            if base <= hi + nbytes and lo < base + len(buf):  # holds some of them: one by one
                return None
        return None

    def global_load(self, a, nbytes):
        """The ``nbytes``-byte little-endian values at the global addresses ``a`` (uint64), each from
        the first buffer of :attr:`memory` that holds it."""
        where = self._one_buffer(a, nbytes)
        if where is not None:
            buf, name, off = where
            raw = np.zeros((len(off), 8), dtype=np.uint8)
            raw[:, :nbytes] = buf[off[:, None] + _BYTE_INDEX[:nbytes]]
            self.traffic["load:" + name] += nbytes * len(off)
            return raw.view("<u8").reshape(-1).astype(np.uint64)
        out = []
        for addr in a.tolist():
            for base, buf, name in self.memory:
                if base <= addr and addr + nbytes <= base + len(buf):
                    out.append(int.from_bytes(buf[addr - base:addr - base + nbytes].tobytes(), "little"))
                    self.traffic["load:" + name] += nbytes
                    break
            else:
                self.errors.append(f"ILLEGAL global load at {addr:#x}")
                raise Fault(f"illegal global address {addr:#x}")
        return np.array(out, dtype=np.uint64)

    # ------------------------------------------------------------------ mbarrier
    def mb(self, off):
        b = self.mbar.get(off)
        if b is None:
            b = self.mbar[int(off)] = {"phase": 0, "count": None, "pending": None, "tx": 0}
        return b

    def mb_arrive(self, off, n=1):
        b = self.mb(off)
        b["pending"] -= n
        self._mb_check(b, off)

    def _mb_check(self, b, off):
        if b["pending"] < 0:
            self.errors.append(f"mbarrier {off}: more arrivals than expected")
        if b["pending"] <= 0 and b["tx"] == 0:
            b["phase"] ^= 1
            b["pending"] = b["count"]
            self.mb_flips += 1

    # ------------------------------------------------------------------ run
    def _rcp_f32(self, x: np.ndarray, parts: list) -> np.ndarray:
        """``rcp[.approx][.ftz].f32`` of f32 ``x`` (see :attr:`rcp_approx_ulps`)."""
        tiny = np.float32(1.1754944e-38)
        if "ftz" in parts:
            x = np.where(np.abs(x) < tiny, x * np.float32(0), x)
        r = (np.float32(1) / x).astype(np.float32)
        if "approx" in parts and self.rcp_approx_ulps:
            up = (x.view(np.uint32) & np.uint32(1)) == 0
            nudged = r.copy()
            for _ in range(self.rcp_approx_ulps):
                nudged = np.where(up, np.nextafter(nudged, np.float32(np.inf)), np.nextafter(nudged, np.float32(-np.inf)))
            r = np.where(np.isfinite(r) & (r != 0), nudged, r).astype(np.float32)
        if "ftz" in parts:
            r = np.where(np.abs(r) < tiny, r * np.float32(0), r)
        return r

    def run(self, max_steps=5_000_000):
        """Run the CTA until every thread exited (True), or (a CTA of a :class:`Cluster`) until its threads wait on
        the other CTAs (False); numpy's floating-point warnings ignored throughout (the kernel's arithmetic)."""
        _RUNS[0] += 1
        try:
            with np.errstate(all="ignore"):
                return self._run(max_steps)
        finally:
            _RUNS[0] -= 1

    def _run(self, max_steps):
        # per pc: execute's (handler, parts) for step's common case, filled as the pcs run; None where execute is
        # not Emu's own (step then calls it)
        self._handler_at = [None] * len(self.parsed) if type(self).execute is _EXECUTE else None
        steps = 0
        rr = 0
        count = np.count_nonzero  # ndarray.any() / .sum() cost several times more on these small masks
        advances = self.advances
        kinds = self.kinds
        parsed = self.parsed
        waits = self.waits if self.park_waits else None
        parked = {}  # pc -> (mb_flips or bar_gens, threads there) when its threads last could not move (park_waits)
        pcs = None
        # masks[pc]: the mask of the live threads at pc, for the pcs whose mask was made since `pcs` was counted,
        # kept while `exact` (pcs is then exactly the live threads' pcs): a straight step moves its mask to the
        # next pc (or into that pc's mask) instead of comparing every thread's pc again.  A named barrier that
        # does not progress may still move its predicated-off threads on: masks are made afresh until the next count
        masks: dict = {}
        exact = True
        while True:
            if pcs is None:
                live = count(self.live)
                if not live:
                    break
                every = live == self.N  # every thread live: the masks below need no `self.live &`
                pcs = _distinct(self.pc if every else self.pc[self.live])
                masks = {}
                exact = True
            progressed = False
            stepped = None
            if len(pcs) == 1:
                order = pcs
            else:
                k = rr % len(pcs)
                order = pcs[k:] + pcs[:k] if k else pcs
            rr += 1
            held = []
            for pc in order:
                T = masks.get(pc)  # (a kept mask is never empty)
                if T is None:
                    T = (self.pc == pc) if every else self.live & (self.pc == pc)
                    if not count(T):
                        continue
                    if exact:
                        masks[pc] = T
                if waits is not None and waits[pc] is not None:
                    if waits[pc] is _BAR:
                        if parked.get(pc) == (self.bar_gens, count(T)):  # the same threads, no barrier completed
                            continue
                    else:  # an mbarrier spin loop's poll: not stepped while it fails for every thread at it
                        key = (self.mb_flips, count(T))
                        if parked.get(pc) == key or self._poll_fails(waits[pc], T):
                            parked[pc] = key
                            continue
                if self.wait_delay and parsed[pc][1].startswith("wgmma.wait_group"):
                    since = self.ready_since.setdefault(pc, steps)
                    if steps - since < self.wait_delay:  # the tensor core is slow: others run first
                        held.append((pc, T))
                        continue
                if self.step(pc, T):
                    self.ready_since.pop(pc, None)
                    progressed = True
                    steps += 1
                    stepped = pc
                    break
                if kinds[pc][1] == "bar":
                    if parsed[pc][0] is not None:  # (see masks above)
                        if exact:
                            exact = False
                            masks = {}
                    elif waits is not None:  # unpredicated: nothing moved; it cannot until a barrier completes
                        parked[pc] = (self.bar_gens, count(T))
            if not progressed and held:
                pc, T = held[0]
                self.ready_since.pop(pc, None)
                progressed = self.step(pc, T)
                steps += 1
            if not progressed:
                if self.cluster is not None and any(self.insts[p].startswith("barrier.cluster.wait") for p in pcs):
                    return False  # the cluster's other CTAs have not arrived yet: Cluster.run resumes this one
                raise Fault(self._deadlock(pcs))
            if steps > max_steps:
                raise Fault("step limit")
            if stepped is not None and advances[stepped]:  # its threads, all of them, one pc on
                if exact:
                    moved = masks.pop(stepped)
                    if stepped + 1 not in pcs:  # no thread was there: the moved threads' mask is that pc's
                        masks[stepped + 1] = moved
                    elif stepped + 1 in masks:
                        masks[stepped + 1] = masks[stepped + 1] | moved
                # pcs stays sorted: stepped + 1 takes stepped's place, or joins the next pc's threads there
                i = pcs.index(stepped)
                pcs = pcs.copy()  # (`order` may be this list)
                if i + 1 < len(pcs) and pcs[i + 1] == stepped + 1:
                    del pcs[i]
                else:
                    pcs[i] = stepped + 1
            elif stepped is not None and exact and self._branch is not None:
                # a branch moved the threads at `stepped` to its target and / or the next pc: the same pcs a
                # count finds (exact: no other thread moved since the last count), the masks made afresh
                taken, fell, target = self._branch
                moved = set(pcs)
                moved.discard(stepped)
                if taken:
                    moved.add(target)
                if fell:
                    moved.add(stepped + 1)
                pcs = sorted(moved)
                # the other pcs' threads did not move: their masks stand; the target's and the next pc's may have
                # grown (the threads moved there join any already there)
                masks.pop(stepped, None)
                if taken:
                    masks.pop(target, None)
                if fell:
                    masks.pop(stepped + 1, None)
            else:
                pcs = None  # recounted from the threads
            self._branch = None
        for bid, b in self.named.items():
            if b["count"]:
                self.errors.append(f"CTA exits with {b['count']} threads arrived on named barrier {bid}")
        for wg, gs in self.groups.items():
            if gs or self.open.get(wg):
                self.errors.append(f"warpgroup {wg} exits with WGMMAs in flight")
        for lo, hi, bar, phase, seen in self.bulk_loads:
            if not seen:  # (on the GPU the copy may still be writing the shared memory the CTA gave back)
                self.errors.append(f"CTA exits with a bulk copy into shared bytes {lo:#x}..{hi:#x} whose mbarrier "
                                   f"{bar} phase {phase} no thread waited for")
        return True

    def _poll_fails(self, spin, T) -> bool:
        """Whether ``mbarrier.try_wait.parity`` (``spin``: its address and parity operands) fails for every thread
        of ``T``: each one's barrier is in the phase of its parity (the phase it waits to complete)."""
        offs = self.shared_off(self.addr(spin[0], T)).tolist()
        par = self.get(spin[1], T).tolist()
        mb = self.mb
        return all(mb(off)["phase"] == (p & 1) for off, p in zip(offs, par))

    def _deadlock(self, pcs) -> str:
        """The message of the deadlock :meth:`run` found at ``pcs`` (no thread can move): each pc's instruction and
        its threads; for an mbarrier poll, the barriers and phases they wait for; for a named barrier, its arrivals."""
        out = []
        for pc in pcs:
            T = self.live & (self.pc == pc)
            tids = np.nonzero(T)[0]
            where = f"pc {pc} '{self.insts[pc]}' threads {tids[0]}..{tids[-1]} ({len(tids)})"
            spin = self.spins[pc]
            if spin is not None:
                offs = self.shared_off(self.addr(spin[0], T)).tolist()
                par = self.get(spin[1], T).tolist()
                waits = sorted({(off, p & 1) for off, p in zip(offs, par)})
                where += ": " + ", ".join(
                    f"mbarrier {off} waits for phase {p} to complete ({self.mb(off)['pending']} arrivals, "
                    f"{self.mb(off)['tx']} tx bytes pending)" for off, p in waits)
            elif self.kinds[pc][1] == "bar":
                ids = self.get(self.parsed[pc][2][0], T).tolist()
                bars = [(b, self.named.get(b, {})) for b in sorted(set(ids))]
                where += ": " + ", ".join(f"named barrier {b} has {nb.get('count', 0)} of {nb.get('want', '?')} "
                                          "arrivals" for b, nb in bars)
            out.append(where)
        return "deadlock: no thread can move: " + "; ".join(out)

    def units_complete(self, T, size):
        """Every live thread of each warp (``size`` 32) or warp group (128) that has a thread in ``T`` is in ``T``."""
        n = self.N
        whole = n - n % size  # the units of ``size`` threads; the last one may be short
        if whole:
            t, live = T[:whole].reshape(-1, size), self.live[:whole].reshape(-1, size)
            if not ((t | ~live).all(axis=1) | ~t.any(axis=1)).all():
                return False
        if whole < n:
            t, live = T[whole:], self.live[whole:]
            if t.any() and not (t | ~live).all():
                return False
        return True

    def step(self, pc, T):
        self.cur_pc = pc
        self.clock += 1
        pred, op, ops = self.parsed[pc]
        if pred is None and self.straight[pc] and not self.count_instructions:
            # the common case, as the general path below runs it: no predicate, no control flow, barrier or
            # collective (E is T), nothing counted
            at = self._handler_at
            if at is None:  # execute is changed (a subclass, a test's patch): through it
                self.execute(op, ops, T)
            else:  # execute's handler for the opcode, looked up once per pc (as execute runs it)
                entry = at[pc]
                if entry is None:
                    clustered = self.cluster is not None
                    entry = at[pc] = _HANDLERS.get((op, clustered)) or _handler_of(op, clustered)
                entry[0](self, op, ops, T, entry[1])
            self.pc[T] = pc + 1
            return True
        base, collective = self.kinds[pc]
        if collective == "bar":
            return self.named_barrier(pc, T, op, ops, pred)
        if self.cluster is not None and op.startswith("barrier.cluster."):
            return self.cluster_barrier(pc, T, op)
        elif collective and not self.units_complete(T, collective):
            return False
        if pred is not None and base == "bra":  # a conditional branch: each thread to its target or on
            neg, p = pred
            pv = self.get(p, T).astype(bool)
            if neg:
                pv = ~pv
            tidx = np.nonzero(T)[0]
            target = self.labels[ops[0]]
            self.pc[tidx] = np.where(pv, target, pc + 1)
            taken = int(np.count_nonzero(pv))
            self._branch = (taken > 0, taken < len(pv), target)
            return True
        if pred is not None:
            tidx = np.nonzero(T)[0]
            neg, p = pred
            pv = self.get(p, T).astype(bool)
            if neg:
                pv = ~pv
            # predicated: split executed vs skipped threads
            E = T.copy()
            E[tidx[~pv]] = False
        elif base in _CONTROL:
            tidx = np.nonzero(T)[0]
            pv = np.ones(len(tidx), dtype=bool)
            E = T
        else:  # (tidx and pv are read by the control-flow instructions only)
            E = T
        nxt = pc + 1
        if base in ("bra",):
            tgt = self.labels[ops[0]]
            self.pc[tidx[pv]] = tgt
            self.pc[tidx[~pv]] = nxt
            self._branch = (True, False, tgt)  # (unpredicated: every thread; Emu.run reads it)
            return True
        if base == "call":  # call.uni (retvals), name, (args): the arguments become the callee's parameters
            m = re.match(r"^call(?:\.uni)?\s+(?:\(([^)]*)\)\s*,\s*)?([\w$]+)\s*(?:,\s*\(([^)]*)\))?$",
                         re.sub(r"^@!?%?\w+\s+", "", self.insts[pc]))
            if m is None:
                raise Fault(f"call {self.insts[pc]}")
            name, args = m.group(2), [a.strip() for a in (m.group(3) or "").split(",") if a.strip()]
            go = tidx[pv]
            if name in ("vprintf", "__assertfail") and name not in self.functions:  # CUDA's device runtime
                self.device_call(name, args, go)
                self.pc[tidx] = nxt
                return True
            for a, formal in zip(args, self.functions[name]):
                self.cpar.setdefault(formal, np.zeros(self.N, dtype=np.uint64))[go] = self.cpar[a][go]
            for t in go:
                self.stack[t].append(nxt)
            self.pc[go] = self.labels[name]
            self.pc[tidx[~pv]] = nxt
            return True
        if base == "ret" or base == "exit":
            for t in tidx[pv]:
                if base == "ret" and self.stack[t]:  # back to the caller
                    self.pc[t] = self.stack[t].pop()
                else:
                    self.live[t] = False
            self.pc[tidx[~pv]] = nxt
            return True
        if self.count_instructions:
            active = np.count_nonzero(E)
            self.traffic["instructions"] += active
            self.traffic["op:" + op] += active
        else:
            active = E is T or np.count_nonzero(E)
        if active:
            self.execute(op, ops, E)
        self.pc[T] = nxt
        return True

    def cluster_barrier(self, pc, T, op):
        """``barrier.cluster.arrive`` counts the thread's arrival (its k-th); ``barrier.cluster.wait``
        passes once every thread of every CTA of the cluster made its k-th arrival."""
        if ".arrive" in op:
            self.cluster_arrived[T] += 1
            self.pc[T] = pc + 1
            return True
        cl = self.cluster[0]
        need = self.cluster_arrived[T]
        done = T.copy()
        done[T] = [all(c.cluster_arrived.min() >= k for c in cl.ctas) for k in need]
        if not done.any():
            return False
        self.pc[done] = pc + 1
        return True

    def named_barrier(self, pc, T, op, ops, pred):
        if pred is not None:
            neg, pn = pred
            pv = self.get(pn, T).astype(bool)
            pv = ~pv if neg else pv
            tidx = np.nonzero(T)[0]
            skip = tidx[~pv]
            if len(skip):
                self.pc[skip] = pc + 1
                T = T.copy()
                T[skip] = False
                if not T.any():
                    return True
        tidx = np.nonzero(T)[0]
        ids = self.get(ops[0], T).astype(np.int64)
        count = int(ops[1]) if len(ops) > 1 else int(self.live.sum())
        arrive_only = "arrive" in op
        progressed = False
        for bid in sorted(set(ids.tolist())):
            ts = tidx[ids == bid]
            b = self.named.setdefault(bid, {"count": 0, "gen": 0, "want": count})
            if b["count"] and b["want"] != count:
                self.errors.append(f"named barrier {bid}: counts {b['want']} and {count} mixed")
            b["want"] = count
            new = ts[self.bar_wait[ts] < 0] if not arrive_only else ts
            if len(new):
                progressed = True
                self.traffic["bar"] += len(new)
                b["count"] += len(new)
                b.setdefault("members", []).extend(new.tolist())
                gen = b["gen"]
                if b["count"] >= count:
                    if (self.generic_state == 2).any():  # the members' fenced generic writes are now visible
                        seen = (self.generic_state == 2) & np.isin(self.generic_writer, b["members"])
                        self.generic_state[seen] = 0
                    b["members"] = []
                    if b["count"] > count:
                        self.errors.append(f"named barrier {bid}: {b['count']} arrivals for a count of {count}")
                    b["count"] = 0
                    b["gen"] += 1
                    self.bar_gens += 1
                if arrive_only:
                    self.pc[new] = pc + 1
                else:
                    self.bar_wait[new] = gen
            if not arrive_only:
                done = ts[(self.bar_wait[ts] >= 0) & (self.bar_wait[ts] < b["gen"])]
                if len(done):
                    progressed = True
                    self.bar_wait[done] = -1
                    self.pc[done] = pc + 1
        return progressed

    # ------------------------------------------------------------------ instructions
    def execute(self, op, ops, T):
        """Run instruction ``op`` (``ops``: its operands) for the threads of mask ``T``: the handler
        :func:`_select_handler` chose for the opcode (once per opcode and per clustered / not)."""
        entry = _HANDLERS.get((op, self.cluster is not None))
        if entry is None:
            entry = _handler_of(op, self.cluster is not None)
        return entry[0](self, op, ops, T, entry[1])

    # Each _run_<class>(op, ops, T, parts) runs one class of instructions for the threads of T (parts: op split at
    # its dots); _select_handler says which class an opcode is in.  The table holds Emu's functions: a subclass
    # that changes how an instruction runs overrides execute (or the methods these call: cvt, wgmma, tma, ...).
    def _run_unhandled(self, op, ops, T, parts):
        raise Fault(f"unhandled {op} {ops}")

    def _run_mov(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        base = parts[0]
        if "shared" in op and base == "cvta":
            v = g(1)
            if ".to." in op:
                v = np.where(v >= GBASE, v - GBASE, v)
            else:
                v = v + np.uint64(GBASE)
            self.set(ops[0], T, v)
        elif ops[0].startswith("{"):  # mov.b32 {lo16, hi16}, s (mov.b64 {lo, hi}, s); `_` drops a half
            v = g(1)
            halves = [x.strip() for x in ops[0][1:-1].split(",")]
            w = (64 if op.endswith("64") else 32) // len(halves)
            mask = np.uint64((1 << w) - 1)
            for i, reg in enumerate(halves):
                if reg != "_":
                    self.set(reg, T, (v >> np.uint64(i * w)) & mask)
        elif ops[1].startswith("{"):  # mov.b64 d, {lo, hi} (mov.b32 d, {lo16, hi16})
            halves = [self.get(x, T) for x in ops[1][1:-1].split(",")]
            w = np.uint64(32 if op.endswith("64") else 16)
            mask = np.uint64((1 << int(w)) - 1)
            self.set(ops[0], T, (halves[0] & mask) | ((halves[1] & mask) << w))
        else:
            self.set(ops[0], T, g(1))
        return

    def _run_ld_param(self, op, ops, T, parts):
        name, _, off = ops[1][1:-1].replace(" ", "").partition("+")
        off = int(off or 0)
        if name in self.pv and off == 0 and not isinstance(self.pv[name], (bytes, bytearray)):
            # (a negative value as its two's-complement bits, as the parameter's bytes hold it)
            self.set(ops[0], T, np.full(np.count_nonzero(T), int(self.pv[name]) & 0xFFFFFFFFFFFFFFFF,
                                        dtype=np.uint64))
        elif name.startswith("%") or name in self.pv:  # through a parameter's address
            nbytes = int(parts[-1][1:]) // 8
            self.set(ops[0], T, self.global_load(self.addr(ops[1], T), nbytes))
        else:  # a call's parameter or return value
            key = ("ret", off) if name.endswith("retval0") else name
            self.set(ops[0], T, self.cpar[key][T])
        return

    def _run_st_param(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        name, _, off = ops[0][1:-1].replace(" ", "").partition("+")
        key = ("ret", int(off or 0)) if name.endswith("retval0") else name
        width = int(parts[-1][1:])
        self.cpar.setdefault(key, np.zeros(self.N, dtype=np.uint64))[T] = g(1) & np.uint64((1 << width) - 1)
        return

    def _run_elect(self, op, ops, T, parts):
        reg, _, prd = ops[0].partition("|")
        tids = np.nonzero(T)[0]
        leader = {}
        for t in tids:
            leader.setdefault(int(t) // 32, int(t))
        lead = np.array([leader[int(t) // 32] for t in tids])
        if reg.strip() != "_":
            self.set(reg, T, (lead % 32).astype(np.uint64))
        self.set(prd, T, (lead == tids).astype(np.uint64))
        return

    def _run_prmt(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        a, b, c = (g(i) & np.uint64(0xFFFFFFFF) for i in (1, 2, 3))
        src = a | (b << np.uint64(32))
        d = np.zeros_like(a)
        for i in range(4):
            sel = (c >> np.uint64(4 * i)) & np.uint64(0xF)
            byte = (src >> ((sel & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
            byte = np.where(sel & np.uint64(8), np.where(byte >> np.uint64(7), np.uint64(0xFF), np.uint64(0)), byte)
            d |= byte << np.uint64(8 * i)
        self.set(ops[0], T, d)
        return

    def _run_f16x2(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        base = parts[0]
        a, b = g(1), g(2)
        out = np.zeros_like(a)
        for h in (0, 16):
            x, y = (((v >> np.uint64(h)) & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32)
                    for v in (a, b))
            r = (x - y if base == "sub" else x + y).astype(np.float16).view(np.uint16).astype(np.uint64)
            out |= r << np.uint64(h)
        self.set(ops[0], T, out)
        return

    def _run_f32(self, op, ops, T, parts):
        get = self.get
        base = parts[0]
        a = [get(x, T).astype(np.uint32).view(np.float32) for x in ops[1:]]  # (f32 of each operand)
        with _quiet():
            if base == "add": r = a[0] + a[1]
            elif base == "sub": r = a[0] - a[1]
            elif base == "mul": r = a[0] * a[1]
            elif base in ("fma", "mad"):
                r = _fma_f32(a[0], a[1], a[2])
                if "sat" in parts:  # clamped to [0, 1], NaN -> +0
                    r = np.where(np.isnan(r), np.float32(0), np.clip(r, np.float32(0), np.float32(1)))
            elif base in ("max", "min"): r = _max_min(base, "NaN" in parts, a[0], a[1])
            elif base == "div": r = div_rounded(a[0], a[1], _directed_mode(parts))
            elif base == "neg": r = -a[0]
            elif base == "abs": r = np.abs(a[0])
            elif base == "ex2":
                r = np.exp2(a[0].astype(np.float64)).astype(np.float32)
                if "ftz" in op:
                    r = np.where(np.abs(r) < np.float32(1.1754944e-38), np.float32(0), r)
            elif base == "rcp": r = self._rcp_f32(a[0], parts)
            elif base == "tanh": r = np.tanh(a[0])
            elif base == "lg2":  # .ftz: a subnormal input is a zero of its sign (log2: -inf)
                x = np.where(np.abs(a[0]) < np.float32(1.1754944e-38), a[0] * np.float32(0), a[0]) \
                    if "ftz" in parts else a[0]
                r = np.log2(x)
            elif base == "sqrt": r = sqrt_rounded(a[0], _directed_mode(parts))
            elif base == "rsqrt": r = (1.0 / np.sqrt(a[0].astype(np.float64))).astype(np.float32)
            elif base == "copysign": r = np.copysign(a[1], a[0])  # d = b with the sign of a
            elif base in ("sin", "cos"): r = (np.sin if base == "sin" else np.cos)(a[0].astype(np.float64))
            if base in ("add", "sub", "mul", "fma") and _directed_mode(parts) != "rn":
                r = arith_rounded(base, a, r.astype(np.float32), _directed_mode(parts))
        self.set(ops[0], T, b32(r.astype(np.float32)))
        return

    def _run_f16(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        base = parts[0]
        # scalar f16 math (an epilogue's arithmetic on a tile cast to f16): exact in f64, rounded once
        a = [(g(i) & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64)
             for i in range(1, len(ops))]
        with np.errstate(all="ignore"):
            r = {"add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1],
                 "fma": lambda: a[0] * a[1] + a[2], "neg": lambda: -a[0], "abs": lambda: np.abs(a[0]),
                 "max": lambda: _max_min("max", "NaN" in parts, a[0], a[1]),
                 "min": lambda: _max_min("min", "NaN" in parts, a[0], a[1])}[base]()
        self.set(ops[0], T, r.astype(np.float16).view(np.uint16).astype(np.uint64))
        return

    def _run_f64(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        base = parts[0]
        # f64 math (IEEE, rounded to nearest even: numpy's f64 is; fma exact in rationals, rounded once)
        a = [g(i).view(np.float64) for i in range(1, len(ops))]
        rounded = {"rn", "rz", "rm", "rp"} if base in ("sqrt", "div", "add", "sub", "mul", "fma") else {"rn"}
        if base in ("div", "rcp", "sqrt") and not rounded & set(parts):
            raise Fault(f"unhandled {op} {ops}")  # (the approximate / other-rounding forms: not modelled)
        with np.errstate(all="ignore"):
            if base == "fma":
                r = np.array([_exact_to_f64(Fraction(x) * Fraction(y) + Fraction(z)) if np.isfinite([x, y, z]).all()
                              else x * y + z for x, y, z in zip(*a)], dtype=np.float64)
                # an exact zero of a zero product: IEEE's sign (-0 * x + -0 is -0), which the rationals drop
                r = np.where((r == 0) & ((a[0] == 0) | (a[1] == 0)), a[0] * a[1] + a[2], r)
            else:
                r = {"add": lambda: a[0] + a[1], "sub": lambda: a[0] - a[1], "mul": lambda: a[0] * a[1],
                     "div": lambda: div_rounded(a[0], a[1], _directed_mode(parts)),
                     "rcp": lambda: 1.0 / a[0],
                     "sqrt": lambda: sqrt_rounded(a[0], _directed_mode(parts)),
                     "neg": lambda: -a[0], "abs": lambda: np.abs(a[0]),
                     "copysign": lambda: np.copysign(a[1], a[0]),  # d = b with the sign of a
                     "max": lambda: _max_min("max", "NaN" in parts, a[0], a[1]),
                     "min": lambda: _max_min("min", "NaN" in parts, a[0], a[1])}[base]()
            if base in ("add", "sub", "mul", "fma") and _directed_mode(parts) != "rn":
                r = arith_rounded(base, a, np.asarray(r, dtype=np.float64), _directed_mode(parts))
        self.set(ops[0], T, np.asarray(r, dtype=np.float64).view(np.uint64))
        return

    def _run_int(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        base = parts[0]
        width = _INT_TYPES.get(parts[-1], 1)
        signed = parts[-1].startswith("s")
        if parts[-1] == "pred":
            a = [g(i).astype(bool) for i in range(1, len(ops))]
            if base == "not":
                r = ~a[0]
            elif base in _PRED_BINARY:
                r = _PRED_BINARY[base](a[0], a[1])
            else:
                raise KeyError(base)
            self.set(ops[0], T, r.astype(np.uint64))
            return
        get = self.get
        a = [get(x, T) for x in ops[1:]]
        r = _int_op_fast(base, op, width, signed, a)
        self.set(ops[0], T, r if r is not None else _int_op_exact(base, op, width, signed, a))
        return

    def _run_shf(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        lo, hi, n = (g(i) & np.uint64(0xFFFFFFFF) for i in (1, 2, 3))
        n = n & np.uint64(31) if parts[2] == "wrap" else np.minimum(n, np.uint64(32))
        both = (hi << np.uint64(32)) | lo
        r = (both << n) >> np.uint64(32) if parts[1] == "l" else both >> n
        self.set(ops[0], T, r & np.uint64(0xFFFFFFFF))
        return

    def _run_setp(self, op, ops, T, parts):
        cmp, ty = parts[1], parts[-1]
        a, b = self.get(ops[1], T), self.get(ops[2], T)
        if ty == "f32":
            x, y = f32(a), f32(b)
        elif ty == "f64":
            x, y = a.view(np.float64), b.view(np.float64)
        elif ty == "f16":
            x, y = ((v & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16) for v in (a, b))
        elif ty not in _INT_TYPES:
            raise Fault(f"unhandled {op} {ops}")
        else:
            w = int(ty[1:])
            m = np.uint64((1 << w) - 1) if w < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
            if ty[0] == "s":  # two's-complement order as unsigned order: the sign bit flipped (+2^(w-1) mod 2^w)
                h = np.uint64(1 << (w - 1))
                x, y = (a ^ h) & m, (b ^ h) & m
            else:
                x, y = a & m, b & m
        with _quiet():
            # ne is ordered, as every comparison without u: false where an operand is NaN (PTX ISA,
            # floating-point comparisons; numpy's != is true there)
            r = _SETP_COMPARE[cmp](x, y)
        self.set(ops[0], T, r.astype(np.uint64))
        return

    def _run_selp(self, op, ops, T, parts):
        get = self.get
        a, b, c = get(ops[1], T), get(ops[2], T), get(ops[3], T).astype(bool)
        self.set(ops[0], T, np.where(c, a, b))
        return

    def _run_cvt(self, op, ops, T, parts):
        self.cvt(op, ops, T)
        return

    def _run_shfl(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        mode = parts[2]
        g(1)
        tids = np.nonzero(T)[0]
        src = self.regs[ops[1]].copy()
        bval = g(2).astype(np.int64) & 31
        cval = g(3).astype(np.int64)
        clamp, segmask = cval & 31, (cval >> 8) & 31
        # (every thread at once: the lane arithmetic of int64 arrays is Python's on these small values)
        lane = tids.astype(np.int64) % 32
        max_lane = (lane & segmask) | (clamp & ~segmask)
        if mode == "up":
            j = lane - bval
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bval
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bval
            ok = j <= max_lane
        else:  # idx
            j = (lane & segmask) | (bval & ~segmask)
            ok = j <= max_lane
        out = src[tids - lane + np.where(ok, j, lane)]
        self.set(ops[0], T, np.array(out, dtype=np.uint64))
        return

    def _run_vote(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        mode = parts[2]
        tids = np.nonzero(T)[0]
        src = g(1).astype(bool)
        out = np.zeros(len(tids), dtype=bool)
        for w in np.unique(tids // 32):
            sel = tids // 32 == w
            out[sel] = src[sel].all() if mode == "all" else src[sel].any()
        self.set(ops[0], T, out.astype(np.uint64))
        return

    def _run_mapa(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        off, rank = self.shared_off(g(1)), g(2).astype(np.int64)
        self.set(ops[0], T, np.uint64(CLUSTER_BASE) + (rank << 32).astype(np.uint64) + off.astype(np.uint64))
        return

    def _run_ld_cluster(self, op, ops, T, parts):
        a, nbytes = self.addr(ops[1], T), int(parts[-1][1:]) // 8
        cl = self.cluster[0]
        out = []
        for x in a.tolist():
            rank, off = (x - CLUSTER_BASE) >> 32, (x - CLUSTER_BASE) & 0xFFFFFFFF
            if not 0 <= rank < cl.size:
                raise Fault(f"{op}: address {x:#x} is not a cluster shared address")
            out.append(int.from_bytes(cl.ctas[rank].smem[off:off + nbytes].tobytes(), "little"))
        self.set(ops[0], T, np.array(out, dtype=np.uint64))
        return

    def _run_shared(self, op, ops, T, parts):
        base = parts[0]
        self.shared_access(base, parts, ops, T)
        return

    def _run_ld_global(self, op, ops, T, parts):
        a = self.addr(ops[1], T)
        nbytes = int(parts[-1][1:]) // 8
        if ops[0].startswith("{"):  # ld.global.v2 / .v4: consecutive elements into each register
            for i, reg in enumerate(r.strip() for r in ops[0].strip("{}").split(",")):
                self.set(reg, T, _sign_extended(self.global_load(a + np.uint64(i * nbytes), nbytes), parts[-1], reg))
            return
        self.set(ops[0], T, _sign_extended(self.global_load(a, nbytes), parts[-1], ops[0]))
        return

    def _run_st_global(self, op, ops, T, parts):
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        a = self.addr(ops[0], T)
        nbytes = int(parts[-1][1:]) // 8
        if ops[1].startswith("{"):  # st.global.v2 / .v4: consecutive elements from each register
            for i, reg in enumerate(r.strip() for r in ops[1].strip("{}").split(",")):
                self.global_store(a + np.uint64(i * nbytes), self.get(reg, T), nbytes)
            return
        self.global_store(a, g(1), nbytes)
        return

    def _run_atomic(self, op, ops, T, parts):
        base = parts[0]
        self.atomic(base, op, ops, T)
        return

    def _run_mbarrier(self, op, ops, T, parts):
        self.mbarrier(op, ops, T)
        return

    def _run_tma_store(self, op, ops, T, parts):
        self.tma_store(op, ops, T)
        return

    def _run_tma(self, op, ops, T, parts):
        self.tma(op, ops, T)
        return

    def _run_bulk_copy(self, op, ops, T, parts):
        self.bulk_copy(op, ops, T)
        return

    def _run_wgmma(self, op, ops, T, parts):
        self.wgmma(op, ops, T)
        return

    def _run_fence_proxy(self, op, ops, T, parts):
        fenced = (self.generic_state == 1) & np.isin(self.generic_writer, np.nonzero(T)[0])
        self.generic_state[fenced] = 2
        return

    def _run_trap(self, op, ops, T, parts):
        raise Fault(f"trap at pc {self.cur_pc}")

    def _run_nothing(self, op, ops, T, parts):
        return  # (griddepcontrol: one grid, no dependent launch to wait for or to release; nanosleep: a warp's
        # timing, which the emulator's interleaving does not model; its %clock64 counts steps)

    def _run_bulk_group(self, op, ops, T, parts):
        self.bulk_group(op, ops, T)
        return


    def c_string(self, addr: int) -> str:
        """The NUL-terminated string at global address ``addr``."""
        out = bytearray()
        while True:
            b = int(self.global_load(np.array([addr + len(out)], dtype=np.uint64), 1)[0])
            if b == 0:
                return out.decode("utf-8", "replace")
            out.append(b)

    def device_call(self, name, args, tids):
        """``vprintf(format, arguments)``: the text appended to :attr:`printed` (one string per
        thread, in thread order): C's rules per conversion (tileorch.testing.print_expected), each
        argument read from the buffer at its own alignment (a double or 64-bit integer 8 bytes, an
        ``int`` 4).  ``__assertfail(message, file, line, function, size)``: raises
        :class:`DeviceAssert` (the kernel stops)."""
        from tileorch.testing.print_expected import _CONV, _one

        val = lambda k, t: int(self.cpar[args[k]][t])  # noqa: E731
        for t in tids:
            if name == "__assertfail":
                raise DeviceAssert(self.c_string(val(0, t)), self.c_string(val(1, t)), val(2, t) & 0xFFFFFFFF,
                                   self.c_string(val(3, t)))
            fmt, at, text, pos = self.c_string(val(0, t)), val(1, t), "", 0
            for conv in _CONV.finditer(fmt):
                text += fmt[pos:conv.start()]
                pos = conv.end()
                if conv.group(0) == "%%":
                    text += "%"
                    continue
                wide = conv.group(5) in "eEfFgGaA" or conv.group(4) in ("l", "ll")
                size = 8 if wide else 4
                at = -(-at // size) * size
                raw = int(self.global_load(np.array([at], dtype=np.uint64), size)[0])
                at += size
                if conv.group(5) in "eEfFgGaA":
                    text += _one(conv, float(np.array([raw], dtype=np.uint64).view(np.float64)[0]), None)
                else:
                    text += _one(conv, raw, 8 * size)
            self.printed.append(text + fmt[pos:])
        self.cpar.setdefault(("ret", 0), np.zeros(self.N, dtype=np.uint64))[tids] = 0

    def atomic(self, base, op, ops, T):
        """``atom`` / ``red`` on global memory (PTX ISA "atom", "red"): ``add`` / ``min`` / ``max`` /
        ``and`` / ``or`` / ``xor`` / ``exch`` / ``cas`` / ``inc`` / ``dec`` of ``.b``, ``.u``, ``.s``
        32/64-bit integers, ``add`` of f32 / f64 and (``.noftz``) f16 / bf16, rounded to nearest even.
        The threads' updates apply one thread at a time in thread order (one order the hardware may
        pick), so threads updating the same address all count; ``atom`` returns each one's old value."""
        parts = op.split(".")
        kind = next((k for k in parts if k in _ATOMIC_OPS), None)
        ty = parts[-1]
        if kind is None or ty not in _ATOMIC_TYPES or (ty in ("f16", "bf16", "f32", "f64") and kind != "add"):
            raise Fault(f"unhandled {op} {ops}")
        dst, addr_op, vals = (None, ops[0], ops[1:]) if base == "red" else (ops[0], ops[1], ops[2:])
        nbytes = _ATOMIC_TYPES[ty]
        width = 8 * nbytes
        mask = (1 << width) - 1
        a = self.addr(addr_op, T).tolist()
        b = [x & mask for x in self.get(vals[0], T).tolist()]
        c = [x & mask for x in self.get(vals[1], T).tolist()] if kind == "cas" else None
        if ty in ("f32", "f64") and kind == "add":
            done = self._float_add_at_once(a, b, ty, nbytes, dst is not None)
            if done is not None:
                if dst is not None:
                    self.set(dst, T, done)
                return
        signed = lambda x: x - (1 << width) if ty[0] == "s" and x >> (width - 1) else x  # noqa: E731
        olds = []
        read, write = self._atomic_access(a, nbytes)
        for k in range(len(a)):
            old = read(k)
            v = b[k]
            if ty in ("f16", "bf16", "f32", "f64"):
                new = _float_add_bits(ty, old, v)
            elif kind == "add":
                new = old + v
            elif kind in ("min", "max"):
                new = (min if kind == "min" else max)(old, v, key=signed)
            elif kind == "and":
                new = old & v
            elif kind == "or":
                new = old | v
            elif kind == "xor":
                new = old ^ v
            elif kind == "exch":
                new = v
            elif kind == "cas":
                new = c[k] if old == v else old
            elif kind == "inc":
                new = 0 if old >= v else old + 1
            else:  # dec
                new = v if old == 0 or old > v else old - 1
            write(k, new & mask)
            olds.append(old)
        if dst is not None:
            self.set(dst, T, np.array(olds, dtype=np.uint64))

    def _float_add_at_once(self, addrs, vals, ty, nbytes, olds: bool):
        """``atom`` / ``red.add`` of f32 / f64 ``vals`` (bits, a list) at ``addrs`` (a list) in a few numpy calls where
        every address lies, aligned, in one buffer (:meth:`_one_buffer`): the same sums, rounded the same way, in the
        same order as one thread at a time, the same traffic.  ``red`` (not ``olds``): one ``np.add.at`` (it applies
        its updates in index order, unbuffered, each an IEEE add of the type rounded to nearest even: the add of
        :func:`_float_add_bits`); ``atom`` (``olds``: the old values, bits as uint64, returned): per word (at most
        :data:`_ACCUMULATE_WORDS` of them, or all distinct) ``np.add.accumulate`` of the word and its threads'
        addends in thread order (sequential, each partial sum rounded: element i is thread i's old value).  None
        (nothing done) otherwise, and where an addend is a NaN: numpy's scalar and array adds of two NaNs keep
        different operands' payloads (a NaN word plus a number keeps the word's, quieted, in both)."""
        where = self._one_buffer(np.array(addrs, dtype=np.uint64), nbytes)
        if where is None:
            return None
        buf, name, off = where
        if not (buf.flags.c_contiguous and buf.flags.writeable) or len(buf) % nbytes or (off % nbytes).any():
            return None
        dtype, bits = (np.float32, np.uint32) if ty == "f32" else (np.float64, np.uint64)
        addends = np.array(vals, dtype=bits).view(dtype)
        if np.isnan(addends).any():  # NaN + NaN: which payload the add keeps is the compiled code's choice
            return None
        words, idx = buf.view(dtype), off // nbytes
        out = True
        with _quiet():
            if not olds:
                np.add.at(words, idx, addends)
            else:
                uniq, inverse = np.unique(idx, return_inverse=True)
                if len(uniq) == len(idx):  # every thread its own word
                    old = words[idx]
                    words[idx] = old + addends
                elif len(uniq) <= _ACCUMULATE_WORDS:
                    old = np.empty(len(idx), dtype=dtype)
                    for g, w in enumerate(uniq.tolist()):
                        sel = np.flatnonzero(inverse == g)  # (ascending: thread order)
                        chain = np.empty(len(sel) + 1, dtype=dtype)
                        chain[0] = words[w]
                        chain[1:] = addends[sel]
                        partial = np.add.accumulate(chain)
                        old[sel] = partial[:-1]
                        words[w] = partial[-1]
                else:
                    return None
                out = old.view(bits).astype(np.uint64)
        self.traffic["load:" + name] += nbytes * len(addrs)
        self.traffic["store:" + name] += nbytes * len(addrs)
        return out

    def _atomic_access(self, addrs, nbytes):
        """``(read(k), write(k, value))``: the ``nbytes``-byte value at the k-th address of ``addrs``
        (a list of ints) as an int, and its store, with :meth:`global_load` / :meth:`global_store`'s
        effects (traffic counted per access, an illegal address raised at its access).  Where every
        address lies in one buffer (:meth:`_one_buffer`), through a memoryview of its bytes (an
        atomic is one access per thread: one numpy call per access costs more than the update)."""
        where = self._one_buffer(np.array(addrs, dtype=np.uint64), nbytes)
        if where is None or not (where[0].flags.c_contiguous and where[0].flags.writeable):
            def read(k):
                return int(self.global_load(np.array([addrs[k]], dtype=np.uint64), nbytes)[0])

            def write(k, value):
                self.global_store(np.array([addrs[k]], dtype=np.uint64), np.array([value], dtype=np.uint64), nbytes)
            return read, write
        buf, name, off = where
        view, off, traffic = memoryview(buf), off.tolist(), self.traffic

        def read(k):
            traffic["load:" + name] += nbytes
            return int.from_bytes(view[off[k]:off[k] + nbytes], "little")

        def write(k, value):
            traffic["store:" + name] += nbytes
            view[off[k]:off[k] + nbytes] = value.to_bytes(nbytes, "little")
        return read, write

    def shared_access(self, base, parts, ops, T):
        """``ld.shared`` / ``st.shared`` of 1, 2, 4 or 8 bytes (``.v2`` / ``.v4``: consecutive
        elements); a store into bytes an in-flight WGMMA reads is reported, and the stored bytes are
        recorded as generic-proxy writes (:meth:`_check_generic`)."""
        nbytes = int(parts[-1][1:]) // 8
        regs_op = ops[0] if base == "ld" else ops[1]
        regs = [r.strip() for r in regs_op.strip("{}").split(",")] if regs_op.startswith("{") else [regs_op]
        a = self.shared_off(self.addr(ops[1] if base == "ld" else ops[0], T))
        tids = np.nonzero(T)[0]
        self.traffic["shared"] += nbytes * len(regs) * len(tids)
        for i, reg in enumerate(regs):
            at = a + i * nbytes
            if base == "ld":
                if self.bulk_loads:
                    self._check_bulk_read(at, nbytes, tids)
                v = np.zeros(len(at), dtype=np.uint64)
                for b in range(nbytes):
                    v |= self.smem[at + b].astype(np.uint64) << np.uint64(8 * b)
                self.set(reg, T, _sign_extended(v, parts[-1], reg))
                continue
            v = self.get(reg, T)
            # the written bytes' extent per warp group: the groups of a body shared by several warp groups run
            # its stores together, each into its own region (the extent over all of them would span the others')
            first, last = int(tids[0]) >> 7, int(tids[-1]) >> 7
            for g in range(first, last + 1):
                mine = at if first == last else at[(tids >> 7) == g]
                if len(mine):
                    self._check_smem_write(int(mine.min()), int(mine.max()) + nbytes, "a shared store (st.shared)")
            for b in range(nbytes):
                self.smem[at + b] = ((v >> np.uint64(8 * b)) & np.uint64(0xFF)).astype(np.uint8)
                self.generic_state[at + b] = 1
                self.generic_writer[at + b] = tids

    def _check_generic(self, lo, hi):
        """A WGMMA reading shared bytes ``[lo, hi)`` that a generic-proxy store wrote without its
        writer's ``fence.proxy.async`` followed by a barrier the reader passed (a named barrier
        completed after the fence)."""
        state = self.generic_state[lo:hi]
        if state.any():
            kind = "without fence.proxy.async" if (state == 1).any() else "fenced but before a barrier"
            self.errors.append(f"pc {self.cur_pc}: a WGMMA reads shared bytes {lo:#x}..{hi:#x} written by st.shared "
                               f"{kind}")
            self.generic_state[lo:hi] = 0  # reported once

    def cvt(self, op, ops, T):
        parts = op.split(".")
        g = lambda i: self.get(ops[i], T)  # noqa: E731
        if "bf16x2.f32" in op:  # d = {bf16(a), bf16(b)}: a in the high half; nearest even
            hi, lo = (_bf16_bits(f32(g(i))) for i in (1, 2))
            self.set(ops[0], T, (hi << np.uint64(16)) | lo)
            return
        if "f16x2.f32" in op:
            hi, lo = f32(g(1)), f32(g(2))
            h = hi.astype(np.float16).view(np.uint16).astype(np.uint64)
            l_ = lo.astype(np.float16).view(np.uint16).astype(np.uint64)
            self.set(ops[0], T, (h << np.uint64(16)) | l_)
            return
        fp8 = re.match(r"cvt\.rn\.satfinite\.(e4m3|e5m2)x2\.f32$", op)
        if fp8:  # d = {fp8(a), fp8(b)}: a in the high byte; nearest even, saturating to the largest finite;
            # a NaN of either sign becomes the canonical 0x7F (measured on an H200: sweep 19's e4m3 transpose)
            t = _fp8_type(fp8.group(1))
            big = float(np.finfo(t).max)
            hi, lo = (np.where(np.isnan(f32(g(i))), np.uint64(0x7F),
                               np.clip(f32(g(i)), -big, big).astype(t).view(np.uint8).astype(np.uint64)) for i in (1, 2))
            self.set(ops[0], T, (hi << np.uint64(8)) | lo)
            return
        fp8 = re.match(r"cvt\.rn\.f16x2\.(e4m3|e5m2)x2$", op)
        if fp8:  # exact; the low byte is the low half
            t = _fp8_type(fp8.group(1))
            v = g(1)
            lo, hi = ((v >> np.uint64(s)) & np.uint64(255) for s in (0, 8))
            h16 = [x.astype(np.uint8).view(t).astype(np.float16).view(np.uint16).astype(np.uint64) for x in (lo, hi)]
            self.set(ops[0], T, (h16[1] << np.uint64(16)) | h16[0])
            return
        dst, src = parts[-2], parts[-1]
        v = g(1)
        if dst == "tf32" and src == "f32" and parts[1] in ("rn", "rna", "rz"):
            # an f32 register whose 13 low mantissa bits are cleared: nearest even (rn, sm_90), nearest
            # with ties away (rna), toward zero (rz); a NaN stays a NaN (the canonical one)
            u = v & np.uint64(0xFFFFFFFF)
            add = {"rn": np.uint64(0xFFF) + ((u >> np.uint64(13)) & np.uint64(1)), "rna": np.uint64(0x1000),
                   "rz": np.uint64(0)}[parts[1]]
            r = (u + add) & np.uint64(0xFFFFE000)
            self.set(ops[0], T, np.where(np.isnan(f32(v)), np.uint64(0x7FFFFFFF), r))
            return
        if dst in ("bf16", "f16") and src == "f32" and parts[1] == "rz":  # toward zero: truncation
            self.set(ops[0], T, _narrowed_toward_zero(f32(v), dst))
            return
        if dst == "bf16" and src == "f32":  # nearest even (cvt.rn), NaN -> the canonical 0x7FFF
            self.set(ops[0], T, _bf16_bits(f32(v)))
            return
        if src in ("f16", "f32", "f64") and dst in ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64") and \
                parts[1] in ("rzi", "rni", "rmi", "rpi"):  # float -> integer: rounded, clamped, NaN -> 0 (64-bit: below)
            x = (f32(v).astype(np.float64) if src == "f32" else v.view(np.float64) if src == "f64" else
                 (v & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64))
            w = int(dst[1:])
            lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if dst[0] == "s" else (0, (1 << w) - 1)
            rnd = {"rzi": np.trunc, "rni": np.rint, "rmi": np.floor, "rpi": np.ceil}[parts[1]]
            with np.errstate(invalid="ignore"):
                r = np.where(np.isnan(x), 0.0, rnd(x))
            ints = [max(lo, min(hi, int(y))) if np.isfinite(y) else (hi if y > 0 else lo) for y in r]
            mask = (1 << w) - 1 if w < 64 else 0xFFFFFFFFFFFFFFFF
            if w == 64 or src == "f64":  # NaN -> the sign-bit pattern (measured on an H200: cvt.rzi.s64.f32
                # and cvt.rzi.s32.f64 give INT_MIN; other f64 sources assumed the same)
                ints = [1 << (w - 1) if np.isnan(xv) else i for xv, i in zip(np.atleast_1d(x), ints)]
            self.set(ops[0], T, np.array([i & mask for i in ints], dtype=np.uint64))
            return
        if dst == "f64" and src == "f32":  # exact
            self.set(ops[0], T, f32(v).astype(np.float64).view(np.uint64))
        elif dst == "f32" and src == "f64" and parts[1] == "rn":
            self.set(ops[0], T, b32(v.view(np.float64).astype(np.float32)))
        elif dst == "f32" and src == "f64" and parts[1] == "rz":  # toward zero (past f32's range: its largest)
            x = v.view(np.float64)
            with np.errstate(over="ignore"):
                r = x.astype(np.float32)
            r = np.where(np.abs(r.astype(np.float64)) > np.abs(x), np.nextafter(r, np.float32(0)), r)
            self.set(ops[0], T, b32(r))
        elif dst == "f16" and src == "f32":
            self.set(ops[0], T, f32(v).astype(np.float16).view(np.uint16).astype(np.uint64))
        elif dst == "f32" and src == "f16":
            self.set(ops[0], T, b32((v & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float32)))
        elif dst == "f16" and src == "f64" and parts[1] == "rn":  # one rounding (numpy's f64 -> f16 is)
            with np.errstate(over="ignore"):
                self.set(ops[0], T, v.view(np.float64).astype(np.float16).view(np.uint16).astype(np.uint64))
        elif dst == "f64" and src == "f16":  # exact (a printf of an f16 value passes a double)
            h = (v & np.uint64(0xFFFF)).astype(np.uint16).view(np.float16)
            self.set(ops[0], T, h.astype(np.float64).view(np.uint64))
        elif dst in ("u64", "s64", "u32", "s32", "u16", "s16", "u8", "s8") and \
                src in ("u32", "s32", "u64", "s64", "u16", "s16", "u8", "s8"):
            sw = int(src[1:]); dw = int(dst[1:])
            x = v & np.uint64((1 << sw) - 1) if sw < 64 else v
            if src[0] == "s" and sw < 64:
                xi = x.astype(np.int64)
                xi = np.where(xi >> (sw - 1) & 1, xi - (1 << sw), xi)
                x = xi.astype(np.uint64)
            if "sat" in parts:  # .sat: clamped to the destination's range (PTX ISA, cvt), not truncated
                lo, hi = (-(1 << (dw - 1)), (1 << (dw - 1)) - 1) if dst[0] == "s" else (0, (1 << dw) - 1)
                vals = [int(i) - (1 << 64) if src[0] == "s" and int(i) >> 63 else int(i) for i in x.tolist()]
                x = np.array([min(hi, max(lo, i)) & 0xFFFFFFFFFFFFFFFF for i in vals], dtype=np.uint64)
            x = x & np.uint64((1 << dw) - 1) if dw < 64 else x
            if dst == "s8":  # a sub-word result is sign-extended into its (16-bit) register
                x = np.where(x >> np.uint64(7) & np.uint64(1), x | np.uint64(0xFF00), x)
            self.set(ops[0], T, x)
        elif dst in ("f16", "f32") and src in ("s8", "u8", "s16", "u16"):  # small integers: exact in f16 and f32
            w = int(src[1:])
            x = (v & np.uint64((1 << w) - 1)).astype(np.int64)
            x = np.where(x >> (w - 1) & 1, x - (1 << w), x) if src[0] == "s" else x
            y = x.astype(np.float16) if dst == "f16" else x.astype(np.float32)  # (|x| < 2**16: rounded as cvt.rn)
            self.set(ops[0], T, y.view(np.uint16).astype(np.uint64) if dst == "f16" else b32(y))
        elif dst in ("f16", "f32", "f64") and src in ("s32", "u32", "s64", "u64"):  # rounded to nearest even
            w = int(src[1:])  # (cvt.rz to f32: toward zero)
            x = [i - (1 << w) if src[0] == "s" and i >> (w - 1) & 1 else i
                 for i in (v & np.uint64((1 << w) - 1)).tolist()]
            ints = np.array(x, dtype=np.uint64 if src == "u64" else np.int64)
            with np.errstate(over="ignore"):  # numpy's cast from the integer type: one rounding (f16: inf past 65519)
                y = ints.astype({"f16": np.float16, "f32": np.float32, "f64": np.float64}[dst])
            if dst == "f32" and parts[1] == "rz":
                y = np.array([np.nextafter(f, np.float32(0)) if abs(int(f)) > abs(i) else f for f, i in zip(y, x)],
                             np.float32)
            self.set(ops[0], T, y.view(np.uint16).astype(np.uint64) if dst == "f16" else b32(y) if dst == "f32"
                     else y.view(np.uint64))
        elif dst == "f32" and src == "f32" and parts[1] in _ROUND_TO_INTEGER:
            # cvt.{rni,rzi,rmi,rpi}.f32.f32: the integral value nearest (even) / toward zero / down / up
            self.set(ops[0], T, b32(_ROUND_TO_INTEGER[parts[1]](f32(v)).astype(np.float32)))
        elif dst == "f64" and src == "f64" and parts[1] in _ROUND_TO_INTEGER:  # the same in f64
            self.set(ops[0], T, _ROUND_TO_INTEGER[parts[1]](v.view(np.float64)).astype(np.float64).view(np.uint64))
        else:
            raise Fault(f"cvt {op}")

    def mbarrier(self, op, ops, T):
        tids = np.nonzero(T)[0]
        if op.startswith("mbarrier.init"):
            a = self.shared_off(self.addr(ops[0], T))
            c = self.get(ops[1], T)
            for off, cnt in zip(a.tolist(), c.tolist()):
                self.mbar[off] = {"phase": 0, "count": cnt, "pending": cnt, "tx": 0}
            self.mb_flips += 1  # (a phase may have gone back to 0)
            return
        if op.startswith("mbarrier.arrive.expect_tx"):
            a = self.shared_off(self.addr(ops[1], T))
            c = self.get(ops[2], T)
            for off, cnt in zip(a.tolist(), c.tolist()):
                b = self.mb(off)
                b["tx"] += cnt
                self.mb_arrive(off)
            return
        if op.startswith("mbarrier.arrive"):
            a = self.shared_off(self.addr(ops[1], T))
            self._check_release(a, tids)
            cnt = self.get(ops[2], T) if len(ops) > 2 else np.ones(len(tids), dtype=np.uint64)
            for off, c in zip(a.tolist(), cnt.tolist()):
                self.mb_arrive(off, c)
            return
        if op.startswith("mbarrier.try_wait.parity") or op.startswith("mbarrier.test_wait.parity"):
            a = self.shared_off(self.addr(ops[1], T))
            par = self.get(ops[2], T)
            offs = a.tolist()
            phase = {off: self.mb(off)["phase"] for off in dict.fromkeys(offs)}  # (each barrier once)
            r = [int(phase[off] != (p & 1)) for off, p in zip(offs, par.tolist())]
            if self.bulk_loads:
                self._bulk_observed(offs, par.tolist(), r, tids.tolist())
            self.set(ops[0], T, np.array(r, dtype=np.uint64))
            return
        raise Fault(op)

    def tma(self, op, ops, T):
        dst = self.shared_off(self.addr(ops[0], T))
        inner = ops[1][1:-1]
        tm, coords = inner.split(",", 1)
        coords = coords.strip()[1:-1].split(",")
        tmv = self.get(tm.strip(), T)
        cs = [self.get(c.strip(), T) for c in coords]
        bar = self.shared_off(self.addr(ops[2], T))
        for k in range(len(dst)):
            pname = self.params[(int(tmv[k]) - PARAM_BASE) // 256]
            t = self.tmaps[pname]
            arr = t["array"]  # numpy [.., rows, cols] fp16 (3-D: [b, s, d]; 4-D: [b, h, s, d])
            c = [int(x[k]) & 0xFFFFFFFF for x in cs]
            c = [x - (1 << 32) if x >> 31 else x for x in c]
            # the box's rows run along array dimension ``rows_dim`` (the next-to-last unless the map says)
            rows_dim = t.get("rows_dim", len(c) - 2)
            if len(c) == 2:
                arr = arr.reshape(arr.shape[-2:])  # 2-D maps: arrays given as [1, r, c]
            if arr.ndim != len(c):
                raise Fault(f"{op}: a rank-{len(c)} map over an array of shape {arr.shape}")
            start0 = c[::-1]  # outermost first
            # a group dimension (``group_dim``, ``group`` elements): the box is ``group`` boxes of
            # ``rows`` rows, one after the other in shared memory
            group_dim, group = t.get("group_dim"), int(t.get("group", 1))
            full = arr
            box_rows, width, span = t["rows"], t.get("box", 64), t.get("swizzle", 128)
            es = full.dtype.itemsize  # the array's bits as they are (f16, bf16, fp8, f32, ...)
            if span and width * es > span:
                raise Fault(f"{op}: a box of {width} elements is wider than the {span}-byte swizzle")
            rows = box_rows * group
            box = np.zeros((rows, width), dtype=full.dtype)  # (not f16 for every 2-byte type: a bf16 value converted)
            for gi in range(group):
                start = list(start0)
                if group_dim is not None:
                    start[group_dim] += gi
                col0, row0 = start[-1], start[rows_dim]
                others = [x for i, x in enumerate(start[:-1]) if i != rows_dim]
                inside = all(0 <= x < n for x, n in
                             zip(others, [n for i, n in enumerate(full.shape[:-1]) if i != rows_dim]))
                arr = np.moveaxis(full, rows_dim, -2)  # [..., rows, cols]: the other outer coordinates first
                lead = others
                b0 = int(np.ravel_multi_index(lead, arr.shape[:-2])) if inside and lead else (0 if inside else -1)
                arr = arr.reshape((-1,) + arr.shape[-2:])
                # the box's rows and columns inside the array (the rest stays zero: TMA's fill)
                r_lo, r_hi = max(0, -row0), min(box_rows, arr.shape[1] - row0)
                c_lo, c_hi = max(0, -col0), min(width, arr.shape[2] - col0)
                if 0 <= b0 < arr.shape[0] and r_lo < r_hi and c_lo < c_hi:
                    box[gi * box_rows + r_lo:gi * box_rows + r_hi, c_lo:c_hi] = \
                        arr[b0, row0 + r_lo:row0 + r_hi, col0 + c_lo:col0 + c_hi]
            raw = box.view(np.uint8).reshape(rows, es * width)
            d = int(dst[k])
            if d % (8 * span if span else 16):
                raise Fault(f"{op}: shared destination {d:#x} not aligned to the {span}-byte swizzle's atom"
                            if span else f"{op}: shared destination {d:#x} not 16-byte aligned")
            self._check_smem_write(d, d + rows * es * width, "a TMA load")
            self.generic_state[d:d + rows * es * width] = 0
            # each byte at its swizzled address (the swizzle keeps a 16-byte chunk's bytes together:
            # it changes address bits 4.. only); swizzle 0: the unswizzled box
            lin = d + np.arange(rows * es * width, dtype=np.int64)
            self.smem[_swizzle(lin, span) if span else lin] = raw.reshape(-1)
            b = self.mb(int(bar[k]))
            b["tx"] -= rows * es * width
            self._mb_check_tx(b, int(bar[k]))

    def bulk_copy(self, op, ops, T):
        """``cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]`` (a
        cluster of one: ``dst`` is this CTA's): ``size`` bytes copied at issue, completed on the mbarrier; the
        destination bytes stay in flight for each thread until it observes the phase they complete
        (``mbarrier.try_wait.parity`` true): an ``ld.shared`` of them before is reported (:meth:`_check_bulk_read`).
        Addresses and size must be multiples of 16."""
        dst = self.shared_off(self.addr(ops[0], T))
        src = self.addr(ops[1], T)
        size = self.get(ops[2], T)
        bar = self.shared_off(self.addr(ops[3], T))
        for d, g, n, m in zip(dst.tolist(), src.tolist(), size.tolist(), bar.tolist()):
            n &= 0xFFFFFFFF
            if d % 16 or g % 16 or n % 16:
                raise Fault(f"{op}: shared {d:#x}, global {g:#x} or size {n} not a multiple of 16")
            for base, buf, name in self.memory:
                if base <= g and g + n <= base + len(buf):
                    data = buf[g - base:g - base + n]
                    self.traffic["load:" + name] += n
                    break
            else:
                self.errors.append(f"ILLEGAL bulk copy from {g:#x} ({n} bytes)")
                raise Fault(f"illegal global address {g:#x}")
            self._check_smem_write(d, d + n, "a bulk copy")
            self.smem[d:d + n] = data
            self.generic_state[d:d + n] = 0
            b = self.mb(m)
            self.bulk_loads.append([d, d + n, m, b["phase"], set()])
            b["tx"] -= n
            self._mb_check_tx(b, m)

    def _bulk_observed(self, offs, parities, done, tids):
        """Threads ``tids`` whose try-wait on barrier ``offs`` for ``parities`` succeeded (``done``) now see the
        bytes of the bulk copies that completed that phase."""
        for rec in self.bulk_loads:
            for off, p, ok, t in zip(offs, parities, done, tids):
                if ok and off == rec[2] and (p & 1) == rec[3]:
                    rec[4].add(int(t))
        self.bulk_loads = [r for r in self.bulk_loads if len(r[4]) < self.N]

    def _check_bulk_read(self, at, nbytes, tids):
        """An ``ld.shared`` of ``nbytes`` from ``at`` (per thread ``tids``) of bytes a bulk copy writes, by a thread
        that has not observed its barrier's phase."""
        for lo, hi, bar, phase, seen in self.bulk_loads:
            hit = (at < hi) & (at + nbytes > lo)
            if hit.any():
                bad = [int(t) for t, h in zip(tids.tolist(), hit.tolist()) if h and int(t) not in seen]
                if bad:
                    self.errors.append(f"pc {self.cur_pc}: ld.shared of bytes {lo:#x}..{hi:#x} of a bulk copy before "
                                       f"thread(s) {bad[:4]} waited for phase {phase} of mbarrier {bar}")
                    seen.update(bad)  # (reported once)

    def tma_store(self, op, ops, T):
        """``cp.async.bulk.tensor.Nd.global.shared::cta...bulk_group [map, {coords}], [src]``: the box (the map's
        ``rows`` x ``box`` elements, its ``swizzle``) read from shared memory at issue and written into the map's
        array (a view of a :attr:`memory` buffer), clipped to the array's bounds as TMA clips; the shared bytes
        stay read by the store (a shared write to them is reported) until a ``cp.async.bulk.wait_group`` of the
        issuing thread retires its group.  Bytes written by ``st.shared`` must be fenced
        (``fence.proxy.async``) and, when another thread wrote them, seen through a barrier since."""
        tm, coords = ops[0][1:-1].split(",", 1)
        cs = [self.get(c.strip(), T) for c in coords.strip()[1:-1].split(",")]
        tmv = self.get(tm.strip(), T)
        src = self.shared_off(self.addr(ops[1], T))
        for k, tid in enumerate(np.nonzero(T)[0].tolist()):
            t = self.tmaps[self.params[(int(tmv[k]) - PARAM_BASE) // 256]]
            arr = t["array"]
            arr = arr.reshape(arr.shape[-2:])
            if len(cs) != 2:
                raise Fault(f"{op}: only 2-D bulk tensor stores are modelled")
            col0, row0 = [(int(x[k]) & 0xFFFFFFFF) - ((int(x[k]) & 0x80000000) << 1) for x in cs]
            rows, width, span = t["rows"], t.get("box", 64), t.get("swizzle", 128)
            es = arr.dtype.itemsize
            lo = int(src[k])
            hi = lo + rows * width * es
            if lo % (8 * span if span else 16):
                raise Fault(f"{op}: shared source {lo:#x} not aligned to the {span}-byte swizzle's atom")
            state, writer = self.generic_state[lo:hi], self.generic_writer[lo:hi]
            if (state == 1).any() or ((state == 2) & (writer != tid)).any():
                kind = "without fence.proxy.async" if (state == 1).any() else "fenced but before a barrier"
                self.errors.append(f"pc {self.cur_pc}: a TMA store reads shared bytes {lo:#x}..{hi:#x} written by "
                                   f"st.shared {kind}")
            lin = np.arange(lo, hi, dtype=np.int64)
            box = self.smem[_swizzle(lin, span) if span else lin].copy().view(arr.dtype).reshape(rows, width)
            r_lo, r_hi = max(0, -row0), min(rows, arr.shape[0] - row0)
            c_lo, c_hi = max(0, -col0), min(width, arr.shape[1] - col0)
            if r_lo < r_hi and c_lo < c_hi:
                arr[row0 + r_lo:row0 + r_hi, col0 + c_lo:col0 + c_hi] = box[r_lo:r_hi, c_lo:c_hi]
                self.traffic["store:" + t.get("name", "tma")] += (r_hi - r_lo) * (c_hi - c_lo) * es
            self.bulk_open.setdefault(tid, []).append((lo, hi))

    def bulk_group(self, op, ops, T):
        """``cp.async.bulk.commit_group`` (the thread's uncommitted bulk stores become a group) and
        ``cp.async.bulk.wait_group[.read] N`` (all but the thread's N newest groups retired)."""
        for tid in np.nonzero(T)[0].tolist():
            if "commit_group" in op:
                self.bulk_groups.setdefault(tid, []).append(self.bulk_open.pop(tid, []))
            else:
                keep = int(ops[0])
                groups = self.bulk_groups.get(tid, [])
                self.bulk_groups[tid] = groups[len(groups) - keep:] if keep else []

    def _mb_check_tx(self, b, off):
        if b["pending"] <= 0 and b["tx"] == 0:
            b["phase"] ^= 1
            b["pending"] = b["count"]
            self.mb_flips += 1

    # ------------------------------------------------------------------ WGMMA
    def smem_elem(self, addr, span=128, ty="f16"):
        """The WGMMA operand elements of ``ty`` at logical shared addresses ``addr``: f16 / bf16 as f32,
        tf32 as f32 with the 13 low mantissa bits dropped (the bits the tensor core reads), s8 / u8 as
        int64."""
        return self._smem_elem_at(_swizzle(np.asarray(addr, dtype=np.int64), span), ty)

    def _smem_elem_at(self, phys, ty):
        """:meth:`smem_elem` of the physical (swizzled) byte addresses ``phys``."""
        es = _WGMMA_BYTES[ty]
        if es == 2:  # (the common case: two bytes, one gather each)
            bits = self.smem[phys].astype(np.uint16) | (self.smem[phys + 1].astype(np.uint16) << np.uint16(8))
            return _half_to_f32(bits, ty)
        bits = sum(self.smem[phys + i].astype(np.uint32) << np.uint32(8 * i) for i in range(es))
        if ty in ("s8", "u8"):
            return bits.astype(np.uint8).view(np.int8 if ty == "s8" else np.uint8).astype(np.int64)
        if ty == "tf32":
            return (bits & np.uint32(0xFFFFE000)).view(np.float32)
        if ty in _FP8_FORMATS:
            return _fp8_to_f32(bits, ty)
        return _half_to_f32(bits.astype(np.uint16), ty)

    def operand_addrs(self, desc, rows_mn, tnsp, es=2):
        """([rows_mn, 32 / es] logical byte addresses (element (mn, k)), swizzle span) of a smem operand
        of ``es``-byte elements (MN-major: 2-byte elements only, the only ones WGMMA transposes)."""
        start = (desc & 0x3FFF) << 4
        lbo = ((desc >> 16) & 0x3FFF) << 4
        sbo = ((desc >> 32) & 0x3FFF) << 4
        span = {1: 128, 2: 64, 3: 32}.get((desc >> 62) & 3)
        if span is None:
            raise Fault(f"WGMMA descriptor {desc:#x}: layout type 0 (no swizzle) is not modelled")
        w = span // 2  # elements of one swizzle row
        mn = np.arange(rows_mn)[:, None]
        k = np.arange(32 // es)[None, :]
        if tnsp and es != 2:
            raise Fault(f"WGMMA descriptor {desc:#x}: an MN-major operand of {es}-byte elements")
        if not tnsp:  # K-major: mn rows of `span` bytes, 8-row groups SBO apart
            addr = start + (mn // 8) * sbo + (mn % 8) * span + k * es
        else:  # MN-major: k rows of `span` bytes (w mn), w-mn chunks LBO apart, 8-k groups SBO apart
            addr = start + (mn // w) * lbo + (k // 8) * sbo + (k % 8) * span + (mn % w) * 2
        return addr, span

    def operand_tile(self, desc, rows_mn, tnsp, ty="f16"):
        """[rows_mn, K] K-major view (element (mn, k)) of a swizzled smem operand of ``ty``
        (:meth:`smem_elem`; K = 32 bytes of elements)."""
        if type(self).operand_addrs is not Emu.operand_addrs or type(self).smem_elem is not Emu.smem_elem:
            addr, span = self.operand_addrs(desc, rows_mn, tnsp, _WGMMA_BYTES[ty])  # (a subclass's own)
            return self.smem_elem(addr, span, ty)
        phys, _, _ = self._operand_phys(desc, rows_mn, tnsp, _WGMMA_BYTES[ty])
        return self._smem_elem_at(phys, ty)

    def _operand_phys(self, desc, rows_mn, tnsp, es):
        """(physical byte addresses, their least, their greatest + ``es``) of :meth:`operand_addrs`' elements: a
        function of the descriptor and shape alone, kept per kernel text (:data:`_OPERAND_PHYS`)."""
        key = (desc, rows_mn, tnsp, es)
        hit = _OPERAND_PHYS.get(key)
        if hit is None:
            addr, span = self.operand_addrs(desc, rows_mn, tnsp, es)
            phys = _swizzle(np.asarray(addr, dtype=np.int64), span)
            phys.flags.writeable = False
            hit = (phys, int(phys.min()), int(phys.max()) + es)
            if len(_OPERAND_PHYS) >= 4096:
                _OPERAND_PHYS.clear()
            _OPERAND_PHYS[key] = hit
        return hit

    def operand_range(self, desc, rows_mn, tnsp, es=2):
        """The [lo, hi) physical shared bytes a smem operand of ``es``-byte elements reads (a swizzle
        stays in its atom)."""
        if type(self).operand_addrs is not Emu.operand_addrs:
            addr, span = self.operand_addrs(desc, rows_mn, tnsp, es)  # (a subclass's own)
            phys = _swizzle(np.asarray(addr, dtype=np.int64), span)
            lo, hi = int(phys.min()), int(phys.max()) + es
        else:
            _, lo, hi = self._operand_phys(desc, rows_mn, tnsp, es)
        if lo < 0 or hi > len(self.smem):
            raise Fault(f"WGMMA descriptor {desc:#x}: shared bytes {lo:#x}..{hi:#x} out of range")
        return lo, hi

    def _in_flight(self, wgs=None):
        """(warpgroup, entry) of every issued, not retired WGMMA (of ``wgs`` if given)."""
        for wg in set(self.groups) | set(self.open):
            if wgs is not None and wg not in wgs:
                continue
            for grp in self.groups.get(wg, []) + [self.open.get(wg, [])]:
                for ent in grp:
                    yield wg, ent

    def _check_smem_write(self, lo, hi, what):
        for tid, ranges in [*self.bulk_open.items(),
                            *((t, [r for g in gs for r in g]) for t, gs in self.bulk_groups.items())]:
            for a, b in ranges:
                if lo < b and a < hi:
                    self.errors.append(f"pc {self.cur_pc}: {what} writes shared bytes {lo:#x}..{hi:#x} that a bulk "
                                       f"(TMA) store of thread {tid} still reads ({a:#x}..{b:#x}): no "
                                       "cp.async.bulk.wait_group.read retired it")
                    return
        for wg, ent in self._in_flight():
            for a, b in ent["smem"]:
                if lo < b and a < hi:
                    self.errors.append(f"pc {self.cur_pc}: {what} writes shared bytes {lo:#x}..{hi:#x} that an "
                                       f"in-flight WGMMA of wg {wg} reads ({a:#x}..{b:#x})")
                    return

    def _check_release(self, offs, tids):
        """An arrive on a guard barrier while the arriving warp group's WGMMAs still read its bytes."""
        for off, t in zip(offs.tolist(), tids.tolist()):
            rngs = self.guards.get(int(off))
            if not rngs:
                continue
            for wg, ent in self._in_flight({int(t) // 128}):
                for a, b in ent["smem"]:
                    if any(lo < b and a < hi for lo, hi in rngs):
                        self.errors.append(f"pc {self.cur_pc}: '{self.insts[self.cur_pc]}' releases shared bytes "
                                           f"{a:#x}..{b:#x} (barrier {off:#x}) that an in-flight WGMMA of wg {wg} "
                                           "still reads: the release precedes the wait_group that retires it")
                        return

    def wgmma(self, op, ops, T):
        tids = np.nonzero(T)[0]
        wgs = _distinct(tids >> 7)  # the warp groups (ascending)
        if op.startswith("wgmma.fence"):
            for wg in wgs:
                self.fence_t[wg] = self.clock
            return
        if op.startswith("wgmma.commit_group"):
            for wg in wgs:
                grp = self.open.pop(wg, [])
                self.groups.setdefault(wg, []).append(grp)
            return
        if op.startswith("wgmma.wait_group"):
            keep = int(ops[0])
            for wg in wgs:
                gs = self.groups.get(wg, [])
                retire = gs[:len(gs) - keep] if keep else gs
                self.groups[wg] = gs[len(gs) - keep:] if keep else []
                for grp in retire:  # oldest first; a chain's WGMMAs in issue order
                    for ent in grp:
                        for name in ent["dregs"] + ent["aregs"]:
                            self.pending[name].discard(wg)
                    for ent in grp:
                        vals = ent["compute"]()
                        lo, hi = ent["span"]  # (the warp group's threads: ts, all 128 of them)
                        for name, v in zip(ent["dregs"], vals):
                            reg = self.regs.get(name)
                            if reg is None:
                                reg = self.regs[name] = np.full(self.N, 0x7FC00000, dtype=np.uint64)
                            reg[lo:hi] = v
            return
        m = _WGMMA_SHAPES.get(op)
        if m is None:
            m = _WGMMA_SHAPES[op] = _WGMMA_SHAPE.match(op) or False
        m = m or None
        integer = m is not None and {m.group(4), m.group(5)} <= {"s8", "u8"}  # (a u8 / s8 pair: either order)
        fp8 = m is not None and {m.group(4), m.group(5)} <= set(_FP8_FORMATS)  # (e4m3 / e5m2: any pair)
        if not m or (m.group(4) != m.group(5) and not integer and not fp8) or m.group(4) not in _WGMMA_BYTES or \
                int(m.group(2)) * _WGMMA_BYTES[m.group(4)] != 32 or (m.group(3) == "s32") != (m.group(4) in ("s8", "u8")):
            raise Fault(op)
        n, ty, ty_b = int(m.group(1)), m.group(4), m.group(5)
        es = _WGMMA_BYTES[ty]
        dregs = [x.strip() for x in ops[0][1:-1].split(",")]
        reg_a = ops[1].startswith("{")
        aregs = [x.strip() for x in ops[1][1:-1].split(",")] if reg_a else []
        sign = 1  # the product's sign: imm-scale-a times imm-scale-b
        if reg_a and es not in (1, 2) or reg_a and es == 1 and not fp8:
            raise Fault(f"{op}: an A fragment in registers (16-bit and e4m3 / e5m2 operands are modelled)")
        if fp8 and len(ops) != 6:  # d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b: no transposes
            raise Fault(f"{op}: {len(ops)} operands (an e4m3 / e5m2 WGMMA of shared A and B has 6)")
        for wg in wgs:
            TT = np.zeros(self.N, dtype=bool)
            TT[wg * 128:(wg + 1) * 128] = True
            TT &= T
            ts = np.nonzero(TT)[0]
            assert len(ts) == 128, len(ts)
            wlo, whi = wg * 128, wg * 128 + 128  # (ts: every thread of the warp group, so this slice)
            # registers other instructions wrote since the warp group's last wgmma.fence
            fence = self.fence_t.get(wg, -1)
            written = [nm for nm in dregs + aregs if nm in self.wtime]
            after = (np.stack([self.wtime[nm][wlo:whi] for nm in written]) > fence).any(axis=1) if written else []
            late = [nm for nm, hit in zip(written, after) if hit]
            if late:
                self.fence_errors.append(f"pc {self.cur_pc}: WGMMA registers written after the last wgmma.fence: "
                                         + " ".join(late))
            for nm in late:  # reported once: the WGMMA owns them now
                self.wtime[nm][ts] = -1
            # an accumulator still being written by an in-flight WGMMA of another chain
            chained = any(ent["dregs"] == dregs for _, ent in self._in_flight({wg}))
            if not chained:
                for name in dregs:
                    if self.pending.get(name) and wg in self.pending[name]:
                        self.errors.append(f"WGMMA reads {name} written by an in-flight WGMMA of another chain")
                        break
            for name in aregs:
                self._check_pending(name, TT)
            if reg_a:  # (an 8-bit B: K-major only, no transpose operand)
                descb = int(self.get(ops[2], TT)[0])
                scale_d, tnsp_b, desca, tnsp_a = ops[3], int(ops[6]) if es == 2 else 0, None, 0
            else:  # tf32 and 8-bit operands: K-major only, no transpose operands (8-bit: no scales)
                desca = int(self.get(ops[1], TT)[0])
                descb = int(self.get(ops[2], TT)[0])
                scale_d, tnsp_a, tnsp_b = ops[3], int(ops[6]) if es == 2 else 0, int(ops[7]) if es == 2 else 0
            if not integer:  # imm-scale-a / imm-scale-b (both forms): 1, or -1 (the operand negated)
                neg = [int(x) for x in ops[4:6]]
                if any(x not in (1, -1) for x in neg):
                    raise Fault(f"{op}: imm-scale-a / imm-scale-b {ops[4]}, {ops[5]} (1 or -1)")
                sign = neg[0] * neg[1]
            sd = int(self.get(scale_d, TT)[0]) if scale_d.startswith("%") or scale_d == "p" else int(scale_d)
            smem = [self.operand_range(descb, n, tnsp_b, es)]
            if desca is not None:
                smem.append(self.operand_range(desca, 64, tnsp_a, es))
            for lo, hi in smem:
                self._check_generic(lo, hi)
            ent = {"dregs": dregs, "aregs": aregs, "ts": ts, "span": (wlo, whi), "smem": smem,
                   "compute": self._deferred(n, dregs, aregs, TT, ts, desca, tnsp_a, descb, tnsp_b, sd, ty, ty_b,
                                             sign)}
            self.open.setdefault(wg, []).append(ent)
            for name in dregs + aregs:
                self.pending.setdefault(name, set()).add(wg)

    def _reg_or_nan(self, name):
        """The register ``name``'s per-thread bits, made (f32 NaN bits) if no instruction wrote it."""
        reg = self.regs.get(name)
        if reg is None:
            reg = self.regs[name] = np.full(self.N, 0x7FC00000, dtype=np.uint64)
        return reg

    def _deferred(self, n, dregs, aregs, TT, ts, desca, tnsp_a, descb, tnsp_b, sd, ty="f16", ty_b=None, sign=1):
        """``D = sign A B (+ D)`` evaluated when the WGMMA retires: shared memory, the A fragment and D
        (the chain's previous result, already retired) as they are then; A of ``ty`` (f16, bf16, tf32, s8, u8,
        e4m3, e5m2), B of ``ty_b`` (``ty`` when None; it differs only for a u8 / s8 pair or two fp8 formats);
        ``sign``: imm-scale-a times imm-scale-b.  Float operands are exact in f32 and their products are summed
        in f32 (numpy's order: the tensor core's order and its internal precision are not modelled)."""
        ty_b = ty_b or ty
        first = int(ts[0])  # (ts: the 128 threads of one warp group, in order)
        layout = _FRAGMENTS.get(len(dregs))
        if layout is None:
            lane = np.arange(128) % 32
            warp = np.arange(128) // 32
            r0 = 16 * warp + lane // 4
            c0 = 2 * (lane % 4)
            i = np.arange(len(dregs))[:, None]
            rows = r0[None, :] + 8 * ((i // 2) % 2)  # [register, thread] -> D's row and column
            cols = 8 * (i // 4) + c0[None, :] + i % 2
            layout = _FRAGMENTS[len(dregs)] = (r0, c0, rows, cols)
        r0, c0, rows, cols = layout

        def compute():
            exact = ty in ("s8", "u8")  # s32 accumulators: the exact sum, wrapped to 32 bits
            D = np.zeros((64, n), dtype=np.int64 if exact else np.float32)
            if sd:
                cur = np.stack([self._reg_or_nan(name)[first:first + 128] for name in dregs])
                D[rows, cols] = (cur & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32) if exact else f32(cur)
            if aregs and ty in _FP8_FORMATS:  # m64 k32: register q holds row r0 + 8 (q % 2), columns
                # 16 (q // 2) + 4 (lane % 4) + byte (byte 0 the lowest column): four consecutive K elements
                A = np.zeros((64, 32), dtype=np.float32)
                for q, name in enumerate(aregs):
                    v = self.regs[name][first:first + 128]
                    rr = r0 + 8 * (q % 2)
                    cc = 2 * c0 + 16 * (q // 2)  # (c0 = 2 (lane % 4))
                    for byte in range(4):
                        A[rr, cc + byte] = _fp8_to_f32((v >> np.uint64(8 * byte)) & np.uint64(0xFF), ty)
            elif aregs:
                A = np.zeros((64, 16), dtype=np.float32)
                for q, name in enumerate(aregs):
                    v = self.regs[name][first:first + 128]
                    lo = _half_to_f32((v & np.uint64(0xFFFF)).astype(np.uint16), ty)
                    hi = _half_to_f32(((v >> np.uint64(16)) & np.uint64(0xFFFF)).astype(np.uint16), ty)
                    rr = r0 + 8 * (q % 2)
                    cc = c0 + 8 * (q // 2)
                    A[rr, cc] = lo
                    A[rr, cc + 1] = hi
            else:
                A = self.operand_tile(desca, 64, tnsp_a, ty)
            B = self.operand_tile(descb, n, tnsp_b, ty_b)  # [n, K]
            if exact:
                res = (A @ B.T + (D if sd else 0)).astype(np.int32)  # two's-complement wrap
                return list(res[rows, cols].view(np.uint32).astype(np.uint64))
            if self.fp8_sum_bits is not None and ty in _FP8_FORMATS:
                res = _narrow_sum(A, B, D if sd else None, sign, self.fp8_sum_bits)
                return list(b32(res[rows, cols].astype(np.float32)))
            with np.errstate(all="ignore"):
                res = (A.astype(np.float32) @ B.T.astype(np.float32)) * np.float32(sign) + (D if sd else 0)
            return list(b32(res[rows, cols].astype(np.float32)))

        return compute



def _narrow_sum(A, B, D, sign, bits):
    """``sign A B^T (+ D)`` [M, N] of exact f32 operands (A [M, K], B [N, K]) by :attr:`Emu.fp8_sum_bits`' model:
    per element, the K products and D each truncated toward zero to a multiple of ``2^(e - bits)`` (``2^e``: the
    largest term's power of two), summed exactly (float64: every term a multiple of that quantum below
    ``2^(e + 1)``), rounded to f32."""
    terms = sign * A.astype(np.float64)[:, None, :] * B.astype(np.float64)[None, :, :]  # [M, N, K]
    if D is not None:
        terms = np.concatenate([terms, D.astype(np.float64)[:, :, None]], axis=2)
    with np.errstate(all="ignore"):
        big = np.abs(terms).max(axis=2, keepdims=True)
        e = np.floor(np.log2(np.where(big > 0, big, 1.0)))
        q = np.exp2(e - bits)
        res = (np.trunc(terms / q) * q).sum(axis=2)
    return np.where(np.isfinite(big[..., 0]), res, terms.sum(axis=2)).astype(np.float32)


_HANDLERS: dict = {}
"""(opcode, clustered) -> (the :class:`Emu` method that runs it, its dot-separated parts): :func:`_handler_of`."""
_EXECUTE = Emu.execute
""":meth:`Emu.execute` as defined here: :meth:`Emu.step` runs its handlers itself while the class's is this one."""


def _select_handler(op: str, parts: tuple, clustered: bool):
    """The :class:`Emu` method that runs opcode ``op`` (``parts``: ``op`` split at its dots; ``clustered``: the CTA
    runs in a cluster of several): the first of the instruction classes, in this order, whose condition holds."""
    base = parts[0]
    if base == "mov" or base == "cvta":
        return Emu._run_mov
    if base == "ld" and "param" in op:
        return Emu._run_ld_param
    if base == "st" and "param" in op:
        return Emu._run_st_param
    if base == "elect":  # elect.sync %r|%p, membermask: the lowest active lane of each warp
        return Emu._run_elect
    if op == "prmt.b32":  # the default mode: byte i of d is byte c[4i..4i+2] of {b, a} (bit 3: its sign)
        return Emu._run_prmt
    if op in ("sub.f16x2", "sub.rn.f16x2", "add.f16x2", "add.rn.f16x2"):  # each half, rounded to f16
        return Emu._run_f16x2
    if base in ("add", "sub", "mul", "mad", "fma", "max", "min", "div", "neg", "abs", "ex2", "rcp", "tanh", "lg2",
                "sqrt", "rsqrt", "copysign", "sin", "cos") and (parts[-1] == "f32"):
        return Emu._run_f32
    if base in ("add", "sub", "mul", "fma", "max", "min", "neg", "abs") and parts[-1] == "f16":
        return Emu._run_f16
    if base in ("add", "sub", "mul", "fma", "div", "rcp", "sqrt", "max", "min", "neg", "abs", "copysign") and \
            parts[-1] == "f64":
        return Emu._run_f64
    if base in ("add", "sub", "mul", "mad", "and", "or", "xor", "shl", "shr", "not", "min", "max", "neg", "div", "rem",
                "bfe", "abs") and (parts[-1] in _INT_TYPES or parts[-1] == "pred"):  # (a float type not handled
        return Emu._run_int  # above is unhandled, never integer math on its bits)
    if base == "shf":  # shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the 64-bit {b:a} shifted by c, 32 bits kept
        return Emu._run_shf
    if base == "setp":
        return Emu._run_setp
    if base == "selp":
        return Emu._run_selp
    if base == "cvt":
        return Emu._run_cvt
    if base == "shfl":  # PTX ISA "shfl.sync": the source lane j, kept at the own lane where out of range
        return Emu._run_shfl
    if base == "vote":  # vote.sync.{all,any}.pred d, p, membermask: over the warp's threads (all present)
        return Emu._run_vote
    if base == "mapa" and clustered:  # mapa.shared::cluster.u64 d, a (shared window), rank
        return Emu._run_mapa
    if base == "ld" and parts[1] == "shared::cluster" and clustered:
        return Emu._run_ld_cluster
    if base in ("ld", "st") and parts[1] == "shared":
        return Emu._run_shared
    if base == "ld" and ("global" in op or parts[1] in ("local", "b8", "b16", "b32", "b64", "u32", "u64", "s32",
                                                          "v2", "v4")):  # generic: global, local or parameters
        return Emu._run_ld_global
    if base == "st" and ("global" in op or parts[1] == "local"):
        return Emu._run_st_global
    if base in ("atom", "red") and "shared" not in op:  # global (or generic: global here)
        return Emu._run_atomic
    if base == "mbarrier":
        return Emu._run_mbarrier
    if base == "cp" and "bulk.tensor" in op and ".global.shared" in op:
        return Emu._run_tma_store
    if base == "cp" and "bulk.tensor" in op:
        return Emu._run_tma
    if base == "cp" and op.startswith("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx"):
        return Emu._run_bulk_copy
    if base == "wgmma":
        return Emu._run_wgmma
    if op.startswith("fence.proxy.async"):  # the writer's generic shared stores, ordered before async reads
        return Emu._run_fence_proxy
    if base == "trap":
        return Emu._run_trap
    if base in ("prefetch", "fence", "setmaxnreg", "bar", "barrier", "griddepcontrol", "nanosleep"):
        return Emu._run_nothing
    if op.startswith("cp.async.bulk.wait_group") or op.startswith("cp.async.bulk.commit_group"):
        return Emu._run_bulk_group
    return Emu._run_unhandled


def _handler_of(op: str, clustered: bool) -> tuple:
    """``_HANDLERS[(op, clustered)]``, made on the first use."""
    parts = _PARTS.get(op)
    if parts is None:
        parts = _PARTS[op] = tuple(op.split("."))
    entry = _HANDLERS[(op, clustered)] = (_select_handler(op, parts, clustered), parts)
    return entry


class Cluster:
    """The CTAs of one cluster along x (``size`` of them; CTA ``x`` of the grid is rank ``x % size``
    of cluster ``x // size``), run together: each :class:`Emu` runs until it waits on
    ``barrier.cluster.wait`` for the others, which then run; ``mapa`` / ``ld.shared::cluster`` read
    another rank's shared memory.  ``make(rank, ctaid)`` builds rank ``rank``'s :class:`Emu` (with
    ``cluster=(this, rank)``)."""

    def __init__(self, size: int, make):
        self.size = size
        self.ctas = [make(rank, self) for rank in range(size)]

    def run(self):
        done = [False] * self.size
        while not all(done):
            progressed = False
            for rank, cta in enumerate(self.ctas):
                if done[rank]:
                    continue
                before = int(cta.cluster_arrived.sum()), cta.pc.copy(), cta.live.copy()
                done[rank] = cta.run()
                progressed |= done[rank] or int(cta.cluster_arrived.sum()) != before[0] or \
                    not np.array_equal(cta.pc, before[1]) or not np.array_equal(cta.live, before[2])
            if not progressed:
                raise Fault("deadlock: every CTA of the cluster waits on barrier.cluster.wait")
        return self.ctas


def _pristine() -> tuple[type, dict, dict]:
    """(``Emu``, its namespace, this module's namespace) as imported, before any test patched them
    (:func:`tileorch.testing.emulation_memo.emulator_unpatched` compares against it)."""
    return Emu, dict(vars(Emu)), dict(globals())


PRISTINE = _pristine()
