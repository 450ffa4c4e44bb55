const HYPHEN_PREFIX = true;
