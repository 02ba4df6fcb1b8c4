"""Asks the kernel to reclaim the clean file pages of each process given (pids as arguments).

`./kurz bench footprint --reclaim` runs it to read how much of a process's resident memory it needs
rather than merely holds: a page a process touched once (a library's start-up code, pages the kernel
mapped around a fault) stays resident until memory runs short, and counts in RSS until then.
process_madvise(MADV_PAGEOUT) over every file mapping is what memory pressure would do to those pages
(Linux 5.10 or later, root or CAP_SYS_NICE); a page another process maps too (the node binary shared by
the services) is left alone, and anonymous pages stay (there is no swap). Pages touched again come
back at the next fault, so a reading taken after it shows what the process uses. Node has no system
call interface, hence Python's ctypes. Prints, per pid, the bytes the kernel was asked to reclaim.
"""

import ctypes
import sys

SYS_PIDFD_OPEN = 434
SYS_PROCESS_MADVISE = 440
MADV_PAGEOUT = 21
IOV_MAX = 1024


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def file_mappings(pid):
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) >= 6 and fields[5].startswith("/"):
                start, end = (int(x, 16) for x in fields[0].split("-"))
                yield start, end - start


def page_out(pid):
    fd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), f"pidfd_open({pid})")
    ranges = list(file_mappings(pid))
    advised = 0
    for i in range(0, len(ranges), IOV_MAX):
        chunk = ranges[i : i + IOV_MAX]
        vec = (Iovec * len(chunk))(*[Iovec(start, length) for start, length in chunk])
        done = libc.syscall(SYS_PROCESS_MADVISE, fd, vec, len(chunk), MADV_PAGEOUT, 0)
        if done < 0:
            raise OSError(ctypes.get_errno(), f"process_madvise({pid})")
        advised += done
    return advised


for arg in sys.argv[1:]:
    try:
        print(arg, page_out(int(arg)))
    except (OSError, FileNotFoundError) as e:
        # A process that exited between listing and advising has nothing to reclaim.
        print(arg, f"skipped: {e}", file=sys.stderr)
