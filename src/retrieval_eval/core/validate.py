"""Validation: is the judgment set sound, and does a run fit it?

Issues come out in one deterministic order, the same in JSON and text: by
code, in the order of ``CODES`` below, then by subject sorted by Unicode code
point. Errors make the set unsound (a score computed from it is
INDETERMINATE); warnings are things a user should know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .field_names import KNOWN_FIELDS, SCORED_FIELDS, FieldSlip, FieldSlips
from .judgments import JudgmentSet
from .labelindex import QRELS_ITERATION, LabelIndex, QueryIndex, as_label_index
from .power import DEFAULT_ALPHA, DEFAULT_POWER, NORMAL, Design, detectable_effect

ERROR = "error"
WARNING = "warning"

# code -> severity, in emission order.
CODES: dict[str, str] = {
    "duplicate-label": ERROR,
    "misspelled-scored-field": ERROR,
    "conflicting-stratum": ERROR,
    "no-answer-with-positives": ERROR,
    "rejudge-shared-chunk": WARNING,
    "missing-query-text": WARNING,
    "conflicting-query-text": WARNING,
    "no-positives": WARNING,
    "thin-stratum": WARNING,
    "unknown-provenance": WARNING,
    "misspelled-field": WARNING,
    "no-chunk-ids": WARNING,
    "run-query-not-judged": WARNING,
    "run-query-missing": WARNING,
    "run-keys-unmatched": WARNING,
    "run-repeated-key": WARNING,
    "chunk-run-vs-document-labels": WARNING,
    "document-run-vs-chunk-labels": WARNING,
    "easy-set": WARNING,  # these two need a corpus: core/sensitivity.py
    "answer-in-query": WARNING,
}
# A stratum with fewer scored queries than this gives an average too noisy to gate on.
THIN_STRATUM = 5


@dataclass(frozen=True)
class Issue:
    code: str
    subject: str
    message: str

    @property
    def severity(self) -> str:
        return CODES[self.code]


@dataclass(frozen=True)
class Validation:
    issues: tuple[Issue, ...]
    queries: int
    labels: int

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def errors(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity == ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [issue for issue in self.issues if issue.severity == WARNING]

    def error_codes(self) -> list[str]:
        return list(dict.fromkeys(issue.code for issue in self.errors))


def ordered(issues: Iterable[Issue]) -> tuple[Issue, ...]:
    rank = {code: index for index, code in enumerate(CODES)}
    return tuple(sorted(issues, key=lambda issue: (rank[issue.code], issue.subject)))


def _shared_by_rejudge(query_id: str, key: str, where: str, rejudged: list[tuple[str, int]]) -> Issue:
    """Lines of a filled re-judge queue that grade one chunk, each for another broken label."""
    grades = sorted({grade for _, grade in rejudged})
    shared = f"query {query_id} grades {key} on lines {where}, re-judge lines for {len(rejudged)} broken labels"
    keep = (
        "drift --fix folds them into one label and keeps each line's move "
        "(deleting one forgets where its old chunk went)"
    )
    if len(grades) == 1:
        return Issue("rejudge-shared-chunk", f"{query_id} {key}", f"{shared}: keep every line; {keep}")
    graded = " and ".join(str(grade) for grade in grades)
    return Issue(
        "duplicate-label",
        f"{query_id} {key}",
        f"{shared}, graded {graded}: give the lines one grade and keep every line; {keep}",
    )


def _repeated_rejudge(query_id: str, key: str, where: str, lines: list[int], rejudged: list[tuple[str, int]]) -> Issue:
    """Re-judge lines on one chunk for several broken labels, some repeated (a filled queue
    appended twice): the repeats are what to delete. "Keep one label" lost the others' moves."""
    seen: set[str] = set()
    repeats: list[str] = []
    for line, (old, _) in zip(lines, rejudged):
        if old in seen:
            repeats.append(str(line))
        seen.add(old)
    named = f"line {repeats[0]} repeats" if len(repeats) == 1 else f"lines {', '.join(repeats)} repeat"
    them = "it" if len(repeats) == 1 else "them"
    grades = sorted({grade for _, grade in rejudged})
    graded = f", graded {' and '.join(str(grade) for grade in grades)}" if len(grades) > 1 else ""
    return Issue(
        "duplicate-label",
        f"{query_id} {key}",
        f"query {query_id} grades {key} on lines {where}, re-judge lines for {len(seen)} broken labels{graded}; "
        f"{named} a line for the same broken label (rejudge.from): delete {them} and keep "
        f"the others{' with one grade' if graded else ''}; drift --fix folds those into one label and keeps each "
        "line's move (deleting one forgets where its old chunk went)",
    )


