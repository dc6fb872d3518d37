"""Which built C-launcher libraries and folders this process may trust (``runtime/c_launch.py`` loads, and
``runtime/c_launch_build.py`` builds, only there): this user's own, writable by no other user.  A module of its
own so that the loader and the builder share the rule without importing each other."""

from __future__ import annotations

import os


def trusted_folder(where: str) -> bool:
    """Whether ``where`` is a folder of this user's own that no other user may write into (see :func:`trusted`)."""
    import stat

    if not hasattr(os, "getuid"):
        return os.path.isdir(where)
    try:
        st = os.stat(where)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & stat.S_IWOTH


def trusted(path: str) -> bool:
    """Whether a built library at ``path`` may be loaded: a regular file owned by this user and not
    world-writable, in a folder owned by this user and not world-writable (a library another local user
    could have written or replaced is never loaded into this process; group write is allowed, as a umask of
    002 gives it)."""
    import stat

    if not hasattr(os, "getuid"):
        return os.path.isfile(path)
    try:
        for st in (os.lstat(path), os.stat(os.path.dirname(path) or ".")):
            if st.st_uid != os.getuid() or st.st_mode & stat.S_IWOTH:
                return False
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False
