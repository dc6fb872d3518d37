"""``TILEORCH_REMATERIALIZE_FLOAT_LOADS=1`` (tileaa_to_simt/rematerialize.py: a broadcast float tile
load loaded again by each thread at the coordinates it needs; a second broadcast of the same source
in the block takes the first one's tile) on the PTX emulator: sweep 15's rotary (the f32 cos / sin
table rows at a runtime int64 position, each broadcast over the heads twice, before and after the
first store) against numpy through test_user_sweep15_interp's test (NaN-prefilled output, ragged
heads); the kernel then passes no ``bar.sync`` and touches no shared memory (default: the
broadcasts are exchanged through shared memory between barriers).  Needs cuda-tile and ml_dtypes,
no GPU, no ptxas."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_user_sweep10_emulated as s10e  # noqa: E402
import test_user_sweep15_interp as s15  # noqa: E402

from tileorch.testing.user_programs15 import PROGRAMS  # noqa: E402


def _ptx(name: str) -> str:
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False).ptx


@pytest.mark.parametrize("on", ["1", "0"])
def test_rope_tables_rematerialized(on, monkeypatch):
    monkeypatch.setenv("TILEORCH_REMATERIALIZE_FLOAT_LOADS", on)
    monkeypatch.setattr(s10e, "PROGRAMS", PROGRAMS)
    monkeypatch.setattr(s15, "run", s10e.emulate)
    s15.test_rope_halves_table_rows()
    ptx = _ptx("rope_halves_table_rows")
    assert ("bar.sync" in ptx) == (on == "0")
    assert ("st.shared" in ptx) == (on == "0")
