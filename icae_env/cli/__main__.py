"""``python -m icae_env.cli``."""

import sys

from icae_env.cli import main

sys.exit(main())
