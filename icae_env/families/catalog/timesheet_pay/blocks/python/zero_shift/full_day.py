ZERO_SHIFT = "full_day"
