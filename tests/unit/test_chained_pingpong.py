"""The chained-dots kernel with the consumer warp groups' ping-pong (``TILEORCH_ATTN_PINGPONG=1``,
two consumer warp groups, no intra-warp-group overlap): warp group ``w`` syncs on named barrier
``1 + w`` (256 threads) before its first WGMMA of a tile and, after committing its second, arrives
on ``2 - w``; warp group 1 gives warp group 0 the first turn, warp group 0 takes warp group 1's
last hand-over after its loop.  Checked on the CPU: the record and the compile-cache key, the
barriers in the PTX and the SASS (``BAR.SYNC`` before the first ``HGMMA`` of a tile, ``BAR.ARV``
after the last of the second dot), no other named barrier ids; ``tileorch check`` proves the
barriers deadlock-free and balanced for every trip count, and catches a missing first turn
(deadlock) and a missing final sync (a kernel exit with a barrier half arrived).  Needs
cuda-tile."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")


def _args(d=64, tile_m=128, tile_n=128, causal=False):
    from test_chained_dots import _arrays

    from tileorch.testing.attention_programs import attention_fwd

    return attention_fwd, _arrays(4, (4, 1000, d)) + (0.18, 1000, tile_m, tile_n, d, causal)


def _lowered(monkeypatch, overlap=False, persistent=False, **kw):
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context

    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1")
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1" if overlap else "0")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1" if persistent else "0")
    kernel, args = _args(**kw)
    ctx = make_context()
    module = load(rc.export_bytecode(kernel, rc.describe_arguments(kernel, args)), "<attn>", ctx)
    kind, lowered = lower_program(module, ctx)
    assert kind == "chained"
    return lowered


@pytest.fixture(scope="module")
def program():
    from test_chained_dots import _compile

    mp = pytest.MonkeyPatch()
    try:
        mp.setenv("TILEORCH_ATTN_PINGPONG", "1")
        mp.setenv("TILEORCH_ATTN_OVERLAP", "0")
        yield _compile(*_args())
    finally:
        mp.undo()


def test_record_and_cache_key(program, monkeypatch):
    from tileorch import cache

    assert program.kind == "chained" and program.chained["pingpong"] and not program.chained["pipelined"]
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1")
    on = cache.compile_environment()
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "0")
    assert cache.compile_environment() != on


def test_off_by_default_and_only_for_two_consumer_groups(monkeypatch):
    from test_chained_dots import _compile

    monkeypatch.delenv("TILEORCH_ATTN_PINGPONG", raising=False)
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "0")
    p = _compile(*_args())
    assert not p.chained["pingpong"] and "bar.arrive" not in p.ptx
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "1")
    p = _compile(*_args(tile_m=64, tile_n=64))  # one consumer warp group: nothing to ping-pong with
    assert not p.chained["pingpong"] and "bar.arrive" not in p.ptx


def _consumer_lines(ptx: str) -> list[str]:
    body = ptx.split("setmaxnreg.inc", 1)[1]
    return [x.split("//")[0].strip() for x in body.splitlines() if x.split("//")[0].strip()]


def test_ptx_barriers(program):
    """One ``bar.arrive 1, 256`` before the loop (warp group 1's first hand-over), in the loop a
    ``bar.sync %id, 256`` before the first WGMMA and a ``bar.arrive %id, 256`` right after the second
    dot's commit, one ``bar.sync 1, 256`` after the loop; no named barrier but 0, 1 and 2."""
    lines = _consumer_lines(program.ptx)
    bars = [(i, x) for i, x in enumerate(lines) if re.match(r"bar\.(sync|arrive)", x)]
    kinds = [re.sub(r"%r\d+", "%r", x) for _, x in bars]
    # the loop's two barriers in either textual order: LLVM lays out the loop's blocks as it likes (the plain
    # loop's versioned key tiles, TILEORCH_ATTN_PLAIN_MASKS, put the arrive's block first); each one's place
    # in its own block is checked below
    assert kinds[0] == "bar.arrive \t1, 256;" and kinds[-1] == "bar.sync \t1, 256;", kinds
    assert sorted(kinds[1:-1]) == ["bar.arrive \t%r, 256;", "bar.sync \t%r, 256;"], kinds
    ids = {int(m) for m in re.findall(r"bar\.(?:sync|arrive)\s+(\d+)", program.ptx)}
    assert ids <= {0, 1, 2}
    i_sync = next(i for i, x in bars[1:-1] if x.startswith("bar.sync"))
    i_arr = next(i for i, x in bars[1:-1] if x.startswith("bar.arrive"))
    first_mma = next(i for i in range(i_sync, len(lines)) if lines[i].startswith("wgmma.mma_async"))
    assert not [x for x in lines[i_sync:first_mma] if x.startswith("wgmma.mma_async")]
    assert [x for x in lines[i_sync:first_mma] if x.startswith("wgmma.fence")]  # the sync precedes the fence
    assert lines[i_arr - 1].startswith("wgmma.commit_group"), lines[i_arr - 2:i_arr + 1]  # right after the 2nd dot's commit
    assert lines[i_arr + 1].startswith("wgmma.wait_group")


def test_sass_barriers(program, tmp_path):
    """In the SASS: ``BAR.ARV 0x1, 0x100`` (predicated: warp group 1 only), then per tile
    ``BAR.SYNC R, 0x100`` before the tile's first HGMMA and ``BAR.ARV R, 0x100`` after its last,
    before the ``WARPGROUP.DEPBAR``; ``BAR.SYNC 0x1, 0x100`` after the loop (warp group 0 only)."""
    cuobjdump = shutil.which("cuobjdump")
    if cuobjdump is None:
        pytest.skip("cuobjdump not on PATH")
    path = tmp_path / "k.cubin"
    path.write_bytes(program.cubin)
    sass = subprocess.run([cuobjdump, "-sass", str(path)], capture_output=True, text=True, timeout=120).stdout
    ins = [re.sub(r"\s+", " ", m.group(1)).strip() for m in re.finditer(r"/\*[0-9a-f]{4}\*/\s+([^;]*);", sass)]
    key = [x for x in ins if "BAR." in x or "HGMMA" in x]
    text = "\n".join(key)
    assert re.search(r"@!?P\d BAR\.ARV 0x1, 0x100", text)
    i_sync = next(i for i, x in enumerate(key) if re.fullmatch(r"BAR\.SYNC(\.DEFER_BLOCKING)? R\d+, 0x100", x))
    assert "HGMMA" in key[i_sync + 1]
    i_arv = next(i for i, x in enumerate(key) if re.fullmatch(r"BAR\.ARV R\d+, 0x100", x))
    assert "HGMMA" in key[i_arv - 1] and "gsb0" in key[i_arv - 1]
    assert re.search(r"@!?P\d BAR\.SYNC(\.DEFER_BLOCKING)? 0x1, 0x100", text)


@pytest.mark.parametrize("overlap", [False, True], ids=["plain", "overlap"])
def test_check_proves_the_pingpong(monkeypatch, overlap):
    """The turns of the plain loop (a whole iteration) and of the overlapped one (the issue of an
    iteration's two dots, tiles 1 .. n-1: the peeled tile 0 and the last tile's second dot take no
    turn)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.analysis.protocol import BarArrive, BarSync, Loop

    (proto,) = extract(_lowered(monkeypatch, overlap))
    wg0, wg1 = proto.agents[1:]

    def bars(ops):
        for op in ops:
            if isinstance(op, Loop):
                yield ("loop", tuple(bars(op.body)))
            elif isinstance(op, (BarSync, BarArrive)):
                yield (type(op).__name__, op.barrier, op.count)

    turn0, turn1 = (("BarSync", 1, 256), ("BarArrive", 2, 256)), (("BarSync", 2, 256), ("BarArrive", 1, 256))
    if overlap:  # peeled tile 0, the loop from 1, the last tile's second dot
        assert list(bars(wg0.program)) == [("loop", ()), ("loop", turn0), ("loop", (("BarSync", 1, 256),)),
                                           ("loop", ())]
        assert list(bars(wg1.program)) == [("loop", (("BarArrive", 1, 256),)), ("loop", ()), ("loop", turn1),
                                           ("loop", ())]
        assert wg1.program[0].trip.lower == 1  # the first turn is given only when the loop runs
    else:
        assert list(bars(wg0.program)) == [("loop", turn0), ("loop", (("BarSync", 1, 256),))]
        assert list(bars(wg1.program)) == [("loop", (("BarArrive", 1, 256),)), ("loop", turn1)]
    result = check(proto)
    assert result.ok, result.violation


def _drop(module, name: str, barrier: int, where: str):
    """Erase the ``scf.if`` around the named barrier ``name`` on constant id ``barrier`` outside the
    consumer loop (``where``: before / after it)."""
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    loop = next(o for o in fn.walk() if o.name == "scf.for" and any(x.name == "nvvm.mbarrier.arrive"
                                                                   for x in o.walk()))
    for op in fn.walk():
        if op.name == name and len(op.operands) == 2 and op.operands[0].owner.name == "arith.constant" \
                and op.operands[0].owner.value.value.data == barrier:
            guard = op.parent_op()
            if (guard.is_before_in_block(loop)) == (where == "before"):
                guard.detach()
                guard.erase()
                return
    raise AssertionError("barrier not found")


@pytest.mark.parametrize("overlap", [False, True], ids=["plain", "overlap"])
def test_missing_first_turn_deadlocks(monkeypatch, overlap):
    """Warp group 1 never hands warp group 0 its first turn: both wait forever."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    module = _lowered(monkeypatch, overlap)
    _drop(module, "nvvm.barrier.arrive", 1, "before")
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and result.violation.prop == "deadlock", result.violation


@pytest.mark.parametrize("overlap", [False, True], ids=["plain", "overlap"])
def test_missing_final_sync_leaves_a_barrier_half_arrived(monkeypatch, overlap):
    """Warp group 0 not taking warp group 1's last hand-over: the kernel exits with 128 threads
    arrived on barrier 1 (the next CTA on the SM would start with them)."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    module = _lowered(monkeypatch, overlap)
    _drop(module, "nvvm.barrier", 1, "after")
    (proto,) = extract(module)
    result = check(proto)
    assert not result.ok and "named barrier" in str(result.violation), result.violation


def test_pingpong_keeps_one_instance_per_cta(monkeypatch):
    """Ping-pong and persistence do not combine: the turns are balanced per program instance, and
    over a loop of instances warp group 1's first-turn arrive for the next instance could meet its
    last hand-over of this one on barrier 1 before warp group 0's sync (two arrivals of one group
    complete the 256-thread barrier).  tileorch check found that deadlock (k = 2 tiles, 2 instances);
    asked for both, the kernel ping-pongs on one CTA per instance, and is proved."""
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract

    module = _lowered(monkeypatch, True, persistent=True)
    (fn,) = [o for o in module.body.block.ops if o.name == "func.func"]
    assert "persistent" not in str(fn.attributes["tileorch.chained_config"])
    (proto,) = extract(module)
    assert [p.name for p in proto.pipelines] == ["kv"]
    result = check(proto)
    assert result.ok, result.violation
