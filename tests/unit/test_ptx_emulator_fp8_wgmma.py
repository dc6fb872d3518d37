"""``tileorch.testing.ptx_emulator`` on 8-bit float WGMMA operands (``wgmma.mma_async ... .f32.e4m3|e5m2.e4m3|e5m2``,
what the tier emits for fp8 GEMMs): the bytes are decoded exactly (:func:`ptx_emulator.fp8_values`, written from the
formats' definitions, against ``ml_dtypes``' decoding here), and one hand-written ``m64n32k32`` WGMMA of shared A and
B (a 32-byte swizzle) gives numpy's float64 ``D = sA sB A B (+ D)`` within f32 summation error, for both formats,
a mixed pair, operand negation (imm-scale-a / -b = -1) and an accumulator carried in.  Before session 38 the
emulator refused every 8-bit float WGMMA (``Fault``), so sweep 29's fp8 GEMMs ran on the GPU only.  No GPU, no
ptxas."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.testing.ptx_emulator import Emu, Fault, fp8_values

ml_dtypes = pytest.importorskip("ml_dtypes")
TYPES = {"e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("kind", sorted(TYPES))
def test_every_byte_decodes_as_ml_dtypes_does(kind):
    ours = fp8_values(kind)
    theirs = np.arange(256, dtype=np.uint8).view(TYPES[kind]).astype(np.float32)
    assert ours.dtype == np.float32
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    same = ~np.isnan(theirs)
    assert np.array_equal(ours[same].view(np.uint32), theirs[same].view(np.uint32))  # signed zeros too


def test_the_special_bytes_by_hand():
    """The definitions' corner values, written out (not read from either decoder)."""
    e4, e5 = fp8_values("e4m3"), fp8_values("e5m2")
    assert np.isnan(e4[0x7F]) and np.isnan(e4[0xFF]) and np.isnan(e4).sum() == 2  # S.1111.111 only
    assert e4[0x7E] == 448 and e4[0xFE] == -448 and e4[0x78] == 256  # no infinities: S.1111.xxx finite
    assert e4[0x01] == 2.0 ** -9 and e4[0x08] == 2.0 ** -6 and e4[0x38] == 1
    assert e5[0x7C] == np.inf and e5[0xFC] == -np.inf and np.isnan(e5[[0x7D, 0x7E, 0x7F, 0xFD]]).all()
    assert e5[0x7B] == 57344 and e5[0x01] == 2.0 ** -16 and e5[0x04] == 2.0 ** -14 and e5[0x3C] == 1
    assert np.signbit(e4[0x80]) and e4[0x80] == 0 and np.signbit(e5[0x80])


@settings(max_examples=200, deadline=None)
@given(kind=st.sampled_from(sorted(TYPES)), x=st.floats(allow_nan=False, allow_infinity=False, width=32))
def test_decoding_an_encoded_float_gives_its_fp8_value(kind, x):
    """Any f32 rounded to the format by ml_dtypes: our decoding of its byte is the value ml_dtypes holds."""
    t = TYPES[kind]
    with np.errstate(over="ignore"):
        q = np.array([x], np.float32).astype(t)
    want = q.astype(np.float64)[0]
    got = float(fp8_values(kind)[q.view(np.uint8)[0]])
    assert (np.isnan(got) and np.isnan(want)) or got == want


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(sorted(TYPES)), b=st.integers(0, 255))
def test_sign_bit_negates_and_magnitudes_grow_with_the_byte(kind, b):
    v = fp8_values(kind).astype(np.float64)
    if not np.isnan(v[b]):
        assert v[b ^ 0x80] == -v[b]
    if b < 0x7F and not np.isnan(v[b + 1]):
        assert v[b + 1] > v[b]


# ----------------------------------------------------------------------------------------------- one WGMMA

N = 32  # m64n32k32: 16 f32 accumulator registers per thread
A_AT, B_AT = 0, 4096  # shared byte offsets of A (64 rows x 32 bytes) and B (32 rows x 32 bytes)


def _desc(start: int) -> int:
    """A K-major shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address >> 4 in bits
    0-13, the stride byte offset (256: the next 8-row group of 32-byte rows) >> 4 in bits 32-45, 32-byte swizzle
    (layout type 3) in bits 62-63."""
    return (start >> 4) | ((256 >> 4) << 32) | (3 << 62)


def _place(smem: np.ndarray, at: int, tile: np.ndarray):
    """Rows of 32 bytes at ``at``, 32-byte swizzled: byte address bit 4 XOR bit 7."""
    for r in range(tile.shape[0]):
        for c in range(32):
            addr = at + 32 * r + c
            smem[addr ^ (((addr >> 7) & 1) << 4)] = tile[r, c]


