PREFIX = ""
