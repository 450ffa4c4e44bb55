def tax_base(subtotal, discount, shipping):
    return subtotal - discount
