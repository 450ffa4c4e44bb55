'use strict';
// Exact decimal strings <-> BigInt minor units. No binary floating point anywhere.

const { MoneyError, show } = require('./errors');
const { minorUnits } = require('./currencies');

const AMOUNT_RE = /^-?[0-9]+(?:\.([0-9]+))?$/;
const RATE_RE = /^[0-9]+(?:\.([0-9]+))?$/;

const pow10 = (n) => 10n ** BigInt(n);

/** Parse an amount string of `currency` into a signed BigInt count of minor units. */
function toMinor(amount, currency) {
  const minor = minorUnits(currency);
  if (typeof amount !== 'string') throw new MoneyError('amount must be a decimal string');
  const m = AMOUNT_RE.exec(amount);
  if (!m) throw new MoneyError(`invalid amount: ${amount}`);
  const frac = m[1] || '';
  if (frac.length > minor) throw new MoneyError(`too many decimals for ${currency}: ${amount}`);
  const negative = amount.startsWith('-');
  const digits = amount.replace(/^-/, '').replace('.', '') + '0'.repeat(minor - frac.length);
  const units = BigInt(digits);
  return negative ? -units : units;
}

/** Parse a conversion rate: an unsigned decimal string greater than zero -> {value: BigInt, scale: digits}. */
function parseRate(rate) {
  if (typeof rate !== 'string') throw new MoneyError('rate must be a decimal string');
  const m = RATE_RE.exec(rate);
  if (!m) throw new MoneyError(`invalid rate: ${show(rate)}`);
  const scale = (m[1] || '').length;
  const value = BigInt(rate.replace('.', ''));
  if (value === 0n) throw new MoneyError(`invalid rate: ${rate}`);
  return { value, scale };
}

/** Split signed minor units into sign and the integer / fraction digit strings (no grouping). */
function parts(units, minor) {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(minor + 1, '0');
  const cut = digits.length - minor;
  return { negative, int: digits.slice(0, cut), frac: digits.slice(cut) };
}

/** Plain rendering: optional "-", integer digits, "." and exactly `minor` fraction digits (none for 0). */
function toPlain(units, minor) {
  const { negative, int, frac } = parts(units, minor);
  return (negative ? '-' : '') + int + (minor > 0 ? `.${frac}` : '');
}

module.exports = { toMinor, parseRate, parts, toPlain, pow10 };
