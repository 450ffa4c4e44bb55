QUIET_DAY = "none"
