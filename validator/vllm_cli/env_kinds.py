"""How each vendored vLLM release reads the value of its environment variables, vendored
as ``snapshots/vllm-env-kinds.json``.

The file is derived, by ``scripts/derive_env_kinds.py``, from the same release artifacts
as ``snapshots/vllm-cli/<version>.json`` (each entry records the artifact and its sha256,
which a test requires to be that file's provenance): the getter of each variable in the
``environment_variables`` dict of the release's ``vllm/envs.py``, classified only where it
is certain (``int``, ``float``, ``bool`` with the strings read as on, ``choices``). A
variable the file does not list for a release is read some other way: its value is not
judged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.paths import SNAPSHOTS_DIR
from validator.vllm_cli.derived import derived_releases

PATH = SNAPSHOTS_DIR / "vllm-env-kinds.json"
FORMAT = "recipe-check/vllm-env-kinds/v1"


@dataclass(frozen=True)
class EnvKind:
    """How one release reads one variable's value.

    Attributes:
        kind: ``"int"``/``"float"`` (``int()``/``float()`` of the value: another value
            raises ``ValueError``), ``"bool"`` (on when the value is one of ``accepted``,
            silently off otherwise) or ``"choices"`` (``ValueError`` unless one of
            ``accepted``).
        accepted: the strings read as on (``bool``) or allowed (``choices``).
        case_sensitive: whether ``accepted`` is compared as written (else lower-cased).
    """

    kind: str
    accepted: frozenset[str] = frozenset()
    case_sensitive: bool = True


EnvKinds = Mapping[str, Mapping[str, EnvKind]]
"""Release version -> variable name -> :class:`EnvKind`."""


def load(path: Path = PATH) -> EnvKinds:
    """The vendored kinds of every release, by version and variable name (read each time:
    the caller memoises it on its context); a release's map is built when it is first
    asked for (a recipe's install range spans a few of the releases), equal kinds one
    object (the file holds some 15,000 entries, of a few dozen distinct kinds)."""
    return _Releases(derived_releases(path, FORMAT))


class _Releases(Mapping[str, Mapping[str, EnvKind]]):
    """:data:`EnvKinds` over the ``releases`` map of the file, each release's variables
    read into :class:`EnvKind` objects at its first look-up."""

    def __init__(self, releases: dict[str, Any]) -> None:
        self._releases = releases
        self._built: dict[str, Mapping[str, EnvKind]] = {}
        self._made: dict[tuple[str, frozenset[str], bool], EnvKind] = {}

    def __getitem__(self, version: str) -> Mapping[str, EnvKind]:
        found = self._built.get(version)
        if found is None:
            entry = self._releases[version]  # KeyError for a release the file lacks
            made, kinds = self._made, {}
            for name, k in entry["kinds"].items():
                key = (k["kind"], frozenset(k.get("true", k.get("choices", ()))),
                       k.get("case_sensitive", True))
                kinds[name] = made.get(key) or made.setdefault(key, EnvKind(*key))
            found = self._built[version] = kinds
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._releases)

    def __len__(self) -> int:
        return len(self._releases)
