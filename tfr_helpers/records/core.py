"""The vocabulary of every record: labels, ids, tasks, program runs and model calls (the lowest record module).

Every persisted record is a frozen pydantic model (:class:`Record`). Data flows one way:
benchmarks/sandbox/models -> pipeline -> analysis -> views/cli/notebooks, and all of them
speak in these records. ``results.json`` is a :class:`~tfr_helpers.records.results.Results`.
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
"""Outcome of one test in the sandbox (docs/records.md)."""

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


def sample_index_suffix(sample_index: int) -> str:
    """Artifact name suffix of a code or test sample's own files: ``""`` for sample 0, ``_s<i>`` for sample ``i``."""
    return f"_s{sample_index}" if sample_index else ""


def code_index_suffix(code_index: int) -> str:
    """Artifact name suffix of what a pair of code sample ``code_index`` makes: ``""`` for 0, ``_c<i>`` for ``i``."""
    return f"_c{code_index}" if code_index else ""


def sample_suffix(feedback_id: str) -> str:
    """Artifact name suffix of a pair or feedback: ``""`` for code sample 0, ``_c<i>`` for code sample ``i``."""
    return code_index_suffix(split_pair_id(feedback_id)[1])


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
    """The sandbox's verdict on one test against one program (docs/records.md)."""

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
    """Wall time of this test in seconds (of a killed test: the wall time until the worker killed it)."""
    cpu_s: float = 0.0
    """CPU time of this test in seconds (the test process and its children; 0 when it did not report)."""
    wait_s: float | None = None
    """Seconds the test's process waited for a CPU during the test (the machine's load), which the worker
    reads from ``/proc/<pid>/schedstat``; None where not measured (a kernel or ``/proc`` without it, a record
    from before). ``duration_s - wait_s`` is the test's own time, by which the sandbox judges its budget."""

    def text(self) -> str:
        """The outcome in a few lines: status, exception and message, expected and actual values."""
        lines = [f"{self.name}: {self.status}"]
        if self.exc_type:
            lines.append(f"{self.exc_type}: {(self.message or '').strip()[:600]}")
        if self.expected is not None or self.actual is not None:
            lines.append(f"expected {self.expected}, actual {self.actual}")
        return "\n".join(lines)


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

    def failure_text(self) -> str:
        """The first test the program failed, with its message ("passed every ..." when none failed)."""
        if self.load_error is not None:
            return "the program did not load\n" + self.load_error.text()
        failed = [o for o in self.outcomes if o.status != "passed"]
        if not failed:
            return "passed every benchmark test" if self.outcomes else "no benchmark test ran"
        more = f"\n({len(failed) - 1} more failing benchmark tests)" if len(failed) > 1 else ""
        return failed[0].text() + more


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


TEST_CODE_ERRORS = frozenset(
    {
        "SyntaxError",
        "IndentationError",
        "TabError",
        "NameError",
        "ImportError",
        "ModuleNotFoundError",
        "UnboundLocalError",
    }
)
"""Exceptions that mean the test itself is broken when raised outside the code under test."""
