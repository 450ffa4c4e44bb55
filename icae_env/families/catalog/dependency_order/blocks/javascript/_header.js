'use strict';
// The house rules of this resolver (one block per product decision).

const { byCode, depths, isName, naturalCompare } = require('./common');
