def fire_set(by_day, by_weekday, dom_star, dow_star):
    return by_day & by_weekday
