"""CPU seconds of lit RUN lines as tests/test_lit.py runs them (the tools forked from tests/tool_forkserver.py,
TILEORCH_VERIFY_EACH_PASS=0 as tests/conftest.py sets it, a fresh compile cache and backend memo), one lit worker,
lexical order, with lit's per-file times (--time-tests).  Run from a checkout's root:

    PATH=.venv/bin:$PATH PYTHONPATH=$PWD/src python benchmarks/lit_cpu.py tests/filecheck [FILES...]

Prints lit's slowest files, the wall seconds and the CPU seconds of every process lit started (children, the fork
server's forks included: the server is stopped and reaped before they are read).  Compare two trees in turns on an
otherwise idle machine: the CPU of a loaded host is inflated by the other jobs."""

import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, "tests")
import tool_forkserver  # noqa: E402

os.environ.setdefault("TILEORCH_VERIFY_EACH_PASS", "0")
os.environ["TILEORCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="lit-cpu-cache-")
os.environ["TILEORCH_BACKEND_MEMO"] = tempfile.mkdtemp(prefix="lit-cpu-memo-")
with tool_forkserver.running() as env:
    bindir = os.path.dirname(sys.executable)
    run_env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], **env)
    start = time.time()
    done = subprocess.run([os.path.join(bindir, "lit"), "-q", "-j", "1", "--order=lexical", "--time-tests",
                           *sys.argv[1:]], env=run_env, capture_output=True, text=True)
    print(done.stdout[-20000:], done.stderr[-3000:])
    print(f"wall {time.time() - start:.1f} s, lit exit status {done.returncode}")
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"children cpu {children.ru_utime + children.ru_stime:.1f} s")
