"""Instructions per key tile of the chained-dots attention kernel's steady-state consumer loop.

Usage::

    python tools/chained_sass_counts.py [--d 64] [--causal] [--tiles 128x128] [--seq 4096] [--zoo NAME] [--env K=V,..]
        [--nvdisasm PATH] [--save DIR]

Compiles ``attention_fwd`` (tileorch.testing.attention_programs) for fake device arrays with the
ptxas the driver finds, disassembles the cubin with ``nvdisasm`` (``--nvdisasm``, else
``$NVDISASM``, else on PATH; the pip wheel ``nvidia-cuda-nvdisasm`` has one) and finds the
consumer loop: the loop (a backward branch) whose body holds both dots' ``HGMMA`` s (two
accumulators: the first dot's A from shared memory, or from registers with ``TILEORCH_ATTN_Q_REGS``).  Its shortest and longest paths from
its head to its backward branch along forward edges (the out-of-line retry blocks of the mbarrier
waits not taken: every wait passes at once) are the interior and the masked key tile; each is
reported with its instruction count and the counts of the opcodes that matter for the softmax
(MUFU, FMNMX, FSEL, SHFL, FFMA, FMUL, FADD, F2FP, MOV, ISETP, ...).  Instructions are per warp
and key tile.  In a persistent kernel the loop over program instances is walked too
(:func:`instance_path`): the instructions each instance costs besides its key tiles (the peeled
first tile, the last tile's second dot, the epilogue and the stores; with the row division, its in-range path: the
``div.rn`` fallback's second copy of the stores is left out).  The PTX of the loop is
counted by opcode as well (between the loop's label and its backward branch).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);")
LABEL = re.compile(r"^(\.L_x_\d+):")
TARGET = re.compile(r"`\((\.L_x_\d+)\)")
KEYS = ("MUFU", "FMNMX", "FSEL", "SHFL", "FFMA", "FMUL", "FADD", "F2FP", "MOV", "IMAD.MOV", "ISETP", "HGMMA", "R2UR",
        "SYNCS", "BAR")


def compile_program(d: int, causal: bool, tiles: tuple[int, int], seq: int):
    sys.path.insert(0, str(ROOT / "tests" / "unit"))
    from test_chained_dots import _arrays, _compile

    from tileorch.testing.attention_programs import attention_fwd

    tm, tn = tiles
    return _compile(attention_fwd, _arrays(4, (64, seq, d)) + (0.18, seq, tm, tn, d, causal))


def compile_zoo(name: str, tiles: tuple[int, int] | None = None):
    """A program of ``tileorch.testing.attnzoo32_programs`` (its spec's sizes; ``tiles``: its ``BM, BN`` constants,
    the spec's third- and second-last entries, replaced), compiled for sm_90a with ptxas."""
    from tileorch.driver import compile_program
    from tileorch.testing.attnzoo32_programs import PROGRAMS
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    spec = list(p.spec)
    if tiles is not None:
        spec[-3], spec[-2] = tiles
    return compile_program(cutile_bytecode(p.kernel, spec), name, arch="sm_90a")


def parse_sass(text: str) -> tuple[list[tuple[int, str, str, str]], dict[str, int]]:
    """(instructions as (address, predicate, opcode, operands), label -> index of the next instruction)."""
    insts, labels = [], {}
    for line in text.splitlines():
        m = LABEL.match(line.strip())
        if m:
            labels[m.group(1)] = len(insts)
            continue
        m = LINE.match(line)
        if m:
            insts.append((int(m.group(1), 16), (m.group(2) or "").strip(), m.group(3), m.group(4)))
    return insts, labels


def consumer_loop(insts, labels) -> tuple[int, int]:
    """(head, index of the backward branch) of the innermost loop holding both dots' HGMMAs."""
    best = None
    for i, (_, _, op, args) in enumerate(insts):
        t = TARGET.search(args)
        if not op.startswith("BRA") or not t or labels[t.group(1)] > i:
            continue
        head = labels[t.group(1)]
        body = insts[head:i + 1]
        # both dots: HGMMAs into two accumulators (the first dot's A from shared memory, or from registers
        # with TILEORCH_ATTN_Q_REGS; the second dot's A always from registers)
        accs = {a.split(",")[0].strip() for _, _, o, a in body if o.startswith("HGMMA")}
        if len(accs) >= 2 and (best is None or i - head < best[1] - best[0]):
            best = (head, i)
    if best is None:
        raise SystemExit("no loop with both dots' HGMMAs found")
    return best


def paths(insts, labels, head: int, back: int) -> list[list[int]]:
    """The shortest and the longest path of instruction indices from ``head`` to ``back`` taking
    forward edges inside ``[head, back]`` (backward branches of inner loops and branches out of
    the range are not taken; a branch's fall-through is), shortest first."""
    succ: dict[int, list[int]] = {}
    for i in range(head, back):
        _, pred, op, args = insts[i]
        t = TARGET.search(args)
        nxt = []
        if op.startswith("BRA") and t and head <= labels[t.group(1)] <= back and labels[t.group(1)] > i:
            nxt.append(labels[t.group(1)])
        if not (op.startswith(("BRA", "EXIT", "RET")) and not pred) or op == "BRA.DIV":  # (BRA.DIV: taken only
            nxt.append(i + 1)                                                     # by a diverged warp)
        elif op.startswith("BRA") and not nxt:  # an unconditional jump out of the range or backwards
            nxt = []
        succ[i] = nxt
    out = []
    for better in (min, max):
        best: dict[int, tuple[int, int | None]] = {back: (1, None)}
        for i in range(back - 1, head - 1, -1):
            opts = [(best[n][0] + 1, n) for n in succ[i] if n in best]
            if opts:
                best[i] = better(opts)
        path, i = [], head
        while i is not None:
            path.append(i)
            i = best[i][1]
        out.append(path)
    return out


def enclosing_loop(insts, labels, head: int, back: int) -> tuple[int, int] | None:
    """(head, backward branch) of the smallest loop strictly containing ``[head, back]``."""
    best = None
    for i, (_, _, op, args) in enumerate(insts):
        t = TARGET.search(args)
        if op.startswith("BRA") and t and labels[t.group(1)] <= head and i > back:
            h = labels[t.group(1)]
            if best is None or i - h < best[1] - best[0]:
                best = (h, i)
    return best


def shortest(insts, labels, start: int, goal: int, banned: set[int]) -> list[int]:
    """The shortest path of instructions from ``start`` to ``goal`` in the whole function's control
    flow (fall-through unless an unconditional branch or exit; branch targets), not entering
    ``banned``."""
    import heapq

    dist, prev, heap = {start: 1}, {start: None}, [(1, start)]
    while heap:
        d, i = heapq.heappop(heap)
        if i == goal:
            break
        if d > dist[i]:
            continue
        _, pred, op, args = insts[i]
        t = TARGET.search(args)
        nxt = [labels[t.group(1)]] if op.startswith(("BRA", "CALL")) and t else []
        if not (op.startswith(("BRA", "EXIT", "RET")) and not pred):
            nxt.append(i + 1)
        for n in nxt:
            if n < len(insts) and n not in banned and dist.get(n, 1 << 30) > d + 1:
                dist[n], prev[n] = d + 1, i
                heapq.heappush(heap, (d + 1, n))
    path, i = [], goal
    while i is not None:
        path.append(i)
        i = prev[i]
    return path[::-1]


def instance_path(insts, labels, outer: tuple[int, int], inner: tuple[int, int]) -> list[int]:
    """A persistent kernel's program instance outside its key-tile loop: the shortest path through
    the loop over instances that issues every HGMMA outside the tile loop (the peeled first tile,
    the last tile's second dot) and every store of the output tile (the 32-bit ones where there
are: the packed path of a whole tile) and passes the tile loop once (its instructions left out)."""
    head, back = outer
    inside = set(range(inner[0], inner[1] + 1))
    stores = [i for i in range(head, back) if insts[i][2].startswith("STG") and i not in inside]
    wide = [i for i in stores if insts[i][2] != "STG.E.U16"]  # the packed stores' path, where there is one
    for k in range(1, len(wide)):  # its first run: with the row division, the div.rn fallback stores the tile
        if wide[k] - wide[k - 1] > 8:  # again further on, a path the in-range instances never take
            wide = wide[:k]
            break
    marks = sorted({i for i in range(head, back) if insts[i][2].startswith("HGMMA") and i not in inside}
                   | set(wide or stores))
    before = [i for i in marks if i < inner[0]]
    after = [i for i in marks if i > inner[1]]
    stops = [head, *before, inner[0]]
    path: list[int] = []
    for a, b in zip(stops, stops[1:]):
        path += shortest(insts, labels, a, b, set())[:-1]
    stops = [inner[1] + 1, *after, back]
    for a, b in zip(stops, stops[1:]):
        path += shortest(insts, labels, a, b, inside)[:-1]
    return path + [back]


def dependency_chain(insts, path: list[int]) -> int:
    """The longest chain of register read-after-write dependences along ``path``, in instructions
    (the first register operand is the one written; WGMMAs, stores, barriers and branches are left
    out): how much of the tile is serial (a reduction chained over the row's 32 values: ~70 at
    ``tn = 128``; pairwise: ~25)."""
    reg = re.compile(r"\bR(\d+)\b")
    writer: dict[str, int] = {}
    best = 0
    for i in path:
        _, _, op, args = insts[i]
        regs = reg.findall(args)
        if not regs or op.startswith(("HGMMA", "STG", "SYNCS", "BRA", "BAR", "WARPGROUP")):
            continue
        d = 1 + max([writer.get(r, 0) for r in regs[1:]] or [0])
        writer[regs[0]] = d
        best = max(best, d)
    return best


def opcode_key(op: str) -> str:
    for k in KEYS:
        if op == k or op.startswith(k + "."):
            return k
    return op.split(".")[0]


def report_sass(sass: str) -> list[dict]:
    insts, labels = parse_sass(sass)
    head, back = consumer_loop(insts, labels)
    rows = []
    for name, p in zip(("interior tile", "masked tile"), paths(insts, labels, head, back)):
        c = Counter(opcode_key(insts[i][2]) for i in p)
        rows.append({"path": name, "instructions": len(p), "dependency chain": dependency_chain(insts, p),
                     **{k: c.get(k, 0) for k in KEYS}})
    outer = enclosing_loop(insts, labels, head, back)
    if outer is not None:  # a persistent kernel's loop over program instances: everything but the key tiles
        c = Counter(opcode_key(insts[i][2]) for i in instance_path(insts, labels, outer, (head, back)))
        rows.append({"path": "per instance, outside the tile loop", "instructions": sum(c.values()),
                     **{k: c.get(k, 0) for k in KEYS}, "STG": c.get("STG", 0), "FCHK": c.get("FCHK", 0)})
    return rows


def report_ptx(ptx: str) -> dict:
    """Opcode counts of the PTX loop holding both dots' wgmma (label to backward branch)."""
    lines = ptx.splitlines()
    labels = {ln.strip()[:-1]: i for i, ln in enumerate(lines) if re.match(r"^\$L__BB\d+_\d+:", ln.strip())}
    best = None
    for i, ln in enumerate(lines):
        m = re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", ln)
        if m and labels.get(m.group(1), i + 1) <= i:
            body = lines[labels[m.group(1)]:i + 1]
            if sum("wgmma.mma_async" in x for x in body) >= 2 and (best is None or i - labels[m.group(1)] < best[1]):
                best = (labels[m.group(1)], i - labels[m.group(1)])
    if best is None:
        return {}
    c = Counter()
    for ln in lines[best[0]:best[0] + best[1] + 1]:
        s = ln.strip()
        if s and not s.endswith(":") and not s.startswith(("//", "{", "}", ".reg")):
            c[s.split()[0].rstrip(";")] += 1
    return {"instructions": sum(c.values()), **dict(c.most_common(25))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--tiles", default="128x128")
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--zoo", default=None, help="a program of tileorch.testing.attnzoo32_programs instead")
    ap.add_argument("--zoo-tiles", default=None, help="BMxBN for --zoo (default: the program's spec)")
    ap.add_argument("--env", default="", help="K=V,K=V: compile-time switches")
    ap.add_argument("--nvdisasm", default=os.environ.get("NVDISASM") or shutil.which("nvdisasm"))
    ap.add_argument("--save", default=None, help="directory for the PTX, cubin and SASS")
    ns = ap.parse_args(argv)
    for kv in (x for x in ns.env.split(",") if x.strip()):
        k, v = kv.split("=", 1)
        os.environ[k] = v
    p = compile_zoo(ns.zoo, tuple(int(x) for x in ns.zoo_tiles.split("x")) if ns.zoo_tiles else None) if ns.zoo else \
        compile_program(ns.d, ns.causal, tuple(int(x) for x in ns.tiles.split("x")), ns.seq)
    regs = [r for r in p.remarks if "registers" in str(r)]
    print(regs[0] if regs else "(no ptxas remark)")
    if ns.save:
        out = Path(ns.save)
        out.mkdir(parents=True, exist_ok=True)
        (out / "kernel.ptx").write_text(p.ptx)
        (out / "kernel.cubin").write_bytes(p.cubin)
    print("PTX loop:", report_ptx(p.ptx))
    if not ns.nvdisasm or p.cubin is None:
        print("no nvdisasm (or no cubin): SASS not counted")
        return 0
    cubin = Path(ns.save or "/tmp") / f"chained_sass_counts_{os.getpid()}.cubin"
    cubin.write_bytes(p.cubin)
    sass = subprocess.run([ns.nvdisasm, "-c", "-g", str(cubin)], capture_output=True, text=True, check=True).stdout
    if ns.save:
        (Path(ns.save) / "kernel.sass").write_text(sass)
    else:
        cubin.unlink()
    for row in report_sass(sass):
        print("SASS", row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
