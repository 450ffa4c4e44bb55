const INVALID = 'skip';
