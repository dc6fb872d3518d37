"""``python -m tileorch``: the ``tileorch`` command, for environments where the console script is not
installed (a source checkout on ``PYTHONPATH``): :func:`tileorch.cli.main.program`."""
from tileorch.cli.main import program

program()
