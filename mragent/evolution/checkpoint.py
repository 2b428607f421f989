"""Checkpoints: written atomically after every generation, never read as empty.

A checkpoint holds the study's state (population, archive with fitnesses,
generation, RNG state, logbook) and a fingerprint of the run it belongs to
(seed, population, corpus hash, namespace, training questions). A file that
cannot be read back is moved aside to ``checkpoint.json.corrupt-<n>`` and
reported; a readable checkpoint from a different run is refused, left in place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mragent.core.errors import ConfigError, CorpusError
from mragent.core.files import quarantine, write_json_atomic
from mragent.evolution.study import Study

FORMAT = "mragent-evolve-checkpoint/1"
CHECKPOINT_NAME = "checkpoint.json"


class CheckpointError(CorpusError):
    """A checkpoint file could not be read (it has been moved aside)."""


def checkpoint_path(out_dir: Path) -> Path:
    """Where a run in ``out_dir`` keeps its checkpoint."""
    return out_dir / CHECKPOINT_NAME


def save_checkpoint(
    path: Path, study: Study, fingerprint: dict[str, Any], elapsed_s: float = 0.0
) -> None:
    """Write the study's state atomically (temporary file, then rename).

    ``elapsed_s`` is the search's wall time so far, so a resumed run reports
    the whole search's time, not only its last session's.
    """
    state = {"format": FORMAT, "run": fingerprint, "elapsed_s": elapsed_s, **study.state()}
    write_json_atomic(path, state)


def load_checkpoint(path: Path, study: Study, fingerprint: dict[str, Any]) -> float:
    """Restore ``study`` from the checkpoint at ``path``.

    Returns:
        The wall time the search had spent when the checkpoint was written
        (0 for checkpoints that predate recording it).

    Raises:
        ConfigError: when there is no checkpoint, or it belongs to another run
            (different seed, population, corpus or questions).
        CheckpointError: when the file is unreadable or malformed; it is moved
            aside to ``<name>.corrupt-<n>`` first.
    """
    if not path.exists():
        raise ConfigError(f"--resume: no checkpoint at {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        run = data["run"]
        if not isinstance(run, dict) or any(key not in run for key in fingerprint):
            raise ValueError("'run' must be an object naming seed, population, corpus, ...")
    except (OSError, UnicodeDecodeError, ValueError, KeyError) as exc:
        moved = quarantine(path)
        raise CheckpointError(
            str(path), None, f"corrupt checkpoint ({exc}); moved to {moved}"
        ) from None
    mismatched = sorted(k for k in fingerprint if run.get(k) != fingerprint[k])
    if mismatched:
        raise ConfigError(
            f"--resume: {path} belongs to another run (differs in {', '.join(mismatched)}); "
            "rerun with the same options, or without --resume to start afresh"
        )
    try:
        study.restore(data)
        elapsed = float(data.get("elapsed_s", 0.0))
    except (ConfigError, KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
        # OverflowError: a number the JSON reads as infinity where an integer belongs.
        moved = quarantine(path)
        raise CheckpointError(
            str(path), None, f"corrupt checkpoint ({type(exc).__name__}: {exc}); moved to {moved}"
        ) from None
    return elapsed
