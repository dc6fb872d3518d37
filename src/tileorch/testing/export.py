"""cuTile bytecode of a kernel for described arguments, without a GPU (tests and benchmarks).

:func:`export_cutile` runs cuTile's exporter on the CPU: fake device arrays (never dereferenced)
describe the array arguments by shape and dtype, scalars and constants are passed as they are."""

from __future__ import annotations

import dataclasses
from pathlib import Path


class FakeDeviceArray:
    """What cuTile's argument description reads of a device array (no GPU: never dereferenced)."""

    def __init__(self, ptr: int, shape: tuple[int, ...], strides: tuple[int, ...] | None = None):
        """``strides``: in elements (None: contiguous); held in bytes of the 2-byte placeholder element
        (:func:`described_arguments` sets the real element type afterwards, strides kept in elements)."""
        self.__cuda_array_interface__ = {"data": (ptr, False), "shape": tuple(shape), "typestr": "<f2",
                                         "strides": None if strides is None else tuple(2 * s for s in strides),
                                         "version": 3}


def described_arguments(kernel, spec: list) -> list:
    """``tileorch.cutile``'s description of arguments made from ``spec``: per argument either
    ``(shape, dtype name)`` for an array (``"float16"``, ``"bfloat16"``, ...; ``(shape, dtype name,
    strides in elements)`` for a non-contiguous view), a Python list of
    those for a list-of-arrays argument, or a scalar / constant value (fake device arrays at
    fixed 256 MiB-spaced addresses)."""
    from tileorch.launchers import cutile as rc

    args, dtypes = [], []
    for i, s in enumerate(spec):
        if isinstance(s, tuple):  # (shape, dtype) or (shape, dtype, strides in elements): a strided view
            args.append(FakeDeviceArray(0x7F0000000000 + (i + 1) * 0x10000000, s[0], s[2] if len(s) > 2 else None))
            dtypes.append(s[1])
        elif isinstance(s, list):  # a list-of-arrays argument: [(shape, dtype name), ...]
            args.append([FakeDeviceArray(0x7F0000000000 + (i + 1) * 0x10000000 + j * 0x1000000, x[0])
                         for j, x in enumerate(s)])
            dtypes.append([x[1] for x in s])
        else:
            args.append(s)
            dtypes.append(None)
    arguments = rc.describe_arguments(kernel, tuple(args))
    arguments = list(arguments)
    for i, a in enumerate(arguments):
        if isinstance(dtypes[i], list):
            items = tuple(dataclasses.replace(x, dtype=d) for x, d in zip(a.items, dtypes[i]))
            arguments[i] = dataclasses.replace(a, items=items)
        elif dtypes[i]:
            arguments[i] = dataclasses.replace(a, dtype=dtypes[i])
    return arguments


_EXPORTED: dict[tuple[int, str], tuple[object, bytes]] = {}
"""(id of the kernel, ``repr`` of its described arguments) -> (the kernel, its bytecode): the
exports of this process (:func:`cutile_bytecode`).  The kernel is kept in the value, so that its id
is never another object's while the entry lives."""


def cutile_bytecode(kernel, spec: list) -> bytes:
    """The CUDA Tile IR bytecode of ``kernel`` for ``spec`` (see :func:`described_arguments`).

    Exported once per kernel object and argument description in a process (the sweeps' compile,
    interpreter and emulator tests export the same program each): the description's ``repr``
    holds every field the export reads (dtypes, shapes, strides, scalar and constant values with
    their types).  An export that raises is not kept (each call raises again)."""
    from tileorch.launchers import cutile as rc

    arguments = described_arguments(kernel, spec)
    key = (id(kernel), repr(arguments))
    hit = _EXPORTED.get(key)
    if hit is not None and hit[0] is kernel:
        return hit[1]
    data = rc.export_bytecode(kernel, arguments)
    _EXPORTED[key] = (kernel, data)
    return data


def resized(program, shapes: dict, scalars: dict | None = None):
    """``program`` (a sweep table's entry: a dataclass with ``kernel`` and ``spec``) with the arrays at
    the positions of ``shapes`` given those shapes and the launch-time scalars at the positions of
    ``scalars`` those values: an emulator or interpreter test runs the program on fewer or smaller
    tiles than the compile and GPU tests' spec (their cost is per CTA and per loop trip).

    The same compiled program: array shapes and scalar values are launch-time arguments of a cuTile
    entry.  Checked here: the new spec's ``KernelSignature`` (the exporter's whole input besides
    the kernel: per array dtype, rank, stride facts, alignment, ``shape_constant`` all None; per
    scalar its type; the constants' values) equals the table's, so the export is the table's byte
    for byte (tests/unit/test_user_sweep3_emulated.py compares the bytes) and a compile memo keyed
    by the table's export hands the test the program the compile test compiled.  An array of
    another rank, a scalar of another type or a changed constant raises ``AssertionError``."""
    from tileorch.launchers import cutile as rc

    name = getattr(getattr(program.kernel, "_annotated_function", None), "pyfunc", program.kernel)
    name = getattr(name, "__name__", "the program")
    scalars = scalars or {}
    spec = list(program.spec)
    for i, shape in shapes.items():
        assert isinstance(spec[i], tuple) and len(shape) == len(spec[i][0]), (name, i, spec[i], shape)
        spec[i] = (tuple(shape), *spec[i][1:])
    for i, value in scalars.items():
        assert not isinstance(spec[i], (tuple, list)) and type(value) is type(spec[i]), (name, i, spec[i], value)
        spec[i] = value
    assert rc.kernel_signature(described_arguments(program.kernel, spec)) == \
        rc.kernel_signature(described_arguments(program.kernel, program.spec)), f"{name}: another program"
    return dataclasses.replace(program, spec=spec)


def export_cutile(name: str, kernel, spec: list, directory: Path) -> Path:
    """``directory/name.tileirbc``: :func:`cutile_bytecode` written to a file."""
    path = Path(directory) / f"{name}.tileirbc"
    path.write_bytes(cutile_bytecode(kernel, spec))
    return path


__all__ = ["FakeDeviceArray", "cutile_bytecode", "described_arguments", "export_cutile", "resized"]
