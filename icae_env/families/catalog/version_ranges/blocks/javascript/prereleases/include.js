const prereleaseAllowed = (version, written) => true;
