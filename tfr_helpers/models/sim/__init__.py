"""The simulated model ``sim``: an offline, deterministic stand-in for an LLM, for demos and tests only.

It is built from the task itself (its reference solution and native benchmark tests) and never yields
evidence: every answer names it as simulated (``# simulated model sim:default (not an LLM)`` as the first
line of each code block, a sentence in judge answers). Randomness derives from a sha256 of
(seed, model name, template, task id, template variables, sample index), so the same inputs always give
the same text.

Privileged access (the only provider that has it): a model request carries a ``TaskView`` with no reference
solution and no benchmark tests. ``SimProvider`` declares ``needs_reference = True``, and only for such a
provider does the model client call ``grant_tasks(lookup)``, handing it a lookup of the run's full tasks
(``ModelClient(..., tasks=...)``; the pipeline passes its task table). The simulator resolves each request's
task through it; without a grant it refuses requests that carry a task. The judge's ground truth is whether
the reference passes the feedback's test: in a study, RQ1's own verdict (``grant_verdicts``, granted with the
tasks; the label the analysis scores the judge against, so nothing runs again), else the oracle
(``oracle.reference_passes``) runs the test against the reference. That is why the simulated judge is not a
real judge, and why its verdicts are never evidence.

Models (presets):
    ``sim:default``: rates chosen so ~10 tasks per benchmark show every RQ1 case, cause, transition, decision.
    ``sim:weak``: more mutants and corrupted tests, more overfitting, worse judges.
    ``sim:strong``: fewer bugs and corrupted tests, better judges.

Behaviour per template:
    ``codegen``: the reference, the shared misconception (below), or an AST mutant of the reference
        (operator change, off-by-one, range bound, dropped ``abs``, flipped comparison, swapped/dropped
        return...; ``coder_mutant``), or prose with no code (``coder_no_code``).
    shared misconception: on a share of tasks (``misconception_tasks``) one mutant per (seed, task) is
        believed by coder and tester alike, so a wrong test can pass wrong code (RQ1 pass/fail case).
    ``ebt``: ``assert f(args) == expected`` tests over the benchmark's own asserts (BigCodeBench: TestCases
        methods wrapped as functions), some corrupted: perturbed expected value, wrong-type argument, expected
        exception that is not raised, wrong function name / undefined helper / bad import, an enormous input
        (MemoryError under the sandbox's memory limit).
    ``pbt``: ``@given(st.sampled_from(example inputs))`` properties (determinism, agreement with
        the examples), some false of the reference (a wrong result type; ``pbt_falsified``).
    ``refine``: repair (the reference, reformatted), overfit (special-case the failing input to return
        what the test demanded, or raise what it expected), another mutant, or no code.
    ``retry`` / ``placebo`` (the controls): the same draw at the same ``refine_*`` rates, except that ``overfit``
        keeps the code (there is no failing input to special-case). The ``resample`` control is ``codegen``.
    ``judge`` / ``judge_reasoning``: measures the truth by running the feedback's test against the reference
        (project sandbox when available, else a resource-limited subprocess), then errs at ``judge_error`` /
        the lower ``judge_reasoning_error``; ``judge_undecided`` answers name neither decision.

Usage:
    >>> import asyncio
    >>> from tfr_helpers.models.base import ModelRequest, ModelSpec, SamplingParams
    >>> provider = SimProvider(seed=7, coder_mutant=0.8)  # options override the preset's rates
    >>> request = ModelRequest(messages=(), role="coder", template="codegen", template_version="1")
    >>> # pipeline requests carry task=task.view(); the client grants the sim provider the full tasks:
    >>> # provider.grant_tasks({task.task_id: task}.__getitem__)
    >>> reply = asyncio.run(provider.generate(ModelSpec.parse("sim:default"), request, SamplingParams()))
    >>> "simulated model sim:default" in reply.text
    True

Options (all ``SimRates`` fields) are rates in [0, 1] plus ``seed`` and ``n_tests``; a sampling seed from
the configuration is mixed into the seed. The judge's verdict depends on executing the test, so it repeats
as long as the test's outcome does (a timeout under heavy load can change it).

In an experiment, name ``sim:default`` (or a preset) as any role's model; options come from the model
settings' ``provider_options["sim"]``. Unknown options or presets raise ``ConfigError``.
"""

from tfr_helpers.models.sim.provider import SimProvider
from tfr_helpers.models.sim.rates import PRESETS, SimRates

__all__ = ["PRESETS", "SimProvider", "SimRates"]
