"""What the chained attention kernel's per-launch cost K0 is made of: a timeline of each CTA and warp group.

A profiling harness beside ``session36_phases.py`` (same method: in this process the chained kernel's PTX is
rewritten just before ptxas, compile cache off, nothing instrumented is kept).  Thread 0 of each warp group
(``tid % 128 == 0``) records ``%globaltimer`` (ns, one clock for every SM) and ``%clock64`` (this SM's cycles) at
these events (slots) into its warp group's record in shared memory (``__k0_sh``), copied at the exit into a
module-scope array (``__k0_ev``, read back with ``cuModuleGetGlobal``):

 0 entry (the body's first instruction)          7 consumer: first K/V wait done
 1 after the prologue's ``bar.sync``             8 consumer: first dot retired (first ``wgmma.wait_group``)
 2 after ``setmaxnreg`` (dec or inc)             9 consumer: first O store issued
 3 producer: first Q TMA issued                 10 consumer: last Q wait done (its last instance's start)
 4 producer: first K TMA issued                 11 consumer: last O store done (its last instance's end)
 5 producer: last TMA issued (off by default)   12 exit (before ``ret``)
 6 consumer: first Q wait done                  13 ``%smid`` (a value, not a time)

"First" events are recorded while their slot is still 0, "last" ones overwrite; the producer's (3, 4) record the
timer only (its 24 registers).  No register lives across events and no global memory is touched before the exit
(the consumer runs at ptxas's register cap: one more live register spills; sm_90a ptxas 13: 0 spills with these
events, 12 B with slot 5, whence its default ``skip``).  At the exit each recording thread counts its launches with
``atom.global.add`` on its own counter, so the last four launches of a back-to-back series are kept (ring of 4):
the gap between one launch's last exit and the next one's first entry is measured too.  A Q wait is the first
``mbarrier.try_wait`` after ``setmaxnreg.inc`` in the text (the work loop's head), the first K/V wait and the first
dot retired the next ones in the text (the peeled first key tile; none in the key-tile loop); Q / K tensor maps
are the entry's parameters 0 / 1.

    python3 benchmarks/session37_k0.py [--d 64] [--seq 1024] [--bh 132,256] [--launches 8] [--reps 3]
    python3 benchmarks/session37_k0.py --emulate   # CPU: the instrumented kernel on the PTX emulator
    python3 benchmarks/session37_k0.py --prologue [--instrumented]   # CPU: the prologue's SASS (nvdisasm)

Prints ``[k0]`` lines: per case the event-timed launch (plain and instrumented), the in-kernel span (max exit -
min entry), the gap to the next launch, then per event the median / min / max over CTAs relative to the launch's
first entry (us), and the spread of entries (launch skew) and exits (tail).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import statistics
import sys
import warnings

EV, SEQ, SH = "__k0_ev", "__k0_seq", "__k0_sh"
NS = 14  # slots per warp group
NWG = 4  # warp groups per CTA (room)
MAXCTA = 1024
RING = 4
SLOTS = ["entry", "after prologue bar.sync", "after setmaxnreg", "P: first Q TMA issued", "P: first K TMA issued",
         "P: last TMA issued", "C: first Q wait done", "C: first K/V wait done", "C: first dot retired",
         "C: first O store issued", "C: last Q wait done", "C: last O store done", "exit", "smid"]
FIRST = (1, 2, 3, 4, 6, 7, 8, 9)  # recorded once per launch (while the slot is still 0)
LEAN = (3, 4, 5)  # the producer's events: no %clock64


WGB = 16 + 16 * NS  # shared bytes per warp group: 16 spare, then (globaltimer, clock64) per slot


def _wg_base() -> str:
    """PTX: ``%k0w`` = the recording thread (``tid % 128 == 0``), ``%k0x`` = its warp group's shared record."""
    return ("\tmov.u32 %k0x, %tid.x;\n\tand.b32 %k0y, %k0x, 127;\n\tsetp.eq.u32 %k0w, %k0y, 0;\n"
            f"\t@%k0w shr.u32 %k0x, %k0x, 7;\n\t@%k0w mul.lo.u32 %k0x, %k0x, {WGB};\n"
            f"\t@%k0w mov.u32 %k0y, {SH};\n\t@%k0w add.u32 %k0x, %k0x, %k0y;\n")


