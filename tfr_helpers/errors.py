"""User-facing errors: each message states the fix; the CLI prints it without a traceback."""


class TfrError(Exception):
    """Base of every error caused by the user's input or environment (bad params, missing data, missing key)."""


class ConfigError(TfrError):
    """The experiment configuration or a params file is invalid."""


class DataError(TfrError):
    """Benchmark data is missing, corrupt or cannot be fetched."""


class CredentialsError(TfrError):
    """An API key or base URL needed by a configured model is missing."""


class RunDirError(TfrError):
    """A run directory is missing, incomplete or belongs to a different configuration."""


class SandboxError(TfrError):
    """The sandbox itself could not run (not a failure of the program under test)."""
