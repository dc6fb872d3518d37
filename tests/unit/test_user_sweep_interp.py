"""The SIMT programs of the user sweep (``tileorch.testing.user_programs``) run on the CPU by the
lockstep interpreter (tests/unit/simt_interp.py) against numpy references computed in float64
from the same inputs: outputs pre-filled with NaN (integers with a sentinel), odd sizes and
ragged tiles, scalars of several types.  Programs with atomics or ``while`` loops (which the
interpreter does not model) run on the GPU only (tests/gpu/test_user_sweep_gpu.py)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing.user_programs import PROGRAMS as FIRST_SWEEP  # noqa: E402
from tileorch.testing.user_programs2 import PROGRAMS as SECOND_SWEEP  # noqa: E402

PROGRAMS = {**FIRST_SWEEP, **SECOND_SWEEP}  # run() takes the programs of both sweeps (test_user_sweep2_interp.py)

RNG = np.random.default_rng(7)
SENTINEL = -(2**31)
_LOWERED: dict = {}
NP = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "int8": np.int8, "int16": np.int16,
      "int32": np.int32, "int64": np.int64, "bool_": np.bool_, "uint8": np.uint8,
      "uint32": np.uint32}


def _bf16_bits(x) -> np.ndarray:
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


# The sweeps whose compile test files compile every SIMT-path program with ``compile_once(data,
# name, **options)``: the program module's name -> those options.  run() runs such a program on
# the lowering of that compile (``compile_once_seeing_lowered``) when the compile happens in its
# call: one lowering per program and test run instead of one here and one there (conftest.py runs
# a sweep's _interp file before its _compile file, so that the compile that fills the memo is this
# file's).
SHARED_COMPILES = {
    # sweeps 3-21 (16, 18 and 20, the dot sweeps, through dot_sweep_checks.compile_sweep_program: the same options)
    **{f"tileorch.testing.user_programs{n}": {"arch": "sm_90a", "ptxas": False}
       for n in (*range(3, 22), 25, 27, 29, 31)},
    "tileorch.testing.attention_programs2": {"arch": "sm_90a", "ptxas": False},
    # test_user_sweep.py: with ptxas where it is installed (its cubin check)
    **{m: {"arch": "sm_90a", "ptxas": "available"} for m in ("tileorch.testing.user_programs",
                                                             "tileorch.testing.user_programs2")},
}


def shared_compile_options(p) -> dict | None:
    """The ``compile_once`` options the compile test file of ``p``'s sweep compiles it with, or None
    when no such file compiles it (a tier program: it runs here on its SIMT fallback, another
    lowering; a program of another module)."""
    if p.path != "simt":
        return None
    fn = getattr(getattr(p.kernel, "_annotated_function", None), "pyfunc", None)
    options = SHARED_COMPILES.get(getattr(fn, "__module__", None))
    if options is None:
        return None
    if options["ptxas"] == "available":
        from tileorch.backend.ptxas import ptxas_available

        options = {**options, "ptxas": ptxas_available()}
    return dict(options)


def _kernel_of(module):
    """(kernel ``func.func``, threads, shared-memory bytes) of a lowered SIMT module."""
    from xdsl.dialects import func

    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp) and "nvvm.kernel" in op.attributes)
    smem = fn.attributes.get("tileorch.dynamic_smem")  # the mma.sync dots' staging, past 64 KiB
    return (fn, fn.attributes["nvvm.maxntid"].get_values()[0], max(smem.value.data if smem is not None else 0, 1 << 16))


def _kernel(name):
    """This file's own lowering of program ``name`` (kept for the process)."""
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode

    if name not in _LOWERED:
        p = PROGRAMS[name]
        ctx = make_context()
        # a program the tensor-core tier takes (p.path "gemm"/"chained": tests/unit/test_user_sweep.py)
        # runs here on its SIMT fallback (a K beyond a constant K range, another architecture)
        schedule = "persistent" if p.path == "simt" else "simt"
        kind, module = lower_program(load(cutile_bytecode(p.kernel, p.spec), name, ctx), ctx, "sm_90a", schedule)
        assert kind == "simt"
        _LOWERED[name] = _kernel_of(module)
    return _LOWERED[name]


