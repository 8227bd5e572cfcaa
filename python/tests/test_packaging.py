"""The two distributions agree with the workspace: ramp-lab's version,
its pin on ramp-bin and Cargo's workspace version (which ramp-bin takes)
are one number, and the `ramp-lab` console script points at the driver."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else None


def load(path: Path) -> dict:
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    with path.open("rb") as f:
        return tomllib.load(f)


def test_one_version_across_cargo_and_both_distributions():
    cargo = load(ROOT / "Cargo.toml")["workspace"]["package"]["version"]
    lab = load(ROOT / "python" / "pyproject.toml")["project"]
    assert lab["version"] == cargo
    assert f"ramp-bin=={cargo}" in lab["dependencies"]
    binaries = load(ROOT / "python" / "bin" / "pyproject.toml")
    assert binaries["project"]["name"] == "ramp-bin"
    assert binaries["project"]["dynamic"] == ["version"]


def test_the_console_script_is_the_driver():
    from ramp_lab import __main__, dist

    lab = load(ROOT / "python" / "pyproject.toml")["project"]
    assert lab["scripts"] == {"ramp-lab": "ramp_lab.__main__:main"}
    assert __main__.main is dist.main
