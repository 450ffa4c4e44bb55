'use strict';
// Version parsing and SemVer 2.0.0 precedence. Numbers are BigInt so any length of digits compares exactly.

const { InvalidVersionError } = require('./errors');

const NUM = '0|[1-9]\\d*';
const PRE_ID = '0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*';
const BUILD_ID = '[0-9A-Za-z-]+';
const PRE = `(?:${PRE_ID})(?:\\.(?:${PRE_ID}))*`;
const BUILD = `${BUILD_ID}(?:\\.${BUILD_ID})*`;
const VERSION_RE = new RegExp(`^v?(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${PRE}))?(?:\\+(${BUILD}))?$`);

class Version {
  /**
   * @param {bigint} major
   * @param {bigint} minor
   * @param {bigint} patch
   * @param {Array<string|bigint>} prerelease identifiers (numeric ones as BigInt)
   * @param {string[]} build identifiers
   */
  constructor(major, minor, patch, prerelease = [], build = []) {
    this.major = major;
    this.minor = minor;
    this.patch = patch;
    this.prerelease = prerelease;
    this.build = build;
  }

  get isPrerelease() {
    return this.prerelease.length > 0;
  }

  sameTuple(other) {
    return this.major === other.major && this.minor === other.minor && this.patch === other.patch;
  }

  prereleaseText() {
    return this.prerelease.map(String).join('.');
  }

  toString() {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.prerelease.length) s += `-${this.prereleaseText()}`;
    if (this.build.length) s += `+${this.build.join('.')}`;
    return s;
  }
}

function parsePrerelease(text) {
  return text.split('.').map((id) => (/^\d+$/.test(id) ? BigInt(id) : id));
}

/** Parse a full version ("1.2.3", "v1.2.3-rc.1+build.7"); throws InvalidVersionError. */
function parseVersion(text) {
  const m = typeof text === 'string' ? VERSION_RE.exec(text) : null;
  if (!m) throw new InvalidVersionError(String(text));
  return new Version(
    BigInt(m[1]),
    BigInt(m[2]),
    BigInt(m[3]),
    m[4] === undefined ? [] : parsePrerelease(m[4]),
    m[5] === undefined ? [] : m[5].split('.'),
  );
}

/** Parse or return null. */
function tryParseVersion(text) {
  try {
    return parseVersion(text);
  } catch (e) {
    if (e instanceof InvalidVersionError) return null;
    throw e;
  }
}

function cmpBig(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareIdentifiers(a, b) {
  const an = typeof a === 'bigint';
  const bn = typeof b === 'bigint';
  if (an && bn) return cmpBig(a, b);
  if (an) return -1; // numeric identifiers sort before alphanumeric ones
  if (bn) return 1;
  return a < b ? -1 : a > b ? 1 : 0; // ASCII order
}

/** SemVer precedence: -1, 0 or 1. Build metadata is ignored. */
function compareVersions(a, b) {
  const core = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (core) return core;
  if (!a.isPrerelease && !b.isPrerelease) return 0;
  if (!a.isPrerelease) return 1; // a release outranks its prereleases
  if (!b.isPrerelease) return -1;
  const n = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifiers(a.prerelease[i], b.prerelease[i]);
    if (c) return c;
  }
  return cmpBig(BigInt(a.prerelease.length), BigInt(b.prerelease.length));
}

module.exports = { Version, parseVersion, tryParseVersion, compareVersions, NUM, PRE, BUILD };
