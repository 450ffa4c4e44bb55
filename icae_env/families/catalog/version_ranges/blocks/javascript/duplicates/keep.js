const DUPLICATES = 'keep';
