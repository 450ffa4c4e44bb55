function findChain(graph, root, target) {
  const parent = new Map([[root, null]]);
  const queue = [root];
  for (let i = 0; i < queue.length; i += 1) {
    let name = queue[i];
    if (name === target) {
      const chain = [];
      while (name !== null) {
        chain.push(name);
        name = parent.get(name);
      }
      return chain.reverse();
    }
    for (const dep of graph.get(name) || []) {
      if (!parent.has(dep)) {
        parent.set(dep, name);
        queue.push(dep);
      }
    }
  }
  return null;
}
