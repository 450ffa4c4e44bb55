'use strict';
// Public API of the money-split library (no I/O here).

const { split, allocate } = require('./allocate');
const { format } = require('./format');
const { convert } = require('./convert');
const { MINOR_UNITS } = require('./currencies');
const { MoneyError } = require('./errors');

module.exports = { split, allocate, format, convert, MINOR_UNITS, MoneyError };
