'use strict';
// Install-order resolution: iterative depth-first post-order with a deterministic tie-break,
// cycle detection, missing-package collection and reuse of pre-resolved sub-trees.

const { CycleError, MissingPackagesError, UnknownRootError } = require('./errors');

/** Ascending UTF-16 code-unit order (plain string comparison). */
const byName = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function sortedUnique(names) {
  return [...new Set(names)].sort(byName);
}

/**
 * Compute the install order of `root`.
 *
 * @param {Map<string, string[]>} packages package -> direct dependencies
 * @param {string} root
 * @param {Map<string, string[]>} [cache] package -> already-resolved install order of its sub-tree
 * @returns {string[]} dependencies before dependents, root last (or the cached order of the root)
 * @throws {UnknownRootError|CycleError|MissingPackagesError}
 */
function resolve(packages, root, cache = new Map()) {
  if (cache.has(root)) return [...cache.get(root)];
  if (!packages.has(root)) throw new UnknownRootError(root);

  const order = [];
  const installed = new Set();
  const onStack = new Set();
  const finished = new Set();
  const missing = new Set();

  const install = (name) => {
    if (!installed.has(name)) {
      installed.add(name);
      order.push(name);
    }
  };

  const stack = [{ name: root, deps: sortedUnique(packages.get(root)), next: 0 }];
  onStack.add(root);
  while (stack.length) {
    const frame = stack[stack.length - 1];
    if (frame.next === frame.deps.length) {
      stack.pop();
      onStack.delete(frame.name);
      finished.add(frame.name);
      install(frame.name);
      continue;
    }
    const dep = frame.deps[frame.next++];
    if (onStack.has(dep)) {
      const from = stack.findIndex((f) => f.name === dep);
      throw new CycleError([...stack.slice(from).map((f) => f.name), dep]);
    }
    if (finished.has(dep) || installed.has(dep) || missing.has(dep)) continue;
    if (cache.has(dep)) {
      cache.get(dep).forEach(install); // trusted sub-tree: spliced in order, never traversed
      finished.add(dep);
      continue;
    }
    if (!packages.has(dep)) {
      missing.add(dep);
      continue;
    }
    stack.push({ name: dep, deps: sortedUnique(packages.get(dep)), next: 0 });
    onStack.add(dep);
  }

  if (missing.size) throw new MissingPackagesError([...missing].sort(byName));
  return order;
}

module.exports = { resolve };
