"""``tileorch.testing.ptx_emulator`` on what the tenth user sweep's SIMT kernels emit beyond the
earlier sweeps (each test failed before its fix):

* global atomics (PTX ISA "atom", "red"): the threads of one instruction updating the same address
  all count (the f32 add lost all but one update: one vectorized read-modify-write); integer
  ``add/min/max/and/or/xor/exch/cas/inc/dec`` (faulted), f16 / bf16 ``add.noftz`` rounded once;
* ``cvt.rn.f16.s32`` and the other 32/64-bit integer -> float conversions (faulted);
* a cluster-split kernel launched without a cluster reads ``%cluster_nctarank`` 1 and
  ``%clusterid`` / ``%nclusterid`` as the CTA's id / the grid (read as NaN bits before); the CTAs
  of a cluster run together (``Cluster``: cluster barriers, distributed shared memory);
* ``griddepcontrol`` (programmatic dependent launch) is a no-op for one grid (faulted);
* ``shf.l/r.wrap/clamp`` (funnel shifts: a rotate) and ``shfl.sync.up/down/idx`` with the
  clamp / segment operand (the ``c`` operand was ignored, ``up``/``down`` read lane 0);
* f64 arithmetic (``add/mul/div/sqrt/fma.rn.f64`` were integer operations on the bits, silently;
  ``sqrt`` faulted) and ``setp`` of f64 / f16 (an unsigned compare of the bits); ``setp.equ`` is
  true for NaN operands (it was false: unordered-or-equal taken as not-not-equal); a float type the
  emulator does not model is a fault, never integer math.
Needs no GPU, no ptxas."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

from tileorch.testing.ptx_emulator import Emu  # noqa: E402

BASE = 1 << 32


def _kernel(body: str) -> str:
    """A two-parameter kernel: ``%rd1`` the first buffer, ``%rd2`` the second, ``%r1`` the thread
    index, ``%rd3`` = 4 * tid, ``%rd5`` = 8 * tid."""
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(
  .param .u64 k_param_0,
  .param .u64 k_param_1
)
{{
  .reg .pred %p<4>;
  .reg .b16 %rs<8>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd2, [k_param_1];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  mul.wide.u32 %rd5, %r1, 8;
{body}
  ret;
}}
"""


def _run(body: str, a: np.ndarray, b: np.ndarray, threads: int = 64, ctaid=(0, 0, 0), nctaid=(1, 1, 1)):
    memory = [(BASE, a.view(np.uint8).reshape(-1), "a"), (2 * BASE, b.view(np.uint8).reshape(-1), "b")]
    emu = Emu(_kernel(body), [BASE, 2 * BASE], 16, threads, ctaid, {}, memory, nctaid=nctaid)
    emu.run()
    assert not emu.errors, emu.errors


def test_f32_atomic_add_of_every_thread_to_one_address_counts_each():
    """64 threads add 1, 2, ... 64 into a[0] (atom returns each old value into b) and 0.5 by ``red``."""
    a, b = np.zeros(2, np.float32), np.full(64, np.nan, np.float32)
    _run("""  add.s32 %r2, %r1, 1;
  cvt.rn.f32.s32 %f1, %r2;
  atom.global.add.f32 %f2, [%rd1], %f1;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f2;
  red.global.add.f32 [%rd1+4], 0f3F000000;""", a, b)
    assert a.tolist() == [64 * 65 / 2, 32.0]
    # each old value is a partial sum of 1..64 in some order: here, thread order
    np.testing.assert_array_equal(np.sort(b), np.cumsum(np.arange(64, dtype=np.float32)))


@pytest.mark.parametrize("op, start, ref", [
    ("add.u32", 5, lambda s, v: s + v.sum()),
    ("min.s32", 0, lambda s, v: min(s, v.min())),
    ("max.s32", 0, lambda s, v: max(s, v.max())),
    ("min.u32", 0xFFFFFFFF, lambda s, v: min(s, (v & 0xFFFFFFFF).min())),
    ("and.b32", -1, lambda s, v: s & np.bitwise_and.reduce(v)),
    ("or.b32", 0, lambda s, v: s | np.bitwise_or.reduce(v)),
    ("xor.b32", 7, lambda s, v: s ^ np.bitwise_xor.reduce(v)),
])
def test_integer_atomics_to_one_address(op, start, ref):
    v = np.random.default_rng(5).integers(-2**31, 2**31, 64, dtype=np.int64)
    a = np.array([start & 0xFFFFFFFF], np.uint32).view(np.int32)
    b = v.astype(np.int32)
    _run(f"""  add.s64 %rd4, %rd2, %rd3;
  ld.global.b32 %r2, [%rd4];
  atom.global.{op} %r3, [%rd1], %r2;""", a, b)
    s = start if op[-3] != "u" else start & 0xFFFFFFFF
    want = ref(s, v if op[-3] != "u" else v & 0xFFFFFFFF)
    assert int(a.view(np.uint32)[0]) == int(want) & 0xFFFFFFFF, op