def _label_issues(
    query_id: str, query: QueryIndex, threshold: int, rejudged: Mapping[tuple[str, str], list[tuple[str, int]]]
) -> Iterable[Issue]:
    for key, lines in (query.repeats or {}).items():
        where = ", ".join(str(line) for line in lines)
        trails = rejudged.get((query_id, key), [])
        froms = [old for old, _ in trails]
        if len(trails) == len(lines) and len(set(froms)) == len(trails):
            yield _shared_by_rejudge(query_id, key, where, trails)
            continue
        if len(trails) == len(lines) and len(set(froms)) > 1:
            yield _repeated_rejudge(query_id, key, where, lines, trails)
            continue
        why = ""
        if len(query.iterations) > 1:
            why = (
                f"; the labels differ in {QRELS_ITERATION} ({', '.join(query.iterations)}), the TREC qrels "
                "iteration column, which judgments do not have: split the qrels file by that column"
            )
        yield Issue(
            "duplicate-label",
            f"{query_id} {key}",
            f"query {query_id} labels {key} more than once (lines {where}){why}; keep one label",
        )
    if not query.texts:
        yield Issue("missing-query-text", query_id, f"query {query_id} has no query text on any line")
    elif len(query.texts) > 1:
        yield Issue(
            "conflicting-query-text", query_id, f"query {query_id} has {len(query.texts)} different query texts"
        )
    if len(query.strata) > 1:
        names = ", ".join(sorted(query.strata))
        yield Issue("conflicting-stratum", query_id, f"query {query_id} is in more than one stratum ({names})")
    # The relevant keys (a key labeled 0 is only judged) are listed for a no-answer query alone:
    # sorting them for every query was half of validating M's 125k labels.
    if query.no_answer and (positive := sorted(key for key, grade in query.grades.items() if grade > 0)):
        keys = ", ".join(positive)
        yield Issue(
            "no-answer-with-positives",
            query_id,
            f"query {query_id} is marked no_answer but labels {keys} relevant; drop one or the other",
        )
    elif max(query.grades.values(), default=0) < threshold and not query.no_answer:
        yield Issue(
            "no-positives",
            query_id,
            f"query {query_id} has no label at relevance >= {threshold}; it is left out of the averages",
        )
    for line in query.unknown_provenance or ():
        yield Issue(
            "unknown-provenance",
            f"{query_id} line {line}",
            f"line {line}: labeled_by should start with human: or synthetic:",
        )


def _strata_issues(queries: Iterable[QueryIndex], threshold: int) -> Iterable[Issue]:
    """A stratum too thin to gate on, counted as its average is: over its scored queries (a
    relevant label, not marked no_answer), the others named beside them."""
    scored: dict[str, int] = {}
    others: dict[str, int] = {}
    for query in queries:
        if query.stratum is not None:
            counted = not query.no_answer and bool(query.grades) and max(query.grades.values()) >= threshold
            tally = scored if counted else others
            tally[query.stratum] = tally.get(query.stratum, 0) + 1
            scored.setdefault(query.stratum, 0)
    for name, size in scored.items():
        if size < THIN_STRATUM:
            more = others.get(name, 0)
            beside = f" (and {more} not scored: no relevant label, or marked no_answer)" if more else ""
            yield Issue(
                "thin-stratum",
                name,
                f"stratum {name} has {size} scored quer{'y' if size == 1 else 'ies'}{beside}; "
                f"an average over fewer than {THIN_STRATUM} is too noisy to gate on: {_coarseness(size)}",
            )


def _coarseness(size: int) -> str:
    """What a paired test over ``size`` queries can see, in units of their differences' spread."""
    if size == 0:
        return "none of its queries is scored, so it has no average at all"
    reach = detectable_effect(1.0, size, Design(method=NORMAL))
    if reach is None:
        return "one query has no spread, so no test on it can tell a change from noise"
    return (
        f"a paired test over them detects only changes of {reach:.1f} times the spread of their per-query "
        f"differences or more ({DEFAULT_POWER:.0%} power, {DEFAULT_ALPHA:.0%} level), too coarse for any gate"
    )


def validate(judgments: JudgmentSet | LabelIndex, *, threshold: int = 1) -> Validation:
    """Check a judgment set on its own (parsed, or streamed into a :class:`LabelIndex`)."""
    index = as_label_index(judgments)
    issues: list[Issue] = []
    for query_id, query in index.queries.items():
        issues.extend(_label_issues(query_id, query, threshold, index.rejudged))
    issues.extend(_strata_issues(index.queries.values(), threshold))
    issues.extend(field_issues(index.slips.found))
    if not index.chunk_ids:
        issues.append(
            Issue("no-chunk-ids", "", "no label carries a chunk_id, so drift cannot check labels after a re-chunk")
        )
    return Validation(ordered(issues), len(index.queries), index.labels)


