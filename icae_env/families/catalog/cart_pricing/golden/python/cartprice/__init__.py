"""Cart pricing: receipts, order totals, coupons, shipping options and
cart checks for a small online shop."""

from .app import handle

__all__ = ["handle"]
