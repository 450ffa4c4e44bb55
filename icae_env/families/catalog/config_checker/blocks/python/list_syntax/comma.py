def list_items(value):
    return [item.strip(" \t") for item in value.split(",")] if "," in value else None
