"""Hand-written PTX of the streaming kernel's algorithm, the baseline the tileorch-compiled kernel
(``stream_pipeline.py``) is compared with: it separates what the algorithm can reach from what
the compiler adds.

Persistent CTAs walk tiles ``t = ctaid.x, ctaid.x + nctaid.x, ...``.  Warp 0's lane 0 is the
producer: it waits on ``empty[s]``, arms ``full[s]`` with ``arrive.expect_tx(TILE)`` and issues one
``cp.async.bulk`` global->shared of the tile completing on ``full[s]``.  ``wgs`` consumer warp
groups wait on ``full[s]``, copy the stage out with 16-byte shared loads and global stores, and
every consumer thread arrives on ``empty[s]`` (count ``128 * wgs``).
"""

from __future__ import annotations

BARRIER_BYTES = 1024  # barrier area at the start of dynamic shared memory; data follows


def smem_bytes(stages: int, tile: int) -> int:
    return BARRIER_BYTES + stages * tile


def reference_ptx(stages: int, tile: int, wgs: int) -> str:
    """PTX of kernel ``stream_ref(u64 src, u64 dst, u32 ntiles)`` (block = 32 + 128 * wgs)."""
    assert tile % (16 * 128 * wgs) == 0 and 2 * 8 * stages <= BARRIER_BYTES
    consumers = 128 * wgs
    return f"""
.version 8.0
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];

.visible .entry stream_ref(.param .u64 p_src, .param .u64 p_dst, .param .u32 p_n)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [p_src];
    ld.param.u64 %rd2, [p_dst];
    ld.param.u32 %r1, [p_n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %nctaid.x;
    mov.u32 %r5, smem;                 // full[s] at smem + 8s, empty[s] at smem + 8*(stages+s)
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra INIT_DONE;
    mov.u32 %r6, 0;
INIT:
    shl.b32 %r7, %r6, 3;
    add.u32 %r8, %r5, %r7;
    mbarrier.init.shared::cta.b64 [%r8], 1;
    add.u32 %r8, %r8, {8 * stages};
    mbarrier.init.shared::cta.b64 [%r8], {consumers};
    add.u32 %r6, %r6, 1;
    setp.lt.u32 %p2, %r6, {stages};
    @%p2 bra INIT;
INIT_DONE:
    bar.sync 0;
    setp.ge.u32 %p1, %r2, 32;
    @%p1 bra CONSUMER;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra EXIT;
    // ---- producer (one thread): stage %r10, phase %r11 (starts at 1)
    mov.u32 %r9, %r3;
    mov.u32 %r10, 0;
    mov.u32 %r11, 1;
P_LOOP:
    setp.ge.u32 %p1, %r9, %r1;
    @%p1 bra EXIT;
    shl.b32 %r12, %r10, 3;
    add.u32 %r13, %r5, %r12;            // full[s]
    add.u32 %r14, %r13, {8 * stages};   // empty[s]
P_WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r14], %r11;
    @!%p2 bra P_WAIT;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r13], {tile};
    mul.lo.u32 %r15, %r10, {tile};
    add.u32 %r15, %r15, {BARRIER_BYTES};
    add.u32 %r15, %r5, %r15;            // data[s]
    mul.wide.u32 %rd3, %r9, {tile};
    add.u64 %rd4, %rd1, %rd3;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r15], [%rd4], {tile}, [%r13];
    add.u32 %r10, %r10, 1;
    setp.eq.u32 %p3, %r10, {stages};
    @%p3 mov.u32 %r10, 0;
    @%p3 xor.b32 %r11, %r11, 1;
    add.u32 %r9, %r9, %r4;
    bra P_LOOP;
CONSUMER:
    // ---- consumers: thread c = tid - 32 copies 16 bytes at c*16 + k*{16 * consumers}
    sub.u32 %r16, %r2, 32;
    shl.b32 %r16, %r16, 4;
    mov.u32 %r9, %r3;
    mov.u32 %r10, 0;
    mov.u32 %r11, 0;
C_LOOP:
    setp.ge.u32 %p1, %r9, %r1;
    @%p1 bra EXIT;
    shl.b32 %r12, %r10, 3;
    add.u32 %r13, %r5, %r12;
    add.u32 %r14, %r13, {8 * stages};
C_WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r13], %r11;
    @!%p2 bra C_WAIT;
    mul.lo.u32 %r15, %r10, {tile};
    add.u32 %r15, %r15, {BARRIER_BYTES};
    add.u32 %r15, %r5, %r15;
    add.u32 %r15, %r15, %r16;
    mul.wide.u32 %rd3, %r9, {tile};
    add.u64 %rd5, %rd2, %rd3;
    cvt.u64.u32 %rd6, %r16;
    add.u64 %rd5, %rd5, %rd6;
    mov.u32 %r17, 0;
C_COPY:
    ld.shared.v4.u32 {{%r20, %r21, %r22, %r23}}, [%r15];
    st.global.v4.u32 [%rd5], {{%r20, %r21, %r22, %r23}};
    add.u32 %r15, %r15, {16 * consumers};
    add.u64 %rd5, %rd5, {16 * consumers};
    add.u32 %r17, %r17, 1;
    setp.lt.u32 %p3, %r17, {tile // (16 * consumers)};
    @%p3 bra C_COPY;
    mbarrier.arrive.shared::cta.b64 _, [%r14];
    add.u32 %r10, %r10, 1;
    setp.eq.u32 %p3, %r10, {stages};
    @%p3 mov.u32 %r10, 0;
    @%p3 xor.b32 %r11, %r11, 1;
    add.u32 %r9, %r9, %r4;
    bra C_LOOP;
EXIT:
    ret;
}}
"""
