'use strict';
// Execution adapter: one JSON request on stdin -> one result on stdout. All formatting lives here.

const { parse, compare, satisfies, maxSatisfying, InvalidVersionError, InvalidRangeError } = require('./src');

const NO_MATCH = 'none';

class RequestError extends Error {}

function field(req, name) {
  const value = req[name];
  if (typeof value !== 'string') throw new RequestError(`missing field: ${name}`);
  return value;
}

function formatParse(v) {
  return `major=${v.major} minor=${v.minor} patch=${v.patch} prerelease=${v.prereleaseText()} build=${v.build.join('.')}`;
}

// Each handler reads its fields in the documented order: a field is fully checked (present, then valid)
// before the next one is looked at.
const HANDLERS = {
  parse: (req) => formatParse(parse(field(req, 'version'))),
  compare: (req) => {
    const a = field(req, 'a');
    parse(a);
    const b = field(req, 'b');
    return String(compare(a, b));
  },
  satisfies: (req) => {
    const version = field(req, 'version');
    parse(version);
    const range = field(req, 'range');
    return String(satisfies(version, range));
  },
  max_satisfying: (req) => {
    const range = field(req, 'range');
    satisfies('0.0.0', range); // validates the range before the list is looked at
    if (!Array.isArray(req.versions)) throw new RequestError('missing field: versions');
    const best = maxSatisfying(req.versions, range);
    return best === null ? NO_MATCH : best;
  },
};

function handle(req) {
  if (req === null || typeof req !== 'object' || Array.isArray(req)) return 'error: malformed request';
  try {
    if (typeof req.op !== 'string') throw new RequestError('missing field: op');
    if (!Object.prototype.hasOwnProperty.call(HANDLERS, req.op)) return `error: unsupported op: ${req.op}`;
    return HANDLERS[req.op](req);
  } catch (e) {
    if (e instanceof RequestError || e instanceof InvalidVersionError || e instanceof InvalidRangeError) {
      return `error: ${e.message}`;
    }
    throw e;
  }
}

function main() {
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c));
  process.stdin.on('end', () => {
    let req;
    try {
      req = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      req = undefined;
    }
    const out = handle(req);
    process.stdout.write(`${out}\n`);
    process.exitCode = out.startsWith('error: ') ? 1 : 0;
  });
}

if (require.main === module) main();

module.exports = { handle };
