'use strict';
// Typed resolution errors. The adapter renders them as the documented error lines.

class ResolveError extends Error {}

class CycleError extends ResolveError {
  /** @param {string[]} path the cycle, first name repeated at the end */
  constructor(path) {
    super(`cycle: ${path.join(' -> ')}`);
    this.name = 'CycleError';
    this.path = path;
  }
}

class MissingPackagesError extends ResolveError {
  /** @param {string[]} names sorted, unique */
  constructor(names) {
    super(`missing packages: ${names.join(', ')}`);
    this.name = 'MissingPackagesError';
    this.names = names;
  }
}

class UnknownRootError extends ResolveError {
  constructor(root) {
    super(`unknown root: ${root}`);
    this.name = 'UnknownRootError';
    this.root = root;
  }
}

module.exports = { ResolveError, CycleError, MissingPackagesError, UnknownRootError };
