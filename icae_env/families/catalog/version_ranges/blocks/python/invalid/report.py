INVALID = "report"
