"""A PTX emulation once per distinct input in a test run: tests that compare a switch's kernel with
the default kernel (``emulate_as_base``) emulate the same default kernel on the same inputs in many
tests and files; the emulator is deterministic (the same PTX, launch and inputs: the same output
bits and the same errors), so the second emulation of an input reads the first one's result.

Opt-in per call site: :func:`emulate_once` is for a helper whose result depends on nothing but the
key it is given and the emulator's code (:mod:`tileorch.testing.ptx_emulator`).  It emulates
again, and stores nothing, while that module or its ``Emu`` class is patched (a test that counts
the emulator's steps or re-creates a bug in it): :func:`emulator_unpatched`.

Key
    The sha256 of the emulator's source, the helper's name and the caller's key parts (the PTX,
    the launch record, the shapes, the seed, ...: everything the emulation reads), pickled.
Where
    In this process and the run's memo directory (``$TILEORCH_TEST_COMPILE_MEMO``, shared by the
    xdist workers), as :mod:`tileorch.testing.compile_memo` keeps compiles.
Result
    A copy of the stored result (a test may change its copy); a helper that raises stores nothing."""

from __future__ import annotations

import copy
import pickle

HITS = [0, 0]
"""(emulations read from the memo, emulations run and stored) in this process: for the tests of this
module and for measuring."""


def emulator_unpatched() -> bool:
    """Whether :mod:`tileorch.testing.ptx_emulator` (its module globals and its ``Emu`` class) holds
    the objects it held when it was imported (``ptx_emulator.PRISTINE``, taken at the end of its
    import, before any test could patch it)."""
    from tileorch.testing import ptx_emulator

    emu, emu_ns, mod_ns = ptx_emulator.PRISTINE
    # (dunder names aside: a warning raised in the module's code adds ``__warningregistry__`` to its
    # globals, and that is no patch -- the clean-clone CI of session 32 saw every memo bypassed so)
    now_ns = {k: v for k, v in vars(ptx_emulator).items() if not k.startswith("__")}
    mod_ns = {k: v for k, v in mod_ns.items() if not k.startswith("__")}
    if ptx_emulator.Emu is not emu or len(vars(emu)) != len(emu_ns) or len(now_ns) != len(mod_ns) + 1:
        return False
    return (all(vars(emu).get(k, emu_ns) is v for k, v in emu_ns.items())
            and all(now_ns.get(k, mod_ns) is v for k, v in mod_ns.items()))


def _emulator_digest() -> str:
    from hashlib import sha256

    from tileorch.testing import ptx_emulator

    with open(ptx_emulator.__file__, "rb") as f:
        return sha256(f.read()).hexdigest()


def emulation_key(helper: str, parts: tuple) -> str:
    """The memo key of ``helper``'s emulation of ``parts``."""
    from hashlib import sha256

    blob = pickle.dumps((_emulator_digest(), helper, parts), protocol=pickle.HIGHEST_PROTOCOL)
    return "emulate-" + sha256(blob).hexdigest()


def emulate_once(helper: str, parts: tuple, emulate):
    """``emulate()`` once per (``helper``, ``parts``) in this test run while the emulator is
    unpatched (see the module docstring); else ``emulate()`` every time.  ``parts`` must hold
    everything the emulation reads (picklable: strings, numbers, tuples, dicts, arrays)."""
    from tileorch.testing.compile_memo import _store, _stored

    if not emulator_unpatched():
        return emulate()
    key = emulation_key(helper, parts)
    result = _stored(key)
    if result is None:
        result = emulate()
        _store(key, result)
        HITS[1] += 1
    else:
        HITS[0] += 1
    return copy.deepcopy(result)


__all__ = ["HITS", "emulate_once", "emulation_key", "emulator_unpatched"]
