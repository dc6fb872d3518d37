"""MLIR of the barrier conformance kernels.

* ``seqbar_<unit>``: two math groups (warp groups 1, 2 or warps 1, 2) ordered by a
  ``seq_bar<depth = 2, length = 2>`` as in CUTLASS ping-pong: group g takes tiles g, g+2, ...;
  stage 0 ("mainloop") and stage 1 ("epilogue") each append ``2 * tile + g`` to their own log
  through a counter in shared memory that is read and written without atomics -- correct only
  if the sections alternate G0, G1, G0, ... .  The warp-group variant also syncs each epilogue
  on the reserved epilogue named barrier (id 1, 128 threads).
* ``named_<w>w``: group A (warps 0..w-1) hands ``rounds`` blocks of words to group B (warps
  w..2w-1) through one shared buffer with two named barriers: FULL (A ``arrive``, B
  ``arrive_and_wait``; static id 8) and EMPTY (B ``arrive``, A ``arrive_and_wait``; id 9 given as
  an operand).
* ``gbar_<sync>``: global-memory generic barriers across the CTAs of the grid: a turnstile
  (``wait_eq lock[0], ctaid`` ... ``arrive_increment lock[0]``) serialising a non-atomic
  read-modify-write of ``acc``, then a grid barrier (``arrive_increment lock[1]`` ...
  ``wait_less_than lock[1], nctaid``) after which every CTA reads the words its neighbour wrote.
"""

from __future__ import annotations

NAMED_WORDS = 256
GBAR_THREADS = 128


def seqbar_kernel(unit: str) -> tuple[str, str, int]:
    """(name, text, block) of ``seqbar_<unit>(log0, log1, ntiles)``."""
    gs = 128 if unit == "warpgroup" else 32
    block = 3 * gs
    epilogue_sync = (
        "\n        cutlass.named_barrier.arrive_and_wait barrier_id = 1 num_threads = 128"
        if unit == "warpgroup" else ""
    )
    name = f"seqbar_{unit}"
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @{name}(%log0: !llvm.ptr<1>, %log1: !llvm.ptr<1>, %ntiles: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {block}, 1, 1>}} {{
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %cgs = arith.constant {gs} : i32
    %cnt0 = llvm.getelementptr %smem[%c0] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    %cnt1 = llvm.getelementptr %smem[%c1] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %t0 = arith.cmpi eq, %tid, %c0 : i32
    scf.if %t0 {{
      llvm.store %c0, %cnt0 : i32, !llvm.ptr<3>
      llvm.store %c0, %cnt1 : i32, !llvm.ptr<3>
    }}
    %sb = cutlass.seq_bar.create : !cutlass.seq_bar<depth = 2, length = 2>
    %order = cutlass.seq_bar.init %sb group_size({gs})
    cutlass.async.exec cta mask(1) threads({block}) {{
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }}
    cutlass.async.exec {unit} mask(6) {{
      %unit_idx = arith.divui %tid, %cgs : i32
      %group = arith.subi %unit_idx, %c1 : i32
      %lrank = arith.remui %tid, %cgs : i32
      %leader = arith.cmpi eq, %lrank, %c0 : i32
      %st0 = cutlass.seq_bar.state.create %order group(%group)
      %last = scf.for %tile = %group to %ntiles step %c2 iter_args(%st = %st0) -> (!cutlass.seq_bar_state<2>) : i32 {{
        %tag2 = arith.muli %tile, %c2 : i32
        %tag = arith.addi %tag2, %group : i32
        cutlass.seq_bar.wait %order, %st group(%group)
        scf.if %leader {{
          %p0 = llvm.load %cnt0 : !llvm.ptr<3> -> i32
          %e0 = llvm.getelementptr %log0[%p0] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %tag, %e0 : i32, !llvm.ptr<1>
          %n0 = arith.addi %p0, %c1 : i32
          llvm.store %n0, %cnt0 : i32, !llvm.ptr<3>
        }}
        %st_epi = cutlass.seq_bar.arrive %order, %st group(%group)
        cutlass.seq_bar.wait %order, %st_epi group(%group)
        scf.if %leader {{
          %p1 = llvm.load %cnt1 : !llvm.ptr<3> -> i32
          %e1 = llvm.getelementptr %log1[%p1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %tag, %e1 : i32, !llvm.ptr<1>
          %n1 = arith.addi %p1, %c1 : i32
          llvm.store %n1, %cnt1 : i32, !llvm.ptr<3>
        }}{epilogue_sync}
        %st_next = cutlass.seq_bar.arrive %order, %st_epi group(%group)
        scf.yield %st_next : !cutlass.seq_bar_state<2>
      }}
    }}
    func.return
  }}
}}
"""
    return name, text, block


def named_kernel(warps: int) -> tuple[str, str, int]:
    """(name, text, block) of ``named_<w>w(in, out, rounds)``."""
    t = 32 * warps
    name = f"named_{warps}w"
    mask_a = (1 << warps) - 1
    mask_b = mask_a << warps
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @{name}(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %rounds: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {2 * t}, 1, 1>}} {{
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %cw = arith.constant {NAMED_WORDS} : i32
    %ct = arith.constant {t} : i32
    %empty_id = arith.constant 9 : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %lt = arith.remui %tid, %ct : i32
    %last_round = arith.subi %rounds, %c1 : i32
    cutlass.async.exec warp mask(0x{mask_a:x}) {{
      scf.for %r = %c0 to %rounds step %c1 : i32 {{
        %later = arith.cmpi ugt, %r, %c0 : i32
        scf.if %later {{
          cutlass.named_barrier.arrive_and_wait %empty_id num_threads = {2 * t}
        }}
        %row = arith.muli %r, %cw : i32
        scf.for %j = %lt to %cw step %ct : i32 {{
          %gi = arith.addi %row, %j : i32
          %gp = llvm.getelementptr %in[%gi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          %v = llvm.load %gp : !llvm.ptr<1> -> i32
          %sp = llvm.getelementptr %smem[%j] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
          llvm.store %v, %sp : i32, !llvm.ptr<3>
        }}
        cutlass.named_barrier.arrive barrier_id = 8 num_threads = {2 * t}
      }}
    }}
    cutlass.async.exec warp mask(0x{mask_b:x}) {{
      scf.for %r = %c0 to %rounds step %c1 : i32 {{
        cutlass.named_barrier.arrive_and_wait barrier_id = 8 num_threads = {2 * t}
        %row = arith.muli %r, %cw : i32
        scf.for %j = %lt to %cw step %ct : i32 {{
          %sp = llvm.getelementptr %smem[%j] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
          %v = llvm.load %sp : !llvm.ptr<3> -> i32
          %gi = arith.addi %row, %j : i32
          %gp = llvm.getelementptr %out[%gi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
          llvm.store %v, %gp : i32, !llvm.ptr<1>
        }}
        %more = arith.cmpi ult, %r, %last_round : i32
        scf.if %more {{
          cutlass.named_barrier.arrive %empty_id num_threads = {2 * t}
        }}
      }}
    }}
    func.return
  }}
}}
"""
    return name, text, 2 * t


