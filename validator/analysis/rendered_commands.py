"""``FLAG`` checks on the commands the recipes site renders (``--rendered``).

Every configuration of :func:`validator.render.renderer.render_all` (each variant on each
picker hardware, recommended strategy and alternatives, feature sets) is rendered; each
distinct ``vllm serve`` argument list is checked once per install range
(:mod:`validator.analysis.install_range`) with the ``FLAG`` engine. A problem is reported at
the YAML line of the layer that contributed the token (``Token.pointer``) and names the
configurations it affects
(``on h200 · fp8 · multi_node_tp and 11 more``). :func:`merge` folds these into the
layer-by-layer hits of the ``FLAG`` rules (:mod:`validator.rules.flag.facts`): a hit
both find gains the configurations; one only the rendered command shows is added.
Overrides (``FLAG012``, ``FLAG025``) are not merged here: they come from the renderer's
trace of its last-wins de-duplication in every mode (:mod:`validator.rules.flag.combined_lists`).
Tokens of strategy files, the taxonomy or the site's own templates (``--node-rank`` of
the multi-node commands) are not reported on the recipe: the layer checks judge the
files' lists, and the site's templates are no recipe's to fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, NamedTuple

from validator.analysis.cli_plan import VersionPlan
from validator.analysis.flag_cascade import CONSEQUENCE
from validator.analysis.flag_engine import FlagIssue
from validator.analysis.flag_values import plugin_in_words
from validator.analysis.printed_args import judged_items
from validator.analysis.rendered_plans import Plans
from validator.analysis.shell_words import shell_words
from validator.findings import FLOOR, Related
from validator.rules.metadata import Hit

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.render.configuration import Process, Token

#: Issue codes judged on the layers alone (spelling is a property of the list as written).
LAYER_ONLY = frozenset({"underscore", "abbreviation", "removed"})
#: Where a recipe's own argument lists live (a hit elsewhere is anchored, not a token).
LAYER_ROOTS = ("/model/", "/variants/", "/features/", "/hardware_overrides/",
               "/strategy_overrides/")
#: Rules about a token the site's de-duplication drops by design (a flag repeated in one
#: list): that it reaches no command is the problem, not a sign that it does not matter.
DROPPED_BY_THE_SITE = frozenset({"FLAG011"})
#: How many configurations a message names before "and N more".
SHOWN = 1


@dataclass
class RenderedFacts:
    """What the rendered commands of one recipe show."""

    hits: dict[str, list[tuple[Hit, list[str]]]] = field(default_factory=dict)
    pointers: set[str] = field(default_factory=set)
    env_reach: dict[str, list[str]] = field(default_factory=dict)
    """Pointer of an environment variable of the recipe -> the configurations that
    export it (the rendered env is not argv: its variables are traced apart)."""
    env_channels: dict[tuple[str, str], list[tuple[str, VersionPlan | None]]] = field(
        default_factory=dict)
    """(document, pointer) of an environment variable the commands export (the recipe's,
    a strategy's, a kv-store deployment's) -> (configuration, the plan of its install
    channel) for each configuration that exports it in a channel of its own
    (:func:`~validator.analysis.install_channel.configuration_statements`); the plan is
    ``None`` where nothing can be checked."""
    env_in_range: dict[tuple[str, str], list[tuple[str, VersionPlan | None]]] = field(
        default_factory=dict)
    """(document, pointer) of an environment variable the commands export -> (configuration,
    the plan of its install range) for each configuration without a channel of its own
    that exports it: the recipe's install range for its variant and strategy judges it
    there."""
    in_range: set[str] = field(default_factory=set)
    """Pointers of the recipe's tokens that a configuration without a channel of its own
    renders (:func:`~validator.analysis.install_channel.configuration_statements`: no image
    for its hardware, no feature stating a minimum): those the recipe's install range
    judges."""
    configurations: int = 0
    distinct: int = 0


def affected(labels: Sequence[str]) -> str:
    """``on h200 · fp8 · multi_node_tp and 11 more``."""
    unique = list(dict.fromkeys(labels))
    shown = ", ".join(unique[:SHOWN])
    more = len(unique) - SHOWN
    return f"on {shown}" + (f" and {more} more" if more > 0 else "")


def facts(doc: LoadedDocument, ctx: Context, code_rule: dict[str, str]) -> RenderedFacts:
    """The :class:`RenderedFacts` of ``doc`` (every rendered configuration checked).

    A process the renderer shares between configurations (one :class:`Process` object in
    several renderings) is read once (:class:`_Processes`), and its findings made once per
    plan number; so is a processes tuple the renderer shares (:meth:`_Processes.of_all`):
    each configuration then only adds its label to them."""
    from validator.render.cache import rendered_configurations

    out = RenderedFacts()
    grouped: dict[Group, list[str]] = {}
    plans = Plans(doc, ctx)
    processes = _Processes(doc, code_rule)
    for rendered in rendered_configurations(doc, ctx):  # shared with REF014-REF016
        if not rendered.ok:
            continue
        out.configurations += 1
        label = rendered.config.label()
        env = [(t.document, t.pointer) for t in rendered.env_sources.values()]
        for document, pointer in env:
            if document == doc.path:
                out.env_reach.setdefault(pointer, []).append(label)
        where, plan, number = plans.of(rendered)
        _env_channels(out, env, label, bool(where[3]), plan)
        if plan is None or plan.minimum is None:
            continue
        mine, groups = processes.of_all(rendered.processes, plan, number)
        out.pointers.update(mine)
        if not where[3]:
            out.in_range.update(mine)
        for group in groups:
            grouped.setdefault(group, []).append(label)
    out.distinct = len(processes.judged)
    for (rule_id, pointer, message, hint, related, reason), labels in grouped.items():
        out.hits.setdefault(rule_id, []).append((Hit(pointer, message, hint, related=related,
                                                     reason=reason), labels))
    return out


class _Read(NamedTuple):
    """What :func:`facts` reads of one process: its ``vllm serve`` arguments after the
    model, their tokens, and the pointers of the recipe's own tokens among them."""

    args: tuple[str, ...]
    tokens: tuple[Token, ...]
    mine: frozenset[str]


