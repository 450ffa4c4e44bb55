"""The house rules of this matcher (one block per product decision)."""
