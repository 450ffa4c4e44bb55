const LENIENT_OPERATORS = false;
