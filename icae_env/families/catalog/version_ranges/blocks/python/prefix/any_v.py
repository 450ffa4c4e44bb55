PREFIX = "[vV]?"
