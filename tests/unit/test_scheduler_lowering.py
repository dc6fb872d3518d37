"""The device scheduler bodies run the host formulas symbolically: evaluating the traced
computation with i32 semantics must reproduce the host library exactly (CUTLASS's schedule as
the host computes it is the independent reference), and the device record layout must match
the seed's 48-byte header."""

from __future__ import annotations

import random
import struct

import pytest

from tileorch.schedulers import persistent, static_persistent_params, streamk_params, streamk_work
from tileorch.schedulers.device_params import field_offset, pack_device_params, record_bytes, streamk_from_fields
from tileorch.schedulers.device_params import persistent_from_fields
from tileorch.schedulers.record import FIELD_OFFSETS
from tileorch.schedulers.symbolic import Sym, Tracer, retarget, trace

MOD = 1 << 32


def wrap(v: int) -> int:
    v &= MOD - 1
    return v - MOD if v >= 1 << 31 else v


class I32Eval:
    """A symbolic.Builder that computes with i32 values the way the emitted llvm ops do."""

    def const(self, value, boolean=False):
        return bool(value) if boolean else wrap(value)

    def binary(self, op, a, b):
        if op in ("div", "rem"):
            b = b or 1  # the lowering's guard against LLVM's division-by-zero UB
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return wrap(q if op == "div" else a - q * b)
        return wrap({"add": a + b, "sub": a - b, "mul": a * b, "and": a & b, "or": a | b, "xor": a ^ b,
                     "shl": a << (b & 31), "shr": a >> (b & 31)}[op])

    def compare(self, pred, a, b):
        return {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b, "ge": a >= b}[pred]

    def select(self, cond, a, b):
        return a if cond else b

    def logic(self, op, a, b):
        return (a and b) if op == "and" else (a or b)

    def negate(self, a):
        return not a


def value(x):
    return x.value if isinstance(x, Sym) else x


def fields_of(p) -> dict:
    rp = p.raster
    out = {"blocks_m": rp.blocks_m, "blocks_n": rp.blocks_n, "blocks_l": rp.blocks_l, "log_swizzle": rp.log_swizzle,
           "grid_x": p.grid[0], "grid_y": p.grid[1], "grid_z": p.grid[2],
           "k_tiles_per_output_tile": p.k_tiles_per_output_tile}
    for name in ("units_per_problem", "big_units", "big_groups", "sk_tiles", "sk_units", "k_tiles_per_sk_unit",
                 "k_tiles_per_sk_big_unit", "sk_groups", "sk_units_per_group", "clusters_mnl", "splits"):
        out[name] = getattr(p, name, 0)
    return out


GET_WORK = retarget(streamk_work.get_work)
CONTINUE_WORK = retarget(streamk_work.continue_work)
WORK_AT = retarget(persistent._work_at)


def random_streamk(rng: random.Random):
    cluster = rng.choice([(1, 1), (2, 1), (1, 2), (2, 2)])
    problem = (rng.randint(1, 6000), rng.randint(1, 6000), rng.randint(64, 16000), rng.randint(1, 3))
    p = streamk_params(problem, (128, 128, 64), cluster, rng.choice([66, 114, 132]),
                       max_swizzle=rng.choice([1, 2, 4, 8]), splits=rng.choice([1, 1, 1, 2, 3]))
    return p, cluster


@pytest.mark.parametrize("seed", range(6))
def test_traced_streamk_work_matches_host(seed):
    rng = random.Random(seed)
    p, cluster = random_streamk(rng)
    fields = fields_of(p)
    for lin in rng.sample(range(p.total_units + 3), min(6, p.total_units + 3)):
        tracer = Tracer(I32Eval())
        sp = streamk_from_fields(lambda n: tracer.input(n, lambda n=n: fields[n]), cluster,
                                 tracer.input("along_n", lambda: p.raster.along_n, True))
        work, start = trace(tracer, lambda: GET_WORK(sp, tracer.input("lin", lambda: lin)))
        host, host_start = streamk_work.get_work(p, lin)
        got = [value(getattr(work, f)) for f in ("m", "n", "l", "k_tile_start", "k_tile_count", "k_tile_remaining",
                                                  "linearized_id", "tile_idx")]
        assert got == [host.m, host.n, host.l, host.k_tile_start, host.k_tile_count, host.k_tile_remaining,
                       host.linearized_id, host.tile_idx]
        assert bool(value(work.is_separate_reduction)) == host.is_separate_reduction
        assert value(start) == host_start
        if host.is_valid:
            def piece():  # as the lowering's glue: "no next piece" is a value, not a None path
                nxt = CONTINUE_WORK(sp, host, tracer.lift(host_start))
                return (False, 0, 0) if nxt is None else (True, nxt.k_tile_start, nxt.k_tile_count)

            more, k_start, k_count = (value(v) for v in trace(tracer, piece))
            expected = streamk_work.continue_work(p, host, host_start)
            assert bool(more) == (expected is not None)
            if expected is not None:
                assert (k_start, k_count) == (expected.k_tile_start, expected.k_tile_count)


def test_traced_persistent_tile_matches_host():
    rng = random.Random(7)
    for _ in range(5):
        cluster = rng.choice([(1, 1), (2, 1), (2, 2)])
        p = static_persistent_params((rng.randint(1, 9000), rng.randint(1, 9000), 4096, rng.randint(1, 2)),
                                     (128, 256, 64), cluster, 132, max_swizzle=rng.choice([1, 2, 8]))
        fields = fields_of(p)
        for lin in rng.sample(range(p.total_cga_tiles + 2), 5):
            cic = (lin % cluster[0], 0)
            tracer = Tracer(I32Eval())
            sp = persistent_from_fields(lambda n: tracer.input(n, lambda n=n: fields[n]), cluster,
                                        tracer.input("along_n", lambda: p.raster.along_n, True))
            got = trace(tracer, lambda: WORK_AT(sp, tracer.input("lin", lambda: lin), 0, cic))
            host = persistent._work_at(p, lin, 0, cic)
            assert [value(got.m), value(got.n), value(got.l), bool(value(got.is_valid_tile))] == [
                host.m, host.n, host.l, host.is_valid_tile]


def test_device_record_starts_with_the_seed_header():
    p = streamk_params((4096, 4096, 8192, 1), (128, 128, 64), (2, 1), 132)
    data = pack_device_params(p, workspace_ptr=0x1000, reduction_bytes=4096, barrier_bytes=128)
    assert len(data) == record_bytes(True)
    # seed: num_tiles_m at +0x00, total_ctas at +0x1C, workspace_ptr (u64) at +0x20, k_split_count at +0x28
    assert struct.unpack_from("<I", data, FIELD_OFFSETS["num_tiles_m"])[0] == 32
    assert struct.unpack_from("<Q", data, field_offset("workspace_ptr", True))[0] == 0x1000
    assert field_offset("splits", True) == 0x28 and field_offset("total_ctas", True) == 0x1C
    assert struct.unpack_from("<I", data, field_offset("reduction_bytes", True))[0] == 4096
    assert struct.unpack_from("<I", data, field_offset("sk_units", True))[0] == p.sk_units