def test_int64_atomic_max_and_exchange_return_the_old_values():
    v = np.random.default_rng(6).integers(-2**62, 2**62, 64, dtype=np.int64)
    a = np.array([-(2**63), 0], np.int64)
    b = v.copy()
    _run("""  add.s64 %rd4, %rd2, %rd5;
  ld.global.b64 %rd6, [%rd4];
  atom.global.max.s64 %rd7, [%rd1], %rd6;
  atom.global.exch.b64 %rd8, [%rd1+8], %rd6;
  st.global.b64 [%rd4], %rd8;""", a, b)
    assert a[0] == v.max() and a[1] == v[63]
    np.testing.assert_array_equal(b, np.concatenate([[0], v[:63]]))  # each got the previous thread's value


def test_cas_gives_one_winner():
    a, b = np.zeros(1, np.int32), np.full(64, -1, np.int32)
    _run("""  add.s32 %r2, %r1, 1;
  atom.acq_rel.gpu.global.cas.b32 %r3, [%rd1], 0, %r2;
  add.s64 %rd4, %rd2, %rd3;
  st.global.b32 [%rd4], %r3;""", a, b)
    assert a[0] == 1 and b[0] == 0 and (b[1:] == 1).all()


@pytest.mark.parametrize("ty, np_ty", [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)])
def test_narrow_float_atomic_add_rounds_each_add_once(ty, np_ty):
    """Each thread adds its value into a[0]: the reference adds in the same (thread) order, each sum
    exact in f64 and rounded once to the type."""
    vals = (np.random.default_rng(8).standard_normal(64) * 3).astype(np_ty)
    a, b = np.zeros(1, np_ty), vals.copy()
    _run(f"""  mul.wide.u32 %rd6, %r1, 2;
  add.s64 %rd4, %rd2, %rd6;
  ld.global.b16 %rs1, [%rd4];
  atom.global.add.noftz.{ty} %rs2, [%rd1], %rs1;""", a.view(np.uint16), b.view(np.uint16))
    acc = np_ty(0)
    for x in vals:
        acc = np_ty(float(acc) + float(x))
    assert a[0] == acc


@pytest.mark.parametrize("op, src, dst", [("cvt.rn.f16.s32", np.int32, np.float16),
                                          ("cvt.rn.f32.s32", np.int32, np.float32),
                                          ("cvt.rn.f32.u32", np.uint32, np.float32),
                                          ("cvt.rn.f32.s64", np.int64, np.float32),
                                          ("cvt.rn.f64.s64", np.int64, np.float64)])
def test_integer_to_float_conversions_round_to_nearest(op, src, dst):
    rng = np.random.default_rng(9)
    info = np.iinfo(src)
    x = rng.integers(info.min, info.max, 64, dtype=np.int64, endpoint=True).astype(src)
    x[:6] = np.array([0, 1, 2049, 65519, 65520, 16777217], dtype=np.int64).astype(src)
    if src == np.int64:  # rounded through f64 first, this one lands on an f32 tie and rounds to even: 2**60
        x[6] = 2**60 + 2**36 + 1
    w = x.dtype.itemsize * 8
    out = np.zeros(64, dst)
    ow = out.dtype.itemsize * 8
    reg = {32: "%r2", 64: "%rd6"}
    res = {16: "%rs1", 32: "%r3", 64: "%rd7"}[ow]
    idx = {32: "%rd3", 64: "%rd5"}
    _run(f"""  add.s64 %rd4, %rd1, {idx[w]};
  ld.global.b{w} {reg[w]}, [%rd4];
  {op} {res}, {reg[w]};
  mul.wide.u32 %rd8, %r1, {ow // 8};
  add.s64 %rd9, %rd2, %rd8;
  st.global.b{ow} [%rd9], {res};""", x, out)
    with np.errstate(over="ignore"):  # (f16: large integers are infinities)
        want = x.astype(dst)  # numpy's cast from the integer type: one rounding to nearest even
    np.testing.assert_array_equal(out, want)


def test_a_cluster_split_kernel_without_a_cluster_is_a_cluster_of_one():
    a, b = np.zeros(4, np.int32), np.zeros(1, np.int32)
    _run("""  mov.u32 %r2, %cluster_nctarank;
  mov.u32 %r3, %clusterid.x;
  mov.u32 %r4, %nclusterid.x;
  mov.u32 %r5, %cluster_ctarank;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 st.global.v4.b32 [%rd1], {%r2, %r3, %r4, %r5};
  griddepcontrol.wait;
  griddepcontrol.launch_dependents;""", a, b, threads=32, ctaid=(3, 0, 0), nctaid=(5, 1, 1))
    assert a.tolist() == [1, 3, 5, 0]


