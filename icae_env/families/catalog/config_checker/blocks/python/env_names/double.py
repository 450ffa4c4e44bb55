ENV_JOINER = "__"
