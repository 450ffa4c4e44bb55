const NO_MATCH = 'null';
