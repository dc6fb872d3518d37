"""IR definitions: the ``cutlass`` dialect and the target dialects (``nvvm``, ``nv_tileas``)."""
