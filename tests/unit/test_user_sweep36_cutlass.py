"""The thirty-sixth user sweep's CUTLASS-dialect input: the warp-specialized streaming copy (``ws_stream_copy``: one
producer warp issuing bulk copies into a 4-stage ring, two consumer warp groups copying each stage out, persistent
CTAs over ``ntiles``) with the edits users make when they adapt it, through the commands a user runs on them
(cutlass_sweep_checks.cutlass_sweep_tests): the input compiles, round-trips through ``tileorch-opt`` and is proved by
``tileorch check``;

* :data:`CHECK_FAILURES`: edits that compile but break the pipeline protocol -- a commit expecting half the tile's
  bytes, a consumer releasing its stage before copying it out, a ring whose ``transaction_size`` is not the tile's,
  and -- found by this sweep: compiled, and ``tileorch check`` said "OK: all properties hold" -- consumers whose tile
  loop starts one tile late (``%cta + %ncta``: one tile fewer than the producer, each reading the previous tile's
  stage).  The checker keyed a loop's trip count by its upper bound alone; loops with a non-constant start or step
  now share a count only when start and step are the same values too (``extract._trip_name``);
* :data:`COMPILE_ERRORS`: edits ``tileorch compile`` stops at the op's line (a consumer mask over the producer's warp,
  a block of 256 threads under a warp mask naming warp 8, a consumer wait on the state created before the loop)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xdsl")

from cutlass_sweep_checks import cutlass_sweep_tests  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
INPUTS = {"ws_stream_copy": (EXAMPLES / "ws_stream_copy.mlir").read_text()}
PTX_NEEDS = {"ws_stream_copy": [r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes"]}
CHECKS = {"ws_stream_copy": "ok"}

_CONSUMER_LOOP = ("%last = scf.for %t = %cta to %ntiles step %ncta iter_args(%s = %start) -> "
                  "(!cutlass.pipeline_state<4>) : i32 {\n        // Wait until tile %t")
_WAIT = "        cutlass.pipeline.consumer_wait %ready, %s\n"
CHECK_FAILURES = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_commit_expecting_half_the_tile": (
        "ws_stream_copy", "{transaction_bytes = 16384 : i32}", "{transaction_bytes = 8192 : i32}",
        "over-arrival [tma->cta0]: ready.full[0]: the copies landed 8192 bytes more than the phase's arrivals expect",
        "cutlass.pipeline.producer_commit %ready, %s {transaction_bytes = 8192"),
    "a_release_before_the_copy_out": (
        "ws_stream_copy", _WAIT, _WAIT + "        cutlass.pipeline.consumer_release %ready, %s\n",
        "release-before-read [consumer1]: reads ready stage 0 (round 0) after releasing it",
        "%idx = cutlass.pipeline.state.get_index %s"),
    "a_ring_of_16000_byte_stages": (
        "ws_stream_copy", "transaction_size = array<i32: 16384>", "transaction_size = array<i32: 16000>",
        "write-before-release [consumer1]: acquires ready stage 0 round 0 but round 1 already overwrote it",
        "cutlass.pipeline.consumer_wait %ready, %s"),
    # found by this sweep: compiled, and `tileorch check` said "OK: all properties hold" (ntiles=1..9)
    "consumers_starting_one_tile_late": (
        "ws_stream_copy", _CONSUMER_LOOP,
        "%cta1 = arith.addi %cta, %ncta : i32\n      " + _CONSUMER_LOOP.replace("%t = %cta to", "%t = %cta1 to"),
        "deadlock: every unfinished agent is blocked", "cutlass.pipeline."),
}

COMPILE_ERRORS = {
    # name: (the input, the text replaced, its replacement, words of the error, text of the line it names)
    "a_consumer_mask_over_the_producer_warp": (
        "ws_stream_copy", "cutlass.async.exec warp mask(0x1fe) {", "cutlass.async.exec warp mask(0x1ff) {",
        "is a consumer-side op, but the enclosing warp executor (mask 0x1ff) runs threads 0..31, which are not "
        "consumers of the pipeline", "cutlass.pipeline.consumer_wait %ready, %s"),
    "a_block_of_256_threads": (
        "ws_stream_copy", "nvvm.maxntid = array<i32: 288, 1, 1>", "nvvm.maxntid = array<i32: 256, 1, 1>",
        "mask 0x1fe names warp 8 (threads up to 287), but the CTA has 256 threads (the kernel's nvvm.maxntid)",
        "cutlass.pipeline.init %pipe"),
    "a_wait_on_the_state_before_the_loop": (
        "ws_stream_copy", _WAIT + "        %idx = cutlass.pipeline.state.get_index %s",
        "        cutlass.pipeline.consumer_wait %ready, %start\n        %idx = cutlass.pipeline.state.get_index %s",
        "uses pipeline state %start, defined before the enclosing scf.for that advances its state variable",
        "cutlass.pipeline.consumer_wait %ready, %start"),
}

CI = {"ws_stream_copy", "consumers_starting_one_tile_late", "a_consumer_mask_over_the_producer_warp"}
"""The input and edits CI runs (the suite's time budget); every one with ``TILEORCH_EMULATE_ALL=1``."""

(test_the_input_compiles_to_its_ptx, test_tileorch_check_on_the_input, test_the_input_round_trips_through_tileorch_opt,
 test_a_broken_protocol_compiles_and_fails_the_check, test_an_invalid_input_stops_at_its_line) = \
    cutlass_sweep_tests(INPUTS, PTX_NEEDS, CHECKS, CHECK_FAILURES, COMPILE_ERRORS, ci=CI)


def test_the_late_consumers_trip_count_is_its_own():
    """The checker gives the late consumer loop a trip-count parameter of its own (its start ``%cta + %ncta`` is not
    the producer's ``%cta``), and the unedited kernel's two loops still share one (fails before: one ``ntiles``)."""
    from xdsl.parser import Parser

    from tileorch.analysis.extract import load_module
    from tileorch.registry import make_context

    text = INPUTS["ws_stream_copy"]
    late = text.replace(_CONSUMER_LOOP, "%cta1 = arith.addi %cta, %ncta : i32\n      " +
                        _CONSUMER_LOOP.replace("%t = %cta to", "%t = %cta1 to"))
    params = []
    for t in (text, late):
        protocols, errors = load_module(Parser(make_context(), t).parse_module())
        assert not errors and len(protocols) == 1, errors
        params.append(sorted(dict(protocols[0].params)))
    assert params == [["ntiles"], ["ntiles", "ntiles2"]], params
