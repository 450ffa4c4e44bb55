'use strict';
// Versions: parsing under the house prefix rule, SemVer 2.0.0 precedence, the house display.

const { DESCENDING, PREFIX, shown } = require('./rules');

const NUM = '0|[1-9][0-9]*';
const PRE_ID = '0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*';
const PRE = `(?:${PRE_ID})(?:\\.(?:${PRE_ID}))*`;
const BUILD = '[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*';
const FULL = new RegExp(`^(?:${PREFIX})(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE}))?(?:\\+(${BUILD}))?$`);

/** A version: its three numbers (BigInt), its prerelease identifiers and the text it was written as. */
class Version {
  constructor(triple, pre = [], text = '') {
    this.triple = triple;
    this.pre = pre;
    this.text = text;
  }

  show() {
    return shown(this.text);
  }

  plain() {
    const core = this.triple.map(String).join('.');
    return this.pre.length ? `${core}-${this.pre.map(String).join('.')}` : core;
  }
}

function identifiers(text) {
  return text === undefined ? [] : text.split('.').map((i) => (/^[0-9]+$/.test(i) ? BigInt(i) : i));
}

/** The version written as `text`, or null when it is not a valid version. */
function parseVersion(text) {
  const m = typeof text === 'string' ? FULL.exec(text) : null;
  if (!m) return null;
  return new Version([BigInt(m[1]), BigInt(m[2]), BigInt(m[3])], identifiers(m[4]), text);
}

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function compareIds(a, b) {
  const an = typeof a === 'bigint';
  const bn = typeof b === 'bigint';
  if (an && bn) return cmp(a, b);
  if (an || bn) return an ? -1 : 1;
  return cmp(a, b);
}

/** SemVer 2.0.0 precedence of two versions: -1, 0 or 1 (build metadata ignored). */
function compare(a, b) {
  for (let i = 0; i < 3; i++) {
    const c = cmp(a.triple[i], b.triple[i]);
    if (c) return c;
  }
  if (!a.pre.length || !b.pre.length) return cmp(a.pre.length ? 0 : 1, b.pre.length ? 0 : 1);
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const c = compareIds(a.pre[i], b.pre[i]);
    if (c) return c;
  }
  return cmp(a.pre.length, b.pre.length);
}

/** The versions in the house listing order (equal precedence keeps the input order). */
function inOrder(versions) {
  return [...versions].sort(DESCENDING ? (a, b) => compare(b, a) : compare);
}

module.exports = { BUILD, NUM, PRE, Version, compare, identifiers, inOrder, parseVersion };