def test_funnel_shift_rotates():
    x = np.random.default_rng(10).integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    out = np.zeros((64, 4), np.uint32)
    _run("""  add.s64 %rd4, %rd1, %rd3;
  ld.global.b32 %r2, [%rd4];
  shf.l.wrap.b32 %r3, %r2, %r2, 7;
  shf.r.wrap.b32 %r4, %r2, %r2, 39;
  shf.l.clamp.b32 %r5, %r2, %r2, 40;
  shf.r.clamp.b32 %r6, %r2, 0, 40;
  mul.wide.u32 %rd6, %r1, 16;
  add.s64 %rd7, %rd2, %rd6;
  st.global.v4.b32 [%rd7], {%r3, %r4, %r5, %r6};""", x, out)
    rot = lambda v, n: ((v << np.uint64(n)) | (v >> np.uint64(32 - n))) & np.uint64(0xFFFFFFFF)  # noqa: E731
    xv = x.astype(np.uint64)
    np.testing.assert_array_equal(out[:, 0], rot(xv, 7))
    np.testing.assert_array_equal(out[:, 1], rot(xv, 32 - 7))  # 39 wraps to 7
    np.testing.assert_array_equal(out[:, 2], x)  # clamped to 32: the high word of {b:a} << 32 is a
    np.testing.assert_array_equal(out[:, 3], np.zeros(64, np.uint32))  # {0:a} >> 32: the high word, 0


@pytest.mark.parametrize("mode, b, c, ref", [
    ("up", 3, 0, lambda lane: lane - 3 if lane % 32 >= 3 else lane),
    ("down", 5, 31, lambda lane: lane + 5 if lane % 32 + 5 <= 31 else lane),
    ("bfly", 4, 31, lambda lane: lane ^ 4),
    ("idx", 9, 31, lambda lane: lane - lane % 32 + 9),
    ("down", 1, 0x1F | (0x18 << 8), lambda lane: lane + 1 if lane % 8 + 1 <= 7 else lane),  # segments of 8
])
def test_shfl_sync_modes_with_clamp_and_segments(mode, b, c, ref):
    a, out = np.arange(64, dtype=np.int32) * 10, np.full(64, -1, np.int32)
    _run(f"""  add.s64 %rd4, %rd1, %rd3;
  ld.global.b32 %r2, [%rd4];
  shfl.sync.{mode}.b32 %r3, %r2, {b}, {c}, -1;
  add.s64 %rd6, %rd2, %rd3;
  st.global.b32 [%rd6], %r3;""", a, out)
    np.testing.assert_array_equal(out, [10 * ref(t) for t in range(64)])


@pytest.mark.parametrize("op, nargs, ref", [
    ("add.rn.f64", 2, lambda a, b, c: a + b), ("sub.rn.f64", 2, lambda a, b, c: a - b),
    ("mul.rn.f64", 2, lambda a, b, c: a * b), ("div.rn.f64", 2, lambda a, b, c: a / b),
    ("sqrt.rn.f64", 1, lambda a, b, c: np.sqrt(np.abs(a))), ("neg.f64", 1, lambda a, b, c: -a),
    ("max.f64", 2, lambda a, b, c: np.fmax(a, b)),
    ("fma.rn.f64", 3, lambda a, b, c: np.array([float(Fraction(x) * Fraction(y) + Fraction(z))
                                                for x, y, z in zip(a, b, c)])),
])
def test_f64_math_is_ieee(op, nargs, ref):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((64, 3)) * 1e3
    x[:, 1] = np.where(x[:, 1] == 0, 1.0, x[:, 1])
    if op.startswith("sqrt"):
        x[:, 0] = np.abs(x[:, 0])
    out = np.zeros(64, np.float64)
    args = ", ".join(f"%rd{7 + i}" for i in range(nargs))
    _run(f"""  mul.wide.u32 %rd6, %r1, 24;
  add.s64 %rd4, %rd1, %rd6;
  ld.global.f64 %rd7, [%rd4];
  ld.global.f64 %rd8, [%rd4+8];
  ld.global.f64 %rd9, [%rd4+16];
  {op} %rd10, {args};
  add.s64 %rd11, %rd2, %rd5;
  st.global.f64 [%rd11], %rd10;""", x, out)
    np.testing.assert_array_equal(out, ref(x[:, 0], x[:, 1], x[:, 2]))


