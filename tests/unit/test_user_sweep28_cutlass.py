"""The twenty-eighth user sweep's CUTLASS-dialect inputs: a hand-written serial split-K fixup (CUTLASS's
``GenericBarrier`` semaphore ordering the splits of one output tile: split ``s`` waits until the tile's flag is
``s``, folds its partial accumulator into the workspace by ``BlockStriped`` load-add -- split 0 stores its own --
and store, and increments the flag) and four edits of it, through the commands a user runs on cutlass IR:

* the valid module: ``tileorch compile`` writes PTX holding the semaphore protocol (the leader's
  ``ld.global.acquire.gpu`` spin, ``bar.sync 0``, ``fence.acq_rel.gpu`` before the flag's add) and the fold of the
  splat ``arith.constant dense<1.0> : vector<8xf32>`` fragment, exit 0; ``tileorch-opt`` prints it again and the
  print parses to the same module.  Found by this sweep: a vector ``arith.constant`` stopped ``tileorch compile``
  ("arith.constant of dense<...> : vector<8xf32> has no llvm lowering"); now ``llvm.mlir.constant`` of the vector;
  and ``tileorch check`` reported a fixup-order violation with a counterexample that cannot happen (its fix-up model
  orders splits by ``tile_scheduler.fixup_wait`` and ignored the semaphore): now a located "cannot model" error at
  the semaphore's wait, nothing claimed; and a kernel without a tile scheduler reducing into shared memory by
  ``block_striped.reduce`` (:data:`SIGNAL_THEN_REDUCE`) was checked as a Stream-K fix-up and "failed";
* four mistakes: stripes for 256 threads in a 128-thread CTA, an access width of 3, ``sync = named_barrier``
  without a barrier id, and ``num_threads = 64`` on a ``syncthreads`` wait in a 128-thread CTA (found by this
  sweep: it compiled to ``bar.sync 0`` over all 128 threads while the op claimed 64 -- the count ``tileorch check``
  models -- silently; now a located error): ``tileorch compile`` stops with ``k.mlir:L:C: error:`` at the op,
  non-zero, no traceback."""

from __future__ import annotations

import os
import re

import pytest

pytest.importorskip("xdsl")

FIXUP = """\
// A user's serial split-K fixup: split s waits until its output tile's flag reaches s, folds its partial
// accumulator into the tile's workspace (split 0 writes it first), stores the sum, and passes the flag on.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @serial_split_k_fixup(%lock: !llvm.ptr<1>, %ws: !llvm.ptr<1>) attributes {nvvm.kernel, \
nvvm.maxntid = array<i32: 128, 1, 1>} {
    cutlass.async.exec cta mask(1) threads(128) {
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = arith.index_cast %tid : index to i32
      %tile_i = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %split_i = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
      %tile = arith.index_cast %tile_i : index to i32
      %split = arith.index_cast %split_i : index to i32
      %acc = arith.constant dense<1.000000e+00> : vector<8xf32>
      %c0 = arith.constant 0 : i32
      %first = arith.cmpi eq, %split, %c0 : i32
      cutlass.generic_barrier.wait_eq %lock[%tile], %split num_threads = 128 : !llvm.ptr<1>
      %sum = scf.if %first -> (vector<8xf32>) {
        scf.yield %acc : vector<8xf32>
      } else {
        %folded = cutlass.block_striped.load_add %ws, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, \
vector<8xf32> -> vector<8xf32>
        scf.yield %folded : vector<8xf32>
      }
      cutlass.block_striped.store %sum, %ws, %t n_threads_in_block = 128 : vector<8xf32>, !llvm.ptr<1>
      cutlass.generic_barrier.arrive_increment %lock[%tile] num_threads = 128 : !llvm.ptr<1>
    }
    func.return
  }
}
"""

