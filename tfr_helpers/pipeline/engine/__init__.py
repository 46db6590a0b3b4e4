"""The stage engine: stage registry, runner, context, run store, codec, fingerprint, progress, faults, run summary."""
