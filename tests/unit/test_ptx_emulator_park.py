"""``ptx_emulator.Emu.park_waits``: threads spinning on an mbarrier poll that fails for all of them are not stepped
until some mbarrier changes phase, and a ``bar.sync`` whose threads have all arrived is not tried again until some
named barrier completes.  A hand-written two-slot ring (one producer thread computes ``K`` items, a work loop of
``W`` adds each, into two shared slots guarded by full / empty mbarriers; a consumer warp waits on full, sums,
releases on empty; each consumer thread stores its sum) whose results follow from its text: the same results
parked or not, fewer steps, one poll per wait that succeeds; too few arrivals is a deadlock that names the
barriers, where stepping the failed polls ran into the step limit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tileorch.testing.ptx_emulator import Emu, Fault

PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry ring(
	.param .u64 ring_param_0,
	.param .u32 ring_param_1,
	.param .u32 ring_param_2,
	.param .u32 ring_param_3
)
.maxntid 64, 1, 1
{
	.reg .pred %p<12>;
	.reg .b32 %r<50>;
	.reg .b64 %rd<8>;
	.shared .align 8 .b8 bars[32];
	.shared .align 16 .b8 slots[16];
	ld.param.u64 %rd1, [ring_param_0];
	ld.param.u32 %r1, [ring_param_1];
	ld.param.u32 %r2, [ring_param_2];
	ld.param.u32 %r19, [ring_param_3];
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, bars;
	mov.u32 %r5, slots;
	setp.ne.s32 %p1, %r3, 0;
	@%p1 bra $L__init_done;
	mbarrier.init.shared.b64 [%r4], 1;
	mbarrier.init.shared.b64 [%r4+8], 1;
	mbarrier.init.shared.b64 [%r4+16], %r2;
	mbarrier.init.shared.b64 [%r4+24], %r2;
$L__init_done:
	bar.sync 0;
	setp.ge.u32 %p2, %r3, 32;
	@%p2 bra $L__consumer;
	@%p1 bra $L__exit;
	mov.u32 %r10, 0;
$L__prod_loop:
	setp.ge.u32 %p3, %r10, %r1;
	@%p3 bra $L__exit;
	and.b32 %r11, %r10, 1;
	shr.u32 %r12, %r10, 1;
	and.b32 %r13, %r12, 1;
	xor.b32 %r14, %r13, 1;
	shl.b32 %r15, %r11, 3;
	add.u32 %r16, %r4, 16;
	add.u32 %r17, %r16, %r15;
$L__prod_wait:
	mov.b32 %r18, 10000000;
	mbarrier.try_wait.parity.shared.b64 %p4, [%r17], %r14, %r18;
	not.pred %p5, %p4;
	@%p5 bra $L__prod_wait;
	mov.u32 %r20, 0;
	mov.u32 %r21, %r10;
$L__work:
	setp.ge.u32 %p6, %r20, %r19;
	@%p6 bra $L__work_done;
	add.u32 %r21, %r21, 3;
	add.u32 %r20, %r20, 1;
	bra.uni $L__work;
$L__work_done:
	shl.b32 %r22, %r11, 2;
	add.u32 %r23, %r5, %r22;
	st.shared.u32 [%r23], %r21;
	add.u32 %r24, %r4, %r15;
	mbarrier.arrive.shared.b64 %rd2, [%r24];
	add.u32 %r10, %r10, 1;
	bra.uni $L__prod_loop;
$L__consumer:
	mov.u32 %r30, 0;
	mov.u32 %r31, 0;
$L__cons_loop:
	setp.ge.u32 %p7, %r30, %r1;
	@%p7 bra $L__store;
	and.b32 %r32, %r30, 1;
	shr.u32 %r33, %r30, 1;
	and.b32 %r34, %r33, 1;
	shl.b32 %r35, %r32, 3;
	add.u32 %r36, %r4, %r35;
$L__cons_wait:
	mov.b32 %r37, 10000000;
	mbarrier.try_wait.parity.shared.b64 %p8, [%r36], %r34, %r37;
	not.pred %p9, %p8;
	@%p9 bra $L__cons_wait;
	shl.b32 %r38, %r32, 2;
	add.u32 %r39, %r5, %r38;
	ld.shared.u32 %r40, [%r39];
	add.u32 %r31, %r31, %r40;
	add.u32 %r41, %r4, 16;
	add.u32 %r42, %r41, %r35;
	mbarrier.arrive.shared.b64 %rd3, [%r42];
	add.u32 %r30, %r30, 1;
	bra.uni $L__cons_loop;
$L__store:
	sub.u32 %r43, %r3, 32;
	mul.wide.u32 %rd4, %r43, 4;
	add.s64 %rd5, %rd1, %rd4;
	st.global.u32 [%rd5], %r31;
$L__exit:
	ret;
}
"""

