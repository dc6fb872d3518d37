"""Tile-scheduler and MODS dialect slice: op roster, effects, types, verifier rules."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free

from tileorch.diagnostics import parse_module, verify_located
from tileorch.dialects.cutlass import mods, scheduler_attrs, tile_scheduler
from tileorch.dialects.cutlass.scheduler_types import (
    StreamKParamsType,
    TileSchedulerType,
)
from tileorch.registry import make_context

ROOT = Path(__file__).resolve().parents[2]

# Seed 002, "Operation Roster" / "Per-Thunk Op-Name Map": the 31 non-MODS tile_scheduler ops.
SEED_SCHEDULER_OPS = {
    "create_dp_params", "create_static_persistent_params", "create_streamk_params",
    "create_SM100_scheduler", "make_dp_params", "make_static_persistent_params",
    "make_streamk_params", "create_dp_work_tile_info", "create_static_persistent_work_tile_info",
    "create_streamk_work_tile_info", "work_tile_info_get_value", "work_tile_info_set_value",
    "work_tile_info_to_coord_mnkl", "work_tile_info_to_cta_coord", "initial_work_tile_info",
    "fixup", "fixup_increment", "fixup_wait", "advance_to_next_work", "query_next_work",
    "fetch_next_work", "static_fetch_next_work", "get_current_work", "get_workid_response_ptr",
    "initialize_workspace", "get_workspace_sizes", "get_grid_shape", "get_work_k_tile_count",
    "get_work_k_tile_start", "compute_epilogue", "params_get_value",
}
# Seed 004 / 002: the MODS sidecar; tileiras-names.md: the shipping extras.
SEED_MODS_OPS = {
    "mods_report_mainloop_start", "mods_report_mainloop_end", "mods_report_smid", "mods_throttle",
}
SHIPPING_EXTRAS = {
    "create_select_swizzle_size", "create_mods_instrumentation", "mods_get_value", "mods_set_value",
}
PREFIX = "cutlass.tile_scheduler."


def names(ops) -> set[str]:
    return {op.name.removeprefix(PREFIX) for op in ops}


def test_op_roster_matches_the_seed():
    assert len(SEED_SCHEDULER_OPS) == 31
    assert names(tile_scheduler.SCHEDULER_OPS) == SEED_SCHEDULER_OPS
    assert names(tile_scheduler.EXTRA_OPS) == SHIPPING_EXTRAS
    assert names(mods.OPS) == SEED_MODS_OPS
    assert all(op.name.startswith(PREFIX) for op in [*tile_scheduler.OPS, *mods.OPS])


def verify_text(text: str) -> list[str]:
    return verify_located(parse_module(make_context(), text, "t.mlir"))


@pytest.mark.parametrize("example", ["streamk_persistent.mlir", "mods_mainloop.mlir"])
def test_examples_verify(example):
    assert verify_text((ROOT / "examples" / example).read_text()) == []


# Effect classes per op, from the dialect contract (004 rule 4; 000 scheduler state).
PURE = {
    "make_dp_params", "make_static_persistent_params", "make_streamk_params",
    "create_dp_work_tile_info", "create_static_persistent_work_tile_info",
    "create_streamk_work_tile_info", "work_tile_info_get_value", "work_tile_info_set_value",
    "work_tile_info_to_coord_mnkl", "work_tile_info_to_cta_coord", "initial_work_tile_info",
    "get_workid_response_ptr", "get_workspace_sizes", "get_grid_shape", "get_work_k_tile_count",
    "get_work_k_tile_start", "compute_epilogue", "params_get_value", *SHIPPING_EXTRAS,
}
WRITES = {
    "fixup", "fixup_increment", "fixup_wait", "advance_to_next_work", "query_next_work",
    "fetch_next_work", "static_fetch_next_work", "initialize_workspace",
    "mods_report_mainloop_start", "mods_report_mainloop_end",
}
READS_ONLY = {"get_current_work", "mods_report_smid"}
ALLOCATES = {"create_dp_params", "create_static_persistent_params", "create_streamk_params",
             "create_SM100_scheduler"}


def ops_in_roundtrip_tests():
    """One parsed instance of every op (the round-trip tests use all of them)."""
    instances = {}
    for test in ("tile_scheduler/roundtrip.mlir", "mods/roundtrip.mlir"):
        text = (ROOT / "tests" / "filecheck" / "cutlass" / test).read_text()
        for chunk in text.split("// -----"):
            for op in parse_module(make_context(), chunk, test).walk():
                if op.name.startswith(PREFIX):
                    instances.setdefault(op.name.removeprefix(PREFIX), op)
    return instances


def test_effect_classes_cover_every_op():
    instances = ops_in_roundtrip_tests()
    every = SEED_SCHEDULER_OPS | SEED_MODS_OPS | SHIPPING_EXTRAS
    assert set(instances) == every
    assert PURE | WRITES | READS_ONLY | ALLOCATES | {"mods_throttle"} == every
    for short, op in instances.items():
        if short == "mods_throttle":
            continue
        effects = get_effects(op)
        assert effects is not None, short
        kinds = {e.kind for e in effects}
        if short in PURE:
            assert kinds == set(), short
        elif short in WRITES:
            assert kinds == {MemoryEffectKind.READ, MemoryEffectKind.WRITE}, short
        elif short in READS_ONLY:
            assert kinds == {MemoryEffectKind.READ}, short
        else:
            assert [e.kind for e in effects] == [MemoryEffectKind.ALLOC], short
            assert next(iter(effects)).value is op.results[0], short


def throttle(profile: int):
    text = (
        "func.func @f() {\n  cutlass.async.exec warp mask(1) {\n"
        f"    cutlass.tile_scheduler.mods_throttle {{profile = {profile} : i32}}\n  }}\n  func.return\n}}"
    )
    module = parse_module(make_context(), text, "t.mlir")
    return next(op for op in module.walk() if op.name == PREFIX + "mods_throttle")


def test_only_profile_zero_throttle_is_droppable():
    assert is_side_effect_free(throttle(0))
    effects = get_effects(throttle(1))
    assert effects is not None and {e.kind for e in effects} == {
        MemoryEffectKind.READ, MemoryEffectKind.WRITE,
    }


def test_types_build_and_print():
    assert str(TileSchedulerType("streamk")) == "!cutlass.tile_scheduler<streamk>"
    assert str(StreamKParamsType((2, 1, 1), "along_n")) == (
        "!cutlass.tile_scheduler_streamk_params<cga = [2, 1, 1], raster = along_n>"
    )
    assert str(StreamKParamsType()) == "!cutlass.tile_scheduler_streamk_params"
    assert StreamKParamsType(raster_order="along_m").cga() is None


def test_bad_cga_parameter_is_rejected():
    with pytest.raises(Exception, match="cga shape must be three positive extents"):
        StreamKParamsType((2, 1))


def test_field_value_kinds_follow_cutlass_members():
    # CUTLASS WorkTileInfo: is_valid_tile / is_separate_reduction are flags; counts are int32.
    assert scheduler_attrs.field_value_kind("is_valid_tile") == "i1"
    assert scheduler_attrs.field_value_kind("is_separate_reduction") == "i1"
    assert scheduler_attrs.field_value_kind("k_tile_count") == "i32"
    assert scheduler_attrs.field_value_kind("workspace") == "ptr"
    assert scheduler_attrs.field_value_kind("bar_workspace_size") == "size"


MODS_TEMPLATE = """
builtin.module attributes {{cutlass.cluster_shape = array<i32: {x}, {y}, {z}>}} {{
  func.func @f(%s: !cutlass.tile_scheduler<streamk>) {{
    %p = arith.constant {mask} : i64
    cutlass.async.exec warp mask(1) {{
      cutlass.tile_scheduler.mods_report_mainloop_start %s, %p {{is_2cta_mma = {two}}} : !cutlass.tile_scheduler<streamk>, i64 -> ()
      cutlass.tile_scheduler.mods_report_mainloop_end %s, %p {{is_2cta_mma = {two}}} : !cutlass.tile_scheduler<streamk>, i64 -> ()
    }}
    func.return
  }}
}}
"""


@settings(max_examples=40, deadline=None)
@given(
    x=st.integers(1, 4), y=st.integers(1, 4), z=st.integers(1, 2),
    two_cta=st.booleans(), mask=st.integers(0, 1 << 12),
)
def test_participant_mask_fits_the_cluster(x, y, z, two_cta, mask):
    """004 rule 3: one participant per CTA, or per CTA pair under 2-CTA MMA."""
    ctas = x * y * z
    participants = ctas // 2 if two_cta else ctas
    # also rejected: an empty mask (issue 10, degenerate MODS parameters) and clusters of more
    # than 16 CTAs (the hardware's largest cluster)
    expect_error = (two_cta and ctas % 2 == 1) or mask.bit_length() > participants or mask == 0 or ctas > 16
    errors = verify_text(
        MODS_TEMPLATE.format(x=x, y=y, z=z, mask=mask, two=str(two_cta).lower())
    )
    assert bool(errors) == expect_error, errors


def test_the_verbatim_seed_004_example_parses():
    text = """
builtin.module attributes {cutlass.target = "sm_100a", cutlass.cluster_shape = array<i32: 2, 2, 1>} {
  func.func @f(%params: !cutlass.tile_scheduler_streamk_params, %participants: i64) {
    cutlass.async.exec warpgroup mask(1) {
      %sched = cutlass.tile_scheduler.create_SM100_scheduler %params : !cutlass.tile_scheduler_streamk_params -> !cutlass.tile_scheduler<streamk>
%t_start = cutlass.tile_scheduler.mods_report_mainloop_start %sched, %participants
              {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64 -> i64
%smid = cutlass.tile_scheduler.mods_report_smid : i32
cutlass.tile_scheduler.mods_throttle {profile = 1 : i32}
cutlass.tile_scheduler.mods_report_mainloop_end %sched, %participants, %t_start
              {is_2cta_mma = true} : !cutlass.tile_scheduler<streamk>, i64, i64 -> ()
    }
    func.return
  }
}
"""
    assert verify_text(text) == []