# What a label read without the field it misspelled then says, for the fields scoring reads.
_READ_WITHOUT = {
    "chunk_id": "such a label grades its document (doc_uri), not the chunk",
    "stratum": "its query is in no stratum",
}


def misspelled_fields(judgments: JudgmentSet) -> list[Issue]:
    """The field slips of a parsed judgment set, for a command that reads the labels without
    validating them (``drift``, ``convert``): a label whose ``chunk_id`` is misspelled is a
    document label to them, as to scoring, and is neither checked nor converted as a chunk's."""
    slips = FieldSlips()
    for items in (judgments.labels, judgments.no_answer):  # lines in any order: a slip keeps its first
        for item in items:
            if not KNOWN_FIELDS.issuperset(item.record):
                slips.note(item.record, item.line)
    return field_issues(slips.found)


def field_issues(misspelled: Mapping[str, FieldSlip]) -> list[Issue]:
    """Unknown field names standing where a known one is missing, one slip away from it
    (core/field_names.py). One that stands for a field scoring reads changes the numbers: an error."""
    issues = []
    for name, slip in misspelled.items():
        shown = repr(name) if name.isascii() else ascii(name)  # a lookalike letter shows as what it is
        first = slip.first_line
        where = f"line {first} carries" if slip.lines == 1 else f"{slip.lines} lines (the first: {first}) carry"
        said = f"{where} {shown} and no {slip.known}: {shown} is no field but looks like {slip.known!r}"
        if slip.known in SCORED_FIELDS:
            issues.append(Issue("misspelled-scored-field", name, f"{said}, so {_READ_WITHOUT[slip.known]}; rename it"))
        else:
            kept = "it is kept as a field of your own and read as nothing"
            issues.append(Issue("misspelled-field", name, f"{said}; {kept}"))
    return issues


@dataclass(frozen=True)
class RunFacts:
    """What the run checks need to know of a run, gathered while streaming it."""

    keys_by_query: Mapping[str, set[str]]
    repeated: Iterable[str]
    unjudged: Iterable[str]


def run_issues(judgments: JudgmentSet, facts: RunFacts, *, threshold: int = 1) -> list[Issue]:
    """Problems that make a run score wrongly against these judgments, silently."""
    issues = [Issue("run-query-not-judged", q, f"run query {q} has no judgment; it is ignored") for q in facts.unjudged]
    issues += [
        Issue("run-repeated-key", q, f"run query {q} repeats a key; only the first counts") for q in facts.repeated
    ]
    doc_level = chunk_level = True
    matched = False
    for query_id, labels in judgments.by_query().items():
        doc_level = doc_level and all(label.chunk_id is None for label in labels)
        chunk_level = chunk_level and all(label.chunk_id is not None for label in labels)
        matched = matched or bool(facts.keys_by_query.get(query_id, set()) & {label.key for label in labels})
        keys = facts.keys_by_query.get(query_id)
        if keys is None:
            if any(label.relevance >= threshold for label in labels):
                issues.append(
                    Issue("run-query-missing", query_id, f"judged query {query_id} is not in the run; it scores 0")
                )
            continue
        judged = {label.key for label in labels}
        if keys and not keys & judged:
            issues.append(
                Issue(
                    "run-keys-unmatched",
                    query_id,
                    f"no key the run returns for {query_id} is judged; check the run names "
                    "the same ids as the labels (chunk ids vs document uris)",
                )
            )
    all_keys = [key for keys in facts.keys_by_query.values() for key in keys]
    if doc_level and all_keys and all(key.startswith("c1:") for key in all_keys):
        issues.append(
            Issue(
                "chunk-run-vs-document-labels",
                "",
                "the run returns chunk ids but every label is document-level; score with "
                "--corpus CORPUS --collapse-to-documents",
            )
        )
    if chunk_level and all_keys and not matched and not any(key.startswith("c1:") for key in all_keys):
        issues.append(
            Issue(
                "document-run-vs-chunk-labels",
                "",
                "no key of the run is a key the labels name, and every label names a chunk: a run of "
                "document ids cannot match chunk labels; make the retriever return the corpus's chunk ids",
            )
        )
    return issues


def validate_with_run(judgments: JudgmentSet, facts: RunFacts, *, threshold: int = 1) -> Validation:
    base = validate(judgments, threshold=threshold)
    issues = ordered([*base.issues, *run_issues(judgments, facts, threshold=threshold)])
    return Validation(issues, base.queries, base.labels)
