#!/bin/sh
# The code stays POSIX C: every GNU or Linux-only call, flag or field
# (pipe2, memrchr, st_mtim, getrandom, epoll, ...) appears only inside a
# platform conditional (#if naming __linux__, __APPLE__, __FreeBSD__ or
# MI_POSIX_ONLY), where the other branch is the POSIX fallback.  A use
# outside one would not build on macOS, which no CI runner here has; the
# sanitized pass builds the fallbacks on Linux (-DMI_POSIX_ONLY).
. "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" && python3 - format indexer mcp query tools <<'PY' || exit 1
import os, re, sys

# Not in POSIX, missing or different on macOS.
NAMES = """pipe2 accept4 dup3 memrchr rawmemchr strchrnul mempcpy strdupa strndupa
st_mtim st_atim st_ctim epoll_create epoll_create1 epoll_ctl epoll_wait
inotify_init inotify_init1 inotify_add_watch signalfd timerfd_create eventfd
memfd_create getrandom sched_getaffinity sched_setaffinity fallocate
posix_fallocate posix_fadvise sync_file_range copy_file_range renameat2 statx
MAP_POPULATE MAP_NORESERVE O_TMPFILE O_PATH O_DIRECT SOCK_CLOEXEC SOCK_NONBLOCK
MSG_NOSIGNAL prctl get_nprocs sysinfo ppoll mremap syncfs secure_getenv
strverscmp versionsort malloc_usable_size malloc_trim mallinfo
program_invocation_name canonicalize_file_name get_current_dir_name qsort_r
sem_init sem_timedwait clock_nanosleep timer_create pthread_setname_np
pthread_getattr_np pthread_timedjoin_np pthread_tryjoin_np
pthread_spin_lock pthread_barrier_init""".split()
WORD = re.compile(r"\b(" + "|".join(NAMES) + r")\b")
PLATFORM = re.compile(r"__linux__|__APPLE__|__FreeBSD__|__GLIBC__|MI_POSIX_ONLY")

def strip(src):
    """Blanks comments and string/char literals, keeping line breaks."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j])); i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else "")); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)

bad = []
for root in sys.argv[1:]:
    for d, _, files in os.walk(root):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.join(d, f)
            stack = []   # one bool per open #if group: does it name a platform?
            for no, line in enumerate(strip(open(p, encoding="utf-8", errors="replace").read()).split("\n"), 1):
                m = re.match(r"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", line)
                if m:
                    kw, cond = m.groups()
                    if kw in ("if", "ifdef", "ifndef"):
                        stack.append(bool(PLATFORM.search(cond)))
                    elif kw == "elif" and stack:
                        stack[-1] = stack[-1] or bool(PLATFORM.search(cond))
                    elif kw == "endif" and stack:
                        stack.pop()
                    continue
                for w in WORD.findall(line):
                    if not any(stack):
                        bad.append("%s:%d: %s outside a platform conditional" % (p, no, w))
if bad:
    print("FAIL: not POSIX and without a fallback:\n  " + "\n  ".join(bad))
    sys.exit(1)
print("ok")
PY
