"""A small interpreter for the straight-line ``llvm`` integer code of lowered scheduler bodies
(i32 semantics; ``Params*`` loads read a packed record; ``nvvm.read.ptx.sreg.*`` from a dict),
shared by the scheduler tests that compare lowered code with the host model."""

from __future__ import annotations

import struct

MOD = 1 << 32


def s32(v: int) -> int:
    v %= MOD
    return v - MOD if v >= 1 << 31 else v


def cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


BINARY = {"llvm.add": lambda a, b: a + b, "llvm.sub": lambda a, b: a - b, "llvm.mul": lambda a, b: a * b,
          "llvm.and": lambda a, b: a & b, "llvm.or": lambda a, b: a | b, "llvm.xor": lambda a, b: a ^ b,
          "llvm.shl": lambda a, b: a << b, "llvm.ashr": lambda a, b: a >> b,
          "llvm.sdiv": cdiv, "llvm.srem": lambda a, b: a - cdiv(a, b) * b}
ICMP = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 2: lambda a, b: a < b, 3: lambda a, b: a <= b,
        4: lambda a, b: a > b, 5: lambda a, b: a >= b}


class Interpreter:
    """Straight-line ``llvm`` integer code with i32 semantics; ``Params*`` loads read the record."""

    def __init__(self, module=None, funcs=None):
        self.funcs = dict(funcs or {})
        if module is not None:
            self.funcs.update({op.sym_name.data: op for op in module.body.block.ops
                               if op.name in ("func.func", "llvm.func")})

    def run(self, name: str, args: list, record: bytes, sregs: dict[str, int]):
        fn = self.funcs[name]
        block = fn.body.blocks[0]
        env: dict = dict(zip(block.args, args))
        for op in block.ops:
            name = op.name
            a = [env.get(v) for v in op.operands]
            res = op.results[0] if op.results else None
            if name == "llvm.mlir.constant":
                value = op.properties["value"].value.data
                env[res] = value if res.type.width.data > 1 else bool(value)
            elif name == "llvm.getelementptr":
                env[res] = a[0] + op.properties["rawConstantIndices"].get_values()[0]
            elif name == "llvm.load":
                fmt = "<q" if res.type.width.data == 64 else "<i"
                env[res] = struct.unpack_from(fmt, record, a[0])[0]
            elif name in BINARY:
                env[res] = s32(BINARY[name](*a)) if res.type.width.data > 1 else bool(BINARY[name](*a))
            elif name == "llvm.icmp":
                env[res] = ICMP[op.properties["predicate"].value.data](*a)
            elif name == "llvm.select":
                env[res] = a[1] if a[0] else a[2]
            elif name.startswith("nvvm.read.ptx.sreg."):
                env[res] = sregs[name.removeprefix("nvvm.read.ptx.sreg.")]
            elif name == "llvm.mlir.undef":
                env[res] = ()
            elif name == "llvm.insertvalue":
                pos = op.properties["position"].get_values()[0]
                agg = list(a[0]) + [None] * (pos + 1 - len(a[0]))
                agg[pos] = int(a[1])
                env[res] = tuple(agg)
            elif name == "llvm.extractvalue":
                env[res] = a[0][op.properties["position"].get_values()[0]]
            elif name == "llvm.call":
                env[res] = self.run(op.properties["callee"].root_reference.data, a, record, sregs)
            elif name in ("llvm.return", "func.return"):
                values = [env[v] for v in op.operands]
                return values[0] if name == "llvm.return" else values
            else:
                raise AssertionError(f"the interpreter does not model {name}")
        raise AssertionError("no return")
