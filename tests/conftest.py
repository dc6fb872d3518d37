"""Suite-wide settings: lowering bugs are reported at the pass that made them (every pass's
output is verified, which ``tileorch compile`` skips for speed)."""

import os

os.environ.setdefault("TILEORCH_VERIFY_EACH_PASS", "1")
