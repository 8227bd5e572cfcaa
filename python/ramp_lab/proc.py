"""The one way ramp_lab runs `ramp` and `ndq`: stdin from /dev/null (a
child never waits on the driver's terminal), output captured, and on
failure a RampError whose first line is the tool's own error line."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence


class RampError(RuntimeError):
    """A ramp or ndq command failed. The message starts with the tool's own
    error line, then the command and its exit status."""


def error_line(stderr: str) -> str:
    """The tool's own error line: the last `ramp: error:`/`ndq:` line of
    its stderr, else its last non-empty line."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if ln.startswith(("ramp: error:", "ndq:", "error:")):
            return ln
    return lines[-1] if lines else "(no error message)"


def run_checked(cmd: Sequence[str], what: str | None = None) -> bytes:
    """Runs `cmd`; returns its stdout as bytes, raises RampError on a
    non-zero exit. `what` names the step in the message (e.g. `shard 3/8`)."""
    p = subprocess.run(list(cmd), stdin=subprocess.DEVNULL, capture_output=True)
    if p.returncode != 0:
        stderr = p.stderr.decode(errors="replace")
        head = f"{what}: " if what else ""
        raise RampError(
            f"{head}{error_line(stderr)}\n  command: {' '.join(cmd)} (exit {p.returncode})"
        )
    return p.stdout
