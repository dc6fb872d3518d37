"""``analysis/static_copies.py``: the shared-memory layout rules ``tileorch compile`` (``convert-atoms-to-nvvm``) and
``tileorch check`` apply to pipeline stage copies, against an independent interval model."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tileorch.diagnostics import LocatedError  # noqa: E402


def _kernel(storage_at: int, stages: int, copy_at: int, stride: int, nbytes: int, second_at: int | None = None) -> str:
    """One pipeline with ``stages`` stages, its barriers at ``%smem[storage_at]``; one copy of ``nbytes`` bytes per stage
    at ``%smem[copy_at + stride * index]``; with ``second_at``, a second 2-stage pipeline's barriers at
    ``%smem[second_at]``."""
    second = "" if second_at is None else f"""
    %at2 = arith.constant {second_at} : i32
    %st2 = llvm.getelementptr %smem[%at2] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %pc2 = cutlass.pipeline.create storage(%st2) : !cutlass.pipeline<stages = 2, producers = 1, consumers = 1>
    %r2 = cutlass.pipeline.init %pc2 {{numStages = 2 : i32, participants = array<i64: 0x2>, consumers = array<i64: 0x4>}}"""
    return f"""builtin.module attributes {{cutlass.target = "sm_90a"}} {{
  func.func @k(%smem: !llvm.ptr<3>, %src: !llvm.ptr<1>) attributes {{nvvm.kernel}} {{
    %at = arith.constant {storage_at} : i32
    %st = llvm.getelementptr %smem[%at] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    %pc = cutlass.pipeline.create storage(%st) : !cutlass.pipeline<stages = {stages}, producers = 1, consumers = 1>
    %r = cutlass.pipeline.init %pc {{numStages = {stages} : i32, participants = array<i64: 0x1>, consumers = array<i64: 0x4>, \
transaction_size = array<i32: {nbytes}>}}{second}
    %s = cutlass.pipeline.state.create %r producer
    %full = cutlass.pipeline.get_producer_barrier %r, %s
    %bytes = arith.constant {nbytes} : i32
    %stride = arith.constant {stride} : i32
    %base = arith.constant {copy_at} : i32
    %idx = cutlass.pipeline.state.get_index %s
    %sidx = arith.muli %idx, %stride : i32
    %off = arith.addi %sidx, %base : i32
    %dst = llvm.getelementptr %smem[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
    atom.bulk_copy_g2s %dst, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>
    func.return
  }}
}}
"""


def _verdict(text: str) -> str | None:
    from tileorch.analysis.static_copies import check_module
    from tileorch.diagnostics import parse_module
    from tileorch.registry import make_context

    try:
        check_module(parse_module(make_context(), text, "k.mlir"))
    except LocatedError as exc:
        return exc.message
    return None


def _meets(a: int, b: int, c: int, d: int) -> bool:
    """[a, b) and [c, d) share a byte."""
    return max(a, c) < min(b, d)


@settings(max_examples=40, deadline=None)
@given(storage_at=st.integers(0, 96).map(lambda v: 8 * v), stages=st.integers(1, 6),
       copy_at=st.integers(0, 200).map(lambda v: 8 * v), stride=st.sampled_from([512, 1024, 2048]),
       nbytes=st.sampled_from([8, 64, 512, 1536, 3000]), second_at=st.one_of(st.none(), st.integers(0, 128).map(lambda v: 8 * v)))
def test_refused_exactly_where_the_intervals_meet(storage_at, stages, copy_at, stride, nbytes, second_at):
    """A copy of stage i lands on [copy_at + stride i, + nbytes); the pipeline's barriers are [storage_at, + 16
    stages), the second pipeline's [second_at, + 32).  Refused iff the two barrier blocks meet, or some stage's copy
    meets a barrier block, or two stages' copies meet (in that order of precedence)."""
    blocks = [(storage_at, storage_at + 16 * stages)] + ([] if second_at is None else [(second_at, second_at + 32)])
    expect_blocks = len(blocks) == 2 and _meets(*blocks[0], *blocks[1])
    copies = [(copy_at + stride * i, copy_at + stride * i + nbytes) for i in range(stages)]
    expect_copy = any(_meets(*c, *b) for c in copies for b in blocks)
    expect_stages = any(_meets(*c, *e) for i, c in enumerate(copies) for e in copies[i + 1:])
    said = _verdict(_kernel(storage_at, stages, copy_at, stride, nbytes, second_at))
    if expect_blocks:
        assert said is not None and "mbarriers (bytes" in said and "overlap those of the pipeline" in said, said
    elif expect_copy:
        assert said is not None and said.startswith("stage-slots: this copy of stage"), said
    elif expect_stages:
        assert said is not None and "two stages of one pipeline on the same bytes" in said, said
    else:
        assert said is None, said


def test_the_atoms_pass_looks_at_every_copy_the_checker_models():
    from tileorch.analysis.transfers import COPIES
    from tileorch.transforms.atoms_to_nvvm import _STAGE_COPIES

    assert _STAGE_COPIES == frozenset(COPIES)


def test_a_copy_under_a_branch_no_cta_takes_is_not_refused():
    """``scf.if`` on the CTA's cluster rank, never true on a 1-CTA launch: the copy onto the barriers never runs, so
    nothing is refused (the rule refuses only what holds in every run); the same copy unguarded is refused."""
    text = _kernel(0, 2, 0, 1024, 64)
    guarded = text.replace(
        "    atom.bulk_copy_g2s %dst, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>\n",
        "    %rank = nvvm.read.ptx.sreg.cluster.ctarank : i32\n    %c1 = arith.constant 1 : i32\n"
        "    %peer = arith.cmpi eq, %rank, %c1 : i32\n    scf.if %peer {\n"
        "      atom.bulk_copy_g2s %dst, %src, %full, %bytes : !llvm.ptr<3>, !llvm.ptr<1>, !llvm.ptr<3>\n    }\n")
    assert "stage-slots" in (_verdict(text) or "")
    assert _verdict(guarded) is None
