const KEEP_SELF = false;
