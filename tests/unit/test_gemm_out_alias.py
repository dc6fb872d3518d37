"""``tileorch.gemm``'s ``out`` must not share memory with ``a`` or ``b`` (the kernel reads the
inputs tile by tile while it writes ``out``): :func:`check_out_disjoint` on the operands' dense
byte blocks, checked once per pointer triple (the GPU side: tests/gpu/test_gemm.py)."""

import pytest

from tileorch.launchers.gemm import check_out_disjoint

M, N, K = 64, 32, 32  # a: 64 x 32 bf16 = 4096 bytes, b: 32 x 32 = 2048, out: 64 x 32 bf16 = 4096 (f32: 8192)


def test_separate_blocks_pass():
    check_out_disjoint(0x10000, 0x20000, 0x30000, M, N, K, 2)
    check_out_disjoint(0x10000, 0x10000, 0x11000, M, N, K, 2)  # a and b may alias (both read); out right after a
    check_out_disjoint(0x13000, 0x10800, 0x10000 - 8192, M, N, K, 4)  # f32 out [0xe000, 0x10000) ends below b


@pytest.mark.parametrize("c_ptr,name", [
    (0x10000, "a"),                # out=a
    (0x10000 + 4094, "a"),         # out's first element is a's last
    (0x10000 - 4096 + 2, "a"),     # out's last element is a's first
    (0x20000 + 1024, "b"),         # out starts inside b
])
def test_overlap_is_refused(c_ptr, name):
    with pytest.raises(ValueError, match=f"out overlaps {name} .*pass a separate out tensor"):
        check_out_disjoint(0x10000, 0x20000, c_ptr, M, N, K, 2)


def test_f32_out_is_twice_as_long():
    check_out_disjoint(0x10000, 0x20000, 0x10000 - 4096, M, N, K, 2)  # bf16 out [0xf000, 0x10000): just below a
    with pytest.raises(ValueError, match="out overlaps a"):
        check_out_disjoint(0x10000, 0x20000, 0x10000 - 4096, M, N, K, 4)  # f32 out: 8192 bytes reach into a
