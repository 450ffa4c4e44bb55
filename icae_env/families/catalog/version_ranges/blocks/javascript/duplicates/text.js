const DUPLICATES = 'text';
