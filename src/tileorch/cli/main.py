"""``tileorch``: user commands.  Each subcommand lives in its own module with
``register(subparsers)`` adding its parser and setting ``func(args) -> int``.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from tileorch.diagnostics import SourceError, read_source

# subcommand module names under tileorch.cli (one line each)
SUBCOMMANDS: list[str] = [
    "run",
    "schedule",
    "compile",
    "check",
    "simulate",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tileorch", description="tileorch user commands")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in SUBCOMMANDS:
        import_module(f"tileorch.cli.{name}").register(sub)
    return parser


def input_error(args: argparse.Namespace, exc: Exception) -> str | None:
    """The user-facing diagnostic for an exception that bad input (a non-UTF-8 input file, a path
    that cannot be opened) raised inside a subcommand which did not report it; else ``None``."""
    tool = f"tileorch {args.command}"
    path = getattr(args, "file", None)
    if isinstance(exc, UnicodeDecodeError) and isinstance(path, str):
        try:
            read_source(path)
        except SourceError as err:
            return err.format(tool)
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{tool}: error: cannot open {exc.filename}: {exc.strerror or exc}"
    return None


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        code = args.func(args) or 0
    except Exception as exc:  # subcommands report bad input themselves; else this is a tileorch bug
        message = input_error(args, exc)
        if message is not None:
            print(message, file=sys.stderr)
            sys.exit(1)
        if os.environ.get("TILEORCH_TRACEBACK"):
            raise
        print(f"tileorch {args.command}: error: internal error ({type(exc).__name__}: {exc}); "
              "rerun with TILEORCH_TRACEBACK=1", file=sys.stderr)
        code = 70
    sys.exit(code)


if __name__ == "__main__":
    main()
