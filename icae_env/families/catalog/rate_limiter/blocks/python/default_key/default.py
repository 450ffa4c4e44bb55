KEYLESS = "default"
