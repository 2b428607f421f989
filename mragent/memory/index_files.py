"""Persisted copies of a reader's indexes, so a new process starts without reading the namespace.

Layout: ``<dir>/<uid>/<scopes>/<signer>/<version>/`` (``dir``:
``$MRAGENT_INDEX_DIR``, else ``index`` under the mragent home; ``scopes``: a
digest of the scopes indexed; ``signer``: a digest of the key that signs the
copy, so homes sharing one index directory keep their copies apart instead of
deleting each other's as tampered), holding ``meta.json`` (format, namespace,
scopes, uid, version, embedder identity, scope names), one ``.npy`` file per
array (``cues.*.npy`` and ``contents.*.npy``: slot tables, BM25 postings,
vocabulary and bounds, view state, and the slots in id order and in (scope, cue
text) order that the lookups of :mod:`~mragent.core.retrieval.sorted_lookup`
search),
``hnsw.bin`` and ``contents_hnsw.bin`` (hnswlib's own files of the cue and
passage vectors). No
content's text is stored: titles and cue texts (the indexes' keys), term
postings and vectors only. Strings stay packed when loaded
(:class:`~mragent.core.string_arrays.PackedStrings`): each is decoded when used.
A copy is written into a temporary directory and renamed into place, so a
reader only ever sees a whole one; older copies of the namespace are removed
after. Directories are 0700 and files 0600.

Every copy is **signed**: ``seal`` holds an HMAC-SHA256, with a per-home key
(``index.key`` under the mragent home, 0600, made at the first save), over the
name and SHA-256 of every other file. A copy is checked before any of its files
is parsed: hnswlib trusts its files (a crafted ``hnsw.bin`` crashed every later
reader), and a copy with its live masks zeroed would answer nothing. A copy that
fails the check is deleted, with one line logged, and rebuilt from the database.

Hashing a million memories' copy (about 900 MB) took longer than the rest of
opening it, so a check keeps what it hashed: ``seal.record`` holds, under an
HMAC with the same key, each file's identity (device, inode, size, modification
and change times in ns) and SHA-256. A file whose identity is the recorded one
is taken at its recorded digest without reading it, if its change time is
earlier than the record's own: a write to the file after the record was made
gives it a change time at least the record's, which nobody but root can set
back, and a replacement file is another inode. A file changed in the same clock
tick as the record was written (the file systems' times are coarse) is therefore
hashed again, as is every file the record does not name or names otherwise;
the seal is then checked against the digests, and the record made anew.
Files whose names start with a dot (a record being replaced) are not part of a
copy.

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
from mragent.core.files import PRIVATE, write_bytes_atomic
from mragent.core.paths import default_home
from mragent.core.retrieval.cue_search import CueIndex
from mragent.core.retrieval.passages import PassageIndex
from mragent.core.retrieval.slot_keys import SlotKeys, prefixes
from mragent.core.retrieval.sorted_lookup import IdSlots, ScopedSlots, SortedLookup, key_order
from mragent.core.retrieval.sparse_index import SparseIndex
from mragent.core.string_arrays import (
    PackedStrings,
    StringColumn,
    packed,
)
from mragent.memory.keyfile import load_key, make_key
from mragent.memory.live_index import LiveIndex

FORMAT = 7  # 2: the passage vectors' HNSW index; 3: signed, tied to the purge version;
# 4: one .npy file per array, memory-mapped at load; 5: words of every script;
# 6: string columns as UTF-8 text and offsets, not fixed-width arrays; 7: scopes as
# codes into the names in meta.json, the BM25 terms' bounds kept
SAVE_AFTER = 500  # rows applied since the last copy that make a new one worth writing
SEAL = "seal"
RECORD = "seal.record"  # identities and digests of the files last checked
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


Identity = tuple[int, int, int, int, int]  # device, inode, size, mtime ns, ctime ns


def _sealed(key: bytes, files: dict[str, tuple[Identity, str]]) -> str:
    """The seal of a copy whose files are ``files`` (:func:`_digests`): HMAC-SHA256
    over the name and SHA-256 of every file but the seal and its record."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for name in sorted(files):
        mac.update(f"{name}\0{files[name][1]}\n".encode())
    return mac.hexdigest()


def _identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _digests(
    where: Path, known: dict[str, tuple[Identity, str]], settled_before: int = 0
) -> tuple[dict[str, tuple[Identity, str]], bool]:
    """Every file of the copy (not its seal or record) -> (identity, SHA-256 hex), and
    whether any was read: the digest in ``known`` where the file's identity is the one
    known and its change time is before ``settled_before`` (ns), else the file's
    hashed now."""
    found: dict[str, tuple[Identity, str]] = {}
    hashed = False
    for path in where.iterdir():
        if path.name in (SEAL, RECORD) or path.name.startswith("."):
            continue
        entry = known.get(path.name)
        if entry is not None:
            identity = _identity(path.stat())
            if identity == entry[0] and identity[4] < settled_before:
                found[path.name] = entry
                continue
        with open(path, "rb") as handle:  # the identity of the very file hashed
            identity = _identity(os.fstat(handle.fileno()))
            found[path.name] = (identity, hashlib.file_digest(handle, "sha256").hexdigest())
        hashed = True
    return found, hashed


