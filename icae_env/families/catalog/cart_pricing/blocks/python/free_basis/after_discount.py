def free_basis(subtotal, discount):
    return subtotal - discount
