"""A candidate process started ahead of the evaluation that will use it.

A fresh, confined Python importing torch and Triton (and creating a CUDA context) takes seconds;
an evaluation should not wait for it. The worker keeps one candidate process warm per device
kind: started when the worker starts and again for every evaluation, it waits on its channel,
holding nothing of any candidate. The next evaluation's judge (a forked child of the worker)
adopts it; the worker discards it afterwards whatever happened (killed, its folders removed),
and starts its replacement as it is taken, so that each start-up has two evaluations' time.

Each warm process owns two fresh folders, both bound writable into its sandbox at start: its
scratch directory and a build-cache slot. The judge fills the slot with the candidate source's
own build cache (hard links) before the candidate is imported, and copies what the candidate
built back into that source's cache afterwards (confinement.build_cache: a source only ever
reads what evaluations of the same bytes wrote)."""

import os
import shutil
import socket
import stat
import tempfile
import time

from kforge_worker import confinement, file_tree

PREFIX = "kforge-cand-"  # + worker pid + "-": a dead worker's folders can be found

_warm = {}      # device -> [WarmHost, ...]
# Two, so that back-to-back evaluations (a suite) find one that has had a whole evaluation's time
# to import torch and start CUDA, not one started a moment ago.
POOL_SIZE = 2
# KFORGE_EVALUATIONS, when the client knows how many evaluations it will ask for (`kforge eval`:
# 1; baseline, analyze, doctor: 0): no more processes are started ahead than will be used, since
# each costs seconds of CPU (torch's import) and the worker's exit discards what is left.
_taken = 0
adopted = None  # the WarmHost handed to the evaluation being served (see evaluate.handle)


class WarmHost:
    """A started candidate process: its Popen, the judge's end of the channel, its folders."""

    def __init__(self, device):
        self.device = device
        self.root = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
        self.scratch = os.path.join(self.root, "scratch")
        self.slot = os.path.join(self.root, "cache")
        os.makedirs(self.scratch)
        for sub in ("triton", "torch_extensions", "inductor"):
            os.makedirs(os.path.join(self.slot, sub))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.started = time.monotonic()
        try:
            self.process, self.confinement = confinement.start(
                self.scratch, self.slot, device, theirs.fileno(), warm=True)
        except BaseException:
            ours.close()
            file_tree.remove(self.root)
            raise
        finally:
            theirs.close()
        self.sock = ours

    def fds(self):
        """What the judge needs open: the channel and the process's output pipe."""
        fds = (self.sock.fileno(), self.process.stdout.fileno())
        status = self.confinement.get("status_fd")
        return fds + ((status,) if status is not None else ())

    def discard(self):
        confinement.kill(self.process)
        for stream in (self.process.stdout,):
            try:
                stream.close()
            except Exception:
                pass
        try:
            self.sock.close()
        except OSError:
            pass
        if self.confinement.get("status_fd") is not None:
            try:
                os.close(self.confinement["status_fd"])
            except OSError:
                pass
            self.confinement["status_fd"] = None
        file_tree.remove(self.root)


def fill(device):
    """Top the pool for `device` up to POOL_SIZE warm candidate processes (worker process
    only: it never touches CUDA itself, the candidate processes do)."""
    if confinement.probe()["mechanism"] != "bwrap":
        return  # without bwrap's status descriptor only the parent could tell how one ended
    hosts = [host for host in _warm.get(device, []) if host.process.poll() is None]
    while len(hosts) < wanted():
        try:
            hosts.append(WarmHost(device))
        except Exception:  # none: the judge starts one itself, as before
            break
    _warm[device] = hosts


def _evaluations_left():
    """KFORGE_EVALUATIONS less those taken, or None: open-ended (unset or unreadable)."""
    try:
        return int(os.environ["KFORGE_EVALUATIONS"]) - _taken
    except (KeyError, ValueError):
        return None


def wanted():
    """How many warm processes to keep: POOL_SIZE, or fewer when KFORGE_EVALUATIONS says fewer
    evaluations are left (an unreadable value counts as open-ended)."""
    left = _evaluations_left()
    return POOL_SIZE if left is None else max(0, min(POOL_SIZE, left))


def discard_all():
    """Every warm process and its folders (the worker is shutting down: they would die with it,
    by their parent-death signal, and leave their folders until the next worker's start)."""
    for hosts in _warm.values():
        for host in hosts:
            host.discard()
    _warm.clear()


def more_expected():
    """Whether the client may still ask for an evaluation (KFORGE_EVALUATIONS not used up)."""
    left = _evaluations_left()
    return left is None or left > 0


def peek(device):
    """The warm candidate process take(device) would return now, left in the pool, or None."""
    for host in _warm.get(device, []):
        if host.process.poll() is None:
            return host
    return None


def take(device):
    """The longest-waiting warm candidate process for `device`, removed from the pool, or
    None; one evaluation counted against KFORGE_EVALUATIONS either way."""
    global _taken
    _taken += 1
    hosts = _warm.get(device, [])
    while hosts:
        host = hosts.pop(0)
        if host.process.poll() is None:
            return host
        host.discard()
    return None


def remove_stale():
    """Folders of warm processes whose worker died (it could not remove them)."""
    root = tempfile.gettempdir()
    for name in os.listdir(root):
        if name.startswith(PREFIX):
            owner = name[len(PREFIX):].split("-")[0]
            if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
                file_tree.remove(os.path.join(root, name))


