def fire_set(by_day, by_weekday, dom_star, dow_star):
    if dom_star or dow_star:
        return by_day & by_weekday
    return by_day | by_weekday
