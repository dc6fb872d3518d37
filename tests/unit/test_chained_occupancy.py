"""Two CTAs per SM for the chained tier's persistent kernel of one consumer warp group (``TILEORCH_ATTN_CTAS_PER_SM=2``,
:mod:`tileorch.transforms.tileas.chained_occupancy`): the choice and its remark, the register budget of two resident
CTAs, the kernel's directives and ``setmaxnreg`` counts (ptxas without spills), the launcher's CTA count, and GQA's
64-row program (cover26's ``attn_gqa_heads_loop``, its heads unstacked: ``TILEORCH_ATTN_STACK_HEADS=0``) under the
PTX emulator against numpy float64 (NaN-prefilled O, ragged keys)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("xdsl")

from tileorch.dialects.register_budget import entry_regs, most_consumer_regs, slot_budget  # noqa: E402
from tileorch.transforms.tileas.chained_occupancy import CTAS_PER_SM_ENV, HALF_SMEM, ctas_per_sm  # noqa: E402


def test_two_resident_ctas_share_the_register_file():
    """256 threads, two CTAs: 128 registers each at entry; producer 24 + consumer 232 = 2 x 128 (one more step of 8
    for the consumer would pass it: its increase would wait forever)."""
    assert entry_regs(2, 2) == 128 and slot_budget(2, 2) == 256
    assert most_consumer_regs(24, 1, 240, 2) == 232 and 24 + 232 + 8 > slot_budget(2, 2)
    assert most_consumer_regs(24, 1, 240) == 240  # (one CTA: unchanged)


def test_the_choice_and_its_remark(monkeypatch):
    monkeypatch.setenv(CTAS_PER_SM_ENV, "1")
    assert ctas_per_sm(1, True, 80_000) == (1, "")
    monkeypatch.delenv(CTAS_PER_SM_ENV, raising=False)
    n, why = ctas_per_sm(1, True, 80_000)
    assert n == 2 and "two CTAs per SM" in why and "232 registers" in why
    # by default, kernels of another kind take one CTA per SM without a remark; asked for, the remark says why not
    assert ctas_per_sm(2, True, 80_000) == (1, "")
    assert ctas_per_sm(1, False, 80_000) == (1, "")
    n, why = ctas_per_sm(1, True, HALF_SMEM + 16)
    assert n == 1 and f"exceed half the SM's ({HALF_SMEM})" in why
    monkeypatch.setenv(CTAS_PER_SM_ENV, "2")
    assert ctas_per_sm(2, True, 80_000) == (1, f"remark: {CTAS_PER_SM_ENV}=2 not applied: not one consumer warp "
                                               "group (64-row tiles)")
    assert ctas_per_sm(1, False, 80_000)[1].endswith("not a persistent kernel")


pytest.importorskip("cuda.tile")
from tileorch.testing.cover26_programs import PROGRAMS  # noqa: E402

NAME = "attn_gqa_heads_loop"


def _compile(ptxas: bool = False):
    from tileorch.testing.gemm_emulation import compile_cutile

    p = PROGRAMS[NAME]
    return compile_cutile(p.kernel, p.spec, NAME, ptxas=ptxas)


@pytest.fixture
def two_ctas(monkeypatch):
    monkeypatch.delenv(CTAS_PER_SM_ENV, raising=False)  # the default
    # (the heads loop as written: since session 34 its two heads run as one 128-row chain, tileas-stack-query-heads)
    monkeypatch.setenv("TILEORCH_ATTN_STACK_HEADS", "0")


def test_the_kernel_asks_for_two_resident_ctas(two_ctas):
    from tileorch.backend.ptxas import ptxas_available, run_ptxas
    from tileorch.launchers.cutile import chained_ctas

    prog = _compile()
    assert re.search(r"\.minnctapersm 2\b", prog.ptx)
    assert re.findall(r"setmaxnreg\.(\w+)\.sync\.aligned\.u32\s+(\d+)", prog.ptx) == [("dec", "24"), ("inc", "232")]
    assert prog.chained["persistent"]["ctas_per_sm"] == 2 and prog.chained["smem"] <= HALF_SMEM
    assert any("at most 2 CTAs per SM" in r for r in prog.remarks), prog.remarks
    ctas, remark = chained_ctas(prog.chained, (2, 4, 2), 3)  # 16 instances, 3 SMs: 6 CTAs
    assert ctas == 6 and "2 per SM" in remark
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


def test_one_cta_per_sm_when_asked(monkeypatch):
    monkeypatch.setenv(CTAS_PER_SM_ENV, "1")
    monkeypatch.setenv("TILEORCH_ATTN_STACK_HEADS", "0")
    prog = _compile()
    assert re.search(r"\.minnctapersm 1\b", prog.ptx) and "ctas_per_sm" not in prog.chained["persistent"]
    assert re.findall(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+(\d+)", prog.ptx) == ["240"]


def test_gqa_against_numpy(two_ctas, monkeypatch):
    """cover26's GQA case (2 query heads per KV head, keys ragged: 192 in 64-key tiles) on the two-CTA kernel."""
    pytest.importorskip("ml_dtypes")
    import test_cover26_emulated as c26
    import test_user_sweep4_emulated as s4
    import test_user_sweep14_emulated as s14e

    s4.add_sweep_programs(monkeypatch, PROGRAMS)
    monkeypatch.setattr(s14e, "PROGRAMS", {**s14e.PROGRAMS, **PROGRAMS})
    assert _compile().chained["persistent"]["ctas_per_sm"] == 2
    c26.CASES[NAME]()  # (O NaN-prefilled against the f64 softmax: the case's own assertions)


def test_the_launcher_asks_for_the_largest_shared_memory_carveout_once():
    """Two resident CTAs need their shared memory in one SM's carveout: ``prefer_max_shared`` sets the kernel's
    PREFERRED_SHARED_MEMORY_CARVEOUT to 100 (percent) the first time only (a stand-in driver records the calls)."""
    from types import SimpleNamespace

    from tileorch.runtime.driver import use_api
    from tileorch.runtime.launch import prefer_max_shared
    from tileorch.runtime.module import Kernel

    calls = []
    drv = SimpleNamespace(
        CUfunction_attribute=SimpleNamespace(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT="carveout"),
        cuFuncSetAttribute=lambda fn, attr, value: calls.append((fn, attr, value)) or (0,))
    kernel = Kernel("chained_dots_64x64x64_64_f16", "fn", None)
    with use_api(drv):
        prefer_max_shared(kernel)
        prefer_max_shared(kernel)
    assert calls == [("fn", "carveout", 100)] and kernel.max_shared_carveout
