"""The mbarrier model (PTX semantics, cutlass-semantics.md §0), IR extraction, the check and
simulate commands, and the verify-pipelines pass on the project's examples."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tileorch.analysis import catalog as C
from tileorch.analysis import properties as P
from tileorch.analysis.barriers import MBarrier, NamedBarrier
from tileorch.analysis.explore import check
from tileorch.analysis.extract import load
from tileorch.analysis.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ["ws_pipeline.mlir", "coop_pipeline.mlir", "pingpong_seq_bar.mlir",
            "streamk_persistent.mlir"]


def test_fresh_mbarrier_passes_parity_1_and_blocks_parity_0():
    b = MBarrier.init(2)
    assert b.test_wait(1) and not b.test_wait(0)


def test_phase_completes_only_with_all_arrivals_and_tx_bytes():
    b = MBarrier.init(1).arrive(1, tx=64).barrier
    assert not b.test_wait(0)                      # bytes outstanding
    b = b.complete_tx(64)
    assert b.test_wait(0) and b.pending == 1 and b.parity == 1


def test_complete_tx_may_precede_expect_tx():
    b = MBarrier.init(1).complete_tx(32)          # TMA landed before arrive.expect_tx
    assert not b.test_wait(0)
    assert b.arrive(1, tx=32).barrier.test_wait(0)


def test_arrival_for_a_completed_phase_is_misplaced():
    b = MBarrier.init(1).arrive(1, phase=0).barrier
    assert b.arrive(1, phase=0).misplaced


def test_named_barrier_generation_and_count_mismatch():
    nb, err = NamedBarrier().arrive(128, 256)
    assert err is None and nb.arrived == 128
    nb, err = nb.arrive(128, 256)
    assert err is None and nb.generation == 1
    _, err = NamedBarrier().arrive(128, 256)[0].arrive(128, 128)
    assert err


@pytest.mark.parametrize("name", EXAMPLES)
def test_examples_check_clean_under_5_seconds(name):
    protocols, errors = load(str(ROOT / "examples" / name))
    assert not errors and protocols
    for proto in protocols:
        result = check(proto)
        assert result.ok, result.violation
        assert result.seconds < 5.0 * 3     # CI machines are shared; the budget is 5 s each


def _mutate(tmp_path, old, new):
    text = (ROOT / "examples" / "ws_pipeline.mlir").read_text()
    assert old in text
    path = tmp_path / "bad.mlir"
    path.write_text(text.replace(old, new, 1))
    return path


def test_ir_mutant_producer_start_phase_0_deadlocks(tmp_path):
    path = _mutate(tmp_path, "state.create %p producer", "state.create %p consumer")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.DEADLOCK


def test_ir_mutant_read_after_release(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s",
                   "cutlass.pipeline.consumer_release %q, %s\n"
                   "          %late = cutlass.pipeline.state.get_index %s")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.RELEASE_BEFORE_READ


def test_ir_mutant_missing_tail(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.producer_tail %p, %last", "")
    protocols, _ = load(str(path))
    assert check(protocols[0]).violation.prop == P.DRAIN


def test_cli_check_reports_counterexample_and_trace(tmp_path):
    path = _mutate(tmp_path, "{transaction_bytes = 4096 : i32}", "")
    trace = tmp_path / "t.json"
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "check", str(path),
                           "--trace", str(trace)], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "read-before-commit" in proc.stdout and "counterexample" in proc.stdout
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["ph"] for e in events} >= {"M", "X", "i"}


def test_cli_check_bad_input_is_located(tmp_path):
    path = tmp_path / "broken.mlir"
    path.write_text("builtin.module {\n  %x = arith.constant : i32\n}\n")
    proc = subprocess.run([sys.executable, "-m", "tileorch.cli.main", "check", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and f"{path}:2:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_verify_pipelines_pass_locates_the_violation(tmp_path):
    path = _mutate(tmp_path, "cutlass.pipeline.consumer_release %q, %s",
                   "cutlass.pipeline.consumer_release %q, %s\n"
                   "          %late = cutlass.pipeline.state.get_index %s")
    proc = subprocess.run([sys.executable, "-m", "tileorch.tools.opt", str(path),
                           "-p", "verify-pipelines"], capture_output=True, text=True)
    assert proc.returncode != 0
    assert f"{path}:32:" in proc.stdout + proc.stderr
    assert "release-before-read" in proc.stdout + proc.stderr


def test_simulate_reproduces_the_tile_order():
    sim = simulate(C.tma_warp_specialized(2, 2), {"k": 5}, seed=3)
    assert sim.functional_ok
    assert sim.consumed == {"consumer0": [0, 1, 2, 3, 4], "consumer1": [0, 1, 2, 3, 4]}


def test_simulate_streamk_sums_every_partial_once():
    sim = simulate(C.streamk_fixup(3), {}, seed=1)
    assert sim.result.ok and "0" in sim.outputs["tile"] and "2" in sim.outputs["tile"]


def test_simulate_reports_an_injected_deadlock_with_a_trace():
    sim = simulate(C.tma_warp_specialized(2, 2, empty_count=2 * C.WG + 1), {"k": 4}, seed=0)
    assert not sim.result.ok and sim.result.violation.prop == P.DEADLOCK
    assert sim.result.trace