def _ptx(ta: str, tb: str, scale_d: int, sa: int, sb: int) -> str:
    d = ", ".join(f"%f{i}" for i in range(16))
    init = "\n".join(f"  ld.global.f32 %f{i}, [%rd3+{4 * i}];" for i in range(16))
    store = "\n".join(f"  st.global.f32 [%rd3+{4 * i}], %f{i};" for i in range(16))
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(
  .param .u64 k_param_0
)
{{
  .reg .pred p;
  .reg .b32 %r<4>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd3, %rd1, %rd2;
{init}
  mov.u64 %rd4, {_desc(A_AT)};
  mov.u64 %rd5, {_desc(B_AT)};
  setp.ne.b32 p, {scale_d}, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n{N}k32.f32.{ta}.{tb} {{{d}}}, %rd4, %rd5, p, {sa}, {sb};
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
{store}
  ret;
}}
"""


def _finite_bytes(rng, kind, shape):
    v = fp8_values(kind)
    ok = np.nonzero(np.isfinite(v))[0].astype(np.uint8)
    return rng.choice(ok, shape)


def _run(ta, tb, scale_d, sa, sb, seed):
    rng = np.random.default_rng(seed)
    a, b = _finite_bytes(rng, ta, (64, 32)), _finite_bytes(rng, tb, (N, 32))  # B as [N, K] (K-major)
    d0 = rng.standard_normal((64, N)).astype(np.float32)
    # the accumulator fragment (PTX ISA, "Matrix fragment for wgmma.mma_async .m64nNk32", D): thread t (warp w,
    # lane l), register i holds D[16 w + l / 4 + 8 ((i / 2) % 2), 8 (i / 4) + 2 (l % 4) + i % 2]
    t = np.arange(128)
    i = np.arange(16)[None, :]
    rows = (16 * (t // 32) + (t % 32) // 4)[:, None] + 8 * ((i // 2) % 2)
    cols = 8 * (i // 4) + (2 * (t % 4))[:, None] + i % 2
    regs = d0[rows, cols].copy()  # [thread, register]
    memory = [(1 << 32, regs.view(np.uint8).reshape(-1), "d")]
    emu = Emu(_ptx(ta, tb, scale_d, sa, sb), [1 << 32], 8192, 128, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    _place(emu.smem, emu.dynamic_smem + A_AT, a)
    _place(emu.smem, emu.dynamic_smem + B_AT, b)
    emu.run()
    assert not emu.errors and not emu.fence_errors, (emu.errors, emu.fence_errors)
    got = np.full((64, N), np.nan)
    got[rows, cols] = regs
    av = a.view(TYPES[ta]).astype(np.float64)
    bv = b.view(TYPES[tb]).astype(np.float64)
    prod = sa * sb * (av @ bv.T)
    ref = prod + (d0 if scale_d else 0)
    # f32 summation of 32 exact products (and D): within 33 roundings of the magnitudes' sum
    bound = 33 * 2.0 ** -24 * (np.abs(av) @ np.abs(bv).T + (np.abs(d0) if scale_d else 0)) + 1e-30
    return got, ref, bound


@pytest.mark.parametrize("ta,tb,scale_d,sa,sb", [("e4m3", "e4m3", 0, 1, 1), ("e5m2", "e5m2", 1, 1, 1),
                                                 ("e4m3", "e5m2", 1, -1, 1), ("e5m2", "e4m3", 0, 1, -1)])
def test_one_fp8_wgmma_against_numpy(ta, tb, scale_d, sa, sb):
    got, ref, bound = _run(ta, tb, scale_d, sa, sb, seed=sum(map(ord, ta + tb)) + 2 * scale_d + sa)
    assert not np.isnan(got).any()
    assert (np.abs(got - ref) <= bound).all(), np.max(np.abs(got - ref) - bound)


def test_a_wrong_operand_count_is_refused():
    with pytest.raises(Fault, match="operands"):
        ptx = _ptx("e4m3", "e4m3", 0, 1, 1).replace("p, 1, 1;", "p;")
        Emu(ptx, [1 << 32], 8192, 128, (0, 0, 0), {}, [(1 << 32, np.zeros(128 * 64, np.uint8), "d")],
            nctaid=(1, 1, 1)).run()


@pytest.mark.parametrize("scale_d", [0, 1])
def test_the_narrow_adder_model_keeps_13_fraction_bits(scale_d, monkeypatch):
    """``Emu.fp8_sum_bits = 13``: ``1 + 2^-p`` (the 1 a product, or D) is exact for p <= 13 and comes back 1 (the
    small term truncated away) for p > 13; the f32 default keeps every p <= 23."""
    e5 = fp8_values("e5m2")
    byte = {float(v): i for i, v in enumerate(e5) if np.isfinite(v) and i < 0x80}
    a = np.full((64, 32), byte[0.0], np.uint8)
    b = np.full((N, 32), byte[0.0], np.uint8)
    for r in range(64):  # row r: 2^-(r % 16) at k = 1 (and the 1 at k = 0 unless D holds it)
        a[r, 0], a[r, 1] = byte[0.0 if scale_d else 1.0], byte[2.0 ** -(r % 16)]
    for c in range(N):
        b[c, 0], b[c, 1] = byte[1.0], byte[2.0 ** -(c % 8)]
    p = (np.arange(64) % 16)[:, None] + (np.arange(N) % 8)[None, :]
    t = np.arange(128)
    i = np.arange(16)[None, :]
    rows = (16 * (t // 32) + (t % 32) // 4)[:, None] + 8 * ((i // 2) % 2)
    cols = 8 * (i // 4) + (2 * (t % 4))[:, None] + i % 2
    for bits, kept in ((13, 13), (None, 23)):
        monkeypatch.setattr(Emu, "fp8_sum_bits", bits)
        regs = np.ones((128, 16), np.float32)  # D = 1 (read when scale_d)
        emu = Emu(_ptx("e5m2", "e5m2", scale_d, 1, 1), [1 << 32], 8192, 128, (0, 0, 0), {},
                  [(1 << 32, regs.view(np.uint8).reshape(-1), "d")], nctaid=(1, 1, 1))
        _place(emu.smem, emu.dynamic_smem + A_AT, a)
        _place(emu.smem, emu.dynamic_smem + B_AT, b)
        emu.run()
        got = np.zeros((64, N))
        got[rows, cols] = regs
        want = np.where(p <= kept, 1.0 + 2.0 ** -p.astype(np.float64), 1.0)
        assert np.array_equal(got, want), (bits, np.argwhere(got != want)[:4])


# ----------------------------------------------------------------------------------------------- register A (s45)


def _ptx_reg_a(ta: str, tb: str, sa: int, sb: int) -> str:
    """``wgmma m64n32k32`` with A in four registers per thread (loaded from global memory) and B in shared memory:
    the fp8 P @ V form of the chained tier (six operands: no transpose for 8-bit types)."""
    d = ", ".join(f"%f{i}" for i in range(16))
    zero = "\n".join(f"  mov.f32 %f{i}, 0f00000000;" for i in range(16))
    store = "\n".join(f"  st.global.f32 [%rd3+{4 * i}], %f{i};" for i in range(16))
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(
  .param .u64 k_param_0,
  .param .u64 k_param_1
)
{{
  .reg .pred p;
  .reg .b32 %r<8>;
  .reg .f32 %f<16>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u64 %rd6, [k_param_1];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 64;
  add.s64 %rd3, %rd1, %rd2;
  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd8, %rd6, %rd7;
  ld.global.b32 %r2, [%rd8];
  ld.global.b32 %r3, [%rd8+4];
  ld.global.b32 %r4, [%rd8+8];
  ld.global.b32 %r5, [%rd8+12];
{zero}
  mov.u64 %rd5, {_desc(B_AT)};
  setp.ne.b32 p, 0, 0;
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n{N}k32.f32.{ta}.{tb} {{{d}}}, {{%r2, %r3, %r4, %r5}}, %rd5, p, {sa}, {sb};
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
{store}
  ret;
}}
"""


