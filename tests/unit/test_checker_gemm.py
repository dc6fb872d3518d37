"""`tileorch check` proves the GEMM's pipeline protocol (issue 11, item 8).

The IR comes from the GEMM builder (``tileorch.kernels.gemm``) for the stage counts, cluster
shapes and schedules it offers; each configuration's protocol (TMA tensor loads, B multicast
over a 2x1 cluster, the consumers' lagged ``reads_retired`` release after ``wgmma.wait_group``,
the scheduler's ``scf.while``) must check clean; the CPU time is measured by
``benchmarks/checker_gemm.py``, not asserted here (no timed tests in CI).  Mutants show that the
extraction sees what matters: an unelected TMA issue, a release of the previous stage in the
first iteration, two consumer warp groups on one Stream-K fix-up slot, and TMA loads whose
``cutlass.tx_bytes`` do not add up to the commit's transaction bytes.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from tool_forkserver import forked

pytest.importorskip("xdsl")

from tileorch.analysis import properties as P  # noqa: E402
from tileorch.analysis.explore import check  # noqa: E402
from tileorch.analysis.extract import load  # noqa: E402
from tileorch.kernels.gemm.config import GemmConfig, GemmConfigError  # noqa: E402
from tileorch.kernels.gemm.ir import gemm_kernel_ir  # noqa: E402

CONFIGS = ([(s, 1, sch, 256) for s in (2, 3, 4) for sch in ("persistent", "streamk", "dp")]
           + [(2, 2, sch, 256) for sch in ("persistent", "streamk", "dp")]
           + [(s, 1, "persistent", 128) for s in (5, 6)])
"""Every stage count (2..4 at tile_n 256, 5..6 at tile_n 128) on one CTA, and 2 stages on the
2x1 cluster.  Deeper rings on the 2x1 cluster check clean too but take 20 s (3 stages) and more
of CPU (docs/model-checking.md has the table); they are not run here."""


def _ir(tmp_path, stages, cluster, schedule, tile_n=256, **kw):
    try:
        cfg = GemmConfig(stages=stages, cluster_m=cluster, schedule=schedule, tile_n=tile_n, **kw).check()
    except GemmConfigError as exc:
        pytest.skip(f"the builder does not offer this configuration: {exc}")
    path = tmp_path / f"{cfg.name}.mlir"
    path.write_text(gemm_kernel_ir(cfg))
    return path


def _check_all(path):
    protocols, errors = load(str(path))
    assert not errors, errors
    results = [check(p) for p in protocols]
    return protocols, results


@pytest.mark.parametrize("stages, cluster, schedule, tile_n", CONFIGS,
                         ids=[f"s{s}-c{c}-{sch}-n{n}" for s, c, sch, n in CONFIGS])
def test_gemm_protocol_checks_clean(tmp_path, stages, cluster, schedule, tile_n):
    path = _ir(tmp_path, stages, cluster, schedule, tile_n)
    protocols, results = _check_all(path)
    for result in results:
        assert result.ok, (result.values, result.violation)
    main = protocols[0]
    # producer + the consumer body both warp groups run (TILEORCH_GEMM_SHARED_CONSUMER=1, the default), or + a
    # consumer per warp group (stream-K: its fix-up names a barrier per warp group)
    assert main.ctas == cluster and len(main.agents) == (3 if schedule == "streamk" else 2) * cluster
    names = {name for name, _values in main.params}
    assert names == ({"kend", "tiles"} if schedule == "streamk" else {"k_tiles", "tiles"})
    # every load states its bytes (cutlass.tx_bytes): the check assumes nothing about them
    assert not main.notes, main.notes
    if schedule == "streamk":
        assert len(protocols) == 2 and protocols[1].name.endswith(".fixup")


@pytest.mark.parametrize("stages, schedule", [(2, "persistent"), (3, "persistent"), (4, "dp")])
def test_64_row_gemm_protocol_checks_clean(tmp_path, stages, schedule):
    """64 x 64 x 32 tiles (one consumer warp group, 64-byte K rows): producer + one consumer per CTA,
    every trip count's interleavings free of deadlocks and races, every load's bytes stated."""
    path = _ir(tmp_path, stages, 1, schedule, 64, tile_m=64, tile_k=32, dtype="f16", out_dtype="f32",
               epilogue="direct")
    protocols, results = _check_all(path)
    for result in results:
        assert result.ok, (result.values, result.violation)
    assert len(protocols[0].agents) == 2 and not protocols[0].notes


def test_one_stage_gemm_deadlocks_or_is_rejected(tmp_path):
    """With one stage the consumer waits for k tile 1 while still holding stage 0 (it releases
    the previous stage only after issuing the next wgmma batch): a real deadlock for K > 64.
    The builder must not offer it; until it rejects it, the checker must report it."""
    path = _ir(tmp_path, 1, 1, "persistent")
    _protocols, results = _check_all(path)
    assert results[0].violation.prop == P.DEADLOCK
    assert results[0].values["k_tiles"] == 2


def _mutant(tmp_path, text, old, new, count=1):
    assert text.count(old) >= count, old
    path = tmp_path / "mutant.mlir"
    path.write_text(text.replace(old, new))
    return path


def test_unelected_tma_issue_overfills_the_stage(tmp_path):
    """Every lane of the producer warp issuing the loads delivers 32 x the bytes: the landing that
    takes the full barrier's transaction count below 0 with no arrival left is the violation
    (over-arrival since session 32; it was found as the deadlock it leads to)."""
    text = _ir(tmp_path, 2, 2, "persistent").read_text()
    path = _mutant(tmp_path, text, "          scf.if %leader {\n              %fb",
                   "          %all = arith.constant true\n          scf.if %all {\n              %fb")
    _protocols, results = _check_all(path)
    assert not results[0].ok and results[0].violation.prop == P.OVER_ARRIVAL, results[0].violation
    assert "bytes more than the phase's arrivals expect" in results[0].violation.message


def test_release_of_the_previous_stage_in_the_first_iteration_is_caught(tmp_path):
    """Without the `kt != kbeg` guard the first iteration releases a stage it never waited on:
    the check must not pass (the loop is then not peeled, and its lagging state is rejected
    at the loop as not modelled, never assumed)."""
    text = _ir(tmp_path, 2, 1, "persistent").read_text()
    # one guard in the consumer body both warp groups run (TILEORCH_GEMM_SHARED_CONSUMER=1, the default)
    guard = r"(%not_first\w*) = arith.cmpi ne, %kt\w*, %kbeg\w* : i32"
    text, guards = re.subn(guard, r"\1 = arith.constant true", text)
    assert guards == 1
    path = tmp_path / "mutant.mlir"
    path.write_text(text)
    protocols, errors = load(str(path))
    assert errors or not check(protocols[0]).ok
    if errors:
        assert f"{path}:" in errors[0] and "advance by different amounts" in errors[0]


def test_two_consumer_groups_on_one_fixup_slot_are_rejected(tmp_path):
    text = _ir(tmp_path, 2, 2, "streamk").read_text()
    path = _mutant(tmp_path, text, "{barrier_idx = 1 : i32, num_barriers = 2 : i32}",
                   "{barrier_idx = 0 : i32, num_barriers = 2 : i32}")
    protocols, errors = load(str(path))
    assert not protocols and f"{path}:" in errors[0]
    assert "barrier_idx = 0" in errors[0] and "threads 128..255 and 256..383" in errors[0]


@pytest.mark.parametrize("b_bytes, ok", [(16384, True), (8192, False)])
def test_tma_load_bytes_are_checked(tmp_path, b_bytes, ok):
    """`cutlass.tx_bytes` on each load (A: 128 x 64 bf16 = 16384 bytes, each CTA's half of
    B: 128 x 64 bf16 = 16384 bytes, multicast to both CTAs): a wrong box size is a hang."""
    text = _ir(tmp_path, 2, 2, "persistent").read_text()
    path = _mutant(tmp_path, text, "multicast_mask = %mcast {cutlass.tx_bytes = 16384 : i32}",
                   f"multicast_mask = %mcast {{cutlass.tx_bytes = {b_bytes} : i32}}")
    protocols, results = _check_all(path)
    assert not protocols[0].notes
    assert results[0].ok == ok
    if not ok:
        assert results[0].violation.prop == P.DEADLOCK


def test_cli_checks_a_gemm_configuration(tmp_path):
    path = _ir(tmp_path, 2, 2, "streamk")
    proc = subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", "check", str(path)]),
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("OK: all properties hold") == 2


def test_streamk_example_groups_sharing_a_fixup_slot_are_rejected(tmp_path):
    """examples/streamk_persistent.mlir passes each consumer warp group its own barrier_idx;
    with both on index 0 (the example before the fix) the check fails at the second group's
    fix-up, instead of reporting the kernel OK."""
    from pathlib import Path
    example = Path(__file__).resolve().parents[2] / "examples" / "streamk_persistent.mlir"
    text = example.read_text()
    assert "barrier_idx = 1 : i32" in text
    path = _mutant(tmp_path, text, "barrier_idx = 1 : i32", "barrier_idx = 0 : i32")
    protocols, errors = load(str(path))
    line = text[: text.index("barrier_idx = 1 : i32")].count("\n") + 1
    assert not protocols and errors[0].startswith(f"{path}:{line}:")
    assert "threads 128..255 and 256..383 both use Stream-K fix-up barrier_idx = 0" in errors[0]
    protocols, errors = load(str(example))
    assert not errors and all(check(p).ok for p in protocols)


DEFAULT_GEMM_STATE_BOUND = 2_500
"""States the check of the default GEMM (4 stages, 2x1 cluster, persistent) explores over all
its instances (k_tiles = 1..9 x tiles = 1..2): 2,052 with session 43's causal windows and commuting
arrivals (10,911 without them at session 43's extraction; 73,837 with the round-indexed footprints at
their introduction, 654,672 before, see docs/model-checking.md).  A bound on explored states, not a timed
test: a reduction that stops applying shows up here as a failure instead of a slow suite."""


def test_default_gemm_is_checked_within_a_state_bound():
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir"
    protocols, errors = load(str(path))
    assert not errors and len(protocols) == 1
    main = protocols[0]
    assert main.ctas == 2 and main.pipelines[0].stages == 4
    assert dict(main.params) == {"k_tiles": tuple(range(1, 10)), "tiles": (1, 2)}
    # the round-indexed footprints apply (else the bound below is out of reach)
    from tileorch.analysis.machine import Machine
    assert Machine(main, {"k_tiles": 3, "tiles": 2}).round_pipes == {"ready"}
    result = check(main)
    assert result.ok, (result.values, result.violation)
    assert len(result.instances) == 18
    assert result.states <= DEFAULT_GEMM_STATE_BOUND, result.states


@pytest.mark.parametrize("old, new, prop", [
    # consumers that start in the producer's phase: their first wait passes before any commit
    ("state.create %ready consumer", "state.create %ready producer",
     (P.READ_BEFORE_COMMIT, P.PARITY_ALIASING)),
    # every lane of the producer warp issues the TMA loads: 32 x the bytes
    ("        scf.if %leader {\n", "        %all = arith.constant true\n        scf.if %all {\n",
     (P.DEADLOCK,)),
], ids=["wrong-phase", "unelected-tma"])
def test_seeded_bug_in_the_default_gemm_is_found(tmp_path, old, new, prop):
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir").read_text()
    path = _mutant(tmp_path, text, old, new)
    protocols, errors = load(str(path))
    if errors:      # rejected while reading the protocol: located at the mutant
        assert f"{path}:" in errors[0]
        return
    result = check(protocols[0])
    assert not result.ok and result.violation.prop in prop, result.violation


def test_parallel_check_gives_the_serial_verdict_counts_and_counterexample(tmp_path):
    """``check(jobs=2)`` (instances in forked processes, the largest started first) reports what the
    serial search reports: on a clean protocol the same per-instance state counts, on a seeded bug
    the same first violating instance, property and counterexample."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "examples" / "gemm_sm90.mlir").read_text()
    clean, errors = load(str(_ir(tmp_path, 2, 1, "persistent", 128)))
    assert not errors
    serial, parallel = check(clean[0]), check(clean[0], jobs=2)
    assert serial.ok and parallel.ok
    assert parallel.instances == serial.instances and parallel.transitions == serial.transitions
    path = _mutant(tmp_path, text, "state.create %ready consumer", "state.create %ready producer")
    bad, errors = load(str(path))
    assert not errors
    serial, parallel = check(bad[0]), check(bad[0], jobs=2)
    assert not serial.ok and not parallel.ok
    assert parallel.values == serial.values and parallel.violation.prop == serial.violation.prop
    def steps(trace):
        return [(s.actor, s.action, s.stage, s.phase) for s in trace]
    assert steps(parallel.trace) == steps(serial.trace)
    assert parallel.states == serial.states
