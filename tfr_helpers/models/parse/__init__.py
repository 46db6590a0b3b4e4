"""Read model replies the way models write them: programs, generated tests and judge decisions.

Nothing here raises on bad text: what cannot be read comes back as an error string or ``undecided``.
The reply forms each parser accepts are listed in the README ("Reading model replies").
"""

from tfr_helpers.models.parse.code import ParsedCode, parse_code
from tfr_helpers.models.parse.decision import ParsedDecision, parse_decision
from tfr_helpers.models.parse.tests import DroppedTest, ParsedTest, ParsedTests, parse_tests

__all__ = [
    "DroppedTest",
    "ParsedCode",
    "ParsedDecision",
    "ParsedTest",
    "ParsedTests",
    "parse_code",
    "parse_decision",
    "parse_tests",
]
