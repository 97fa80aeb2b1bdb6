"""``FLAG007``, ``FLAG009``: JSON-valued flags (invalid JSON, a dotted JSON key misused)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS, issue_hits

if TYPE_CHECKING:
    from validator.context import Context


@rule("FLAG007", Severity.ERROR, "JSON-valued flag does not hold valid JSON",
      reads=FLAG_READS)
def json_value_invalid(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """vLLM parses the value of JSON-valued options (``--speculative-config``,
    ``--compilation-config``, ``--hf-overrides``, ...) with ``json.loads``; ``*-config``
    options must hold a JSON object (``--compilation-config`` also takes an integer level).
    Whether a plain string is accepted is the release's own answer, recorded per option in
    the vendored registry (``json_takes_string``): only a dict-or-string union
    (``union_dict_and_str``) takes one, so ``--limit-mm-per-prompt image=4,audio=1`` is an
    error where the type is ``json.loads``. Custom JSON types of old releases
    (``--compilation-config`` of 0.9.0/0.9.1, ``parses_json``) are checked as JSON too.
    The converse: a release whose type of the option is ``nullable_kvs``
    (``--limit-mm-per-prompt`` up to vLLM 0.8.4, read from each release's source:
    ``snapshots/vllm-config-values.json``) takes only comma-separated ``KEY=VALUE`` pairs
    with integer values, so a JSON object there is refused ("Each item should be in the
    form KEY=VALUE"); the finding names the release that takes JSON (raise the minimum)
    and the pairs to write instead (second example below). The finding points at the value.

    Failing::

        model:
          base_args: ["--limit-mm-per-prompt", "image=4,audio=1"]

    Passing::

        model:
          base_args: ["--limit-mm-per-prompt", '{"image": 4, "audio": 1}']

    Failing (a release that takes only ``KEY=VALUE`` pairs)::

        model:
          min_vllm_version: "0.8.0"
          base_args: ["--limit-mm-per-prompt", '{"image": 4, "video": 1}']

    Passing::

        model:
          min_vllm_version: "0.8.0"
          base_args: ["--limit-mm-per-prompt", "image=4,video=1"]

    How to fix: write a JSON object in single quotes (``KEY=VALUE`` pairs where the
    minimum release takes only those, or raise the minimum)."""
    return issue_hits("FLAG007")(doc, ctx)


@rule("FLAG009", Severity.ERROR, "Dotted JSON key misused",
      reads=FLAG_READS)
def dotted_key_misused(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A dotted key (``--speculative-config.method``) is used on an option that is not
    JSON-valued, so vLLM turns the option's value into a JSON object it cannot take. A
    dotted key without its value is ``FLAG004``.

    Failing::

        model:
          base_args: ["--max-num-seqs.limit", "8"]

    Passing::

        model:
          base_args: ["--speculative-config.method", "mtp"]

    How to fix: use dotted keys only on JSON-valued options."""
    return issue_hits("FLAG009")(doc, ctx)
