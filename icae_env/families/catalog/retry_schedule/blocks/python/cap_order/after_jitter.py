CAP_FIRST = False
