"""What one model call gives back (``ModelReply``) and how its call record is built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tfr_helpers.models.base import ModelRequest, ModelSpec
from tfr_helpers.records import ModelCallRecord


@dataclass(frozen=True)
class ModelReply:
    """Answer of one call: ``text`` is None when the call failed (``record.error`` says why)."""

    text: str | None
    record: ModelCallRecord


def call_record(spec: ModelSpec, request: ModelRequest, stage: str, **fields: Any) -> ModelCallRecord:
    """The record of one call of ``request`` to ``spec`` (``fields``: cached, error, usage, latency_s, retries...)."""
    return ModelCallRecord(
        model=str(spec),
        role=request.role,
        stage=stage,
        template=request.template,
        template_version=request.template_version,
        **fields,
    )
