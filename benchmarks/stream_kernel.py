"""The streaming benchmark kernel in the cutlass dialect (same algorithm as
``stream_reference.py``): persistent CTAs, producer warp 0 moves each tile with one
``atom.bulk_copy_g2s`` into an N-stage mbarrier ring (``producer_commit`` arms the stage's full
barrier with the tile's bytes), and ``wgs`` consumer warp groups -- one cooperative consumer
group -- copy the stage out with 16-byte loads and stores, then release it."""

from __future__ import annotations


def stream_kernel(stages: int, tile: int, wgs: int) -> tuple[str, str]:
    """(kernel name, module text) of ``name(src, dst, ntiles)``; block = 32 + 128 * wgs."""
    assert tile % (16 * 128 * wgs) == 0
    name = f"stream_s{stages}_t{tile // 1024}k_wg{wgs}"
    block = 32 + 128 * wgs
    consumer_mask = ((1 << (4 * wgs)) - 1) << 1
    vecs = tile // 16
    ty = f"!cutlass.pipeline_state<{stages}>"
    text = f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @{name}(%src: !llvm.ptr<1>, %dst: !llvm.ptr<1>, %ntiles: i32) attributes {{nvvm.kernel, nvvm.maxntid = array<i32: {block}, 1, 1>}} {{
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = {stages}, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {{numStages = {stages} : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x{consumer_mask:x}>, transaction_size = array<i32: {tile}>}}
    cutlass.async.exec cta mask(1) threads({block}) {{
      cutlass.named_barrier.arrive_and_wait barrier_id = 0
    }}
    %c0 = arith.constant 0 : i32
    %cta = nvvm.read.ptx.sreg.ctaid.x : i32
    %ncta = nvvm.read.ptx.sreg.nctaid.x : i32
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %vecs = arith.constant {vecs} : i32
    %vecs64 = arith.constant {vecs} : i64
    cutlass.async.exec warp mask(0x1) {{
      %leader = arith.cmpi eq, %tid, %c0 : i32
      %bytes = arith.constant {tile} : i32
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %t = %cta to %ntiles step %ncta iter_args(%s = %start) -> ({ty}) : i32 {{
        cutlass.pipeline.producer_acquire %ready, %s
        scf.if %leader {{
          %fb = cutlass.pipeline.get_producer_barrier %ready, %s
          %idx = cutlass.pipeline.state.get_index %s
          %sv = arith.muli %idx, %vecs : i32
          %sp = llvm.getelementptr %smem[%sv] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<4xi32>
          %t64 = arith.extui %t : i32 to i64
          %gv = arith.muli %t64, %vecs64 : i64
          %gp = llvm.getelementptr %src[%gv] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
          atom.bulk_copy_g2s %sp, %gp, %fb, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
        }}
        cutlass.pipeline.producer_commit %ready, %s {{transaction_bytes = {tile} : i32}}
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : {ty}
      }}
      cutlass.pipeline.producer_tail %ready, %last
    }}
    cutlass.async.exec warp mask(0x{consumer_mask:x}) {{
      %c32 = arith.constant 32 : i32
      %ct = arith.subi %tid, %c32 : i32
      %cstep = arith.constant {128 * wgs} : i32
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %t = %cta to %ntiles step %ncta iter_args(%s = %start) -> ({ty}) : i32 {{
        cutlass.pipeline.consumer_wait %ready, %s
        %idx = cutlass.pipeline.state.get_index %s
        %sv = arith.muli %idx, %vecs : i32
        %t64 = arith.extui %t : i32 to i64
        %gv = arith.muli %t64, %vecs64 : i64
        %gbase = llvm.getelementptr %dst[%gv] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, vector<4xi32>
        scf.for %j = %ct to %vecs step %cstep : i32 {{
          %si = arith.addi %sv, %j : i32
          %sp = llvm.getelementptr %smem[%si] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, vector<4xi32>
          %v = llvm.load %sp {{alignment = 16 : i64}} : !llvm.ptr<3> -> vector<4xi32>
          %gp = llvm.getelementptr %gbase[%j] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, vector<4xi32>
          llvm.store %v, %gp {{alignment = 16 : i64}} : vector<4xi32>, !llvm.ptr<1>
        }}
        cutlass.pipeline.consumer_release %ready, %s
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : {ty}
      }}
    }}
    func.return
  }}
}}
"""
    return name, text


def compile_stream_kernel(stages: int, tile: int, wgs: int) -> dict:
    """PTX and launch facts of :func:`stream_kernel` (compiled by tileorch)."""
    from tileorch.cli.run import compile_mlir

    name, text = stream_kernel(stages, tile, wgs)
    return dict(kernel=name, ptx=compile_mlir(text, f"{name}.mlir"), block=32 + 128 * wgs,
                smem=stages * tile, mlir=text)
