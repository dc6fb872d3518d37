"""A pytest plugin that sums the CPU seconds (time.process_time) spent in the test suite's emulators:
``Emu._run`` (tileorch.testing.ptx_emulator), ``simt_interp.Interpreter.run`` and
``llvm_int_interp.Interpreter.run``; printed at the end of the session as ``[emu-cpu] ...``.

    PYTHONPATH=$PWD/src:$PWD/benchmarks python -m pytest -q -n 0 -p emu_cpu_plugin tests/unit/test_x.py

The wrapped ``Emu`` is re-snapshotted as pristine (``ptx_emulator.PRISTINE``) so that the emulation memo
(:mod:`tileorch.testing.emulation_memo`) behaves as without the plugin.  Measuring only: not used by CI."""

from __future__ import annotations

import functools
import importlib
import time

TOTALS: dict[str, list] = {}


def _timed(label, fn):
    acc = TOTALS.setdefault(label, [0.0, 0])
    depth = [0]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if depth[0]:
            return fn(*args, **kwargs)
        depth[0] += 1
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            acc[0] += time.process_time() - t0
            acc[1] += 1
            depth[0] -= 1
    return wrapper


def _patch():
    from tileorch.testing import ptx_emulator

    if not getattr(ptx_emulator.Emu._run, "_emu_cpu", False):
        ptx_emulator.Emu._run = _timed("ptx_emulator.Emu._run", ptx_emulator.Emu._run)
        ptx_emulator.Emu._run._emu_cpu = True
        ptx_emulator.PRISTINE = ptx_emulator._pristine()
    for mod in ("simt_interp", "llvm_int_interp"):  # (tests/unit is on sys.path once a test there is collected)
        try:
            m = importlib.import_module(mod)
        except ImportError:
            m = None
        if m is not None and not getattr(m.Interpreter.run, "_emu_cpu", False):
            m.Interpreter.run = _timed(f"{mod}.Interpreter.run", m.Interpreter.run)
            m.Interpreter.run._emu_cpu = True


def pytest_collection_finish(session):
    _patch()


def pytest_terminal_summary(terminalreporter):
    total = sum(v[0] for v in TOTALS.values())
    for label, (secs, calls) in sorted(TOTALS.items()):
        terminalreporter.write_line(f"[emu-cpu] {label}: {secs:.2f} s in {calls} calls")
    terminalreporter.write_line(f"[emu-cpu] total: {total:.2f} s")
