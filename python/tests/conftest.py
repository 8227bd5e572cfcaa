"""Shared fixtures: one Dask LocalCluster (two single-threaded worker
processes on loopback) for the whole session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def cluster() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                     host="127.0.0.1", dashboard_address=None)
    client = Client(c)
    yield client
    client.close()
    c.close()
