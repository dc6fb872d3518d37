"""(being written)"""

OPS: list[type] = []
