"""Regenerate the bundled demo data (src/retrieval_eval/demo/) from the texts below.

The demo is a small invented help centre for a note-taking app: three strata of
six queries, chunk-level labels with text hashes, a corpus snapshot, the head
run, and a baseline report scored from a base run. Two more queries have no
answer in the corpus (``expect: no_answer``): the head run abstains on them (an
empty ranking), the base run did not.

The runs look like a retriever's: each ranking is the corpus ordered by how many
of the query's words a chunk shares (TF-IDF cosine), with the answering chunks
placed where that retriever put them (``HEAD_RANKS``, ``BASE_RANKS``). So the
neighbours of an answer are the chunks a lexical match would bring up, different
for every query. Annotators also marked some of those neighbours not relevant
(grade 0), as they do when they judge what a retriever showed them: judged@5 then
differs from precision@5, and bpref sees judged non-relevant chunks ranked above
relevant ones. The billing and account documents come with
distractors (chunks that share the queries' words without answering them), so a
BM25 floor has to discriminate there; the sync stratum has none, on purpose, and
is the easy stratum the eval-set check warns about. Run from the repository root:

    python scripts/make_demo.py
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from retrieval_eval.core.identity import chunk_id, text_sha

OUT = Path("src/retrieval_eval/demo")
CHUNKER = "paragraph/400"
DOCS = {
    "help://billing/plans": [
        "Lumen Notes has a free plan and a Pro plan billed monthly or yearly.",
        "Yearly Pro plans cost the same as ten months of the monthly plan.",
        "Teams of five or more can ask for a volume discount.",
    ],
    "help://billing/refunds": [
        "Yearly plans can be refunded within 30 days of the renewal date.",
        "Monthly plans are not refunded once the billing date has passed.",
        "Refunds reach the original payment method within ten working days.",
    ],
    "help://billing/invoices": [
        "Invoices are listed under Settings, Billing, History.",
        "Each invoice can be downloaded as a PDF with your company details.",
        "Add a VAT number before paying so that it appears on the invoice.",
    ],
    "help://account/password": [
        "To reset your password, choose Forgot password on the sign-in page.",
        "The reset link in the email expires after one hour.",
        "Accounts that sign in with Google reset their password with Google.",
    ],
    "help://account/2fa": [
        "Two-factor authentication is turned on under Settings, Security.",
        "Keep the ten recovery codes somewhere safe; each works once.",
        "Lost your phone? Sign in with a recovery code and set up 2FA again.",
    ],
    "help://account/delete": [
        "Deleting your account removes every note after a 14-day grace period.",
        "Export your notes first from Settings, Data, Export.",
        "Shared notebooks stay with their other members.",
    ],
    "help://sync/offline": [
        "Notes edited offline sync as soon as the device is back online.",
        "Conflicting edits are kept side by side as two versions of the note.",
        "Offline mode keeps the last 500 opened notes on the device.",
    ],
    "help://sync/devices": [
        "The free plan syncs two devices; Pro syncs unlimited devices.",
        "Remove an old device under Settings, Devices.",
        "Sync status is shown by the cloud icon in the sidebar.",
    ],
    "help://sync/import": [
        "Import notes from Markdown files or an Evernote export.",
        "Attachments larger than 25 MB are skipped during import.",
        "Imported notes keep their creation dates and tags.",
    ],
    # Distractors: the queries' words, none of their answers.
    "help://billing/price-history": [
        "The yearly price and the monthly price of the free plan are both zero.",
        "Price changes: a new monthly price applies from the next monthly billing date.",
        "Yearly versus monthly: the yearly price is shown per month on the pricing page.",
        "Price questions about yearly or monthly plans go to the billing team.",
        "Team plans have their own monthly price and yearly price.",
        "Students get a discount for teams of any size on the education plan.",
    ],
    "help://account/security-faq": [
        "Your password is never sent by email; a reset link is sent instead.",
        "A password reset does not sign you out of Google.",
        "Password rules: at least ten characters, and not a password used before.",
        "Changing your password signs out every other device.",
        "Forgot the email address of your account? Contact support.",
        "A reset password for a shared notebook is not needed: sharing uses your account.",
        "Shared note links never expire; reset a link to revoke it.",
        "The password reset page links to the help on expired trials.",
        "Password reset link emails come from the no-reply address.",
        "An expired card does not reset your password or your link settings.",
        "Expired share links can be reset by the notebook owner.",
        "Expired links in imported notes are kept as plain text.",
    ],
}
QUERIES = {  # query id: (stratum, text, [(doc, chunk ordinal, grade)])
    "b1": (
        "billing",
        "how do I get a refund for my yearly plan",
        [("help://billing/refunds", 0, 3), ("help://billing/refunds", 2, 1)],
    ),
    "b2": ("billing", "are monthly plans refundable", [("help://billing/refunds", 1, 3)]),
    "b3": (
        "billing",
        "where can I download an invoice",
        [("help://billing/invoices", 1, 3), ("help://billing/invoices", 0, 2)],
    ),
    "b4": ("billing", "add VAT number to invoice", [("help://billing/invoices", 2, 3)]),
    "b5": (
        "billing",
        "yearly vs monthly price",
        [("help://billing/plans", 1, 3), ("help://billing/plans", 0, 1), ("help://billing/price-history", 0, 0)],
    ),
    "b6": ("billing", "discount for teams", [("help://billing/plans", 2, 3), ("help://billing/plans", 0, 0)]),
    "a1": (
        "account",
        "forgot my password",
        [("help://account/password", 0, 3), ("help://account/password", 1, 1), ("help://account/security-faq", 4, 0)],
    ),
    "a2": (
        "account",
        "password reset link expired",
        [
            ("help://account/password", 1, 3),
            ("help://account/security-faq", 8, 0),
            ("help://account/security-faq", 10, 0),
        ],
    ),
    "a3": ("account", "set up two-factor authentication", [("help://account/2fa", 0, 3)]),
    "a4": ("account", "lost phone with authenticator", [("help://account/2fa", 2, 3), ("help://account/2fa", 1, 2)]),
    "a5": ("account", "delete my account", [("help://account/delete", 0, 3), ("help://account/delete", 1, 1)]),
    "a6": (
        "account",
        "reset password for Google sign-in",
        [("help://account/password", 2, 3), ("help://account/security-faq", 1, 0)],
    ),
    "s1": ("sync", "edits made offline", [("help://sync/offline", 0, 3)]),
    "s2": ("sync", "two versions of the same note after sync", [("help://sync/offline", 1, 3)]),
    "s3": ("sync", "how many devices can I sync", [("help://sync/devices", 0, 3)]),
    "s4": ("sync", "remove an old laptop from sync", [("help://sync/devices", 1, 3)]),
    "s5": ("sync", "import from Evernote", [("help://sync/import", 0, 3), ("help://sync/import", 2, 1)]),
    "s6": ("sync", "large attachments import", [("help://sync/import", 1, 3), ("help://sync/import", 0, 0)]),
}
NO_ANSWER = {  # query id: (stratum, text): the corpus holds no answer
    "n1": ("account", "is there a Linux desktop app"),
    "n2": ("billing", "can I pay with cryptocurrency"),
}
# Where each retriever ranked a query's answering chunks (1-based, best grade first); a query
# not listed has them at DEFAULT_RANKS. The head gained b6 and s4, lost s1, and ranks b1, b3, s2
# and a1's answers higher;
# a no-answer query listed with () gets an empty ranking (the retriever abstained).
DEFAULT_RANKS = (1, 3)
HEAD_RANKS = {"b6": (4,), "a6": (6,), "s6": (7,), "a4": (2, 6), "s1": (6,), "n1": (), "n2": ()}
BASE_RANKS = {
    "b6": (6,),
    "a6": (6,),
    "s6": (8,),
    "s4": (6,),
    "a4": (3, 7),
    "b1": (2, 5),
    "b3": (2, 4),
    "s2": (3,),
    "a1": (2, 4),
}
DEPTH = 20  # ranks kept per query


def chunk_key(doc: str, ordinal: int) -> str:
    return chunk_id(doc, "r1", ordinal, DOCS[doc][ordinal], CHUNKER)


def all_chunks() -> list[tuple[str, int]]:
    return [(doc, i) for doc, texts in DOCS.items() for i in range(len(texts))]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def lexical_order(text: str) -> list[str]:
    """Every chunk by TF-IDF cosine with ``text``, best first; ties in corpus order."""
    chunks = all_chunks()
    bags = [Counter(words(DOCS[d][o])) for d, o in chunks]
    df = Counter(word for bag in bags for word in bag)
    idf = {word: math.log((1 + len(bags)) / (1 + n)) + 1 for word, n in df.items()}

    def vector(bag: Counter[str]) -> dict[str, float]:
        return {word: count * idf.get(word, 0.0) for word, count in bag.items()}

    query = vector(Counter(words(text)))
    norm_q = math.sqrt(sum(v * v for v in query.values())) or 1.0

    def cosine(bag: Counter[str]) -> float:
        chunk = vector(bag)
        norm = math.sqrt(sum(v * v for v in chunk.values())) or 1.0
        return sum(query.get(word, 0.0) * value for word, value in chunk.items()) / (norm * norm_q)

    scored = sorted(range(len(chunks)), key=lambda i: (-round(cosine(bags[i]), 12), i))
    return [chunk_key(*chunks[i]) for i in scored]


def ranking(query: str, ranks: dict[str, tuple[int, ...]]) -> list[str]:
    """The lexical order of the corpus for the query, its answering chunks moved to ``ranks``."""
    if query in NO_ANSWER:
        return [] if ranks.get(query) == () else lexical_order(NO_ANSWER[query][1])[:10]
    _, text, judged = QUERIES[query]
    answers = [chunk_key(d, o) for d, o, g in sorted(judged, key=lambda j: -j[2]) if g > 0]
    placed = dict(zip(answers, ranks.get(query, DEFAULT_RANKS)))  # an answer without a rank keeps its own
    order = [key for key in lexical_order(text) if key not in placed]
    for key, rank in sorted(placed.items(), key=lambda pair: pair[1]):
        order.insert(rank - 1, key)
    return order[:DEPTH]


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in rows))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    labels = []
    for qid, (stratum, text, judged) in QUERIES.items():
        for doc, ordinal, grade in judged:
            body = DOCS[doc][ordinal]
            labels.append(
                {
                    "query_id": qid,
                    "query": text,
                    "doc_uri": doc,
                    "chunk_id": chunk_key(doc, ordinal),
                    "text_sha": text_sha(body),
                    "chunk_text": body,
                    "relevance": grade,
                    "corpus_fingerprint": CHUNKER,
                    "labeled_by": "human:demo",
                    "stratum": stratum,
                }
            )
    for qid, (stratum, text) in NO_ANSWER.items():
        labels.append(
            {"query_id": qid, "query": text, "expect": "no_answer", "labeled_by": "human:demo", "stratum": stratum}
        )
    write_jsonl(OUT / "judgments.jsonl", labels)
    chunks = [
        {
            "chunk_id": chunk_key(d, o),
            "doc_uri": d,
            "doc_revision": "r1",
            "ordinal": o,
            "text": DOCS[d][o],
            "text_sha": text_sha(DOCS[d][o]),
        }
        for d, o in all_chunks()
    ]
    snapshot = {"corpus_fingerprint": CHUNKER, "chunker_fingerprint": CHUNKER, "chunks": chunks}
    (OUT / "corpus.json").write_text(json.dumps(snapshot, indent=2) + "\n")
    queries = [*QUERIES, *NO_ANSWER]
    write_jsonl(OUT / "run.jsonl", [{"query_id": q, "ranking": ranking(q, HEAD_RANKS)} for q in queries])
    base_run = OUT / "base-run.jsonl"
    write_jsonl(base_run, [{"query_id": q, "ranking": ranking(q, BASE_RANKS)} for q in queries])
    subprocess.run(
        [
            sys.executable,
            "-m",
            "retrieval_eval",
            "score",
            "-j",
            str(OUT / "judgments.jsonl"),
            "-r",
            str(base_run),
            "-k",
            "5,10",
            "--corpus",
            str(OUT / "corpus.json"),
            "--easy-set",
            "off",
            "--now",
            "2026-11-01T09:00:00Z",
            "--out",
            str(OUT / "baseline.json"),
            "--json",
        ],
        check=False,
        stdout=subprocess.DEVNULL,
    )
    base_run.unlink()


if __name__ == "__main__":
    main()