def _run_on_shared_compile(name, execute) -> bool:
    """``execute(fn, threads, smem)`` on the lowering of the compile :data:`SHARED_COMPILES` names for
    program ``name``, when that compile runs now (True); False when it ran before (the memo has
    its program, not its lowering) or there is none: then run() lowers on its own."""
    p = PROGRAMS[name]
    options = shared_compile_options(p)
    if name in _LOWERED or options is None:
        return False
    from tileorch.testing.compile_memo import compile_once_seeing_lowered
    from tileorch.testing.export import cutile_bytecode

    def see(module):  # the kernel as lower_program makes it, before the back end lowers it further
        execute(*_kernel_of(module))

    program, seen = compile_once_seeing_lowered(cutile_bytecode(p.kernel, p.spec), name, see, **options)
    assert program is None or program.kind == "simt", (name, program.kind)
    return seen


def _empty(shape, dtype):
    if dtype == "bfloat16":
        return _bf16_bits(np.full(shape, np.nan, np.float32))
    if dtype.startswith("float8"):  # (held as their bytes) the NaN byte of e4m3fn and e5m2
        return np.full(shape, 0x7F, np.uint8)
    if dtype.startswith("float"):
        return np.full(shape, np.nan, NP[dtype])
    if dtype == "bool_":
        return np.full(shape, 2, np.uint8)  # neither False nor True
    info = np.iinfo(NP[dtype])
    return np.full(shape, info.min if info.min < 0 else info.max, NP[dtype])  # an unlikely value


def resized(name, shapes: dict, scalars: dict | None = None):
    """``PROGRAMS[name]`` at other launch-time sizes (:func:`tileorch.testing.export.resized`: the
    same compiled program, checked), for :func:`run`'s ``program``: fewer loop trips or program
    instances for the interpreter than the compile and GPU tests' spec."""
    from tileorch.testing.export import resized as resized_program

    return resized_program(PROGRAMS[name], shapes, scalars)


def run(name, inputs: dict, program=None):
    """Run program ``name`` on its spec's shapes (``program``'s, from :func:`resized`, when given):
    ``inputs`` maps argument positions to numpy arrays (bf16 as float32 values) or scalars; other
    arrays start NaN / sentinel.  Returns every argument after the run (bf16 as float32 values).
    The kernel is the table's program's (the same export)."""
    from simt_interp import Interpreter, Memory

    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import FakeDeviceArray

    p = PROGRAMS[name] if program is None else program
    assert p.kernel is PROGRAMS[name].kernel, f"{name}: another program"
    mem, args, placed = Memory(), [], []
    for i, s in enumerate(p.spec):
        if isinstance(s, tuple) and len(s) == 3:  # (shape, dtype, strides): a view of a buffer (strided)
            shape, dt, strides = s
            flat, view = strided_buffer(shape, dt, strides, inputs.get(i))
            base = mem.place(flat)
            placed.append((i, base, flat, dt, view))
            args += [base, *shape, *strides]
        elif isinstance(s, tuple):
            shape, dt = s
            a = inputs.get(i)
            buf = _empty(shape, dt) if a is None else _bf16_bits(a) if dt == "bfloat16" else \
                np.asarray(a, np.uint8 if dt == "bool_" else NP[dt])
            assert buf.shape == tuple(shape), (name, i)
            buf = np.ascontiguousarray(buf).reshape(buf.shape)  # (ascontiguousarray makes a 0-d array 1-d)
            base = mem.place(buf)
            placed.append((i, base, buf, dt, None))
            args += [base, *shape, *[st // buf.itemsize for st in buf.strides]]
        else:
            args.append(inputs.get(i, s))
    # constants take no parameter: keep the kernel's parameters only
    described = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray(0x1000, s[0]) if isinstance(s, tuple) else s
                                                      for s in p.spec))
    flat, k = [], 0
    for d, s in zip(described, p.spec):
        n = 1 + 2 * len(s[0]) if isinstance(s, tuple) else 1
        if not isinstance(d, rc.ConstantArg):
            flat += args[k:k + n]
        k += n

    def execute(fn, threads, smem):
        Interpreter(fn, mem, threads, smem).run(flat, p.grid + (1,) * (3 - len(p.grid)))

    if not _run_on_shared_compile(name, execute):
        execute(*_kernel(name))
    out = {}
    for i, base, buf, dt, view in placed:
        raw, off = mem.find(base, buf.nbytes)
        got = np.frombuffer(raw[off:off + buf.nbytes].tobytes(), buf.dtype).reshape(buf.shape)
        got = got if view is None else view(got)
        out[i] = _bf16_value(got) if dt == "bfloat16" else got
    return out


