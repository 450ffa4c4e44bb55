"""The house rules of this gradebook (one block per product decision)."""

from fractions import Fraction