POLL = "op:mbarrier.try_wait.parity.shared.b64"


def _run(items: int, work: int, empty_count: int = 32, park: bool = True, max_steps: int = 200_000):
    """(the emulator after the run, the consumers' sums): ``items`` items of ``work`` adds each."""
    out = np.full(32, 0xFFFFFFFF, dtype=np.uint32)
    emu = Emu(PTX, [1 << 32, items, empty_count, work], 0, 64, (0, 0, 0), {}, [(1 << 32, out.view(np.uint8), "out")])
    emu.park_waits = park
    emu.count_instructions = True
    emu.run(max_steps=max_steps)
    return emu, out


def _expected(items: int, work: int) -> int:
    """Item i is i + 3 * work; each consumer thread sums all of them."""
    return sum(i + 3 * work for i in range(items)) & 0xFFFFFFFF


@pytest.mark.parametrize("items,work", [(1, 0), (2, 5), (5, 2), (9, 12)])
def test_parked_results_are_the_stepped_ones(items, work):
    parked, out = _run(items, work)
    stepped, out_stepped = _run(items, work, park=False)
    assert not parked.errors and not stepped.errors, (parked.errors, stepped.errors)
    assert (out == _expected(items, work)).all(), out
    assert (out_stepped == out).all()
    assert parked.traffic["bar"] == stepped.traffic["bar"] == 64
    assert parked.clock < stepped.clock, (parked.clock, stepped.clock)


@pytest.mark.parametrize("items,work", [(2, 5), (9, 12)])
def test_one_poll_per_wait(items, work):
    """Parked, every poll that runs succeeds: the producer's ``items`` waits on empty and the consumer warp's
    ``items`` waits on full (32 threads each); stepping them polled the full barriers while the producer worked."""
    parked, _ = _run(items, work)
    assert parked.traffic[POLL] == items + 32 * items, parked.traffic[POLL]
    stepped, _ = _run(items, work, park=False)
    assert stepped.traffic[POLL] > parked.traffic[POLL]


def test_too_few_arrivals_is_a_deadlock():
    """Empty barriers expecting 33 arrivals of the 32 consumers: slot 0's second fill waits forever (the
    consumers wait for it in turn).  Reported as a deadlock naming both waits, at once."""
    with pytest.raises(Fault) as info:
        _run(3, 4, empty_count=33, max_steps=20_000)
    msg = str(info.value)
    assert msg.startswith("deadlock"), msg
    assert "threads 0..0 (1): mbarrier 16 waits for phase 0 to complete (1 arrivals" in msg, msg
    assert "threads 32..63 (32): mbarrier 0 waits for phase 1 to complete" in msg, msg
    with pytest.raises(Fault, match="step limit"):  # stepping the polls: a hang until the step limit
        _run(3, 4, empty_count=33, park=False, max_steps=20_000)


BAR_PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry two(
	.param .u64 two_param_0
)
.maxntid 64, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 32;
	@%p1 bra $L__done;
	bar.sync 1, 64;
$L__done:
	ret;
}
"""


def test_named_barrier_deadlock_names_its_arrivals():
    """Warp 0 waits on named barrier 1 for 64 threads; warp 1 exits: a deadlock with the barrier's arrivals."""
    emu = Emu(BAR_PTX, [0], 0, 64, (0, 0, 0), {}, [])
    with pytest.raises(Fault, match=r"deadlock: .*'bar.sync 1, 64' threads 0..31 \(32\): named barrier 1 has 32 of "
                                    r"64 arrivals"):
        emu.run()