def _event(slot: int) -> str:
    """PTX recording the event ``slot`` into the warp group's shared record (``FIRST`` slots only while still 0,
    others every time).  Few registers and none live across events: the consumer runs at ptxas's register cap
    and the producer at ``setmaxnreg.dec``'s 24; the record goes to global memory at the exit (:data:`_EXIT`)."""
    off = 16 + 16 * slot
    if slot in LEAN:  # the producer's (24 registers): %globaltimer only, the first test on its low word
        first = (f"\t@%k0w ld.shared.u32 %k0y, [%k0x+{off}];\n\t@%k0w setp.eq.u32 %k0w, %k0y, 0;\n"
                 if slot in FIRST else "")
        return ("\t{ .reg .b64 %k0t; .reg .b32 %k0x, %k0y; .reg .pred %k0w;\n"
                "\tmov.u32 %k0x, %tid.x;\n\tand.b32 %k0y, %k0x, 127;\n\tsetp.eq.u32 %k0w, %k0y, 0;\n"
                "\t@%k0w mov.u64 %k0t, %globaltimer;\n"
                f"\t@%k0w shr.u32 %k0x, %k0x, 7;\n\t@%k0w mul.lo.u32 %k0x, %k0x, {WGB};\n"
                f"\t@%k0w mov.u32 %k0y, {SH};\n\t@%k0w add.u32 %k0x, %k0x, %k0y;\n" + first +
                f"\t@%k0w st.shared.u64 [%k0x+{off}], %k0t;\n\t}}")
    first = (f"\t@%k0w ld.shared.u64 %k0c, [%k0x+{off}];\n\t@%k0w setp.eq.u64 %k0w, %k0c, 0;\n"
             if slot in FIRST else "")
    what = ("\t@%k0w mov.u32 %k0y, %smid;\n\t@%k0w cvt.u64.u32 %k0t, %k0y;\n" if slot == 13
            else "\t@%k0w mov.u64 %k0t, %globaltimer;\n")
    return ("\t{ .reg .b64 %k0t, %k0c; .reg .b32 %k0x, %k0y; .reg .pred %k0w;\n"
            "\tmov.u32 %k0x, %tid.x;\n\tand.b32 %k0y, %k0x, 127;\n\tsetp.eq.u32 %k0w, %k0y, 0;\n"
            + what +
            f"\t@%k0w shr.u32 %k0x, %k0x, 7;\n\t@%k0w mul.lo.u32 %k0x, %k0x, {WGB};\n"
            f"\t@%k0w mov.u32 %k0y, {SH};\n\t@%k0w add.u32 %k0x, %k0x, %k0y;\n" + first +
            "\t@%k0w mov.u64 %k0c, %clock64;\n"
            f"\t@%k0w st.shared.v2.u64 [%k0x+{off}], {{%k0t, %k0c}};\n\t}}")


_ENTRY = ("\t{ .reg .b32 %k0x, %k0y; .reg .b64 %k0z; .reg .pred %k0w;\n" + _wg_base() +
          "\tmov.u64 %k0z, 0;\n"
          + "".join(f"\t@%k0w st.shared.v2.u64 [%k0x+{16 + 16 * k}], {{%k0z, %k0z}};\n" for k in range(NS))
          + "\t}")
"""The recording thread zeroes its warp group's shared record (then the entry event)."""

