"""The JavaScript golden of ``version-ranges``: the Python golden's program, line for line, for Node (no packages).

Numbers are BigInt (the Python golden's ints), sorting is stable in both, and every regular expression is anchored
and ASCII-only, so both goldens print the same bytes.
"""

from __future__ import annotations

CORE = {
    "src/version.js": r"""'use strict';
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
""",
    "src/ranges.js": r"""'use strict';
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
""",
    "src/index.js": r"""'use strict';
// One request in, one report out: sort, match, resolve, expand and compare semantic versions.

const { RangeSyntaxError, admits, parseRange } = require('./ranges');
const { DUPLICATES, INVALID, NO_MATCH, PICK_LOWEST } = require('./rules');
const { compare, inOrder, parseVersion } = require('./version');

/** A request the tool refuses; the message is the text of the error line. */
class RequestError extends Error {}

function textField(data, name) {
  const value = data[name];
  if (typeof value !== 'string') throw new RequestError(`missing field: ${name}`);
  return value;
}

function textsField(data, name) {
  const value = data[name];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new RequestError(`missing field: ${name}`);
  }
  return value;
}

function checkedRange(text) {
  try {
    return parseRange(text);
  } catch (e) {
    if (e instanceof RangeSyntaxError) throw new RequestError(`invalid range: ${text}`);
    throw e;
  }
}

/** The valid versions of a list, and what the house does with its invalid entries. */
class Versions {
  constructor(texts) {
    const parsed = texts.map((text) => [text, parseVersion(text)]);
    this.valid = distinct(parsed.filter(([, v]) => v !== null).map(([, v]) => v));
    this.invalid = parsed.filter(([, v]) => v === null).map(([text]) => text);
    if (this.invalid.length && INVALID === 'fail') throw new RequestError(`invalid version: ${this.invalid[0]}`);
  }

  footer() {
    return this.invalid.length && INVALID === 'report' ? [`invalid: ${this.invalid.join(', ')}`] : [];
  }
}

const same = (a, b) => (DUPLICATES === 'text' ? a.text === b.text : compare(a, b) === 0);

/** The versions without repeats, under the house rule (the first one written is kept). */
function distinct(versions) {
  if (DUPLICATES === 'keep') return versions;
  const kept = [];
  for (const version of versions) {
    if (!kept.some((other) => same(version, other))) kept.push(version);
  }
  return kept;
}

function pick(candidates) {
  let best = null;
  for (const version of candidates) {
    if (best === null || compare(version, best) === (PICK_LOWEST ? -1 : 1)) best = version;
  }
  return best;
}

function sortReport(data) {
  const versions = new Versions(textsField(data, 'versions'));
  return [...inOrder(versions.valid).map((v) => v.show()), ...versions.footer()];
}

function matchReport(data) {
  const alternatives = checkedRange(textField(data, 'range'));
  const versions = new Versions(textsField(data, 'versions'));
  const hits = versions.valid.filter((v) => admits(alternatives, v));
  const summary = `matched: ${hits.length} of ${versions.valid.length}`;
  return [...inOrder(hits).map((v) => v.show()), summary, ...versions.footer()];
}

function resolveReport(data) {
  const ranges = textsField(data, 'ranges').map((text) => [text, checkedRange(text)]);
  const versions = new Versions(textsField(data, 'versions'));
  const lines = ranges.map(([text, alternatives]) => {
    const best = pick(versions.valid.filter((v) => admits(alternatives, v)));
    return `${text} -> ${best !== null ? best.show() : NO_MATCH}`;
  });
  return [...lines, ...versions.footer()];
}

function expandReport(data) {
  return checkedRange(textField(data, 'range')).map((a) => a.expanded());
}

const isPair = (value) => Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string');

function compareReport(data) {
  const pairs = data.pairs;
  if (!Array.isArray(pairs) || !pairs.every(isPair)) throw new RequestError('missing field: pairs');
  const versions = new Versions(pairs.flat());
  const lines = [];
  for (const [a, b] of pairs.map((pair) => pair.map(parseVersion))) {
    if (a !== null && b !== null) lines.push(`${a.show()} ${'<=>'[compare(a, b) + 1]} ${b.show()}`);
  }
  return [...lines, ...versions.footer()];
}

const OPS = { sort: sortReport, match: matchReport, resolve: resolveReport, expand: expandReport,
  compare: compareReport };
const WITH_RANGE = ['match', 'expand'];

/** The whole output of one request (a JSON object with op, package and the op's fields). */
function handle(data) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return 'error: malformed request\n';
  const op = data.op;
  if (typeof op !== 'string') return 'error: missing field: op\n';
  if (!Object.prototype.hasOwnProperty.call(OPS, op)) return `error: unsupported op: ${op}\n`;
  let pkg;
  let lines;
  try {
    pkg = textField(data, 'package');
    lines = OPS[op](data);
  } catch (e) {
    if (e instanceof RequestError) return `error: ${e.message}\n`;
    throw e;
  }
  const title = WITH_RANGE.includes(op) ? `${pkg} ${data.range}` : pkg;
  return `${[`== ${title} ==`, ...lines].join('\n')}\n`;
}

module.exports = { handle };
""",
}

