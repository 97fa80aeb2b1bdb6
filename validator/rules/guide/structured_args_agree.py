"""``GUIDE011``: a guide command and the structured args serve the same way."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from validator.analysis import arg_layers, cli_plan, flag_engine
from validator.analysis.flag_segments import segment_spans
from validator.analysis.guide_sections import SectionSearch
from validator.analysis.recipe_data import as_dict, get
from validator.analysis.release_range import LISTS_KEPT, parse_at
from validator.analysis.rendered_commands import affected
from validator.findings import Related, Severity
from validator.guide.commands import ServeCommand
from validator.render.cache import rendered_configurations
from validator.rules.api import Hit, rule
from validator.rules.flag.facts import FLAG_READS
from validator.rules.guide.facts import GUIDE, GuideAnalysis, guide_model, guide_text
from validator.rules.hw.facts import hardware_named
from validator.sourcemap import join_pointer
from validator.vllm_cli import argv
from validator.vllm_cli.parsed_args import ParsedArgs, ParsedOption

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument
    from validator.render.renderer import Rendered, Token
    from validator.vllm_cli.data_source import CliRegistries
    from validator.vllm_cli.registry import CliRegistry


#: Flags whose value the guide should state the same way as the structured features.
KEY_DESTS = ("tool_call_parser", "reasoning_parser", "tokenizer_mode")


@rule("GUIDE011", Severity.WARNING, "Guide and structured args disagree",
      reads=FLAG_READS)
def guide_disagrees_with_structured(doc: LoadedDocument, ctx: Context) -> list[Hit]:
    """A guide command sets ``--tool-call-parser``, ``--reasoning-parser`` or
    ``--tokenizer-mode`` to a value that no command the recipes site renders for the
    configuration the command's section targets uses: the page's command builder and its
    prose serve differently. The target is the variant whose ``model_id`` the command
    serves, on the hardware the section names (a profile id or display name in its
    headings or prose, a brand or generation in its headings: ``## AMD MI300X``) and the
    strategy it names, over every feature set; what the section does not name is not
    narrowed. The finding names the configurations and the YAML lines of the rendered
    values. When the recipe renders nothing (the site cannot render it), the guide is
    compared with ``model.base_args`` and the features' args.

    Parallel sizes (``--tensor-parallel-size``, ``-tp``, ``--pipeline-parallel-size``,
    ``--data-parallel-size``) are not compared, by design: the site derives them from the
    strategy and each hardware's ``gpu_count``, so a section that names no hardware has no
    one size to agree with, and a guide legitimately shows other sizes (a smaller node,
    GPUs pinned with ``CUDA_VISIBLE_DEVICES``). A size in a feature's args, which replaces
    the site's everywhere, is ``FLAG029``.

    Failing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --tool-call-parser mistral
          ```

    Passing::

        guide: |
          ```bash
          vllm serve example-org/Example-Chat-8B --tool-call-parser hermes
          ```

    How to fix: make the guide and the structured args of that configuration use the same
    value."""
    model = guide_model(doc, ctx)
    if not model.checked:
        return []
    text = guide_text(doc) or ""
    renderings = [r for r in rendered_configurations(doc, ctx) if r.ok]
    if not renderings:
        out = GuideAnalysis()
        _disagreements(doc, ctx, [(c.cmd, c.parsed) for c in model.checked], out)
        return out.hits.get("GUIDE011", [])
    hits: list[Hit] = []
    values = _RenderedValues(doc, ctx.cli)
    targets = _Targets(doc, ctx, SectionSearch(text), model.ids, renderings)
    for c in model.checked:
        wanted = [(opt, opt.dest) for opt in c.parsed.options if opt.dest in KEY_DESTS
                  and opt.value is not None and not opt.value.startswith("$")]
        if not wanted or c.plan.minimum is None:
            continue
        picked, narrowed = targets.of(c.cmd)
        for opt, dest in wanted:
            found = values.over(picked, narrowed, c.plan.minimum, dest)
            if found is not None and opt.value not in found.values:
                hits.append(_disagreement(c.cmd, opt, found))
    return hits


#: The hint of every GUIDE011 finding: either side may be the wrong one.
AGREE_HINT = ("make the guide and the structured args agree: the wrong value may be the "
              "YAML's (the line named), not the guide's")


def valued(values: list[str], lines: list[tuple[str, int]]) -> str:
    """```qwen3` from YAML line 41, `glm45``: each value with the recipe lines it comes from
    (``lines``: (value, line) pairs), so that the one-line form of a finding at the guide
    line also names the YAML line, the other place the fault may be."""
    out = []
    for value in values:
        at = list(dict.fromkeys(ln for v, ln in lines if v == value))
        where = f" from YAML line{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}" \
            if at else ""
        out.append(f"`{value}`{where}")
    return ", ".join(out)


def _disagreement(cmd: ServeCommand, opt: ParsedOption, found: _Used) -> Hit:
    """The hit of guide command ``cmd``'s option ``opt``, whose value no rendered command
    of its target configurations uses (``found``: what they use)."""
    flag_name = opt.option or opt.normalised
    return Hit(GUIDE, f"the guide uses `{flag_name} {opt.value}` but the rendered command "
               f"uses {valued(found.shown, found.lines)} ({found.affected})", AGREE_HINT,
               block_index=cmd.arg_lines[opt.index],
               related=tuple(Related(ln, f"rendered {flag_name} {v}") for v, ln in found.lines))


Used = tuple[str, int | None, str]
"""(value, YAML line of the flag in the recipe or ``None``, configuration label)."""


@dataclass(frozen=True)
class _Used:
    """What the renderings a guide section targets use for one flag."""

    values: frozenset[str]
    shown: list[str]
    """The first three distinct values."""
    lines: list[tuple[str, int]]
    """The first three distinct (value, YAML line) pairs."""
    affected: str
    """The configurations, as :func:`validator.analysis.rendered_commands.affected` names them."""


class _RenderedValues:
    """The values of :data:`KEY_DESTS` in each rendered command, parsed once per argv,
    and gathered once per set of target renderings (the commands of one section, or of
    sections naming the same hardware, share their targets)."""

    def __init__(self, doc: LoadedDocument, cli: CliRegistries) -> None:
        self.doc = doc
        self.cli = cli
        self.memo: dict[tuple[Any, ...], dict[str, list[tuple[str, Token]]]] = {}
        self.gathered: dict[tuple[Any, ...], _Used | None] = {}
        # (rendering id, release) -> (the rendering, what it uses): each rendering is
        # gathered once per release however many target sets hold it (kept with the
        # rendering, so that its id cannot be reused meanwhile)
        self.used: dict[tuple[int, str], tuple[Rendered, dict[str, list[Used]]]] = {}
        self.lines: dict[str, int] = {}
        # (segment, release, registry id) -> (the registry, its options of KEY_DESTS)
        self.segments: dict[tuple[Any, ...], tuple[CliRegistry,
                                                   list[tuple[str, str, int]]]] = {}

    def over(self, targets: list[Rendered], narrowed: Narrowed, registry: CliRegistry,
             dest: str) -> _Used | None:
        """What ``targets`` use for ``dest`` (``None``: none of them sets it); ``narrowed``:
        what picked ``targets`` of the rule's renderings (:meth:`_Targets.of`)."""
        key = (narrowed, registry.version, dest)
        if key not in self.gathered:
            used = [u for r in targets for u in self.of(r, registry).get(dest, [])]
            self.gathered[key] = _Used(
                frozenset(v for v, _, _ in used), list(dict.fromkeys(v for v, _, _ in used))[:3],
                list(dict.fromkeys((v, ln) for v, ln, _ in used if ln is not None))[:3],
                affected([label for _, _, label in used])) if used else None
        return self.gathered[key]

    def of(self, rendered: Rendered, registry: CliRegistry) -> dict[str, list[Used]]:
        """What ``rendered`` uses for each of :data:`KEY_DESTS` under ``registry``."""
        hit = self.used.get((id(rendered), registry.version))
        if hit is None or hit[0] is not rendered:
            hit = self.used[id(rendered), registry.version] = (rendered,
                                                               self._of(rendered, registry))
        return hit[1]

    def _line(self, pointer: str) -> int:
        line = self.lines.get(pointer)
        if line is None:
            line = self.lines[pointer] = self.doc.source_map.position(pointer)[0]
        return line

    def _of(self, rendered: Rendered, registry: CliRegistry) -> dict[str, list[Used]]:
        out: dict[str, list[Used]] = {}
        label = rendered.config.label()
        for process in rendered.processes:
            args = [str(a) for a in process.argv]
            if args[:2] != ["vllm", "serve"]:
                continue
            start = 3 if len(args) > 2 and not args[2].startswith("-") else 2
            key = (tuple(args), registry.version)
            if key not in self.memo:
                self.memo[key] = {}
                for dest, value, index in self._key_values(tuple(args[start:]), registry):
                    if start + index < len(process.tokens):
                        self.memo[key].setdefault(dest, []).append(
                            (value, process.tokens[start + index]))
            for dest, found in self.memo[key].items():
                for value, token in found:
                    line = self._line(token.pointer) \
                        if token.document == self.doc.path and token.pointer else None
                    out.setdefault(dest, []).append((value, line, label))
        return out


    def _key_values(self, args: tuple[str, ...], registry: CliRegistry
                    ) -> tuple[tuple[str, str, int], ...]:
        """(destination, value, index) of each option of :data:`KEY_DESTS` with a value in
        ``args`` parsed at ``registry``: from its segments, each parsed once
        (:func:`~validator.analysis.flag_segments.segment_spans`), else from the whole
        list. Once per run for each list and release file (on the data source, whichever
        recipe and revision renders it: a pure function of the two,
        :func:`_release_key`)."""
        def compute() -> tuple[tuple[str, str, int], ...]:
            spans = segment_spans(args)
            if spans is None:
                return tuple(_key_options(parse_at(self.cli, args, registry)))
            return tuple((dest, value, start + index) for start, end in spans
                         for dest, value, index in self._segment_values(args[start:end],
                                                                        registry))

        return self.cli.bounded("GUIDE011:key_values", (args, *_release_key(registry)),
                                compute, limit=VALUES_KEPT)

    def _segment_values(self, segment: tuple[str, ...], registry: CliRegistry
                        ) -> list[tuple[str, str, int]]:
        key = (segment, registry.version, registry.sha256, id(registry))
        found = self.segments.get(key)
        if found is None or found[0] is not registry:
            found = self.segments[key] = (registry, _key_options(argv.parse_args(segment,
                                                                                 registry)))
        return found[1]


VALUES_KEPT = LISTS_KEPT
"""How many argument lists' values of :data:`KEY_DESTS` the data source keeps
(:meth:`_RenderedValues._key_values`)."""


def _release_key(registry: CliRegistry) -> tuple[str, str, str]:
    """What names the options of ``registry`` in a memo of the run's data source: its
    version, family and the digest of its file (as
    :func:`~validator.analysis.release_range.parse_at` keys a parse)."""
    family = registry.plugin.name if registry.plugin is not None else cli_plan.VLLM
    return registry.version, family, registry.sha256


def _key_options(parsed: ParsedArgs) -> list[tuple[str, str, int]]:
    """(destination, value, index) of each option of :data:`KEY_DESTS` with a value."""
    return [(opt.dest, opt.value, opt.index) for opt in parsed.options
            if opt.dest in KEY_DESTS and opt.value is not None]


Narrowed = tuple[tuple[bool, str | None], frozenset[str], frozenset[str]]
"""What picks the renderings a guide command's section targets (:class:`_Targets`):
(whether a variant is named, and which; ``None``: one serving the recipe's own model id),
the hardware and the strategies the section names."""


class _Targets:
    """The renderings each guide command's section targets: the variant whose ``model_id``
    it serves, the hardware and the strategy the section names (each narrowed only when
    it leaves a rendering), picked once per distinct :data:`Narrowed`."""

    def __init__(self, doc: LoadedDocument, ctx: Context, search: SectionSearch,
                 ids: dict[str, str | None], renderings: list[Rendered]) -> None:
        self.ctx = ctx
        self.search = search
        self.ids = ids
        self.renderings = renderings
        self.strategies = {r.config.key for r in renderings}
        self.own = {k for k, v in as_dict(get(doc.data, "variants")).items()
                    if isinstance(get(v, "model_id"), str)
                    and str(get(v, "model_id")).lower() != str(get(doc.data, "model",
                                                                    "model_id")).lower()}
        self.picked: dict[Narrowed, list[Rendered]] = {}

    def of(self, cmd: ServeCommand) -> tuple[list[Rendered], Narrowed]:
        """The renderings ``cmd``'s section targets, and what picked them."""
        model = (cmd.model or "").lower()
        search = self.search
        named = frozenset(s for s in self.strategies
                          if search.says(_word(s.replace("_", "[ _-]")), cmd.line))
        narrowed = ((model in self.ids, self.ids.get(model)),
                    frozenset(named_hardware(self.ctx, search, cmd.line)), named)
        picked = self.picked.get(narrowed)
        if picked is None:
            picked = self.picked[narrowed] = self._pick(narrowed)
        return picked, narrowed

    def _pick(self, narrowed: Narrowed) -> list[Rendered]:
        (by_model, variant), hardware, named = narrowed
        picked = self.renderings
        if by_model:
            picked = _narrow(picked, lambda r: r.config.variant == variant
                             if variant is not None else r.config.variant not in self.own)
        if hardware:
            picked = _narrow(picked, lambda r: r.config.hardware in hardware)
        if named:
            picked = _narrow(picked, lambda r: r.config.key in named)
        return picked


def named_hardware(ctx: Context, search: SectionSearch, line: int) -> set[str]:
    """Profile ids the section of guide ``line`` names before it: an id or display name
    anywhere in it, a brand or generation key (``AMD``, ``Hopper``) in its headings."""
    return hardware_named(
        ctx, lambda name: search.may_say(name, line)
        and search.says(_word(re.escape(name)), line),
        lambda key: search.may_say(key, line)
        and search.says(_word(re.escape(key)), line, headings_only=True))


@lru_cache(maxsize=1024)
def _word(pattern: str) -> re.Pattern[str]:
    """``pattern`` as a whole word (fixed-length patterns only: see :class:`SectionSearch`)."""
    return re.compile(rf"(?<![\w-]){pattern}(?![\w-])", re.IGNORECASE)


def _narrow(items: list[Rendered], keep: Callable[[Rendered], bool]) -> list[Rendered]:
    kept = [r for r in items if keep(r)]
    return kept or items


def _structured_values(doc: LoadedDocument, ctx: Context) -> dict[str, list[tuple[str, int]]]:
    """dest -> [(value, file line)] over the structured argument lists."""
    out: dict[str, list[tuple[str, int]]] = {}
    plan_cache: dict[str, cli_plan.VersionPlan] = {}
    for layer in arg_layers.collect_layers(doc.data):
        if layer.feature is None and layer.pointer != "/model/base_args":
            continue
        key = str(layer.variant)
        plan = plan_cache.get(key)
        if plan is None:
            family = arg_layers.platform_plugin(doc.data) or cli_plan.VLLM
            plan = cli_plan.plan_for(ctx.cli, flag_engine.recipe_minimum(doc, ctx, layer.variant),
                                     family)
            plan_cache[key] = plan
        if plan.minimum is None:
            continue
        parsed = argv.parse_args(layer.tokens, plan.minimum)
        for opt in parsed.options:
            if opt.dest in KEY_DESTS and opt.value is not None:
                line = doc.source_map.position(join_pointer(layer.pointer, opt.index))[0]
                out.setdefault(opt.dest, []).append((opt.value, line))
    return out


def _disagreements(doc: LoadedDocument, ctx: Context,
                   results: list[tuple[ServeCommand, ParsedArgs]], out: GuideAnalysis) -> None:
    if not results:
        return
    structured = _structured_values(doc, ctx)
    for cmd, parsed in results:
        for dest in KEY_DESTS:
            declared = structured.get(dest)
            if not declared:
                continue
            values = {v for v, _ in declared}
            for opt in parsed.find(dest):
                if opt.value is None or opt.value in values or opt.value.startswith("$"):
                    continue
                flag_name = opt.option or opt.normalised
                related = tuple(Related(line, f"structured {flag_name} {v}")
                                for v, line in declared[:3])
                shown = list(dict.fromkeys(v for v, _ in declared))[:3]
                out.add("GUIDE011", cmd.arg_lines[opt.index], f"the guide uses `{flag_name} "
                        f"{opt.value}` but the recipe's structured args use "
                        + valued(shown, declared[:3]), AGREE_HINT, related)
