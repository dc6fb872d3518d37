"""``tileorch-opt``: an ``xdsl-opt``/``mlir-opt`` style driver with tileorch's dialects and passes.

Differences from plain ``xdsl-opt``: every op is stamped with its source position and
every parse, verifier or pass error is reported as ``file:line:col: error: message``
(on stdout with ``--verify-diagnostics``, exit 0; otherwise on stderr, exit 1), never
as a Python traceback.  With ``--verify-diagnostics``, an input that has ``expected-error`` (or
``-note``/``-warning``/``-remark``) comments is checked as mlir-opt checks it
(:mod:`tileorch.tools.expected_diagnostics`): every chunk must produce exactly the errors its
comments name; each miss is a located ``error:`` on stderr and the exit status is 1.  An input or output file that cannot be opened, and input that is
not UTF-8, are reported as ``tileorch-opt: error: ...`` / ``file:line:col: error: ...``.
``--disable-verify``: no op is verified (the input, between the passes, the result), as mlir-opt's; attributes and
types are verified when built, as in mlir-opt (xdsl-opt's own ``--disable-verify`` and ``--syntax-highlight`` patch
classes for the whole process, :data:`XDSL_SWITCHES`: tileorch-opt takes both switches out of xDSL's hands when the
arguments are parsed and implements them in its own run, so nothing of the process is patched, and a later or
concurrent verification in the same process, a library user's or another thread's, is untouched).
"""

from __future__ import annotations

import dataclasses
import io
import os
import sys
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from tileorch import registry
from tileorch.diagnostics import SourceError, decode_source, format_exception, parse_module, verify_located
from tileorch.tools.expected_diagnostics import Expectation, diagnostics, expectations, unmatched


XDSL_SWITCHES = ((Attribute, "__post_init__"), (Diagnostic, "colored"))
"""The class attributes ``xDSLOptMain.__init__`` would set for the whole process and never put back:
``--disable-verify`` replaces ``Attribute.__post_init__`` by a function that verifies nothing (every
attribute and type built afterwards, anywhere in the process, skipped its verifier: session 39's
in-process tests), ``--syntax-highlight`` sets ``Diagnostic.colored``.  :class:`TileorchOptMain`
routes both switches to arguments of its own (:data:`OWN_SWITCHES`), so xDSL never sees them set
(tests/unit/test_opt_in_process.py checks that xDSL's driver sets no other class attribute)."""

OWN_SWITCHES = {"disable_verify": "tileorch_disable_verify", "syntax_highlight": "tileorch_syntax_highlight"}
"""xDSL's argument (its ``dest``) -> the one tileorch-opt parses it into instead: xDSL's stays False while its
``__init__`` reads it, and :meth:`TileorchOptMain.__init__` then sets it for the run (xDSL's pass callback and
printer read it there: op verification, a highlighted output)."""