class _Processes:
    """The processes of one document's renderings, each read once per object and judged
    once per distinct (arguments, plan number). The processes are kept referenced while
    this lives, so an ``id`` names one (immutable) process throughout."""

    def __init__(self, doc: LoadedDocument, code_rule: dict[str, str]) -> None:
        self.doc = doc
        self.code_rule = code_rule
        self.kept: list[object] = []
        self.reads: dict[int, _Read | None] = {}
        self.judged: dict[tuple[tuple[str, ...], int], list[FlagIssue]] = {}
        self.made: dict[tuple[int, int], list[Group]] = {}
        self.tuples: dict[tuple[int, int], tuple[frozenset[str], tuple[Group, ...]]] = {}

    def of_all(self, processes: tuple[Process, ...], plan: VersionPlan, number: int
               ) -> tuple[frozenset[str], tuple[Group, ...]]:
        """The pointers of the recipe's own tokens in the ``vllm serve`` processes of
        ``processes`` (one rendering's) and their finding groups at plan number
        ``number``, in process order (a group twice when two processes make it): once
        per tuple object and number, since the renderer shares one tuple between the
        configurations that render alike (kept referenced, so its ``id`` names it)."""
        key = (id(processes), number)
        found = self.tuples.get(key)
        if found is None:
            self.kept.append(processes)
            mine: set[str] = set()
            groups: list[Group] = []
            for process in processes:
                read = self.read(process)
                if read is not None:
                    mine.update(read.mine)
                    groups += self.groups(process, read, plan, number)
            found = self.tuples[key] = (frozenset(mine), tuple(groups))
        return found

    def read(self, process: Process) -> _Read | None:
        """The :class:`_Read` of ``process`` (``None``: not a ``vllm serve`` process)."""
        key = id(process)
        if key in self.reads:
            return self.reads[key]
        self.kept.append(process)
        argv = [str(a) for a in process.argv]
        start = _args_start(argv)
        found = None
        if start is not None:
            tokens = process.tokens[start:]
            found = _Read(tuple(argv[start:]), tokens, frozenset(
                t.pointer for t in tokens if t.document == self.doc.path))
        self.reads[key] = found
        return found

    def groups(self, process: Process, read: _Read, plan: VersionPlan, number: int
               ) -> list[Group]:
        """The finding groups of ``process`` (read as ``read``) at plan number ``number``
        (``plan``: the plan of the first configuration with that number)."""
        key = (id(process), number)
        found = self.made.get(key)
        if found is None:
            issues = self.judged.get((read.args, number))
            if issues is None:
                issues = self.judged[read.args, number] = judged_items(read.args, plan)
            found = self.made[key] = self._groups(read.tokens, issues)
        return found

    def _groups(self, tokens: tuple[Token, ...], issues: list[FlagIssue]) -> list[Group]:
        doc, out = self.doc, []
        for issue in issues:
            rule_id = self.code_rule.get(issue.code)
            if rule_id is None or issue.code in LAYER_ONLY or issue.index >= len(tokens):
                continue
            if tokens[issue.index].document != doc.path:
                continue  # a strategy file's or the site's own token: not this recipe's
            out.append(_hardware_override(doc, issue, tokens) or (
                rule_id, tokens[issue.index].pointer, issue.message, issue.hint,
                _consequences(doc, issue, tokens), FLOOR if issue.floor else None))
        return out


