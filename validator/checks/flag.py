"""``FLAG``: every ``vllm serve`` argument a recipe declares, against the real vLLM CLI.

The structured argument lists of a recipe (``model.base_args``, feature and mode
``args``, variant ``extra_args``, hardware and strategy overrides, PD role ``vllm_args``,
kv-offload options) are parsed with the model of vLLM's parser in
:mod:`validator.vllm_cli.argv`, against the vendored CLI registry
(:mod:`validator.vllm_cli.registry`, built from each release's own ``make_arg_parser``) of
the recipe's *effective minimum* vLLM version (errors) and of the newest vendored release
(warnings about what has been removed since).

The rules here report what one list (or the recipe's version plan) shows by itself; each
reads the issues of the shared model (:mod:`validator.checks.flag_model`, built once per
document: :data:`~validator.checks.flag_model.ISSUE_RULE` maps every issue code of the
engine to its rule). The rules that combine lists are in :mod:`validator.checks.flag_combined`.

Where the pieces are: :mod:`validator.checks.arg_layers` (which lists exist, which CLI
serves each), :mod:`validator.checks.cli_plan` (which registry a list is checked
against), :mod:`validator.checks.flag_engine` (one list against one registry; shared
with the ``GUIDE`` family).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from validator.checks.flag_model import FLAG_READS, issue_hits, string_list_hits
from validator.checks.registry import Hit, rule
from validator.findings import Severity

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument


def _hits(rule_id: str, doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The hits of ``rule_id``: the issues the shared model maps to it, with what the
    rendered commands add."""
    return issue_hits(rule_id)(doc, ctx)


@rule("FLAG001", Severity.ERROR, "Unknown vLLM flag",
      reads=FLAG_READS)
def unknown_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """An argument is not an option of ``vllm serve`` at the recipe's effective minimum vLLM
    version, nor of any later vendored release (or is an ambiguous abbreviation). argparse
    exits with "unrecognized arguments". The hint names the nearest real flag
    (:func:`difflib.get_close_matches`). Source: the vendored CLI registry, built from the
    release's own ``make_arg_parser``.

    Failing::

        model:
          base_args: ["--max-model-lenn", "32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: correct the spelling (the hint names the nearest real flag) or drop the flag."""
    return _hits("FLAG001", doc, ctx)


@rule("FLAG002", Severity.ERROR, "Flag newer than the declared minimum vLLM",
      reads=FLAG_READS)
