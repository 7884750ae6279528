"""The one precision of every number retrieval-eval writes.

Reports, comparison documents, drift summaries and judged measurements all
round to 12 decimals, so two machines agree on every digit they print and a
fixture can pin a number exactly.
"""

from __future__ import annotations

DECIMALS = 12
UNITS = 10**DECIMALS  # a value rounded to DECIMALS is a whole number of 1/UNITS
