"""The house rules of this limiter (one block per product decision)."""