class TileorchOptMain(xDSLOptMain):
    """xDSLOptMain with tileorch's dialects, passes, targets and located diagnostics.

    ``--disable-verify`` and ``--syntax-highlight`` are parsed into tileorch-opt's own arguments
    (:data:`OWN_SWITCHES`, :meth:`register_all_arguments`), so xDSL's ``__init__`` patches no class
    (:data:`XDSL_SWITCHES`); their effect is this driver's own: the run skips op verification
    (:meth:`_run_chunks`, :meth:`_call_back`) and the printer highlights the output."""

    _reported: list[str] = []  # the diagnostic lines printed for the current chunk
    _write_failed = False  # a write to the output failed (reported once)
    _in_place = False  # -o names the input file: the output is buffered (see _finish_in_place)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # (xDSL's __init__ read its own fields as False: now this run's values, read by xDSL's callback and printer)
        for xdsl_dest, own in OWN_SWITCHES.items():
            setattr(self.args, xdsl_dest, bool(getattr(self.args, own)))

    def register_all_arguments(self, arg_parser) -> None:
        """xDSL's arguments, with ``--disable-verify`` and ``--syntax-highlight`` parsed into
        :data:`OWN_SWITCHES`' names (any spelling argparse accepts, abbreviations included: the
        actions themselves are rerouted, not the words of argv) and xDSL's names left False."""
        super().register_all_arguments(arg_parser)
        for action in arg_parser._actions:
            if action.dest in OWN_SWITCHES:
                action.dest = OWN_SWITCHES[action.dest]
        arg_parser.set_defaults(**{xdsl_dest: False for xdsl_dest in OWN_SWITCHES})

    def register_all_dialects(self):
        for name, factory in registry.dialect_factories().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in registry.pass_factories().items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        self.available_targets.update(registry.target_factories())

    def register_all_frontends(self):
        super().register_all_frontends()
        self.available_frontends["tileirbc"] = lambda chunk: None  # CUDA Tile IR bytecode (parse_chunk)
        self.available_frontends["bc"] = lambda chunk: None  # cuda-tile-translate's name for the same bytecode

    def apply_passes(self, prog) -> None:
        """xDSL's pipeline, each pass through :func:`tileorch.backend.pipeline.guarded_apply`: a
        crash inside a pass is one located line naming the pass (the callback between the passes
        runs as in xDSL's ``PassPipeline.apply``)."""
        from tileorch.backend.pipeline import guarded_apply

        passes, callback = self.pipeline.passes, self.pipeline.callback
        each = _verify_between_passes()
        previous = None
        for p in passes:
            if callback is not None:
                # before the first pass: the input was verified by `run` (verify_located) already
                self._call_back(callback, previous, prog, p, verify=previous is not None and each)
            guarded_apply(p, self.ctx, prog)
            previous = p
        if callback is not None:
            self._call_back(callback, previous, prog, None, verify=previous is not None)

    def _call_back(self, callback, previous, prog, following, verify: bool) -> None:
        """xDSL's callback between passes (``--time-passes``, ``--print-between-passes``, and its
        verification, kept only where ``verify``; ``--disable-verify`` turns every one off)."""
        disabled = self.args.disable_verify
        self.args.disable_verify = disabled or not verify
        try:
            callback(previous, prog, following)
        finally:
            self.args.disable_verify = disabled

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        if file_extension not in ("mlir", "tileirbc", "bc"):
            return super().parse_chunk(chunk, file_extension, start_offset)
        data = chunk.read()
        if data[:8] == b"\x7fTileIR\x00" or file_extension in ("tileirbc", "bc"):  # bytecode, recognised by magic
            from tileorch.frontend.cuda_tile_bytecode import BytecodeError, read_bytecode

            try:
                return read_bytecode(data, self.get_input_name())
            except BytecodeError as exc:
                raise SourceError(f"invalid CUDA Tile IR bytecode at {exc}", self.get_input_name()) from None
        text = decode_source(data, self.get_input_name(), start_offset)
        return parse_module(self.ctx, text, self.get_input_name(), start_offset)

    def _report(self, lines: list[str]) -> None:
        self._reported.extend(lines)
        stream = sys.stdout if self.args.verify_diagnostics else sys.stderr
        for line in lines:
            print(line, file=stream)
        stream.flush()

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """As mlir-opt: no input file or ``-`` reads standard input (MLIR text, or bytecode by its magic)."""
        if self.args.input_file == "-":
            self.args.input_file = None
        return super().get_input_stream()

    def _open_files(self) -> tuple[list[tuple[IO[bytes], int]], str, IO[str]]:
        """Input chunks, their extension and the output stream; raises :class:`SourceError`."""
        try:
            chunks, file_extension = self.prepare_input()
            # read in full before the output is opened: `-o` naming the input truncated it first
            # (the module read back was empty, the source lost)
            loaded = []
            for chunk, offset in chunks:
                loaded.append((io.BytesIO(chunk.read()), offset))
                chunk.close()
            chunks = loaded
        except OSError as exc:
            raise SourceError(f"cannot read {self.args.input_file}: {exc.strerror or exc}") from None
        try:
            if self._output_is_input():
                self._in_place = True  # written at the end, and only if every chunk succeeded
                return chunks, file_extension, io.StringIO()
            return chunks, file_extension, self.prepare_output()
        except OSError as exc:
            for chunk, _ in chunks:
                chunk.close()
            raise SourceError(f"cannot write {self.args.output_file}: {exc.strerror or exc}") from None

    def _expectations(self, chunks: list[tuple[IO[bytes], int]]) -> list[list[Expectation]] | None:
        """Each chunk's ``expected-*`` comments when ``--verify-diagnostics`` is given and any chunk
        has one (the chunks are rewound); None otherwise (diagnostics are printed, not checked)."""
        if not self.args.verify_diagnostics:
            return None
        found: list[list[Expectation]] = []
        for chunk, offset in chunks:
            data = chunk.read()
            chunk.seek(0)
            text = "" if data[:8] == b"\x7fTileIR\x00" else data.decode("utf-8", "replace")
            found.append(expectations(text, offset))
        return found if any(found) else None

    def _output_is_input(self) -> bool:
        """``-o`` names the input file (``tileorch-opt k.mlir -o k.mlir``, mlir-opt's in-place use)."""
        out, inp = self.args.output_file, self.args.input_file
        if out is None or inp in (None, "-"):
            return False
        try:
            return os.path.samefile(inp, out)
        except OSError:
            return False

    def _finish_in_place(self, output: io.StringIO, failed: bool) -> bool:
        """Write the buffered output over the input file, unless a chunk failed (then the source
        is kept as it was, and an error says so); True if the write failed."""
        if failed:
            self._report([SourceError(f"{self.args.output_file} is the input file and not every part of it "
                                      "compiled: it was left unchanged").format("tileorch-opt")])
            return False
        try:
            with open(self.args.output_file, "w") as out:
                out.write(output.getvalue())
        except OSError as exc:
            self._report([self._cannot_write(exc).format("tileorch-opt")])
            return True
        return False

    def _cannot_write(self, exc: OSError) -> SourceError:
        name = self.args.output_file or "<stdout>"
        return SourceError(f"cannot write {name}: {exc.strerror or exc}")

    def _write(self, output: IO[str], text: str) -> None:
        """Write and flush ``text``; an output that cannot take it (a full disk, ``/dev/full``,
        a file of ``/proc``) is :class:`SourceError` ``cannot write FILE: reason``, not an internal
        error (a reader that closed the pipe stays :class:`BrokenPipeError`)."""
        try:
            output.write(text)
            output.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            self._write_failed = True
            raise self._cannot_write(exc) from None

    def run(self) -> None:
        """Every chunk parsed, verified (unless ``--disable-verify``), through the passes and printed."""
        self._run_chunks()

    def _run_chunks(self) -> None:
        chunks, file_extension, output = self._open_files()
        expected = self._expectations(chunks)
        failed = mismatched = False
        try:
            for i, (chunk, offset) in enumerate(chunks):
                module: ModuleOp | None = None
                self._reported = []
                try:
                    if i > 0:
                        self._write(output, "// -----\n")
                    # no `continue` in this try: the expectations below must be checked for
                    # every chunk, a chunk that fails to verify included
                    module = self.parse_chunk(chunk, file_extension, offset)
                    errors = verify_located(module) if module is not None and not self.args.disable_verify else []
                    if errors:
                        self._report(errors)
                        failed = True
                    elif module is not None:
                        self.apply_passes(module)
                        self._write(output, self.output_resulting_program(module))
                except SourceError as exc:
                    self._report([exc.format("tileorch-opt")])
                    failed = True
                except ParseError as exc:
                    exc.span = dataclasses.replace(exc.span, line_offset=offset)
                    self._report(format_exception(exc))
                    failed = True
                except (DiagnosticException, ValueError, NotImplementedError) as exc:
                    self._report(format_exception(exc, module))
                    failed = True
                except Exception as exc:  # a bug in tileorch, not in the input: still no traceback
                    if os.environ.get("TILEORCH_TRACEBACK"):
                        raise
                    self._report([f"{self.get_input_name()}: error: internal error "
                                  f"({type(exc).__name__}: {exc}); rerun with TILEORCH_TRACEBACK=1"])
                    failed = True
                finally:
                    chunk.close()
                if expected is not None:
                    problems = unmatched(expected[i], diagnostics(self._reported), self.get_input_name())
                    for line in problems:
                        print(line, file=sys.stderr)
                    mismatched = mismatched or bool(problems)
        finally:
            if self._in_place:
                failed = self._finish_in_place(output, failed or mismatched) or failed
            elif output is not sys.stdout:
                try:
                    output.close()
                except OSError as exc:  # the last buffered bytes could not be written (a full disk)
                    if isinstance(exc, BrokenPipeError):
                        raise
                    if not self._write_failed:  # once per output
                        self._report([self._cannot_write(exc).format("tileorch-opt")])
                    failed = True
        if (failed and not self.args.verify_diagnostics) or mismatched:
            sys.exit(1)


