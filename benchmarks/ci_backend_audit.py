"""Which tests pay for a back end they never read: a pytest plugin (``-p ci_backend_audit`` with
``benchmarks/`` on ``PYTHONPATH``; ``CI_BACKEND_AUDIT=FILE`` names the JSON lines it appends to).

For each test it records the CPU seconds (the process and its children: the forked LLVM code
generation, ptxas) spent in ``tileorch.driver.compile_module`` (the back end of
``compile_program``: SIMT / tier lowering to LLVM, LLVM IR, llvmlite, ptxas) and whether the test
read the ``ptx`` or ``cubin`` of any :class:`tileorch.driver.CutileProgram` outside a compile.  A
test that spent back-end CPU and read neither is a candidate for
:func:`tileorch.testing.compile_memo.lower_once` (the lowering's decision and remarks without the
back end): a guide for reading the test, not a verdict (a remark the back end adds, such as
ptxas's spill count, needs the back end).  Also recorded: a digest of each PTX the test's
compiles made (two tests of different inputs reaching the same PTX) and whether it ran the PTX
emulator (``Emu.run``)."""

from __future__ import annotations

import hashlib
import json
import os
import resource

_STATE = {"depth": 0, "backend_s": 0.0, "read": set(), "calls": 0, "ptx": [], "emulated": False}


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def pytest_configure(config):
    from tileorch import driver

    real_backend, real_compile = driver.compile_module, driver.compile_program

    def compile_module(*args, **kwargs):
        start = _cpu()
        result = None
        try:
            result = real_backend(*args, **kwargs)
            return result
        finally:
            if getattr(result, "ptx", ""):
                _STATE["ptx"].append(hashlib.sha256(result.ptx.encode()).hexdigest()[:16])
            _STATE["backend_s"] += _cpu() - start
            _STATE["calls"] += 1

    def compile_program(*args, **kwargs):
        _STATE["depth"] += 1
        try:
            return real_compile(*args, **kwargs)
        finally:
            _STATE["depth"] -= 1

    driver.compile_module, driver.compile_program = compile_module, compile_program
    real_get = driver.CutileProgram.__getattribute__

    def getattribute(self, attr):
        if attr in ("ptx", "cubin") and not _STATE["depth"]:
            _STATE["read"].add(attr)
        return real_get(self, attr)

    driver.CutileProgram.__getattribute__ = getattribute
    from tileorch.testing import ptx_emulator

    real_run = ptx_emulator.Emu.run

    def run(self, *args, **kwargs):
        _STATE["emulated"] = True
        return real_run(self, *args, **kwargs)

    ptx_emulator.Emu.run = run


def pytest_runtest_setup(item):
    _STATE.update(backend_s=0.0, read=set(), calls=0, ptx=[], emulated=False)


def pytest_runtest_logreport(report):
    if report.when != "teardown" or not os.environ.get("CI_BACKEND_AUDIT"):
        return
    with open(os.environ["CI_BACKEND_AUDIT"], "a") as f:
        f.write(json.dumps({"test": report.nodeid, "backend_s": round(_STATE["backend_s"], 3),
                            "backend_calls": _STATE["calls"], "read": sorted(_STATE["read"]),
                            "ptx_sha": _STATE["ptx"], "emulated": _STATE["emulated"]}) + "\n")
