def prerelease_allowed(version, written):
    return True
