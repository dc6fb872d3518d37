"""pytest plugin (a measuring aid): record every :class:`tileorch.testing.ptx_emulator.Emu` run of the tests
(not the CTAs of a ``Cluster``) -- the PTX, launch values, tensor maps, guards, ``wait_delay`` and the global
buffers as they are when ``run`` starts -- into the pickle ``$EMU_CAPTURE`` (at most ``$EMU_CAPTURE_MAX`` runs,
default 100000), for :mod:`emulator_replay`.  Patches ``Emu`` (the emulation memo then emulates again).

    cd tests/unit && PYTHONPATH=$TREE/src:$TREE/benchmarks EMU_CAPTURE=/tmp/cap.pkl \\
        python -m pytest -q -n 0 -p emulator_capture test_row_smem_cache_emulated.py
"""
import copy
import os
import pickle

import pytest

CASES = []


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    from tileorch.testing import ptx_emulator as pe

    real_init, real_run = pe.Emu.__init__, pe.Emu.run
    limit = int(os.environ.get("EMU_CAPTURE_MAX", "100000"))

    def init(self, ptx, params_values, smem_bytes, nthreads, ctaid, tmaps, memory, guards=None, nctaid=None,
             cluster=None):
        if cluster is None and len(CASES) < limit:
            self._capture = copy.deepcopy(dict(ptx=ptx, params_values=params_values, smem_bytes=smem_bytes,
                                               nthreads=nthreads, ctaid=ctaid, nctaid=nctaid))
        real_init(self, ptx, params_values, smem_bytes, nthreads, ctaid, tmaps, memory, guards=guards,
                  nctaid=nctaid, cluster=cluster)

    def run(self, *a, **k):
        case = getattr(self, "_capture", None)
        if case is not None:
            case.update(wait_delay=self.wait_delay, count_instructions=self.count_instructions,
                        rcp_approx_ulps=self.rcp_approx_ulps, args=(a, k), tmaps=copy.deepcopy(self.tmaps),
                        guards=copy.deepcopy(self.guards), test=os.environ.get("PYTEST_CURRENT_TEST", ""),
                        memory=[(b, v.copy(), n) for b, v, n in self.memory
                                if n not in ("parameters", "module data", "local")])
            CASES.append(case)
            self._capture = None
        return real_run(self, *a, **k)

    pe.Emu.__init__, pe.Emu.run = init, run


def pytest_unconfigure(config):
    with open(os.environ["EMU_CAPTURE"], "wb") as f:
        pickle.dump(CASES, f)
