"""``tfr estimate``: the calls, tokens and cost of a study before any call is made."""