def flag_newer_than_minimum(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The flag (or its dotted-key form) exists only from a later release than the recipe's
    effective minimum ``min_vllm_version``: on the declared minimum, ``vllm serve`` rejects
    it. The message names the first release that has it.

    Failing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--linear-backend", "auto"]

    Passing::

        model:
          min_vllm_version: "0.22.0"
          base_args: ["--linear-backend", "auto"]

    How to fix: raise ``min_vllm_version`` to the release the message names, or drop the flag."""
    return _hits("FLAG002", doc, ctx)


@rule("FLAG003", Severity.WARNING, "Flag or value removed by a newer vLLM release",
      reads=FLAG_READS)
def flag_removed_since(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The flag (or one of its values) is accepted at the recipe's minimum version but no
    longer by the newest vendored release, and every install path of the recipe pins a
    release before that (``vllm==X``, a ``vX`` image): the message names the first release
    without it. The recipe breaks for anyone who upgrades. When an install path pulls the
    newest release, the removal is inside the install range: ``FLAG023`` (error). When
    only pre-releases lack it (newer than the last stable release that has it: a plugin's
    ``rc`` build), the message says so ("absent from vLLM-Omni 0.32.0rc1, a pre-release
    (not yet removed in a stable release; stable 0.30.0 has it)"): still a warning, as
    the next stable release is likely to follow. A "did you mean" names only a flag of
    the newest release close enough to be a rename (``REPLACEMENT_CUTOFF``).

    Failing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--calculate-kv-scales"]
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}

    Passing::

        model:
          min_vllm_version: "0.12.0"
          base_args: ["--max-model-len", "32768"]
          docker_image: "vllm/vllm-openai:v0.21.0"
          install:
            pip: {command: "uv pip install vllm==0.21.0"}

    How to fix: drop or replace the flag before the pinned release is upgraded past the one
    the message names."""
    return _hits("FLAG003", doc, ctx)


@rule("FLAG004", Severity.ERROR, "Flag is missing its value",
      reads=FLAG_READS)
def missing_value(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A value-taking option is followed by another option or ends the list (argparse:
    "expected one argument"), or a dotted key has no value: it ends the list, or
    ``FlexibleArgumentParser`` takes the flag after it as its value (the token after a
    dotted key is its value unconditionally). One defect, one finding: what the swallowed
    flag's absence causes at later lines (its own value a stray argument,
    ``--enable-auto-tool-choice`` without its ``--tool-call-parser``) is not reported at
    those lines but listed as related locations of this finding.

    Failing::

        model:
          base_args: ["--max-model-len"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: give the option its value as the next list item."""
    return _hits("FLAG004", doc, ctx)


@rule("FLAG005", Severity.ERROR, "Value given to a switch, or a stray token",
      reads=FLAG_READS)
def value_given_to_switch(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A switch (an option taking no value, e.g. ``--trust-remote-code``) is given
    ``=value`` (argparse: "ignored explicit argument") or is followed by a bare token,
    or a bare token follows a complete option: argparse rejects it as an unrecognized
    positional argument. A whole shell expansion the site's printed command leaves to
    bash (an item ``$EXTRA`` or ``"$@"`` no flag takes, a bare ``$NAME`` after a switch)
    is not judged, nor are the bare items right after it: bash replaces it by words no
    check can know. A value the site single-quotes (``'${EXTRA}'``) reaches vLLM as
    written and is judged.

    Failing::

        model:
          base_args: ["--trust-remote-code=true"]

    Passing::

        model:
          base_args: ["--trust-remote-code"]

    How to fix: write the switch alone (its ``--no-`` form turns it off), or remove the
    stray token."""
    return _hits("FLAG005", doc, ctx)


@rule("FLAG006", Severity.ERROR, "Value not accepted by the flag",
      reads=FLAG_READS)
def value_not_accepted(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The value is not among the flag's choices at the recipe's minimum version: argparse
    ``choices``, the registered tool-call and reasoning parser names, the
    ``--kv-cache-dtype`` values (vLLM validates these after argparse). A value that only
    appears in a later release is reported with that release. A parser name is not
    judged where every command the site renders it in also loads a parser plugin file
    (``--tool-parser-plugin``, ``--reasoning-parser-plugin``, in any list of that
    command): the file registers its own names. The hint of an unknown parser name says
    so. A value the option's argparse ``type`` refuses at the minimum version
    (``--max-model-len abc``, ``--gpu-memory-utilization 1.5e``) is reported too, judged by
    the kind of that release's own type callable (an integer, vLLM's human-readable
    integer such as ``32k``, a number, a boolean, and the words it also takes such as
    ``auto``; vendored per release in ``snapshots/vllm-cli/types``). A release without
    vendored kinds judges no value this way, and a value the shell or a reader fills in
    (``$MAX_LEN``, ``${LEN:-8192}``, ``<len>``) is not judged.

    Failing::

        model:
          base_args: ["--kv-cache-dtype", "fp9"]

    Passing::

        model:
          base_args: ["--kv-cache-dtype", "fp8"]

    How to fix: use a value the flag accepts at the minimum version, or raise
    ``min_vllm_version`` to the release that accepts it."""
    return _hits("FLAG006", doc, ctx)


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
    The finding points at the value.

    Failing::

        model:
          base_args: ["--limit-mm-per-prompt", "image=4,audio=1"]

    Passing::

        model:
          base_args: ["--limit-mm-per-prompt", '{"image": 4, "audio": 1}']

    How to fix: write a JSON object in single quotes."""
    return _hits("FLAG007", doc, ctx)


@rule("FLAG008", Severity.ERROR, "num_speculative_tokens is not a positive integer",
      reads=FLAG_READS)
def speculative_tokens_not_positive(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``num_speculative_tokens`` of ``--speculative-config`` (whole JSON or dotted key) must
    be an integer >= 1 (``SpeculativeConfig`` validation).

    Failing::

        model:
          base_args: ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 0}']

    Passing::

        model:
          base_args: ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3}']

    How to fix: set ``num_speculative_tokens`` to an integer of at least 1."""
    return _hits("FLAG008", doc, ctx)


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
    return _hits("FLAG009", doc, ctx)


@rule("FLAG011", Severity.ERROR, "Same flag twice in one list",
      reads=FLAG_READS)
def flag_twice_in_one_list(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """One argument list sets the same option twice (or a whole JSON value and dotted keys of
    the same option). The site's ``dedupeArgs`` silently drops the earlier one, and vLLM's
    dotted keys replace the whole JSON value, so one of them is dead.

    Failing::

        model:
          base_args: ["--max-model-len", "32768", "--max-model-len", "16384"]

    Passing::

        model:
          base_args: ["--max-model-len", "16384"]

    How to fix: keep one occurrence."""
    return _hits("FLAG011", doc, ctx)


@rule("FLAG013", Severity.WARNING, "Flag spelled with underscores",
      reads=FLAG_READS)
def underscore_spelling(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """vLLM accepts ``--max_model_len`` (``FlexibleArgumentParser`` turns underscores into
    dashes before the first ``.``), but the recipes site de-duplicates flags by their
    literal spelling: an override written the canonical way does not replace the
    underscore copy and both are rendered.

    Failing::

        model:
          base_args: ["--max_model_len", "32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: spell the flag with dashes, as vLLM's help does."""
    return _hits("FLAG013", doc, ctx)


@rule("FLAG014", Severity.WARNING, "Flag abbreviated",
      reads=FLAG_READS)
def abbreviated_flag(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """argparse accepts a unique prefix of a long option (``--max-model`` for
    ``--max-model-len``); the abbreviation breaks as soon as vLLM adds another option
    with the same prefix.

    Failing::

        model:
          base_args: ["--max-model", "32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: write the option in full."""
    return _hits("FLAG014", doc, ctx)


@rule("FLAG017", Severity.INFO, "Arguments not checked (platform plugin)",
      reads=FLAG_READS)
def not_checked_plugin(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """The arguments are for a platform plugin or a separate server (vLLM-Omni for ``tasks:
    omni``; vLLM-Ascend for NPU variants and overrides, ``--quantization ascend`` or
    ``--additional-config``) and no vendored release of that plugin's CLI fits the
    recipe's minimum (the oldest on the package index is built on a newer vLLM), so they
    are reported as not checked rather than risk a false error. When one fits, the
    arguments are checked against it like vLLM's own (``snapshots/vllm-cli/<plugin>/``).

    Failing::

        meta:
          tasks: [omni]
        model:
          min_vllm_version: "0.10.0"

    Passing::

        meta:
          tasks: [omni]
        model:
          min_vllm_version: "0.22.0"

    How to fix: raise ``min_vllm_version`` to a release the plugin has (the message names
    the oldest) to have the arguments checked."""
    return _hits("FLAG017", doc, ctx)


@rule("FLAG021", Severity.WARNING, "--additional-config key vLLM-Ascend ignores",
      reads=FLAG_READS)
def additional_config_key_ignored(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A top-level key of ``--additional-config`` (vLLM hands the object to the platform
    plugin unchanged) is not one the vLLM-Ascend release the recipe needs reads
    (``additional_config.get("key")`` in ``vllm_ascend/ascend_config.py`` and elsewhere in
    the package, collected from the release's source). Releases up to 0.26 ignore keys
    they do not read, so the setting silently has no effect. A key that only later
    releases read names the first one.

    Failing::

        model:
          min_vllm_version: "0.17.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_bindings": true}']

    Passing::

        model:
          min_vllm_version: "0.17.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_binding": true}']

    How to fix: correct the key's spelling, or drop it (the message names the first release
    that reads it, if any)."""
    return _hits("FLAG021", doc, ctx)


@rule("FLAG022", Severity.ERROR, "--additional-config key vLLM-Ascend rejects",
      reads=FLAG_READS)
def additional_config_key_rejected(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """As FLAG021, for a vLLM-Ascend release that types the whole object (``AscendConfig``,
    a pydantic config with ``extra="forbid"``, from 0.27): an unknown key is a
    validation error and the server does not start.

    Failing::

        model:
          min_vllm_version: "0.28.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_bindings": true}']

    Passing::

        model:
          min_vllm_version: "0.28.0"
        variants:
          default:
            extra_args: ["--additional-config", '{"enable_cpu_binding": true}']

    How to fix: correct the key's spelling, or drop it: the server does not start with it."""
    return _hits("FLAG022", doc, ctx)


@rule("FLAG018", Severity.ERROR, "min_vllm_version predates vllm serve",
      reads=FLAG_READS)
def predates_vllm_serve(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``vllm serve`` first shipped in vLLM 0.5.2; on 0.5.1 and older only ``python -m
    vllm.entrypoints.openai.api_server`` exists, so the rendered command cannot run.

    Failing::

        model:
          min_vllm_version: "0.4.2"

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: raise ``min_vllm_version`` to 0.5.2 or later."""
    return _hits("FLAG018", doc, ctx)


@rule("FLAG020", Severity.WARNING, "Flag and value in one list item",
      reads=FLAG_READS)
def flag_and_value_in_one_item(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A list item holds ``"--flag value"`` in one string. The site's shell rendering happens
    to split it, but every consumer that passes the items as separate argv entries (not
    through a shell) hands vLLM one argument it does not know. The flag and value are
    still checked as two tokens.

    Failing::

        model:
          base_args: ["--max-model-len 32768"]

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: write the flag and its value as two list items."""
    return _hits("FLAG020", doc, ctx)


@rule("FLAG019", Severity.INFO, "Flags checked against another release",
      reads=FLAG_READS)
def checked_against_other_release(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """``min_vllm_version`` is ``nightly`` (or not a vendored release), so the flags are
    checked against the newest vendored release (or the nearest older one) instead; the
    message says which.

    On a recipe's launch day (a minimum no release has yet, ``nightly`` or newer than the
    newest, and an install path that pulls unreleased vLLM: ``nightly_required``, a
    source install, a launch image) this is the one finding that says what cannot be
    verified against a released vLLM yet: flags, parser names, values and environment
    variables that no vendored release has are not reported (not as ``FLAG001``,
    ``FLAG006``, ``FLAG016``, ``FLAG024`` nor the ``GUIDE`` rules), and the finding
    names the ``nightly_required`` line. What a release can tell (a typo of a released
    flag, a malformed JSON value) is still checked against the newest release.

    Failing::

        model:
          min_vllm_version: "nightly"

    Passing::

        model:
          min_vllm_version: "0.12.0"

    How to fix: declare a released ``min_vllm_version`` where the recipe runs on one;
    otherwise nothing (the info says what was checked)."""
    return _hits("FLAG019", doc, ctx)


@rule("FLAG026", Severity.ERROR, "Argument list written as one string",
      reads=FLAG_READS)
def argument_list_is_a_string(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """An argument list (``base_args``, ``extra_args``, a feature's ``args``) is one string
    instead of a list. The site spreads it into the command character by character
    (``--max-model-len 4096`` becomes the tokens ``-``, ``-``, ``m``, ...), so every
    command rendered from it is broken. Reported once per list, with the list to write
    (the per-character tokens are not reported one by one).

    Failing::

        model:
          base_args: "--max-model-len 32768"

    Passing::

        model:
          base_args: ["--max-model-len", "32768"]

    How to fix: write a YAML list with one item per token."""
    return string_list_hits(doc)
