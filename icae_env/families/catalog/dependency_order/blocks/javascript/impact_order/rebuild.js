const REBUILD_ORDER = true;
