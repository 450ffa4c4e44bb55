'use strict';
// Range parsing (unions, comparator sets, hyphen ranges, x-ranges, caret, tilde) and matching.

const { InvalidRangeError } = require('./errors');
const { Version, compareVersions, NUM, PRE, BUILD } = require('./version');

const XR = `${NUM}|x|X|\\*`;
const PARTIAL_RE = new RegExp(
  `^v?(${XR})(?:\\.(${XR})(?:\\.(${XR})(?:-(${PRE}))?(?:\\+(${BUILD}))?)?)?$`,
);
const OP_RE = /^(<=|>=|<|>|=|\^|~)?(.*)$/s;
const WS_RE = /[ \t]+/;

/** A primitive comparator: op is one of '<', '<=', '>', '>=', '='. */
class Comparator {
  constructor(op, version) {
    this.op = op;
    this.version = version;
  }

  test(v) {
    const c = compareVersions(v, this.version);
    switch (this.op) {
      case '<': return c < 0;
      case '<=': return c <= 0;
      case '>': return c > 0;
      case '>=': return c >= 0;
      default: return c === 0;
    }
  }
}

const NOTHING = new Comparator('<', new Version(0n, 0n, 0n, [0n])); // no version is below 0.0.0-0

/**
 * One comparator set (all must hold). `written` holds the versions that the range text itself names with a
 * prerelease tag: only prereleases of those exact major.minor.patch tuples may match the set.
 */
class ComparatorSet {
  constructor(comparators, written) {
    this.comparators = comparators;
    this.written = written;
  }

  test(v) {
    if (!this.comparators.every((c) => c.test(v))) return false;
    if (!v.isPrerelease) return true;
    return this.written.some((w) => w.sameTuple(v));
  }
}

class Range {
  constructor(sets) {
    this.sets = sets;
  }

  test(v) {
    return this.sets.some((s) => s.test(v));
  }
}

// ---- partial versions -------------------------------------------------------------------------------------

/** Parse "1", "1.x", "1.2.*", "1.2.3-rc.1" ... into {parts: [bigint|null x3], pre, full}; null when invalid. */
function parsePartial(text) {
  const m = PARTIAL_RE.exec(text);
  if (!m) return null;
  const raw = [m[1], m[2], m[3]];
  const parts = raw.map((p) => (p === undefined || p === 'x' || p === 'X' || p === '*' ? null : BigInt(p)));
  let seenWild = false;
  for (let i = 0; i < 3; i++) {
    if (parts[i] === null) seenWild = true;
    else if (seenWild) return null; // a number after a wildcard ("1.x.3") is not allowed
  }
  const specified = parts.filter((p) => p !== null).length;
  const hasTail = m[4] !== undefined || m[5] !== undefined;
  if (hasTail && specified !== 3) return null; // prerelease/build only on a full version
  const pre = m[4] === undefined ? [] : m[4].split('.').map((id) => (/^\d+$/.test(id) ? BigInt(id) : id));
  return { parts, specified, pre };
}

const v3 = (M, m, p, pre = []) => new Version(M, m, p, pre);
const LOWEST = [0n]; // "-0": the lowest prerelease, so "<X.Y.Z-0" excludes every version of X.Y.Z
const ge = (v) => new Comparator('>=', v);
const lt = (v) => new Comparator('<', v);

/** Desugar one operator + partial into primitive comparators. */
function desugar(op, partial) {
  const [M, m, p] = partial.parts;
  const k = partial.specified;
  if (k === 3) {
    const v = v3(M, m, p, partial.pre);
    switch (op) {
      case '':
      case '=':
        return [new Comparator('=', v)];
      case '~':
        return [ge(v), lt(v3(M, m + 1n, 0n, LOWEST))];
      case '^':
        if (M > 0n) return [ge(v), lt(v3(M + 1n, 0n, 0n, LOWEST))];
        if (m > 0n) return [ge(v), lt(v3(0n, m + 1n, 0n, LOWEST))];
        return [ge(v), lt(v3(0n, 0n, p + 1n, LOWEST))];
      default:
        return [new Comparator(op, v)];
    }
  }
  if (k === 0) return op === '<' || op === '>' ? [NOTHING] : [];
  // k is 1 (M) or 2 (M.m): the partial covers [low, next) where next bumps the last given part
  const low = k === 1 ? v3(M, 0n, 0n) : v3(M, m, 0n);
  const next = k === 1 ? v3(M + 1n, 0n, 0n) : v3(M, m + 1n, 0n);
  const nextLowest = v3(next.major, next.minor, next.patch, LOWEST);
  const lowLowest = v3(low.major, low.minor, low.patch, LOWEST);
  switch (op) {
    case '':
    case '=':
    case '~':
      return [ge(low), lt(nextLowest)];
    case '^':
      if (k === 2 && M === 0n) return [ge(low), lt(nextLowest)];
      return [ge(low), lt(v3(M + 1n, 0n, 0n, LOWEST))];
    case '>':
      return [ge(next)];
    case '>=':
      return [ge(low)];
    case '<':
      return [lt(lowLowest)];
    case '<=':
      return [lt(nextLowest)];
    default:
      throw new Error(`unreachable operator ${op}`);
  }
}

function hyphen(leftText, rightText) {
  const left = parsePartial(leftText);
  const right = parsePartial(rightText);
  if (!left || !right) return null;
  const comparators = [];
  const written = [];
  if (left.specified > 0) {
    const [M, m, p] = left.parts;
    const v = v3(M, m ?? 0n, p ?? 0n, left.pre);
    comparators.push(ge(v));
    if (v.isPrerelease) written.push(v);
  }
  if (right.specified === 3) {
    const v = v3(...right.parts, right.pre);
    comparators.push(new Comparator('<=', v));
    if (v.isPrerelease) written.push(v);
  } else if (right.specified > 0) {
    comparators.push(...desugar('<=', right));
  }
  return new ComparatorSet(comparators, written);
}

function parseSet(text) {
  const tokens = text.split(WS_RE);
  if (tokens.length === 3 && tokens[1] === '-') return hyphen(tokens[0], tokens[2]);
  const comparators = [];
  const written = [];
  for (const token of tokens) {
    const [, op = '', rest] = OP_RE.exec(token);
    const partial = parsePartial(rest);
    if (!partial) return null; // includes a bare operator, a stray "-" and anything malformed
    comparators.push(...desugar(op, partial));
    if (partial.pre.length) written.push(v3(...partial.parts, partial.pre));
  }
  return new ComparatorSet(comparators, written);
}

/** Parse a range string; throws InvalidRangeError. */
function parseRange(text) {
  if (typeof text !== 'string') throw new InvalidRangeError(String(text));
  if (/^[ \t]*$/.test(text)) return new Range([new ComparatorSet([], [])]);
  const sets = [];
  for (const alt of text.split('||')) {
    const trimmed = alt.replace(/^[ \t]+|[ \t]+$/g, '');
    const set = trimmed === '' ? null : parseSet(trimmed);
    if (!set) throw new InvalidRangeError(text);
    sets.push(set);
  }
  return new Range(sets);
}

module.exports = { Range, ComparatorSet, Comparator, parseRange, parsePartial };
