SCORE_ABOVE_MAX = "error"
