"""``TILEORCH_ROW_SMEM_CACHE`` through the compile driver: the located remarks (taken at the second loop's load;
refused with the failing condition), the kernel's launch record (``program.row_cache``: the array's extent
parameter, the elements and bytes of a slot) and the launcher's sizing from it.  Needs cuda-tile, no GPU."""

from __future__ import annotations

import inspect
import struct

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")


def _compile(kernel, spec, monkeypatch, on: str = "1"):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    monkeypatch.setenv("TILEORCH_ROW_SMEM_CACHE", on)
    return compile_once(cutile_bytecode(kernel, spec), kernel._annotated_function.pyfunc.__name__, arch="sm_90a",
                        ptxas=False)


def _line(kernel, text: str, nth: int = 0) -> int:
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    hits = [first + i for i, ln in enumerate(lines) if text in ln]
    return hits[nth]


def test_taken_remark_at_the_second_load(monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    prog = _compile(kernel, [((3, 32000), "bfloat16"), ((3, 32000), "bfloat16"), 1024], monkeypatch)
    line = _line(kernel, "ct.load(X", 1)
    taken = [r for r in prog.remarks if "reads this tile from shared memory" in r]
    assert len(taken) == 1 and f":{line}:" in taken[0], prog.remarks
    assert any("a row kept in shared memory between its loops: 2048 bytes a tile" in r for r in prog.remarks)
    # X's extent along the columns is parameter 2 (pointer, rows, columns, row stride...); 1024 elements a slot;
    # the row's tiles bulk-copied into their slots (TILEORCH_ROW_BULK_FILL's default)
    assert prog.row_cache == [2, 1024, 2048, 1]
    from tileorch.launchers.row_cache_smem import launch_smem

    params = [bytes(8), struct.pack("<i", 3), struct.pack("<i", 32000)]
    assert launch_smem(prog, params) == prog.smem + 32 * 2048
    params[2] = struct.pack("<i", 1_000_000)  # 977 tiles: as many slots as 227 KiB hold
    assert launch_smem(prog, params) == prog.smem + (227 * 1024 - prog.smem) // 2048 * 2048


def test_refused_remark_names_the_condition(monkeypatch):
    from tileorch.testing.row_cache_programs import shifted_second_pass as kernel

    prog = _compile(kernel, [((3, 4000), "bfloat16"), ((3, 4000), "bfloat16"), 1024], monkeypatch)
    line = _line(kernel, "ct.load(X", 0)  # (the first loop's load: in row_cache_programs._row_max)
    refused = [r for r in prog.remarks if "not kept in shared memory" in r]
    assert len(refused) == 1 and f":{line}:" in refused[0] and "different index" in refused[0], prog.remarks
    assert prog.row_cache is None and "ld.shared.v" not in prog.ptx


def test_switch_off_no_remark(monkeypatch):
    from tileorch.testing.user_programs10 import log_softmax_vocab_loop as kernel

    prog = _compile(kernel, [((3, 32000), "bfloat16"), ((3, 32000), "bfloat16"), 1024], monkeypatch, "0")
    assert prog.row_cache is None and not any("shared memory, where" in r for r in prog.remarks)