@pytest.mark.parametrize("ta,tb,sa", [("e4m3", "e4m3", 1), ("e5m2", "e5m2", -1), ("e4m3", "e5m2", 1)])
def test_one_fp8_wgmma_with_a_in_registers_against_numpy(ta, tb, sa):
    """The A fragment of an 8-bit WGMMA in registers (PTX ISA, "Register fragment for matrix A", .m64nNk32 of
    .e4m3 / .e5m2): thread t (warp w, lane l), register a_q (q = 0..3) holds four consecutive K elements of row
    16 w + l / 4 + 8 (q % 2), columns 16 (q / 2) + 4 (l % 4) + byte (byte 0 in the register's lowest 8 bits).
    The bytes are placed here from that rule and the WGMMA must give numpy's ``A B`` (s45: session 43's emulator
    refused a register A of 8-bit operands)."""
    rng = np.random.default_rng(4500 + sa)
    a, b = _finite_bytes(rng, ta, (64, 32)), _finite_bytes(rng, tb, (N, 32))
    t = np.arange(128)
    frag = np.zeros((128, 4, 4), np.uint8)  # [thread, register, byte]
    for q in range(4):
        for byte in range(4):
            frag[:, q, byte] = a[16 * (t // 32) + (t % 32) // 4 + 8 * (q % 2), 16 * (q // 2) + 4 * (t % 4) + byte]
    regs = np.full((128, 16), np.nan, np.float32)
    memory = [(1 << 32, regs.view(np.uint8).reshape(-1), "d"), (2 << 32, frag.reshape(-1), "a")]
    emu = Emu(_ptx_reg_a(ta, tb, sa, 1), [1 << 32, 2 << 32], 8192, 128, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    _place(emu.smem, emu.dynamic_smem + B_AT, b)
    emu.run()
    assert not emu.errors and not emu.fence_errors, (emu.errors, emu.fence_errors)
    i = np.arange(16)[None, :]
    rows = (16 * (t // 32) + (t % 32) // 4)[:, None] + 8 * ((i // 2) % 2)
    cols = 8 * (i // 4) + (2 * (t % 4))[:, None] + i % 2
    got = np.full((64, N), np.nan)
    got[rows, cols] = regs
    av, bv = a.view(TYPES[ta]).astype(np.float64), b.view(TYPES[tb]).astype(np.float64)
    ref = sa * (av @ bv.T)
    bound = 33 * 2.0 ** -24 * (np.abs(av) @ np.abs(bv).T) + 1e-30
    assert not np.isnan(got).any()
    assert (np.abs(got - ref) <= bound).all(), np.max(np.abs(got - ref) - bound)
