def counted(event):
    return True
