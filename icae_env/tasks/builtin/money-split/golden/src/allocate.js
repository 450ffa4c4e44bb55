'use strict';
// Largest-remainder allocation of an exact number of minor units.

const { MoneyError } = require('./errors');
const { minorUnits } = require('./currencies');
const { toMinor, toPlain } = require('./decimal');

const MAX_PARTIES = 100;

/**
 * Distribute `total` (BigInt minor units) proportionally to `weights` (BigInt, >= 0, sum > 0).
 * Each share is floor(|total| * w / sum); the units left over go one each to the largest remainders,
 * ties to the earliest position. A negative total is split by magnitude and every share negated.
 */
function largestRemainder(total, weights) {
  const sum = weights.reduce((a, b) => a + b, 0n);
  const negative = total < 0n;
  const magnitude = negative ? -total : total;
  const shares = weights.map((w) => (magnitude * w) / sum);
  const remainders = weights.map((w) => (magnitude * w) % sum);
  let left = magnitude - shares.reduce((a, b) => a + b, 0n);
  const order = weights.map((_, i) => i);
  order.sort((a, b) => {
    if (remainders[a] !== remainders[b]) return remainders[a] > remainders[b] ? -1 : 1;
    return a - b;
  });
  for (let k = 0; left > 0n; k += 1, left -= 1n) shares[order[k]] += 1n;
  return negative ? shares.map((s) => -s) : shares;
}

const isWeight = (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** split(amount, currency, ratios) -> share amount strings, in ratio order. */
function split(amount, currency, ratios) {
  const minor = minorUnits(currency);
  const total = toMinor(amount, currency);
  if (!Array.isArray(ratios) || ratios.length === 0) throw new MoneyError('ratios must be a non-empty list');
  if (ratios.length > MAX_PARTIES) throw new MoneyError(`too many parties (max ${MAX_PARTIES})`);
  ratios.forEach((r, i) => {
    if (!isWeight(r)) throw new MoneyError(`ratio #${i + 1} must be a non-negative integer`);
  });
  const weights = ratios.map((r) => BigInt(r));
  if (weights.every((w) => w === 0n)) throw new MoneyError('ratios sum to zero');
  return largestRemainder(total, weights).map((units) => toPlain(units, minor));
}

/** allocate(amount, currency, parties [{name, weight}]) -> [{name, amount}], in party order. */
function allocate(amount, currency, parties) {
  const minor = minorUnits(currency);
  const total = toMinor(amount, currency);
  if (!Array.isArray(parties) || parties.length === 0) throw new MoneyError('parties must be a non-empty list');
  if (parties.length > MAX_PARTIES) throw new MoneyError(`too many parties (max ${MAX_PARTIES})`);
  const seen = new Set();
  parties.forEach((p, i) => {
    const ok = p !== null && typeof p === 'object' && !Array.isArray(p);
    if (!ok || typeof p.name !== 'string' || p.name.length === 0) throw new MoneyError(`party #${i + 1} needs a name`);
    if (seen.has(p.name)) throw new MoneyError(`duplicate party: ${p.name}`);
    seen.add(p.name);
    if (!isWeight(p.weight)) throw new MoneyError(`bad weight for party ${p.name}`);
  });
  const weights = parties.map((p) => BigInt(p.weight));
  if (weights.every((w) => w === 0n)) throw new MoneyError('weights sum to zero');
  const shares = largestRemainder(total, weights);
  return parties.map((p, i) => ({ name: p.name, amount: toPlain(shares[i], minor) }));
}

module.exports = { split, allocate, largestRemainder, MAX_PARTIES };
