"""The house rules of this timesheet (one block per product decision)."""

from fractions import Fraction
