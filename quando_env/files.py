"""Writing results so that none is lost: the target is checked before any work, and written through a
temporary file in its folder renamed over it, so a failed or interrupted write leaves the old file whole. And
reading JSON files back as data from outside: capped, and refused in one line when they are no JSON."""
import contextlib
import json
import os
import stat
import threading
import uuid
from pathlib import Path


def output_target(path) -> Path:
    """The file `path` names (symlinks followed), if a result can be written there: a regular file or none, in
    a folder where a file can be created (tried). OSError-free: ValueError saying why not."""
    given = Path(path)
    real = Path(os.path.realpath(given))
    if os.path.lexists(given) and not os.path.exists(given):
        raise ValueError(f"{given} is a symlink to nothing (or a loop of symlinks)")
    try:
        if real.exists() and not stat.S_ISREG(real.stat().st_mode):
            raise ValueError(f"{given} is not a regular file" + (" (a folder)" if real.is_dir() else ""))
        tmp = _create_temporary(real)
        os.unlink(tmp)
    except OSError as e:
        raise ValueError(f"cannot write {given}: {e.strerror or e}") from None
    return real


def _create_temporary(real: Path) -> Path:
    tmp = real.with_name(f"{real.name}.{uuid.uuid4().hex[:12]}.tmp")
    os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))     # the umask applies, as for open()
    return tmp


def replace_file(path, write, follow_symlinks: bool = True) -> None:
    """write(a temporary file's Path), flush it to disk, then rename it over `path`: a stop or an error while
    writing (a full disk: ENOSPC, EFBIG, EIO) never leaves half a file there, and the file that was there stays
    until the new one is whole. An OSError names `path` (its filename), not the temporary file. A symlink at `path` is
    followed, or with follow_symlinks=False replaced itself (a folder the program fills writes nowhere else)."""
    path = Path(path)
    real = Path(os.path.realpath(path)) if follow_symlinks else Path(os.path.realpath(path.parent)) / path.name
    tmp = _create_temporary(real)
    try:
        write(tmp)
        _sync(tmp)
        os.replace(tmp, real)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and e.filename in (None, str(tmp)):
            e.filename, e.filename2 = str(path), None       # the file the caller writes, not the temporary
        raise


def _sync(path) -> None:
    """What was written to the file `path`, on the disk: a full disk or an I/O error shows here, before the
    rename."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_text(path, text: str, follow_symlinks: bool = True) -> None:
    """`text` (UTF-8) to `path` through replace_file."""
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
    replace_file(path, write, follow_symlinks)


MAX_JSON_BYTES = 1 << 20        # a settings or state file read back (a run's state.json holds a few kB)


def read_json(path, noun: str, max_bytes: int = MAX_JSON_BYTES):
    """The JSON value in the file `path`, a `noun` ("game record", ...) to the messages: ValueError naming the
    file when it cannot be read, is larger than max_bytes (refused unread), is not UTF-8 JSON or is nested too
    deeply for the parser. The caller checks the value's type, range and depth as it reads it."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise ValueError(f"cannot read the {noun} {path}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise ValueError(f"{path} is larger than {max_bytes} bytes: a {noun} this large is refused unread")
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise ValueError(f"{path} is not a JSON {noun}: nested too deeply") from None
    except ValueError as e:         # json.JSONDecodeError, UnicodeDecodeError, an integer of over 4,300 digits
        raise ValueError(f"{path} is not a JSON {noun}: {e}") from None


def not_written(e: OSError, default) -> str:
    """'cannot write PATH: REASON' for a write that failed (a full disk, a file too large, an I/O error);
    `default` names what was written when the error names no file (a stream such as TensorBoard's)."""
    return f"cannot write {e.filename or default}: {e.strerror or e}"


@contextlib.contextmanager
def writes_fail_in_main_thread():
    """Within it, a thread that ends on an OSError prints no traceback: its writer (TensorBoard's) raises that error
    again in the thread writing through it, which reports it in one line."""
    previous = threading.excepthook

    def hook(a):
        if not issubclass(a.exc_type, OSError):
            previous(a)
    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous
