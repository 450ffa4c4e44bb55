const REBUILD_ORDER = false;