def gbar_kernel(sync: str) -> tuple[str, str, int]:
    """(name, text, block) of ``gbar_<sync>(lock, acc, data, out)``; one CTA per SM at most."""
    policy = {"syncthreads": "", "named": " sync = named_barrier barrier_id = 8 num_threads = 128"}[sync]
    name = f"gbar_{sync}"
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @{name}(%lock: !llvm.ptr<1>, %acc: !llvm.ptr<1>, %data: !llvm.ptr<1>, %out: !llvm.ptr<1>) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {GBAR_THREADS}, 1, 1>}} {{
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c31 = arith.constant 31 : i32
    %c1000 = arith.constant 1000 : i32
    %cth = arith.constant {GBAR_THREADS} : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %cta = nvvm.read.ptx.sreg.ctaid.x : i32
    %ncta = nvvm.read.ptx.sreg.nctaid.x : i32
    %t0 = arith.cmpi eq, %tid, %c0 : i32
    cutlass.async.exec cta mask(1) threads({GBAR_THREADS}) {{
      cutlass.generic_barrier.wait_eq %lock[%c0], %cta{policy} : !llvm.ptr<1>
      scf.if %t0 {{
        %a = llvm.load %acc : !llvm.ptr<1> -> i32
        %a31 = arith.muli %a, %c31 : i32
        %a1 = arith.addi %a31, %cta : i32
        %a2 = arith.addi %a1, %c1 : i32
        llvm.store %a2, %acc : i32, !llvm.ptr<1>
      }}
      cutlass.generic_barrier.arrive_increment %lock[%c0]{policy} : !llvm.ptr<1>
      %mine = arith.muli %cta, %cth : i32
      %wi = arith.addi %mine, %tid : i32
      %val0 = arith.muli %cta, %c1000 : i32
      %val = arith.addi %val0, %tid : i32
      %wp = llvm.getelementptr %data[%wi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %val, %wp : i32, !llvm.ptr<1>
      cutlass.generic_barrier.arrive_increment %lock[%c1]{policy} : !llvm.ptr<1>
      cutlass.generic_barrier.wait_less_than %lock[%c1], %ncta{policy} : !llvm.ptr<1>
      %nb0 = arith.addi %cta, %c1 : i32
      %nb = arith.remui %nb0, %ncta : i32
      %theirs = arith.muli %nb, %cth : i32
      %ri = arith.addi %theirs, %tid : i32
      %rp = llvm.getelementptr %data[%ri] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      %got = llvm.load %rp : !llvm.ptr<1> -> i32
      %op = llvm.getelementptr %out[%wi] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
      llvm.store %got, %op : i32, !llvm.ptr<1>
    }}
    func.return
  }}
}}
"""
    return name, text, GBAR_THREADS
