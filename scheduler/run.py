"""The scheduler service's entry point: `python scheduler/run.py` (same as `hindsight scheduler`).

Runs the maintenance job (decay, archive, consolidation) on HINDSIGHT_MAINTENANCE_CRON,
nightly at 03:00 by default, against the same database settings as the server.
"""

import sys

from hindsight.cli.main import main

if __name__ == "__main__":
    main(["scheduler", *sys.argv[1:]])
