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
