'use strict';
// Ranges: unions of comparator sets, x-ranges, caret, tilde and hyphen spans; matching and expansion.

const rules = require('./rules');
const { BUILD, NUM, PRE, Version, compare, identifiers } = require('./version');

const WILD = `${NUM}|x|X|\\*`;
const PARTIAL = new RegExp(
  `^(?:${rules.PREFIX})(${WILD})(?:\\.(${WILD})(?:\\.(${WILD})(?:-(${PRE}))?(?:\\+(${BUILD}))?)?)?$`,
);
const OPERATOR = /^(<=|>=|<|>|=|\^|~)?(.*)$/s;
const SPACED_OPERATOR = /(<=|>=|<|>|=|\^|~)[ \t]+/g;
const BLANKS = /[ \t]+/;
const LOWEST = [0n];

class RangeSyntaxError extends Error {}

function parsePartial(text) {
  const m = PARTIAL.exec(text);
  if (!m) return null;
  const wild = (p) => p === undefined || p === 'x' || p === 'X' || p === '*';
  const parts = [m[1], m[2], m[3]].map((p) => (wild(p) ? null : BigInt(p)));
  if (parts.some((p, i) => i < 2 && p === null && parts[i + 1] !== null)) return null;
  const given = parts.filter((p) => p !== null).length;
  const hasTail = m[4] !== undefined || m[5] !== undefined;
  return hasTail && given !== 3 ? null : { parts, pre: identifiers(m[4]), given };
}

/** Lower than every version of `triple`, its prereleases included. */
const below = (triple) => ['<', new Version(triple, LOWEST)];
const NOTHING = below([0n, 0n, 0n]);
const TESTS = { '<': (c) => c < 0, '<=': (c) => c <= 0, '>': (c) => c > 0, '>=': (c) => c >= 0, '=': (c) => c === 0 };

/** One operator and partial version as primitive comparators. */
function desugar(op, partial) {
  const [major, minor, patch] = partial.parts;
  if (partial.given === 3) {
    const exact = new Version(partial.parts, partial.pre);
    if (op === '' || op === '=') return [['=', exact]];
    if (op === '~') return [['>=', exact], below(rules.tildeUpper(major, minor, patch, 3))];
    if (op === '^') return [['>=', exact], below(rules.caretUpper(major, minor, patch, 3))];
    return [[op, exact]];
  }
  if (partial.given === 0) return op === '<' || op === '>' ? [NOTHING] : [];
  const low = [major, minor ?? 0n, 0n];
  const top = partial.given === 1 ? [major + 1n, 0n, 0n] : [major, minor + 1n, 0n];
  if (op === '~') return [['>=', new Version(low)], below(rules.tildeUpper(major, minor ?? 0n, 0n, partial.given))];
  if (op === '^') return [['>=', new Version(low)], below(rules.caretUpper(major, minor ?? 0n, 0n, partial.given))];
  if (op === '>') return [['>=', new Version(top)]];
  if (op === '>=') return [['>=', new Version(low)]];
  if (op === '<') return [below(low)];
  if (op === '<=') return [below(top)];
  return [['>=', new Version(low)], below(top)];
}

/** One comparator set: every comparator must hold; `written` are the prerelease versions it names. */
class Alternative {
  constructor(comparators, written) {
    this.comparators = comparators;
    this.written = written;
  }

  admits(version) {
    if (!this.comparators.every(([op, bound]) => TESTS[op](compare(version, bound)))) return false;
    return !version.pre.length || rules.prereleaseAllowed(version, this.written);
  }

  expanded() {
    return this.comparators.map(([op, bound]) => op + bound.plain()).join(' ') || '*';
  }
}

function hyphen(leftText, rightText) {
  const left = parsePartial(leftText);
  const right = parsePartial(rightText);
  if (!left || !right) return null;
  const comparators = [];
  const written = [];
  if (left.given) {
    const start = new Version(left.parts.map((p) => p ?? 0n), left.pre);
    comparators.push(['>=', start]);
    if (start.pre.length) written.push(start);
  }
  if (right.given === 3) {
    const end = new Version(right.parts, right.pre);
    comparators.push(['<=', end]);
    if (end.pre.length) written.push(end);
  } else if (right.given && rules.HYPHEN_PREFIX) {
    comparators.push(...desugar('<=', right));
  } else if (right.given) {
    comparators.push(['<=', new Version(right.parts.map((p) => p ?? 0n))]);
  }
  return new Alternative(comparators, written);
}

function parseAlternative(text) {
  const words = text.split(BLANKS);
  if (words.length === 3 && words[1] === '-') return hyphen(words[0], words[2]);
  const comparators = [];
  const written = [];
  for (const word of words) {
    const [, op = '', rest] = OPERATOR.exec(word);
    const partial = parsePartial(rest);
    if (!partial) return null;
    comparators.push(...desugar(op, partial));
    if (partial.pre.length) written.push(new Version(partial.parts, partial.pre));
  }
  return new Alternative(comparators, written);
}

/** The alternatives of a range (throws RangeSyntaxError when it does not parse). */
function parseRange(text) {
  if (/^[ \t]*$/.test(text)) return [new Alternative([], [])];
  return text.split('||').map((raw) => {
    let part = raw.replace(/^[ \t]+|[ \t]+$/g, '');
    if (rules.LENIENT_OPERATORS) part = part.replace(SPACED_OPERATOR, '$1');
    const alternative = part ? parseAlternative(part) : null;
    if (!alternative) throw new RangeSyntaxError(text);
    return alternative;
  });
}

const admits = (alternatives, version) => alternatives.some((a) => a.admits(version));

module.exports = { RangeSyntaxError, admits, parseRange };
