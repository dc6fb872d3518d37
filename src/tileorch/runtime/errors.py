"""Errors the runtime raises; each message is meant to be read by a person, not parsed."""

from __future__ import annotations


class GpuUnavailable(RuntimeError):
    """No usable GPU: cuda-python is missing, the driver is absent, or no device exists."""


class CudaError(RuntimeError):
    """A CUDA driver call returned an error code."""

    def __init__(self, call: str, name: str, description: str, code: int):
        self.call, self.name, self.description, self.code = call, name, description, code
        super().__init__(f"{call} failed: {name} ({code}): {description}")


class KernelFault(RuntimeError):
    """A launched kernel stopped with an error (a trap, an illegal address, ...).

    A bounded wait emitted by the lowering traps after printing which barrier and phase it
    waited on; that line appears on the process's standard output before this error.
    """


class KernelHang(RuntimeError):
    """A launched kernel did not finish within the watchdog's timeout."""

    def __init__(self, kernel: str, config: str, timeout_s: float, subject: str | None = None):
        self.kernel, self.config, self.timeout_s = kernel, config, timeout_s
        super().__init__(
            f"{subject or f'kernel {kernel!r}'} did not finish within {timeout_s:g} s ({config}): reported as a "
            "hang; the GPU context is unusable until this process exits (a debug build, "
            "tileorch compile --debug-timeout N / debug_timeout=N, prints the barrier a stuck wait waits on)"
        )


class ContextPoisoned(RuntimeError):
    """An earlier kernel hung or faulted; CUDA keeps the context in error until the process exits."""
