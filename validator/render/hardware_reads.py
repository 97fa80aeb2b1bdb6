"""What one rendering read of its hardware, so that it is reused for another hardware
profile exactly when every one of those reads gives the same value there.

A rendering sees its hardware through two objects only: the id (:class:`TracedValue`, a
``str`` that records how it is used) and the profile (:class:`TracedProfile`, a ``dict``
that records which keys are read). Both append to one :class:`HardwareReads` log per
hardware:

- a lookup of the id in a mapping or list (``get(mapping, hw_id)``, ``in_list``), with
  what it found;
- the id's truthiness and its membership of a constant set;
- every other use of the id (formatting it into a pointer, hashing, comparing it with a
  constant): the rendering then depends on the id itself and is reused for no other id;
- a profile key read with its value, or the whole profile where it is iterated or copied;
- a decision taken on the plain profile (and id) where only the decision counts
  (:func:`decided`, :func:`decided_by_hardware`).

The log of a hardware is shared by every rendering of it; a rendering's *trace* is the set
of log entries it read (:meth:`HardwareReads.begin` / :meth:`~HardwareReads.end`), and
:meth:`HardwareReads.holds_for` replays a trace against another hardware. A layer the
renderer remembers for later renderings of the same hardware (the composer, the argument
head and tail, the environment, the feature layers, the docker image) keeps the trace of
its making (:func:`traced_call`), and each rendering that reuses it counts those reads as
its own (:func:`touch`): so a trace holds every read its rendering depends on, and not the
reads of other renderings of the hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from validator.render import jsval
from validator.render.documents import ptr

_MISSING = object()
T = TypeVar("T")

Trace = int | frozenset[int]
"""The reads a rendering made of its hardware: indexes into :attr:`HardwareReads.log`
(:meth:`HardwareReads.end`), or the first so many of them."""


class HardwareReads:
    """The reads of one hardware's renderings (see the module docstring)."""

    def __init__(self, hw_id: str, profiles: Any) -> None:
        self.hw_id = hw_id
        self.raw_profile = jsval.get(profiles, hw_id)
        self.log: list[tuple[Any, ...]] = []
        self._index: dict[Any, int] = {}
        self._scopes: list[set[int]] = []
        self._stamp: int | None = None
        self.id = TracedValue(hw_id, self, "id")
        self.profile: Any
        kind = _profile_kind(self.raw_profile)
        self.log.append(("profile-kind", kind))
        if kind == "dict":
            self.profile = TracedProfile(self.raw_profile)
            self.profile.reads = self
        else:  # ``profiles[hw] || {}``: a falsy value reads as {}, any other as itself
            self.profile = jsval.or_(self.raw_profile, {})
            if kind != "falsy":
                self.log.append(("profile-whole",))
        self._always = frozenset(range(len(self.log)))  # part of every trace
        self._checked: dict[int, tuple[set[int], set[int]]] = {}

    def holds_for(self, other: HardwareReads, trace: Trace) -> bool:
        """Whether the reads of ``trace`` (indexes into the log, or the first ``trace``
        reads) give the same values on ``other``'s hardware (against the same recipe,
        strategies and taxonomy objects). Each read is replayed once per ``other``: the
        indexes found to hold and not to hold are kept (a replay reads plain values
        only, so which are replayed first changes no answer)."""
        held, failed = self._checked.setdefault(id(other), (set(), set()))
        if isinstance(trace, int):
            unknown: Any = range(trace)
        else:
            if not failed.isdisjoint(trace):
                return False
            unknown = trace - held
        log = self.log
        for index in unknown:
            if index in held:
                continue
            if index in failed:
                return False
            entry = log[index]
            if _REPLAY[entry[0]](self, other, entry):
                held.add(index)
            else:
                failed.add(index)
                return False
        return True

    def forget_replays(self) -> None:
        """Forget which other readers the log was replayed against (:meth:`holds_for`
        remembers them by ``id``): before the log is replayed against the readers of
        another :func:`~validator.render.renderer.render_all` (see
        :mod:`validator.render.carry`), whose ids may be those of freed ones."""
        self._checked.clear()

    def record(self, *entry: Any) -> None:
        """Log one read (once: a read made again is the same entry) as a read of every
        open trace (:meth:`begin`)."""
        kind = entry[0]
        key = (kind, entry[1], id(entry[2])) if kind in ("keyed", "listed") else (
            kind, entry[1], _identities(entry[2])) if kind == "derived-id" else entry
        try:
            index = self._index.get(key)
            if index is None:
                index = self._index[key] = len(self.log)
                self.log.append(entry)
        except TypeError:  # an unhashable value read: kept every time
            index = len(self.log)
            self.log.append(entry)
        if self._scopes:
            self._scopes[-1].add(index)

    def begin(self) -> None:
        """Open a trace: the reads until :meth:`end` (and those :meth:`touch` adds)."""
        self._scopes.append(set(self._always))

    def end(self) -> frozenset[int]:
        """Close the trace :meth:`begin` opened: its reads, which are reads of the trace
        around it too."""
        trace = self._scopes.pop()
        if self._scopes:
            self._scopes[-1] |= trace
        return frozenset(trace)

    def touch(self, trace: frozenset[int]) -> None:
        """Count the reads of ``trace`` (of a result remembered from an earlier
        computation) as reads of the open trace."""
        if self._scopes:
            self._scopes[-1] |= trace

    def stamp(self) -> None:
        """Log that the rendering names the hardware id in a taxonomy pointer (see
        :func:`profile_pointer`)."""
        self.record("stamp")
        if self._stamp is None:
            self._stamp = self._index[("stamp",)]

    def stamped(self, trace: Trace) -> bool:
        """Whether ``trace`` names the hardware id in a pointer into the taxonomy's
        profile (see :func:`profile_pointer`)."""
        if self._stamp is None:
            return False
        return self._stamp < trace if isinstance(trace, int) else self._stamp in trace

    def plain_profile(self) -> Any:
        """The profile as the rendering sees it, untraced (``profiles[hw] || {}``)."""
        return jsval.or_(self.raw_profile, {})

    def value(self, source: Any) -> Any:
        """The plain value a :class:`TracedValue` of ``source`` stands for here."""
        if source == "id":
            return self.hw_id
        return self.raw_profile.get(source[1], _MISSING)

    def leaks(self, value: Any) -> list[Any]:
        """The traced values held in ``value`` (for tests: a rendering's result must hold
        plain strings only)."""
        kind = type(value)
        if kind is dict:
            return [t for item in value.values() for t in self.leaks(item)]
        if kind is list or isinstance(value, tuple):
            return [t for item in value for t in self.leaks(item)]
        return [value] if isinstance(value, TracedValue) else []


