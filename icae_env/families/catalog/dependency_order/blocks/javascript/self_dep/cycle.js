const KEEP_SELF = true;
