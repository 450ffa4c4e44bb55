def ships_free(basis, threshold):
    return basis >= threshold
