"""Compiling a run's ``.tex`` tables in a paper's page: a 17 cm text width, ``booktabs`` only."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from tests.helpers.env import require_executable

PAGE = (
    "\\documentclass[10pt]{article}\n\\usepackage[a4paper,textwidth=17cm,textheight=25cm]{geometry}\n"
    "\\usepackage{booktabs}\n\\begin{document}\n"
)
OVERFULL = re.compile(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide\)[^\n]*\n(?:[^\n]*\n){0,2}")


def overfull_boxes(tables: Iterable[Path], workdir: Path, limit_pt: float = 1.0) -> list[str]:
    """Compile every table in one 17 cm-wide document with pdflatex (failing on a LaTeX error) and return the
    overfull boxes wider than ``limit_pt``, each with the table it came from."""
    require_executable("pdflatex", "apt-get install texlive-latex-base texlive-latex-recommended")
    paths = list(tables)
    body = "".join(f"\\typeout{{TABLE {p.name}}}\n\\input{{{p.as_posix()}}}\n\\clearpage\n" for p in paths)
    doc = workdir / "page.tex"
    doc.write_text(PAGE + body + "\\end{document}\n")
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = (workdir / "page.log").read_text(errors="replace")
    assert proc.returncode == 0 and (workdir / "page.pdf").is_file(), log[-3000:]
    found, table = [], "?"
    for line in log.split("TABLE ")[1:]:
        table = line.split("\n", 1)[0]
        found += [f"{table}: {m.group(0).strip()}" for m in OVERFULL.finditer(line) if float(m.group(1)) > limit_pt]
    return found
