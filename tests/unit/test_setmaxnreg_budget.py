"""The setmaxnreg register budget (tileorch.dialects.register_budget): what a CTA starts with, checked
against ptxas itself, and the splits the chained tier and the GEMM configuration choose fit in it.
A split that does not fit makes a warp group's ``setmaxnreg.inc`` wait forever on the GPU (sweep 6's
256-row attention tile with 4 x 120 consumer registers never finished on the H200 or the H100); the
PTX emulator has no register pool and cannot show it."""

from __future__ import annotations

import re
import subprocess

import pytest

from tileorch.dialects.register_budget import entry_regs, fits, slot_budget
from tileorch.transforms.tileas.chained_dots import PRODUCER_REGS, consumer_regs


def _kernel(threads: int, producer: int, consumer: int) -> str:
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k() .maxntid {threads}, 1, 1 .minnctapersm 1
{{
  .reg .b32 %r<2>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 128;
  @%p1 bra PRODUCER;
  setmaxnreg.inc.sync.aligned.u32 {consumer};
  ret;
PRODUCER:
  setmaxnreg.dec.sync.aligned.u32 {producer};
  ret;
}}
"""


@pytest.mark.parametrize("groups", [2, 3, 4, 5])
def test_ptxas_starts_a_cta_with_at_most_entry_regs(groups, tmp_path):
    """ptxas assembles a setmaxnreg kernel of ``groups`` warp groups for the largest count it names
    (240 here), up to :func:`entry_regs` (what one CTA of that many threads may hold)."""
    from tileorch.backend.ptxas import find_ptxas

    loc = find_ptxas()
    if loc is None:
        pytest.skip("no ptxas")
    src = tmp_path / "k.ptx"
    src.write_text(_kernel(128 * groups, 24, 240))
    out = subprocess.run([loc.path, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    regs = int(re.search(r"Used (\d+) registers", out.stdout + out.stderr).group(1))
    assert regs == min(240, entry_regs(groups)), (groups, regs)


def test_entry_regs_values():
    assert [entry_regs(g) for g in (1, 2, 3, 4, 5)] == [248, 248, 168, 128, 96]
    assert slot_budget(3) == 504 and slot_budget(5) == 480


@pytest.mark.parametrize("consumers", [1, 2, 4])
def test_chained_consumer_regs_fit(consumers):
    regs = consumer_regs(consumers)
    assert regs % 8 == 0 and fits(PRODUCER_REGS, regs, consumers)
    assert not fits(PRODUCER_REGS, regs + 8, consumers) or regs == 240  # the most that fits, or the cap


def test_four_consumer_groups_get_112_not_120():
    """The 256-row tile's split: 24 + 4 x 120 = 504 passes the 512 of a lane slot but not the 480 a
    640-thread CTA starts with."""
    assert consumer_regs(4) == 112 and not fits(24, 120, 4)


def test_gemm_config_refuses_a_split_past_the_budget():
    from tileorch.kernels.gemm.config import GemmConfig

    with pytest.raises(ValueError, match="starts with 504"):
        GemmConfig(tile_n=128, producer_regs=32, consumer_regs=240).check()
    GemmConfig(tile_n=128, producer_regs=24, consumer_regs=240).check()
    GemmConfig(tile_n=128, producer_regs=40, consumer_regs=232).check()


@pytest.mark.parametrize("warps, regs", [(4, 232), (8, 232), (12, 152), (16, 104)])
def test_materialize_schedule_consumer_regs_fit(warps, regs):
    """materialize-schedule's consumer agent beside its producer of 40: three consumer warp groups get 152
    (40 + 3 x 152 = 496 <= 4 x 128; the earlier 160: 520), four get 104 (40 + 4 x 104 = 456 <= 5 x 96; the
    earlier 112: 488); one or two keep the cap 232 (40 + 2 x 232 = 504 = 3 x 168)."""
    from tileorch.transforms.tileas import materialize_schedule as ms

    groups = warps // 4
    assert ms.consumer_regs(warps) == regs and fits(ms.PRODUCER_REGS, regs, groups)
    assert regs == ms.MOST_CONSUMER_REGS or not fits(ms.PRODUCER_REGS, regs + 8, groups)
