"""The Python builder writes a verified warp-specialized pipeline program without IR text."""

from __future__ import annotations

from io import StringIO

from xdsl.dialects.builtin import i32
from xdsl.printer import Printer

from tileorch.diagnostics import parse_module, verify_located
from tileorch.dialects.cutlass.builder import PipelineProgramBuilder
from tileorch.dialects.cutlass.pipeline import PipelineInitOp
from tileorch.registry import make_context
from tileorch.transforms.arrive_counts import StampArriveCounts


def build_ws(cluster=(1, 1, 1)):
    """1 producer warp, 2 consumer warp groups (warps 4-11), 4 stages, 4096 TMA bytes per stage."""
    b = PipelineProgramBuilder(cluster_shape=cluster)
    with b.kernel("ws", [i32]) as (k_tiles,):
        ready = b.pipeline(stages=4, participants=[0x1], consumers=[0xF0, 0xF00], transaction_size=[4096])
        c0, c1 = b.constant(0), b.constant(1)
        with b.async_exec("warp", 0xFF1):
            with b.switch_by_executor() as switch:
                with switch.case([0x1], [ready]) as (p,):
                    with b.loop(c0, k_tiles, c1, [b.state(p, "producer")]) as loop:
                        (s,) = loop.args
                        b.producer_acquire(p, s)
                        b.producer_barrier(p, s)
                        b.producer_commit(p, s, transaction_bytes=4096)
                        loop.yield_(b.increment(s))
                    b.producer_tail(p, loop.results[0])
                with switch.case([0xFF0], [ready]) as (q,):
                    with b.loop(c0, k_tiles, c1, [b.state(q, "consumer")]) as loop:
                        (s,) = loop.args
                        with b.consume(q, s):
                            b.get_index(s)
                        loop.yield_(b.increment(s))
    return b.module


def _text(module) -> str:
    out = StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def test_builder_program_verifies_and_round_trips():
    module = build_ws()
    module.verify()
    text = _text(module)
    reparsed = parse_module(make_context(), text, "built.mlir")
    assert verify_located(reparsed) == []
    assert _text(reparsed) == text
    for expected in (
        "cutlass.async.exec warp mask(0xff1)",
        "cutlass.pipeline.switch_by_executor case masks(0x1) args(",
        "cutlass.pipeline.producer_commit %",
        "{transaction_bytes = 4096 : i32}",
        "cutlass.pipeline.consume %",
        "cutlass.pipeline.producer_tail %",
        "scf.yield",
    ):
        assert expected in text


def test_builder_program_gets_cutlass_arrive_counts():
    # CUTLASS PipelineTmaAsync: full = 1 leader; empty = 256 consumer threads on one CTA,
    # (cx + cy - 1) * 2 consumer warp groups = 6 on a 2x2 cluster.
    for cluster, expected in (((1, 1, 1), (1, 256)), ((2, 2, 1), (1, 6))):
        module = build_ws(cluster)
        StampArriveCounts().apply(make_context(), module)
        (init,) = [op for op in module.walk() if isinstance(op, PipelineInitOp)]
        assert init.arrive_counts() == expected
