const NO_MATCH = 'not found';