def _record_mac(key: bytes, files: dict[str, tuple[Identity, str]]) -> str:
    text = json.dumps({name: [*files[name][0], files[name][1]] for name in sorted(files)})
    return hmac.new(key, b"record\0" + text.encode(), hashlib.sha256).hexdigest()


def _recorded(key: bytes, where: Path) -> tuple[dict[str, tuple[Identity, str]], int]:
    """The files the copy's record vouches for, and the record's change time (ns);
    nothing when there is no record or its MAC fails."""
    try:
        with open(where / RECORD, "rb") as handle:
            changed = os.fstat(handle.fileno()).st_ctime_ns
            data = json.loads(handle.read())
        files: dict[str, tuple[Identity, str]] = {}
        for name, row in data["files"].items():
            dev, ino, size, mtime, ctime, digest = row
            identity = (int(dev), int(ino), int(size), int(mtime), int(ctime))
            files[str(name)] = (identity, str(digest))
        if hmac.compare_digest(str(data["mac"]), _record_mac(key, files)):
            return files, changed
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        pass
    return {}, 0


def _record(key: bytes, where: Path, files: dict[str, tuple[Identity, str]]) -> None:
    """Keep ``files`` (identities and digests) as the copy's record; best effort: a
    copy without one is hashed whole at its next check."""
    data = {
        "files": {name: [*identity, digest] for name, (identity, digest) in files.items()},
        "mac": _record_mac(key, files),
    }
    with contextlib.suppress(OSError):
        write_bytes_atomic(where / RECORD, json.dumps(data).encode(), mode=PRIVATE)


def _signed(where: Path) -> bool:
    """Whether the copy at ``where`` carries a valid signature with this home's key
    (files whose recorded identity holds are not read again, see the module's notes)."""
    key = _key(create=False)
    if key is None:
        return False
    try:
        seal = (where / SEAL).read_text(encoding="ascii").strip()
        known, settled_before = _recorded(key, where)
        files, hashed = _digests(where, known, settled_before)
    except (OSError, UnicodeDecodeError):
        return False
    if not hmac.compare_digest(seal, _sealed(key, files)):
        return False
    if hashed or files.keys() != known.keys():
        _record(key, where, files)  # later checks take these files' digests as read
    return True


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
    base = _scopes_dir(root, index.uid, index.scopes) / _signer(key)
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    for made in (base.parent.parent, base.parent, base):
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
    copies = _scopes_dir(root, uid, scopes)
    purged = int(space["purged_v"])
    for made in copies.glob("*/*"):  # whichever home signed it
        if made.name.isdigit() and int(made.name) < purged:
            # Made before the last purge: may hold erased words.
            shutil.rmtree(made, ignore_errors=True)
    for unsorted in copies.glob("*"):
        if unsorted.name.isdigit():
            # A copy from before the per-signer directories (format 6 and older): no
            # reader loads it any more, and at a million contents it is 900 MB.
            shutil.rmtree(unsorted, ignore_errors=True)
    key = _key(create=False)
    if key is None:  # no key, no copy of this home's to check
        return None
    base = copies / _signer(key)
    versions = (
        sorted((int(p.name) for p in base.glob("*") if p.name.isdigit()), reverse=True)
        if base.is_dir()
        else []
    )
    for version in versions:
        where = base / str(version)
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
        "cue_scopes": cues.scope_names,
        "content_scopes": passages.scope_names,
    }
    texts = cues.texts.tolist()
    cue_arrays = {
        **packed("ids", cues.ids),
        **packed("texts", texts),
        "scope_codes": cues.scope_codes[: len(cues.ids)],
        "live": cues.live[: len(cues.ids)],
        "id_order": _order(cues.ids),
        # By construction one live cue per (scope, text) (the store merges on it).
        "text_order": _order(texts, np.flatnonzero(cues.live[: len(texts)]), cues.scope_codes),
        **_prefixed("sparse", cues.sparse.to_arrays()),
    }
    content_arrays = {
        **packed("ids", passages.ids),
        **packed("keys", passages.keys.tolist()),
        "id_order": _order(passages.ids),
        **packed("titles", passages.titles),
        **_prefixed("column", passages.columns.arrays(len(passages.ids))),
        **_prefixed("sparse", passages.sparse.to_arrays()),
        "dense_present": passages.dense.present[: len(passages.ids)],
    }
    # The HNSW files first: the largest, they are then the likeliest to have settled
    # (see the module's notes) when the record is made, and not be hashed again.
    for name, hnsw in (("hnsw.bin", cues.hnsw), ("contents_hnsw.bin", passages.dense.hnsw)):
        hnsw.save_index(str(where / name))
        os.chmod(where / name, 0o600)
    for group, arrays in (("cues", cue_arrays), ("contents", content_arrays)):
        for name, values in arrays.items():
            _private(
                where / f"{group}.{name}.npy",
                lambda f, values=values: np.save(f, np.asarray(values), allow_pickle=False),
            )
    logs = {str(slot): list(entry) for slot, entry in passages.logs.items()}
    _private(where / "logs.json", lambda f: f.write(json.dumps(logs).encode()))
    _private(where / "meta.json", lambda f: f.write(json.dumps(meta).encode()))
    files = _digests(where, {})[0]
    seal = _sealed(key, files)
    _private(where / SEAL, lambda f: f.write(seal.encode()))
    _record(key, where, files)


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
    cues.scope_names, cues.scope_codes, cues.scopes = _scopes(meta["cue_scopes"], cue_data)
    cues.live = cue_data["live"].astype(bool)
    cues.ids, cues.slot_of = _ids(cue_data)
    texts, text_starts = _column("texts", cue_data)
    cues.texts = SlotKeys(texts, text_starts)
    lookup = SortedLookup(texts, text_starts, cues.scope_codes, cue_data["text_order"])
    cues.by_text = ScopedSlots(lookup, cues.scope_names)
    cues.sparse = SparseIndex.from_arrays(_unprefixed("sparse", cue_data))
    passages = PassageIndex(identity.dimension, dense=not identity.lexical)
    passages.dense.hnsw = hnswlib.Index(space="cosine", dim=identity.dimension)
    passages.dense.hnsw.load_index(
        str(where / "contents_hnsw.bin"), max_elements=max(16, int(meta["contents"]))
    )
    passages.dense.present = content_data["dense_present"].astype(bool)
    passages.ids, passages.slot_of = _ids(content_data)
    passages.keys = SlotKeys(*_column("keys", content_data))
    passages.titles = _column("titles", content_data)[0]
    for name, values in _unprefixed("column", content_data).items():
        setattr(passages.columns, name, values)
    passages.scope_names, passages.columns.scope, passages.scopes = _scopes(
        meta["content_scopes"], {"scope_codes": content_data["column_scope"]}
    )
    passages.sparse = SparseIndex.from_arrays(_unprefixed("sparse", content_data))
    logs = json.loads((where / "logs.json").read_text(encoding="utf-8"))
    passages.logs = {int(slot): (entry[0], entry[1]) for slot, entry in logs.items()}
    version, purged_v = int(meta["version"]), int(meta["purged_v"])
    return LiveIndex(ns, scopes, identity, cues, passages, uid, version, purged_v=purged_v)


