"""Comparing a head report with a base report: what moved, is it real, and is it comparable?

A delta is only worth reading when both numbers were measured with one
yardstick: the same judgments, relevance threshold and gain. When the
yardstick changed and the base report kept its rankings, the base rankings
are scored again under the head's judgments and configuration, so both
sides are judged alike; the document says so. When that cannot be done, the
deltas it touches are marked *confounded*, and delta gates over them say
INDETERMINATE instead of guessing.

Queries are paired by id. Only queries scored on both sides enter the
deltas, the bootstrap and the movers; the others are listed. Cutoff lists
may differ: ``recall@5`` means the same whatever other cutoffs were computed
beside it.

``build_comparison`` returns a JSON-ready document; the same inputs give the
same bytes (nothing in it reads the clock). ``comparison_from_document``
turns it into the :class:`Comparison` that gates read.

The parts, in the order the document is built:

- ``sides``: the two reports as read, and which queries pair up;
- ``idspace``: were both sides chunked alike; after a re-chunk the base rankings are
  carried into the head's chunk ids through the moves the labels record;
- ``yardstick``: were both measured alike; if not, ``rescore`` scores the
  base rankings again, or the deltas touched are confounded;
- ``findings``: every other way the reports differ, and what it limits;
- ``deltas``: each metric's base, head, delta and paired bootstrap;
- ``breakdown``: the primary metric per stratum, and the queries that moved most;
- ``document``: ``build_comparison``, which puts the above together;
- ``result``: ``compared_document`` (the document, its bounds settled) and
  ``comparison_from_document``, the document as gates read it (``core.comparison``).

The package itself imports nothing: ``render`` reads ``history`` without loading the
bootstrap, and ``score`` without a base report loads none of it.
"""
