"""The house rules of this validator (one block per product decision)."""

import re
