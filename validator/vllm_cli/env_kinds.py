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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

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
    the caller memoises it on its context); equal kinds and equal maps of consecutive
    releases are one object each (the file holds some 15,000 entries, of a few dozen
    distinct kinds)."""
    releases = derived_releases(path, FORMAT)
    made: dict[tuple[str, frozenset[str], bool], EnvKind] = {}
    out: dict[str, Mapping[str, EnvKind]] = {}
    previous: Mapping[str, EnvKind] = {}
    for version, entry in releases.items():
        kinds = {}
        for name, k in entry["kinds"].items():
            key = (k["kind"], frozenset(k.get("true", k.get("choices", ()))),
                   k.get("case_sensitive", True))
            kinds[name] = made.get(key) or made.setdefault(key, EnvKind(*key))
        # most releases read their variables as the one before did: one map for them
        out[version] = previous = previous if kinds == previous else kinds
    return out
