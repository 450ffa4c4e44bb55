'use strict';
// Public API of the semver-range library (no I/O here).

const { parseVersion, tryParseVersion, compareVersions, Version } = require('./version');
const { parseRange } = require('./range');
const errors = require('./errors');

/** Parse a version string into a Version (throws InvalidVersionError). */
function parse(version) {
  return parseVersion(version);
}

/** Compare two version strings by precedence: -1, 0 or 1. */
function compare(a, b) {
  return compareVersions(parseVersion(a), parseVersion(b));
}

/** Whether `version` satisfies `range` (throws on an invalid version or range). */
function satisfies(version, range) {
  const v = parseVersion(version);
  return parseRange(range).test(v);
}

/**
 * The highest entry of `versions` that satisfies `range`, as written in the list, or null.
 * Entries that are not valid versions are skipped; among equal-precedence entries the first wins.
 */
function maxSatisfying(versions, range) {
  const r = parseRange(range);
  let best = null;
  let bestText = null;
  for (const text of versions) {
    const v = typeof text === 'string' ? tryParseVersion(text) : null;
    if (!v || !r.test(v)) continue;
    if (best === null || compareVersions(v, best) > 0) {
      best = v;
      bestText = text;
    }
  }
  return bestText;
}

module.exports = { parse, compare, satisfies, maxSatisfying, Version, ...errors };
