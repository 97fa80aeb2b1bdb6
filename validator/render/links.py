"""Which URLs may be links of the pages built from a recipes tree (``REF024``, and
``render --api-out``, which refuses to publish a ``platforms.yaml`` link it would not)."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*"
                   r"[A-Za-z0-9])?)*(?::[0-9]{1,5})?")
_URL_TEXT = re.compile(r"[!#$%&'()*+,\-./0-9:;=?@A-Z\[\]_a-z~]+")


def link_problem(url: str) -> str | None:
    """Why ``url`` cannot be a link the site shows, or ``None``: only an ``https://``
    address with a plain host name and no user part, nothing a browser reads otherwise
    (``javascript:``, ``//host``, ``/\\host``, spaces or control characters)."""
    if not _URL_TEXT.fullmatch(url):
        return "it holds a character a URL cannot hold unescaped (a space, a backslash, " \
            "a control or non-ASCII character)"
    try:
        parts = urlsplit(url)
    except ValueError:
        return "it is not a URL"
    if parts.scheme.lower() != "https":
        return f"its scheme is {parts.scheme + ':' if parts.scheme else 'missing'}, not https:"
    if "@" in parts.netloc:
        return "it names a user before the host (the part before @ is not where it goes)"
    if not _HOST.fullmatch(parts.netloc) or not url.lower().startswith("https://"):
        return f"its host {parts.netloc!r} is not a host name"
    return None


def page_link_problem(href: str) -> str | None:
    """Why ``href`` cannot be a link a recipe page shows in its own layout (a hardware
    note's ``link.href``, which the site writes as the ``href`` of an ``<a>`` as given),
    or ``None``: an in-page anchor (``#section``), a path of the site (``/models/...``,
    never ``//host`` or ``/\\host``, which browsers read as another host), or an address
    :func:`link_problem` allows."""
    if href.startswith(("#", "/")) and not href.startswith(("//", "/\\")):
        if _URL_TEXT.fullmatch(href):
            return None
        return "it holds a character a URL cannot hold unescaped (a space, a backslash, " \
            "a control or non-ASCII character)"
    return link_problem(href)
