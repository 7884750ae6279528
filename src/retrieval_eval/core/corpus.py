"""A corpus snapshot as the core reads it: live chunks in columns.

Reading one from a file (JSON snapshot or JSONL) is :mod:`retrieval_eval.formats.corpus`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Corpus:
    """Live chunks in columns: index ``i`` is one chunk across every list."""

    corpus_fingerprint: str | None = None
    chunker_fingerprint: str | None = None
    ids: list[str] = field(default_factory=list)
    docs: list[str] = field(default_factory=list)
    texts: list[str | None] = field(default_factory=list)  # normalized
    shas: list[str | None] = field(default_factory=list)
    ordinals: list[int | None] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)  # chunk_id -> index
    documents: dict[str, list[int]] = field(default_factory=dict)  # doc_uri -> indices, file order
    sha256: str = ""

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` names a live chunk or a document of this corpus (a run's key is either)."""
        return key in self.position or key in self.documents

    def document_of(self, chunk_id: str) -> str | None:
        index = self.position.get(chunk_id)
        return None if index is None else self.docs[index]

    def chunks_of(self, doc_uri: str) -> list[int]:
        """The document's chunks in reading order: by ordinal, file order for ties or gaps."""
        members = self.documents.get(doc_uri, [])
        ordinals = self.ordinals
        order = [ordinals[i] for i in members]
        # Members are in file order: when every ordinal is there and already ascends, that
        # order is the sorted one (ties keep file order), and no key needs building.
        if None not in order and sorted(order) == order:  # type: ignore[type-var]  # no None, as checked
            return list(members)
        return sorted(members, key=lambda i: (ordinals[i] is None, ordinals[i] or 0, i))
