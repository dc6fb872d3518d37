"""examples/streamk_fixup_user.mlir (issue 10, item 5): one partial-tile region per output tile,
no workspace read for a tile that is not split, and a kernel entry point.  The checker rejects the
two wrong forms the example used to have."""

from __future__ import annotations

from pathlib import Path

from tileorch.analysis.explore import check
from tileorch.analysis.extract import load

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "streamk_fixup_user.mlir"

FOLD = """          %sum = scf.if %first_split -> (vector<8xf32>) {
            scf.yield %acc : vector<8xf32>
          } else {
            cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
            %folded = cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, vector<8xf32> -> vector<8xf32>
            scf.yield %folded : vector<8xf32>
          }"""
# the old final branch: fold the workspace even when the tile was never split
FOLD_ALWAYS = """          cutlass.tile_scheduler.fixup_wait %sched, %w : !cutlass.tile_scheduler<streamk>, !cutlass.streamk_work_tile_info
          %sum = cutlass.block_striped.load_add %part, %t, %acc n_threads_in_block = 128 : !llvm.ptr<1>, vector<8xf32> -> vector<8xf32>"""


def _check(path: Path):
    protocols, errors = load(str(path), None, None)
    return protocols, errors, {p.name: check(p) for p in protocols}


def test_example_is_a_kernel_and_checks():
    text = EXAMPLE.read_text()
    assert "nvvm.kernel" in text
    protocols, errors, results = _check(EXAMPLE)
    assert not errors
    assert set(results) == {"kernel.fixup", "kernel.fixup_unsplit"}
    assert all(r.ok for r in results.values())


def test_unsplit_tile_must_not_read_the_workspace(tmp_path):
    text = EXAMPLE.read_text()
    assert FOLD in text
    bad = tmp_path / "unsplit.mlir"
    bad.write_text(text.replace(FOLD, FOLD_ALWAYS))
    _, errors, results = _check(bad)
    assert not errors
    assert results["kernel.fixup"].ok  # the three-way split alone does not show it
    unsplit = results["kernel.fixup_unsplit"]
    assert not unsplit.ok
    assert "fixup-order" in str(unsplit.violation) or "before any split stored it" in str(unsplit.violation)


def test_one_region_shared_by_every_tile_is_rejected(tmp_path):
    text = EXAMPLE.read_text()
    bad = tmp_path / "shared.mlir"
    bad.write_text(text.replace("%part, %t", "%ws, %t").replace("%acc, %part, %t", "%acc, %ws, %t"))
    _, errors, _ = _check(bad)
    assert errors and all(":" in e and "error: the partial-tile workspace pointer is defined outside the "
                          "work-tile loop (scf.while)" in e for e in errors[:1]), errors
