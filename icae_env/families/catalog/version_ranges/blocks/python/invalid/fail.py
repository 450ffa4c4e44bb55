INVALID = "fail"
