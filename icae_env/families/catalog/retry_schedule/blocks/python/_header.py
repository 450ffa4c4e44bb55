"""The house rules of this calculator (one block per product decision)."""
