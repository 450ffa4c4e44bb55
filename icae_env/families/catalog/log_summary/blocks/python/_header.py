"""The house rules of this log summary (one block per product decision)."""
