"""Rates of the simulated model and its named presets (``sim:default``, ``sim:weak``, ``sim:strong``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tfr_helpers.errors import ConfigError

Rate = float


class SimRates(BaseModel):
    """Probabilities that drive the simulated model; every field is a rate in [0, 1] unless stated.

    Rates in one group are exclusive outcomes of one draw, so each group must sum to at most 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 0
    """Seed mixed into every draw (same seed, same answers)."""
    coder_mutant: Rate = Field(0.42, ge=0, le=1)
    """Coder: return an AST mutant of the reference instead of the reference."""
    misconception_tasks: Rate = Field(0.3, ge=0, le=1)
    """Share of tasks with a misconception that coder and tester share (see ``misconception``)."""
    coder_misconception: Rate = Field(0.6, ge=0, le=1)
    """Coder: on such a task, probability of writing the misconception (else the draws below)."""
    coder_no_code: Rate = Field(0.04, ge=0, le=1)
    """Coder: return prose with no code block at all."""
    ebt_misconception: Rate = Field(0.4, ge=0, le=1)
    """EBT: on such a task, take the expected value from the misconception (wrong; buggy code may agree)."""
    ebt_wrong_expected: Rate = Field(0.12, ge=0, le=1)
    """EBT: perturb the expected value (cause ``wrong_expected_value``)."""
    ebt_invalid_input: Rate = Field(0.08, ge=0, le=1)
    """EBT: call with an argument of the wrong type (cause ``invalid_input``)."""
    ebt_wrong_exception: Rate = Field(0.06, ge=0, le=1)
    """EBT: expect an exception the reference does not raise (cause ``wrong_exception``)."""
    ebt_test_code_error: Rate = Field(0.06, ge=0, le=1)
    """EBT: wrong function name / undefined helper / bad import (cause ``test_code_error``)."""
    ebt_resource: Rate = Field(0.03, ge=0, le=1)
    """EBT: an enormous input that exhausts the memory limit (cause ``timeout_or_resource``)."""
    n_tests: int = Field(3, ge=1, le=20)
    """Tests per response when the request does not say (``n_tests`` variable)."""
    pbt_falsified: Rate = Field(0.35, ge=0, le=1)
    """PBT: state a property the reference violates (cause ``property_falsified``)."""
    refine_overfit: Rate = Field(0.3, ge=0, le=1)
    """Refiner: special-case the failing input to satisfy the test's expectation."""
    refine_mutant: Rate = Field(0.12, ge=0, le=1)
    """Refiner: return a (different) mutant of the reference."""
    refine_no_code: Rate = Field(0.04, ge=0, le=1)
    """Refiner: return no code. The rest of the probability mass repairs toward the reference."""
    judge_error: Rate = Field(0.3, ge=0, le=1)
    """Judge (decision only): probability of the wrong decision."""
    judge_reasoning_error: Rate = Field(0.15, ge=0, le=1)
    """Judge with reasoning: probability of the wrong decision (lower: reasoning helps)."""
    judge_undecided: Rate = Field(0.05, ge=0, le=1)
    """Both judges: probability of an answer naming neither decision."""

    @model_validator(mode="after")
    def _groups_sum_to_at_most_one(self) -> "SimRates":
        groups = {
            "coder": self.coder_mutant + self.coder_no_code,
            "ebt": self.ebt_wrong_expected
            + self.ebt_invalid_input
            + self.ebt_wrong_exception
            + self.ebt_test_code_error
            + self.ebt_resource,
            "refine": self.refine_overfit + self.refine_mutant + self.refine_no_code,
            "judge": self.judge_error + self.judge_undecided,
            "judge_reasoning": self.judge_reasoning_error + self.judge_undecided,
        }
        for group, total in groups.items():
            if total > 1 + 1e-9:
                raise ValueError(f"the {group} rates sum to {total:.3f}; lower them so they sum to at most 1")
        return self


PRESETS: dict[str, dict[str, float]] = {
    "default": {},
    "weak": {
        "coder_mutant": 0.55,
        "misconception_tasks": 0.4,
        "coder_no_code": 0.08,
        "ebt_wrong_expected": 0.25,
        "ebt_invalid_input": 0.12,
        "ebt_wrong_exception": 0.08,
        "ebt_test_code_error": 0.1,
        "ebt_resource": 0.04,
        "pbt_falsified": 0.5,
        "refine_overfit": 0.45,
        "refine_mutant": 0.2,
        "refine_no_code": 0.08,
        "judge_error": 0.45,
        "judge_reasoning_error": 0.3,
        "judge_undecided": 0.1,
    },
    "strong": {
        "coder_mutant": 0.25,
        "misconception_tasks": 0.15,
        "coder_no_code": 0.01,
        "ebt_wrong_expected": 0.06,
        "ebt_invalid_input": 0.03,
        "ebt_wrong_exception": 0.02,
        "ebt_test_code_error": 0.02,
        "ebt_resource": 0.01,
        "pbt_falsified": 0.15,
        "refine_overfit": 0.12,
        "refine_mutant": 0.05,
        "refine_no_code": 0.01,
        "judge_error": 0.15,
        "judge_reasoning_error": 0.05,
        "judge_undecided": 0.02,
    },
}
"""Model names of the simulated model (``sim:<name>``) and how each departs from the defaults."""


def validate_options(options: dict[str, object]) -> SimRates:
    """Validate user options (rates and seed) on top of the defaults.

    Args:
        options: Keyword options given to ``SimProvider``.

    Returns:
        The validated rates (unset fields at their defaults).

    Raises:
        ConfigError: On an unknown option or a bad value; the message names it and the valid options.
    """
    try:
        return SimRates(**options)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'rates'}: {e['msg']}" for e in exc.errors())
        known = ", ".join(SimRates.model_fields)
        raise ConfigError(f"bad option for the simulated model ({problems}); valid options: {known}") from None


def rates_for(name: str, options: SimRates) -> SimRates:
    """Rates of model ``sim:<name>``: the preset, overridden by the options the user set explicitly.

    Raises:
        ConfigError: When ``name`` is not a preset; the message lists them.
    """
    if name not in PRESETS:
        raise ConfigError(f"unknown simulated model 'sim:{name}'; use one of " + ", ".join(f"sim:{p}" for p in PRESETS))
    merged = {**PRESETS[name], **{k: getattr(options, k) for k in options.model_fields_set}}
    return SimRates(**merged)  # type: ignore[arg-type]
