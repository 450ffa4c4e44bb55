def after_start(moment, start):
    return moment >= start
