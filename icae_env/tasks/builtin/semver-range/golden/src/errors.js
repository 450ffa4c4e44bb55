'use strict';
// Typed errors of the semver core. The adapter turns them into the documented error lines.

class SemverError extends Error {}

class InvalidVersionError extends SemverError {
  constructor(text) {
    super(`invalid version: ${text}`);
    this.name = 'InvalidVersionError';
    this.text = text;
  }
}

class InvalidRangeError extends SemverError {
  constructor(text) {
    super(`invalid range: ${text}`);
    this.name = 'InvalidRangeError';
    this.text = text;
  }
}

module.exports = { SemverError, InvalidVersionError, InvalidRangeError };
