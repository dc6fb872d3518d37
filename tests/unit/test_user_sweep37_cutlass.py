"""The thirty-seventh user sweep's CUTLASS-dialect input: an attention kernel's K and V rings as two TMA pipelines
(sweep 31's ``KV_RINGS``: a producer warp committing each key tile's K stage and V stage, two cooperative consumer
warp groups) with the edits users make adapting it to their attention, through the commands a user runs on them
(cutlass_sweep_checks.cutlass_sweep_tests):

* :data:`CHECK_FAILURES`: edits that compile but break the protocol, ``tileorch check`` exits non-zero at the op's
  line -- V's commit expecting 8192 bytes (a wider V head than the copies bring): the V ring's phase never
  completes, a deadlock at V's producer tail; the consumers' key loop starting at tile 1 (one tile short): the
  producer's tail waits forever; the consumers' K state not advanced (``scf.yield %s``): a parity wait passes for an
  older phase; V's copy completing on K's barrier: the V commit's bytes never arrive;
* :data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line -- the V ring initialised with 3 stages
  for a 2-stage pipeline type, the producer's case widened to two warps (the second is not a producer)."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests  # noqa: E402
from test_user_sweep31_cutlass import KV_RINGS  # noqa: E402

INPUTS = {"kv_rings": KV_RINGS}
PTX_NEEDS = {"kv_rings": [r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"]}
CHECKS = {"kv_rings": "ok"}

_CONSUMERS = ("      } case masks(0xff0) args(%q = %kr, %qv = %vr) {\n        %k0 = cutlass.pipeline.state.create %q "
              "consumer\n        %v0 = cutlass.pipeline.state.create %qv consumer\n        %lk, %lv = scf.for %j = %c0 "
              "to %n")
_CONSUMER_YIELD = ("          %sn = cutlass.pipeline.state.increment %s\n          %tn = cutlass.pipeline.state."
                   "increment %t\n          scf.yield %sn, %tn : !cutlass.pipeline_state<2>, !cutlass.pipeline_state"
                   "<2>\n        }\n      }")
CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "v_commit_of_a_wider_head": (
        "kv_rings", "cutlass.pipeline.producer_commit %pv, %t {transaction_bytes = 4096",
        "cutlass.pipeline.producer_commit %pv, %t {transaction_bytes = 8192",
        "deadlock: every unfinished agent is blocked", "cutlass.pipeline.producer_tail %pv, %lv"),
    "consumers_one_key_tile_short": (
        "kv_rings", _CONSUMERS, _CONSUMERS.replace("scf.for %j = %c0 to %n", "scf.for %j = %c1 to %n"),
        "deadlock: every unfinished agent is blocked", "cutlass.pipeline.producer_tail %p, %lk"),
    "consumer_k_state_not_advanced": (
        "kv_rings", _CONSUMER_YIELD, _CONSUMER_YIELD.replace("scf.yield %sn, %tn", "scf.yield %s, %tn"),
        "parity-aliasing [consumer1.g0]", "cutlass.pipeline.consumer_wait %q, %s"),
    "v_copy_onto_the_k_barrier": (
        "kv_rings", "atom.bulk_copy_g2s %vd, %vf, %vfull", "atom.bulk_copy_g2s %vd, %vf, %kfull",
        "pipeline vr: this commit expects 4096 transaction bytes per stage but the producer issues no copy that "
        "delivers them", "cutlass.pipeline.producer_commit %pv, %t"),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "v_ring_initialised_with_3_stages": (
        "kv_rings", "%vr = cutlass.pipeline.init %vp {numStages = 2", "%vr = cutlass.pipeline.init %vp {numStages = 3",
        "invalid numStages: expected 2", "%vr = cutlass.pipeline.init %vp"),
    "producer_case_of_two_warps": (
        "kv_rings", "cutlass.pipeline.switch_by_executor case masks(0x1) args",
        "cutlass.pipeline.switch_by_executor case masks(0x3) args",
        "is a producer-side op, but arm 0 of the enclosing switch_by_executor (warp mask 0x3) runs threads 32..63",
        "cutlass.pipeline.producer_try_acquire %p, %s"),
}

CI = {"consumer_k_state_not_advanced", "producer_case_of_two_warps"}
"""The edits CI runs (the suite's time budget; the input itself is sweep 31's CI case); every one with
``TILEORCH_EMULATE_ALL=1``."""

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS, ci=CI)
