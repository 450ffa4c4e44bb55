def before_end(moment, end):
    return moment < end
