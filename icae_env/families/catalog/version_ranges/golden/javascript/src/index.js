'use strict';
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
