'use strict';
// Public API of the dep-resolver library (no I/O here).

const { resolve } = require('./resolver');
const errors = require('./errors');

module.exports = { resolve, ...errors };
