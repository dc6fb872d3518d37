"""Replay the emulator runs :mod:`emulator_capture` recorded, with the ``tileorch`` on ``PYTHONPATH``: per run,
its steps, CPU seconds (the least of ``REPS`` runs) and a digest of everything observable after it (global
buffers, shared memory, registers, errors, fence errors, printed text, traffic, clock, pcs, liveness, the
return value or the fault), and before it a digest of the results alone (global buffers, shared memory,
errors, fence errors, printed text, traffic but the ``instructions`` counts, the return value or the fault, a
deadlock's text up to where it names the waiting pcs: not the clock, pcs or registers, which a change of the
schedule moves); last line the total CPU.  Two trees' digests equal run for run: the same emulation (a
differential check of an emulator change); their totals, both run at once: its CPU.

    PYTHONPATH=$BASE/src python benchmarks/emulator_replay.py /tmp/cap.pkl > base.txt &
    PYTHONPATH=$TREE/src python benchmarks/emulator_replay.py /tmp/cap.pkl > new.txt; wait
    diff <(awk '{print $1, $3, $NF}' base.txt) <(awk '{print $1, $3, $NF}' new.txt)
"""
import copy
import hashlib
import pickle
import sys
import time

import numpy as np

from tileorch.testing import ptx_emulator as pe


def digest(emu, ret, exc, memory) -> str:
    h = hashlib.sha256()
    for base, view, name in memory:
        h.update(f"{base}:{name}".encode())
        h.update(np.ascontiguousarray(view).tobytes())
    h.update(emu.smem.tobytes())
    h.update(repr((ret, exc, emu.errors, emu.fence_errors, emu.printed, sorted(emu.traffic.items()), emu.clock,
                   emu.pc.tolist(), emu.live.tolist())).encode())
    for name in sorted(emu.regs):
        h.update(name.encode())
        h.update(emu.regs[name].tobytes())
    return h.hexdigest()[:16]


def result_digest(emu, ret, exc, memory) -> str:
    """What a test can read of the run, whatever the schedule of its threads (see the module docstring)."""
    h = hashlib.sha256()
    for base, view, name in memory:
        h.update(f"{base}:{name}".encode())
        h.update(np.ascontiguousarray(view).tobytes())
    h.update(emu.smem.tobytes())
    traffic = sorted((k, v) for k, v in emu.traffic.items() if k != "instructions" and not k.startswith("op:"))
    h.update(repr((ret, (exc or "").split(" at pcs")[0].split(": no thread")[0], emu.errors, emu.fence_errors,
                   emu.printed, traffic)).encode())
    return h.hexdigest()[:16]


def main(paths: str, reps: int = 1) -> None:
    cases = [c for p in paths.split(",") for c in pickle.load(open(p, "rb"))]
    total = 0.0
    for i, c in enumerate(cases):
        best = None
        for _ in range(reps):
            memory = [(b, v.copy(), n) for b, v, n in c["memory"]]
            t0 = time.process_time()
            emu = pe.Emu(c["ptx"], c["params_values"], c["smem_bytes"], c["nthreads"], c["ctaid"],
                         copy.deepcopy(c["tmaps"]), memory, guards=c["guards"], nctaid=c["nctaid"])
            emu.wait_delay = c["wait_delay"]
            emu.count_instructions = c["count_instructions"]
            emu.rcp_approx_ulps = c["rcp_approx_ulps"]
            ret = exc = None
            try:
                ret = emu.run(*c["args"][0], **c["args"][1])
            except pe.Fault as e:
                exc = f"{type(e).__name__}: {e}"
            dt = time.process_time() - t0
            best = dt if best is None else min(best, dt)
        total += best
        print(i, c["test"].split(" ")[0][-70:], emu.clock, round(best, 3), result_digest(emu, ret, exc, memory),
              digest(emu, ret, exc, memory))
    print("TOTAL", round(total, 3), "cases", len(cases))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
