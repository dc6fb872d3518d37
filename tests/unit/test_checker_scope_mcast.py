"""``tileorch check`` on CTA-scoped pipelines in multi-CTA clusters and on per-load multicast
masks (issue 10, item 5): releases of a ``scope = cta`` pipeline stay in their CTA and count
local threads; a ``row`` / ``col`` load lands only in the CTAs of that direction."""

from pathlib import Path

from tileorch.analysis.explore import check
from tileorch.analysis.extract import load
from tileorch.analysis.protocol import ConsumerRelease, Loop, ProducerWrite

MCAST_2X2 = """
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @k(%tmap_a: !llvm.ptr, %tmap_b: !llvm.ptr, %n: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 64, 1, 1>} {
    %smem = atom.dynamic_smem : !llvm.ptr<3>
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x2>, transaction_size = array<i32: 2048>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x1) {
      %mask_a = cutlass.pipeline.get_producer_mask %ready row
      %mask_b = cutlass.pipeline.get_producer_mask %ready col
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.produce %ready, %s attributes {transaction_bytes = TX : i32} {
          %fb = cutlass.pipeline.get_producer_barrier %ready, %s
          // stage i at 2048 i (session 41: stages on one range are refused, stage-slots)
          %c2048 = arith.constant 2048 : i32
          %idx = cutlass.pipeline.state.get_index %s
          %stage = arith.muli %idx, %c2048 : i32
          %sbase = llvm.getelementptr %smem[%stage] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %dst = llvm.addrspacecast %sbase : !llvm.ptr<3> to !llvm.ptr<7>
          // each CTA's 512-byte slice of A at 512 x its y, of B at 1024 + 512 x its x (disjoint in every CTA)
          %c512 = arith.constant 512 : i32
          %c1024 = arith.constant 1024 : i32
          %cx = nvvm.read.ptx.sreg.cluster.ctaid.x : i32
          %cy = nvvm.read.ptx.sreg.cluster.ctaid.y : i32
          %a_off = arith.muli %cy, %c512 : i32
          %b_x = arith.muli %cx, %c512 : i32
          %b_off = arith.addi %b_x, %c1024 : i32
          %dst_a = llvm.getelementptr %dst[%a_off] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i8
          %dst_b = llvm.getelementptr %dst[%b_off] : (!llvm.ptr<7>, i32) -> !llvm.ptr<7>, i8
          nvvm.cp.async.bulk.tensor.shared.cluster.global %dst_a, %tmap_a, %fb, box[%k] multicast_mask = %mask_a {cutlass.tx_bytes = 512 : i32} : !llvm.ptr<7>, !llvm.ptr
          nvvm.cp.async.bulk.tensor.shared.cluster.global %dst_b, %tmap_b, %fb, box[%k] multicast_mask = %mask_b {cutlass.tx_bytes = 512 : i32} : !llvm.ptr<7>, !llvm.ptr
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
      cutlass.pipeline.producer_tail %ready, %last
    }
    cutlass.async.exec warp mask(0x2) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consume %ready, %s {
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
"""

CTA_LOCAL_2X1 = """
builtin.module attributes {cutlass.target = "sm_90a", cutlass.cluster_shape = array<i32: 2, 1, 1>} {
  func.func @k(%n: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 96, 1, 1>} {
    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1, scope = cta>
    %ready = cutlass.pipeline.init %pipe {numStages = 2 : i32, executor = #cutlass<executor_type warp>, participants = array<i64: 0x1>, consumers = array<i64: 0x6>}
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    cutlass.async.exec warp mask(0x1) {
      %start = cutlass.pipeline.state.create %ready producer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.produce %ready, %s {
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
      cutlass.pipeline.producer_tail %ready, %last
    }
    cutlass.async.exec warp mask(0x6) {
      %start = cutlass.pipeline.state.create %ready consumer
      %last = scf.for %k = %c0 to %n step %c1 iter_args(%s = %start) -> (!cutlass.pipeline_state<2>) : i32 {
        cutlass.pipeline.consume %ready, %s {
        }
        %next = cutlass.pipeline.state.increment %s
        scf.yield %next : !cutlass.pipeline_state<2>
      }
    }
    func.return
  }
}
"""


def _load(tmp_path: Path, text: str):
    path = tmp_path / "k.mlir"
    path.write_text(text)
    protocols, errors = load(str(path), iterations=2)
    assert not errors, errors
    assert len(protocols) == 1
    return protocols[0]


def _ops(program):
    for op in program:
        if isinstance(op, Loop):
            yield from _ops(op.body)
        else:
            yield op


def test_per_load_masks_land_in_their_direction_and_check_clean(tmp_path):
    # each CTA's stage: 512 B of A from each of the 2 CTAs of its row (same x) plus 512 B of B
    # from each of the 2 CTAs of its column (same y) = 2048 B (a row_col model would see 3072)
    proto = _load(tmp_path, MCAST_2X2.replace("TX", "2048"))
    producer = next(a for a in proto.agents if a.cta == 0 and a.role == "producer")
    writes = [op for op in _ops(producer.program) if isinstance(op, ProducerWrite)]
    assert writes
    per_cta = dict(zip(writes[0].dst, writes[0].nbytes))
    # rank = x + 2y: CTA 0 = (0, 0); its row (x = 0) is {0, 2}, its column (y = 0) is {0, 1}
    assert per_cta == {0: 1024, 1: 512, 2: 512}
    consumer = next(a for a in proto.agents if a.cta == 3 and a.role == "consumer")
    releases = [op for op in _ops(consumer.program) if isinstance(op, ConsumerRelease)]
    assert releases and all(sorted(r.dst) == [1, 2, 3] for r in releases)   # not the diagonal
    result = check(proto)
    assert result.ok, result.violation


def test_per_load_masks_byte_mismatch_is_a_violation(tmp_path):
    result = check(_load(tmp_path, MCAST_2X2.replace("TX", "3072")))
    assert not result.ok


def test_per_load_masks_landing_on_the_same_bytes_are_refused(tmp_path):
    """The B slices placed by the issuer's y (as the A slices) instead of its x: the bytes still add up (2048), but
    in each CTA the two B slices of its column land on one range (session 40: the checker proved it)."""
    text = MCAST_2X2.replace("TX", "2048").replace("%b_x = arith.muli %cx, %c512", "%b_x = arith.muli %cy, %c512")
    path = tmp_path / "k.mlir"
    path.write_text(text)
    _, errors = load(str(path), iterations=2)
    assert len(errors) == 1 and "k.mlir:33:11: error: stage-slots: in CTA 0 of the cluster" in errors[0], errors


def test_cta_scoped_pipeline_in_a_cluster_releases_locally_and_checks_clean(tmp_path):
    proto = _load(tmp_path, CTA_LOCAL_2X1)
    assert proto.pipelines[0].empty_count == 64     # the 64 local consumer threads
    for agent in proto.agents:
        for op in _ops(agent.program):
            if isinstance(op, ConsumerRelease):
                assert op.dst is None and op.arrivals == 64
    result = check(proto)
    assert result.ok, result.violation
