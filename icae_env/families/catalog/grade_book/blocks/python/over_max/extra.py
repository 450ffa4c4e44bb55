SCORE_ABOVE_MAX = "extra"