@pytest.mark.parametrize("ty, np_ty", [("f64", np.float64), ("f16", np.float16)])
def test_setp_compares_floats_as_floats(ty, np_ty):
    """-1 < 1 (the bits compare the other way unsigned) and NaN is unordered."""
    w = np.dtype(np_ty).itemsize * 8
    a = np.array([-1.0, 2.0, np.nan, -0.0], np_ty)
    b = np.array([1.0, -3.0, 1.0, 0.0], np_ty)
    out = np.full((4, 3), -1, np.int32)
    _run(f"""  setp.lt.u32 %p3, %r1, 4;
  @!%p3 bra DONE;
  mul.wide.u32 %rd6, %r1, {w // 8};
  add.s64 %rd4, %rd1, %rd6;
  ld.global.b{w} {"%rd7" if w == 64 else "%rs1"}, [%rd4];
  add.s64 %rd4, %rd4, {4 * w // 8};
  ld.global.b{w} {"%rd8" if w == 64 else "%rs2"}, [%rd4];
  setp.lt.{ty} %p1, {"%rd7, %rd8" if w == 64 else "%rs1, %rs2"};
  setp.equ.{ty} %p2, {"%rd7, %rd8" if w == 64 else "%rs1, %rs2"};
  selp.u32 %r2, 1, 0, %p1;
  selp.u32 %r3, 1, 0, %p2;
  mul.wide.u32 %rd9, %r1, 12;
  add.s64 %rd10, %rd2, %rd9;
  st.global.b32 [%rd10], %r2;
  st.global.b32 [%rd10+4], %r3;
DONE:""", np.concatenate([a, b]), out, threads=32)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(out[:, 0], (a < b).astype(np.int32))
        np.testing.assert_array_equal(out[:, 1], ((a == b) | np.isnan(a) | np.isnan(b)).astype(np.int32))


@pytest.mark.parametrize("op", ["add.rn.bf16", "max.bf16", "div.approx.f64", "setp.lt.bf16"])
def test_an_unmodelled_float_type_is_a_fault_not_integer_math(op):
    from tileorch.testing.ptx_emulator import Fault

    body = (f"  {op} %p1, %rs1, %rs2;" if op.startswith("setp") else
            f"  {op} %rd7, %rd8, %rd9;" if op.endswith("f64") else f"  {op} %rs1, %rs2, %rs3;")
    with pytest.raises(Fault, match="unhandled"):
        _run("  mov.b16 %rs2, 0;\n  mov.b16 %rs3, 0;\n  mov.b64 %rd8, 0;\n  mov.b64 %rd9, 0;\n" + body,
             np.zeros(1, np.int32), np.zeros(1, np.int32), threads=32)


def test_a_cluster_runs_its_ctas_together_through_distributed_shared_memory():
    """Four CTAs of a cluster (CTAs 4..7 of a grid of 8: cluster 1) each store ``10 * (rank + 1) +
    tid`` into their shared memory, meet at the cluster barrier, and rank 0 sums the other ranks'
    values through ``mapa`` / ``ld.shared::cluster``; a wait before every rank arrived would read 0."""
    from tileorch.testing.ptx_emulator import Cluster

    ptx = _kernel("""  .shared .align 4 .b8 buf[128];
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %cluster_nctarank;
  mov.u32 %r4, %clusterid.x;
  add.s32 %r5, %r2, 1;
  mul.lo.s32 %r5, %r5, 10;
  add.s32 %r5, %r5, %r1;
  mov.u64 %rd6, buf;
  add.s64 %rd7, %rd6, %rd3;
  st.shared.b32 [%rd7], %r5;
  barrier.cluster.arrive.aligned;
  barrier.cluster.wait.aligned;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra DONE;
  mov.u32 %r6, 1;
LOOP:
  setp.ge.s32 %p2, %r6, %r3;
  @%p2 bra STORE;
  mapa.shared::cluster.u64 %rd8, %rd7, %r6;
  ld.shared::cluster.b32 %r7, [%rd8];
  add.s32 %r5, %r5, %r7;
  add.s32 %r6, %r6, 1;
  bra.uni LOOP;
STORE:
  mul.wide.u32 %rd9, %r4, 128;
  add.s64 %rd10, %rd1, %rd9;
  add.s64 %rd10, %rd10, %rd3;
  st.global.b32 [%rd10], %r5;
  st.global.b32 [%rd2], %r3;
DONE:""")
    out, size = np.zeros((2, 32), np.int32), np.zeros(1, np.int32)
    memory = [(BASE, out.view(np.uint8).reshape(-1), "out"), (2 * BASE, size.view(np.uint8).reshape(-1), "size")]
    ctas = Cluster(4, lambda rank, cl: Emu(ptx, [BASE, 2 * BASE], 128, 32, (4 + rank, 0, 0), {}, memory,
                                           nctaid=(8, 1, 1), cluster=(cl, rank))).run()
    assert not [e for c in ctas for e in c.errors]
    assert size[0] == 4
    np.testing.assert_array_equal(out[1], (10 + 20 + 30 + 40) + 4 * np.arange(32))
    assert (out[0] == 0).all()  # cluster 0 did not run
