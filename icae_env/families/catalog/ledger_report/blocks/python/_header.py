"""The house rules of this ledger (one block per product decision)."""

from fractions import Fraction