def _env_channels(out: RenderedFacts, sources: Sequence[tuple[str, str]], label: str,
                  own: bool, plan: VersionPlan | None) -> None:
    """Record where the environment variables at ``sources`` ((document, pointer)) of one
    configuration (``label``) are judged: in ``plan``, the plan of the channel of its own
    (``own``) or of the recipe's install range for it."""
    judged = out.env_channels if own else out.env_in_range
    for source in sources:
        judged.setdefault(source, []).append((label, plan))


@dataclass(frozen=True)
class EnvExporters:
    """The rendered configurations that export one environment variable of the recipe,
    by where each is judged."""

    in_range: list[tuple[str, VersionPlan]]
    """(configuration, the plan of the recipe's install range for it) of those without a
    channel of their own."""
    in_channels: list[tuple[str, VersionPlan]]
    """(configuration, the plan of its install channel) of those that run in a channel of
    their own that can be checked (a pinned release, a build no release describes)."""
    unchecked: list[str]
    """Configurations whose plan nothing checks (no vendored release in it)."""


def env_exporters(found: RenderedFacts, document: str, pointer: str) -> EnvExporters | None:
    """Where each rendered configuration exporting the variable at ``pointer`` of
    ``document`` (the recipe, or a strategy or kv-store file it renders with) is judged
    (``None``: no rendered configuration exports it)."""
    in_range = found.env_in_range.get((document, pointer), [])
    in_channels = found.env_channels.get((document, pointer), [])
    if not in_range and not in_channels:
        return None
    return EnvExporters(_checked(in_range), _checked(in_channels), [
        label for label, plan in (*in_range, *in_channels)
        if plan is None or plan.minimum is None])


def _checked(judged: list[tuple[str, VersionPlan | None]]) -> list[tuple[str, VersionPlan]]:
    """The (configuration, plan) pairs of ``judged`` whose plan can be checked."""
    return [(label, plan) for label, plan in judged
            if plan is not None and plan.minimum is not None]


OVERRIDE_LAYERS = ("hardware_overrides", "strategy_overrides")
"""Recipe lists written to override what the command has from elsewhere for one
hardware or one strategy: a flag they set again is meant to win."""

Group = tuple[str, str, str, str | None, tuple[Related, ...], str | None]
"""(rule id, pointer, message, hint, related, reason) of findings gathered over
configurations."""


def _consequences(doc: LoadedDocument, issue: FlagIssue,
                  tokens: Sequence[Token]) -> tuple[Related, ...]:
    """The related location of each consequence of ``issue`` at a token of the recipe."""
    return tuple(Related(doc.source_map.position(tokens[at].pointer)[0], what)
                 for at, what in issue.consequences
                 if at < len(tokens) and tokens[at].document == doc.path)


