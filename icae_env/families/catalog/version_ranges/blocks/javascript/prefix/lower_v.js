const PREFIX = 'v?';