def _verify_between_passes() -> bool:
    """Verify after every pass of ``-p`` (xdsl-opt's and mlir-opt's default), unless
    ``TILEORCH_VERIFY_EACH_PASS=0`` is set in the environment: then the result of the last pass
    only, once per pipeline as ``tileorch compile`` does (the input is verified either way).  The
    test suite sets it (tests/conftest.py, passed to lit's RUN lines by tests/filecheck/lit.cfg.py):
    between-pass verification was about a third of a tier RUN line's CPU; tests/unit/
    test_verify_each_pass.py verifies every route after every pass."""
    return os.environ.get("TILEORCH_VERIFY_EACH_PASS") != "0"


def main(argv: list[str] | None = None) -> None:
    from xdsl.utils.exceptions import ArgSpecParseError

    try:
        TileorchOptMain(description="tileorch optimizer driver", args=argv).run()
    except ValueError as exc:  # unknown pass / bad pass option, raised while building the pipeline
        print(f"tileorch-opt: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except ArgSpecParseError as exc:  # a malformed -p pipeline string
        print(f"tileorch-opt: error: {str(exc).strip()}", file=sys.stderr)
        sys.exit(2)
    except SourceError as exc:  # the input or output file cannot be opened
        print(exc.format("tileorch-opt"), file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:  # output piped into a reader that stopped early (e.g. head)
        sys.stderr.close()
        sys.exit(1)


if __name__ == "__main__":
    main()