SIGNAL_THEN_REDUCE = """\
// A producer warp group signals a consumer warp group through named barrier 9 (arrive / arrive_and_wait); the
// consumers then reduce their fragments into a shared-memory tile by block-striped max.
builtin.module attributes {cutlass.target = "sm_90a"} {
  func.func @signal_then_reduce(%smem: !llvm.ptr<3>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>} {
    cutlass.async.exec warpgroup mask(1) {
      cutlass.named_barrier.arrive barrier_id = 9 num_threads = 256
    }
    cutlass.async.exec warpgroup mask(2) {
      cutlass.named_barrier.arrive_and_wait barrier_id = 9 num_threads = 256
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t0 = arith.index_cast %tid : index to i32
      %c128 = arith.constant 128 : i32
      %t = arith.subi %t0, %c128 : i32
      %v = arith.constant dense<2.500000e+00> : vector<4xf32>
      cutlass.block_striped.reduce max %v, %smem, %t n_threads_in_block = 128 : vector<4xf32>, !llvm.ptr<3>
    }
    func.return
  }
}
"""
"""A second valid input: no tile scheduler, so its block-striped reduce is no Stream-K fix-up."""

COMPILE_ERRORS = {
    # name: (the text replaced, its replacement, words of the error, text of the line it names)
    "stripes_for_256_threads_in_a_128_thread_cta": (
        "%acc n_threads_in_block = 128", "%acc n_threads_in_block = 256",
        "n_threads_in_block = 256 but the enclosing cta executor (mask 0x1) runs 128 threads",
        "cutlass.block_striped.load_add"),
    "an_access_width_of_3": (
        "cutlass.block_striped.store %sum, %ws, %t n_threads_in_block = 128 :",
        "cutlass.block_striped.store %sum, %ws, %t n_threads_in_block = 128 access_width = 3 :",
        "fragment length 8 must be a positive multiple of access_width, found access_width 3",
        "cutlass.block_striped.store"),
    "a_named_barrier_sync_without_its_id": (
        "arrive_increment %lock[%tile] num_threads = 128", "arrive_increment %lock[%tile] sync = named_barrier "
        "num_threads = 128", "with sync = named_barrier needs a static barrier_id",
        "cutlass.generic_barrier.arrive_increment"),
    "a_syncthreads_wait_claiming_64_of_128_threads": (
        "%split num_threads = 128", "%split num_threads = 64",
        "with sync = syncthreads synchronises the whole CTA (bar.sync 0: the enclosing cta executor's 128 threads), "
        "but num_threads = 64", "cutlass.generic_barrier.wait_eq"),
}


def _run(argv, capsys):
    from tileorch.cli.main import main

    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out + out.err


def _write(tmp_path, text):
    path = tmp_path / "k.mlir"
    path.write_text(text)
    return path


def test_the_valid_fixup_compiles_to_its_semaphore_protocol(tmp_path, capsys):
    path = _write(tmp_path, FIXUP)
    out = tmp_path / "k.ptx"
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", str(out)], capsys)
    assert code == 0 and "Traceback" not in said, said
    ptx = out.read_text()
    for needed in (r"ld\.global\.acquire\.gpu\.b32", r"bar\.sync\s+0;", r"fence\.acq_rel\.gpu;",
                   r"(red|atom)(\.\w+)*\.global(\.\w+)*\.add(\.\w+)*\.[su]32\s", r"add(\.rn)?\.f32\s+%r\d+, %r\d+, "
                   r"0f3F800000;"):
        assert re.search(needed, ptx), needed
    assert len(re.findall(r"add(\.rn)?\.f32\s+%r\d+, %r\d+, 0f3F800000;", ptx)) == 8  # the fragment's 8 elements


def test_tileorch_check_says_it_cannot_model_the_semaphore_order(tmp_path, capsys):
    """The checker's fix-up model orders a tile's splits by ``tile_scheduler.fixup_wait``; a semaphore-ordered
    serial split-K is refused at the ``wait_eq`` (non-zero, located), not reported as a violation with an
    impossible counterexample (split 2 reading the workspace before any split stored it: before this sweep)."""
    path = _write(tmp_path, FIXUP)
    code, said = _run(["check", str(path)], capsys)
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert code != 0 and m and "the checker cannot model a fix-up ordered by cutlass.generic_barrier.wait_eq" \
        in m.group(3), said
    assert "cutlass.generic_barrier.wait_eq" in FIXUP.splitlines()[int(m.group(1)) - 1], said
    assert "FAILED" not in said and "counterexample" not in said and "Traceback" not in said, said


