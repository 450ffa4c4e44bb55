def counted(event):
    return is_error(event.level)
