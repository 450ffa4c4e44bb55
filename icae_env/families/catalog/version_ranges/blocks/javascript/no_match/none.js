const NO_MATCH = 'none';
