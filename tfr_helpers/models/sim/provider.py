"""``SimProvider``: the offline simulated model, answering every template from the task itself."""

from __future__ import annotations

import asyncio
import hashlib
import random

from tfr_helpers.errors import ConfigError
from tfr_helpers.models.base import (
    ModelRequest,
    ModelSpec,
    Provider,
    ProviderReply,
    SamplingParams,
    TaskLookup,
    VerdictLookup,
)
from tfr_helpers.models.sim.ast_lock import locked as _locked
from tfr_helpers.models.sim.feedback import test_source
from tfr_helpers.models.sim.judge import judge_answer
from tfr_helpers.models.sim.misconception import has_misconception, shared_mutant
from tfr_helpers.models.sim.mutate import mutate
from tfr_helpers.models.sim.oracle import reference_passes
from tfr_helpers.models.sim.rates import SimRates, rates_for, validate_options
from tfr_helpers.models.sim.refine import blind_refine, refine
from tfr_helpers.models.sim.response import code_answer, no_code_answer, tests_answer
from tfr_helpers.models.sim.seeding import request_rng
from tfr_helpers.models.sim.tester.ebt import write_ebts
from tfr_helpers.models.sim.tester.pbt import write_pbts
from tfr_helpers.prompts import templates
from tfr_helpers.records import Task, TaskView


class SimProvider(Provider):
    """The simulated model ``sim:<preset>``: deterministic, offline, built from the task.

    Args:
        **options: ``SimRates`` fields (rates and ``seed``) overriding the preset's values.

    Raises:
        ConfigError: On an unknown option or a bad value.
    """

    simulated = True
    needs_reference = True
    """The simulated model is built from the reference and the benchmark tests: it reads full tasks."""

    def __init__(self, **options: object) -> None:
        self.options: SimRates = validate_options(dict(options))
        self._verdicts: dict[str, bool] = {}
        self._tasks: TaskLookup | None = None
        self._measured: VerdictLookup | None = None

    def grant_tasks(self, lookup: TaskLookup) -> None:
        """Receive the privileged full-task lookup from the model client (see the package docstring)."""
        self._tasks = lookup

    def grant_verdicts(self, lookup: VerdictLookup) -> None:
        """Receive the study's measured reference verdicts (RQ1): the judge's ground truth without running again."""
        self._measured = lookup

    def _full_task(self, view: TaskView) -> Task:
        """The full task behind a request's view (privileged: reference and benchmark tests included).

        Raises:
            ConfigError: No lookup was granted, or it does not know the task.
        """
        if self._tasks is None:
            raise ConfigError(
                f"the simulated model needs the full task {view.task_id!r} but was granted no task lookup; "
                "create the ModelClient with tasks=... (the pipeline does) or call SimProvider.grant_tasks"
            )
        try:
            return self._tasks(view.task_id)
        except KeyError:
            raise ConfigError(f"the simulated model's task lookup does not know task {view.task_id!r}") from None

    async def generate(self, spec: ModelSpec, request: ModelRequest, params: SamplingParams) -> ProviderReply:
        """Answer one request (see the package docstring for the behaviour per template).

        Raises:
            ConfigError: Unknown preset name or a template the simulated model does not know.
        """
        rates = rates_for(spec.name, self.options)
        model = str(spec)
        variables = dict(request.variables)
        task = self._full_task(request.task) if request.task is not None else None
        seed = rates.seed if params.seed is None else f"{rates.seed}/{params.seed}"
        rng = request_rng(seed, model, request.template, task.task_id if task else "", variables, request.sample_index)
        if task is None:
            text = (
                f"This is the simulated model {model} (not an LLM). It answers only pipeline requests that "
                f"carry a benchmark task; this request (template {request.template!r}) has none.\n"
            )
        elif request.template == "codegen":
            text = _locked(self._codegen, model, task, rng, rates, seed)
        elif request.template in ("ebt", "pbt"):
            n_tests = int(variables["n_tests"]) if variables.get("n_tests", "").isdigit() else rates.n_tests
            if request.template == "ebt":
                imports, functions = await asyncio.to_thread(_locked, write_ebts, task, n_tests, rng, rates, seed)
            else:
                imports, functions = _locked(write_pbts, task, n_tests, rng, rates)
            text = tests_answer(model, imports, functions, f"Here are {request.template.upper()}s for {task.entry_point}")
        elif request.template == "refine":
            code, _ = _locked(refine, task, variables.get("code", ""), variables.get("feedback", ""), rng, rates)
            text = no_code_answer(model) if code is None else code_answer(model, code, "Here is the refined code")
        elif request.template in ("retry", "placebo"):  # the controls: no test to read (docs/controls.md)
            code, _ = _locked(blind_refine, task, variables.get("code", ""), rng, rates)
            text = no_code_answer(model) if code is None else code_answer(model, code, "Here is the revised code")
        elif request.template in ("judge", "judge_reasoning"):
            reliable = await self._reliable(task, variables.get("feedback", ""))
            text = judge_answer(model, reliable, request.template == "judge_reasoning", rng, rates)
        else:
            raise ConfigError(
                f"the simulated model has no behaviour for template {request.template!r}; it knows {', '.join(templates())}"
            )
        return ProviderReply(
            text=text,
            raw_response={"simulated": True, "model": model, "text": text},
            unsupported_params=("temperature", "top_p", "max_tokens"),
        )

    @staticmethod
    def _codegen(model: str, task: Task, rng: random.Random, rates: SimRates, seed: int | str) -> str:
        roll = rng.random()
        if roll < rates.coder_no_code:
            return no_code_answer(model)
        code = task.reference
        if has_misconception(task, seed, rates.misconception_tasks) and (rng.random() < rates.coder_misconception):
            code = shared_mutant(task, seed) or code
        elif roll < rates.coder_no_code + rates.coder_mutant:
            found = mutate(task.reference, rng)
            code = found[0] if found else task.reference
        return code_answer(model, code, f"Here is an implementation of {task.entry_point}")

    async def _reliable(self, task: Task, feedback: str) -> bool | None:
        """Ground truth for the judge: does the reference pass the feedback's test? (cached per test).

        The study's own measurement when it has one (the pipeline grants its RQ1 verdicts: the same label the
        analysis scores the judge against, at no extra run), else the oracle runs the test on the reference."""
        test = _locked(test_source, feedback)
        if test is None:
            return None
        key = hashlib.sha256(f"{task.reference}\0{test}".encode()).hexdigest()
        if key not in self._verdicts:
            measured = self._measured(task.reference, test) if self._measured is not None else None
            if measured is None:
                measured = await asyncio.to_thread(reference_passes, task.reference, test)
            self._verdicts[key] = measured
        return self._verdicts[key]
