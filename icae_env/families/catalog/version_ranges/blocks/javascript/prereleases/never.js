const prereleaseAllowed = (version, written) => false;
