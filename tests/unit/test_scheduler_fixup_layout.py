"""The device fix-up's workspace offsets (``scheduler_fixup.PartialLayout``, used by the emitter)
are CUTLASS's reduction-workspace layout: the same bytes the host model ``schedulers/fixup.py``
writes, and the region / lock sizes of ``schedulers/workspace.py``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.schedulers import streamk_params
from tileorch.schedulers.fixup import gmma_fragment_coords, simulate_fixup
from tileorch.schedulers.streamk_work import schedule_arrays
from tileorch.schedulers.workspace import reduction_workspace_size
from tileorch.transforms.pipeline_to_nvvm.scheduler_fixup import PartialLayout, lock_offset


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 2), st.integers(1, 128), st.integers(0, 4095), st.data())
def test_offsets_follow_the_host_models_formula(groups, values, tile, data):
    # schedulers/fixup.py: float32 element BLK_M*BLK_N*tile + V*128*w + 128*i + t, BLK_M*BLK_N = W*128*V
    w = data.draw(st.integers(0, groups - 1))
    t = data.draw(st.integers(0, 127))
    i = data.draw(st.integers(0, values - 1))
    layout = PartialLayout(groups, values, 4)
    assert layout.offset(tile, w, t, i) == 4 * (groups * 128 * values * tile + values * 128 * w + 128 * i + t)


def test_f16_stripes_half2_pairs():
    # block_striped.h, half_t: pair j of thread t is half2 element 128*j + t of the slice
    layout = PartialLayout(groups=2, values=4, elem_bytes=2, access=2)
    t = 3
    want = [2 * (2 * (128 * (i // 2) + t) + i % 2) for i in range(4)]  # bytes in slice 0
    assert [layout.offset(0, 0, t, i) for i in range(4)] == want == [12, 14, 524, 526]
    assert layout.offset(5, 1, t, 0) == 5 * 2 * 128 * 4 * 2 + 4 * 128 * 2 + 12


@pytest.mark.parametrize("bm, bn, groups", [(128, 128, 1), (128, 128, 2), (128, 64, 2), (256, 128, 2), (64, 8, 1)])
@pytest.mark.parametrize("tiles", [1, 7, 300])
def test_region_is_workspace_reduction_size(bm, bn, groups, tiles):
    layout = PartialLayout(groups, bm * bn // (128 * groups), 4)
    assert tiles * layout.tile_bytes == reduction_workspace_size(tiles, (bm, bn, 64), 32)


def test_lock_offset_follows_the_reduction_region():
    assert [lock_offset(4096, tile, w, 2) for tile, w in [(0, 0), (0, 1), (3, 1)]] == [4096, 4100, 4124]


@pytest.mark.parametrize("groups", [1, 2])
def test_host_model_workspace_reads_back_through_the_layout(groups):
    """Run the host model on a split-K GEMM with 2 splits: the workspace then holds each tile's first
    piece's partial and lock = 1.  Reading it through the device offsets gives exactly that partial."""
    tile = (128, 64, 32)
    problem = (256, 128, 64, 1)  # 2x2 output tiles, 2 K tiles
    p = streamk_params(problem, tile, (1, 1), 132, splits=2, decomposition="split_k")
    rng = np.random.default_rng(7)
    a = rng.integers(-3, 4, (1, 256, 64)).astype(np.float32)
    b = rng.integers(-3, 4, (1, 64, 128)).astype(np.float32)
    run = simulate_fixup(p, tile, a, b, mma_warp_groups=groups, seed=1)
    rows, cols = gmma_fragment_coords(tile[0], tile[1], groups)
    values = rows.shape[2]
    layout = PartialLayout(groups, values, 4)
    assert p.reduction_tiles * layout.tile_bytes == run.reduction_bytes
    sched = schedule_arrays(p)
    firsts = [it for c in range(sched.num_ctas) for it in sched.items(c) if it.k_tile_start == 0 and it.k_tile_count < 2]
    assert len(firsts) == 4
    t, i = np.arange(128)[:, None], np.arange(values)[None, :]
    for it in firsts:
        part = a[0, it.m * 128:(it.m + 1) * 128, :32] @ b[0, :32, it.n * 64:(it.n + 1) * 64]
        for w in range(groups):
            offsets = np.vectorize(lambda tt, ii: layout.offset(it.tile_idx, w, tt, ii))(t, i)
            got = run.workspace[offsets[..., None] + np.arange(4)].view(np.float32)[..., 0]
            np.testing.assert_array_equal(got, part[rows[w], cols[w]])
            lock = run.workspace[lock_offset(run.reduction_bytes, it.tile_idx, w, groups) + np.arange(4)]
            assert lock.view(np.int32)[0] == 1
    # the former thread-major layout (element i of thread t at V*t + i) reads other bytes
    it = firsts[0]
    part = (a[0, it.m * 128:(it.m + 1) * 128, :32] @ b[0, :32, it.n * 64:(it.n + 1) * 64])[rows[0], cols[0]]
    thread_major = it.tile_idx * layout.tile_bytes + 4 * (values * t + i)
    got = run.workspace[thread_major[..., None] + np.arange(4)].view(np.float32)[..., 0]
    assert not np.array_equal(got, part)