def _scopes(names: Any, arrays: dict[str, np.ndarray]) -> tuple[list[str], np.ndarray, list[str]]:
    """The scope names, each slot's code among them and each slot's scope, from a
    copy's names and ``scope_codes`` array.

    Raises:
        ValueError: when a code names no scope.
    """
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise ValueError("scope names are not a list of strings")
    codes = np.array(arrays["scope_codes"], dtype=np.int16)
    if len(codes) and not (int(codes.min()) >= 0 and int(codes.max()) < len(names)):
        raise ValueError("a scope code names no scope")
    return list(names), codes, np.array(names, dtype=object)[codes].tolist()


def _column(name: str, arrays: dict[str, np.ndarray]) -> tuple[StringColumn, np.ndarray]:
    """The packed strings ``name`` of a copy, and their prefixes."""
    strings = PackedStrings.of(arrays[f"{name}_utf8"], arrays[f"{name}_ends"])
    return strings, strings.prefixes() if isinstance(strings, PackedStrings) else prefixes(strings)


def _ids(arrays: dict[str, np.ndarray]) -> tuple[StringColumn, IdSlots]:
    """A copy's ids, and the id -> slot lookup over its saved ``id_order``."""
    ids, starts = _column("ids", arrays)
    return ids, IdSlots(SortedLookup(ids, starts, None, arrays["id_order"]))


def _order(
    keys: StringColumn, slots: np.ndarray | None = None, groups: np.ndarray | None = None
) -> np.ndarray:
    """``slots`` (default: every one of ``keys``) in (group, key) order, for a lookup
    to search (see :mod:`~mragent.core.retrieval.sorted_lookup`)."""
    chosen = np.arange(len(keys), dtype=np.int64) if slots is None else slots
    return key_order(keys, prefixes(keys), groups, chosen)


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


def _scopes_dir(root: Path | None, uid: str, scopes: tuple[str, ...]) -> Path:
    """Where the copies of ``scopes`` of the namespace ``uid`` live, by signer."""
    digest = hashlib.sha256("\n".join(scopes).encode()).hexdigest()[:16]
    return (root or index_dir()) / _safe(uid) / digest


def _signer(key: bytes) -> str:
    """The directory of the copies ``key`` signs (a digest: the key is not derivable)."""
    return hashlib.sha256(b"mragent index copy signer\0" + key).hexdigest()[:16]


def _safe(uid: str) -> str:
    """A uid as a directory name (uuid4 text; anything else is refused)."""
    if not uid.replace("-", "").isalnum() or len(uid) > 64:
        raise ValueError(f"not a namespace identity: {uid!r}")
    return uid
