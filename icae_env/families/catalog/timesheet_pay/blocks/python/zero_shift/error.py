ZERO_SHIFT = "error"
