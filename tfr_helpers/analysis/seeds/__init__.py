"""Numbers over repeated seeds: each headline number as mean +- SE over seeds (:mod:`over_seeds`), and what notebook
03c shows of a "beyond one refinement" study over its seeds (:mod:`section`)."""
