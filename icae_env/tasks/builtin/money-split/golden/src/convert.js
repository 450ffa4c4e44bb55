'use strict';
// Currency conversion at a given rate, rounded half-to-even to the target's minor units.

const { minorUnits } = require('./currencies');
const { toMinor, parseRate, toPlain, pow10 } = require('./decimal');

/** Divide non-negative n by positive d, rounding half to even. */
function divHalfEven(n, d) {
  const q = n / d;
  const twice = 2n * (n % d);
  if (twice > d || (twice === d && q % 2n === 1n)) return q + 1n;
  return q;
}

/** convert(amount, from, to, rate) -> the amount in `to`, as a plain decimal string. */
function convert(amount, from, to, rate) {
  const fromMinor = minorUnits(from);
  const toMinorDigits = minorUnits(to);
  const units = toMinor(amount, from);
  const r = parseRate(rate);
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const result = divHalfEven(magnitude * r.value * pow10(toMinorDigits), pow10(fromMinor + r.scale));
  return toPlain(negative ? -result : result, toMinorDigits);
}

module.exports = { convert, divHalfEven };
