"""Writing results so that none is lost: the target is checked before any work, and written through a
temporary file in its folder renamed over it, so a failed or interrupted write leaves the old file whole. And
reading JSON files back as data from outside: capped, and refused in one line when they are no JSON."""
import json
import os
import stat
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
    """write(a temporary file's Path) then rename it over `path`: a stop or an error while writing never leaves
    half a file there, and the file that was there stays until the new one is whole. A symlink at `path` is
    followed, or with follow_symlinks=False replaced itself (a folder the program fills writes nowhere else)."""
    path = Path(path)
    real = Path(os.path.realpath(path)) if follow_symlinks else Path(os.path.realpath(path.parent)) / path.name
    tmp = _create_temporary(real)
    try:
        write(tmp)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text(path, text: str, follow_symlinks: bool = True) -> None:
    """`text` (UTF-8) to `path` through replace_file, flushed to disk before the rename."""
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
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
