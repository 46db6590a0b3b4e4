"""The fitted screener as a small JSON artefact: a calibrated linear model, its out-of-fold models, its provenance.

The file holds the feature names, the standardisation (mean, scale) and the calibrated coefficients of the model
fitted on all the training data, the decision threshold, one such model per cross-validation fold with the fold of
each training task and the threshold chosen on that fold's training part (so a task the model was trained on is
screened by a fold model and a threshold that never saw it), the
scikit-learn version that fitted it, the training data's provenance, and ``sha256``: the digest of the file's
canonical JSON without that field. :func:`load_artefact` recomputes it and refuses a file that does not match.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

from tfr_helpers.errors import DataError
from tfr_helpers.fsutil import atomic_write_text

FORMAT = "tfr-learned-gold-free/1"
DEFAULT_ARTEFACT = Path(__file__).parent / "artefacts" / "learned_gold_free.json"
"""The artefact shipped with the package (made by ``tfr screen train``)."""


@dataclass(frozen=True)
class Linear:
    """One standardised linear model: ``p = sigmoid(coef . (x - mean) / scale + intercept)``."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Probability of unreliable feedback for each row of ``x``."""
        z = (x - np.asarray(self.mean)) / np.asarray(self.scale)
        return np.asarray(expit(z @ np.asarray(self.coef) + self.intercept), dtype=float)

    def to_json(self) -> dict[str, Any]:
        return {"mean": list(self.mean), "scale": list(self.scale), "coef": list(self.coef), "intercept": self.intercept}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Linear:
        return cls(tuple(d["mean"]), tuple(d["scale"]), tuple(d["coef"]), float(d["intercept"]))


@dataclass(frozen=True)
class Artefact:
    """A loaded, checked artefact."""

    features: tuple[str, ...]
    model: Linear
    threshold: float
    fold_models: tuple[Linear, ...]
    task_fold: dict[str, int]
    """Training task id -> the fold that held it out."""
    sklearn_version: str
    training: dict[str, Any]
    selection: dict[str, Any]
    sha256: str
    fold_thresholds: tuple[float, ...] = ()
    """Each fold model's threshold, chosen on that fold's training part only (empty in an artefact made before
    nested thresholds: every fold then uses :attr:`threshold`)."""

    def threshold_of(self, fold: int | None) -> float:
        """The threshold for rows scored by fold model ``fold`` (None: the full model's)."""
        if fold is None or fold >= len(self.fold_thresholds):
            return self.threshold
        return self.fold_thresholds[fold]

    def proba(self, x: np.ndarray, task_ids: list[str]) -> tuple[np.ndarray, list[int | None]]:
        """P(unreliable) per row, and the fold model used (None: the full model, for a task never trained on)."""
        folds = [self.task_fold.get(t) for t in task_ids]
        p = self.model.proba(x) if len(x) else np.zeros(0)
        for k, m in enumerate(self.fold_models):
            rows = [i for i, f in enumerate(folds) if f == k]
            if rows:
                p[rows] = m.proba(x[rows])
        return p, folds

    def provenance(self) -> dict[str, Any]:
        """What a run records about the artefact it used."""
        return {
            "sha256": self.sha256,
            "sklearn_version": self.sklearn_version,
            "threshold": self.threshold,
            "features": list(self.features),
            "training": self.training,
            "selection": self.selection,
        }


def _digest(body: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def artefact_json(
    features: tuple[str, ...],
    model: Linear,
    threshold: float,
    fold_models: list[Linear],
    task_fold: dict[str, int],
    sklearn_version: str,
    training: dict[str, Any],
    selection: dict[str, Any],
    fold_thresholds: list[float] | None = None,
) -> dict[str, Any]:
    """The artefact's JSON body with its ``sha256``."""
    body = {
        "format": FORMAT,
        "model": "calibrated_logistic_regression",
        "features": list(features),
        "full": model.to_json(),
        "threshold": threshold,
        "folds": [m.to_json() for m in fold_models],
        "fold_thresholds": list(fold_thresholds or []),
        "task_fold": dict(sorted(task_fold.items())),
        "sklearn_version": sklearn_version,
        "training": training,
        "selection": selection,
    }
    return {**body, "sha256": _digest(body)}


def save_artefact(data: dict[str, Any], path: Path) -> Path:
    """Write an artefact body (from :func:`artefact_json`)."""
    atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")
    return path


def load_artefact(path: Path | None = None) -> Artefact:
    """Read and check an artefact (the packaged one by default).

    Raises:
        DataError: The file is missing, is not an artefact of this format, or its sha256 does not match its
            content (a tampered or damaged file), naming the command that rebuilds it.
    """
    path = path or DEFAULT_ARTEFACT
    rebuild = "rebuild it with `tfr screen train --run-dir <run> --out <file>`"
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise DataError(f"screener artefact {path} is missing; {rebuild}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DataError(f"screener artefact {path} is not JSON ({exc}); {rebuild}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DataError(f"screener artefact {path} is not a {FORMAT} file; {rebuild}")
    body = {k: v for k, v in data.items() if k != "sha256"}
    if data.get("sha256") != _digest(body):
        raise DataError(
            f"screener artefact {path} fails its sha256 check (recorded {str(data.get('sha256'))[:12]}, content "
            f"{_digest(body)[:12]}): the file was changed after it was made; {rebuild}"
        )
    try:
        return Artefact(
            features=tuple(data["features"]),
            model=Linear.from_json(data["full"]),
            threshold=float(data["threshold"]),
            fold_models=tuple(Linear.from_json(m) for m in data["folds"]),
            task_fold={str(k): int(v) for k, v in data["task_fold"].items()},
            sklearn_version=str(data["sklearn_version"]),
            training=data["training"],
            selection=data["selection"],
            sha256=str(data["sha256"]),
            fold_thresholds=tuple(float(t) for t in data.get("fold_thresholds", ())),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"screener artefact {path} lacks a field ({exc}); {rebuild}") from None
