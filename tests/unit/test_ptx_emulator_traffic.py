"""``ptx_emulator.Emu.traffic``: the bytes a CTA reads and writes per global buffer, its shared-memory
bytes, barrier arrivals and (when asked) thread-instructions, on a hand-written kernel whose counts
follow from its text: 64 threads each load 16 bytes (one ``ld.global.v4.b32``), store a word to
shared memory, pass a barrier, read a neighbour's word back and store it to global memory; a
predicated-off half of a second load reads nothing."""

from __future__ import annotations

import numpy as np

from tileorch.testing.ptx_emulator import Emu

PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1
)
.maxntid 64, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<8>;
	.shared .align 16 .b8 scratch[256];
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u64 %rd2, [k_param_1];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 16;
	add.s64 %rd4, %rd1, %rd3;
	ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd4];
	setp.lt.u32 %p1, %r1, 32;
	@%p1 ld.global.b32 %r6, [%rd4];
	mul.lo.u32 %r7, %r1, 4;
	mov.u32 %r8, scratch;
	add.u32 %r9, %r8, %r7;
	st.shared.b32 [%r9], %r2;
	bar.sync 0;
	xor.b32 %r10, %r7, 4;
	add.u32 %r11, %r8, %r10;
	ld.shared.b32 %r3, [%r11];
	mul.wide.u32 %rd5, %r1, 4;
	add.s64 %rd6, %rd2, %rd5;
	st.global.b32 [%rd6], %r3;
	ret;
}
"""


def _run(count: bool) -> tuple[Emu, np.ndarray, np.ndarray]:
    src = np.arange(64 * 4, dtype=np.uint32)
    out = np.zeros(64, dtype=np.uint32)
    memory = [(1 << 32, src.view(np.uint8), "in"), (2 << 32, out.view(np.uint8), "out")]
    emu = Emu(PTX, [1 << 32, 2 << 32], 256, 64, (0, 0, 0), {}, memory)
    emu.count_instructions = count
    emu.run()
    assert not emu.errors, emu.errors
    return emu, src, out


def test_bytes_per_buffer_shared_bytes_and_barrier_arrivals():
    emu, src, out = _run(False)
    np.testing.assert_array_equal(out, src.reshape(64, 4)[np.arange(64) ^ 1, 0])  # the kernel ran as written
    t = emu.traffic
    assert t["load:in"] == 64 * 16 + 32 * 4  # the v4 loads, then the 32 threads the predicate lets through
    assert t["store:out"] == 64 * 4 and t["load:out"] == 0
    assert t["shared"] == 64 * 4 * 2
    assert t["bar"] == 64
    assert "instructions" not in t


def test_thread_instructions_when_asked():
    emu, _, _ = _run(True)
    # 17 instructions besides the predicated load, bar.sync and ret, run by all 64 threads; that load by 32
    assert emu.traffic["instructions"] == 17 * 64 + 32


def test_thread_instructions_per_opcode_when_asked():
    """``op:OPCODE``: the same count split by opcode (the predicated load's 32 threads under its own opcode)."""
    t = _run(True)[0].traffic
    ops = {k[3:]: v for k, v in t.items() if k.startswith("op:")}
    assert sum(ops.values()) == t["instructions"]
    assert ops["ld.global.b32"] == 32 and ops["ld.global.v4.b32"] == 64 and ops["xor.b32"] == 64
    assert "bar.sync" not in ops and not [k for k in _run(False)[0].traffic if k.startswith("op:")]
