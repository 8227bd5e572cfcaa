"""`ramp-lab fleet|ndq ...` (also `python -m ramp_lab`): the Dask driver
(ramp_lab.dist)."""

from ramp_lab.dist import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
