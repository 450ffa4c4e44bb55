'use strict';
// One request in, one report out; the request is checked field by field first.

const { buildGraph } = require('./graph');
const { NEEDS_ROOT, NEEDS_TARGET, REPORTS } = require('./reports');
const { isName } = require('./common');
const { canonical, namesIn } = require('./rules');

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNames = (v) => Array.isArray(v) && namesIn(v) !== null;

/** The first field that is not as documented, or null. */
function badField(data) {
  const { packages, op } = data;
  if (!isObject(packages) || !Object.entries(packages).every(([key, deps]) => isName(key) && isNames(deps))) {
    return 'packages';
  }
  if (NEEDS_ROOT.includes(op) && !isName(data.root)) return 'root';
  if (NEEDS_TARGET.includes(op) && !isName(data.target)) return 'target';
  if (op === 'install' && data.installed !== undefined && data.installed !== null && !isNames(data.installed)) {
    return 'installed';
  }
  return null;
}

function lines(data) {
  const { op } = data;
  if (typeof op !== 'string' || !Object.prototype.hasOwnProperty.call(REPORTS, op)) {
    return [typeof op === 'string' ? `error: unknown op: ${op}` : 'error: unknown op'];
  }
  const field = badField(data);
  if (field) return [`error: bad field: ${field}`];
  const graph = buildGraph(data.packages);
  const root = NEEDS_ROOT.includes(op) ? canonical(data.root) : null;
  if (root !== null && !graph.has(root)) return [`error: unknown root: ${data.root}`];
  return REPORTS[op](data, graph, root);
}

/** The whole output of one request (a JSON object with op, packages and what the op needs). */
function handle(data) {
  if (!isObject(data)) return 'error: unreadable input\n';
  return `${lines(data).join('\n')}\n`;
}

module.exports = { handle };
