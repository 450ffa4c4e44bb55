"""The house rules of this scheduler (one block per product decision)."""
