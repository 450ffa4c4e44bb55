'use strict';
// The one error type of the library. Its message is the documented error text (without the "error: " prefix).

class MoneyError extends Error {
  constructor(message) {
    super(message);
    this.name = 'MoneyError';
  }
}

/** Render an offending value for an error line: strings as they are, anything else as JSON. */
function show(value) {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

module.exports = { MoneyError, show };
