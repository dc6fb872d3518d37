"""``tileorch.testing.ptx_emulator`` on scalar f16 arithmetic (``add/sub/mul/fma/max/min/neg/abs.f16``,
what a GEMM epilogue emits for math on a tile cast to f16): each result is the exact value rounded
once to f16, checked against numpy float16.  Found by the fifth user sweep: the emulator took these
for 16-bit integer ops (the f16 epilogue of ``mm_f16_epilogue_chain`` looked wrong on the CPU while
the SIMT interpreter agreed with numpy).  Needs no GPU, no ptxas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tileorch.testing.ptx_emulator import Emu

OPS = [("add.rn.f16", 2, lambda a, b: a + b), ("sub.rn.f16", 2, lambda a, b: a - b),
       ("mul.rn.f16", 2, lambda a, b: a * b), ("fma.rn.f16", 3, lambda a, b, c: a * b + c),
       ("max.f16", 2, np.fmax), ("min.f16", 2, np.fmin), ("neg.f16", 1, lambda a: -a), ("abs.f16", 1, np.abs)]


def _entry(regs: str, body: str) -> str:
    """A one-parameter kernel whose thread ``t`` works on the 8 bytes at ``param + 8 t`` (``%rd2``)."""
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(
  .param .u64 k_param_0
)
{{
  {regs}
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd2, %rd1, %rd3;
{body}
  ret;
}}
"""


def _ptx(op: str, nargs: int) -> str:
    loads = "\n".join(f"  ld.global.b16 %rs{i + 1}, [%rd2+{2 * i}];" for i in range(nargs))
    args = ", ".join(f"%rs{i + 1}" for i in range(nargs))
    return _entry(".reg .b16 %rs<8>;", f"{loads}\n  {op} %rs7, {args};\n  st.global.b16 [%rd2+6], %rs7;")