_EXIT = ("\t{ .reg .b32 %k0x, %k0y, %k0f, %k0g; .reg .b64 %k0a, %k0b, %k0t, %k0c; .reg .pred %k0w;\n" + _wg_base() +
         "\t@%k0w mov.u32 %k0y, %tid.x;\n\t@%k0w shr.u32 %k0y, %k0y, 7;\n\t@%k0w mov.u32 %k0g, %ctaid.x;\n"
         f"\t@%k0w mad.lo.u32 %k0f, %k0g, {NWG}, %k0y;\n\t@%k0w mul.wide.u32 %k0a, %k0f, 4;\n"
         f"\t@%k0w mov.u64 %k0b, {SEQ};\n\t@%k0w add.s64 %k0a, %k0a, %k0b;\n"
         "\t@%k0w atom.global.add.u32 %k0f, [%k0a], 1;\n"
         f"\t@%k0w and.b32 %k0f, %k0f, {RING - 1};\n"
         f"\t@%k0w mad.lo.u32 %k0f, %k0f, {MAXCTA}, %k0g;\n"
         f"\t@%k0w mad.lo.u32 %k0f, %k0f, {NWG}, %k0y;\n\t@%k0w mul.wide.u32 %k0a, %k0f, {16 * NS};\n"
         f"\t@%k0w mov.u64 %k0b, {EV};\n\t@%k0w add.s64 %k0a, %k0a, %k0b;\n"
         + "".join(f"\t@%k0w ld.shared.v2.u64 {{%k0t, %k0c}}, [%k0x+{16 + 16 * k}];\n"
                   f"\t@%k0w st.global.v2.u64 [%k0a+{16 * k}], {{%k0t, %k0c}};\n" for k in range(NS))
         + "\t}")
"""At the exit: the launch's ring slot (the recording thread's count of its launches, ``atom.global.add``: after
every event, so no global round trip in the timeline), then the shared record copied to ``__k0_ev``."""


def _tmap_params(lines: list[str], start: int, end: int) -> dict[str, int]:
    """register -> entry parameter index, for the tensor-map pointers (``mov.b64 %r, X_param_N`` and its cvta)."""
    out = {}
    for i in range(start, end):
        m = re.match(r"\s*mov\.b64\s+(%rd\d+),\s*\w+_param_(\d+);", lines[i])
        if m:
            out[m.group(1)] = int(m.group(2))
        m = re.match(r"\s*cvta\.param\.u64\s+(%rd\d+),\s*(%rd\d+);", lines[i])
        if m and m.group(2) in out:
            out[m.group(1)] = out[m.group(2)]
    return out


DEFAULT_SKIP = frozenset({5})  # the producer's last TMA issue: at every TMA, it makes ptxas spill (12 B, sm_90a)


