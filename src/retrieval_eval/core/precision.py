"""The one precision of every number retrieval-eval writes.

Reports, comparison documents, drift summaries and judged measurements all
round to 12 decimals, so two machines agree on every digit they print and a
fixture can pin a number exactly.
"""

from __future__ import annotations

DECIMALS = 12
UNITS = 10**DECIMALS  # a value rounded to DECIMALS is a whole number of 1/UNITS

# Larger than any metric, count or judged score a real report holds (a double is exact to 2**53),
# small enough that sums, squares and percentages of such values stay finite: a value past it is
# damage, refused when a document is read back (formats/shapes.py) and read as missing elsewhere.
MAX_MAGNITUDE = 1e15
