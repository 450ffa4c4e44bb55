const PREFIX = '';
