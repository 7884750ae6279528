"""``retrieval-eval chunk-id``: the identity functions of spec/chunk-id.md, for shell users."""

from __future__ import annotations

import sys

import click

from ..core.errors import InputError, UsageError
from ..core.identity import chunk_id, normalize, text_sha
from ..formats.jsondoc import max_document_bytes, read_document_bytes
from ._common import PlainNumber, handles_errors, json_option, print_json

IDENTITY_OPTIONS = ("--doc-uri", "--doc-revision", "--ordinal", "--chunker")


def read_text(text: str | None, path: str | None) -> str:
    """The chunk text: --text, else --file (``-`` for stdin), as strict UTF-8."""
    if text is not None and path is not None:
        raise UsageError("give the text with --text or --file, not both")
    if text is not None:
        return text
    if path is None:
        raise UsageError("give the chunk text with --text TEXT or --file PATH ('-' reads stdin)")

    if path == "-":
        data = sys.stdin.buffer.read(max_document_bytes() + 1)
    else:
        data = read_document_bytes(path, "text", json_document=False)
    if len(data) > max_document_bytes():
        raise InputError("text", None, f"larger than {max_document_bytes():,} bytes, the most a text may hold")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("text", None, f"not valid UTF-8 (byte {exc.start + 1})", path=path) from None


@click.command()
@click.option("--text", metavar="TEXT", help="The chunk text.")
@click.option("--file", "path", metavar="PATH", help="Read the chunk text from a file ('-' for stdin).")
@click.option("--doc-uri", metavar="URI", help="The document's stable URI.")
@click.option("--doc-revision", metavar="REV", help="The document's version or etag.")
@click.option(
    "--ordinal", type=PlainNumber(whole=True, minimum=0), help="The chunk's 0-based position in its document."
)
@click.option("--chunker", "chunker_fingerprint", metavar="FINGERPRINT", help="The chunker fingerprint.")
@click.option("--text-sha", "want_sha", is_flag=True, help="Print the text_sha of the text instead.")
@click.option("--normalize", "want_normalized", is_flag=True, help="Print the normalized text instead.")
@json_option
@handles_errors
def command(
    text: str | None,
    path: str | None,
    doc_uri: str | None,
    doc_revision: str | None,
    ordinal: int | None,
    chunker_fingerprint: str | None,
    want_sha: bool,
    want_normalized: bool,
    as_json: bool,
) -> None:
    """Print the chunk_id of a chunk (or its text_sha, or its normalized text).

    A chunk_id needs --doc-uri, --doc-revision, --ordinal and --chunker;
    --text-sha and --normalize need only the text.
    """

    if want_sha and want_normalized:
        raise UsageError("choose one of --text-sha and --normalize")
    identity = (doc_uri, doc_revision, ordinal, chunker_fingerprint)
    given = [value is not None for value in identity]
    plain_id = not (as_json or want_sha or want_normalized)
    if (any(given) or plain_id) and not all(given):
        missing = [name for name, present in zip(IDENTITY_OPTIONS, given) if not present]
        raise UsageError(
            f"a chunk_id needs {', '.join(missing)}", hint="or ask for --text-sha, which needs only the text"
        )
    body = read_text(text, path)
    if as_json:
        result = {"normalized": normalize(body), "text_sha": text_sha(body)}
        if all(given):
            result["chunk_id"] = chunk_id(doc_uri, doc_revision, ordinal, body, chunker_fingerprint)  # type: ignore[arg-type]
        print_json(result)
    elif want_normalized:
        click.echo(normalize(body))
    elif want_sha:
        click.echo(text_sha(body))
    else:
        click.echo(chunk_id(doc_uri, doc_revision, ordinal, body, chunker_fingerprint))  # type: ignore[arg-type]