def test_a_shared_memory_block_striped_reduce_is_no_fixup(tmp_path, capsys):
    """``tileorch check`` on a kernel without a tile scheduler whose consumers reduce into shared memory by
    ``block_striped.reduce``: the named-barrier protocol holds (exit 0) and no fix-up protocol is made up.  Before
    this sweep any block-striped op made the checker model three Stream-K splits of a workspace and report the
    reduce as a read of a partial no split had stored (exit 1, an impossible counterexample)."""
    path = _write(tmp_path, SIGNAL_THEN_REDUCE)
    code, said = _run(["check", str(path)], capsys)
    assert code == 0 and "signal_then_reduce: OK: all properties hold" in said, said
    assert ".fixup" not in said and "FAILED" not in said, said
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
    assert code == 0, said


def test_a_shared_memory_reduce_beside_a_streamk_fixup_is_not_a_partial(tmp_path, capsys):
    """examples/streamk_fixup_user.mlir with the final split also max-reducing its accumulator into a shared-memory
    tile (``!llvm.ptr<3>``, a kernel argument): the fix-up still checks (exit 0).  Before this sweep the shared tile
    was taken for a workspace partial ("the partial-tile workspace pointer is defined outside the work-tile loop")."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "examples" / "streamk_fixup_user.mlir").read_text()
    call = "          func.call @epilogue(%sum, %m, %n, %l) : (vector<8xf32>, i32, i32, i32) -> ()"
    assert text.count(call) == 1 and text.count("%ws: !llvm.ptr<1>, %zero") == 1
    text = text.replace(call, "          cutlass.block_striped.reduce max %sum, %smem, %t n_threads_in_block = 128 : "
                              "vector<8xf32>, !llvm.ptr<3>\n" + call)
    path = _write(tmp_path, text.replace("%ws: !llvm.ptr<1>, %zero", "%ws: !llvm.ptr<1>, %smem: !llvm.ptr<3>, %zero"))
    code, said = _run(["check", str(path)], capsys)
    assert code == 0 and "kernel.fixup: OK" in said and "kernel.fixup_unsplit: OK" in said, said


def test_a_named_barrier_joined_with_another_count_fails_the_check(tmp_path, capsys):
    """The consumers wait on barrier 9 counting 128 threads while the producers arrived counting 256 (PTX needs one
    count per barrier at a time): it compiles, and ``tileorch check`` exits non-zero with the named-barrier-count
    property, the counterexample and a located error."""
    old = "cutlass.named_barrier.arrive_and_wait barrier_id = 9 num_threads = 256"
    assert SIGNAL_THEN_REDUCE.count(old) == 1
    path = _write(tmp_path, SIGNAL_THEN_REDUCE.replace(old, old.replace("256", "128")))
    code, said = _run(["check", str(path)], capsys)
    assert code != 0 and "named-barrier-count" in said and "joins a generation started with count 256" in said, said
    assert re.search(rf"{re.escape(str(path))}:\d+:\d+: error: ", said) and "Traceback" not in said, said


def test_the_valid_fixup_round_trips_through_tileorch_opt(tmp_path, capsys):
    from tileorch.tools.opt import main

    path = _write(tmp_path, FIXUP)
    try:
        main([str(path)])
    except SystemExit as exc:
        assert not exc.code, exc.code
    printed = capsys.readouterr().out
    again = tmp_path / "again.mlir"
    again.write_text(printed)
    try:
        main([str(again)])
    except SystemExit as exc:
        assert not exc.code, exc.code
    assert capsys.readouterr().out == printed


@pytest.mark.parametrize("name", sorted(COMPILE_ERRORS))
def test_an_invalid_fixup_stops_at_its_line(name, tmp_path, capsys):
    old, new, words, line_text = COMPILE_ERRORS[name]
    assert FIXUP.count(old) == 1
    text = FIXUP.replace(old, new)
    path = _write(tmp_path, text)
    code, said = _run(["compile", str(path), "--no-ptxas", "--no-cache", "-o", os.devnull], capsys)
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+): error: (.*)", said)
    assert code != 0 and m and words in m.group(3), said
    assert line_text in text.splitlines()[int(m.group(1)) - 1], said
    assert "Traceback" not in said and "internal error" not in said, said
