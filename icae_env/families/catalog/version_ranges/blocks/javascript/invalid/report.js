const INVALID = 'report';
