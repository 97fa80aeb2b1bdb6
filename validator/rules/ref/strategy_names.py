"""``REF002``, ``REF003``, ``REF031``, ``REF036``, ``REF038``: ``compatible_strategies``,
``strategy_overrides``, ``default_strategy`` and a feature's ``strategies`` name strategies
of ``strategies/`` (the default one, and one at least of a feature's list, the recipe
offers; a feature's list may also name a kv-store deployment)."""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.recipe_data import as_dict, elements, get, items
from validator.context import Context, claimed_name
from validator.findings import Severity
from validator.load import LoadedDocument
from validator.rules.api import Hit, Reads, rule
from validator.rules.ref.facts import nearest_hint


def unknown_strategy_hint(name: str, ctx: Context, known: list[str]) -> str:
    """The hint for a strategy ``name`` no ``strategies/`` file claims: the file named
    ``name`` that claims another name (the site files it under that one, ``REF027``),
    else the names the site knows."""
    doc = ctx.strategies.get(name)
    if doc is not None:
        return (f"{doc.path} names itself {claimed_name(doc)!r}, and the site files it under "
                f"that name (REF027): set its name back to {name!r}, or name "
                f"{claimed_name(doc)!r} here")
    return f"known strategies: {', '.join(known)}"


@rule("REF002", Severity.ERROR, "compatible_strategies names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def compatible_strategy_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every entry of ``compatible_strategies`` must be a strategy of the same revision as
    the site's build files them: by the ``name`` of a ``strategies/*.yaml`` (its file name
    but for a ``REF027`` defect of that file, which is reported there, not on every recipe
    still naming the strategy).

    Failing::

        compatible_strategies:
          - single_node_tensor_parallel

    Passing::

        compatible_strategies:
          - single_node_tp

    How to fix: use the name of a file in ``strategies/`` (the hint lists them), or add the
    strategy there first."""
    known = ctx.strategy_names()
    strategies = get(doc.data, "compatible_strategies")
    for _, name, pointer in elements(strategies, "/compatible_strategies"):
        if isinstance(name, str) and ctx.strategy_document(name) is None:
            yield Hit(pointer, f"strategy {name!r} does not exist in strategies/",
                      unknown_strategy_hint(name, ctx, known))


@rule("REF003", Severity.ERROR, "strategy_overrides names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def strategy_override_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every key of ``strategy_overrides`` must be a strategy of the same revision; an
    override for a strategy that does not exist is never applied.

    Failing::

        strategy_overrides:
          single_node_pp:
            extra_args: ["--max-num-seqs", "64"]

    Passing::

        strategy_overrides:
          single_node_tp:
            extra_args: ["--max-num-seqs", "64"]

    How to fix: key the override by an existing strategy name, or drop it."""
    for name, _, pointer in items(get(doc.data, "strategy_overrides"), "/strategy_overrides"):
        if ctx.strategy_document(name) is None:
            yield Hit(pointer, f"strategy_overrides names unknown strategy {name!r}",
                      unknown_strategy_hint(name, ctx, ctx.strategy_names()), on_key=True)


def _offered(data: object) -> list[str]:
    """The strategies the recipe offers on some hardware: ``compatible_strategies`` and
    those ``strategy_hardware`` adds (``supported``) on a profile."""
    names = [n for _, n, _ in elements(get(data, "compatible_strategies"), "")
             if isinstance(n, str)]
    for name, gates in as_dict(get(data, "strategy_hardware")).items():
        if isinstance(name, str) and "supported" in as_dict(gates).values():
            names.append(name)
    return list(dict.fromkeys(names))


@rule("REF031", Severity.WARNING, "default_strategy names no strategy the recipe offers",
      reads=frozenset({Reads.STRATEGIES}), needs_root=True)
