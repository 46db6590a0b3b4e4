"""Program text shared by the EvalPlus tests."""

SPIN = (
    "import time\n"
    "def spin(cpu_s):\n"
    "    start = time.process_time()\n"
    "    while time.process_time() - start < cpu_s:\n"
    "        pass\n"
)
"""A busy loop of ``cpu_s`` CPU seconds, whatever the machine's load (the harness stops it at its CPU time limit)."""
