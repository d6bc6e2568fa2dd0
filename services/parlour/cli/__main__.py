"""``python -m parlour.cli``: the ``parlour`` command, for where the script is not on PATH."""

import sys

from parlour.cli import main

sys.exit(main())
