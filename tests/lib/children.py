"""Child processes that die with the test that started them.

`die_with_parent()` is a `preexec_fn` for subprocess.Popen: the child asks
Linux (prctl PR_SET_PDEATHSIG) for SIGKILL when the test process exits for
any reason, a ctest timeout or a crash included, so no server outlives its
test even when the test never reaches its cleanup.
"""

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def die_with_parent():
    parent = os.getpid()  # the test process, parent of the child to be

    def arm():
        _libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        # The parent may have died before prctl: then nobody would kill us.
        if os.getppid() != parent:
            os._exit(1)

    return arm
