"""`python -m ramp_lab fleet|ndq ...`: the Dask driver (ramp_lab.dist).

maturin's `bin` bindings, which install the `ramp` and `ndq` programs, refuse a
`[project.scripts]` entry beside them, so the driver is run as a module.
"""

import sys

from ramp_lab.dist import main

sys.exit(main())