def default_strategy_offered(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """``default_strategy`` must be a strategy the recipe offers (``compatible_strategies``,
    or one ``strategy_hardware`` adds on some hardware): the site recommends it only then,
    and otherwise picks its own default without a word, so the author's choice never
    shows.

    Failing::

        compatible_strategies:
          - single_node_tp
          - multi_node_tp
        default_strategy: multi_node_tpp

    Passing::

        compatible_strategies:
          - single_node_tp
          - multi_node_tp
        default_strategy: multi_node_tp

    How to fix: name one of the recipe's strategies (check the spelling), or add the
    strategy to ``compatible_strategies``."""
    name = get(doc.data, "default_strategy")
    if not isinstance(name, str):
        return
    offered = _offered(doc.data)
    if name in offered:
        return
    why = ("does not exist in strategies/" if ctx.strategy_document(name) is None
           else "is not one the recipe offers")
    yield Hit("/default_strategy", f"default_strategy {name!r} {why}: the site ignores it "
              "and recommends its own pick",
              nearest_hint(name, offered) or f"offered: {', '.join(offered) or 'none'}")


@rule("REF036", Severity.WARNING, "A feature's strategies list names an unknown strategy",
      reads=frozenset({Reads.STRATEGIES, Reads.KV_STORES}), needs_root=True)
def feature_strategy_exists(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """Every entry of a feature's ``strategies`` allow-list must be a strategy (or a
    kv-store deployment) of the same revision: the site offers the feature only on the
    strategies the list names, so a misspelt name hides it where the author meant it.

    Failing::

        features:
          tool_calling:
            description: "Tool calls"
            args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
            strategies: [single_node_tpp]

    Passing::

        features:
          tool_calling:
            description: "Tool calls"
            args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
            strategies: [single_node_tp]

    How to fix: use the name of a file in ``strategies/`` (the hint names the closest), or
    drop the entry."""
    known = {*ctx.strategy_names(), *ctx.kv_store_names()}
    for key, feature in as_dict(get(doc.data, "features")).items():
        base = f"/features/{key}/strategies"
        for _, name, pointer in elements(get(feature, "strategies"), base):
            if isinstance(name, str) and name not in known:
                yield Hit(pointer, f"feature {key!r} lists strategy {name!r}, which does not "
                          "exist in strategies/ or kv_store/: the feature is never offered "
                          "there", nearest_hint(name, sorted(known))
                          or f"known strategies: {', '.join(sorted(known))}")


@rule("REF038", Severity.WARNING, "A feature's strategies list names no strategy the recipe "
      "offers", reads=frozenset({Reads.STRATEGIES, Reads.KV_STORES}), needs_root=True)
def feature_strategy_offered(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A feature's ``strategies`` allow-list whose every entry is a strategy of
    ``strategies/`` that the recipe does not offer (``compatible_strategies``, or one
    ``strategy_hardware`` adds on some hardware): the site offers the feature only under
    the strategies the list names, so it never offers it at all. A list naming an unknown
    strategy is ``REF036``'s; one naming a kv-store deployment is not judged.

    Failing::

        compatible_strategies: [single_node_tp, single_node_dep]
        features:
          eplb:
            description: "Expert load balancing"
            args: ["--enable-eplb"]
            strategies: [single_node_tep]

    Passing::

        compatible_strategies: [single_node_tp, single_node_dep]
        features:
          eplb:
            description: "Expert load balancing"
            args: ["--enable-eplb"]
            strategies: [single_node_dep]

    How to fix: name the recipe's strategies the feature runs under, or add the strategy
    to ``compatible_strategies``."""
    offered = _offered(doc.data)
    known = set(ctx.strategy_names())
    for key, feature in as_dict(get(doc.data, "features")).items():
        names = [n for _, n, _ in elements(get(feature, "strategies"), "")]
        if not names or not all(isinstance(n, str) and n in known for n in names) \
                or any(n in offered for n in names):
            continue
        yield Hit(f"/features/{key}/strategies", f"feature {key!r} is limited to "
                  f"{', '.join(names)}, none of which the recipe offers: the site never "
                  "offers the feature", f"offered: {', '.join(offered) or 'none'}")
