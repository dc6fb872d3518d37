"""The launch of a SIMT kernel whose final atomics are combined over several instances per CTA
(``program.cta_programs``, tileaa_to_simt/combined_atomics.py), against the fake driver of ``test_cutile_launch.py``:
one wave of resident CTAs along x (the driver's occupancy calculator: 16 CTAs an SM, 132 SMs), at most 4 instances
a CTA by default (TILEORCH_CTA_PROGRAMS_MAX), the programs along
x and the instances per CTA as the two trailing ``i32`` parameters, a launch remark that says so; a grid of one wave
or less keeps one instance per CTA; ``TILEORCH_CTA_PROGRAMS`` forces the instances per CTA.  Needs cuda-tile (the
export), no GPU."""

from __future__ import annotations

import struct
from types import SimpleNamespace

import pytest

from test_cutile_launch import Dev, needs_cutile, stand_in_gpu  # noqa: F401  (the fixture)


def _launch(drv, monkeypatch, rows: int):
    import tileorch.driver as frontend
    from tileorch.launchers import cutile as rc
    from test_combined_atomics_emulated import _int_folds

    stand_in = frontend.compile_program

    def combined(*args, **kwargs):  # the stand-in's program, as the lowering records combined atomics
        program = stand_in(*args, **kwargs)
        drv.params[program.kernel] += [4, 4]  # (the kernel's two trailing i32 parameters)
        return SimpleNamespace(**vars(program), cta_programs=1)

    monkeypatch.setattr(frontend, "compile_program", combined, raising=False)
    drv.cuOccupancyMaxActiveBlocksPerMultiprocessor = lambda fn, threads, smem: (0, 16)
    rc.clear_caches()
    x, bins, stats = Dev(0x100000, (rows, 32), "<i4"), Dev(0x9000000, (29,), "<i4"), Dev(0xA000000, (4,), "<i4")
    rc.launch(5, (rows,), _int_folds, (x, bins, stats, 32))
    launch = drv.launches[-1]
    remarks = [r for e in rc._programs.values() for r in e.launch_remarks.values()]
    return launch["config"].gridDimX, [struct.unpack("<i", p)[0] for p in launch["params"][-2:]], remarks


@needs_cutile
@pytest.mark.parametrize("rows,ctas,per_cta,cap", [(32768, 8192, 4, None), (32768, 2112, 16, "0"), (2112, 2112, 1, None),
                                                  (7, 7, 1, None)])
def test_one_wave_of_resident_ctas(stand_in_gpu, monkeypatch, rows, ctas, per_cta, cap):  # noqa: F811
    """One wave of resident CTAs, at most 4 instances a CTA by default (``TILEORCH_CTA_PROGRAMS_MAX``; ``0``: the
    wave's 16)."""
    monkeypatch.delenv("TILEORCH_CTA_PROGRAMS", raising=False)
    if cap is None:
        monkeypatch.delenv("TILEORCH_CTA_PROGRAMS_MAX", raising=False)
    else:
        monkeypatch.setenv("TILEORCH_CTA_PROGRAMS_MAX", cap)
    grid_x, params, remarks = _launch(stand_in_gpu, monkeypatch, rows)
    assert (grid_x, params) == (ctas, [rows, per_cta])
    assert any(f"{ctas} CTA(s) along x run the {rows} program instances, {per_cta} or one fewer each" in r
               for r in remarks), remarks


@needs_cutile
def test_forced_instances_per_cta(stand_in_gpu, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TILEORCH_CTA_PROGRAMS", "5")
    grid_x, params, _ = _launch(stand_in_gpu, monkeypatch, 32768)
    assert (grid_x, params) == (6554, [32768, 5])
