PREFIX = "v?"
