const firstKind = (result) => result.events[0];
