def chain_text(chain):
    return " -> ".join(chain)