def _hardware_override(doc: LoadedDocument, issue: FlagIssue,
                       tokens: Sequence[Token]) -> Group | None:
    """A ``FLAG012`` group for a flag a command sets twice (``duplicate``) when the later
    one comes from an override list of the recipe (:data:`OVERRIDE_LAYERS`) and the
    earlier from another list (``--block-size 64`` of a strategy override, then AMD's
    ``--block-size=1``; a strategy's ``-cc.pass_config.x``, then the recipe's
    ``strategy_overrides.<name>`` ``--compilation-config``): spelled apart, the site's
    de-duplication keeps both, vLLM takes the last, and that is what the override means.
    ``None`` for any other issue (a repeat inside one list, or an override that a later
    list overrides, stays ``FLAG011``)."""
    if issue.code != "duplicate" or issue.related_index is None:
        return None
    later, earlier = tokens[issue.index], tokens[issue.related_index]
    if later.layer == earlier.layer or not any(o in later.layer for o in OVERRIDE_LAYERS):
        return None
    related = (Related(doc.source_map.position(earlier.pointer)[0], earlier.layer),) \
        if earlier.document == doc.path else ()
    dotted = "; the dotted keys replace the whole JSON value" \
        if issue.message.endswith("the whole JSON value") else ""
    after = tokens[issue.related_index + 1:issue.related_index + 2]
    value = f" {after[0].text}" if after and after[0].layer == earlier.layer and \
        "=" not in earlier.text and not after[0].text.startswith("-") else ""
    return ("FLAG012", later.pointer, f"`{later.text}` in {later.layer} overrides "
            f"`{earlier.text}{value}` of {earlier.layer}: the command keeps both, and vLLM "
            f"takes the last{dotted}", None, related, None)


def plugged_in_commands(doc: LoadedDocument, ctx: Context, document: str, pointer: str,
                        dest: str) -> bool:
    """Whether the site renders the token at ``pointer`` of ``document`` in some ``vllm
    serve`` command, and every such command (of every configuration) also sets the
    parser plugin option of parser option ``dest`` (a plugin written in another list,
    e.g. ``model.base_args`` for a feature's ``--tool-call-parser``): the plugin file
    registers the parser names of that command."""
    seen = False
    for process in _token_processes(doc, ctx).get((document, pointer), ()):
        words = [str(a) for a in process.argv]
        start = _args_start(words)
        if start is None:
            continue
        if not plugin_in_words(shell_words(words[start:])[0], dest):
            return False
        seen = True
    return seen


def _token_processes(doc: LoadedDocument, ctx: Context
                     ) -> dict[tuple[str, str], list[Process]]:
    """(document, pointer) of each token of the rendered commands of ``doc`` -> the
    processes that hold it, in rendering order, each process object once (the renderer
    shares one between the configurations that render it alike): once per document
    content and context, instead of a walk over every configuration for each token
    asked."""
    from validator.analysis.cli_plan import per_document
    from validator.render.cache import rendered_configurations

    def compute() -> dict[tuple[str, str], list[Process]]:
        out: dict[tuple[str, str], list[Process]] = {}
        done: set[int] = set()
        for rendered in rendered_configurations(doc, ctx):
            if not rendered.ok:
                continue
            for process in rendered.processes:
                if id(process) in done:
                    continue
                done.add(id(process))
                for key in dict.fromkeys((t.document, t.pointer) for t in process.tokens):
                    out.setdefault(key, []).append(process)
        return out

    return per_document(doc, ctx, "flag:token_processes", compute)


def _args_start(argv: Sequence[str]) -> int | None:
    """Index of the first ``vllm serve`` argument after the model in a process's argv
    (``None``: not vLLM)."""
    if argv[:2] != ["vllm", "serve"]:
        return None
    return 3 if len(argv) > 2 and not argv[2].startswith("-") else 2


_ARG_LISTS = frozenset({"args", "base_args", "extra_args"})


def _in_arg_list(pointer: str) -> bool:
    """Whether ``pointer`` is inside a ``vllm serve`` argument list: only such a token can
    be said to reach no rendered command. An environment variable (the env of a role of
    disaggregated serving is traced by name only) or a recipe-wide field such as
    ``min_vllm_version`` is not an argv token, so that is never said of it."""
    return not _ARG_LISTS.isdisjoint(pointer.split("/"))


