"""Records of the intention-to-treat outcomes of a whole trajectory (stage ``judge_trajectory_outcomes``).

Every logged attempt of a task runs on the benchmark tests, whatever its feedback was: the outcomes of a run are
read per task, with no step classification, so a not-evaluable or not-reproduced feedback removes nothing. Only a
task whose benchmark cannot be judged offline is left out (``not_evaluable``, with the reason), and counted.
"""

from __future__ import annotations

from pydantic import Field

from tfr_helpers.records.core import BenchmarkName, Record


def outcome_key(dataset: str, task_id: str) -> str:
    """Checkpoint key of one trajectory."""
    return f"{dataset}|{task_id}"


class TrajectoryOutcome(Record):
    """One task's trajectory judged as a whole: the benchmark verdict of each attempt, in order."""

    dataset: str
    model: str
    task_id: str
    benchmark: BenchmarkName
    verdicts: list[bool] = Field(default_factory=list)
    """Attempt k passes the benchmark tests (every attempt, the first one and the last one included)."""
    not_evaluable: str = ""
    """Why the task cannot be judged offline (then ``verdicts`` is empty)."""

    @property
    def key(self) -> str:
        """Checkpoint key."""
        return outcome_key(self.dataset, self.task_id)

    @property
    def evaluable(self) -> bool:
        """Whether the task was judged."""
        return not self.not_evaluable and bool(self.verdicts)

    @property
    def steps(self) -> int:
        """Refinement steps taken (attempts after the first)."""
        return max(0, len(self.verdicts) - 1)

    @property
    def final_passed(self) -> bool | None:
        """The final code passes the benchmark (None when not judged)."""
        return self.verdicts[-1] if self.evaluable else None

    @property
    def ever_broken(self) -> bool | None:
        """Some step turned passing code into failing code (any Pass->Fail; None when not judged)."""
        if not self.evaluable:
            return None
        return any(a and not b for a, b in zip(self.verdicts, self.verdicts[1:], strict=False))

    @property
    def first_broken(self) -> bool | None:
        """Among tasks whose first attempt passes: the first step broke it (Pass->Fail); no step counts as not
        broken (the run stopped on passing code). None when the first attempt fails or the task is not judged."""
        if not self.evaluable or not self.verdicts[0]:
            return None
        return len(self.verdicts) > 1 and not self.verdicts[1]
