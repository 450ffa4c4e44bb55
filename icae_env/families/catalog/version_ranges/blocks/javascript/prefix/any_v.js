const PREFIX = '[vV]?';
