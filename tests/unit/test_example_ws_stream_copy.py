"""examples/ws_stream_copy.mlir, the complete (data-moving) example kernel: it compiles to a
standalone sm_90a kernel, round-trips, the checker proves it, the simulator runs it, and it is
the streaming benchmark's kernel (benchmarks/stream_kernel.py, measured exact on an H200)."""

from __future__ import annotations

import io
import re
import shutil
import sys
from pathlib import Path

import pytest
from xdsl.printer import Printer

from tileorch.analysis import properties as P
from tileorch.analysis.explore import check
from tileorch.analysis.extract import load
from tileorch.analysis.simulate import simulate
from tileorch.backend import pipeline
from tileorch.driver import compile_text
from tileorch.cli import main as cli_main
from tileorch.diagnostics import parse_module
from tileorch.registry import make_context

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ws_stream_copy.mlir"
STAGES, TILE_BYTES, CONSUMER_THREADS = 4, 16384, 256   # 4 stages, 16 KiB tiles, 8 consumer warps
HAVE_PTXAS = shutil.which("ptxas") is not None


@pytest.fixture(scope="module")
def ptx() -> str:
    return compile_text(EXAMPLE.read_text(), str(EXAMPLE), ptxas=HAVE_PTXAS).ptx


def test_compiles_to_a_standalone_kernel_that_moves_tiles(ptx):
    assert ".entry ws_stream_copy(" in ptx and ".maxntid 288, 1, 1" in ptx
    assert not re.search(r"^\.extern \.func", ptx, re.M)          # no -c: a complete kernel
    assert ptx.count("mbarrier.init.shared.b64") == 2 * STAGES     # full + empty per stage
    assert "fence.mbarrier_init.release.cluster" in ptx
    assert "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx
    assert "mbarrier.arrive.expect_tx" in ptx
    assert "ld.shared.v4.b32" in ptx and "st.global.v4.b32" in ptx
    # the copy's size and the expected transaction bytes are both one tile
    assert len(re.findall(rf"mov\.b32\s+%r\d+, {TILE_BYTES};", ptx)) == 2


def test_arrive_counts_are_one_elected_producer_and_every_consumer_thread():
    """Full barrier: the producer's one elected arrive.expect_tx; empty barrier: each of the 256
    consumer threads arrives on release (PTX: a phase completes after the init count of arrives)."""
    ctx = make_context()
    module = parse_module(ctx, EXAMPLE.read_text(), str(EXAMPLE))
    for p in pipeline.parse_pipeline("cutlass-stamp-arrive-counts"):
        p.apply(ctx, module)
    assert "arvCount = array<i32: 1, 256>" in str(module)


def test_round_trips_in_custom_and_generic_form():
    ctx = make_context()
    printed = str(parse_module(ctx, EXAMPLE.read_text(), str(EXAMPLE)))
    assert str(parse_module(make_context(), printed, "custom.mlir")) == printed
    module = parse_module(make_context(), printed, "custom.mlir")
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    assert '"cutlass.pipeline.producer_commit"' in out.getvalue()
    assert str(parse_module(make_context(), out.getvalue(), "generic.mlir")) == printed


def test_checker_proves_it_past_two_laps_of_the_ring():
    protocols, errors = load(str(EXAMPLE))
    assert not errors and [p.name for p in protocols] == ["ws_stream_copy"]
    result = check(protocols[0])
    assert result.ok, result.violation
    assert max(values["ntiles"] for values, _ in result.instances) >= 2 * STAGES + 1


def test_checker_sees_the_release(tmp_path):
    bad = tmp_path / "no_release.mlir"
    text = EXAMPLE.read_text()
    assert "cutlass.pipeline.consumer_release %ready, %s\n" in text
    bad.write_text(text.replace("cutlass.pipeline.consumer_release %ready, %s\n", "\n"))
    protocols, _ = load(str(bad))
    assert check(protocols[0]).violation.prop == P.DEADLOCK


@pytest.mark.parametrize("seed", range(3))
def test_simulation_consumes_every_tile_in_order(seed):
    protocols, _ = load(str(EXAMPLE))
    sim = simulate(protocols[0], {"ntiles": 11, "vecs": 2}, seed)
    assert sim.result.ok and sim.functional_ok
    assert list(sim.consumed.values()) == [list(range(11))]


def _cli(capsys, *argv: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as code:
        cli_main.main(list(argv))
    out = capsys.readouterr()
    return code.value.code, out.out + out.err


def test_cli_compile_check_simulate(tmp_path, capsys):
    ptx_file = tmp_path / "x.ptx"
    args = ["compile", str(EXAMPLE), "-o", str(ptx_file)] + ([] if HAVE_PTXAS else ["--no-ptxas"])
    code, text = _cli(capsys, *args)
    assert code == 0 and ".entry ws_stream_copy(" in ptx_file.read_text(), text
    code, text = _cli(capsys, "check", str(EXAMPLE))
    assert code == 0 and "ws_stream_copy: OK: all properties hold" in text, text
    code, text = _cli(capsys, "simulate", str(EXAMPLE), "--iterations", "6", "--runs", "2")
    assert code == 0 and text.count("consumed k tiles [0, 1, 2, 3, 4, 5] (in order)") == 2, text


def test_is_the_benchmark_kernel_without_its_redundant_init_barrier(ptx):
    """Same PTX as stream_kernel(4, 16384, 2) -- the variant measured exact in
    benchmarks/results/stream_pipeline.md -- except for the benchmark's extra CTA barrier after
    pipeline.init (whose lowering already ends with bar.sync 0)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from stream_kernel import stream_kernel

    name, text = stream_kernel(STAGES, TILE_BYTES, 2)
    bench = compile_text(text, f"{name}.mlir", ptxas=False).ptx.replace(name, "ws_stream_copy")
    lines = bench.splitlines()
    lines.remove("\tbar.sync \t0, 288;")
    assert ptx.splitlines() == lines
