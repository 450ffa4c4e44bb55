'use strict';
// The depth-first walk every report is built on: the post-order, and the problems in the order met.

const { startAt } = require('./rules');

const ON_PATH = 1;
const DONE = 2;

/** Walk from each start in turn (iteratively); `leaves` are present but never expanded. */
function walk(graph, starts, leaves = new Set()) {
  const result = { order: [], missing: [], cycles: [], events: [] };
  const state = new Map();
  const seen = new Set();
  for (const start of starts) {
    if (state.has(start) || leaves.has(start)) continue;
    const path = [start];
    const nexts = [0];
    state.set(start, ON_PATH);
    while (path.length) {
      const top = path[path.length - 1];
      const deps = graph.get(top);
      const at = nexts.length - 1;
      if (nexts[at] === deps.length) {
        path.pop();
        nexts.pop();
        state.set(top, DONE);
        result.order.push(top);
        continue;
      }
      const dep = deps[nexts[at]];
      nexts[at] += 1;
      if (state.get(dep) === ON_PATH) {
        result.cycles.push(startAt(path.slice(path.indexOf(dep))));
        result.events.push('cycle');
      } else if (state.get(dep) === DONE || leaves.has(dep)) {
        continue;
      } else if (!graph.has(dep)) {
        if (!seen.has(dep)) {
          seen.add(dep);
          result.missing.push([dep, top]);
          result.events.push('missing');
        }
      } else {
        state.set(dep, ON_PATH);
        path.push(dep);
        nexts.push(0);
      }
    }
  }
  return result;
}

/** The install order of `root` alone: the walk's prefix up to the root (empty when it was not walked). */
function closure(result, root) {
  const at = result.order.indexOf(root);
  return at < 0 ? [] : result.order.slice(0, at + 1);
}

module.exports = { walk, closure };
