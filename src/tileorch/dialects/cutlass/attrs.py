"""(being written)"""

ATTRS: list[type] = []
