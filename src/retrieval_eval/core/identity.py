"""Content-addressed identity of chunks and labeled text (spec/chunk-id.md)."""

from __future__ import annotations

import hashlib
import re
import unicodedata

UNIT_SEPARATOR = "\x1f"
CHUNK_ID_PATTERN = re.compile(r"c1:[0-9a-f]{32}")
TEXT_SHA_PATTERN = re.compile(r"t1:[0-9a-f]{32}")


def normalize(text: str) -> str:
    """NFC, then CR LF and lone CR to LF, then strip the whole string's ends.

    Nothing else: case, punctuation and inner white space carry meaning a
    retriever may depend on.
    """
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.strip()


def _short_sha(data: str) -> str:
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:32]


def text_sha(text: str) -> str:
    """``t1:`` and the first 128 bits of SHA-256 of the normalized text, in hex."""
    return "t1:" + _short_sha(normalize(text))


def text_sha_of_normalized(normalized: str) -> str:
    """:func:`text_sha` for text already normalized (saves a second NFC pass)."""
    return "t1:" + _short_sha(normalized)


def chunk_id(
    doc_uri: str,
    doc_revision: str,
    ordinal: int,
    text: str,
    chunker_fingerprint: str,
) -> str:
    """``c1:`` and the first 128 bits of SHA-256 of the five identity fields."""
    if isinstance(ordinal, bool) or not isinstance(ordinal, int) or ordinal < 0:
        raise ValueError("ordinal must be a non-negative integer")
    canonical = UNIT_SEPARATOR.join([doc_uri, doc_revision, str(ordinal), normalize(text), chunker_fingerprint])
    return "c1:" + _short_sha(canonical)


def is_chunk_id(value: str) -> bool:
    return CHUNK_ID_PATTERN.fullmatch(value) is not None


# A team's own chunk id (a vector store's UUID, ``doc#3``): printable, no white space, not too long.
# Invisible and direction-changing characters are refused too: two ids that print alike must be one id.
OPAQUE_ID_PATTERN = re.compile(r"[^\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]{1,512}")
CHUNK_ID_RULE = (
    "chunk_id must be a c1 id (c1:<32 hex digits>, spec/chunk-id.md) or a chunk id of your own "
    "(up to 512 characters, no white space, control or invisible characters)"
)


def is_chunk_key(value: str) -> bool:
    """A chunk id a label or a corpus may use: a c1 id, or an opaque id of the team's own.

    An id that starts like a c1 id must be one: a truncated or mistyped c1 id is refused
    rather than taken for an opaque id that no chunk would ever match.
    """
    if value.startswith("c1:"):
        return is_chunk_id(value)
    return OPAQUE_ID_PATTERN.fullmatch(value) is not None


def is_text_sha(value: str) -> bool:
    return TEXT_SHA_PATTERN.fullmatch(value) is not None