def load_slot(slot, cache):
    """The source's build cache into the slot, as hard links (no copy; a write into a linked
    file changes that same source's cache, which is the policy)."""
    for folder, _, files in file_tree.walk(cache):
        target = os.path.join(slot, os.path.relpath(folder, cache))
        os.makedirs(target, exist_ok=True)
        for name in files:
            source, destination = os.path.join(folder, name), os.path.join(target, name)
            if os.path.islink(source) or os.path.exists(destination):
                continue
            try:
                os.link(source, destination)
            except OSError:
                shutil.copy2(source, destination)


# One candidate source's compiler output (Triton kernels, an extension build: tens of MB); a
# cache grown past this holds something else, written through the links or into the slot
CACHE_LIMIT_BYTES = 512 << 20
# All sources' caches together: a candidate changed by one comment gets a cache of its own, so
# without this a run of many candidates could fill the disk 512 MiB at a time (blind red team,
# session 9). Past it, the least recently used caches go.
CACHES_LIMIT_BYTES = 4 << 30
_SIZES = ".sizes"  # beside the caches, never linked into a slot: each cache's size at its save


def save_slot(slot, cache, limit_bytes=CACHE_LIMIT_BYTES, total_limit_bytes=CACHES_LIMIT_BYTES):
    """What the candidate built, back into its source's cache (the process is gone by now).
    Links are copied as links, never followed. A cache that ends up past `limit_bytes` (new
    files, or linked ones grown in place) is emptied: it is only a cache, rebuilt next time.
    Then the least recently saved other caches go while all of them pass `total_limit_bytes`."""
    _copy_slot(slot, cache, limit_bytes)
    size = _tree_bytes(cache)
    if size > limit_bytes:
        for sub in os.listdir(cache):
            path = os.path.join(cache, sub)
            if os.path.isdir(path) and not os.path.islink(path):
                file_tree.remove(path)
                os.makedirs(path, exist_ok=True)
            else:
                os.remove(path)
        size = 0
    _trim_caches(os.path.dirname(cache), os.path.basename(cache), size, total_limit_bytes)


def _trim_caches(root, current, size, total_limit_bytes):
    sizes_dir = os.path.join(root, _SIZES)
    os.makedirs(sizes_dir, exist_ok=True)
    with open(os.path.join(sizes_dir, current), "w") as handle:  # its mtime: when last saved
        handle.write(str(size))
    recorded = []
    for name in os.listdir(sizes_dir):
        path = os.path.join(sizes_dir, name)
        try:
            with open(path) as handle:
                recorded.append((os.stat(path).st_mtime, name, int(handle.read() or 0)))
        except (OSError, ValueError):
            continue
    total = sum(bytes_ for _, _, bytes_ in recorded)
    for _, name, bytes_ in sorted(recorded):  # oldest first
        if total <= total_limit_bytes:
            break
        if name == current:
            continue
        file_tree.remove(os.path.join(root, name))
        try:  # another evaluation may have trimmed it first
            os.remove(os.path.join(sizes_dir, name))
        except OSError:
            pass
        total -= bytes_


def _tree_bytes(root):
    total = 0
    for folder, _, files in file_tree.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total


# Mode bits no build output needs and the host must never take from a candidate: set-user-ID,
# set-group-ID, sticky, and writable by group or others. Blind red team, session 34: a candidate
# copied /bin/dash into its slot and made it mode 6777; the slot is mounted nosuid in the
# sandbox, but the copy back (and a linked file, changed in place) left a setuid-root shell in
# the host's cache. They are cleared on every file of the cache the slot touched.
UNSAFE_MODE_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH


def _clear_unsafe_mode(path):
    """The unsafe bits off a regular file (the candidate's process is gone: no race)."""
    mode = os.lstat(path).st_mode
    if stat.S_ISREG(mode) and mode & UNSAFE_MODE_BITS:
        os.chmod(path, stat.S_IMODE(mode) & ~UNSAFE_MODE_BITS)


def _compiler_name(path):
    """A name a compiler would write (blind red team, session 36: names holding a newline,
    bytes that are not UTF-8, or starting with "-" came back into the host's cache, where a
    shell script that tends it would misread them)."""
    for name in path.split(os.sep):
        if name.startswith("-") or any(ord(c) < 32 or ord(c) == 127 or 0xDC80 <= ord(c) <= 0xDCFF
                                       for c in name):
            return False
    return True


def _copy_slot(slot, cache, limit_bytes):
    kept = 0
    for folder, _, files in file_tree.walk(slot):  # not below file_tree.MAX_DEPTH
        if not _compiler_name(os.path.relpath(folder, slot)):
            continue
        target = os.path.join(cache, os.path.relpath(folder, slot))
        try:
            os.makedirs(target, exist_ok=True)
        except OSError:  # a name too long: not a compiler's
            continue
        for name in files:
            source, destination = os.path.join(folder, name), os.path.join(target, name)
            if not _compiler_name(name):
                continue
            try:
                if os.path.islink(source):
                    continue
                if os.path.exists(destination) and os.path.samefile(source, destination):
                    _clear_unsafe_mode(destination)  # linked: its mode changed in place
                    continue
                kept += os.path.getsize(source)
                if kept > limit_bytes:
                    return
                shutil.copy2(source, destination + ".kforge-tmp")
                _clear_unsafe_mode(destination + ".kforge-tmp")
                os.replace(destination + ".kforge-tmp", destination)
            except OSError:
                continue