def strided_buffer(shape, dt, strides, values=None):
    """The buffer behind an array of ``shape`` with element ``strides`` (a permuted or padded view, what
    ``x.transpose(1, 2)`` hands a kernel): ``(flat, view)``, ``flat`` the fill of the elements the view spans
    (:func:`_empty`) with ``values`` (the logical array, bf16 as float32 values) written through it, ``view(b)``
    the logical array (a copy) of a buffer ``b`` like ``flat``."""
    from numpy.lib.stride_tricks import as_strided

    span = 1 + sum((d - 1) * st for d, st in zip(shape, strides))
    flat = _empty((span,), dt)

    def view(b):
        return np.array(as_strided(b, tuple(shape), tuple(st * b.itemsize for st in strides)))

    if values is not None:
        v = _bf16_bits(values) if dt == "bfloat16" else np.asarray(values, np.uint8 if dt == "bool_" else NP[dt])
        assert v.shape == tuple(shape), (v.shape, shape)
        as_strided(flat, tuple(shape), tuple(st * flat.itemsize for st in strides), writeable=True)[...] = v
    return flat, view


def wrap_bits(values, bits):
    """Python integers reduced to two's complement of ``bits`` bits (the hardware's wrap), as int64;
    the sweeps' references of wrapping integer arithmetic."""
    m = 1 << bits
    return np.array([((int(v) + m // 2) % m) - m // 2 for v in np.ravel(values)], np.int64).reshape(np.shape(values))


def sample(rng, shape, dt="float32", scale=1.0):
    """Standard-normal values times ``scale`` drawn from ``rng`` in float32, as element type ``dt``
    (bf16 rounded to nearest even, held as float32).  The sweeps' test files draw their inputs here."""
    x = (rng.standard_normal(shape) * scale).astype(np.float32)
    return x.astype(NP[dt]) if dt != "bfloat16" else _bf16_value(_bf16_bits(x))


def _f(shape, dt="float32", scale=1.0):
    return sample(RNG, shape, dt, scale)


def _close(got, ref, atol, rtol=0.0):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(ref, np.float64), atol=atol, rtol=rtol)


def _softmax(t, axis):
    e = np.exp(t - t.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_cols():
    x = _f((64, 256), "float16")
    out = run("softmax_cols", {0: x})
    _close(out[1], _softmax(x.astype(np.float64), 0), 1e-5)


def test_log_softmax_rows():
    x = _f((6, 1000), "float16")
    t = x.astype(np.float64)
    ref = t - t.max(1, keepdims=True) - np.log(np.exp(t - t.max(1, keepdims=True)).sum(1, keepdims=True))
    _close(run("log_softmax_rows", {0: x})[1], ref, 1e-4)


def test_cross_entropy_rows():
    x = _f((5, 300), "bfloat16")
    labels = RNG.integers(0, 300, 5).astype(np.int32)
    t = x.astype(np.float64)
    ref = np.log(np.exp(t - t.max(1, keepdims=True)).sum(1)) + t.max(1) - t[np.arange(5), labels]
    _close(run("cross_entropy_rows", {0: x, 1: labels})[2], ref, 1e-4)


def test_layernorm_bwd_dx():
    x, dy, w = _f((4, 256), "float16"), _f((4, 256), "float16"), _f((256,), "float16")
    xd = x.astype(np.float64)
    mu = xd.mean(1)
    rs = 1 / np.sqrt(xd.var(1) + 1e-5)
    xhat = (xd - mu[:, None]) * rs[:, None]
    wdy = w.astype(np.float64) * dy
    ref = (wdy - (xhat * (xhat * wdy).mean(1, keepdims=True) + wdy.mean(1, keepdims=True))) * rs[:, None]
    out = run("layernorm_bwd_dx", {0: x, 1: dy, 2: w, 3: mu.astype(np.float32), 4: rs.astype(np.float32)})
    _close(out[5], ref, 2e-2, 1e-2)


def test_add_rmsnorm():
    x, r, w = _f((3, 512), "bfloat16"), _f((3, 512), "bfloat16"), _f((1, 512), "bfloat16")
    s = x.astype(np.float64) + r
    out = run("add_rmsnorm", {0: x, 1: r, 2: w})
    _close(out[3], s, 0.02, 1e-2)
    _close(out[4], s / np.sqrt((s * s).mean(1, keepdims=True) + 1e-6) * w, 0.05, 1e-2)


def test_row_min_max_idx():
    x = _f((32, 128))
    out = run("row_min_max_idx", {0: x})
    np.testing.assert_array_equal(out[1], x.min(0))
    np.testing.assert_array_equal(out[2], x.argmin(0))
    np.testing.assert_array_equal(out[3], x.max(0))
    np.testing.assert_array_equal(out[4], x.argmax(0))


def test_row_prod_reduce():
    x = (1 + 0.1 * _f((4, 32))).astype(np.float32)
    _close(run("row_prod_reduce", {0: x})[1], np.prod(x.astype(np.float64), 1), 1e-5, 1e-5)


def test_arange_mask():
    x = _f((1000,))
    ref = np.where(np.arange(1000) < 777, x, 0.0)
    np.testing.assert_array_equal(run("arange_mask", {0: x})[1], ref.astype(np.float32))


def test_cumsum_i64_rev():
    x = RNG.integers(-2**31, 2**31 - 1, (3, 100)).astype(np.int32)
    ref = np.cumsum(x.astype(np.int64)[:, ::-1], axis=1)[:, ::-1]
    np.testing.assert_array_equal(run("cumsum_i64_rev", {0: x})[1], ref)


def test_cumprod_cols():
    x = (1 + 0.2 * _f((16, 64))).astype(np.float32)
    _close(run("cumprod_cols", {0: x})[1], np.cumprod(x.astype(np.float64), axis=0), 1e-5, 1e-5)


def test_scalar_types():
    x = _f((512,))
    ref = -(x.astype(np.float64) * 0.25 - 3 + (2**40 + 5) % 7)
    _close(run("scalar_types", {0: x})[1], ref, 1e-6)


def test_constant_shapes():
    x = _f((512,))
    ref = x.reshape(4, 2, 64).sum(1).reshape(256)
    _close(run("constant_shapes", {0: x})[1], ref, 1e-6)


def test_int_math():
    a = RNG.integers(-1000, 1000, 256).astype(np.int32)
    b = RNG.integers(1, 50, 256).astype(np.int32) * RNG.choice([-1, 1], 256).astype(np.int32)
    out = run("int_math", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], a // b)  # Python (floor) division and modulo
    np.testing.assert_array_equal(out[3], a % b)
    np.testing.assert_array_equal(out[4], ((a << 2) ^ (b >> 1)) & 0xFFFF)


def test_float_math():
    x, y = _f((256,)), _f((256,))
    xd, yd = x.astype(np.float64), y.astype(np.float64)
    ref = (np.exp2(xd * 0.5) + np.log2(np.abs(yd) + 1) + (np.abs(xd) + 0.5) ** 1.5 + np.arctan2(xd, yd)
           + np.floor(x * np.float32(3)) - np.ceil(y * np.float32(2)) + np.sqrt(np.abs(yd)))
    _close(run("float_math", {0: x, 1: y})[2], ref, 1e-5)


def test_bitcast_bits():
    x = _f((256,), scale=100.0)
    np.testing.assert_array_equal(run("bitcast_bits", {0: x})[1], (x.view(np.int32) >> 23) & 0xFF)


def test_bf16_sign_bits():
    x = _f((256,), "bfloat16")
    x[:4] = [0.0, -0.0, np.inf, -np.inf]
    np.testing.assert_array_equal(run("bf16_sign_bits", {0: x})[1], np.signbit(x).astype(np.int32))


def test_cat_permute_3d():
    x, z = _f((2, 4, 8), "float16"), _f((2, 4, 8), "float16")
    np.testing.assert_array_equal(run("cat_permute_3d", {0: x, 1: z})[2],
                                  np.transpose(np.concatenate([x, z], 2), (2, 0, 1)))


def test_broadcast_sum_3d():
    x, v = _f((8, 16)), _f((4,))
    _close(run("broadcast_sum_3d", {0: x, 1: v})[2], x.astype(np.float64) * v.astype(np.float64).sum(), 1e-5)


def test_transpose_on_load():
    x = _f((64, 96))
    np.testing.assert_array_equal(run("transpose_on_load", {0: x})[1], x.T)


def test_transpose_3d():
    x = _f((3, 16, 32), "float16")
    np.testing.assert_array_equal(run("transpose_3d", {0: x})[1], np.transpose(x, (0, 2, 1)))


def test_scatter_masked():
    src = _f((256,))
    idx = RNG.permutation(256).astype(np.int32)
    ref = np.full(256, np.nan, np.float32)
    ref[idx[src > 0]] = src[src > 0]
    np.testing.assert_array_equal(run("scatter_masked", {0: src, 1: idx})[2], ref)


def test_gather_2d_clamped():
    src = _f((16, 8))
    r = RNG.integers(-2, 18, 256).astype(np.int32)
    c = RNG.integers(-1, 9, 256).astype(np.int32)
    ok = (r >= 0) & (r < 16) & (c >= 0) & (c < 8)
    ref = np.where(ok, src[np.clip(r, 0, 15), np.clip(c, 0, 7)], 0.0).astype(np.float32)
    np.testing.assert_array_equal(run("gather_2d_clamped", {0: src, 1: r, 2: c})[3], ref)


def test_early_exit_rows():
    x = _f((8, 128))
    y = run("early_exit_rows", {0: x})[1]
    np.testing.assert_array_equal(y[:5], 2 * x[:5])
    assert np.isnan(y[5:]).all()


def test_nested_loops():
    x = _f((100, 200))
    pad = np.zeros((128, 256), np.float64)
    pad[:100, :200] = x
    ref = pad.reshape(4, 32, 4, 64).sum((0, 2))
    _close(run("nested_loops", {0: x})[1], ref, 1e-4)


def test_stencil_same_array():
    x = _f((512,))
    ref = x - np.concatenate([x[128:], np.zeros(128, np.float32)])
    np.testing.assert_array_equal(run("stencil_same_array", {0: x})[1], ref)


def test_odd_length_axpy():
    x, y = _f((1001,)), _f((1001,))
    _close(run("odd_length_axpy", {0: x, 1: y})[1], y + 0.5 * x.astype(np.float64), 1e-6)


def test_loop_carried_max():
    x = _f((4, 1000))
    np.testing.assert_array_equal(run("loop_carried_max", {0: x})[1], x.max(1))


def test_rope_rows():
    x, pos = _f((3, 64), "bfloat16"), np.array([0.0, 5.0, 123.0], np.float32)
    t = x.astype(np.float64).reshape(3, 32, 2)
    ang = pos[:, None].astype(np.float64) * 10000.0 ** (-2.0 * np.arange(32) / 64)
    a, b = t[..., 0], t[..., 1]
    ref = np.stack([a * np.cos(ang) - b * np.sin(ang), a * np.sin(ang) + b * np.cos(ang)], -1).reshape(3, 64)
    _close(run("rope_rows", {0: x, 1: pos})[2], ref, 1e-3)


def test_trig_zoo():
    x = _f((256,), "float16")
    t = x.astype(np.float64)
    ref = np.tan(t * 0.5) + np.sinh(t) - np.cosh(t * 0.5) + np.floor(t) * np.ceil(t * 0.25)
    _close(run("trig_zoo", {0: x})[1], ref, 2e-2, 2e-3)


def test_mm_small_f32():
    """An f32 x f32 ``ct.matmul`` is cuTile's f32 dot: the SIMT path computes it to f32 accuracy
    (3xTF32 on mma.sync, tileaa_to_simt/mma.py); one tf32 product would be ~2^-11 off."""
    a, b = _f((64, 16)), _f((16, 48))
    got = run("mm_small_f32", {0: a, 1: b})[2].astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert (np.abs(got - a.astype(np.float64) @ b.astype(np.float64)) <= 2.0 ** -18 * scale + 1e-30).all()


def test_mm_f64():
    a, b = RNG.standard_normal((64, 64)), RNG.standard_normal((64, 64))
    _close(run("mm_f64", {0: a, 1: b})[2], a @ b, 1e-10)


def test_row_norms_unrolled():
    x = _f((5, 1000), "float16")
    _close(run("row_norms_unrolled", {0: x})[1], np.sqrt((x.astype(np.float64) ** 2).sum(1)), 1e-3, 1e-4)


@pytest.mark.parametrize("thresh,found", [(2.5, None), (100.0, -1)])
def test_loop_break(thresh, found):
    x = _f((1000,))
    x[700] = 3.0
    out = run("loop_break", {0: x, 2: thresh})[1]
    tiles = [j for j in range(8) if x[128 * j:128 * (j + 1)].max() > thresh]
    assert out[0] == (tiles[0] if found is None else found)


def test_where_scalar_branches():
    x = _f((512,))
    s = np.repeat(np.array([2.0, -1.0, 2.0, -1.0]), 128)
    u = np.where(x > 0, 1.0, x) * s + np.fmod(x, 0.75) + np.where(np.fmod(x, 0.75) < 0, 0.75, 0.0)
    ref = np.exp(u.astype(np.float16).astype(np.float64) * 0.5)
    _close(run("where_scalar_branches", {0: x})[1], ref, 2e-2, 2e-3)


def test_argmax_keepdims_3d():
    x = _f((2, 8, 16))
    out = run("argmax_keepdims_3d", {0: x})
    np.testing.assert_array_equal(out[1], x.argmax(2))
    _close(out[2], x.astype(np.float64).sum(1), 1e-5)


def test_int8_wrap():
    a = RNG.integers(-128, 128, 256).astype(np.int8)
    b = RNG.integers(0, 256, 256).astype(np.uint8)
    wrapped = (a.astype(np.int64) ** 2 + b.astype(np.int8)).astype(np.int8)
    np.testing.assert_array_equal(run("int8_wrap", {0: a, 1: b})[2], wrapped.astype(np.float32) * 0.5)


def test_persistent_rows():
    x = _f((37, 300))
    ref = np.maximum(x.max(1), 0) - np.minimum(x.min(1), 0)  # zero padding of the 512-wide tile
    _close(run("persistent_rows", {0: x})[1], ref, 1e-6)


def test_pos_inf_padding_min():
    x = _f((3, 100))
    np.testing.assert_array_equal(run("pos_inf_padding_min", {0: x})[1], x.min(1))


def test_embedding_rows():
    table = _f((50, 64), "bfloat16")
    ids = RNG.integers(0, 50, 32).astype(np.int32)
    ids[:3] = [-1, 50, 49]  # out of range: the zero padding
    ref = np.where(((ids >= 0) & (ids < 50))[:, None], table[np.clip(ids, 0, 49), 16:48], 0.0)
    np.testing.assert_array_equal(run("embedding_rows", {0: table, 1: ids})[2], ref)


def test_scatter_columns():
    src = _f((12, 16))
    cols = RNG.permutation(40)[:16].astype(np.int32)
    cols[0] = 40  # out of range: dropped
    ref = np.full((12, 40), np.nan, np.float32)
    ref[:, cols[1:]] = src[:, 1:]
    np.testing.assert_array_equal(run("scatter_columns", {0: src, 1: cols})[2], ref)


def test_softmax_f16_math():
    x = _f((4, 300), "float16")
    _close(run("softmax_f16_math", {0: x})[1], _softmax(x.astype(np.float64), 1), 2e-3)


def test_scalar_store_loop():
    x = _f((512,))
    s = x.astype(np.float64).reshape(4, 128).sum(1)
    for _ in range(5):
        s = s * 0.5 + 1.0
    _close(run("scalar_store_loop", {0: x})[1], s, 1e-5)


def test_unsigned_bits():
    a = RNG.integers(0, 2**32, 256, dtype=np.uint64).astype(np.uint32)
    ref = ((a >> np.uint32(3)) | (a << np.uint32(29))).astype(np.uint32)
    np.testing.assert_array_equal(run("unsigned_bits", {0: a})[1], ref)


def test_column_of_3d():
    x = _f((2, 3, 64))
    np.testing.assert_array_equal(run("column_of_3d", {0: x})[1], x.reshape(6, 64))


def test_nan_max():
    x = _f((3, 64))
    x[1, 5] = np.nan
    y = run("nan_max", {0: x})[1]
    assert np.isnan(y[1, 0]) and y[1, 1] == np.nanmax(x[1])
    np.testing.assert_array_equal(y[[0, 2]], np.stack([x[[0, 2]].max(1)] * 2, 1))


def test_gather_2d_mask():
    src = _f((20, 32))
    rows = RNG.integers(0, 20, 64).astype(np.int32)
    ref = np.where((rows % 2 == 0)[:, None], src[rows], -1.0).astype(np.float32)
    np.testing.assert_array_equal(run("gather_2d_mask", {0: src, 1: rows})[2], ref)


def test_int_misc():
    a = RNG.integers(-1000, 1000, 256).astype(np.int32)
    b = RNG.integers(1, 50, 256).astype(np.int32) * RNG.choice([-1, 1], 256).astype(np.int32)
    out = run("int_misc", {0: a, 1: b})
    np.testing.assert_array_equal(out[2], a // b)
    np.testing.assert_array_equal(out[3], a % b)
    np.testing.assert_array_equal(out[4], np.minimum(np.abs(a), -b) - a)


def test_nan_cleanup():
    x = _f((256,))
    x[::7] = np.nan
    out = run("nan_cleanup", {0: x})
    np.testing.assert_array_equal(out[1], np.where(np.isnan(x), 0, x))
    np.testing.assert_array_equal(out[2], np.isnan(x).astype(np.uint8))


def test_f16_direct_math():
    x = (np.abs(_f((2, 64))) + 0.5).astype(np.float16)
    t = x.astype(np.float64)
    _close(run("f16_direct_math", {0: x})[1], np.cumsum(np.log(t) / np.sqrt(t), axis=1), 0.05, 1e-2)


def test_sum_keepdims_3d():
    x = (np.abs(_f((4, 8, 16))) + 0.1).astype(np.float32)
    _close(run("sum_keepdims_3d", {0: x})[1], x / x.astype(np.float64).sum(0, keepdims=True), 1e-6)


def test_insert_op():
    """``ct.insert`` of zeros over the first half (lowered since issue 21's op audit)."""
    x = _f((64,))
    ref = x.copy()
    ref[:32] = 0.0
    np.testing.assert_array_equal(run("insert_op", {0: x})[1], ref)
