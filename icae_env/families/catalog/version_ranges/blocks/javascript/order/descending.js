const DESCENDING = true;
