"""A SIMT kernel whose shared scratch exceeds the 48 KiB of static shared memory (a 128 x 128 f32
transpose exchanges 64 KiB through shared memory) compiles with the scratch as dynamic shared
memory: an external ``[0 x i8]`` shared array in the PTX, ``CutileProgram.smem`` the bytes the
launch gives it, a remark saying so, and ptxas accepts it.  Over the 227 KiB a Hopper CTA can
have, the kernel is refused at its line.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


class Dev:
    def __init__(self, ptr: int, shape: tuple[int, ...], typestr: str):
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": shape, "typestr": typestr,
                                         "strides": None, "version": 3}


def _compile(t: int, typestr: str = "<f4"):
    from tileorch.driver import compile_program
    from tileorch.launchers import cutile as rc
    from tileorch.testing.memory_programs import transpose

    args = (Dev(0x7F0000000000, (1000, 1000), typestr), Dev(0x7F0010000000, (1000, 1000), typestr), t, t)
    return compile_program(rc.export_bytecode(transpose, rc.describe_arguments(transpose, args)), "<transpose>")


def test_scratch_over_48k_is_dynamic_shared_memory():
    p = _compile(128)
    assert p.kind == "simt"
    assert 48 * 1024 < p.smem <= 227 * 1024, p.smem
    assert ".extern .shared .align 16 .b8 __tileorch_simt_scratch[]" in p.ptx
    assert any("as dynamic shared memory" in r for r in p.remarks), p.remarks
    assert p.cubin is not None


def test_small_scratch_stays_static():
    p = _compile(32)
    assert p.smem == 0
    assert ".shared .align 16 .b8 __tileorch_simt_scratch[" in p.ptx and ".extern" not in p.ptx


def test_scratch_over_227k_is_a_located_error():
    from tileorch.diagnostics import LocatedError

    with pytest.raises(LocatedError, match=r"more than the 232448 a CTA can have"):
        _compile(256)
