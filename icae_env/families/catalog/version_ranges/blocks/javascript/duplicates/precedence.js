const DUPLICATES = 'precedence';
