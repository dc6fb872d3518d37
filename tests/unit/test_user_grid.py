"""A cuTile program the tier compiles as a GEMM, launched with a user grid, computes exactly the tiles of the
programs launched (cuTile's rule: a program not launched stores nothing), where the GEMM kernel's own scheduler
walked all of C's tiles whatever the grid (found in session 29: a grid (1, 3) over 2 x 5 tiles wrote all ten).

* the host math (:mod:`tileorch.launchers.user_grid`) against a brute-force walk of the launched programs and of
  the kernel's tiles (hypothesis): what it says is covered is exactly what the programs launched compute, what the
  kernel stores is exactly that, and a launch it cannot cover exactly is a reason, never a guess;
* the map the tier records (``CutileProgram.grid_axes``) for programs of each form: plain, the transposed grid,
  a batch on grid axis 0, a split linear program id, a persistent loop, a loop over the output's column tiles,
  a split batch tile;
* the launcher (:func:`tileorch.launchers.cutile._launch_gemm`, a stand-in kernel image recording what it is
  prepared with): the scheduler's M and N for short grids, none for exact and longer ones, 1-CTA clusters asked
  for when a cluster would straddle the covered rows, and the SIMT path for a linear id launched short;
* the kernel itself on the CPU (``tileorch.testing.ptx_emulator``, C NaN-prefilled): with the launcher's M, N and L
  it writes the covered tiles (against numpy) and leaves every other element NaN.

Needs cuda-tile for the compiled programs."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.launchers.user_grid import LINEAR, WHOLE, Covered, covered, kernel_refusal

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _cdiv(a, b):
    return -(-a // b)


# ----------------------------------------------------------------------------------------------- host math


def _programs_compute(axes, grid, m, n, batch, tm, tn):
    """The set of (row tile, column tile, matrix) the programs of ``grid`` compute, by walking them one by one."""
    tiles = (_cdiv(m, tm), _cdiv(n, tn), batch)
    done = set()
    for p in np.ndindex(*grid):
        if any(a == LINEAR for a, _ in axes):
            t = p[0]  # (the row-major raster: t // tiles_n, t % tiles_n)
            rows, cols = [t // tiles[1]], [t % tiles[1]]
            rest = [range(p[axes[2][0]] * axes[2][1], (p[axes[2][0]] + 1) * axes[2][1])] if axes[2][0] >= 0 else \
                [range(tiles[2])]
            ranges = [rows, cols, *rest]
        else:
            ranges = [range(tiles[i]) if a == WHOLE else range(p[a] * s, (p[a] + 1) * s)
                      for i, (a, s) in enumerate(axes)]
        for i in ranges[0]:
            for j in ranges[1]:
                for b in ranges[2]:
                    if i < tiles[0] and j < tiles[1] and b < tiles[2]:  # (outside the output: dropped)
                        done.add((i, j, b))
    return done


def _block(cov, tm, tn):
    return {(i, j, b) for i in range(_cdiv(cov.m, tm)) for j in range(_cdiv(cov.n, tn)) for b in range(cov.batch)}


AXIS = st.one_of(st.tuples(st.integers(0, 2), st.integers(1, 3)), st.just((WHOLE, 1)))


@settings(max_examples=300, deadline=None)
@given(perm=st.permutations([0, 1, 2]), scales=st.tuples(*[st.integers(1, 3)] * 3), whole=st.sets(st.integers(0, 2)),
       grid=st.tuples(*[st.integers(1, 6)] * 3), m=st.integers(1, 700), n=st.integers(1, 700), batch=st.integers(1, 5),
       tm=st.sampled_from([64, 128]), tn=st.sampled_from([64, 128, 256]))
def test_what_is_covered_is_what_the_launched_programs_compute(perm, scales, whole, grid, m, n, batch, tm, tn):
    axes = [(WHOLE, 1) if i in whole else (perm[i], scales[i]) for i in range(3)]
    cov = covered({"axes": axes, "tile": [tm, tn]}, grid, m, n, batch)
    assert isinstance(cov, Covered)
    assert _block(cov, tm, tn) == _programs_compute(axes, grid, m, n, batch, tm, tn)
    assert cov.clipped == ((cov.m, cov.n, cov.batch) != (m, n, batch))
    assert bool(cov.remark) == cov.clipped


@settings(max_examples=200, deadline=None)
@given(x=st.integers(1, 40), m=st.integers(1, 900), n=st.integers(1, 900), batch=st.integers(1, 3))
def test_a_linear_program_id_is_covered_whole_or_refused(x, m, n, batch):
    """``pid // tiles_n, pid % tiles_n`` on a grid of ``x`` programs: all of C, or a reason (never a block that is
    not what the programs compute)."""
    axes = [(LINEAR, 1), (LINEAR, 1), (2, 1)]
    cov = covered({"axes": axes, "tile": [128, 128]}, (x, 1, batch), m, n, batch)
    if isinstance(cov, str):
        done = _programs_compute(axes, (x, 1, batch), m, n, batch, 128, 128)
        assert "linear program id" in cov and done != _block(Covered(m, n, batch, (m, n, batch)), 128, 128)
        total = _cdiv(m, 128) * _cdiv(n, 128)
        assert len(done) == x * batch < total * batch  # (the first x tiles of each matrix)
        # the reason says why and how to avoid it: the grid that runs the GEMM kernel, or two program ids
        assert f"the first {x} tile" in cov and f"launch {total} programs along x (or more" in cov, cov
        assert "two program ids" in cov and "no tile-count bound" in cov, cov
    else:
        assert not cov.clipped
        assert _block(cov, 128, 128) == _programs_compute(axes, (x, 1, batch), m, n, batch, 128, 128)


def test_no_recorded_map_is_the_whole_output():
    assert covered(None, (1, 1, 1), 500, 300, 2) == Covered(500, 300, 2, (500, 300, 2))


def _kernel_stores(cov, tile_m, tile_n, cluster_m, max_swizzle):
    """The rows and columns a kernel stores: its scheduler's tiles of ``cov.m`` x ``cov.n`` (CUTLASS's rounding of
    the tile counts: whole clusters along M, then ``2**log_swizzle`` clusters along both, the swizzle the
    scheduler's own choice for those counts), each masked at C's full M and N."""
    from tileorch.schedulers.raster import log_swizzle_size

    m, n, _ = cov.full
    bm, bn = _cdiv(_cdiv(cov.m, tile_m), cluster_m) * cluster_m, _cdiv(cov.n, tile_n)
    s = 1 << log_swizzle_size(bm, bn, max_swizzle)
    bm, bn = _cdiv(bm, s * cluster_m) * s * cluster_m, _cdiv(bn, s) * s
    rows = {r for t in range(bm) for r in range(t * tile_m, min((t + 1) * tile_m, m))}
    cols = {c for t in range(bn) for c in range(t * tile_n, min((t + 1) * tile_n, n))}
    return rows, cols


@settings(max_examples=400, deadline=None)
@given(m=st.integers(1, 1200), n=st.integers(1, 1200), gm=st.integers(1, 12), gn=st.integers(1, 12),
       ptm=st.sampled_from([16, 32, 64, 128, 256]), ptn=st.sampled_from([16, 32, 64, 128, 256]),
       tile_m=st.sampled_from([64, 128]), tile_n=st.sampled_from([64, 128, 192, 256]),
       cluster_m=st.sampled_from([1, 2]), max_swizzle=st.sampled_from([1, 2, 4, 8]))
def test_a_kernel_let_run_stores_exactly_the_covered_part(m, n, gm, gn, ptm, ptn, tile_m, tile_n, cluster_m,
                                                         max_swizzle):
    cov = covered({"axes": [(0, 1), (1, 1), (2, 1)], "tile": [ptm, ptn]}, (gm, gn, 1), m, n, 1)
    rows, cols = _kernel_stores(cov, tile_m, tile_n, cluster_m, max_swizzle)
    exact = rows == set(range(cov.m)) and cols == set(range(cov.n))
    why = kernel_refusal(cov, tile_m, tile_n, cluster_m, max_swizzle)
    assert (why is None) == exact, why
    if not cov.clipped:
        assert why is None  # (a full or longer grid: any kernel)


# ----------------------------------------------------------------------------------------------- recorded maps

MAPS = [  # (module, program, the map its source says: [launch axis, tiles per program] of rows, columns, batch)
    ("user_programs3", "mm_tiled_view", [[0, 1], [1, 1], [2, 1]]),  # i, j = bid(0), bid(1)
    ("user_programs3", "mm_grid_nm", [[1, 1], [0, 1], [2, 1]]),  # j, i = bid(0), bid(1)
    ("user_programs3", "mm_batched_bid0", [[2, 1], [1, 1], [0, 1]]),  # b, j, i = bid(0), bid(1), bid(2)
    ("user_programs3", "mm_divmod_grid", [[LINEAR, 1], [LINEAR, 1], [2, 1]]),  # i, j = divmod(bid(0), tiles_n)
    ("user_programs2", "gemm_persistent", [[WHOLE, 1], [WHOLE, 1], [2, 1]]),  # for t in range(bid(0), T, nb(0))
    ("cover29_programs", "mlp_loops_gelu_bias", [[0, 1], [WHOLE, 1], [2, 1]]),  # for j in range(column tiles)
    ("user_programs8", "bmm_broadcast_b_in_tile", [[0, 1], [1, 1], [2, 2]]),  # (2, tm, tk) A tiles at bid(2)
    ("cover27_programs", "concat_k_linear_bt", [[0, 1], [1, 1], [2, 1]]),  # two operand pairs, bm, bn = bid(0), bid(1)
]


def _lowered(module, name):
    from tileorch.testing.compile_memo import lower_once
    from tileorch.testing.export import cutile_bytecode

    p = importlib.import_module(f"tileorch.testing.{module}").PROGRAMS[name]
    return p, lower_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a")


import importlib  # noqa: E402


@needs_cutile
@pytest.mark.parametrize("module,name,axes", MAPS, ids=[m[1] for m in MAPS])
def test_the_tier_records_how_the_launch_grid_maps_onto_the_tiles(module, name, axes):
    p, prog = _lowered(module, name)
    assert prog.kind == "gemm", prog.remarks
    assert prog.grid_axes["axes"] == axes


@needs_cutile
@pytest.mark.parametrize("grid,changed", [((3, 9, 1), {"cluster_m": 1, "max_swizzle": 1}),
                                          ((8, 3, 1), {"tile_n": 192, "cluster_m": 1, "max_swizzle": 1}),
                                          ((8, 9, 1), None)])
def test_a_straddling_configuration_is_aligned_by_its_overridable_fields(grid, changed):
    """mm_tiled_view's configuration made 128 x 256 in 2-CTA clusters with a swizzle of up to 4, C 1000 x 520 in
    the program's 128 x 64 tiles: three row tiles (half a cluster) take 1-CTA clusters; three 64-column tiles
    (192 columns, not a 256-column tile) take 192-column tiles (1-CTA clusters: an N-major B tile of 192 columns does
    not split into two 64-column multicast boxes); a full grid keeps the configuration."""
    import dataclasses

    from tileorch.launchers.user_grid import aligned_config

    _, prog = _lowered("user_programs3", "mm_tiled_view")
    cfg = dataclasses.replace(prog.gemm_config, tile_n=256, stages=4, cluster_m=2, max_swizzle=4).check()
    cov = covered(prog.grid_axes, grid, 1000, 520, 1)
    new = aligned_config(cfg, cov)
    if changed is None:
        assert new is None
        return
    assert kernel_refusal(cov, cfg.tile_m, cfg.out_tile_n, cfg.cluster_m, cfg.max_swizzle) is not None
    assert {f: getattr(new, f) for f in changed} == changed
    assert kernel_refusal(cov, new.tile_m, new.out_tile_n, new.cluster_m, new.max_swizzle) is None


# ----------------------------------------------------------------------------------------------- the launcher


class _Image:
    """A stand-in :class:`~tileorch.launchers.gemm_host.GemmKernel`: records what :meth:`prepare` is given."""

    def __init__(self, cfg):
        self.cfg, self.prepared = cfg, []

    def prepare(self, *args, **kwargs):
        self.prepared.append(kwargs)
        return SimpleNamespace(staging=SimpleNamespace(warn=lambda *a, **k: None), launcher=lambda: (lambda s: None))


def _prepared(monkeypatch, module, name, grid):
    """``_launch_gemm`` of program ``name`` (the program's tiles, the persistent schedule) on grid ``grid``: (the
    program, the keyword arguments each kernel image was prepared with, the (schedule, config) of each compile the
    launcher asked for again (each gets the program with that configuration's fields), the program's entry)."""
    import dataclasses

    import test_user_sweep3_emulated as s3

    from tileorch.kernels.gemm.config import OVERRIDABLE
    from tileorch.launchers import cutile as rc

    p, prog = _lowered(module, name)
    prog = dataclasses.replace(prog, deferred=False, tier_output=None)
    entry = rc._Compiled(prog)
    entry.image = _Image(prog.gemm_config)
    images, asked = [entry.image], []

    def compiled(kernel, arguments, arch, schedule, config="", **_):
        fields = dict(x.split("=") for x in config.split(",") if x)
        cfg = dataclasses.replace(prog.gemm_config, schedule=schedule, **{
            k: type(getattr(prog.gemm_config, k))(int(v) if v.isdigit() else v) for k, v in fields.items()
            if k in OVERRIDABLE})
        asked.append((schedule, config))
        again = rc._Compiled(dataclasses.replace(prog, gemm_config=cfg))
        again.image = _Image(cfg)
        images.append(again.image)
        return again

    monkeypatch.setattr(rc, "compiled", compiled)
    rc.clear_caches()
    arguments = s3._described(p, {i: (i + 1) << 32 for i in range(len(p.spec))})
    rc._launch_gemm(entry, p.kernel, arguments, "sm_90a", "persistent", 0, SimpleNamespace(sm_count=132), False,
                    "program", (), None, grid[2], grid)
    return prog, [kw for im in images for kw in im.prepared], asked, entry


@needs_cutile
@pytest.mark.parametrize("grid,sched", [((1, 3, 1), (128, 192)), ((2, 1, 1), (200, 64)), ((1, 1, 1), (128, 64))])
def test_a_short_grid_walks_the_covered_tiles(monkeypatch, grid, sched):
    """mm_tiled_view: C 200 x 320 in 128 x 64 tiles (2 x 5), the program's tiles kept."""
    prog, seen, asked, entry = _prepared(monkeypatch, "user_programs3", "mm_tiled_view", grid)
    assert [kw["sched_mn"] for kw in seen] == [sched]
    assert not asked
    assert "covers" in entry.launch_remarks[grid] and "tiles" in entry.launch_remarks[grid]


@needs_cutile
@pytest.mark.parametrize("grid", [(2, 5, 1), (3, 9, 2), (40, 40, 1)])
def test_an_exact_or_longer_grid_is_the_default_launch(monkeypatch, grid):
    prog, seen, asked, entry = _prepared(monkeypatch, "user_programs3", "mm_tiled_view", grid)
    assert [kw["sched_mn"] for kw in seen] == [None]
    assert not asked and grid not in entry.launch_remarks


@needs_cutile
def test_a_cluster_straddling_the_covered_rows_runs_one_cta_per_cluster(monkeypatch):
    """mm_grid_nm (column tiles on grid axis 0, row tiles on 1): 384 x 256 in 128 x 256 tiles, 2-CTA clusters;
    grid (1, 1) covers one row tile, half a cluster: compiled again with cluster_m=1."""
    prog, seen, asked, entry = _prepared(monkeypatch, "user_programs3", "mm_grid_nm", (1, 1, 1))
    assert prog.gemm_config.cluster_m == 2
    assert len(asked) == 1 and "cluster_m=1" in asked[0][1].split(","), asked


@needs_cutile
def test_two_operand_pairs_in_clusters(monkeypatch):
    """concat_k_linear_bt (x1 @ W1^T + x2 @ W2^T + bias): Y 200 x 232 in 128 x 64 tiles, 2-CTA clusters; grid (1, 2)
    covers rows 0..127 and columns 0..127: one row tile, half a cluster, so 1-CTA clusters."""
    prog, seen, asked, entry = _prepared(monkeypatch, "cover27_programs", "concat_k_linear_bt", (1, 2, 1))
    assert prog.gemm_config.a_operands == 2 and prog.gemm_config.cluster_m == 2
    assert [kw["sched_mn"] for kw in seen] == [(128, 128)]
    assert len(asked) == 1 and "cluster_m=1" in asked[0][1].split(","), asked


@needs_cutile
def test_a_linear_program_id_launched_short_takes_the_simt_path(monkeypatch):
    from tileorch.launchers.cutile import LayoutNotSupported

    with pytest.raises(LayoutNotSupported, match="linear program id"):
        _prepared(monkeypatch, "user_programs3", "mm_divmod_grid", (5, 1, 1))  # (2 x 3 tiles: 6 programs)
    prog, seen, asked, entry = _prepared(monkeypatch, "user_programs3", "mm_divmod_grid", (6, 1, 1))
    assert [kw["sched_mn"] for kw in seen] == [None]


# ----------------------------------------------------------------------------------------------- the kernel


@needs_cutile
@pytest.mark.parametrize("name,grid", [("mm_tiled_view", (1, 3, 1)), ("mm_grid_nm", (1, 2, 1))])
def test_the_kernel_walking_the_launchers_tiles_writes_those_and_no_other(monkeypatch, name, grid):
    """The GEMM kernel on the CPU (every CTA, the direct epilogue, one CTA per cluster) with the scheduler's M and N
    the launcher prepared for ``grid``: C's covered tiles against numpy, every other element still NaN.
    mm_tiled_view: 200 x 320 in 128 x 64 tiles, grid (1, 3): rows 0..127, columns 0..191; mm_grid_nm (row tiles on
    grid axis 1): 384 x 256 in 128 x 256 tiles, grid (1, 2): rows 0..255, all 256 columns."""
    import test_user_sweep3_emulated as s3

    from tileorch.testing.user_programs3 import PROGRAMS

    p = PROGRAMS[name]
    _, seen, _, _ = _prepared(monkeypatch, "user_programs3", name, grid)
    (sm, sn), = [kw["sched_mn"] for kw in seen]
    rng = np.random.default_rng(30)
    a, b = (rng.standard_normal(p.spec[i][0]).astype(np.float16) for i in (0, 1))
    c = s3._gemm(name, {0: a, 1: b}, problem=lambda cfg, m, n, k: (sm, sn, k, 1))[2]
    ref = a.astype(np.float64) @ b.astype(np.float64)
    rows, cols = {"mm_tiled_view": (128, 192), "mm_grid_nm": (256, 256)}[name]
    np.testing.assert_allclose(c[:rows, :cols].astype(np.float64), ref[:rows, :cols], rtol=2e-2, atol=2e-2)
    outside = np.ones(c.shape, bool)
    outside[:rows, :cols] = False
    assert np.isnan(c[outside]).all(), f"{np.count_nonzero(~np.isnan(c[outside]))} elements outside the grid's tiles"


@needs_cutile
def test_a_grid_short_along_a_split_batch_tile_leaves_the_other_matrices(monkeypatch):
    """bmm_broadcast_b_in_tile: (2, 64, 64) A tiles at program id 2 (the tier splits them into one matrix per work
    tile), C [4, 128, 64] f32; grid (2, 1, 1) launches the programs of matrices 0 and 1 only: the launcher's L is 2,
    and the kernel on the CPU with it writes C[0:2] (against numpy) and leaves C[2:4] NaN."""
    import test_user_sweep3_emulated as s3

    from tileorch.testing.user_programs8 import PROGRAMS

    _, seen, asked, _ = _prepared(monkeypatch, "user_programs8", "bmm_broadcast_b_in_tile", (2, 1, 1))
    assert [(kw["sched_mn"], kw["sched_l"]) for kw in seen] == [((128, 64), 2)] and not asked
    rng = np.random.default_rng(31)
    a, b = rng.standard_normal((4, 128, 128)).astype(np.float16), rng.standard_normal((128, 64)).astype(np.float16)
    c = s3._gemm("bmm_broadcast_b_in_tile", {0: a, 1: b}, program=PROGRAMS["bmm_broadcast_b_in_tile"],
                 problem=lambda cfg, m, n, k: (m, n, k, 2))[2]
    np.testing.assert_allclose(c[:2], a[:2].astype(np.float64) @ b.astype(np.float64), rtol=5e-3, atol=5e-3)
    assert np.isnan(c[2:]).all()


# ----------------------------------------------------------------------------------------------- the launch's remarks


def _launches(monkeypatch, module, name, launches, b_read=None):
    """:func:`tileorch.launchers.cutile._launch` of program ``name`` once per ``(grid, shapes)`` of ``launches``
    (``shapes``: argument position -> shape, in place of the program's; contiguous arrays) with no device: driver and
    device stand-ins, compiles that return the tier's program (a GEMM entry) or a stand-in SIMT program
    (``schedule="simt"``), ``tileorch.gemm``'s kernels and the SIMT launch recorded; ``b_read``: what
    :func:`~tileorch.launchers.cutile.b_major` says of B (the B of an entry compiled for the other layout; no
    argument reaches it through ``compiled()``, whose key has the layout).  Returns (the GEMM entry, the SIMT entry
    or None, the PerformanceWarnings' texts, the path each launch ran)."""
    import dataclasses
    import warnings

    from tileorch.diagnostics import PerformanceWarning
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import gemm as tg
    from tileorch.runtime import driver
    from tileorch.testing.export import FakeDeviceArray

    p, prog = _lowered(module, name)
    own = rc._Compiled(dataclasses.replace(prog, deferred=False, tier_output=None))
    own.image = _Image(prog.gemm_config)
    simt, ran = [], []

    def compiled(kernel, arguments, arch, schedule, config="", **_):
        if schedule == "simt":
            if not simt:
                simt.append(rc._Compiled(SimpleNamespace(kind="simt", threads=128, remarks=[], kernel=name),
                                         image=object()))
            return simt[0]
        if not config:
            return own
        again = rc._Compiled(dataclasses.replace(prog, gemm_config=dataclasses.replace(prog.gemm_config, **{
            k: int(v) if v.isdigit() else v for k, v in (f.split("=") for f in config.split(","))})))
        again.image = _Image(again.program.gemm_config)
        return again

    monkeypatch.setattr(rc, "compiled", compiled)
    monkeypatch.setattr(rc, "_check_device", lambda arch: SimpleNamespace(sm_count=132))
    monkeypatch.setattr(driver, "api", lambda: None)
    monkeypatch.setattr(tg, "kernel_for", lambda cfg: _Image(cfg))
    monkeypatch.setattr(rc, "_run", lambda *a, **k: ran.append("simt"))
    if b_read is not None:
        monkeypatch.setattr(rc, "b_major", lambda b: b_read)
    rc.clear_caches()
    caught_all = []
    for grid, shapes in launches:
        args = tuple(FakeDeviceArray((i + 1) << 32, shapes.get(i, s[0])) if isinstance(s, tuple) else s
                     for i, s in enumerate(p.spec))
        before = len(ran)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rc._launch(0, grid, p.kernel, args, "sm_90a", "auto", False, "auto", None)
        caught_all += [str(w.message) for w in caught if issubclass(w.category, PerformanceWarning)]
        if len(ran) == before:
            ran.append("gemm")
    return own, (simt[0] if simt else None), caught_all, ran


@needs_cutile
def test_a_short_grid_with_a_retiled_kernel_that_falls_back_says_the_fallback_only(monkeypatch):
    """mm_tiled_view (compiled for a row-major B; C 200 x 320 in 128 x 64 tiles) on grid (1, 1) with a B read
    column-major: the launcher retiles to tileorch.gemm's kernel for B's layout, whose tiles straddle the covered
    128 x 64 corner of C: the SIMT path runs the launch.  Its remark says that, never the retile that did not run
    (noticed in session 30: the "retiled ..." remark was recorded before the path fell back)."""
    own, simt, texts, ran = _launches(monkeypatch, "user_programs3", "mm_tiled_view", [((1, 1, 1), {})], b_read="k")
    assert ran == ["simt"]
    said = [r for e in (own, simt) for r in e.launch_remarks.values()]
    assert not any("retiled" in r for r in said), said
    assert own.launch_remarks[(1, 1, 1)].startswith("remark: the SIMT path runs the launch: "), said
    assert "cannot compute exactly the tiles of the programs launched" in own.launch_remarks[(1, 1, 1)]
    assert len(texts) == 1 and "[the SIMT path runs it]" in texts[0], texts


@needs_cutile
def test_a_launch_that_falls_back_replaces_an_earlier_launchs_remark(monkeypatch):
    """mm_tiled_view on its full grid (2, 5): retiled (the remark says so); the same grid again with an A whose K
    (100) is not B's: the SIMT path runs it, and the grid's remark says that, not the earlier launch's retile; a
    third launch, the GEMM path again, says its retile again."""
    full = ((2, 5, 1), {})
    own, simt, texts, ran = _launches(monkeypatch, "user_programs3", "mm_tiled_view",
                                      [full, ((2, 5, 1), {0: (200, 100)})])
    assert ran == ["gemm", "simt"]
    assert own.launch_remarks[(2, 5, 1)].startswith("remark: the SIMT path runs the launch: GEMM shapes do not "
                                                    "agree"), own.launch_remarks
    own, simt, texts, ran = _launches(monkeypatch, "user_programs3", "mm_tiled_view", [full])
    assert ran == ["gemm"] and own.launch_remarks[(2, 5, 1)].startswith("remark: retiled to "), own.launch_remarks


@needs_cutile
def test_a_linear_program_id_launched_short_warns_why_and_how_to_avoid_it(monkeypatch):
    """mm_divmod_grid (``i, j = divmod(bid(0), tiles_n)``; C 256 x 384 in 128 x 128 tiles: 6) on grid (5,): the
    SIMT path runs it, and the PerformanceWarning says the grid that takes the GEMM kernel and the other numbering;
    grid (6,) takes the GEMM kernel."""
    own, simt, texts, ran = _launches(monkeypatch, "user_programs3", "mm_divmod_grid",
                                      [((5, 1, 1), {}), ((6, 1, 1), {})])
    assert ran == ["simt", "gemm"], ran
    assert len(texts) == 1 and "[the SIMT path runs it]" in texts[0], texts
    assert "the first 5 tiles" in texts[0] and "launch 6 programs along x (or more" in texts[0], texts
    assert "bid(0) for the row tile and bid(1) for the column tile" in texts[0], texts
