'use strict';
// Execution adapter: one JSON request on stdin -> the answer (or one error line) on stdout.

const { split, allocate, format, convert, MoneyError } = require('./src');
const { minorUnits } = require('./src/currencies');
const { toMinor } = require('./src/decimal');
const { show } = require('./src/errors');

const own = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value of a required field; absent or null -> MoneyError "missing field: <name>". */
function need(req, name) {
  if (!own(req, name) || req[name] === null) throw new MoneyError(`missing field: ${name}`);
  return req[name];
}

// Each op reads its fields one at a time, in the documented order, so the first problem found wins.
const OPS = {
  split(req) {
    const currency = need(req, 'currency');
    minorUnits(currency);
    const amount = need(req, 'amount');
    toMinor(amount, currency);
    return split(amount, currency, need(req, 'ratios'));
  },
  allocate(req) {
    const currency = need(req, 'currency');
    minorUnits(currency);
    const amount = need(req, 'amount');
    toMinor(amount, currency);
    return allocate(amount, currency, need(req, 'parties')).map((p) => `${p.name}: ${p.amount}`);
  },
  format(req) {
    const currency = need(req, 'currency');
    minorUnits(currency);
    const amount = need(req, 'amount');
    return [format(amount, currency, own(req, 'position') ? req.position : undefined)];
  },
  convert(req) {
    const from = need(req, 'from');
    minorUnits(from);
    const to = need(req, 'to');
    minorUnits(to);
    const amount = need(req, 'amount');
    toMinor(amount, from);
    return [convert(amount, from, to, need(req, 'rate'))];
  },
};

function handle(req) {
  if (!isObject(req)) return 'error: request must be a JSON object\n';
  try {
    const op = need(req, 'op');
    if (typeof op !== 'string' || !own(OPS, op)) throw new MoneyError(`unknown op: ${show(op)}`);
    return OPS[op](req).map((line) => `${line}\n`).join('');
  } catch (e) {
    if (e instanceof MoneyError) return `error: ${e.message}\n`;
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
