"""The PTX emulator's edge cases against the PTX ISA (review 27: an emulator that disagrees with the H200
can hide a compiler bug).

* Floating-point ``max`` / ``min`` (f32, f16, f64): "If values of both inputs are 0.0, then +0.0 > -0.0"
  (PTX ISA, the notes of ``max`` and ``min``): ``max(+0, -0) = +0`` and ``min(+0, -0) = -0`` in either
  order.  The emulator took numpy's ``fmax`` / ``fmin``, which return one of two equal zeros by position.
* ``shl``: the amount is a ``.u32`` operand and amounts past the register width clamp to it (PTX ISA,
  ``shl``); the emulator read only the low ``width`` bits of the amount (``shl.b16`` by 0x10000 shifted by
  0).  ``shr`` already read 32 bits.
* ``div`` / ``rem`` by zero: "unspecified, machine-specific" (PTX ISA); the emulator's choice (all ones,
  the dividend) is pinned here, and the compiler no longer lets a zero divisor reach either
  (``test_review27_integer_semantics``)."""

from __future__ import annotations

import numpy as np
import pytest

from tileorch.testing.ptx_emulator import Emu, _int_op_exact, _int_op_fast

PAIRS = [(0.0, -0.0), (-0.0, 0.0), (0.0, 0.0), (-0.0, -0.0), (1.0, -0.0), (-1.0, 0.0), (np.nan, -0.0), (2.0, 3.0)]


def _kernel(ty: str, op: str) -> str:
    """Thread ``t`` reads two ``ty`` values at ``param + 8 t`` and ``+ size``, writes ``op`` of them after."""
    size = {"f16": 2, "f32": 4, "f64": 8}[ty]
    reg, width = {"f16": (".reg .b16 %v<4>;", "b16"), "f32": (".reg .f32 %v<4>;", "f32"),
                  "f64": (".reg .f64 %v<4>;", "f64")}[ty]
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(
  .param .u64 k_param_0
)
{{
  {reg}
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [k_param_0];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, {3 * size};
  add.s64 %rd2, %rd1, %rd3;
  ld.global.{width} %v1, [%rd2];
  ld.global.{width} %v2, [%rd2+{size}];
  {op}.{ty} %v3, %v1, %v2;
  st.global.{width} [%rd2+{2 * size}], %v3;
  ret;
}}
"""


@pytest.mark.parametrize("ty, dtype", [("f16", np.float16), ("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("op", ["max", "min"])
def test_max_min_order_signed_zeros(op, ty, dtype):
    data = np.zeros((len(PAIRS), 3), dtype)
    data[:, :2] = PAIRS
    data[:, 2] = 7
    memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
    emu = Emu(_kernel(ty, op), [1 << 32], 16, len(PAIRS), (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
    emu.run()
    assert not emu.errors, emu.errors
    got = data[:, 2]
    want = np.array([0.0, 0.0, 0.0, -0.0, 1.0, 0.0, -0.0, 3.0] if op == "max" else
                    [-0.0, -0.0, 0.0, -0.0, -0.0, -1.0, -0.0, 2.0], dtype)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("f", [_int_op_fast, _int_op_exact])
def test_shl_reads_the_whole_u32_amount(f):
    u = lambda *v: np.array(v, dtype=np.uint64)  # noqa: E731
    assert f("shl", "shl.b16", 16, False, [u(3, 3, 3), u(0x10000, 0x10001, 15)]).tolist() == [0, 0, 0x8000]
    assert f("shl", "shl.b32", 32, False, [u(3, 3), u(0xFFFFFFFF, 31)]).tolist() == [0, 0x80000000]


def test_division_by_zero_is_the_pinned_value():
    u = lambda *v: np.array(v, dtype=np.uint64)  # noqa: E731
    assert _int_op_exact("div", "div.u32", 32, False, [u(5), u(0)]).tolist() == [0xFFFFFFFF]
    assert _int_op_exact("div", "div.s32", 32, True, [u(5), u(0)]).tolist() == [0xFFFFFFFF]
    assert _int_op_exact("rem", "rem.s32", 32, True, [u(0xFFFFFFF9), u(0)]).tolist() == [0xFFFFFFF9]
    assert _int_op_exact("div", "div.s32", 32, True, [u(0x80000000), u(0xFFFFFFFF)]).tolist() == [0x80000000]
    assert _int_op_exact("rem", "rem.s32", 32, True, [u(0x80000000), u(0xFFFFFFFF)]).tolist() == [0]


@pytest.mark.parametrize("ty, dtype", [("f32", np.float32), ("f64", np.float64)])
def test_setp_ne_is_ordered(ty, dtype):
    """``setp.ne`` is false where an operand is NaN, ``setp.neu`` true (PTX ISA, floating-point comparisons:
    ``ne`` is ``a != b && !isNaN(a) && !isNaN(b)``); the emulator took numpy's ``!=`` for ``ne``."""
    size, width = (4, "f32") if ty == "f32" else (8, "f64")
    x = np.array([1.0, np.nan, 1.0, np.nan, 2.0, -0.0], dtype)
    y = np.array([2.0, 1.0, np.nan, np.nan, 2.0, 0.0], dtype)
    for cmp, want in (("ne", [1, 0, 0, 0, 0, 0]), ("neu", [1, 1, 1, 1, 0, 0])):
        data = np.zeros((len(x), 3), dtype)
        data[:, 0], data[:, 1], data[:, 2] = x, y, 7
        body = _kernel(ty, "max").replace(f"  max.{ty} %v3, %v1, %v2;\n",
                                          f"  setp.{cmp}.{ty} %p1, %v1, %v2;\n  selp.{width} %v3, 0d3FF0000000000000, "
                                          f"0d0000000000000000, %p1;\n" if ty == "f64" else
                                          f"  setp.{cmp}.{ty} %p1, %v1, %v2;\n  selp.{width} %v3, 0f3F800000, "
                                          f"0f00000000, %p1;\n").replace(".reg .b32 %r<4>;", ".reg .b32 %r<4>;\n  .reg .pred %p<2>;")
        memory = [(1 << 32, data.view(np.uint8).reshape(-1), "d")]
        emu = Emu(body, [1 << 32], 16, len(x), (0, 0, 0), {}, memory, nctaid=(1, 1, 1))
        emu.run()
        assert not emu.errors, emu.errors
        np.testing.assert_array_equal(data[:, 2], np.array(want, dtype), err_msg=cmp)
