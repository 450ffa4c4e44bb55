"""The house pricing rules of this shop (one block per product decision)."""

from dataclasses import replace