@settings(max_examples=12, deadline=None)
@given(items=st.integers(1, 7), work=st.integers(0, 9))
def test_parking_keeps_results_property(items, work):
    parked, out = _run(items, work)
    _, out_stepped = _run(items, work, park=False)
    assert not parked.errors, parked.errors
    assert (out == _expected(items, work)).all() and (out_stepped == out).all()


BULK_PTX = """
.version 8.6
.target sm_90a
.address_size 64
.visible .entry bulk(
	.param .u64 bulk_param_0,
	.param .u64 bulk_param_1,
	.param .u32 bulk_param_2
)
.maxntid 64, 1, 1
{
	.reg .pred %p<4>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<10>;
	.shared .align 8 .b8 bar[8];
	.shared .align 16 .b8 data[16];
	ld.param.u64 %rd1, [bulk_param_0];
	ld.param.u64 %rd2, [bulk_param_1];
	ld.param.u32 %r1, [bulk_param_2];
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, bar;
	mov.u32 %r4, data;
	setp.ne.s32 %p1, %r2, 0;
	@%p1 bra $L__init_done;
	mbarrier.init.shared.b64 [%r3], 1;
$L__init_done:
	bar.sync 0;
	setp.lt.u32 %p2, %r2, 32;
	@%p2 bra $L__wait;
	setp.ne.s32 %p3, %r2, 32;
	@%p3 bra $L__exit;
	mov.u32 %r5, 0;
$L__work:
	add.u32 %r5, %r5, 1;
	setp.lt.u32 %p3, %r5, 40;
	@%p3 bra $L__work;
	mbarrier.arrive.expect_tx.shared.b64 %rd3, [%r3], 16;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd1], 16, [%r3];
	bra.uni $L__exit;
$L__wait:
	mov.b32 %r6, 10000000;
	mbarrier.try_wait.parity.shared.b64 %p2, [%r3], %r1, %r6;
	not.pred %p3, %p2;
	@%p3 bra $L__wait;
	and.b32 %r7, %r2, 3;
	shl.b32 %r8, %r7, 2;
	add.u32 %r9, %r4, %r8;
	ld.shared.u32 %r10, [%r9];
	mul.wide.u32 %rd4, %r2, 4;
	add.s64 %rd5, %rd2, %rd4;
	st.global.u32 [%rd5], %r10;
$L__exit:
	ret;
}
"""


@pytest.mark.parametrize("park", [True, False])
def test_a_wait_for_the_wrong_phase_is_still_caught(park):
    """Warp 1 bulk-copies 16 bytes into shared memory (after 40 steps of work), completing phase 0 of an mbarrier;
    warp 0 waits for it (parity 0: the phase to complete) and reads the bytes.  Waiting on parity 1 (a wrong
    phase: it passes at once) its reads come before the copy, which no thread then waits for: reported (a read
    of copied bytes before the wait would be too), and the bytes read are not the source's -- parked or stepped."""
    src = np.arange(1, 5, dtype=np.uint32) * np.uint32(0x01010101)
    results = {}
    for parity in (0, 1):
        out = np.full(32, 0xFFFFFFFF, dtype=np.uint32)
        memory = [(1 << 32, src.view(np.uint8), "src"), (2 << 32, out.view(np.uint8), "out")]
        emu = Emu(BULK_PTX, [1 << 32, 2 << 32, parity], 0, 64, (0, 0, 0), {}, memory)
        emu.park_waits = park
        emu.run()
        results[parity] = (emu.errors, out.copy())
    errors, out = results[0]
    assert not errors, errors
    assert (out == src[np.arange(32) % 4]).all(), out
    errors, out = results[1]
    assert any("before thread(s)" in e or "no thread waited for" in e for e in errors), errors
    assert (out != src[np.arange(32) % 4]).any(), out
