"""A small builder for tile programs (the shape cuTile programs have), producing ``nv_tileaa``.

    p = TileProgram("tile_gemm", num_worker_warps=8)
    A, B, C = p.array("a", "f16"), p.array("b", "f16"), p.array("c", "f16")
    bm, bn = p.bid(0), p.bid(1)
    with p.loop(p.num_tiles(A, axis=1, shape=(128, 64)), carry=[p.zeros((128, 128), "f32")]) as k:
        a = p.load(A, (bm, k.iv), (128, 64))
        b = p.load(B, (k.iv, bn), (64, 128))
        k.yield_(p.dot(a, b, k.args[0]))
    p.store(C, (bm, bn), p.astype(k.results[0], "f16"))
    module = p.finish()              # a builtin.module; p.text() prints it

Arrays arrive as a pointer plus i32 extents and strides (the innermost stride is 1), as cuTile
passes them; tiles are ``tensor`` values; loops are ``scf.for`` with carried tiles.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import tileorch.dialects.lazy_formats  # noqa: F401,I001  (first: the op formats of dialects defined from here parse on first use)
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (BFloat16Type, DenseIntOrFPElementsAttr, Float8E4M3FNType, Float8E5M2Type,
                                   Float16Type, Float32Type, FunctionType, IntegerAttr, ModuleOp, TensorType, i1, i32)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.printer import Printer

from tileorch.dialects import nv_tileaa as aa

DTYPES: dict[str, Attribute] = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(), "i32": i32,
                                "e4m3": Float8E4M3FNType(), "e5m2": Float8E5M2Type()}
DYN = aa.DYNAMIC


def dtype_of(name: str | Attribute) -> Attribute:
    if isinstance(name, Attribute):
        return name
    if name not in DTYPES:
        raise ValueError(f"unknown element type {name!r}, expected one of {', '.join(DTYPES)}")
    return DTYPES[name]


@dataclass
class Array:
    """A global-memory array argument (pointer, extents, strides) and its tiled views."""

    memref: SSAValue
    dtype: Attribute
    rank: int
    views: dict[tuple[int, ...], SSAValue] = field(default_factory=dict)


class Loop:
    """``scf.for iv = 0 to count`` carrying ``args``; call ``yield_`` once inside the block."""

    def __init__(self, program: TileProgram, count: SSAValue, carry: Sequence[SSAValue]):
        self.program = program
        self.count = count
        self.carry = list(carry)
        self.block = Block(arg_types=[count.type, *[v.type for v in carry]])
        self.iv = self.block.args[0]
        self.args = list(self.block.args[1:])
        self.results: list[SSAValue] = []
        self._yielded = False

    def yield_(self, *values: SSAValue) -> None:
        if self._yielded:
            raise ValueError("a loop body yields once")
        if [v.type for v in values] != [v.type for v in self.carry]:
            raise ValueError(f"the loop yields {[str(v.type) for v in values]}, "
                             f"but carries {[str(v.type) for v in self.carry]}")
        self.block.add_op(scf.YieldOp(*values))
        self._yielded = True

    def __enter__(self) -> Loop:
        self.program._blocks.append(self.block)
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.program._blocks.pop()
        if exc_type is not None:
            return
        if not self._yielded:
            if self.carry:
                raise ValueError("a loop with carried values must call yield_")
            self.block.add_op(scf.YieldOp())
        p = self.program
        zero = p._emit(arith.ConstantOp(IntegerAttr(0, self.count.type), self.count.type)).results[0]
        one = p._emit(arith.ConstantOp(IntegerAttr(1, self.count.type), self.count.type)).results[0]
        loop = p._emit(scf.ForOp(zero, self.count, one, self.carry, Region(self.block)))
        self.results = list(loop.results)


class TileProgram:
    """Builds one ``nv_tileaa.func`` kernel (see the module docstring)."""

    def __init__(self, name: str, num_ctas: int = 1, num_worker_warps: int = 4, sm: int = 90, features: int = 2):
        self.name = name
        self.spec = aa.KernelSpecAttr(num_ctas, num_worker_warps)
        self.cc = aa.ComputeCapabilityAttr(sm, features)
        self.entry = Block()
        self._blocks = [self.entry]
        self._module: ModuleOp | None = None

    # -- plumbing
    def _emit(self, op: Operation) -> Operation:
        self._blocks[-1].add_op(op)
        return op

    def _arg(self, typ: Attribute) -> SSAValue:
        return self.entry.insert_arg(typ, len(self.entry.args))

    # -- arguments
    def array(self, name: str, dtype: str | Attribute, rank: int = 2) -> Array:
        """A ``rank``-D array argument: pointer, ``rank`` extents, ``rank - 1`` strides (i32)."""
        elem = dtype_of(dtype)
        ptr = self._arg(aa.PointerType(elem))
        ptr.name_hint = name
        shape = [self._arg(i32) for _ in range(rank)]
        strides = [self._arg(i32) for _ in range(rank - 1)]
        mt = aa.MemRefType(elem, [DYN] * rank, [DYN] * (rank - 1) + [1], i32)
        op = self._emit(aa.MakeMemrefOp(ptr, shape, strides, mt))
        return Array(op.results[0], elem, rank)

    def scalar(self, name: str, dtype: str | Attribute = "i32") -> SSAValue:
        v = self._arg(dtype_of(dtype))
        v.name_hint = name
        return v

    # -- program ids and shapes
    def bid(self, axis: int) -> SSAValue:
        return self._emit(aa.GetProgramIdOp(axis)).results[0]

    def view(self, array: Array, shape: Sequence[int]) -> SSAValue:
        key = tuple(shape)
        if key not in array.views:
            if len(shape) != array.rank:
                raise ValueError(f"a rank-{array.rank} array needs a rank-{array.rank} tile shape, got {list(shape)}")
            vt = aa.TiledViewType(list(shape), array.memref.type)
            # views live in the entry block so every loop can use them
            op = aa.BlockTileOp(array.memref, vt)
            self.entry.insert_op_after(op, array.memref.owner)
            array.views[key] = op.results[0]
        return array.views[key]

    def num_tiles(self, array: Array, axis: int, shape: Sequence[int]) -> SSAValue:
        return self._emit(aa.GetDimSizeOp(self.view(array, shape), axis, i32)).results[0]

    # -- tiles
    def zeros(self, shape: Sequence[int], dtype: str | Attribute = "f32") -> SSAValue:
        t = TensorType(dtype_of(dtype), list(shape))
        return self._emit(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [0.0]), t)).results[0]

    def load(self, array: Array, index: Sequence[SSAValue], shape: Sequence[int], allow_tma: bool = True) -> SSAValue:
        view = self.view(array, shape)
        t = TensorType(array.dtype, list(shape))
        return self._emit(aa.TiledLoadOp(view, list(index), t, allow_tma=allow_tma)).results[0]

    def store(self, array: Array, index: Sequence[SSAValue], tile: SSAValue) -> None:
        view = self.view(array, list(tile.type.get_shape()))
        self._emit(aa.TiledStoreOp(view, tile, list(index)))

    def dot(self, a: SSAValue, b: SSAValue, acc: SSAValue) -> SSAValue:
        return self._emit(aa.DotOp(a, b, acc)).results[0]

    def astype(self, x: SSAValue, dtype: str | Attribute) -> SSAValue:
        t = TensorType(dtype_of(dtype), list(x.type.get_shape()))
        return self._emit(aa.FpToFpOp(x, t)).results[0]

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self._emit(aa.AddFOp(x, y)).results[0]

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self._emit(aa.MulFOp(x, y)).results[0]

    def loop(self, count: SSAValue, carry: Sequence[SSAValue] = ()) -> Loop:
        return Loop(self, count, carry)

    # -- result
    def finish(self) -> ModuleOp:
        if self._module is None:
            self.entry.add_op(aa.ReturnOp())
            ftype = FunctionType.from_lists([a.type for a in self.entry.args], [])
            func = aa.FuncOp(self.name, ftype, Region(self.entry), self.spec)
            self._module = ModuleOp([func])
            self._module.attributes[aa.COMPUTE_CAPABILITY] = self.cc
            self._module.verify()
        return self._module

    def text(self) -> str:
        import io

        out = io.StringIO()
        Printer(stream=out).print_op(self.finish())
        return out.getvalue() + "\n"


def tile_gemm(tm: int = 128, tn: int = 256, tk: int = 64, dtype: str = "f16", out_dtype: str = "f16",
              num_worker_warps: int = 8, num_ctas: int = 2, sm: int = 90) -> TileProgram:
    """The GEMM of ``examples/tile_gemm.mlir``, C = A @ B, one ``tm x tn`` tile per program."""
    p = TileProgram("tile_gemm", num_ctas=num_ctas, num_worker_warps=num_worker_warps, sm=sm)
    A, B, C = p.array("a", dtype), p.array("b", dtype), p.array("c", out_dtype)
    bm, bn = p.bid(0), p.bid(1)
    with p.loop(p.num_tiles(A, axis=1, shape=(tm, tk)), carry=[p.zeros((tm, tn), "f32")]) as k:
        a = p.load(A, (bm, k.iv), (tm, tk))
        b = p.load(B, (k.iv, bn), (tk, tn))
        k.yield_(p.dot(a, b, k.args[0]))
    p.store(C, (bm, bn), p.astype(k.results[0], out_dtype))
    return p


if __name__ == "__main__":
    print(tile_gemm().text(), end="")
