"""The launch of a SIMT kernel that keeps a row in shared memory (``program.row_cache``), against the fake driver
of ``test_cutile_launch.py``: the dynamic shared memory is the scratch plus a slot per tile of the row, read from
the launch's own column count (capped at 227 KiB), and the kernel asks for the largest shared-memory carveout
(three such CTAs share an SM).  Needs cuda-tile (the export), no GPU."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from test_cutile_launch import Dev, needs_cutile, stand_in_gpu  # noqa: F401  (the fixture)


@needs_cutile
@pytest.mark.parametrize("cols,slots", [(32000, 32), (4095, 4), (1_000_000, (232448 - 544) // 2048)])
def test_row_cache_launch_sizes_the_shared_memory(stand_in_gpu, monkeypatch, cols, slots):  # noqa: F811
    import tileorch.driver as frontend

    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", "1")  # the cache whatever the row (auto: below)
    from tileorch.launchers import cutile as rc
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    drv = stand_in_gpu
    stand_in = frontend.compile_program
    set_attributes = []
    drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = "carveout"
    drv.cuFuncSetAttribute = lambda fn, attr, value: set_attributes.append((attr, value)) or (0,)

    def with_row_cache(*args, **kwargs):  # the stand-in's program, as the lowering records a row cache
        return SimpleNamespace(**vars(stand_in(*args, **kwargs)), smem=544, row_cache=[2, 1024, 2048])

    monkeypatch.setattr(frontend, "compile_program", with_row_cache, raising=False)
    x, y = Dev(0x100000, (3, cols), "<f2"), Dev(0x900000, (3, cols), "<f2")
    rc.launch(5, (3,), kernel, (x, y, 1024))
    assert drv.launches[0]["config"].sharedMemBytes == 544 + slots * 2048
    assert ("carveout", 100) in set_attributes and ("dyn", 544 + slots * 2048) in set_attributes


@needs_cutile
@pytest.mark.parametrize("cols,bulk,cached", [(8192, 0, True), (16384, 0, True), (16385, 0, False), (32000, 0, False),
                                              (32000, 1, True), (120000, 1, True), (32001, 1, False),
                                              (16392, 1, True)])
def test_auto_keeps_short_rows_and_runs_long_rows_without_the_cache(stand_in_gpu, monkeypatch, cols, bulk,  # noqa: F811
                                                                    cached):
    """``TILEORCH_ROW_SMEM_CACHE`` unset (auto): the program compiled with the cache runs a row of at most
    ``TILEORCH_ROW_SMEM_CACHE_AUTO_BYTES`` (32 KiB: 16 slots of 2 KiB = 16384 bf16 columns) with it; a longer row
    runs the program compiled again under ``TILEORCH_ROW_SMEM_CACHE=0`` (no slots, no carveout), with a launch
    remark on both entries, unless the kernel bulk-fills its slots (the record's fourth entry) and the rows are
    16-byte aligned (32001 bf16 columns are not: the bulk copy would run on one row in eight): then any row keeps
    the cache; the environment is as before after the launch."""
    import tileorch.driver as frontend
    from tileorch.launchers import cutile as rc
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    drv = stand_in_gpu
    monkeypatch.delenv("TILEORCH_ROW_SMEM_CACHE", raising=False)
    monkeypatch.delenv("TILEORCH_ROW_SMEM_CACHE_AUTO_BYTES", raising=False)
    stand_in = frontend.compile_program
    asked = []
    drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = "carveout"
    drv.cuFuncSetAttribute = lambda fn, attr, value: (0,)

    def as_the_switch_says(*args, **kwargs):  # the lowering records a row cache unless the switch is 0
        from tileorch import settings  # this thread's override (settings.overridden), as the lowering reads it

        switch = settings.raw("TILEORCH_ROW_SMEM_CACHE")
        asked.append(switch)
        extra = {} if switch == "0" else {"row_cache": [2, 1024, 2048, bulk]}
        return SimpleNamespace(**vars(stand_in(*args, **kwargs)), smem=544, **extra)

    monkeypatch.setattr(frontend, "compile_program", as_the_switch_says, raising=False)
    rc.clear_caches()
    x, y = Dev(0x100000, (3, cols), "<f2"), Dev(0x900000, (3, cols), "<f2")
    rc.launch(5, (3,), kernel, (x, y, 1024))
    import os

    assert "TILEORCH_ROW_SMEM_CACHE" not in os.environ
    smem = drv.launches[0]["config"].sharedMemBytes
    if cached:
        assert asked == [""] and smem == 544 + min(-(-cols // 1024), (232448 - 544) // 2048) * 2048
        assert not any(e.launch_remarks for e in rc._programs.values())
    else:
        assert asked == ["", "0"] and smem == 544
        entries = {id(e): e for e in rc._programs.values()}.values()  # (one entry may be under two keys)
        said = [r for e in entries for r in e.launch_remarks.values()]
        assert len(said) == 2 and all("not kept in shared memory" in r and "32768" in r for r in said), said


@needs_cutile
def test_a_repeated_or_re_pointed_launch_redoes_nothing_of_the_first(stand_in_gpu, monkeypatch):  # noqa: F811
    """Issue 22: after a first launch whose row cache ``auto`` declined (a long row: the program compiled again
    without it), the same call again and the call with the arrays at other addresses (a re-pointed bound
    launch) enqueue the same kernel with the same shared memory and read nothing again: no row-cache choice,
    no argument description, no compile lookup, no setting, no environment variable."""
    import os

    import tileorch.driver as frontend
    from tileorch import settings
    from tileorch.launchers import cutile as rc
    from tileorch.launchers import row_cache_smem
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    drv = stand_in_gpu
    monkeypatch.delenv("TILEORCH_ROW_SMEM_CACHE", raising=False)
    monkeypatch.delenv("TILEORCH_ROW_SMEM_CACHE_AUTO_BYTES", raising=False)
    stand_in = frontend.compile_program
    drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = "carveout"
    drv.cuFuncSetAttribute = lambda fn, attr, value: (0,)

    def as_the_switch_says(*args, **kwargs):
        extra = {} if settings.raw("TILEORCH_ROW_SMEM_CACHE") == "0" else {"row_cache": [2, 1024, 2048, 0]}
        return SimpleNamespace(**vars(stand_in(*args, **kwargs)), smem=544, **extra)

    monkeypatch.setattr(frontend, "compile_program", as_the_switch_says, raising=False)
    rc.clear_caches()
    cols = 32000
    x, y = Dev(0x100000, (3, cols), "<f2"), Dev(0x900000, (3, cols), "<f2")
    rc.launch(5, (3,), kernel, (x, y, 1024))
    first = drv.launches[-1]
    assert first["config"].sharedMemBytes == 544  # declined: the plain program's

    def must_not_run(name):
        def refuse(*args, **kwargs):
            raise AssertionError(f"a repeated launch ran {name}")
        return refuse

    for module, name in ((rc, "_row_cache_choice"), (row_cache_smem, "auto_declines"), (rc, "describe_arguments"),
                         (rc, "compiled"), (rc, "_launch"), (settings, "value")):
        monkeypatch.setattr(module, name, must_not_run(f"{module.__name__}.{name}"))
    read = []

    class Watched(dict):
        def __getitem__(self, key):
            read.append(key)
            return super().__getitem__(key)

        def get(self, key, default=None):
            read.append(key)
            return super().get(key, default)

        def __contains__(self, key):
            read.append(key)
            return super().__contains__(key)

    monkeypatch.setattr(os, "environ", Watched(os.environ))
    n = len(drv.launches)
    rc.launch(5, (3,), kernel, (x, y, 1024))  # the same call: the bound launch
    x2, y2 = Dev(0x2100000, (3, cols), "<f2"), Dev(0x2900000, (3, cols), "<f2")
    rc.launch(5, (3,), kernel, (x2, y2, 1024))  # other addresses: re-pointed
    assert len(drv.launches) == n + 2 and read == []
    for launch in drv.launches[n:]:
        assert launch["config"].sharedMemBytes == 544 and launch["fn"] == first["fn"]
    import struct

    assert drv.launches[n]["params"] == first["params"]
    pointers = [p for p in drv.launches[n + 1]["params"] if len(p) == 8]
    assert struct.pack("<Q", 0x2100000) in pointers and struct.pack("<Q", 0x2900000) in pointers
