"""The house rules of this checker (one block per product decision)."""

import re
