"""The values of a KV connector's ``kv_connector_extra_config`` in ``--kv-transfer-config``
against how the minimum release's connector reads them (``snapshots/vllm-kv-extra-config.json``,
derived by ``scripts/derive_kv_extra_config.py`` from each release's source): a key the
connector converts with ``bool`` given a JSON string that says "off" (``"false"``, ``"0"``,
``"no"``, ``"off"``: ``bool("false")`` is ``True``, so the connector turns it on), or a
key it converts with ``int`` / ``float`` given a value that conversion refuses (``"220GiB"``,
``null``, a list: the connector is not built and vLLM does not start). Issue ``kv_extra``
(``FLAG041``). A connector loaded from ``kv_connector_module_path``, a key the release's
connector module does not convert, and a release the file does not describe are not
judged; each child of a ``MultiConnector`` is judged as its own config."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from validator.analysis.cli_plan import VLLM, VersionPlan
from validator.analysis.flag_values import FlagIssue
from validator.analysis.kv_transfer import DEST, OPTION, connector_configs
from validator.paths import SNAPSHOTS_DIR
from validator.vllm_cli.derived import derived_releases
from validator.vllm_cli.parsed_args import ParsedArgs, key_setter

PATH = SNAPSHOTS_DIR / "vllm-kv-extra-config.json"
FORMAT = "recipe-check/vllm-kv-extra-config/v1"
EXTRA = "kv_connector_extra_config"
OFF_WORDS = frozenset({"false", "0", "no", "off", "f", "n", "none", "null"})
"""Strings that say "off" but are true for ``bool()`` (any non-empty string is)."""


def load(path: Path = PATH) -> dict[str, dict[str, dict[str, str]]]:
    """Release version -> connector name -> extra-config key -> ``bool``/``int``/``float``."""
    return {version: entry["reads"] for version, entry in derived_releases(path, FORMAT).items()}


def kv_extra_issues(parsed: ParsedArgs, plan: VersionPlan) -> Iterator[FlagIssue]:
    """The ``kv_extra`` issues of the extra config vLLM ends up with for
    ``--kv-transfer-config``, on the token that sets it."""
    low = plan.minimum
    if plan.family != VLLM or low is None:
        return
    value, sources = parsed.json_value(DEST)
    source = key_setter(sources, EXTRA) if value else None
    if not value or source is None:
        return
    reads = plan.cli.memoised(("kv_extra:releases", str(PATH)), load).get(low.version)
    if reads is None:
        return
    for config in connector_configs(value):
        name, extra = config.get("kv_connector"), config.get(EXTRA)
        if not isinstance(name, str) or not isinstance(extra, dict) \
                or config.get("kv_connector_module_path"):
            continue
        for key, item in extra.items():
            why = misread(reads.get(name, {}).get(key), item)
            if why is not None:
                yield FlagIssue("kv_extra", source.value_at, f"`{OPTION}` {name} {EXTRA} "
                                f"`{key}`: {why} ({plan.product} {low.version})",
                                "write a JSON boolean, unquoted: false" if why.startswith(
                                    "bool") else "write a JSON number, unquoted",
                                on_value=True)


def misread(conversion: str | None, item: Any) -> str | None:
    """What the connector's ``conversion`` of JSON value ``item`` does wrong (``None``:
    nothing, or the key is not converted)."""
    if conversion == "bool" and isinstance(item, str) and item.strip().lower() in OFF_WORDS:
        return (f'bool("{item}") is True: the connector turns it on, the opposite of what '
                "the string says")
    if conversion not in ("int", "float") or isinstance(item, (int, float)):
        return None
    try:
        (int if conversion == "int" else float)(item)
    except (TypeError, ValueError):
        shown = f'"{item}"' if isinstance(item, str) else json.dumps(item)
        return f"{conversion}({shown}) raises: the connector is not built and vLLM does not start"
    return None
