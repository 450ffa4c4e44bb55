def prerelease_allowed(version, written):
    return False
