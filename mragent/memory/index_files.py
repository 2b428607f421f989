"""Persisted copies of a reader's indexes, so a new process starts without reading the namespace.

Layout: ``<dir>/<uid>/<scopes>/<version>/`` (``dir``: ``$MRAGENT_INDEX_DIR``,
else ``index`` under the mragent home; ``scopes``: a digest of the scopes
indexed), holding ``meta.json`` (format, namespace, scopes, uid, version,
embedder identity), one ``.npy`` file per array (``cues.*.npy`` and
``contents.*.npy``: slot tables, BM25 postings and vocabulary, view state),
``hnsw.bin`` and ``contents_hnsw.bin`` (hnswlib's own files of the cue and
passage vectors). No
content's text is stored: titles and cue texts (the indexes' keys), term
postings and vectors only. A copy is written into a temporary directory and
renamed into place, so a reader only ever sees a whole one; older copies of the
namespace are removed after. Directories are 0700 and files 0600.

Every copy is **signed**: ``seal`` holds an HMAC-SHA256, with a per-home key
(``index.key`` under the mragent home, 0600, made at the first save), over the
name and SHA-256 of every other file. A copy is checked before any of its files
is parsed: hnswlib trusts its files (a crafted ``hnsw.bin`` crashed every later
reader), and a copy with its live masks zeroed would answer nothing. A copy that
fails the check is deleted, with one line logged, and rebuilt from the database.

A checked copy's arrays are **memory-mapped**, not read (``numpy.load`` with
``mmap_mode="c"``: pages come from the file as they are touched, and a write
lands in the reader's private copy of the page, never in the file), so a large
copy's postings cost no parsing at load. The files are mapped after the check,
as they were read after it before. A mapped page not yet touched shows the file
as it is when touched, so a file rewritten in place after the check would be
seen: mragent never rewrites one (a copy's files are created whole, ``O_EXCL``,
in a directory renamed into place, and only ever replaced by a new directory),
and whoever could rewrite one, the owner of the 0700 index directory, could as
well read the home's key. What the check is for (copies torn, made elsewhere or
planted before a reader opens them) it still covers: a bad array can only raise
(numpy checks every index), not crash a reader. hnswlib's ``load_index`` cannot
map: it reads its file into memory it allocates, so the two HNSW files are still
read.

A copy is **tied to the namespace's purge version**: one older than the
namespace's last purge (``purged_v``), or made against another purge version,
may hold words of the erased text, so it is deleted as soon as a reader sees it,
wherever ``$MRAGENT_INDEX_DIR`` points.

Otherwise a copy is used only when its format, namespace identity and embedder
match and its version is one the namespace's change feed can still bring
forward: not newer than the namespace, not older than its oldest dropped-cue
record (``dropped_floor``). Anything else, unreadable files included, is ignored
and rebuilt from the database: a reader never needs a copy to be correct.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

import hnswlib
import numpy as np

from mragent.core.embedding import EmbedderIdentity
from mragent.core.paths import default_home
from mragent.core.retrieval.cue_search import CueIndex
from mragent.core.retrieval.passages import PassageIndex
from mragent.core.retrieval.slot_keys import SlotKeys
from mragent.core.retrieval.sparse_index import SparseIndex
from mragent.core.string_arrays import packed, unpacked
from mragent.memory.keyfile import load_key, make_key
from mragent.memory.live_index import LiveIndex

FORMAT = 6  # 2: the passage vectors' HNSW index; 3: signed, tied to the purge version;
# 4: one .npy file per array, memory-mapped at load; 5: words of every script;
# 6: string columns as UTF-8 text and offsets, not fixed-width arrays
SAVE_AFTER = 500  # rows applied since the last copy that make a new one worth writing
SEAL = "seal"
LOG = logging.getLogger(__name__)


def key_path() -> Path:
    """Where the key that signs index copies is kept: ``index.key`` under the home."""
    return default_home() / "index.key"


def _key(create: bool) -> bytes | None:
    """The signing key; made when ``create`` and missing; None when unusable."""
    path = key_path()
    try:
        if create and not path.exists():
            make_key(path)
        return load_key(path)
    except (OSError, ValueError):
        return None


def _signature(key: bytes, where: Path) -> str:
    """HMAC-SHA256 over the name and SHA-256 of every file of a copy but its seal."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for path in sorted(p for p in where.iterdir() if p.name != SEAL):
        with open(path, "rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        mac.update(f"{path.name}\0{digest}\n".encode())
    return mac.hexdigest()


def _signed(where: Path) -> bool:
    """Whether the copy at ``where`` carries a valid signature with this home's key."""
    key = _key(create=False)
    try:
        seal = (where / SEAL).read_text(encoding="ascii").strip()
        return key is not None and hmac.compare_digest(seal, _signature(key, where))
    except (OSError, UnicodeDecodeError):
        return False


def _usable(where: Path) -> bool:
    """Whether the copy at ``where`` is signed and of this :data:`FORMAT`."""
    try:
        meta = json.loads((where / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("format") == FORMAT and _signed(where)


def index_dir() -> Path:
    """Where index copies live: ``$MRAGENT_INDEX_DIR``, else ``<home>/index``."""
    configured = os.environ.get("MRAGENT_INDEX_DIR")
    return Path(configured).resolve() if configured else default_home() / "index"


def discard(uid: str | None, root: Path | None = None) -> None:
    """Delete every copy kept for the namespace identity ``uid`` (after a purge)."""
    if uid:
        shutil.rmtree((root or index_dir()) / _safe(uid), ignore_errors=True)


def save(index: LiveIndex, root: Path | None = None) -> Path | None:
    """Write ``index`` as its namespace's newest copy; None when it has no identity."""
    if index.uid is None:
        return None
    key = _key(create=True)
    if key is None:  # an unsigned copy would never be loaded: write none
        LOG.warning("index copies not saved: %s cannot be made or read", key_path())
        return None
    base = _base(root, index.uid, index.scopes)
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    for made in (base.parent, base):
        os.chmod(made, 0o700)
    # A copy is several files, so it is published as a directory renamed into place
    # rather than through core.files' one-file atomic write; it is not fsync'ed: a
    # copy torn by a crash fails its seal and is rebuilt from the database.
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=base))
    final = base / str(index.version)
    try:
        _write(index, tmp, key)
        _publish(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for old in base.iterdir():
        if old != final and not old.name.startswith(".tmp-"):
            shutil.rmtree(old, ignore_errors=True)
    index.unsaved = 0
    return final


def _publish(tmp: Path, final: Path) -> None:
    """Rename the written copy ``tmp`` into place as ``final``.

    Readers in several processes save copies of one namespace into one directory,
    often of the same version at once. A signed copy of that version and format
    already in place holds the same index, so it stays and ``tmp`` goes; an
    unsigned one (torn by a crash) or one of an earlier format (which no reader
    loads) is first renamed aside, never deleted in place under another process
    that may be replacing it too.
    """
    try:
        tmp.rename(final)
        return
    except OSError:
        if not final.is_dir():
            raise
    if _usable(final):
        shutil.rmtree(tmp, ignore_errors=True)
        return
    stale = final.with_name(f".tmp-stale-{uuid.uuid4().hex}")
    with contextlib.suppress(FileNotFoundError):
        final.rename(stale)
    try:
        tmp.rename(final)
    except OSError:
        if not (final.is_dir() and _usable(final)):
            raise
        shutil.rmtree(tmp, ignore_errors=True)  # another process published it meanwhile
    shutil.rmtree(stale, ignore_errors=True)


def load(
    space: dict[str, Any],
    ns: str,
    scopes: tuple[str, ...],
    identity: EmbedderIdentity,
    root: Path | None = None,
) -> LiveIndex | None:
    """The newest usable copy of ``scopes`` of the namespace a ``get_space`` row
    describes, or None."""
    uid = space.get("uid")
    if not uid:
        return None
    scopes = tuple(sorted(set(scopes)))
    base = _base(root, uid, scopes)
    versions = (
        sorted((int(p.name) for p in base.glob("*") if p.name.isdigit()), reverse=True)
        if base.is_dir()
        else []
    )
    purged = int(space["purged_v"])
    for version in versions:
        where = base / str(version)
        if version < purged:  # made before the last purge: may hold erased words
            shutil.rmtree(where, ignore_errors=True)
            continue
        if not int(space["dropped_floor"]) <= version <= int(space["version"]):
            continue
        if not _signed(where):
            LOG.warning("index copy %s fails its signature check: deleted, rebuilding", where)
            shutil.rmtree(where, ignore_errors=True)
            continue
        try:
            found = _read(where, ns, scopes, uid, identity)
        except (OSError, ValueError, KeyError, IndexError, TypeError, RuntimeError) as exc:
            # Signed but not readable as this format: deleted, so the rebuilt copy of
            # the same version can take its place.
            LOG.warning("index copy %s cannot be read (%s): deleted, rebuilding", where, exc)
            shutil.rmtree(where, ignore_errors=True)
            continue
        if found is not None and found.purged_v != purged:
            shutil.rmtree(where, ignore_errors=True)  # built against another purge
            continue
        if found is not None:
            return found
    return None


def _write(index: LiveIndex, where: Path, key: bytes) -> None:
    cues, passages = index.cues, index.passages
    meta = {
        "format": FORMAT,
        "ns": index.ns,
        "scopes": list(index.scopes),
        "uid": index.uid,
        "version": index.version,
        "purged_v": index.purged_v,
        "embedder": index.identity.as_text(),
        "cues": len(cues.ids),
        "contents": len(passages.ids),
    }
    cue_arrays = {
        **packed("ids", cues.ids),
        **packed("texts", cues.texts.tolist()),
        **packed("scopes", cues.scopes),
        "live": cues.live[: len(cues.ids)],
        **_prefixed("sparse", cues.sparse.to_arrays()),
    }
    content_arrays = {
        **packed("ids", passages.ids),
        **packed("keys", passages.keys.tolist()),
        **packed("titles", passages.titles),
        **packed("scopes", passages.scopes),
        **_prefixed("column", passages.columns.arrays(len(passages.ids))),
        **_prefixed("sparse", passages.sparse.to_arrays()),
        "dense_present": passages.dense.present[: len(passages.ids)],
    }
    for group, arrays in (("cues", cue_arrays), ("contents", content_arrays)):
        for name, values in arrays.items():
            _private(
                where / f"{group}.{name}.npy",
                lambda f, values=values: np.save(f, np.asarray(values), allow_pickle=False),
            )
    logs = {str(slot): list(entry) for slot, entry in passages.logs.items()}
    _private(where / "logs.json", lambda f: f.write(json.dumps(logs).encode()))
    for name, hnsw in (("hnsw.bin", cues.hnsw), ("contents_hnsw.bin", passages.dense.hnsw)):
        hnsw.save_index(str(where / name))
        os.chmod(where / name, 0o600)
    _private(where / "meta.json", lambda f: f.write(json.dumps(meta).encode()))
    _private(where / SEAL, lambda f: f.write(_signature(key, where).encode()))


def _read(
    where: Path, ns: str, scopes: tuple[str, ...], uid: str, identity: EmbedderIdentity
) -> LiveIndex | None:
    meta = json.loads((where / "meta.json").read_text(encoding="utf-8"))
    found = (meta.get("format"), meta.get("ns"), tuple(meta.get("scopes", ())))
    wanted = (FORMAT, ns, scopes)
    if found != wanted or (meta.get("uid"), meta.get("embedder")) != (uid, identity.as_text()):
        return None
    cue_data, content_data = _mapped(where, "cues"), _mapped(where, "contents")
    cues = CueIndex(identity.dimension)
    cues.hnsw = hnswlib.Index(space="cosine", dim=identity.dimension)
    cues.hnsw.load_index(str(where / "hnsw.bin"), max_elements=max(16, int(meta["cues"])))
    texts = unpacked("texts", cue_data)
    cues.ids, cues.texts = unpacked("ids", cue_data), SlotKeys(texts)
    cues.scopes = unpacked("scopes", cue_data)
    cues.live = cue_data["live"].astype(bool)
    cues.scope_names = sorted(set(cues.scopes))
    cues.scope_codes = np.array([cues.scope_names.index(s) for s in cues.scopes], np.int16)
    cues.slot_of = {cue_id: slot for slot, cue_id in enumerate(cues.ids)}
    live = np.flatnonzero(cues.live).tolist()
    cues.by_text = dict(zip([(cues.scopes[s], texts[s]) for s in live], live, strict=True))
    cues.sparse = SparseIndex.from_arrays(_unprefixed("sparse", cue_data))
    passages = PassageIndex(identity.dimension, dense=not identity.lexical)
    passages.dense.hnsw = hnswlib.Index(space="cosine", dim=identity.dimension)
    passages.dense.hnsw.load_index(
        str(where / "contents_hnsw.bin"), max_elements=max(16, int(meta["contents"]))
    )
    passages.dense.present = content_data["dense_present"].astype(bool)
    passages.ids = unpacked("ids", content_data)
    passages.keys = SlotKeys(unpacked("keys", content_data))
    passages.titles = unpacked("titles", content_data)
    passages.scopes = unpacked("scopes", content_data)
    passages.slot_of = {content_id: slot for slot, content_id in enumerate(passages.ids)}
    passages.scope_names = sorted(set(passages.scopes))
    for name, values in _unprefixed("column", content_data).items():
        setattr(passages.columns, name, values)
    passages.columns.scope = np.array(
        [passages.scope_names.index(s) for s in passages.scopes], np.int16
    )
    passages.sparse = SparseIndex.from_arrays(_unprefixed("sparse", content_data))
    logs = json.loads((where / "logs.json").read_text(encoding="utf-8"))
    passages.logs = {int(slot): (entry[0], entry[1]) for slot, entry in logs.items()}
    version, purged_v = int(meta["version"]), int(meta["purged_v"])
    return LiveIndex(ns, scopes, identity, cues, passages, uid, version, purged_v=purged_v)


def _mapped(where: Path, group: str) -> dict[str, np.ndarray]:
    """The arrays of ``group`` in the copy at ``where``, by name, memory-mapped
    copy-on-write (the file is never written through them)."""
    prefix = f"{group}."
    return {
        path.name[len(prefix) : -len(".npy")]: np.load(path, mmap_mode="c", allow_pickle=False)
        for path in where.glob(f"{prefix}*.npy")
    }


def _private(path: Path, write: Any) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        write(handle)


def _prefixed(prefix: str, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {f"{prefix}_{key}": value for key, value in arrays.items()}


def _unprefixed(prefix: str, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    start = len(prefix) + 1
    return {key[start:]: value for key, value in arrays.items() if key.startswith(prefix + "_")}


def _base(root: Path | None, uid: str, scopes: tuple[str, ...]) -> Path:
    digest = hashlib.sha256("\n".join(scopes).encode()).hexdigest()[:16]
    return (root or index_dir()) / _safe(uid) / digest


def _safe(uid: str) -> str:
    """A uid as a directory name (uuid4 text; anything else is refused)."""
    if not uid.replace("-", "").isalnum() or len(uid) > 64:
        raise ValueError(f"not a namespace identity: {uid!r}")
    return uid
