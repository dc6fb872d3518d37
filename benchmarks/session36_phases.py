"""Where a chained attention kernel's consumer spends its cycles, event to event, measured on the GPU.

A profiling harness, not a compiler feature: in this process every chained-dots kernel's PTX is rewritten just
before ptxas (``tileorch.backend.compile.run_ptxas`` patched; the compile cache is off, so nothing instrumented is
kept).  In the consumer warp groups (the code after ``setmaxnreg.inc``) each *event* -- the fall-through of an
mbarrier ``try_wait`` retry loop (a K/V or Q wait), a ``wgmma.wait_group`` (a dot retired), a ``wgmma.fence`` (a
dot chain about to be issued), the first ``st.global`` of a run of stores (the epilogue's stores) -- reads
``%clock64``; thread 0 of each consumer warp group adds the cycles since its previous event to a bucket of the
pair (previous event, this event) with ``red.global.add.u64`` into two module-scope ``.global`` arrays (cycles,
counts), read back with ``cuModuleGetGlobal`` after the timed launches.  The pairs then give the consumer's time
per phase: e.g. (the wait after the last tile's second dot -> the first store) is the epilogue, (the first store
-> the next instance's Q wait) the stores and the work loop's bookkeeping, (Q wait -> tile 0's S retired) the
first dot's latency, and so on; each event is printed with its PTX line so the pairs can be read.  The
instrumented kernel is timed against the plain one in the same process (the profile's own cost).

    python3 benchmarks/session36_phases.py [--d 64] [--seq 1024] [--bh 256] [--env K=V,..] [--top 30]

Prints ``[phases]`` lines: the kernel's TFLOP/s plain and instrumented, then the busiest event pairs (cycles per
program instance and warp group, share of the warp group's total, count per instance).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys

EVENT_CYC, EVENT_CNT = "__ph_cyc", "__ph_cnt"


def _events(lines: list[str], start: int, end: int) -> list[tuple[int, str, str]]:
    """(line index to insert at, 'before'/'after', what) for the events of the consumer code lines[start:end]."""
    out = []
    last_store = -10
    for i in range(start, end):
        s = lines[i].strip()
        if s.startswith("mbarrier.try_wait"):
            for j in range(i + 1, min(i + 4, end)):  # the retry branch back to the loop's label
                if re.match(r"@%p\d+ bra", lines[j].strip()):
                    out.append((j, "after", "wait done: " + s[:90]))
                    break
        elif s.startswith("wgmma.wait_group"):
            out.append((i, "after", s))
        elif s.startswith("wgmma.fence"):
            out.append((i, "before", "dot chain issue"))
        elif s.startswith("st.global"):
            if i - last_store > 6:
                out.append((i, "before", "first store of a run: " + s[:60]))
            last_store = i
    return out


def _key_loop(lines: list[str], start: int, end: int) -> tuple[int, int] | None:
    """(label line, backward branch line) of the innermost loop around the first ``wgmma.wait_group 1`` of
    lines[start:end] (the overlapped key-tile loop), or None."""
    at = next((i for i in range(start, end) if re.match(r"wgmma\.wait_group\.sync\.aligned\s+1;", lines[i].strip())),
              None)
    if at is None:
        return None
    best = None
    labels = {m.group(1): i for i in range(start, end) if (m := re.match(r"(\$L__\w+):", lines[i].strip()))}
    for j in range(at, end):
        m = re.search(r"bra(?:\.uni)?\s+(\$L__\w+);", lines[j])
        if m and m.group(1) in labels and labels[m.group(1)] < at:
            if best is None or j - labels[m.group(1)] < best[1] - best[0]:
                best = (labels[m.group(1)], j)
    return best


def _entry_ranges(lines: list[str]) -> list[tuple[int, int, int]]:
    """(body '{' line, setmaxnreg.inc line, closing '}' line) of each chained_dots entry."""
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"\s*(?:\.visible\s+)?\.entry\s+(chained_dots\w*)", lines[i])
        if not m:
            i += 1
            continue
        j = i
        while lines[j].strip() != "{":
            j += 1
        depth, k, inc = 0, j, None
        while True:
            depth += lines[k].count("{") - lines[k].count("}")
            if "setmaxnreg.inc" in lines[k] and inc is None:
                inc = k
            if depth == 0:
                break
            k += 1
        if inc is not None:
            out.append((j, inc, k))
        i = k + 1
    return out


def instrument(ptx: str, loop_events: bool = True) -> tuple[str, list[str]]:
    """``ptx`` with the consumer events counted (module docstring) and the events' descriptions (index k - 1 for
    event k; event 0 is the consumer's start); unchanged with [] where no chained_dots entry is found.
    ``loop_events=False``: none inside the key-tile loop (:func:`_key_loop`), whose time then goes to the pair
    around it and whose instructions are not perturbed."""
    lines = ptx.split("\n")
    ranges = _entry_ranges(lines)
    if not ranges:
        return ptx, []
    inserts: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    names: list[str] = []
    plans = []
    for body, inc, close in ranges:
        events = _events(lines, inc + 1, close)
        loop = None if loop_events else _key_loop(lines, inc + 1, close)
        if loop is not None:
            events = [ev for ev in events if not loop[0] <= ev[0] <= loop[1]]
        plans.append((body, inc, events))
    total = sum(len(ev) for _, _, ev in plans)
    k1 = total + 1
    k = 0
    for body, inc, events in plans:
        after.setdefault(body, []).append(
            "\t.reg .b64 %phc;\n\t.reg .b32 %phid;\n\t.reg .pred %phon;\n\tmov.u32 %phid, 0;\n"
            "\tsetp.ne.u32 %phon, %phid, 0;")
        after.setdefault(inc, []).append(
            "\t{ .reg .b32 %phx; mov.u32 %phx, %tid.x; and.b32 %phx, %phx, 127; setp.eq.u32 %phon, %phx, 0; }\n"
            "\tmov.u32 %phid, 0;\n\tmov.u64 %phc, %clock64;")
        for line, where, what in events:
            k += 1
            names.append(f"L{line + 1}: {what}")
            code = ("\t{ .reg .b64 %pht, %phd, %pha, %phb; .reg .b32 %phi;\n"
                    "\tmov.u64 %pht, %clock64;\n\tsub.s64 %phd, %pht, %phc;\n"
                    f"\tmad.lo.u32 %phi, %phid, {k1}, {k};\n\tmul.wide.u32 %pha, %phi, 8;\n"
                    f"\tmov.u64 %phb, {EVENT_CNT};\n\tadd.s64 %phb, %phb, %pha;\n"
                    f"\tmov.u64 %pht, {EVENT_CYC};\n\tadd.s64 %pha, %pht, %pha;\n"
                    "\t@%phon red.global.add.u64 [%pha], %phd;\n\t@%phon red.global.add.u64 [%phb], 1;\n"
                    f"\tmov.u32 %phid, {k};\n\tmov.u64 %phc, %clock64; }}")
            (after if where == "after" else inserts).setdefault(line, []).append(code)
    out = []
    decl_done = False
    for i, line in enumerate(lines):
        if not decl_done and re.match(r"\s*(?:\.visible\s+)?\.entry\s", line):
            out.append(f".global .align 8 .b8 {EVENT_CYC}[{8 * k1 * k1}];")
            out.append(f".global .align 8 .b8 {EVENT_CNT}[{8 * k1 * k1}];")
            decl_done = True
        out.extend(inserts.get(i, []))
        out.append(line)
        out.extend(after.get(i, []))
    return "\n".join(out), names


def _globals(kernel) -> dict[str, tuple[int, int]]:
    from tileorch.runtime.driver import api, check

    drv = api()
    out = {}
    for name in (EVENT_CYC, EVENT_CNT):
        ptr, size = check(drv.cuModuleGetGlobal(kernel.module.handle, name.encode()), f"cuModuleGetGlobal({name})")
        out[name] = (int(ptr), int(size))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--seq", type=int, default=1024)
    ap.add_argument("--bh", type=int, default=256)
    ap.add_argument("--tiles", default="128x128")
    ap.add_argument("--env", default="", help="K=V,.. compile switches for both kernels")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--dump", default=None, help="write the kernel's PTX (before instrumenting) here")
    ap.add_argument("--no-loop-events", action="store_true", help="no events inside the key-tile loop")
    ns = ap.parse_args(argv)
    os.environ["TILEORCH_CACHE"] = "0"
    for kv in (x for x in ns.env.split(",") if x.strip()):
        key, _, val = kv.partition("=")
        os.environ[key] = val
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
    state = {"on": False, "names": []}

    def patched(ptx, arch, *a, **k):
        if state["on"]:
            orig = ptx
            ptx, names = instrument(ptx, not ns.no_loop_events)
            if names:
                state["names"] = names
                if ns.dump:  # the event labels name lines of the original text
                    open(ns.dump, "w").write(orig)
        return real(ptx, arch, *a, **k)

    bp.run_ptxas = patched
    bc.run_ptxas = patched
    tm, tn = (int(x) for x in ns.tiles.split("x"))
    d, seq, bh = ns.d, ns.seq, ns.bh
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(bh, seq, d, device="cuda", generator=g, dtype=torch.float16) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    grid = ((seq + tm - 1) // tm, bh, 1)
    args = (q, k, v, out, 1.0 / math.sqrt(d) * LOG2E, seq, tm, tn, d, False)
    stream = torch.cuda.current_stream()
    flops = 4.0 * bh * seq * seq * d
    ref = torch.nn.functional.scaled_dot_product_attention(q.unsqueeze(0), k.unsqueeze(0), v.unsqueeze(0))[0]

    def run():
        tileorch.cutile.launch(stream, grid, attention_fwd, args)

    tf = {}
    for mode in ("plain", "instrumented"):
        state["on"] = mode == "instrumented"
        launcher.clear_caches()
        run()
        torch.cuda.synchronize()
        err = float((out.float() - ref.float()).abs().max().item())
        tf[mode] = round(flops / bench_ms(run, 20) / 1e9, 1)
        print(f"[phases] d{d} seq {seq} bh {bh} {ns.tiles} {ns.env or 'default'}"
              f"{' (no loop events)' if ns.no_loop_events else ''}: {mode} {tf[mode]} TFLOP/s, "
              f"max err {err:.1e}", flush=True)
    names = state["names"]
    if not names:
        print("[phases] no chained_dots entry was instrumented")
        return 1
    entry = launcher.compiled(attention_fwd, launcher.describe_arguments(attention_fwd, args), "sm_90a",
                              "persistent")
    glob = _globals(entry.image)
    drv = api()
    for ptr, size in glob.values():
        check(drv.cuMemsetD8(ptr, 0, size), "cuMemsetD8")
    torch.cuda.synchronize()
    for _ in range(ns.iters):
        run()
    torch.cuda.synchronize()
    data = {}
    for name, (ptr, size) in glob.items():
        host = np.zeros(size // 8, dtype=np.uint64)
        check(drv.cuMemcpyDtoH(host.ctypes.data, ptr, size), "cuMemcpyDtoH")
        data[name] = host
    k1 = len(names) + 1
    cyc, cnt = data[EVENT_CYC].reshape(k1, k1), data[EVENT_CNT].reshape(k1, k1)
    instances = bh * math.ceil(seq / tm) * ns.iters
    groups = tm // 64
    total = float(cyc.sum())
    label = ["consumer start", *names]
    print(f"[phases] {len(names)} events; per program instance and warp group: {total / instances / groups:.0f} "
          f"cycles recorded ({instances} instances x {groups} groups)")
    pairs = sorted(((int(cyc[a, b]), a, b) for a in range(k1) for b in range(k1) if cnt[a, b]), reverse=True)
    for c, a, b in pairs[:ns.top]:
        n = int(cnt[a, b])
        print(f"[phases] {c / instances / groups:8.0f} cyc/inst ({100 * c / total:4.1f}%) x{n / instances / groups:5.2f} "
              f"mean {c / n:7.0f} | {a}: {label[a][:70]} -> {b}: {label[b][:70]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
