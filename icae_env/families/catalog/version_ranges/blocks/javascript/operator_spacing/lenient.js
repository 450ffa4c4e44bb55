const LENIENT_OPERATORS = true;
