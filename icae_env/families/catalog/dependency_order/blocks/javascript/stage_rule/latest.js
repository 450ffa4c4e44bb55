function place(order, graph) {
  const last = order[order.length - 1];
  const stage = new Map([[last, depths(order, graph).get(last)]]);
  for (const name of order.slice(0, -1).reverse()) {
    let low = Infinity;
    for (const [user, at] of stage) if (graph.get(user).includes(name)) low = Math.min(low, at);
    stage.set(name, low - 1);
  }
  return stage;
}
