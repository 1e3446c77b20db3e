"""Writing results so that none is lost: the target is checked before any work, and written through a
temporary file in its folder renamed over it, so a failed or interrupted write leaves the old file whole."""
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
    real = Path(os.path.realpath(path if follow_symlinks else path.parent))
    real = real if follow_symlinks else real / path.name
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