def instrument(ptx: str, skip: frozenset = DEFAULT_SKIP) -> tuple[str, int]:
    """``ptx`` with the events of the module docstring in its ``chained_dots`` entry, and the number of event
    sites placed (0 and ``ptx`` unchanged where there is no such entry); no event of a slot in ``skip``."""
    lines = ptx.split("\n")
    start = next((i for i, s in enumerate(lines) if re.match(r"\s*(?:\.visible\s+)?\.entry\s+chained_dots", s)), None)
    if start is None:
        return ptx, 0
    body = start
    while lines[body].strip() != "{":
        body += 1
    depth, close = 0, body
    while True:
        depth += lines[close].count("{") - lines[close].count("}")
        if depth == 0:
            break
        close += 1
    tmaps = _tmap_params(lines, body, close)
    before: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    after.setdefault(body, []).append(_ENTRY + "\n" + _event(0) + "\n" + _event(13))
    bar_done = False
    inc = None
    q_wait = None
    kv_site = dot_site = False
    last_store = -10
    for i in range(body + 1, close):
        s = lines[i].strip()
        if s.startswith("bar.sync") and not bar_done:
            after.setdefault(i, []).append(_event(1))
            bar_done = True
        elif s.startswith("setmaxnreg.dec"):
            after.setdefault(i, []).append(_event(2))
        elif s.startswith("setmaxnreg.inc"):
            after.setdefault(i, []).append(_event(2))
            inc = i
        elif s.startswith("cp.async.bulk.tensor") and "mbarrier::complete_tx" in s.split()[0]:  # a load
            m = re.search(r"\[(%rd\d+),\s*\{", s)
            param = tmaps.get(m.group(1)) if m else None
            ev = [_event(5)]
            if param == 0:
                ev.insert(0, _event(3))
            elif param == 1:
                ev.insert(0, _event(4))
            after.setdefault(i, []).extend(ev)  # after: its operands are dead (the producer has 24 registers)
        elif s.startswith("mbarrier.try_wait") and inc is not None:
            for j in range(i + 1, min(i + 4, close)):  # the retry branch back to the loop's label
                if re.match(r"@%p\d+ bra", lines[j].strip()):
                    if q_wait is None:
                        q_wait = j
                        after.setdefault(j, []).extend([_event(6), _event(10)])
                    elif not kv_site:  # the first K/V wait in the text: the peeled first key tile's
                        kv_site = True
                        after.setdefault(j, []).append(_event(7))
                    break
        elif s.startswith("wgmma.wait_group") and inc is not None and not dot_site:
            dot_site = True  # the first in the text: the peeled first tile's S (none in the key-tile loop: spills)
            after.setdefault(i, []).append(_event(8))
        elif s.startswith("st.global") and inc is not None:
            if i - last_store > 6:
                before.setdefault(i, []).append(_event(9))
            nxt = next((j for j in range(i + 1, min(i + 7, close)) if lines[j].strip().startswith("st.global")), None)
            if nxt is None:
                after.setdefault(i, []).append(_event(11))
            last_store = i
        elif s == "ret;" or s.startswith("exit;"):
            before.setdefault(i, []).extend([_event(12), _EXIT])
    for table in (before, after):
        for i, codes in table.items():
            table[i] = [c for c in codes if not (m := re.search(r"st\.shared(?:\.v2)?\.u64 \[%k0x\+(\d+)\], \{?%k0t", c))
                        or (int(m.group(1)) - 16) // 16 not in skip]
    out = []
    sites = 0
    for i, line in enumerate(lines):
        if i == start:
            out.append(f".global .align 16 .b8 {EV}[{16 * NS * NWG * MAXCTA * RING}];")
            out.append(f".global .align 8 .b8 {SEQ}[{4 * NWG * MAXCTA}];")
            out.append(f".shared .align 16 .b8 {SH}[{WGB * NWG}];")
        out.extend(before.get(i, []))
        out.append(line)
        out.extend(after.get(i, []))
        sites += len(before.get(i, [])) + len(after.get(i, []))
    return "\n".join(out), sites


def analyse(gt, ck, ctas: int, wgs: int) -> list[dict]:
    """Per recorded launch (ring slots in launch order): ``{"slot": r, "ev": {(wg, slot): [ns rel. to the launch's
    first entry per CTA]}, "entry": [...], "exit": [...], "span": ns, "start": ns, "end": ns, "cyc": {...}}``.
    ``gt`` / ``ck``: numpy arrays of shape (RING, MAXCTA, NWG, NS)."""
    out = []
    for r in range(RING):
        g = gt[r, :ctas, :wgs, :].astype("int64")
        if not (g[:, :, 0] > 0).all():
            continue
        start = int(g[:, :, 0].min())
        end = int(g[:, :, 12].max())
        ev = {}
        for w in range(wgs):
            for s in range(13):
                col = g[:, w, s]
                if (col > 0).all():
                    ev[(w, s)] = [int(x) - start for x in col]
        cyc = {}  # per-CTA cycles relative to the warp group's entry
        for w in range(wgs):
            for s in range(13):
                col = ck[r, :ctas, w, s].astype("int64")
                if (g[:, w, s] > 0).all() and (col > 0).all():
                    cyc[(w, s)] = [int(a) - int(b) for a, b in zip(col, ck[r, :ctas, w, 0].astype("int64"))]
        out.append({"slot": r, "start": start, "end": end, "span": end - start, "ev": ev, "cyc": cyc,
                    "entry": [int(x) - start for x in g[:, :, 0].min(1)],
                    "exit": [int(x) - start for x in g[:, :, 12].max(1)],
                    "smid": [int(x) for x in gt[r, :ctas, 0, 13]]})
    out.sort(key=lambda x: x["start"])
    return out


def _stat(xs) -> str:
    return f"med {statistics.median(xs) / 1000:7.2f} min {min(xs) / 1000:7.2f} max {max(xs) / 1000:7.2f}"


def report(tag: str, launches: list[dict], wgs: int, instances: int | None = None) -> None:
    """``[k0]`` lines of one case: the gaps between recorded launches, then the last recorded launch's events."""
    for a, b in zip(launches, launches[1:]):
        print(f"[k0] {tag} gap: last exit -> next launch's first entry {(b['start'] - a['end']) / 1000:.2f} us "
              f"(launch period {(b['start'] - a['start']) / 1000:.2f} us, span {a['span'] / 1000:.2f} us)")
    last = launches[-1]
    print(f"[k0] {tag} span (max exit - min entry) {last['span'] / 1000:.2f} us; CTA entry skew {_stat(last['entry'])}"
          f"; CTA exit {_stat(last['exit'])} (tail max-min {(max(last['exit']) - min(last['exit'])) / 1000:.2f} us)")
    # the producer: no Q wait (TILEORCH_ATTN_EARLY_TMA: consumer wg0's thread 0 issues the first Q / K TMAs, its 3 / 4)
    role = {w: ("producer" if (w, 6) not in last["ev"] else "consumer") for w in range(wgs)}
    for w in range(wgs):
        for s in range(13):
            if (w, s) not in last["ev"]:
                continue
            xs = last["ev"][(w, s)]
            own = [a - b for a, b in zip(xs, last["ev"][(w, 0)])]
            c = last["cyc"].get((w, s))
            cyc = f" | cycles med {statistics.median(c):8.0f}" if c else ""
            print(f"[k0] {tag} wg{w} ({role[w]}) {s:2d} {SLOTS[s]:26s} us from launch start: {_stat(xs)} | "
                  f"from own entry: med {statistics.median(own) / 1000:7.2f}{cyc}")
    cons = [w for w in range(wgs) if role[w] == "consumer"]
    if cons and all((w, s) in last["ev"] for w in cons for s in (8, 11)):
        dot = [min(last["ev"][(w, 8)][i] for w in cons) for i in range(len(last["entry"]))]
        done = [max(last["ev"][(w, 11)][i] for w in cons) for i in range(len(last["entry"]))]
        print(f"[k0] {tag} decomposition: launch start -> a CTA's first dot retired {_stat(dot)}; "
              f"its last O store done -> launch end (max exit) {_stat([last['span'] - x for x in done])}")
        ctas = len(last["entry"])
        if instances:  # instance w runs on CTA w mod ctas: per CTA, its mean instance time first Q wait -> last store
            n = [len(range(c, instances, ctas)) for c in range(ctas)]
            q0 = [min(last["ev"][(w, 6)][i] for w in cons) for i in range(ctas)] if all(
                (w, 6) in last["ev"] for w in cons) else None
            if q0:
                per = [(done[i] - q0[i]) / n[i] for i in range(ctas) if n[i]]
                slow = sorted(range(ctas), key=lambda i: -last["exit"][i])[:4]
                print(f"[k0] {tag} per CTA: mean instance (first Q wait -> last O store) / its {min(n)}-{max(n)} "
                      f"instances: {_stat(per)}; slowest exits: "
                      + ", ".join(f"cta {i} sm {last['smid'][i]} n {n[i]} exit {last['exit'][i] / 1000:.2f}"
                                  for i in slow))
    gts = sorted({x for xs in last["ev"].values() for x in xs})
    steps = [b - a for a, b in zip(gts, gts[1:]) if b > a]
    if steps:
        print(f"[k0] {tag} globaltimer: smallest nonzero step between recorded values {min(steps)} ns")


def emulate(ns) -> int:
    """The instrumented persistent kernel on the PTX emulator (seq 300, d64, 128x128 tiles, 3 instances on 2
    CTAs): output bit-identical to the plain kernel's and every event recorded; prints ``[k0-emu]`` lines."""
    import numpy as np

    os.environ["TILEORCH_ATTN_PERSISTENT"] = "1"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "tests", "unit"))
    from test_chained_dots import _arrays, _compile

    from tileorch.testing.attention_programs import attention_fwd
    from tileorch.testing.ptx_emulator import DATA_BASE, Emu, chained_launch, stage_guards

    seq, d, tm, tn = 300, 64, 128, 128
    p = _compile(attention_fwd, _arrays(4, (1, seq, d)) + (0.18, seq, tm, tn, d, False))
    iptx, sites = instrument(p.ptx)
    print(f"[k0-emu] {sites} event sites placed")
    results = {}
    for name, ptx in (("plain", p.ptx), ("instrumented", iptx)):
        rng = np.random.default_rng(0)
        q, k, v = (rng.standard_normal((1, seq, d)).astype(np.float16) for _ in range(3))
        out = np.full((1, seq, d), np.nan, dtype=np.float16)
        bases = {"q": 1 << 32, "k": 2 << 32, "v": 3 << 32, "o": 4 << 32}
        params = [0, 0, 0]
        for a in "qkvo":
            params += [bases[a], 1, seq, d, seq * d, d, 1]
        params += [int(np.float32(1 / math.sqrt(d) / math.log(2)).view(np.uint32)), seq]
        params, ctaids, nctaid = chained_launch(p.chained, (-(-seq // tm), 1, 1), params, 2)
        recs = []
        for ctaid in ctaids:
            emu = Emu(ptx, params, p.chained["smem"], p.chained["threads"], ctaid, {},
                      [(bases["o"], out.view(np.uint8).reshape(-1), "O")], guards=stage_guards(p.chained),
                      nctaid=nctaid)
            emu.tmaps = {emu.params[i]: {"array": a, **t} for i, a, t in zip(range(3), (q, k, v), p.chained["tmaps"])}
            emu.run()
            assert not emu.errors, emu.errors[:4]
            if name == "instrumented":
                data = next(m for b, m, n in emu.memory if b == DATA_BASE)
                ev = data[emu.global_symbols[EV] - DATA_BASE:][:16 * NS * NWG * MAXCTA * RING].view(np.uint64)
                recs.append((ctaid, ev.reshape(RING, MAXCTA, NWG, NS, 2)[..., 0]))
        results[name] = out.copy()
    same = np.array_equal(results["plain"].view(np.uint16), results["instrumented"].view(np.uint16))
    print(f"[k0-emu] output bit-identical to the plain kernel: {same}; NaN left: {np.isnan(results['plain']).any()}")
    ok = same
    for ctaid, gt in recs:
        c = ctaid[0]
        got = {w: [s for s in range(13) if gt[0, c, w, s] > 0] for w in range(3)}
        print(f"[k0-emu] CTA {c}: events recorded per warp group {got}")
        want_p = [s for s in (0, 1, 2, 3, 4, 5, 12) if s not in DEFAULT_SKIP]
        want_c = [0, 1, 2, 6, 7, 8, 9, 10, 11, 12]
        if p.chained.get("early_tma"):  # thread 0 (wg0) issues the first instance's TMAs; the producer the later ones
            ok &= got[0] == sorted(want_c + [3, 4]) and got[1] == want_c
            ok &= set(got[2]) >= {0, 1, 2, 12} and set(got[2]) <= set(want_p)
        else:
            ok &= got[2] == want_p and all(got[w] == want_c for w in (0, 1))
        ok &= int(gt[0, c, 0, 13]) == c  # %smid: the emulator's CTA index
        order = [gt[0, c, 0, s] for s in (0, 1, 2, 6, 7, 8, 9, 11, 12)]
        ok &= order == sorted(order)
    print(f"[k0-emu] {'OK' if ok else 'FAILED'}")
    return 0 if ok else 1


def prologue(ns) -> int:
    """The kernel's prologue in SASS (CPU: ptxas and ``nvdisasm``, ``$NVDISASM`` or on PATH): instructions by
    opcode from the entry to the prologue's ``BAR.SYNC`` (thread 0's mbarrier inits, fence, tensor-map prefetches
    among them), the producer's from there to its first ``UTMALDG`` and the consumers' from their branch target to
    their first ``SYNCS.PHASECHK`` (the Q wait), in text order (branches not taken on instance 0 included);
    ``--instrumented``: of the instrumented kernel.  Prints ``[k0-sass]`` lines."""
    import shutil
    import subprocess
    import tempfile
    from collections import Counter

    os.environ["TILEORCH_ATTN_PERSISTENT"] = "1"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path[:0] = [os.path.join(root, "tests", "unit"), os.path.join(root, "tools")]
    from chained_sass_counts import parse_sass
    from test_chained_dots import _arrays, _compile

    import tileorch.backend.compile as bc
    import tileorch.backend.ptxas as bp
    from tileorch.testing.attention_programs import attention_fwd

    tool = os.environ.get("NVDISASM") or shutil.which("nvdisasm")
    if not tool:
        print("[k0-sass] no nvdisasm ($NVDISASM or PATH)")
        return 1
    if ns.instrumented:
        real = bp.run_ptxas
        bp.run_ptxas = bc.run_ptxas = lambda ptx, arch, *a, **k: real(instrument(ptx)[0], arch, *a, **k)
    tm, tn = (int(x) for x in ns.tiles.split("x"))
    bh = int(ns.bh.split(",")[-1])
    p = _compile(attention_fwd, _arrays(4, (bh, ns.seq, ns.d)) + (0.18, ns.seq, tm, tn, ns.d, False))
    print(f"[k0-sass] {[r for r in p.remarks if 'ptxas' in r]}")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.cubin")
        open(path, "wb").write(p.cubin)
        insts, labels = parse_sass(subprocess.run([tool, "-c", path], capture_output=True, text=True,
                                                  check=True).stdout)
    ops = [o for _, _, o, _ in insts]
    bar = next(i for i, o in enumerate(ops) if o.startswith("BAR.SYNC"))
    tma = next(i for i, o in enumerate(ops) if o.startswith("UTMALDG"))
    br = next(i for i in range(bar, len(ops)) if ops[i].startswith("BRA") and insts[i][1])
    cons = labels[re.search(r"\((\.L_x_\d+)\)", insts[br][3]).group(1)]
    alloc = next(i for i in range(cons, len(ops)) if ops[i].startswith("USETMAXREG"))
    wait = next(i for i in range(alloc, len(ops)) if ops[i].startswith("SYNCS.PHASECHK"))
    for name, a, b in (("entry -> prologue BAR.SYNC", 0, bar + 1), ("producer: BAR.SYNC -> first UTMALDG", bar + 1, tma + 1),
                       ("consumer: its branch target -> first SYNCS.PHASECHK (Q wait)", cons, wait + 1)):
        c = Counter(o.split(".")[0] for o in ops[a:b])
        print(f"[k0-sass] {name}: {b - a} instructions: " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--bh", default="132,256")
    ap.add_argument("--tiles", default="128x128")
    ap.add_argument("--launches", type=int, default=8, help="back-to-back launches per series (last 4 recorded)")
    ap.add_argument("--reps", type=int, default=3, help="series per case")
    ap.add_argument("--emulate", action="store_true", help="CPU check on the PTX emulator")
    ap.add_argument("--prologue", action="store_true", help="CPU: the prologue's SASS counts (nvdisasm)")
    ap.add_argument("--instrumented", action="store_true", help="with --prologue: of the instrumented kernel")
    ns = ap.parse_args(argv)
    os.environ["TILEORCH_CACHE"] = "0"
    if ns.emulate:
        return emulate(ns)
    if ns.prologue:
        return prologue(ns)
    import numpy as np
    import torch

    import tileorch.backend.compile as bc
    import tileorch.backend.ptxas as bp
    import tileorch.cutile
    from tileorch.launchers import cutile as launcher
    from tileorch.runtime.driver import api, check
    from tileorch.testing.attention_programs import LOG2E, attention_fwd
    from tileorch.testing.timing import bench_ms

    real = bp.run_ptxas
    state = {"on": False, "sites": 0}

    def patched(ptx, arch, *a, **k):
        if state["on"]:
            ptx, sites = instrument(ptx)
            state["sites"] = max(state["sites"], sites)
        return real(ptx, arch, *a, **k)

    bp.run_ptxas = patched
    bc.run_ptxas = patched
    tm, tn = (int(x) for x in ns.tiles.split("x"))
    d, seq = ns.d, ns.seq
    drv = api()
    for bh in (int(x) for x in ns.bh.split(",")):
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
        out = torch.full_like(q, float("nan"))
        grid = ((seq + tm - 1) // tm, bh, 1)
        args = (q, k, v, out, 1.0 / math.sqrt(d) * LOG2E, seq, tm, tn, d, False)
        stream = torch.cuda.current_stream()
        flops = 4.0 * bh * seq * seq * d
        ref = torch.nn.functional.scaled_dot_product_attention(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0))[0]
        tag = f"d{d} seq {seq} bh {bh} {ns.tiles}"

        def run():
            tileorch.cutile.launch(stream, grid, attention_fwd, args)

        ms = {}
        for mode in ("plain", "instrumented"):
            state["on"] = mode == "instrumented"
            launcher.clear_caches()
            out.fill_(float("nan"))
            with warnings.catch_warnings(record=True) as caught:  # ptxas's spill report (the probe must not spill)
                warnings.simplefilter("always")
                run()
            for w in caught:
                if "spill" in str(w.message):
                    print(f"[k0] {tag}: {mode} ptxas: {str(w.message)[:200]}")
            torch.cuda.synchronize()
            err = float((out.float() - ref.float()).abs().max().item())
            ms[mode] = bench_ms(run, 20)
            print(f"[k0] {tag}: {mode} {ms[mode] * 1000:.2f} us per launch (event-timed, back to back), "
                  f"{flops / ms[mode] / 1e9:.1f} TFLOP/s, max err {err:.1e}", flush=True)
        if not state["sites"]:
            print("[k0] no chained_dots entry was instrumented")
            return 1
        entry = launcher.compiled(attention_fwd, launcher.describe_arguments(attention_fwd, args), "sm_90a",
                                  "persistent")
        glob = {}
        for name in (EV, SEQ):
            ptr, size = check(drv.cuModuleGetGlobal(entry.image.module.handle, name.encode()), name)
            glob[name] = (int(ptr), int(size))
        ctas = None
        spans, gaps = [], []
        for rep in range(ns.reps):
            for ptr, size in glob.values():
                check(drv.cuMemsetD8(ptr, 0, size), "cuMemsetD8")
            torch.cuda.synchronize()
            torch.cuda._sleep(20_000_000)  # the series starts from a full queue, as bench_ms's launches do
            for _ in range(ns.launches):
                run()
            torch.cuda.synchronize()
            ptr, size = glob[EV]
            host = np.zeros(size // 8, dtype=np.uint64)
            check(drv.cuMemcpyDtoH(host.ctypes.data, ptr, size), "cuMemcpyDtoH")
            host = host.reshape(RING, MAXCTA, NWG, NS, 2)
            arrs = {"gt": host[..., 0], "ck": host[..., 1]}
            if ctas is None:
                ctas = int((arrs["gt"][:, :, 0, 0] > 0).any(0).sum())
                wgs = int((arrs["gt"][:, 0, :, 0] > 0).any(0).sum())
                print(f"[k0] {tag}: {ctas} CTAs x {wgs} warp groups recorded, {state['sites']} event sites")
            launches = analyse(arrs["gt"], arrs["ck"], ctas, wgs)
            spans += [x["span"] for x in launches]
            gaps += [b["start"] - a["end"] for a, b in zip(launches, launches[1:])]
            if rep == ns.reps - 1:
                report(tag, launches, wgs, bh * -(-seq // tm))
        span = statistics.median(spans) / 1000
        print(f"[k0] {tag} summary: event-timed plain {ms['plain'] * 1000:.2f} us, instrumented "
              f"{ms['instrumented'] * 1000:.2f} us (outside its span {ms['instrumented'] * 1000 - span:.2f} us); "
              f"in-kernel span med {span:.2f} us "
              f"over {len(spans)} launches; gap exit->next entry med {statistics.median(gaps) / 1000:.2f} us "
              f"min {min(gaps) / 1000:.2f} max {max(gaps) / 1000:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
