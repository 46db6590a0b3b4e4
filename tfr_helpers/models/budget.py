"""A spending cap (``budget_usd``): no call is sent once spent + in-flight reservations could pass it.

Before each request the client reserves the most the call can cost: its prompt at :data:`CHARS_PER_TOKEN`
characters per token (generous: prose runs about 4) plus ``max_tokens`` of output, at the model's price. The
call is sent only while ``spent + reserved + this reservation <= cap``; its reply settles the reservation at the
cost from the provider's usage fields. A refused call raises :class:`BudgetExhausted`, a fatal
:class:`~tfr_helpers.models.errors.NotSent`: the client stops (fail fast), calls in flight finish, and the run
ends incomplete with this module's message (raise the cap and rerun; finished work is kept).

So spending passes the cap only when a call in flight used more input tokens than its reservation assumed:
never by more than the calls in flight. ``spent`` starts from the run's call logs, so the cap is the run's
total across invocations.
"""

from __future__ import annotations

import threading

from tfr_helpers.models.base import ModelRequest
from tfr_helpers.models.errors import NotSent
from tfr_helpers.models.settings import Price

CHARS_PER_TOKEN = 2.0
"""Characters per input token assumed by a reservation: an upper bound of the tokens (prompts measured 3.3 to 5.2
characters per token with the o200k and cl100k tokenizers, code down to 2.2; see benchmarks/perf/token_estimate.py)."""


class BudgetExhausted(NotSent):
    """The next call could pass ``budget_usd``: it is not sent, and the run stops."""

    fatal = True

    def describe(self) -> str:
        """``NotSent: the budget is reached ...`` (counted with the calls not sent)."""
        return f"NotSent: {self}"


def reservation(request: ModelRequest, max_tokens: int, price: Price | None) -> float:
    """The most one call can cost in USD (0 for a model without a price: simulated or replayed)."""
    if price is None:
        return 0.0
    chars = sum(len(m.content) for m in request.messages)
    return (chars / CHARS_PER_TOKEN * price.input_per_mtok + max_tokens * price.output_per_mtok) / 1e6


class Budget:
    """Spent and reserved USD against a cap (thread-safe)."""

    def __init__(self, cap_usd: float, spent_usd: float = 0.0) -> None:
        self.cap_usd = cap_usd
        self.spent_usd = spent_usd
        """Cost of the calls sent so far in the run (earlier invocations included)."""
        self.reserved_usd = 0.0
        """Reservations of the calls in flight."""
        self.in_flight = 0
        self._lock = threading.Lock()

    def reserve(self, amount: float) -> float:
        """Reserve ``amount`` for a call about to be sent; returns it (pass it to :meth:`settle`).

        Raises:
            BudgetExhausted: ``spent + reserved + amount`` would pass the cap.
        """
        with self._lock:
            if self.spent_usd + self.reserved_usd + amount > self.cap_usd:
                raise BudgetExhausted(self.message(amount))
            self.reserved_usd += amount
            self.in_flight += 1
            return amount

    def settle(self, amount: float, cost_usd: float) -> None:
        """Release a reservation and add the call's actual cost (0 when it failed)."""
        with self._lock:
            self.reserved_usd = max(0.0, self.reserved_usd - amount)
            self.in_flight = max(0, self.in_flight - 1)
            self.spent_usd += cost_usd

    def message(self, amount: float) -> str:
        """Why a call was refused, what was spent and how to continue."""
        return (
            f"the budget is reached: budget_usd is ${self.cap_usd:.4f}, ${self.spent_usd:.4f} is spent in this run, "
            f"${self.reserved_usd:.4f} is reserved by {self.in_flight} call(s) in flight, and the next call may cost "
            f"up to ${amount:.4f}. Raise budget_usd in the params (or remove it) and rerun with the same --run-dir "
            "to continue; finished work is kept and `tfr estimate --params F --run-dir D` shows what is left"
        )
