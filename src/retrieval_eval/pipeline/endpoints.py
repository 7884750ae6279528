"""A judge endpoint's URL: checked before any request, and shown without its secrets.

Apart from the HTTP judge (:mod:`.judge_clients`), so the settings every command reads check a
URL without loading an HTTP client (urllib.request brings http.client, email and ssl: about
10 ms of every ``score``'s start-up, docs/benchmarks.md).
"""

from __future__ import annotations

import urllib.parse

__all__ = ["endpoint_problem", "shown_url"]


def endpoint_problem(url: str) -> str | None:
    """What is wrong with a judge endpoint URL, checked before any request (urllib would raise
    on a bad port, a bracket or a space only when the first call is made), or None."""
    if not url.startswith(("http://", "https://")):
        return "must be an http(s) URL, e.g. http://127.0.0.1:8000/v1"
    if any(ch.isspace() or not ch.isprintable() for ch in url):
        return "holds white space or control characters"
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"is not a URL ({exc})"
    if "@" in parts.netloc or parts.query or parts.fragment or "?" in url or "#" in url:
        return "carries a user, a password or a query: give the API root only, and the key in an environment variable"
    if not parts.hostname:
        return "names no host"
    if port is not None and not 0 < port < 65536:
        return f"has port {port}, outside 1-65535"
    return None


def shown_url(url: str) -> str:
    """The URL without what may carry a secret (a user:password, a ?key= query), for messages."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return url.partition("://")[0] + "://…"  # unreadable: nothing of it is safe to show
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))