BLOCKS = {
    "order": {"ascending": "const DESCENDING = false;\n", "descending": "const DESCENDING = true;\n"},
    "display": {
        "as_written": "const shown = (text) => text;\n",
        "canonical": "const shown = (text) => text.replace(/^[vV]/, '').split('+')[0];\n",
    },
    "invalid": {
        "skip": "const INVALID = 'skip';\n",
        "report": "const INVALID = 'report';\n",
        "fail": "const INVALID = 'fail';\n",
    },
    "prefix": {
        "lower_v": "const PREFIX = 'v?';\n",
        "any_v": "const PREFIX = '[vV]?';\n",
        "strict": "const PREFIX = '';\n",
    },
    "prereleases": {
        "same_tuple": (
            "const prereleaseAllowed = (version, written) =>\n"
            "  written.some((w) => w.triple.every((n, i) => n === version.triple[i]));\n"
        ),
        "include": "const prereleaseAllowed = (version, written) => true;\n",
        "never": "const prereleaseAllowed = (version, written) => false;\n",
    },
    "duplicates": {
        "keep": "const DUPLICATES = 'keep';\n",
        "text": "const DUPLICATES = 'text';\n",
        "precedence": "const DUPLICATES = 'precedence';\n",
    },
    "caret_zero": {
        "leftmost": (
            "function caretUpper(major, minor, patch, given) {\n"
            "  if (major > 0n || given === 1) return [major + 1n, 0n, 0n];\n"
            "  if (minor > 0n || given === 2) return [0n, minor + 1n, 0n];\n"
            "  return [0n, 0n, patch + 1n];\n"
            "}\n"
        ),
        "major": "const caretUpper = (major, minor, patch, given) => [major + 1n, 0n, 0n];\n",
        "zero_minor": (
            "const caretUpper = (major, minor, patch, given) =>\n"
            "  (major > 0n || given === 1 ? [major + 1n, 0n, 0n] : [0n, minor + 1n, 0n]);\n"
        ),
    },
    "tilde": {
        "patch_level": (
            "const tildeUpper = (major, minor, patch, given) =>\n"
            "  (given === 1 ? [major + 1n, 0n, 0n] : [major, minor + 1n, 0n]);\n"
        ),
        "pessimistic": (
            "const tildeUpper = (major, minor, patch, given) =>\n"
            "  (given === 3 ? [major, minor + 1n, 0n] : [major + 1n, 0n, 0n]);\n"
        ),
    },
    "hyphen": {"prefix": "const HYPHEN_PREFIX = true;\n", "zero_fill": "const HYPHEN_PREFIX = false;\n"},
    "operator_spacing": {
        "strict": "const LENIENT_OPERATORS = false;\n",
        "lenient": "const LENIENT_OPERATORS = true;\n",
    },
    "resolve": {"highest": "const PICK_LOWEST = false;\n", "lowest": "const PICK_LOWEST = true;\n"},
    "no_match": {
        "none": "const NO_MATCH = 'none';\n",
        "null": "const NO_MATCH = 'null';\n",
        "not_found": "const NO_MATCH = 'not found';\n",
    },
}
EXPORTS = (
    "DESCENDING, shown, INVALID, PREFIX, prereleaseAllowed, DUPLICATES, caretUpper, tildeUpper, HYPHEN_PREFIX, "
    "LENIENT_OPERATORS, PICK_LOWEST, NO_MATCH"
)


def rules_module(values: dict[str, str]) -> str:
    """``src/rules.js``: the chosen block of every decision (absent decisions take the first value's)."""
    parts = ["'use strict';\n// The house rules of this matcher (one block per product decision).\n"]
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else next(iter(blocks.values())))
    parts.append(f"module.exports = {{ {EXPORTS} }};\n")
    return "\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The JavaScript golden's sources for the decisions' ``values`` (``src/index.js`` exports ``handle``)."""
    return {**CORE, "src/rules.js": rules_module(values)}
