const INVALID = 'fail';
