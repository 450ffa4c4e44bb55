def list_items(value):
    if not (value.startswith("[") and value.endswith("]")):
        return None
    return [item.strip(" \t") for item in value[1:-1].split(",")]
