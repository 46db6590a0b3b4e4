"""The numbers of ``tfr estimate`` (see :mod:`.estimate`): one line per (stage, model, role), totals per model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Range = tuple[float, float, float]
"""(low, point, high)."""


def _add(a: Range, b: Range) -> Range:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def _mul(a: Range, b: Range) -> Range:
    return a[0] * b[0], a[1] * b[1], a[2] * b[2]


@dataclass
class Line:
    """Calls, tokens and cost of one (stage, model, role)."""

    stage: str
    model: str
    role: str
    mode: str
    """``exact`` (from the configuration or a run's records), ``projected`` (a fail rate range), ``done``."""
    calls: Range = (0.0, 0.0, 0.0)
    """Calls to send (cache hits not included)."""
    cached: float = 0.0
    """Calls the response cache answers (free)."""
    input_tokens: Range = (0.0, 0.0, 0.0)
    output_tokens: Range = (0.0, 0.0, 0.0)
    cost_usd: Range = (0.0, 0.0, 0.0)
    unpriced: bool = False

    def add(self, weight: Range, tokens: Range, out: Range, price: Any, discount: float) -> None:
        """Add one planned call standing for ``weight`` calls."""
        self.calls = _add(self.calls, weight)
        tin, tout = _mul(weight, tokens), _mul(weight, out)
        self.input_tokens = _add(self.input_tokens, tin)
        self.output_tokens = _add(self.output_tokens, tout)
        if price is None:
            self.unpriced = self.unpriced or not (self.model.startswith(("sim:", "replay:")))
            return
        per = (price.input_per_mtok * discount / 1e6, price.output_per_mtok * discount / 1e6)
        cost = tuple(i * per[0] + o * per[1] for i, o in zip(tin, tout, strict=True))
        self.cost_usd = _add(self.cost_usd, cost)  # type: ignore[arg-type]


def _calls(r: Range) -> str:
    lo, pt, hi = (round(x) for x in r)
    return f"{pt}" if lo == hi else f"{pt} ({lo}-{hi})"


def _tok(r: Range) -> str:
    return f"{r[1] / 1000:.1f}k ({r[0] / 1000:.1f}-{r[2] / 1000:.1f}k)"


def _usd(r: Range) -> str:
    return f"${r[1]:.2f} (${r[0]:.2f}-${r[2]:.2f})"


@dataclass
class StudyEstimate:
    """What :func:`~tfr_helpers.pipeline.estimate.dry_run.estimate` found."""

    lines: list[Line]
    modes: dict[str, str]
    """Stage -> how its calls were counted."""
    fail_rate: tuple[float, float]
    done_calls: int = 0
    """Calls of items already checkpointed in the run directory (not planned again)."""
    ratios: list[float] = field(default_factory=list)
    """Reported / approximated input tokens of the cache entries matching planned requests."""
    notes: list[str] = field(default_factory=list)
    chars_per_token: tuple[float, float, float] = (5.2, 4.4, 3.2)
    budget_usd: float | None = None
    """The params' spending cap, compared with the cost range."""
    arms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each arm's stages by arm name (``pipeline.study.ARMS``): the calls of each get a total line of its own."""

    def calls_by(self, stage: str, role: str | None = None) -> Range:
        """Planned calls (cache hits included) of one stage (and role)."""
        total: Range = (0.0, 0.0, 0.0)
        for ln in self.lines:
            if ln.stage == stage and (role is None or ln.role == role):
                total = _add(total, _add(ln.calls, (ln.cached, ln.cached, ln.cached)))
        return total

    def stage_totals(self, stages: Sequence[str]) -> tuple[Range, Range] | None:
        """Calls (cache hits included) and cost of some stages (an arm's), or None when they plan none."""
        mine = [ln for ln in self.lines if ln.stage in stages]
        if not mine:
            return None
        calls: Range = (0.0, 0.0, 0.0)
        cost: Range = (0.0, 0.0, 0.0)
        for ln in mine:
            calls = _add(calls, _add(ln.calls, (ln.cached, ln.cached, ln.cached)))
            cost = _add(cost, ln.cost_usd)
        return calls, cost

    def cost_by_model(self) -> dict[str, Range]:
        """Cost range per model."""
        out: dict[str, Range] = {}
        for ln in self.lines:
            out[ln.model] = _add(out.get(ln.model, (0.0, 0.0, 0.0)), ln.cost_usd)
        return out

    @property
    def total_cost(self) -> Range:
        """Cost range of the whole study."""
        total: Range = (0.0, 0.0, 0.0)
        for r in self.cost_by_model().values():
            total = _add(total, r)
        return total

    def table(self) -> list[str]:
        """The report: a table per (stage, model, role), totals per model, and how the numbers were made."""
        head = f"{'stage':<18} {'model':<30} {'role':<8} {'calls':>16} {'cached':>6} {'input tokens':>22} "
        head += f"{'output tokens':>24} {'cost USD':>24}  counted"
        out = [head]
        for ln in self.lines:
            out.append(
                f"{ln.stage:<18} {ln.model:<30} {ln.role:<8} {_calls(ln.calls):>16} {round(ln.cached):>6} "
                f"{_tok(ln.input_tokens):>22} {_tok(ln.output_tokens):>24} {_usd(ln.cost_usd):>24}  {ln.mode}"
            )
        out.append("")
        for model, cost in self.cost_by_model().items():
            out.append(f"total {model}: {_usd(cost)}")
        out.append(f"total: {_usd(self.total_cost)}")
        for arm, stages in self.arms.items():  # each arm's calls on a line of its own
            planned = [name for name in stages if any(ln.stage == name for ln in self.lines)]
            totals = self.stage_totals(planned)
            if totals is not None:
                calls, cost = totals
                out.append(f"of which {arm} ({', '.join(planned)}): {_calls(calls)} calls, {_usd(cost)}")
        if self.budget_usd is not None:
            low, point, high = self.total_cost
            verdict = (
                "above the high estimate"
                if self.budget_usd >= high
                else "inside the range: the run may stop at the cap"
                if self.budget_usd >= low
                else "below the low estimate: the run will stop at the cap (raise budget_usd or use batch mode)"
            )
            out.append(f"budget_usd: ${self.budget_usd:.4f}, {verdict}")
        out += self.assumptions()
        return out

    def assumptions(self) -> list[str]:
        """How the numbers were made (printed under the table)."""
        lo, hi = self.fail_rate
        low, point, high = self.chars_per_token
        out = ["", "how counted:"]
        projected = [s for s, m in self.modes.items() if m == "projected"]
        if projected:
            out.append(
                f"  {', '.join(projected)}: one call per test-fail feedback (and LLM strategy); feedbacks are an outcome, "
                f"projected as generated tests x code samples x a fail rate of {lo:.0%}-{hi:.0%} (point: the middle); "
                "pass --run-dir of an evaluated run for exact counts"
            )
        out.append(
            f"  input tokens: prompt characters / {point} (range /{low} to /{high}), measured on these prompts with "
            "the o200k/cl100k tokenizers (benchmarks/perf/token_estimate.py); other models' tokenizers differ"
        )
        if self.ratios:
            mean = sum(self.ratios) / len(self.ratios)
            out.append(
                f"  measured: {len(self.ratios)} cached replies to these prompts reported {mean:.2f}x the point "
                f"estimate (min {min(self.ratios):.2f}, max {max(self.ratios):.2f})"
            )
        out.append("  output tokens: mean of cached replies of the model and template, else max_tokens/4 to max_tokens")
        out.append(
            "  cached and checkpointed calls are free"
            + (f"; {self.done_calls} calls already done" if self.done_calls else "")
        )
        out += [f"  note: {n}" for n in self.notes]
        return out