@pytest.mark.parametrize("op,nargs,ref", OPS, ids=[o[0] for o in OPS])
def test_f16_scalar_math_rounds_once_to_f16(op, nargs, ref):
    rng = np.random.default_rng(7)
    n = 64
    data = np.zeros((n, 4), np.float16)  # per thread: operands at 0..2, the result at 3
    data[:, :3] = (rng.standard_normal((n, 3)) * 3).astype(np.float16)
    data[0, :2] = [np.float16(-2.5), np.float16(0.0)]  # signs and zero (an integer max would pick -2.5)
    data[1, :2] = [np.float16(65504), np.float16(65504)]  # overflow to inf
    memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
    emu = Emu(_ptx(op, nargs), [1 << 32], 16, n, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    emu.run()
    assert not emu.errors, emu.errors
    with np.errstate(all="ignore"):
        want = ref(*[data[:, i].astype(np.float64) for i in range(nargs)]).astype(np.float16)
    np.testing.assert_array_equal(data[:, 3], want)


def _round_ptx(op: str) -> str:
    return _entry(".reg .f32 %f<4>;", f"  ld.global.f32 %f1, [%rd2];\n  {op} %f2, %f1;\n  st.global.f32 [%rd2+4], %f2;")


@pytest.mark.parametrize("op, ref", [("cvt.rni.f32.f32", np.rint), ("cvt.rzi.f32.f32", np.trunc),
                                     ("cvt.rmi.f32.f32", np.floor), ("cvt.rpi.f32.f32", np.ceil)])
def test_f32_round_to_integral_value(op, ref):
    """Found by the seventh user sweep (``ct.pow`` in a GEMM epilogue emits ``cvt.rzi.f32.f32``): the
    emulator faulted on the f32 -> integral-f32 conversions; halves, negatives and large values."""
    n = 64
    data = np.zeros((n, 2), np.float32)
    data[:, 0] = np.random.default_rng(3).standard_normal(n).astype(np.float32) * 5
    data[:6, 0] = [2.5, -2.5, 3.5, -0.5, 1e9 + 0.0, -7.0]
    memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
    emu = Emu(_round_ptx(op), [1 << 32], 16, n, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    emu.run()
    assert not emu.errors, emu.errors
    np.testing.assert_array_equal(data[:, 1], ref(data[:, 0]))


@pytest.mark.parametrize("dst, lo, hi", [("s32", -(1 << 31), (1 << 31) - 1), ("u32", 0, (1 << 32) - 1)])
def test_f32_to_32_bit_integer_saturates(dst, lo, hi):
    """Found by the fifteenth user sweep (an unclamped ``astype(uint8)``: ``ftoi`` to 8 bits now
    converts to 32 bits and clamps, relying on the hardware's saturation): PTX ``cvt.rzi`` to an
    integer clamps to the destination's range and turns NaN into 0 (the emulator wrapped the 32-bit
    results, and a negative value to u32 became a large one)."""
    n = 32
    data = np.zeros((n, 2), np.uint32)
    x = np.random.default_rng(4).standard_normal(n).astype(np.float32) * 1000
    x[:7] = [-300.7, 300.7, 3e9, -3e9, 5e10, np.nan, -0.5]
    data[:, 0] = x.view(np.uint32)
    body = f"  ld.global.f32 %f1, [%rd2];\n  cvt.rzi.{dst}.f32 %r2, %f1;\n  st.global.b32 [%rd2+4], %r2;"
    memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
    emu = Emu(_entry(".reg .f32 %f<4>;", body), [1 << 32], 16, n, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    emu.run()
    assert not emu.errors, emu.errors
    want = np.clip(np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0)), lo, hi).astype(np.int64)
    got = data[:, 1].astype(np.int64) if dst == "u32" else data[:, 1].view(np.int32).astype(np.int64)
    np.testing.assert_array_equal(got, want)


def test_f32_pair_to_bf16x2_rounds_each_to_nearest_even():
    """Found by the twentieth user sweep (bf16 operands on the emulated WGMMA): ``cvt.rn.bf16x2.f32 d,
    a, b`` (``a`` to the high half) was taken for ``cvt.rn.f16x2.f32`` (its name holds that one's):
    the pair became f16 bit patterns.  Each half is the f32 rounded once to bf16 (nearest even; ties,
    overflow to inf, NaN) against ml_dtypes.bfloat16."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    n = 64
    data = np.zeros((n, 4), np.uint32)  # per thread (16 bytes): a, b (f32 bits), d
    x = (np.random.default_rng(5).standard_normal((n, 2)) * 100).astype(np.float32)
    x[:4] = [[1.00390625, 1.01171875], [-3.0e38, 3.4e38], [np.nan, -0.0], [1e-40, -2.5]]  # ties, overflow, NaN
    data[:, :2] = x.view(np.uint32)
    body = ("  ld.global.f32 %f1, [%rd2];\n  ld.global.f32 %f2, [%rd2+4];\n"
            "  cvt.rn.bf16x2.f32 %r2, %f1, %f2;\n  st.global.b32 [%rd2+8], %r2;")
    ptx = _entry(".reg .f32 %f<4>;", body).replace("mul.wide.u32 %rd3, %r1, 8;", "mul.wide.u32 %rd3, %r1, 16;")
    memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
    emu = Emu(ptx, [1 << 32], 16, n, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    emu.run()
    assert not emu.errors, emu.errors
    want = x.astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint32)
    got = data[:, 2]
    nan = np.isnan(x[:, 0])
    np.testing.assert_array_equal(got[~nan] >> 16, want[~nan, 0])
    assert ((got[nan] >> 16) & 0x7FFF > 0x7F80).all()
    np.testing.assert_array_equal(got & 0xFFFF, want[:, 1])


def _narrow_ptx(op: str) -> str:
    return _entry(".reg .f32 %f<4>;\n  .reg .b16 %rs<4>;",
                  f"  ld.global.f32 %f1, [%rd2];\n  {op} %rs1, %f1;\n  st.global.b16 [%rd2+4], %rs1;")


def _toward_zero(x: float, mantissa: int, emin: int, largest: float) -> float:
    """``x`` truncated to a binary format of ``mantissa`` bits and smallest normal exponent ``emin``
    (its step in ``x``'s binade, subnormal below), past the range the largest finite value."""
    if not math.isfinite(x) or x == 0.0:
        return x
    e = max(math.frexp(abs(x))[1] - 1, emin)
    step = 2.0 ** (e - mantissa)
    return math.copysign(min(math.floor(abs(x) / step) * step, largest), x)


@pytest.mark.parametrize("dst,mantissa,emin,largest", [("bf16", 7, -126, (2 - 2 ** -7) * 2.0 ** 127),
                                                       ("f16", 10, -14, 65504.0)])
def test_f32_narrowed_toward_zero(dst, mantissa, emin, largest):
    """Found by the twenty-first user sweep (``astype(bfloat16, rounding_mode=RZ)``): the emulator
    rounded ``cvt.rz.bf16.f32`` / ``cvt.rz.f16.f32`` to nearest.  Toward zero: the magnitude
    truncated (values just below the next step included), subnormals too, finite values past the
    range give the largest finite one, infinities stay, NaN is NaN."""
    ml = pytest.importorskip("ml_dtypes")
    n = 64
    data = np.zeros((n, 2), np.float32)
    x = np.random.default_rng(21).standard_normal(n).astype(np.float32) * 300
    x[:10] = [1.0 + 2.0 ** -8, -(1.0 + 2.0 ** -8), 1.0 - 2.0 ** -24, 3.0e38, -7.0e4, np.inf, -np.inf, np.nan,
              -1.0e-40, 3.0e-6]
    data[:, 0] = x
    memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
    emu = Emu(_narrow_ptx(f"cvt.rz.{dst}.f32"), [1 << 32], 16, n, (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    emu.run()
    assert not emu.errors, emu.errors
    t = ml.bfloat16 if dst == "bf16" else np.float16
    got = (data[:, 1].copy().view(np.uint32) & np.uint32(0xFFFF)).astype(np.uint16).view(t).astype(np.float64)
    want = np.array([_toward_zero(float(v), mantissa, emin, largest) for v in x])
    np.testing.assert_array_equal(got, want)
