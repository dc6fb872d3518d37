"""``python -m tileorch``: the ``tileorch`` command, for environments where the console script is not
installed (a source checkout on ``PYTHONPATH``)."""
import sys

from tileorch.cli.main import main

sys.exit(main())
