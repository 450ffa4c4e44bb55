DATE_PATTERN = re.compile(r"([0-9]{2})/([0-9]{2})/([0-9]{4})")
DATE_PARTS = (3, 2, 1)
