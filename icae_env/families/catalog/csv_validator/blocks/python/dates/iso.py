DATE_PATTERN = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
DATE_PARTS = (1, 2, 3)
