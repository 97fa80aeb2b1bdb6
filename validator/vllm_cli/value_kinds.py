"""What kind of value each ``vllm serve`` option of a release takes, and whether a value
is one: the vendored kinds files (``<registry folder>/types/<version>.json``, pinned by
``types/index.json``; written by :mod:`validator.vllm_cli.extract_types` from the
release's own argparse ``type`` callables).

A release without a kinds file has no kinds: :func:`load_kinds` returns ``None`` and no
value of it is judged (neither passed nor refused). Never touches the network.

Example::

    kinds = load_kinds("0.33.0")
    kinds["--max-model-len"].accepts("32k")   # True (human-readable integer)
    kinds["--gpu-memory-utilization"].accepts("1.5e")  # False
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from validator.state_json import parse_json
from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR, INDEX_NAME, RegistryError

#: vLLM's ``human_readable_int`` suffixed form (``1k``, ``25.6k``, ``32K``).
_HUMAN = re.compile(r"\d+(?:\.\d+)?[kKmMgGtT]")
#: What each kind is called in a message.
KIND_WORDS = {"int": "an integer", "human_int": "an integer (such as 8192, 8k or 32K)",
              "float": "a number", "bool": "a boolean"}


@dataclass(frozen=True)
class ValueKind:
    """The kind of value one option takes (``int``, ``human_int``, ``float``, ``bool``)
    and the special words its type also takes (``auto``, ``None``)."""

    kind: str
    words: tuple[str, ...] = ()

    def accepts(self, value: str) -> bool:
        """Whether the release's type callable of this kind takes ``value``."""
        if value in self.words:
            return True
        if self.kind == "bool":
            return False
        if self.kind == "human_int" and _HUMAN.fullmatch(value.strip()):
            return True
        try:
            (float if self.kind == "float" else int)(value)
        except (ValueError, OverflowError):
            return False
        return True

    @property
    def described(self) -> str:
        """``an integer`` (with the accepted words: ``an integer or auto``)."""
        shown = [repr(w) if w == "" else w for w in self.words]
        base = KIND_WORDS.get(self.kind, self.kind)
        if self.kind == "bool":
            return f"{base} ({', '.join(shown)})"
        return base + (f", or {' or '.join(shown)}" if shown else "")


def load_kinds(version: str, folder: Path | None = None) -> Mapping[str, ValueKind] | None:
    """The kinds of release ``version`` by option string (``--max-model-len``), or
    ``None`` when the folder has no kinds file pinned for it.

    Raises :class:`~validator.vllm_cli.registry.RegistryError` when a pinned file is
    missing, malformed or fails its digest pin."""
    types = (folder or DEFAULT_REGISTRY_DIR) / "types"
    index = types / INDEX_NAME
    if not index.is_file():
        return None
    stat = index.stat()
    pins = _pins(index, stat.st_mtime_ns, stat.st_size)
    if version not in pins:
        return None
    path = types / f"{version}.json"
    try:
        st = path.stat()
    except OSError as exc:
        raise RegistryError(f"{path}: cannot read ({exc.strerror})") from exc
    return _kinds(path, pins[version], st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=8)
def _pins(index: Path, _mtime: int, _size: int) -> Mapping[str, str]:
    try:
        found = parse_json(index.read_bytes())
    except (OSError, ValueError) as exc:
        raise RegistryError(f"{index}: not a kinds index ({exc})") from exc
    if not isinstance(found, dict):
        raise RegistryError(f"{index}: must be a JSON object mapping version -> sha256 hex")
    return {str(k): str(v) for k, v in found.items()}


@functools.lru_cache(maxsize=256)
def _kinds(path: Path, pinned: str, _mtime: int, _size: int) -> Mapping[str, ValueKind]:
    data = path.read_bytes()
    actual = hashlib.sha256(data).hexdigest()
    if actual != pinned:
        raise RegistryError(f"{path}: sha256 {actual} does not match the pin {pinned} in "
                            f"{path.parent / INDEX_NAME}")
    try:
        doc = parse_json(data)
        return {str(name): ValueKind(str(k["kind"]), tuple(str(w) for w in k["words"]))
                for name, k in doc["kinds"].items()}
    except (ValueError, KeyError, TypeError) as exc:
        raise RegistryError(f"{path}: malformed kinds file ({type(exc).__name__})") from exc
