"""``python -m parlour.cli``: the same as the ``parlour`` command."""

import sys

from parlour.cli import main

sys.exit(main())
