"""Path globs matched in time linear in the path: every glob user's one matcher.

A glob compiles to a short list of steps, and :meth:`Glob.match` walks the path once,
carrying the set of steps the path so far can have reached (a Thompson simulation), so
``"****************************zz"`` costs what ``"*zz"`` costs: at most
``len(path) * len(steps)`` step checks, never the exponential retries of a backtracking
regular expression.

Two dialects:

- :data:`PATH` (``per-file-ignores``): ``**/`` any folders (or none), ``**`` anything,
  ``*`` and ``?`` within one name, ``[...]`` a class (``[!...]`` or ``[^...]`` negated);
  a pattern without ``/`` matches a file name in any folder; a trailing ``/`` on the path
  is allowed.
- :data:`FNMATCH` (``pr --paths``): :func:`fnmatch.fnmatchcase`'s, where ``*`` and ``?``
  also match ``/`` and the whole path must match.

In both, a ``]`` first in a class is one of its characters, a backslash is a literal
character, and a range whose ends are reversed (``[z-a]``) is a :class:`GlobError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from validator.errors import RecipeCheckError

PATH = "path"
FNMATCH = "fnmatch"
_NEGATE = {PATH: "!^", FNMATCH: "!"}


class GlobError(RecipeCheckError):
    """A pattern that is not a glob this tool can match; ``msg`` says why."""

    def __init__(self, pattern: str, msg: str) -> None:
        self.pattern, self.msg = pattern, msg
        super().__init__(f"{pattern!r} is not a glob this tool can match ({msg})")


@dataclass(frozen=True)
class _Step:
    """One step: ``kind`` is ``lit`` (``chars`` is the character), ``one`` (any one
    character; ``/`` only if ``slash``), ``star`` (any run of them), ``class`` (one
    character in ``ranges``, or not in them if ``negated``), or ``skip`` (may jump to
    step ``to`` without reading: the start of an optional ``.../`` group)."""

    kind: str
    chars: str = ""
    slash: bool = False
    ranges: tuple[tuple[str, str], ...] = ()
    negated: bool = False
    to: int = 0

    def takes(self, ch: str) -> bool:
        """Whether this step reads ``ch``."""
        if self.kind == "lit":
            return ch == self.chars
        if self.kind in ("one", "star"):
            return self.slash or ch != "/"
        if self.kind == "class":
            return any(lo <= ch <= hi for lo, hi in self.ranges) != self.negated
        return False


@dataclass(frozen=True)
class Glob:
    """A compiled glob (see the module docstring); :func:`compile_glob` makes one."""

    pattern: str
    steps: tuple[_Step, ...]

    def match(self, path: str) -> bool:
        """Whether the whole of ``path`` matches."""
        steps, end = self.steps, len(self.steps)
        states = self._closure({0})
        for ch in path:
            moved = set()
            for i in states:
                if i < end and steps[i].takes(ch):
                    moved.add(i if steps[i].kind == "star" else i + 1)
            if not moved:
                return False
            states = self._closure(moved)
        return end in states

    def _closure(self, states: set[int]) -> set[int]:
        """``states`` with every step reachable from them without reading a character."""
        todo, out = list(states), set(states)
        while todo:
            i = todo.pop()
            if i >= len(self.steps):
                continue
            step = self.steps[i]
            nexts = (i + 1, step.to) if step.kind == "skip" else (
                (i + 1,) if step.kind == "star" else ())
            for j in nexts:
                if j not in out:
                    out.add(j)
                    todo.append(j)
        return out


@lru_cache(maxsize=256)
def compile_glob(pattern: str, dialect: str = PATH) -> Glob:
    """``pattern`` compiled in ``dialect`` (:data:`PATH` or :data:`FNMATCH`).

    Raises:
        GlobError: a class range with its ends reversed.
    """
    fnmatch = dialect == FNMATCH
    negate = _NEGATE[dialect]
    steps: list[_Step] = []
    if not fnmatch and "/" not in pattern:
        _any_folders(steps)
    i = 0
    while i < len(pattern):
        if not fnmatch and pattern.startswith("**/", i):
            _any_folders(steps)
            i += 3
        elif pattern[i] == "*":
            double = not fnmatch and pattern.startswith("**", i)
            if not steps or steps[-1] != _Step("star", slash=double or fnmatch):
                steps.append(_Step("star", slash=double or fnmatch))
            i += 2 if double else 1
        elif pattern[i] == "?":
            steps.append(_Step("one", slash=fnmatch))
            i += 1
        elif pattern[i] == "[" and (end := _class_end(pattern, i, negate)) > 0:
            steps.append(_class(pattern, i, end, negate))
            i = end + 1
        else:
            steps.append(_Step("lit", pattern[i]))
            i += 1
    if not fnmatch:
        steps.append(_Step("skip", to=len(steps) + 2))
        steps.append(_Step("lit", "/"))
    return Glob(pattern, tuple(steps))


def unclosed_class(pattern: str, dialect: str = PATH) -> int | None:
    """The index of a ``[`` in ``pattern`` that opens no class (both dialects read it as
    a literal ``[``), or ``None``."""
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":
            end = _class_end(pattern, i, _NEGATE[dialect])
            if end < 0:
                return i
            i = end
        i += 1
    return None


def _any_folders(steps: list[_Step]) -> None:
    """Append ``(?:.*/)?``: nothing, or anything that ends with ``/``."""
    steps.append(_Step("skip", to=len(steps) + 3))
    steps.append(_Step("star", slash=True))
    steps.append(_Step("lit", "/"))


def _class_end(pattern: str, start: int, negate: str) -> int:
    """Index of the ``]`` closing the class opened at ``start``, or -1 (a ``]`` right
    after ``[`` or ``[!`` is one of the class's characters)."""
    negated = pattern[start + 1:start + 2] in tuple(negate)
    first = start + 2 if negated else start + 1
    return pattern.find("]", first + 1) if first < len(pattern) else -1


def _class(pattern: str, start: int, end: int, negate: str) -> _Step:
    """The class step of ``pattern[start:end + 1]``."""
    body = pattern[start + 1:end]
    negated = bool(body) and body[0] in negate and len(body) > 1
    if negated:
        body = body[1:]
    ranges: list[tuple[str, str]] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            lo, hi = body[k], body[k + 2]
            if lo > hi:
                raise GlobError(pattern, f"bad character range {lo}-{hi}")
            ranges.append((lo, hi))
            k += 3
        else:
            ranges.append((body[k], body[k]))
            k += 1
    return _Step("class", ranges=tuple(ranges), negated=negated)
