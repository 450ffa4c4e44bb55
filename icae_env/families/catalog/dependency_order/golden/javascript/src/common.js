'use strict';
// Helpers the house rules build on: natural name order and dependency depth.

const byCode = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const isName = (v) => typeof v === 'string' && v !== '';

function runs(name) {
  return (name.match(/[0-9]+|[^0-9]+/g) || []).map((run) => {
    if (run[0] >= '0' && run[0] <= '9') {
      const digits = run.replace(/^0+/, '');
      return [0, digits.length, digits];
    }
    return [1, 0, run];
  });
}

function compareRun(a, b) {
  for (let i = 0; i < 3; i += 1) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return 0;
}

/** Digit runs by their value, other runs by character code, then the names themselves. */
function naturalCompare(a, b) {
  const x = runs(a);
  const y = runs(b);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const c = compareRun(x[i], y[i]);
    if (c) return c;
  }
  if (x.length !== y.length) return x.length - y.length;
  return byCode(a, b);
}

/** Name -> 1 + the deepest of its dependencies (names without dependencies are 1), over an install order. */
function depths(order, graph) {
  const depth = new Map();
  for (const name of order) {
    let deepest = 0;
    for (const dep of graph.get(name)) if (depth.has(dep)) deepest = Math.max(deepest, depth.get(dep));
    depth.set(name, deepest + 1);
  }
  return depth;
}

module.exports = { byCode, isName, naturalCompare, depths };
