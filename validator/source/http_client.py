"""The transport of the HTTP backend (:mod:`validator.source.http`): one
:class:`requests.Session` with a urllib3 retry policy bounded by a deadline, timeouts,
GitHub headers and the token, and GETs that turn every failure into a clear
:class:`~validator.source.tree.SourceError`."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import requests
from requests.adapters import HTTPAdapter
from urllib3 import exceptions as urllib3_exceptions
from urllib3.util.retry import Retry

from validator import __version__
from validator.source.git import redact_url
from validator.source.options import FetchOptions
from validator.source.tree import SourceError

_CHUNK = 16 * 1024
MAX_REDIRECTS = 5
"""Redirects followed per request (each to the same scheme and host only)."""
_RETRY_STATUS = (500, 502, 503, 504)


class DeadlinePassed(Exception):
    """Raised between retries when the next attempt would end past the deadline."""


class DeadlineRetry(Retry):
    """urllib3 :class:`Retry` that stops retrying when the next attempt (backoff plus one
    read timeout) would end after :attr:`deadline` (a :func:`time.monotonic` time)."""

    deadline: float = float("inf")
    attempt: float = 0.0

    def new(self, **kw: Any) -> DeadlineRetry:
        """A copy with the same deadline (urllib3 makes one per attempt)."""
        made = super().new(**kw)
        made.deadline, made.attempt = self.deadline, self.attempt
        return made

    def sleep(self, response: Any = None) -> None:
        """Back off, unless the deadline leaves no room for another attempt."""
        if time.monotonic() + self.get_backoff_time() + self.attempt > self.deadline:
            raise DeadlinePassed()
        super().sleep(response)


def make_retry(options: FetchOptions, deadline: float = float("inf")) -> DeadlineRetry:
    """The retry policy of :func:`make_session`, bounded by ``deadline``."""
    retry = DeadlineRetry(total=options.retries, connect=options.retries, read=options.retries,
                          status=options.retries, other=0, redirect=0,
                          backoff_factor=options.backoff, status_forcelist=_RETRY_STATUS,
                          allowed_methods=frozenset({"GET"}), raise_on_status=False,
                          raise_on_redirect=False, respect_retry_after_header=False)
    retry.deadline, retry.attempt = deadline, sum(options.timeout)
    return retry


def make_session(options: FetchOptions) -> requests.Session:
    """A session with retries, backoff, GitHub headers and the token (if any)."""
    session = requests.Session()
    adapter = HTTPAdapter(max_retries=make_retry(options))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers.update({"User-Agent": f"recipe-check/{__version__}",
                            "Accept": "application/vnd.github+json",
                            "X-GitHub-Api-Version": "2022-11-28"})
    if options.token:
        session.headers["Authorization"] = f"Bearer {options.token}"
    return session


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


_DIGITS = re.compile(r"[0-9]{1,12}")
"""A delay or a Unix time as the headers give it: ASCII digits, at most 12 of them."""


def _utc_text(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _reset_time(resp: requests.Response) -> str:
    """How long a rate limit lasts, from ``X-RateLimit-Reset`` (a Unix time) or
    ``Retry-After`` (RFC 9110: delay-seconds or an HTTP-date); a value that is neither is
    left out of the message."""
    reset = resp.headers.get("X-RateLimit-Reset", "").strip()
    if _DIGITS.fullmatch(reset):
        try:
            return (f"until {_utc_text(datetime.fromtimestamp(int(reset), tz=UTC))} "
                    "(X-RateLimit-Reset)")
        except (OverflowError, OSError, ValueError):
            pass  # past the calendar: no time to name
    after = resp.headers.get("Retry-After", "").strip()
    if _DIGITS.fullmatch(after):
        return f"for {int(after)} s (Retry-After)"
    if after:
        try:
            when = parsedate_to_datetime(after)
        except (TypeError, ValueError, IndexError, OverflowError):
            when = None
        if when is not None:
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)  # "-0000": UTC, source unknown
            return f"until {_utc_text(when.astimezone(UTC))} (Retry-After)"
    return "for an unspecified time"


class HttpClient:
    """GET with retries and clear errors (see the module docstring).

    Args:
        options: timeouts, retries, backoff and token.
    """

    def __init__(self, options: FetchOptions) -> None:
        self.options = options
        self.session = make_session(options)
        self.command_deadline = options.started + options.command_deadline

    def get(self, url: str, what: str) -> requests.Response:
        """The response to ``GET url`` with its body read, unless it is a 404/422 (the
        caller says what is missing) — every other failure raises.

        Redirects are followed only to the same scheme and host (at most
        :data:`MAX_REDIRECTS`); the body is streamed and refused past
        ``options.max_response_bytes`` (counted after decompression); the whole request,
        retries and body included, ends by ``options.request_deadline`` and by the
        command's deadline.

        Raises:
            SourceError: connection failure or timeout after retries, 5xx after retries,
                rate limiting (with the reset time), 401/403, a short body, a redirect to
                another host, a body too large, a deadline passed, any other unexpected
                status.
        """
        deadline = min(time.monotonic() + self.options.request_deadline, self.command_deadline)
        for _ in range(MAX_REDIRECTS + 1):
            resp = self._get_once(url, what, deadline)
            if resp.status_code not in (301, 302, 303, 307, 308):
                break
            target = urljoin(url, resp.headers.get("Location", ""))
            resp.close()
            if _origin(target) != _origin(url):
                raise SourceError(f"{what}: {redact_url(url)} redirected to another host "
                                  f"({redact_url(target)}); refused, since its bytes could "
                                  "not be tied to the commit asked for")
            url = target
        else:
            raise SourceError(f"{what}: more than {MAX_REDIRECTS} redirects from "
                              f"{redact_url(url)}")
        return self._check_status(resp, url, what, deadline)

    def _limit_text(self, deadline: float) -> str:
        if deadline >= self.command_deadline:
            return f"the command's deadline of {self.options.command_deadline:g} s"
        return f"the request deadline of {self.options.request_deadline:g} s"

    def _get_once(self, url: str, what: str, deadline: float) -> requests.Response:
        shown = redact_url(url)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SourceError(f"{what}: GET {shown} not sent: {self._limit_text(deadline)} "
                              "has passed")
        for adapter in self.session.adapters.values():
            if isinstance(adapter, HTTPAdapter):
                adapter.max_retries = make_retry(self.options, deadline)
        connect, read = self.options.timeout
        timeout = (min(connect, remaining), min(read, remaining))
        try:
            return self.session.get(url, timeout=timeout, stream=True, allow_redirects=False)
        except DeadlinePassed as exc:
            raise SourceError(f"{what}: {shown} kept failing until "
                              f"{self._limit_text(deadline)} left no time to retry") from exc
        except requests.exceptions.RetryError as exc:
            raise SourceError(f"{what}: {shown} kept failing after {self.options.retries} "
                              "retries") from exc
        except requests.exceptions.Timeout as exc:
            raise SourceError(f"{what}: {shown} timed out (read timeout "
                              f"{self.options.timeout[1]} s)") from exc
        except requests.exceptions.ConnectionError as exc:
            kind = "timed out" if "timed out" in str(exc).lower() else "could not be reached"
            raise SourceError(f"{what}: {shown} {kind} after {self.options.retries} retries "
                              f"(timeout {self.options.timeout[1]} s)") from exc
        except requests.exceptions.RequestException as exc:
            raise SourceError(f"{what}: GET {shown} failed: {type(exc).__name__}") from exc

    def _read_body(self, resp: requests.Response, url: str, what: str,
                   deadline: float) -> bytes:
        """The body, decompressed, within the byte limit and the deadline."""
        shown, limit = redact_url(url), self.options.max_response_bytes
        chunks: list[bytes] = []
        size = 0
        try:
            while True:
                if time.monotonic() > deadline:
                    raise SourceError(f"{what}: {shown} was still sending after "
                                      f"{self._limit_text(deadline)} ({size} bytes so far); "
                                      "refused")
                chunk = resp.raw.read1(_CHUNK, decode_content=True)
                if not chunk:  # end of the body (urllib3 decodes at most _CHUNK at a time)
                    break
                size += len(chunk)
                if size > limit:
                    raise SourceError(f"{what}: {shown} sent more than {limit} bytes "
                                      "(after decompression), the limit for one response; "
                                      "refused")
                chunks.append(chunk)
        except (requests.exceptions.RequestException, urllib3_exceptions.HTTPError,
                OSError) as exc:
            if isinstance(exc, urllib3_exceptions.ProtocolError | urllib3_exceptions.
                          IncompleteRead):
                raise SourceError(f"{what}: short body from {shown}: the connection closed "
                                  f"before the announced length was received ({exc})") from exc
            if isinstance(exc, urllib3_exceptions.ReadTimeoutError | TimeoutError):
                raise SourceError(f"{what}: {shown} timed out while sending the body (read "
                                  f"timeout {self.options.timeout[1]} s)") from exc
            raise SourceError(f"{what}: reading the body of {shown} failed: "
                              f"{type(exc).__name__}: {exc}") from exc
        finally:
            resp.close()
        return b"".join(chunks)

    def _check_status(self, resp: requests.Response, url: str, what: str,
                      deadline: float) -> requests.Response:
        shown = redact_url(url)
        status = resp.status_code
        announced = resp.headers.get("Content-Length")
        if announced and announced.isdigit() and int(announced) > self.options.max_response_bytes:
            resp.close()
            raise SourceError(f"{what}: {shown} announces {announced} bytes, more than the "
                              f"limit of {self.options.max_response_bytes} for one response; "
                              "refused")
        resp._content = self._read_body(resp, url, what, deadline)
        if status in (404, 422):
            return resp
        if status == 429 or (status == 403 and resp.headers.get("X-RateLimit-Remaining") == "0"):
            raise SourceError(f"{what}: rate limited by {urlsplit(url).netloc} "
                              f"({status}) {_reset_time(resp)}; set GITHUB_TOKEN for a higher "
                              "limit or wait")
        if status in (401, 403):
            raise SourceError(f"{what}: {status} from {shown}: access denied (check "
                              "GITHUB_TOKEN and the repository's visibility)")
        if status >= 500:
            raise SourceError(f"{what}: {shown} answered {status} after "
                              f"{self.options.retries} retries")
        if status != 200:
            raise SourceError(f"{what}: unexpected {status} from {shown}")
        encoded = resp.headers.get("Content-Encoding", "identity") != "identity"
        if announced and announced.isdigit() and not encoded \
                and int(announced) != len(resp.content):
            raise SourceError(f"{what}: short body from {shown}: {len(resp.content)} of "
                              f"{announced} bytes")
        return resp

    def json(self, url: str, what: str) -> Any:
        """Decoded JSON of ``GET url``; ``None`` for 404/422.

        Raises:
            SourceError: as :meth:`get`, or the body is not JSON.
        """
        resp = self.get(url, what)
        if resp.status_code in (404, 422):
            return None
        try:
            return resp.json()
        except ValueError as exc:
            raise SourceError(f"{what}: {redact_url(url)} did not return JSON") from exc
        except RecursionError as exc:
            raise SourceError(f"{what}: malformed answer from {redact_url(url)}: JSON nested "
                              "too deep to decode") from exc
