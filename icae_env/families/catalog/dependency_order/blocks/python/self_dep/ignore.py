KEEP_SELF = False
