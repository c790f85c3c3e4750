"""A fault-injecting filesystem for the storage-fault tests: a FUSE passthrough (fusepy over
libfuse 2) of a backing directory whose answers a test switches while services keep files
open in it. A read-only filesystem cannot be had by remounting (Linux refuses with EBUSY
while a file is open for writing), so the faults are made here, per call:

  normal    everything passes through
  readonly  every change fails with EROFS (writes, creates, renames, removals, truncation)
  denied    every change fails with EACCES (a directory made unwritable)
  full      growing a file or making a directory fails with ENOSPC; statfs shows no space
  eio       every change and every sync fails with EIO (reads still work)

Run as `python3 faultfs.py BACKING MOUNTPOINT MODEFILE` (foreground, as root); the mode is the
word in MODEFILE, read again whenever the file changes. Tests use the `FaultFS` class."""
import errno
import os
import pathlib
import subprocess
import sys
import time

FAULTS = {"readonly": errno.EROFS, "denied": errno.EACCES, "full": errno.ENOSPC, "eio": errno.EIO}


def serve(backing, mountpoint, modefile):
    from fuse import FUSE, FuseOSError, Operations

    class FaultPassthrough(Operations):
        def __init__(self):
            self.mode_key = None
            self.mode = "normal"

        def current(self):
            try:
                status = os.stat(modefile)
                key = (status.st_ino, status.st_mtime_ns, status.st_size)
                if key != self.mode_key:
                    self.mode = pathlib.Path(modefile).read_text().strip()
                    self.mode_key = key
            except OSError:
                self.mode = "normal"
            return self.mode

        def change(self, grows=False):
            """Raises the current fault for a call that changes the filesystem (`grows`: needs space)."""
            mode = self.current()
            if mode in ("readonly", "denied", "eio") or (mode == "full" and grows):
                raise FuseOSError(FAULTS[mode])

        @staticmethod
        def real(path):
            return os.path.join(backing, path.lstrip("/"))

        # Reading passes through in every mode.
        def getattr(self, path, fh=None):
            status = os.fstat(fh) if fh is not None else os.lstat(self.real(path))
            return {key: getattr(status, key) for key in ("st_mode", "st_ino", "st_nlink", "st_uid", "st_gid", "st_size",
                                                         "st_atime", "st_mtime", "st_ctime", "st_blocks")}

        def readdir(self, path, fh):
            return [".", ".."] + os.listdir(self.real(path))

        def readlink(self, path):
            return os.readlink(self.real(path))

        def statfs(self, path):
            status = os.statvfs(self.real(path))
            result = {key: getattr(status, key) for key in ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail",
                                                           "f_files", "f_ffree", "f_favail", "f_flag", "f_namemax")}
            if self.current() == "full":
                result["f_bfree"] = result["f_bavail"] = 0
            return result

        def access(self, path, amode):
            if amode & os.W_OK and self.current() in ("readonly", "denied"):
                raise FuseOSError(FAULTS[self.current()])
            if not os.access(self.real(path), amode):
                raise FuseOSError(errno.EACCES)

        def open(self, path, flags):
            if flags & (os.O_WRONLY | os.O_RDWR | os.O_TRUNC):
                self.change()
            return os.open(self.real(path), flags)

        def read(self, path, size, offset, fh):
            return os.pread(fh, size, offset)

        def release(self, path, fh):
            os.close(fh)

        def flush(self, path, fh):
            return 0

        # Changes fail in the fault modes.
        def write(self, path, data, offset, fh):
            self.change(grows=offset + len(data) > os.fstat(fh).st_size)
            return os.pwrite(fh, data, offset)

        def truncate(self, path, length, fh=None):
            size = os.fstat(fh).st_size if fh is not None else os.lstat(self.real(path)).st_size
            self.change(grows=length > size)
            if fh is not None:
                os.ftruncate(fh, length)
            else:
                os.truncate(self.real(path), length)

        def fsync(self, path, datasync, fh):
            if self.current() == "eio":
                raise FuseOSError(errno.EIO)
            (os.fdatasync if datasync else os.fsync)(fh)

        def create(self, path, mode, fi=None):
            self.change()
            # Readable too: the kernel reads through this handle for a shared mapping (SQLite's -shm).
            return os.open(self.real(path), os.O_RDWR | os.O_CREAT, mode)

        def mkdir(self, path, mode):
            self.change(grows=True)
            os.mkdir(self.real(path), mode)

        def mknod(self, path, mode, dev):
            self.change()
            os.mknod(self.real(path), mode, dev)

        def unlink(self, path):
            self.change()
            os.unlink(self.real(path))

        def rmdir(self, path):
            self.change()
            os.rmdir(self.real(path))

        def rename(self, old, new):
            self.change()
            os.rename(self.real(old), self.real(new))

        def link(self, target, source):
            self.change()
            os.link(self.real(source), self.real(target))

        def symlink(self, target, source):
            self.change()
            os.symlink(source, self.real(target))

        def chmod(self, path, mode):
            self.change()
            os.chmod(self.real(path), mode)

        def chown(self, path, uid, gid):
            self.change()
            os.chown(self.real(path), uid, gid)

        def utimens(self, path, times=None):
            self.change()
            os.utime(self.real(path), times)

    FUSE(FaultPassthrough(), mountpoint, foreground=True, nothreads=False, use_ino=True, big_writes=True,
         fsname="locus-faultfs")


class FaultFS:
    """The filesystem mounted for a test at `root/mnt` over `root/backing`; `set(mode)` switches
    its answers at once. Skips the test, printing why, when it cannot be mounted."""

    def __init__(self, root):
        import pytest

        reason = self.unavailable()
        if reason:
            print(f"skipped: {reason}")
            pytest.skip(reason)
        self.backing, self.mount, self.control = root / "backing", root / "mnt", root / "mode"
        self.backing.mkdir(parents=True)
        self.mount.mkdir()
        self.set("normal")
        self.log = root / "faultfs.log"
        with open(self.log, "w") as log:
            self.process = subprocess.Popen([sys.executable, __file__, str(self.backing), str(self.mount), str(self.control)],
                                            stdout=log, stderr=log)
        deadline = time.monotonic() + 20
        while not os.path.ismount(self.mount):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                reason = f"cannot mount a FUSE filesystem: {self.log.read_text().strip()[-300:]}"
                print(f"skipped: {reason}")
                pytest.skip(reason)
            time.sleep(0.05)

    @staticmethod
    def unavailable():
        if os.geteuid() != 0:
            return "mounting a FUSE filesystem needs root"
        if not os.path.exists("/dev/fuse"):
            return "/dev/fuse is missing"
        try:
            import fuse  # noqa: F401
        except (ImportError, OSError) as error:
            return f"fusepy with libfuse 2 is needed (scripts/install-deps.sh): {error}"
        return None

    def set(self, mode):
        assert mode == "normal" or mode in FAULTS, mode
        staged = self.control.with_suffix(".new")
        staged.write_text(mode)
        os.replace(staged, self.control)

    def stop(self):
        subprocess.run(["umount", "-l", str(self.mount)], capture_output=True)
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: faultfs.py BACKING MOUNTPOINT MODEFILE")
    serve(os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3]))