def _profile_kind(raw: Any) -> str:
    if type(raw) is dict:
        return "dict"
    return "value" if jsval.truthy(raw) else "falsy"


def _identities(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``args`` as a key: strings by value, anything else by identity (a read's entry
    holds its arguments, so their ids are not reused while the log lives)."""
    return tuple(a if type(a) is str else id(a) for a in args)


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types, recursively, keys in the same order (``1``, ``1.0``
    and ``True`` render differently)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(_same(v, b[k]) for k, v in a.items())
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) or (a != a and b != b)  # NaN read twice is the same read


Replay = Callable[["HardwareReads", "HardwareReads", tuple[Any, ...]], bool]

_REPLAY: dict[str, Replay] = {
    "profile-kind": lambda mine, other, e: _profile_kind(other.raw_profile) == e[1],
    "profile": lambda mine, other, e: _same(other.raw_profile.get(e[1], _MISSING), e[2]),
    "profile-str": lambda mine, other, e: type(other.raw_profile.get(e[1])) is str,
    "profile-whole": lambda mine, other, e: _same(other.raw_profile, mine.raw_profile),
    "identity": lambda mine, other, e: other.value(e[1]) == mine.value(e[1]),
    "truthy": lambda mine, other, e: (other.value(e[1]) != "") == e[2],
    "equals": lambda mine, other, e: (other.value(e[1]) == e[2]) == e[3],
    "keyed": lambda mine, other, e: _same(jsval.get(e[2], other.value(e[1])), e[3]),
    "listed": lambda mine, other, e: jsval.in_list(e[2], other.value(e[1])) == e[3],
    "member": lambda mine, other, e: (other.value(e[1]) in e[2]) == e[3],
    "derived": lambda mine, other, e: _same(e[1](other.raw_profile, *e[2]), e[3]),
    "derived-id": lambda mine, other, e: _same(
        e[1](other.plain_profile(), other.hw_id, *e[2]), e[3]),
    "stamp": lambda mine, other, e: True,
}


class TracedProfile(dict):  # type: ignore[type-arg]
    """A hardware profile that records each key read (and the whole profile where it is
    iterated, counted, compared or copied). A string value is read as a
    :class:`TracedValue`, so that only what is done with it counts."""

    reads: HardwareReads
    __hash__ = None  # a dict: unhashable

    def _read(self, key: Any) -> Any:
        value = dict.get(self, key, _MISSING)
        if type(value) is str and type(key) is str:
            self.reads.record("profile-str", key)
            return TracedValue(value, self.reads, ("profile", key))
        self.reads.record("profile", key, value)
        return value

    def get(self, key: Any, default: Any = None) -> Any:
        value = self._read(key)
        return default if value is _MISSING else value

    def __getitem__(self, key: Any) -> Any:
        value = self._read(key)
        if value is _MISSING:
            raise KeyError(key)
        return value

    def __contains__(self, key: Any) -> bool:
        value = dict.get(self, key, _MISSING)
        self.reads.record("profile", key, value)
        return value is not _MISSING

    def _whole(self) -> None:
        self.reads.record("profile-whole")


def _whole_read(name: str) -> Any:
    method = getattr(dict, name)

    def read(self: TracedProfile, *args: Any, **kwargs: Any) -> Any:
        self._whole()
        return method(self, *args, **kwargs)

    read.__name__ = name
    return read


for _name in ("__iter__", "__len__", "__eq__", "__ne__", "__repr__", "__reversed__", "__or__",
              "__ror__", "keys", "items", "values", "copy", "__reduce__", "__reduce_ex__"):
    setattr(TracedProfile, _name, _whole_read(_name))


class TracedValue(jsval.TracedKey):
    """The hardware id, or a string of the profile, that records its uses (see the module
    docstring). ``raw`` is the plain string, ``source`` where it comes from (``"id"`` or
    ``("profile", key)``)."""

    raw: str
    reads: HardwareReads
    source: Any

    def __new__(cls, raw: str, reads: HardwareReads, source: Any) -> TracedValue:
        made = str.__new__(cls, raw)
        made.raw, made.reads, made.source = raw, reads, source
        return made

    def lookup(self, container: Any) -> Any:
        """``container?.[value]``, recorded with what it found."""
        found = jsval.get(container, self.raw)
        self.reads.record("keyed", self.source, container, found)
        return found

    def listed(self, container: Any) -> bool:
        """``container.includes(value)`` for a list the renderer built, recorded."""
        found = jsval.in_list(container, self.raw)
        self.reads.record("listed", self.source, container, found)
        return found

    def member_of(self, ids: frozenset[str]) -> bool:
        """``value`` is one of a constant set, recorded."""
        found = self.raw in ids
        self.reads.record("member", self.source, ids, found)
        return found

    def __bool__(self) -> bool:
        self.reads.record("truthy", self.source, self.raw != "")
        return self.raw != ""

    def __eq__(self, other: object) -> bool:
        if isinstance(other, TracedValue):
            self.reads.record("identity", self.source)
            other.reads.record("identity", other.source)
            return self.raw == other.raw
        if type(other) is str and other == "":
            return not self.__bool__()
        found = self.raw == other
        self.reads.record("equals", self.source, other, found)
        return found

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        self.reads.record("identity", self.source)
        return hash(self.raw)


def _identity_read(name: str) -> Any:
    def read(self: TracedValue, *args: Any, **kwargs: Any) -> Any:
        self.reads.record("identity", self.source)
        plain = [a.raw if isinstance(a, TracedValue) else a for a in args]
        return getattr(self.raw, name)(*plain, **kwargs)

    read.__name__ = name
    return read


def _reflected_read(name: str) -> Any:
    def read(self: TracedValue, other: Any) -> Any:
        self.reads.record("identity", self.source)
        return getattr(other, name)(self.raw)

    read.__name__ = name
    return read


for _name in [n for n in dir(str) if not n.startswith("_")] + [
        "__str__", "__repr__", "__format__", "__len__", "__iter__", "__getitem__",
        "__contains__", "__add__", "__mul__", "__mod__", "__lt__", "__le__", "__gt__",
        "__ge__", "__getnewargs__", "__reduce__", "__reduce_ex__", "__sizeof__"]:
    setattr(TracedValue, _name, _identity_read(_name))
for _name, _method in (("__radd__", _reflected_read("__add__")),
                       ("__rmod__", _reflected_read("__mod__")),
                       ("__rmul__", _identity_read("__mul__"))):
    setattr(TracedValue, _name, _method)


def raw_id(hw_id: Any) -> Any:
    """The plain id of a :class:`TracedValue` (for keys of memos of the same hardware's
    computations: not a read), anything else as is."""
    return hw_id.raw if isinstance(hw_id, TracedValue) else hw_id


def hardware_profile(taxonomy: Any, hw_id: Any) -> Any:
    """``taxonomy.hardware_profiles[hw_id] || {}``: the traced profile for a traced id."""
    if isinstance(hw_id, TracedValue):
        return hw_id.reads.profile
    return jsval.or_(jsval.get(jsval.get(taxonomy, "hardware_profiles"), hw_id), {})


def in_hardware_ids(hw_id: Any, ids: frozenset[str]) -> bool:
    """``ids.has(hw_id)``, recorded for a traced id."""
    if isinstance(hw_id, TracedValue):
        return hw_id.member_of(ids)
    return hw_id in ids


def decided(profile: Any, decide: Callable[..., Any], *args: Any) -> Any:
    """``decide(profile, *args)``; on a traced profile the decision (not every value it
    compared) is the read: ``decide`` reads the plain profile and ``args`` hold no
    hardware value."""
    if isinstance(profile, TracedProfile):
        reads = profile.reads
        result = decide(reads.raw_profile, *args)
        reads.record("derived", decide, args, result)
        return result
    return decide(profile, *args)


def decided_by_hardware(profile: Any, hw_id: Any, decide: Callable[..., Any], *args: Any) -> Any:
    """``decide(profile, hw_id, *args)``; for a traced id the decision (not the id, nor
    every value of the profile it compared) is the read: ``decide`` gets the plain profile
    and id, and ``args`` hold no hardware value. (Used where the id is a memo key:
    hashing the traced id would make the rendering depend on the id itself.)"""
    if isinstance(hw_id, TracedValue) and hw_id.source == "id":
        reads = hw_id.reads
        result = decide(reads.plain_profile(), reads.hw_id, *args)
        reads.record("derived-id", decide, args, result)
        return result
    return decide(profile, hw_id, *args)


def profile_pointer(hw_id: Any, key: str) -> str:
    """The pointer of ``hardware_profiles.<hw_id>.<key>`` in the taxonomy: for a traced
    id a stamp, not a read of the id: a rendering reused for another id gets that id's
    pointer (:func:`validator.render.renderer` restamps its tokens)."""
    if isinstance(hw_id, TracedValue):
        hw_id.reads.stamp()
        hw_id = hw_id.raw
    return ptr("hardware_profiles", hw_id, key)



def traced_call(hw_id: Any, compute: Callable[[], T]) -> tuple[T, frozenset[int] | None]:
    """``compute()`` and, for a traced id, the reads of its hardware it made: a result
    remembered for later renderings of the hardware is kept with them, and a rendering
    that reuses it counts them as its own (:func:`touch`)."""
    if not isinstance(hw_id, TracedValue):
        return compute(), None
    reads = hw_id.reads
    reads.begin()
    try:
        return compute(), reads.end()
    except BaseException:
        reads.end()
        raise


def touch(hw_id: Any, trace: frozenset[int] | None) -> None:
    """Count the reads of ``trace`` (:func:`traced_call`) as reads of the rendering in
    progress on ``hw_id``'s hardware; a result made untraced (``None``) counts as a use of
    the id itself."""
    if isinstance(hw_id, TracedValue):
        if trace is None:
            hw_id.reads.record("identity", "id")
        else:
            hw_id.reads.touch(trace)
