const place = (order, graph) => depths(order, graph);
