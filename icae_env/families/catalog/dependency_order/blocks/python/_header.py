"""The house rules of this resolver (one block per product decision)."""

import re

from .common import depths, is_name, natural_key
