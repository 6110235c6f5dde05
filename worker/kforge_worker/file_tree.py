"""Folders a candidate wrote (its scratch directory, its build-cache slot): removing them, walking
them, measuring them, whatever their depth. shutil.rmtree and os.walk recurse once per level: a
candidate's 3000-deep chain of folders raised RecursionError in the worker's clean-up of stale
folders at start-up (ignore_errors does not catch it), so no worker could start on the host
until someone removed the tree by hand (blind red team, session 15). Paths that deep also pass
PATH_MAX, so nothing here builds one."""

import os
import shutil
import subprocess

# Deeper than this, a tree is not the compilers' (Triton's, torch extensions' and Inductor's
# caches are 2-5 levels deep): the judge kills a candidate that builds one, and the build-cache
# copy-back skips what lies below it.
MAX_DEPTH = 48


def remove(path):
    """Removes `path` and everything below it, at any depth, never raising: GNU rm walks with
    descriptors (fts) and stays on one file system; shutil is the fallback where rm is missing."""
    if not os.path.lexists(path):
        return
    try:
        subprocess.run(["rm", "-rf", "--one-file-system", "--", path], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300,
                       check=False)
    except (OSError, subprocess.SubprocessError):
        pass
    if os.path.lexists(path):
        try:
            shutil.rmtree(path, ignore_errors=True)
        except RecursionError:
            pass


def walk(root, max_depth=MAX_DEPTH):
    """Like os.walk(root) top-down, links not followed, at most `max_depth` levels below `root`:
    yields (folder, [subfolder names], [file names]). Folders are opened relative to their
    parent's descriptor (os.fwalk), so a path past PATH_MAX below a short one is still read; a
    path that long cannot be used by the caller, which skips it (OSError)."""
    for folder, folders, files, _ in _levels(root, max_depth):
        yield folder, folders, files


def usage(roots, limit_files, max_depth=MAX_DEPTH):
    """(bytes allocated, entries, deepest level) under `roots`, links not followed. The walk
    stops counting past `limit_files` entries (a flood of empty files would make it slow) and
    does not go below `max_depth` + 1 levels: the caller treats either as over its limit."""
    total = entries = deepest = 0
    for root in roots:
        for _, folders, files, (fd, depth) in _levels(root, max_depth + 1):
            deepest = max(deepest, depth)
            for name in folders + files:
                entries += 1
                try:
                    total += os.stat(name, dir_fd=fd, follow_symlinks=False).st_blocks * 512
                except OSError:
                    continue
            if entries > limit_files:
                return total, entries, deepest
    return total, entries, deepest


def _levels(root, max_depth):
    """os.fwalk below `root`, pruned at `max_depth` levels (so its recursion stays shallow):
    yields (folder, folders, files, (descriptor, depth)); folders deeper than the cut are listed
    in `folders` of the last level but not entered."""
    depths = {root: 0}
    try:
        for folder, folders, files, fd in os.fwalk(root, topdown=True, follow_symlinks=False):
            depth = depths.pop(folder, 0)
            listed = list(folders)
            if depth >= max_depth:
                folders[:] = []
            for name in folders:
                depths[os.path.join(folder, name)] = depth + 1
            yield folder, listed, [n for n in files if _is_file(n, fd)], (fd, depth)
    except (OSError, RecursionError):
        return


def _is_file(name, fd):
    import stat
    try:
        return stat.S_ISREG(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return False
