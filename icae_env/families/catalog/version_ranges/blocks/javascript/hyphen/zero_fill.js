const HYPHEN_PREFIX = false;
