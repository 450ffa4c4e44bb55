const DESCENDING = false;
