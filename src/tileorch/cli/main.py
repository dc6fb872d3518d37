"""``tileorch``: user commands.  Each subcommand lives in its own module with
``register(subparsers)`` adding its parser and setting ``func(args) -> int``.

Subcommand modules import their heavy dependencies (xDSL, the backend, the analyses) inside
their handlers, so that ``tileorch --help`` and ``tileorch run FILE.ptx`` work where only the
runtime's dependencies are installed.  A subcommand module that still cannot be imported for
want of a third-party package stays listed and, when invoked, says which package is missing.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from importlib import import_module

# subcommand module names under tileorch.cli (one line each)
SUBCOMMANDS: list[str] = [
    "run",
    "schedule",
    "compile",
    "check",
    "simulate",
    "doctor",
    "gemm",
]


def plain_text(doc: str) -> str:
    """A docstring as ``--help`` text: reStructuredText inline markup (````literal````,
    ``:role:`target```) becomes plain text."""
    text = re.sub(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)\s*(?:<[^`]*>)?`", r"\1", doc)
    return text.replace("``", "").strip()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``tileorch`` parser with every subcommand, or with subcommand ``only`` alone (the one a
    command line names: the other subcommands' modules, e.g. ``check``'s model checker or ``run``'s
    numpy, are then not imported, which is most of a cold ``tileorch compile``'s start-up)."""
    from tileorch import __version__

    parser = argparse.ArgumentParser(prog="tileorch", description="tileorch user commands")
    parser.add_argument("--version", action="version", version=f"tileorch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS if only is None else [only]:
        try:
            module = import_module(f"tileorch.cli.{name}")
        except ModuleNotFoundError as exc:
            missing = missing_dependency(exc)
            if missing is None:
                raise
            register_unavailable(sub, name, missing)
        else:
            module.register(sub)
    helps = {action.dest: action.help for action in sub._choices_actions}
    for name, command in sub.choices.items():  # every --help opens with a plain-text description
        command.description = plain_text(command.description or helps.get(name) or "")
    return parser


def missing_dependency(exc: ModuleNotFoundError) -> str | None:
    """The third-party package whose absence ``exc`` reports; ``None`` for a missing tileorch
    module (a packaging bug, not an absent dependency)."""
    if exc.name is None or exc.name.split(".")[0] == "tileorch":
        return None
    return exc.name.split(".")[0]


def missing_dependency_message(command: str, package: str) -> str:
    return (f"tileorch {command}: error: this command needs the Python package {package!r}, which cannot "
            "be imported here; install tileorch's dependencies (pyproject.toml)")


def register_unavailable(subparsers, name: str, package: str) -> None:
    """A placeholder for subcommand ``name`` whose module needs the absent ``package``."""
    p = subparsers.add_parser(name, help=f"(unavailable: needs the Python package {package!r})",
                              add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)

    def unavailable(args: argparse.Namespace) -> int:
        print(missing_dependency_message(name, package), file=sys.stderr)
        return 1

    p.set_defaults(func=unavailable)


def input_error(args: argparse.Namespace, exc: Exception) -> str | None:
    """The user-facing diagnostic for an exception that bad input (a non-UTF-8 input file, a path
    that cannot be opened) or an absent dependency raised inside a subcommand which did not report
    it; else ``None``."""
    tool = f"tileorch {args.command}"
    from tileorch.settings import SettingError

    if isinstance(exc, SettingError):  # a TILEORCH_* variable with a value its setting does not take
        return f"{tool}: error: {exc}"
    if isinstance(exc, ModuleNotFoundError) and (package := missing_dependency(exc)) is not None:
        return missing_dependency_message(args.command, package)
    path = getattr(args, "file", None)
    if isinstance(exc, UnicodeDecodeError) and isinstance(path, str):
        from tileorch.diagnostics import SourceError, read_source

        try:
            read_source(path)
        except SourceError as err:
            return err.format(tool)
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{tool}: error: cannot open {exc.filename}: {exc.strerror or exc}"
    return None


def check_settings(command: str) -> None:
    """Validate the ``TILEORCH_*`` environment before running ``command``: a value a setting does not
    take raises :class:`~tileorch.settings.SettingError` (reported by :func:`main` as an error, exit 1);
    a name that is not a setting gets a warning on stderr (with the closest setting's name)."""
    from tileorch import settings

    for message in settings.check_environment():
        print(f"tileorch {command}: warning: {message}", file=sys.stderr)


def named_subcommand(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs when its first word is one (no top-level option before it),
    else ``None`` (``--help``, ``--version``, a typo: the full parser reports those)."""
    return argv[0] if argv and argv[0] in SUBCOMMANDS else None


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = named_subcommand(argv)
    if command == "compile":  # tileiras's --remarks=all (tileorch compile takes tileiras's command line)
        from tileorch.cli.compile import tileiras_argv

        argv = tileiras_argv(argv)
    args = build_parser(command).parse_args(argv)
    try:
        if args.command != "doctor":  # (doctor lists the settings, bad ones included)
            check_settings(args.command)
        code = args.func(args) or 0
    except BrokenPipeError:  # output piped into a reader that stopped early (`| head`): not a bug
        try:
            sys.stdout = open(os.devnull, "w")  # the final flush must not fail again
        except OSError:
            pass
        sys.exit(1)
    except Exception as exc:  # subcommands report bad input themselves; else this is a tileorch bug
        message = input_error(args, exc)
        if message is not None:
            print(message, file=sys.stderr)
            sys.exit(1)
        if os.environ.get("TILEORCH_TRACEBACK"):
            raise
        path = getattr(args, "file", None)  # the input it failed on, as every other error names it
        where = f"{'<stdin>' if path == '-' else path}: error: internal error in tileorch {args.command}" \
            if isinstance(path, str) else f"tileorch {args.command}: error: internal error"
        print(f"{where} ({type(exc).__name__}: {exc}); rerun with TILEORCH_TRACEBACK=1", file=sys.stderr)
        code = 70
    sys.exit(code)


def exit_status(code: object) -> int:
    """The status a Python process exits with after ``sys.exit(code)`` (a code that is not an
    int, e.g. a message, is printed to stderr: status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


ONE_SHOT_GC_OFF = ("compile",)
"""Subcommands :func:`program` runs with the cyclic garbage collector off
(:func:`tileorch.gc_deferral.collector_off_until_exit`): one compile, then the process ends
(and ``gemm --compile`` without ``--run``/``--bench``: :func:`one_shot_compile`)."""


def one_shot_compile(argv: list[str]) -> bool:
    """Whether ``argv`` runs one compile and ends: ``compile`` (:data:`ONE_SHOT_GC_OFF`), or
    ``gemm ... --compile`` that does not go on to run the kernel (``--run``, ``--bench``: torch's
    allocations then keep the collector)."""
    command = named_subcommand(argv)
    if command in ONE_SHOT_GC_OFF:
        return True
    return command == "gemm" and "--compile" in argv and not {"--run", "--bench"} & set(argv)


def program() -> None:
    """The ``tileorch`` program (the console script, ``python -m tileorch``): :func:`main`, then
    the process ends as ``sys.exit`` would end it less the interpreter's teardown.

    Non-daemon threads are joined, ``atexit`` handlers run (``weakref.finalize`` objects among
    them) and the standard streams are flushed (a flush that fails, e.g. a closed pipe, makes the
    status 120, as at a normal exit), then ``os._exit``: the modules, the compiled IR and LLVM
    are not freed object by object, which took 0.15-0.2 s after a cold ``tileorch compile`` of
    a SIMT program (issue 22).  An exception :func:`main` does not handle (``KeyboardInterrupt``)
    propagates and the interpreter exits as usual; so does every exit under a profiler or a
    tracer (``python -m cProfile -m tileorch``, coverage: they write their data at teardown).
    ``tileorch compile`` (and ``tileorch gemm --compile``) runs with the cyclic garbage collector
    off (:func:`one_shot_compile`).
    The methods ``dataclasses`` generates are compiled once and kept (:mod:`tileorch.dataclass_code`:
    :func:`~tileorch.dataclass_code.install` before the command, :func:`~tileorch.dataclass_code.save`
    after it).
    Callers that run :func:`main` in their own process (tests, the fuzzers, the test suite's fork
    server) keep calling :func:`main`."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        main()
        return
    if one_shot_compile(sys.argv[1:]):
        from tileorch.gc_deferral import collector_off_until_exit

        collector_off_until_exit()
    from tileorch import dataclass_code

    dataclass_code.install()
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    status = exit_status(code)
    dataclass_code.save()
    import atexit
    import threading

    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a reader that went away; a stream closed by the command
            status = status or 120
    os._exit(status)


if __name__ == "__main__":
    main()
