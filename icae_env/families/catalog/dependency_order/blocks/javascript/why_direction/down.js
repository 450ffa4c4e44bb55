const chainText = (chain) => chain.join(' -> ');
