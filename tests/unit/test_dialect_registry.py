"""The dialect registers exactly the 70 op names of seed 002 (31 thunk + 39 inline), and
docs/dialect.md is generated from the current definitions."""

from pathlib import Path

from tileorch.dialects.cutlass import FAMILIES, Cutlass
from tileorch.tools import gen_dialect_doc

# Seed 002, "Thirty-One Out-of-Line Thunks" table, verbatim.
THUNK_OPS = """
cutlass.async.exec cutlass.block_striped.load_add cutlass.block_striped.load
cutlass.block_striped.reduce cutlass.block_striped.store cutlass.named_barrier.arrive_and_wait
cutlass.pipeline.consume cutlass.pipeline.produce cutlass.pipeline.consumer_try_wait
cutlass.pipeline.producer_try_acquire cutlass.tile_scheduler.work_tile_info_set_value
cutlass.pipeline.create cutlass.pipeline.get_producer_barrier cutlass.pipeline.get_producer_mask
cutlass.pipeline.make_participants cutlass.pipeline.state.create cutlass.pipeline.state.get_count
cutlass.pipeline.state.get_index cutlass.pipeline.state.get_phase cutlass.pipeline.state.increment
cutlass.tile_scheduler.create_dp_params cutlass.tile_scheduler.create_static_persistent_params
cutlass.tile_scheduler.fetch_next_work cutlass.tile_scheduler.get_grid_shape
cutlass.tile_scheduler.get_work_k_tile_count cutlass.tile_scheduler.get_work_k_tile_start
cutlass.tile_scheduler.get_workspace_sizes cutlass.tile_scheduler.initial_work_tile_info
cutlass.tile_scheduler.static_fetch_next_work cutlass.tile_scheduler.work_tile_info_to_coord_mnkl
cutlass.tile_scheduler.work_tile_info_to_cta_coord
""".split()

# Seed 002, "Thirty-Nine Inline Registrations", verbatim.
INLINE_OPS = """
cutlass.generic_barrier.arrive_increment cutlass.generic_barrier.wait_eq
cutlass.generic_barrier.wait_less_than cutlass.named_barrier.arrive cutlass.pipeline.consumer_release
cutlass.pipeline.consumer_wait cutlass.pipeline.init cutlass.pipeline.producer_acquire
cutlass.pipeline.producer_commit cutlass.pipeline.producer_tail cutlass.pipeline.switch_by_executor
cutlass.seq_bar.arrive cutlass.seq_bar.create cutlass.seq_bar.init cutlass.seq_bar.state.create
cutlass.seq_bar.wait cutlass.tile_scheduler.advance_to_next_work cutlass.tile_scheduler.compute_epilogue
cutlass.tile_scheduler.create_dp_work_tile_info cutlass.tile_scheduler.create_SM100_scheduler
cutlass.tile_scheduler.create_static_persistent_work_tile_info cutlass.tile_scheduler.create_streamk_params
cutlass.tile_scheduler.create_streamk_work_tile_info cutlass.tile_scheduler.fixup
cutlass.tile_scheduler.fixup_increment cutlass.tile_scheduler.fixup_wait
cutlass.tile_scheduler.get_current_work cutlass.tile_scheduler.get_workid_response_ptr
cutlass.tile_scheduler.initialize_workspace cutlass.tile_scheduler.make_dp_params
cutlass.tile_scheduler.make_static_persistent_params cutlass.tile_scheduler.make_streamk_params
cutlass.tile_scheduler.mods_report_mainloop_end cutlass.tile_scheduler.mods_report_mainloop_start
cutlass.tile_scheduler.mods_report_smid cutlass.tile_scheduler.mods_throttle
cutlass.tile_scheduler.params_get_value cutlass.tile_scheduler.query_next_work
cutlass.tile_scheduler.work_tile_info_get_value
""".split()

# tileiras-names.md: six extra names the shipping binary registers.
EXTRA_OPS = {
    "cutlass.pipeline.get_full_barrier", "cutlass.pipeline.get_empty_barrier",
    "cutlass.tile_scheduler.create_select_swizzle_size",
    "cutlass.tile_scheduler.create_mods_instrumentation",
    "cutlass.tile_scheduler.mods_get_value", "cutlass.tile_scheduler.mods_set_value",
}


def test_seed_lists_are_70_distinct_names():
    assert len(THUNK_OPS) == 31 and len(INLINE_OPS) == 39
    assert len(set(THUNK_OPS) | set(INLINE_OPS)) == 70


def test_every_seed_op_is_registered():
    registered = {op.name for op in Cutlass.operations}
    missing = (set(THUNK_OPS) | set(INLINE_OPS)) - registered
    assert not missing, sorted(missing)
    unknown = registered - set(THUNK_OPS) - set(INLINE_OPS) - EXTRA_OPS
    assert not unknown, sorted(unknown)


def test_family_counts_match_seed_002():
    seed = set(THUNK_OPS) | set(INLINE_OPS)
    counts = {family: sum(op.name in seed for op in ops) for family, ops in FAMILIES.items()}
    assert counts == {"pipeline": 20, "tile_scheduler": 31, "mods": 4, "seq_bar": 5,
                      "block_striped": 4, "named_barrier": 2, "generic_barrier": 3, "async": 1}


def test_dialect_doc_is_current():
    doc = Path(__file__).resolve().parents[2] / "docs" / "dialect.md"
    assert gen_dialect_doc.main(["--check", "--path", str(doc)]) == 0
