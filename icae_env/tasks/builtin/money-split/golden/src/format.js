'use strict';
// Human formatting: thousands separators, fixed minor digits, currency code before or after.

const { MoneyError, show } = require('./errors');
const { minorUnits } = require('./currencies');
const { toMinor, parts } = require('./decimal');

const POSITIONS = new Set(['prefix', 'suffix']);

function group(int) {
  return int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** format(amount, currency, position = "suffix") -> "1,234.50 USD" / "USD 1,234.50" (minus before the digits). */
function format(amount, currency, position = 'suffix') {
  const minor = minorUnits(currency);
  const units = toMinor(amount, currency);
  if (position === null || position === undefined) position = 'suffix';
  if (!POSITIONS.has(position)) throw new MoneyError(`unknown position: ${show(position)}`);
  const { negative, int, frac } = parts(units, minor);
  const number = (negative ? '-' : '') + group(int) + (minor > 0 ? `.${frac}` : '');
  return position === 'prefix' ? `${currency} ${number}` : `${number} ${currency}`;
}

module.exports = { format };
