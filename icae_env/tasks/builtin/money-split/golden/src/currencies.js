'use strict';
// The fixed currency table: ISO 4217 code -> number of minor-unit digits.

const { MoneyError, show } = require('./errors');

const MINOR_UNITS = Object.freeze({
  BHD: 3,
  CHF: 2,
  EUR: 2,
  GBP: 2,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  USD: 2,
});

/** Minor-unit digits of `code` (exact, case-sensitive), else MoneyError "unknown currency: <code>". */
function minorUnits(code) {
  if (typeof code !== 'string' || !Object.prototype.hasOwnProperty.call(MINOR_UNITS, code)) {
    throw new MoneyError(`unknown currency: ${show(code)}`);
  }
  return MINOR_UNITS[code];
}

module.exports = { MINOR_UNITS, minorUnits };
