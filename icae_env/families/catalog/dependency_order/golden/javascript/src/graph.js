'use strict';
// The request's map as a graph of names, each with its dependencies in visiting order.

const { KEEP_SELF, arrange, canonical, namesIn } = require('./rules');

/** Name -> dependencies (duplicates dropped, in visiting order); spellings merged by the house name rule. */
function buildGraph(raw) {
  const graph = new Map();
  for (const [key, deps] of Object.entries(raw)) {
    const name = canonical(key);
    if (!graph.has(name)) graph.set(name, []);
    const own = graph.get(name);
    for (const spelled of namesIn(deps)) {
      const dep = canonical(spelled);
      if (!own.includes(dep) && (KEEP_SELF || dep !== name)) own.push(dep);
    }
  }
  for (const [name, deps] of graph) graph.set(name, arrange(deps));
  return graph;
}

module.exports = { buildGraph };
