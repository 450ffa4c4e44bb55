def prerelease_allowed(version, written):
    return any(w.triple == version.triple for w in written)
