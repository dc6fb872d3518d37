"""``tileorch.testing.export.cutile_bytecode`` exports a kernel once per argument description in a
process: the same kernel and description give the first export's bytes without running cuTile's
exporter again; another description (a shape, a dtype, a scalar's value or type), another kernel
or a failed export runs it.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


@pytest.fixture
def exports(monkeypatch):
    """cuTile's exporter counted (the real one runs), over an empty memo."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing import export

    real, calls = rc.export_bytecode, []

    def counted(kernel, arguments):
        calls.append(repr(arguments))
        return real(kernel, arguments)

    monkeypatch.setattr(rc, "export_bytecode", counted)
    monkeypatch.setattr(export, "_EXPORTED", {})
    return calls


def test_the_same_kernel_and_description_export_once(exports):
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs3 import PROGRAMS

    p = PROGRAMS["clamp_where_chain"]
    first = cutile_bytecode(p.kernel, p.spec)
    assert first[:4] == b"\x7fTil" and len(exports) == 1
    assert cutile_bytecode(p.kernel, list(p.spec)) == first and len(exports) == 1


def test_another_description_or_kernel_exports_again(exports):
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import cutile_bytecode, described_arguments
    from tileorch.testing.user_programs3 import PROGRAMS

    p = PROGRAMS["clamp_where_chain"]  # x, lo, hi arrays (1000,) f16, then lo, hi float scalars, a tile size
    base = cutile_bytecode(p.kernel, p.spec)
    variants = [
        [((999,), "float16"), *p.spec[1:]],  # a shape
        [((1000,), "float32"), *p.spec[1:]],  # a dtype
        [*p.spec[:3], -1.25, *p.spec[4:]],  # a scalar's value
        [*p.spec[:3], -1, *p.spec[4:]],  # a scalar's type (an int32 parameter instead of float32)
    ]
    outs = [cutile_bytecode(p.kernel, v) for v in variants]
    assert len(exports) == 1 + len(variants) and len(set(exports)) == len(exports)
    assert outs[1] != base and outs[3] != base  # the f32 array, the i32 scalar: another signature
    other = PROGRAMS["dtype_ladder"]
    cutile_bytecode(other.kernel, other.spec)
    assert len(exports) == 2 + len(variants)
    # (the scalar the variants change is a parameter: f32 as given, i32 for the int)
    lo, lo_int = described_arguments(p.kernel, p.spec)[3], described_arguments(p.kernel, variants[3])[3]
    assert isinstance(lo, rc.ScalarArg) and (lo.dtype, lo_int.dtype) == ("float32", "int32")


def test_a_failed_export_is_not_kept(monkeypatch):
    from tileorch.launchers import cutile as rc
    from tileorch.testing import export
    from tileorch.testing.user_programs3 import PROGRAMS

    monkeypatch.setattr(export, "_EXPORTED", {})
    p = PROGRAMS["clamp_where_chain"]
    real = rc.export_bytecode
    monkeypatch.setattr(rc, "export_bytecode", lambda kernel, arguments: (_ for _ in ()).throw(OSError("stand-in")))
    with pytest.raises(OSError, match="stand-in"):
        export.cutile_bytecode(p.kernel, p.spec)
    monkeypatch.setattr(rc, "export_bytecode", real)
    assert export.cutile_bytecode(p.kernel, p.spec)[:4] == b"\x7fTil"
