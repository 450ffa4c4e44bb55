'use strict';
// Execution adapter: one JSON request on stdin -> the install order (or one error line) on stdout.

const { resolve, ResolveError } = require('./src');

const own = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isName = (v) => typeof v === 'string' && v.length > 0;

class BadField extends Error {}

/** A JSON object mapping non-empty names to arrays of non-empty names -> Map, else BadField(field). */
function nameListMap(value, field) {
  if (!isObject(value)) throw new BadField(field);
  const map = new Map();
  for (const key of Object.keys(value)) {
    const list = value[key];
    if (!isName(key) || !Array.isArray(list) || !list.every(isName)) throw new BadField(field);
    map.set(key, list);
  }
  return map;
}

function handle(req) {
  if (!isObject(req)) return 'error: unreadable input\n';
  try {
    const packages = nameListMap(own(req, 'packages') ? req.packages : undefined, 'packages');
    const root = own(req, 'root') ? req.root : undefined;
    if (!isName(root)) throw new BadField('root');
    const rawCache = own(req, 'cache') ? req.cache : null;
    const cache = rawCache === null ? new Map() : nameListMap(rawCache, 'cache');
    const order = resolve(packages, root, cache);
    return order.map((name) => `${name}\n`).join('');
  } catch (e) {
    if (e instanceof BadField) return `error: bad field: ${e.message}\n`;
    if (e instanceof ResolveError) return `error: ${e.message}\n`;
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
    process.stdout.write(out);
    process.exitCode = out.startsWith('error: ') ? 1 : 0;
  });
}

if (require.main === module) main();

module.exports = { handle };