def merge(layer_hits: dict[str, list[Hit]], found: RenderedFacts,
          anchors: dict[str, str] | None = None) -> dict[str, list[Hit]]:
    """Layer hits with the configurations the rendered commands name, plus the problems
    only a rendered command shows. ``anchors`` (:func:`validator.sourcemap.alias_anchors`)
    maps the pointers that reach one YAML node through an alias to the anchor's: their
    hits of one message are one hit there, on the configurations of them all."""
    out: dict[str, list[Hit]] = {}
    reach = _labels_by_pointer(found)
    consequences = _consequences_by_pointer(found)
    members: dict[str, list[str]] = {}
    for pointer, anchor in (anchors or {}).items():
        members.setdefault(anchor, []).append(pointer)
    for rule_id, hits in layer_hits.items():
        kept: list[Hit | None] = []
        seen: set[tuple[str, str]] = set()
        for hit in hits:
            anchor = (anchors or {}).get(hit.pointer, hit.pointer)
            if (anchor, hit.message) in seen:
                continue  # the same node through another alias: one defect, one finding
            seen.add((anchor, hit.message))
            group = members.get(anchor, [anchor])
            kept.append(_with_reach(replace(hit, pointer=anchor), rule_id, group, found, reach,
                                    consequences))
        out[rule_id] = [h for h in kept if h is not None]
    for rule_id, pairs in found.hits.items():
        known = {p for h in layer_hits.get(rule_id, [])
                 for p in members.get((anchors or {}).get(h.pointer, h.pointer), [h.pointer])}
        for hit, labels in pairs:
            if hit.pointer not in known:
                out.setdefault(rule_id, []).append(replace(
                    hit, message=f"rendered command: {hit.message} ({affected(labels)})"))
    return out


def _with_reach(hit: Hit, rule_id: str, group: list[str], found: RenderedFacts,
                reach: dict[tuple[str, str], list[str]],
                consequences: dict[tuple[str, str], list[Related]]) -> Hit | None:
    """``hit`` (at the pointers ``group`` of one YAML node) with the configurations its
    token reaches, or said to reach none; ``None`` when every rendered command holding
    it runs in an install channel of its own (:func:`_judged_in_channels`)."""
    labels = [label for p in group
              for label in (reach.get((rule_id, p)) or found.env_reach.get(p, []))]
    if not labels and all(_judged_in_channels(rule_id, p, found) for p in group):
        return None
    if labels:
        return replace(hit, message=f"{hit.message} ({affected(labels)})",
                       related=tuple(dict.fromkeys([
                           *hit.related, *(r for p in group
                                           for r in consequences.get((rule_id, p), ()))])))
    if hit.pointer.startswith(LAYER_ROOTS) and not _rendered(group, found) \
            and rule_id not in DROPPED_BY_THE_SITE and _in_arg_list(hit.pointer):
        return replace(hit, message=f"{hit.message} (in no command the site renders)")
    return hit


def _rendered(group: list[str], found: RenderedFacts) -> bool:
    """Whether a rendered command holds the node at a pointer of ``group``: a token of
    the recipe, or a whole argument list (a note about the list, ``FLAG019``) one of
    whose tokens it holds."""
    return any(p in found.pointers for p in group) or any(
        q.startswith(p + "/") for p in group for q in found.pointers)


CHANNEL_RULES = frozenset({"FLAG001", "FLAG002", "FLAG006", "FLAG023", "FLAG024"})
"""Rules whose verdict on a token depends on the vLLM that runs it."""


def _judged_in_channels(rule_id: str, pointer: str, found: RenderedFacts) -> bool:
    """Whether every rendered command holding the recipe's token at ``pointer`` runs in
    an install channel of its own (the image of its hardware, a feature's stated
    minimum), so the check of each there, which found nothing of ``rule_id``, is the
    verdict: the layer's plan (the list's install range) judges a vLLM none of them
    runs."""
    return rule_id in CHANNEL_RULES and pointer in found.pointers \
        and pointer not in found.in_range


def _consequences_by_pointer(found: RenderedFacts) -> dict[tuple[str, str], list[Related]]:
    """(rule id, pointer) -> the consequences the rendered hits there show of the defect
    at that token (related locations a layer hit there takes after its own), in order;
    one pass, like :func:`_labels_by_pointer`."""
    out: dict[tuple[str, str], list[Related]] = {}
    for rule_id, pairs in found.hits.items():
        for hit, _ in pairs:
            extra = [r for r in hit.related if r.message.startswith(CONSEQUENCE)]
            if extra:
                out.setdefault((rule_id, hit.pointer), []).extend(extra)
    return out


def _labels_by_pointer(found: RenderedFacts) -> dict[tuple[str, str], list[str]]:
    """(rule id, pointer) -> the configuration labels of every rendered hit there, in
    order (one pass: a recipe with thousands of hits must not pair every layer hit with
    every rendered one)."""
    out: dict[tuple[str, str], list[str]] = {}
    for rule_id, pairs in found.hits.items():
        for hit, labels in pairs:
            out.setdefault((rule_id, hit.pointer), []).extend(labels)
    return out
