"""Typed records shared by every layer of tfr (see ../shared/DESIGN.md sections 1-4).

Every persisted record is a frozen pydantic model. Data flows one way:
benchmarks/sandbox/models -> pipeline -> analysis -> views/cli/notebooks, and all of them
speak in these records. ``results.json`` is a :class:`Results` and is read back through it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1

BenchmarkName = str
"""A registered benchmark (``humaneval``, ``mbpp``, ``bigcodebench`` or a plugin's; see
``tfr_helpers.benchmarks.registry``). BigCodeBench means its selected subset in experiments."""

NativeTestFormat = Literal["check", "asserts", "unittest"]
"""How a benchmark states its tests: HumanEval ``check(candidate)``, MBPP assert lines, BigCodeBench TestCases."""

TestKind = Literal["ebt", "pbt"]
"""Generated test kinds: example-based (EBT) or property-based with Hypothesis (PBT)."""

Status = Literal["passed", "failed", "error", "timeout", "crashed", "not_run"]
"""Outcome of one test in the sandbox (DESIGN.md section 4)."""

Case = Literal["pass_pass", "pass_fail", "fail_pass", "fail_fail"]
"""RQ1 case: generated code verdict _ reference verdict on one generated test."""

Reliability = Literal["reliable", "unreliable", "indeterminate"]
"""Label of test-fail feedback: reliable iff the reference passes the test; ``indeterminate`` when a verdict of
either side still depends on the machine (a test that finished only with more than the study's time budget),
reported and counted but kept out of the reliability denominators (``docs/labels.md``)."""

FailureMode = Literal["assertion", "exception_in_code", "exception_in_test", "load_error", "timeout", "crashed"]
"""How the generated code failed a generated test (set on every test-fail pair)."""

Cause = Literal[
    "wrong_expected_value",
    "invalid_input",
    "wrong_exception",
    "test_code_error",
    "property_falsified",
    "timeout_or_resource",
    "nondeterministic",
    "harness_unsupported",
    "reference_not_run",
]
"""Why unreliable feedback is unreliable, derived from the reference's execution records."""

Transition = Literal["pass->pass", "pass->fail", "fail->pass", "fail->fail", "no_code"]
"""Benchmark verdict of the generated code -> the refined code; ``no_code`` when refinement gave no usable code."""

Decision = Literal["accept", "reject", "undecided"]
"""A screening strategy's decision on one test-fail feedback (``undecided``: the judge's answer could not be parsed)."""

Role = Literal["coder", "tester", "refiner", "judge"]
"""What a model is used for in the study."""

Source = Literal["simulated", "replayed", "live"]
"""Where a model's outputs come from: the offline simulator, recorded real generations read from files, or a
provider called now."""


def pair_id(test_id: str, code_index: int = 0) -> str:
    """Id of one (code sample, generated test) pair and of its feedback: the test id for code sample 0 (as
    before samples existed), ``<test_id>@c<i>`` for code sample ``i``."""
    return test_id if code_index == 0 else f"{test_id}@c{code_index}"


def split_pair_id(feedback_id: str) -> tuple[str, int]:
    """The test id and code sample index of a pair or feedback id (inverse of :func:`pair_id`)."""
    test_id, sep, index = feedback_id.rpartition("@c")
    return (test_id, int(index)) if sep and index.isdigit() else (feedback_id, 0)


def sample_suffix(feedback_id: str) -> str:
    """Artifact name suffix of a pair or feedback: ``""`` for code sample 0, ``_c<i>`` for code sample ``i``."""
    index = split_pair_id(feedback_id)[1]
    return f"_c{index}" if index else ""


class Record(BaseModel):
    """Base of all records: frozen, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class _TaskFacts(Record):
    """The parts of a task that are shown to models: everything but the reference and the benchmark tests."""

    task_id: str
    """Id in the benchmark's own style: ``HumanEval/149``, ``MBPP/63``, ``BigCodeBench/13``."""
    benchmark: BenchmarkName
    """Which benchmark the task belongs to."""
    description: str
    """Exactly what the model sees as the task (HumanEval prompt, MBPP text + signature + example, BCB instruct_prompt)."""
    entry_point: str
    """Name of the function under test."""
    signature: str
    """The function signature or code prompt (header the solution must keep)."""
    libraries: list[str] = Field(default_factory=list)
    """Top-level libraries the task needs (BCB ``libs``; stdlib names included)."""
    examples: list[str] = Field(default_factory=list)
    """Example test lines shown to the model in the description (MBPP: the first assert)."""


class TaskView(_TaskFacts):
    """What model providers and screening strategies see of a task: no reference, no benchmark tests.

    It has no ``reference``, ``tests`` or ``test_imports`` field at all (and :class:`Task` is not a subclass
    of it), so code typed against a view cannot read them. Build one with :meth:`Task.view`.
    """


def require_view(task: object, owner: str) -> None:
    """Raise unless ``task`` is a :class:`TaskView` (or None): the runtime half of the type boundary.

    Raises:
        TypeError: ``task`` is a full :class:`Task` or anything else, naming ``owner`` and the fix.
    """
    if task is not None and not isinstance(task, TaskView):
        raise TypeError(
            f"{owner}.task must be a TaskView, got {type(task).__name__}; pass task.view() (models and "
            "screening strategies never receive the reference solution or the benchmark tests)"
        )


class Task(_TaskFacts):
    """One benchmark problem with its reference solution and benchmark tests.

    Only the pipeline's own stages (the sandbox runs) and the simulated model, which declares it, read
    :attr:`reference` and :attr:`tests`; models and screening strategies get :meth:`view`.
    """

    reference: str
    """The reference solution as one whole runnable module (imports included)."""
    tests: str
    """The benchmark tests in their native form (HumanEval check source, MBPP asserts joined by newlines, BCB TestCases)."""
    test_format: NativeTestFormat
    """How :attr:`tests` is to be run."""
    test_imports: list[str] = Field(default_factory=list)
    """Import lines the tests need before they run (MBPP ``test_imports``)."""

    def view(self) -> TaskView:
        """The task without its reference and benchmark tests, as models and strategies see it."""
        return TaskView(**{name: getattr(self, name) for name in TaskView.model_fields})


class Isolation(Record):
    """Which protections were active for an execution (recorded with every program run)."""

    network: Literal["netns", "none"]
    """``netns``: the program ran in a private network namespace; ``none``: network was reachable."""
    uid_drop: bool
    """The program ran as an unprivileged uid (fork bombs contained, root files protected)."""
    rlimits: list[str] = Field(default_factory=list)
    """Names of the resource limits applied (AS, CPU, NPROC, FSIZE, NOFILE, CORE)."""
    warnings: list[str] = Field(default_factory=list)
    """Protections that were requested but unavailable, in words."""
    filesystem: Literal["view", "host"] = "host"
    """``view``: the program saw only the interpreter, the packages and its own directories (read-only except
    its working directory, ``/tmp`` and ``/dev/shm``, all private); ``host``: it saw the host's filesystem."""
    hidden: list[str] = Field(default_factory=list)
    """Directories covered by an empty tmpfs (home directories, the project, the caches, the host's /tmp)."""
    read_only_binds: list[str] = Field(default_factory=list)
    """Directories under a hidden one bound back read-only because imports need them."""
    writable: list[str] = Field(default_factory=list)
    """The only writable places besides the working directory (private tmpfs, emptied after every program)."""
    capabilities: list[str] = Field(default_factory=list)
    """Capabilities the program kept (empty: none)."""


class TestOutcome(Record):
    """The sandbox's verdict on one test against one program (DESIGN.md section 4)."""

    name: str
    """Name of the test (function name, ``assert_3``, ``TestCases.test_empty``...)."""
    status: Status
    """passed / failed (assertion) / error (other exception) / timeout / crashed / not_run."""
    exc_type: str | None = None
    """Exception class name when the test failed or errored."""
    message: str | None = None
    """Exception message (capped)."""
    traceback: str | None = None
    """Traceback trimmed to the test and the code under test."""
    expected: str | None = None
    """repr of the expected value when an ``a == b``-style comparison failed."""
    actual: str | None = None
    """repr of the actual value when an ``a == b``-style comparison failed."""
    in_code_under_test: bool = False
    """True when the exception was raised inside the program under test (not in the test code)."""
    stdout: str = ""
    """Captured standard output (capped)."""
    stderr: str = ""
    """Captured standard error (capped)."""
    duration_s: float = 0.0
    """Wall time of this test in seconds."""
    cpu_s: float = 0.0
    """CPU time of this test in seconds (the test process and its children; 0 when it did not report)."""


class ProgramRun(Record):
    """One program executed against a list of tests: one outcome per test, in order."""

    outcomes: list[TestOutcome]
    """One record per test, same order as the tests given."""
    load_error: TestOutcome | None = None
    """Set when the program itself failed to load (syntax error, import error...); tests are then ``not_run``."""
    isolation: Isolation
    """Protections active for this run."""
    duration_s: float = 0.0
    """Wall time of the whole program run."""

    @property
    def passed(self) -> bool:
        """True when the program loaded and every test passed."""
        return self.load_error is None and bool(self.outcomes) and all(o.status == "passed" for o in self.outcomes)


class Usage(Record):
    """Token usage and cost of one model call (a cache hit keeps the original call's; zeros for the simulated model)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class ModelCallRecord(Record):
    """Summary of one model call as the pipeline keeps it (raw request/response live in the run directory)."""

    model: str
    """``provider:model`` spec, e.g. ``sim:default``, ``openai:gpt-5-mini``."""
    role: Role
    stage: str
    """Pipeline stage that made the call."""
    template: str
    """Prompt template name (``codegen``, ``ebt``, ``pbt``, ``refine``, ``judge``, ``judge_reasoning``)."""
    template_version: str
    cached: bool = False
    """Answered from the response cache (no request sent; ``usage`` is the original call's)."""
    error: str | None = None
    """Normalised error (``RateLimited: ...``) when the call failed after retries; the text is then empty."""
    usage: Usage = Field(default_factory=Usage)
    retries: int = 0
    """Attempts beyond the first that this call needed (0 for cache hits)."""
    finish_reason: str | None = None
    """Why generation stopped, as the provider reports it (``stop``, ``length``, ``end_turn``, ``max_tokens``)."""
    truncated: bool = False
    """The reply was cut at ``max_tokens`` (OpenAI ``length``, Anthropic ``max_tokens``)."""
    latency_s: float = 0.0
    prompt_path: str | None = None
    """Run-relative path of the rendered prompt artifact."""
    response_path: str | None = None
    """Run-relative path of the raw response artifact."""


class GeneratedCode(Record):
    """The coder model's solution for one task, and its verdict on the benchmark tests."""

    model: str
    task_id: str
    sample_index: int = 0
    """Which code sample of the task this is (``code_samples_per_task`` > 1), 0-based."""
    code: str | None
    """Extracted program; None when the response held no usable code."""
    parse_error: str | None = None
    call: ModelCallRecord
    code_path: str | None = None
    """Run-relative path of the extracted code."""


class GeneratedTest(Record):
    """One independently runnable generated test (a response may hold several)."""

    test_id: str
    """Unique id: ``<model>|<task_id>|<kind>|<index>``."""
    model: str
    task_id: str
    kind: TestKind
    index: int
    """Position of this test among the task's tests of this kind (numbered on across test samples)."""
    sample_index: int = 0
    """Which test sample (tester call) of the task and kind held this test, 0-based."""
    name: str
    """Test function name."""
    source: str
    """Self-contained test source (imports + one test function)."""
    call: ModelCallRecord
    """The call whose response held this test (shared by the tests of one response)."""
    test_path: str | None = None
    dropped_tests: list[str] = Field(default_factory=list)
    """Tests of the same response that were not kept, as ``name: reason`` (beyond the requested count, or
    code that does not compile); shared by the tests of one response, like :attr:`call`."""


class TestGenerationFailure(Record):
    """A test-generation response from which no test could be parsed (kept and counted)."""

    model: str
    task_id: str
    kind: TestKind
    parse_error: str
    call: ModelCallRecord
    sample_index: int = 0
    """Which test sample (tester call) of the task and kind this was."""
    dropped_tests: list[str] = Field(default_factory=list)
    """Tests the response held that could not be kept, as ``name: reason``."""


class BenchmarkVerdict(Record):
    """A program's verdict on the task's benchmark tests."""

    model: str
    task_id: str
    subject: Literal["generated", "refined"]
    code_index: int = 0
    """Which code sample was run (generated code)."""
    feedback_id: str | None = None
    """For refined code: which feedback produced it."""
    passed: bool
    run: ProgramRun
    run_path: str | None = None


class Feedback(Record):
    """Test-fail feedback: what the refiner (and the judges) see about one failed generated test."""

    feedback_id: str
    """Same as the test id it comes from (one feedback per failed generated test)."""
    test_id: str
    text: str
    """Built from the generated code's outcome record only: test source + failure."""


class PairEvaluation(Record):
    """RQ1: one generated test run against one generated code sample and against the reference.

    Identical programs and identical tests are executed once; every pair they stand for still has its record.
    """

    test_id: str
    code_index: int = 0
    """Which code sample of the task the test ran against."""
    model: str
    task_id: str
    benchmark: BenchmarkName
    kind: TestKind
    generated: TestOutcome
    """Outcome on the generated code."""
    reference: TestOutcome
    """Outcome on the reference solution (first run)."""
    reference_rerun: TestOutcome | None = None
    """Second run on the reference, made when the first one did not pass."""
    generated_first: TestOutcome | None = None
    """The code's first outcome when it was a timeout or crash: the test then ran again alone with 3x the time
    budget and :attr:`generated` is that run's outcome (load never decides a label)."""
    reference_first: TestOutcome | None = None
    """The same for the reference (:attr:`reference` is then the outcome of the run alone with 3x the budget)."""
    reference_harder: TestOutcome | None = None
    """A PBT the reference passed, run on it again with 10x the examples and another seed; when that run found a
    falsifying example, :attr:`reference` is its outcome (the code's verdict keeps the study's settings)."""
    failure_mode: FailureMode | None = None
    """How the generated code failed the test (set for test-fail feedback)."""
    case: Case
    reliability: Reliability | None = None
    """Set for test-fail feedback (generated code failed)."""
    cause: Cause | None = None
    """Set for unreliable feedback."""
    feedback: Feedback | None = None
    """Set when the generated code failed the test."""
    isolation: Isolation
    record_path: str | None = None

    @property
    def pair_id(self) -> str:
        """Id of this pair (and of its feedback): see :func:`pair_id`."""
        return pair_id(self.test_id, self.code_index)


class ModelSource(Record):
    """Where one model's outputs in a run come from, as every output states it."""

    model: str
    """The ``provider:model`` spec as configured (``replay:codet-codegen16b-humaneval``)."""
    source: Source
    label: str
    """``simulated``, ``replayed (published)``, ``replayed (imported)`` or ``live provider``."""
    dataset: str | None = None
    """The replay dataset's name."""
    producer: str | None = None
    """The model that produced replayed generations (``CodeGen-Mono-16B``, ``GPT-4``)."""
    license: str | None = None
    note: str
    """One sentence for captions and headings, e.g. "real generations by GPT-4, published by ..."."""


class SkippedWork(Record):
    """Work the run did not do for a model, and why (never filled in by another model)."""

    model: str
    """The coder."""
    task_id: str | None = None
    """The task, or None when the whole stage is skipped for the coder."""
    stage: str
    reason: str
    """e.g. ``not run: no refiner``, ``task not in replay dataset ...``."""


class ScreeningDecision(Record):
    """RQ3: one strategy's decision on one test-fail feedback."""

    feedback_id: str
    strategy: str
    """``accept_all``, ``llm_judge``, ``llm_judge_reasoning``, ..."""
    decision: Decision
    reasoning: str | None = None
    call: ModelCallRecord | None = None
    """None for strategies that call no model (``accept_all``)."""
    decision_path: str | None = None


class Refinement(Record):
    """RQ2: one independent refinement attempt for one test-fail feedback."""

    feedback_id: str
    model: str
    task_id: str
    code: str | None
    """Refined program; None when the response held no usable code."""
    parse_error: str | None = None
    call: ModelCallRecord
    code_path: str | None = None


class RefinedEvaluation(Record):
    """RQ2: the refined program on the benchmark tests and on the same generated test."""

    feedback_id: str
    model: str
    task_id: str
    benchmark_before: bool
    """Benchmark verdict of the generated code."""
    benchmark_after: bool | None
    """Benchmark verdict of the refined code (None when there was no usable code)."""
    generated_test_after: TestOutcome | None
    """The refined code's outcome on the generated test behind the feedback."""
    transition: Transition
    benchmark_run_path: str | None = None


RepairStatus = Literal["repaired", "not_repaired"]
"""Oracle repair of one unreliable EBT (issue 15): its expected value replaced by the reference's output, or not."""


class RepairedTest(Record):
    """One unreliable EBT feedback instance and its oracle repair (the reference's output as expected value).

    Uses the reference: the oracle-repaired arm is an upper bound, never a screening strategy
    (docs/oracle_repair.md, :mod:`tfr_helpers.pipeline.oracle_repair`).
    """

    feedback_id: str
    """The original feedback (pair id) this repair stands beside."""
    test_id: str
    code_index: int = 0
    model: str
    """The coder."""
    task_id: str
    benchmark: BenchmarkName
    cause: Cause
    """Cause of the original feedback's unreliability."""
    status: RepairStatus
    reason: str | None = None
    """Why the test was not repaired (``invalid input: ...``, ``not an equality assert``, ...); None if repaired."""
    source: str | None = None
    """The repaired test's source (only when repaired)."""
    reference: TestOutcome | None = None
    """The reference's outcome on the repaired test (the verification; ``passed`` when repaired)."""
    generated: TestOutcome | None = None
    """The generated code's outcome on the repaired test (only when repaired)."""
    feedback: Feedback | None = None
    """Repaired feedback, built like the original; None when not repaired or the code passes the repaired test."""


class OracleRefinement(Refinement):
    """A refinement of the oracle-repaired arm: the same refiner on the repaired feedback (same fields)."""


class OracleRefinedEvaluation(RefinedEvaluation):
    """An oracle-repaired refinement on the benchmark tests and on the repaired test (same fields)."""


class OracleRepairResults(Record):
    """The oracle-repaired arm of a run (``refinement.oracle_repair``): repairs, refinements, evaluations."""

    repaired_tests: list[RepairedTest] = Field(default_factory=list)
    refinements: list[OracleRefinement] = Field(default_factory=list)
    refined_evaluations: list[OracleRefinedEvaluation] = Field(default_factory=list)
    refinement_status: dict[str, str] = Field(default_factory=dict)
    """Coder -> ``run`` or why its repaired feedback was not refined (``not run: no refiner``)."""


class CallTotals(Record):
    """Model calls and tokens spent, per model, role and stage."""

    model: str
    role: Role
    stage: str
    calls: int
    cached: int
    errors: int
    input_tokens: int
    output_tokens: int
    cost_usd: float


class Results(Record):
    """Everything a run produced, consolidated (``runs/<run>/results.json``)."""

    version: int = SCHEMA_VERSION
    run_name: str
    simulated: bool
    """True when any model of the run is the simulated model: results are a demo, not evidence."""
    config: dict[str, object]
    """The resolved experiment configuration (no secrets)."""
    tasks: list[str]
    """Task ids used, in order."""
    task_benchmarks: dict[str, BenchmarkName]
    """Task id -> benchmark."""
    generated_codes: list[GeneratedCode]
    generated_tests: list[GeneratedTest]
    test_generation_failures: list[TestGenerationFailure] = Field(default_factory=list)
    benchmark_verdicts: list[BenchmarkVerdict]
    """Generated code on the benchmark tests (the "before" of every transition)."""
    pair_evaluations: list[PairEvaluation]
    screening: list[ScreeningDecision]
    refinements: list[Refinement]
    refined_evaluations: list[RefinedEvaluation]
    model_sources: list[ModelSource] = Field(default_factory=list)
    """Where each model's outputs come from (simulated, replayed with its dataset, or a live provider)."""
    skipped: list[SkippedWork] = Field(default_factory=list)
    """Tasks and stages not run for a coder, with the reason (a task missing from a dataset, no refiner...)."""
    call_totals: list[CallTotals] = Field(default_factory=list)
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    """Wall time per stage of the run that produced this file (timing field)."""
    oracle_repair: OracleRepairResults | None = None
    """The oracle-repaired arm (issue 15; None unless ``refinement.oracle_repair``): uses the reference."""
    rounds: _rounds.RoundsResults | None = None
    """Multi-round backprompting (issue 15; None unless ``refinement.rounds`` > 1): ``tfr_helpers.rounds_records``."""


# the rounds' records live in their own module, which imports this one: bound here, after every class it uses,
# and resolved by pydantic on Results' first use (either module may be imported first)
from tfr_helpers import rounds_records as _rounds  # noqa: E402
