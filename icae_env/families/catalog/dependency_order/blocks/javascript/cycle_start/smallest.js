function startAt(loop) {
  const at = loop.indexOf(loop.reduce((low, name) => (name < low ? name : low)));
  return [...loop.slice(at), ...loop.slice(0, at)];
}
