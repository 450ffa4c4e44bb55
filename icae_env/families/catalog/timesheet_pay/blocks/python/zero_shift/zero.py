ZERO_SHIFT = "zero"
