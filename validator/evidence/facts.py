"""Facts a recipe states, or that follow from what it states, each with a line citation.

Every :class:`~validator.evidence.model.Fact` carries an evidence class:

``recipe_declaration``
    a value the recipe declares (``model.min_vllm_version: "0.23.0"``), cited at its line.
``maintainer_verified``
    a status a maintainer set to ``verified`` (``meta.hardware.b300: verified``,
    ``kv_offload_support.offloading_cpu: verified``).
``derived``
    computed by this tool from declarations with a named rule (``derivation``), citing
    every input (``derived_from``). The rules mirror upstream's site build
    (vllm-project/recipes ``scripts/build-recipes-api.mjs`` and
    ``src/lib/command-synthesis.js``):

    * features on by default: ``defaultFeaturesFor`` -- all features minus
      ``opt_in_features`` minus ``hardware_opt_in_features[hw]``, except that a variant's
      ``default_modes`` forces a feature on;
    * a variant without ``model_id`` serves ``model.model_id``;
    * effective minimum vLLM: the highest of the model's and the variant's
      ``min_vllm_version`` (:func:`validator.analysis.versions.effective_min_version`);
    * compatible hardware: ``listCompatibleHardware`` -- precision constraint (NVFP4/FP4
      need NVIDIA Blackwell unless ``precision_hardware`` says otherwise), not
      ``meta.hardware: unsupported``, inside ``supported_hardware`` when declared;
    * single-node fit: ``fitsSingleNode`` -- ``vram_minimum_gb <= vram_gb`` of the
      profile's node.

Taxonomy-based facts are only derived when the taxonomy is of the document's own
revision; otherwise they are left out (the record says why) rather than guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from validator.analysis.recipe_data import as_dict, as_list, get
from validator.evidence.cite import Citer
from validator.evidence.model import Citation, Classification, Fact
from validator.load.scalars import json_number_problem
from validator.render.gates import picker_hardware_if_shown
from validator.rules.hw.multi_node_text import multi_node_statements
from validator.sourcemap import join_pointer

RULE_DEFAULT_FEATURES = (
    "defaultFeaturesFor (vllm-project/recipes scripts/build-recipes-api.mjs): every "
    "feature except opt_in_features (and hardware_opt_in_features of the hardware), "
    "unless the variant's default_modes forces it on")
RULE_INHERITED_MODEL = "a variant without model_id serves model.model_id"
RULE_MIN_VERSION = ("effective minimum = highest of model.min_vllm_version and the "
                    "variant's min_vllm_version (PEP 440 order)")
RULE_COMPATIBLE = (
    "the site's hardware picker (vllm-project/recipes src/lib/command-synthesis.js "
    "listCompatibleHardware and pickDefaultHardware): precision constraint, meta.hardware "
    "not 'unsupported', supported_hardware allowlist, and a restricted profile only when "
    "meta.hardware declares it")
RULE_SINGLE_NODE = ("fitsSingleNode (vllm-project/recipes src/lib/command-synthesis.js): "
                    "vram_minimum_gb <= the profile's node vram_gb")


@dataclass
class VariantFacts:
    """What the facts module worked out for one variant (feeds ``deployment_options``)."""

    name: str
    model_id: str | None = None
    model_id_inherited: bool = False
    min_version: str | None = None
    on_by_default: list[str] = field(default_factory=list)
    opt_in: list[str] = field(default_factory=list)
    compatible_hardware: list[str] | None = None
    single_node_hardware: list[str] | None = None
    multi_node_stated: list[Fact] = field(default_factory=list)
    """Facts quoting the recipe's text that this variant needs multi-node."""


@dataclass
class FactSet:
    """Facts in citation order plus the per-variant derivations."""

    facts: list[Fact] = field(default_factory=list)
    variants: dict[str, VariantFacts] = field(default_factory=dict)
    default_variant: str | None = None
    default_features: list[str] = field(default_factory=list)
    default_opt_in: list[str] = field(default_factory=list)


def default_variant_name(data: Any) -> str | None:
    """``"default"`` when declared (upstream's default ``variantKey``), else the first
    variant, else ``None``."""
    variants = as_dict(get(data, "variants"))
    if "default" in variants:
        return "default"
    return next(iter(variants), None)


def default_features(data: Any, variant: str | None, hardware: str | None = None
                     ) -> tuple[list[str], list[str]]:
    """``(on_by_default, opt_in)`` feature names, in declaration order, per upstream's
    ``defaultFeaturesFor(recipe, hwId, variantKey)``."""
    features = list(as_dict(get(data, "features")))
    opt_in = {f for f in as_list(get(data, "opt_in_features")) if isinstance(f, str)}
    if hardware is not None:
        hw_opt = as_dict(get(data, "hardware_opt_in_features")).get(hardware)
        opt_in |= {f for f in as_list(hw_opt) if isinstance(f, str)}
    forced = set(as_dict(get(data, "variants", variant or "", "default_modes")))
    on = [f for f in features if f in forced or f not in opt_in]
    off = [f for f in features if f not in on]
    return on, off


class FactBuilder:
    """Collects facts about one recipe.

    Args:
        cite: citations into the recipe.
        taxonomy: citations into ``taxonomy.yaml`` of the *same* revision, or ``None``
            when that taxonomy is unavailable (taxonomy facts are then left out).
        version_sources: ``variant -> [(pointer, raw value)]`` of the minimum versions that
            apply to it, highest first (from :mod:`validator.analysis.versions`).
    """

    def __init__(self, cite: Citer, taxonomy: Citer | None,
                 version_sources: dict[str, list[tuple[str, str]]]) -> None:
        self.cite = cite
        self.taxonomy = taxonomy
        self.version_sources = version_sources
        self.data = cite.doc.data
        self.out = FactSet()
        self.multi_node = multi_node_statements(self.data)

    # -- helpers ---------------------------------------------------------------------------
    def citation(self, pointer: str, value: Any = None, *, citer: Citer | None = None,
                 key_only: bool = False) -> Citation | None:
        """A :class:`Citation` of ``pointer`` (its value unless ``value`` is given)."""
        c = citer or self.cite
        if key_only:
            line = c.index.key_line(pointer)
            url = c.url(line) if line else None
        else:
            url = c.at(pointer)
        if url is None:
            return None
        return Citation(url=url, pointer=pointer,
                        value=c.index.value(pointer) if value is None else value,
                        source_document_sha256=c.sha256)

    def declared(self, name: str, pointer: str, *,
                 classification: Classification = "recipe_declaration") -> Fact | None:
        """A fact for the value at ``pointer`` (skipped when absent, null or empty, or a
        number JSON cannot hold: NaN, an infinity, past the largest double -- ``YAML014``
        reports it at its line)."""
        value = self.cite.index.value(pointer)
        url = self.cite.at(pointer)
        if value is None or value == [] or value == {} or url is None \
                or json_number_problem(value) is not None:
            return None
        fact = Fact(name=name, value=value, classification=classification, evidence_url=url,
                    pointer=pointer, source_document_sha256=self.cite.sha256)
        self.out.facts.append(fact)
        return fact

    def derived(self, name: str, value: Any, primary: Citation,
                inputs: Sequence[Citation | None], derivation: str) -> Fact:
        """A ``derived`` fact whose main evidence is ``primary``."""
        fact = Fact(name=name, value=value, classification="derived",
                    evidence_url=primary.url, pointer=primary.pointer,
                    source_document_sha256=primary.source_document_sha256,
                    derivation=derivation,
                    derived_from=[c for c in inputs if c is not None])
        self.out.facts.append(fact)
        return fact

    # -- the facts -------------------------------------------------------------------------
    def build(self) -> FactSet:
        """Every fact, in a stable order: model, recipe-wide, hardware, variants."""
        d = self.declared
        for name, ptr in (("Recipe title", "/meta/title"), ("Provider", "/meta/provider"),
                          ("Recipe description", "/meta/description"),
                          ("Model id", "/model/model_id"),
                          ("Architecture", "/model/architecture"),
                          ("Total parameters (as declared)", "/model/parameter_count"),
                          ("Active parameters (as declared)", "/model/active_parameters"),
                          ("Native context length (tokens)", "/model/context_length"),
                          ("Model-wide minimum vLLM version", "/model/min_vllm_version"),
                          ("Nightly vLLM required", "/model/nightly_required"),
                          ("Shared base arguments (one layer of the launch)",
                           "/model/base_args"),
                          ("Recipe added on", "/meta/date_added"),
                          ("Recipe updated on", "/meta/date_updated"),
                          ("Declared compatible strategies", "/compatible_strategies"),
                          ("Opt-in features", "/opt_in_features")):
            d(name, ptr)
        image = get(self.data, "model", "docker_image")
        if isinstance(image, str):
            d("Docker image", "/model/docker_image")
        for brand, _, ptr in _items(image, "/model/docker_image"):
            d(f"Docker image ({brand})", ptr)
        features = as_dict(get(self.data, "features"))
        if features:
            url = self.cite.at("/features")
            assert url is not None
            self.out.facts.append(Fact(
                name="Declared features", value=list(features), classification=
                "recipe_declaration", evidence_url=url, pointer="/features",
                source_document_sha256=self.cite.sha256))
        for hw, status, ptr in _items(get(self.data, "meta", "hardware"), "/meta/hardware"):
            d(f"Hardware status: {hw}", ptr, classification=_status_class(status))
        for opt, status, ptr in _items(get(self.data, "kv_offload_support"),
                                       "/kv_offload_support"):
            d(f"KV offload support: {opt}", ptr, classification=_status_class(status))
        for hw, _, ptr in _items(get(self.data, "hardware_opt_in_features"),
                                 "/hardware_opt_in_features"):
            d(f"Opt-in features on {hw}", ptr)
        self.settings_layers()
        self.feature_defaults()
        for variant in as_dict(get(self.data, "variants")):
            self.variant(variant)
        return self.out

    def settings_layers(self) -> None:
        """Arguments and environment each layer adds: features (and their modes),
        hardware overrides, strategy gates."""
        d = self.declared
        d("Shared base environment", "/model/base_env")
        for name, feature, ptr in _items(get(self.data, "features"), "/features"):
            d(f"Feature {name}: arguments", ptr + "/args")
            if isinstance(feature, dict):
                d(f"Feature {name}: default mode", ptr + "/default_mode")
            for mode, _, mptr in _items(get(feature, "modes"), ptr + "/modes"):
                d(f"Feature {name}, mode {mode}: arguments", mptr + "/args")
                d(f"Feature {name}, mode {mode}: variants", mptr + "/variants")
        for hw, _, ptr in _items(get(self.data, "hardware_overrides"), "/hardware_overrides"):
            d(f"Hardware override {hw}: extra arguments", ptr + "/extra_args")
            d(f"Hardware override {hw}: extra environment", ptr + "/extra_env")
        for strategy, _, ptr in _items(get(self.data, "strategy_hardware"),
                                       "/strategy_hardware"):
            d(f"Strategy {strategy}: hardware gates", ptr)

    def feature_defaults(self) -> None:
        """Features on by default vs left opt-in, for the default variant."""
        self.out.default_variant = default_variant_name(self.data)
        on, off = default_features(self.data, self.out.default_variant)
        self.out.default_features, self.out.default_opt_in = on, off
        feats = self.citation("/features", list(as_dict(get(self.data, "features"))))
        if feats is None:
            return
        inputs = [self.citation("/opt_in_features")]
        if self.out.default_variant:
            inputs.append(self.citation(
                f"/variants/{_esc(self.out.default_variant)}/default_modes"))
        self.derived("Features on by default", on, feats, inputs, RULE_DEFAULT_FEATURES)
        if off:
            opt = self.citation("/opt_in_features")
            if opt is not None:
                self.derived("Features off by default (opt-in)", off, opt, [feats],
                             RULE_DEFAULT_FEATURES)

    def variant(self, name: str) -> None:
        """Declarations and derivations of ``variants.<name>``."""
        base = join_pointer("/variants", name)
        vf = VariantFacts(name)
        self.out.variants[name] = vf
        d = self.declared
        label = f"Variant {name}"
        declared_id = get(self.data, "variants", name, "model_id")
        if isinstance(declared_id, str):
            d(f"{label}: model id", base + "/model_id")
            vf.model_id = declared_id
        else:
            model_id = get(self.data, "model", "model_id")
            primary = self.citation("/model/model_id")
            if isinstance(model_id, str) and primary is not None:
                self.derived(f"{label}: model id", model_id, primary,
                             [self.citation(base, name, key_only=True)], RULE_INHERITED_MODEL)
                vf.model_id, vf.model_id_inherited = model_id, True
        d(f"{label}: precision", base + "/precision")
        d(f"{label}: planning minimum (GB, as declared)", base + "/vram_minimum_gb")
        d(f"{label}: hardware allowlist", base + "/supported_hardware")
        d(f"{label}: minimum vLLM version", base + "/min_vllm_version")
        d(f"{label}: extra arguments", base + "/extra_args")
        d(f"{label}: tensor parallel size", base + "/tp")
        d(f"{label}: default modes", base + "/default_modes")
        for hw, _, ptr in _items(get(self.data, "variants", name, "hardware_overrides"),
                                 base + "/hardware_overrides"):
            d(f"{label} on {hw}: extra arguments", ptr + "/extra_args")
            d(f"{label} on {hw}: extra environment", ptr + "/extra_env")
            d(f"{label} on {hw}: docker image", ptr + "/docker_image")
        self.min_version(name, vf)
        if as_dict(get(self.data, "variants", name, "default_modes")):
            on, _off = default_features(self.data, name)
            feats = self.citation("/features", list(as_dict(get(self.data, "features"))))
            if feats is not None:
                self.derived(f"{label}: features on by default", on, feats,
                             [self.citation("/opt_in_features"),
                              self.citation(base + "/default_modes")], RULE_DEFAULT_FEATURES)
        vf.on_by_default, vf.opt_in = default_features(self.data, name)
        self.multi_node_text(name, vf)
        self.hardware_fit(name, vf)

    def multi_node_text(self, name: str, vf: VariantFacts) -> None:
        """Statements of the description or guide that variant ``name`` needs multi-node
        (:func:`validator.rules.hw.multi_node_text.multi_node_statements`), quoted and cited."""
        for st in self.multi_node:
            if st.variant != name:
                continue
            if st.block_index is None:
                url = self.cite.at(st.pointer)
            elif "/guide" in self.cite.doc.source_map.blocks:
                url = self.cite.url(self.cite.doc.source_map.block_line("/guide",
                                                                        st.block_index)[0])
            else:  # a quoted or folded guide: lines do not map one to one
                url = None
            where = "description" if st.block_index is None else "guide"
            name_of = f"Variant {name}: needs multi-node (as the {where} says)"
            if url is None or any(f.name == name_of for f in vf.multi_node_stated):
                continue  # one quote per place: the first statement of the guide
            fact = Fact(name=name_of, value=st.phrase, classification="recipe_declaration",
                        evidence_url=url, pointer=st.pointer,
                        source_document_sha256=self.cite.sha256)
            self.out.facts.append(fact)
            vf.multi_node_stated.append(fact)

    def min_version(self, name: str, vf: VariantFacts) -> None:
        """The derived effective minimum vLLM of variant ``name``."""
        sources = self.version_sources.get(name, [])
        cites = [self.citation(ptr) for ptr, _ in sources]
        cites_ok = [c for c in cites if c is not None]
        if not cites_ok:
            return
        vf.min_version = sources[0][1]
        self.derived(f"Variant {name}: effective minimum vLLM version", sources[0][1],
                     cites_ok[0], cites_ok[1:], RULE_MIN_VERSION)

    def hardware_fit(self, name: str, vf: VariantFacts) -> None:
        """Compatible and single-node hardware from the taxonomy of the same revision."""
        if self.taxonomy is None:
            return
        tax = self.taxonomy
        profiles = as_dict(get(tax.doc.data, "hardware_profiles"))
        variant = as_dict(get(self.data, "variants", name))
        compatible = picker_hardware_if_shown(profiles, variant, self.data) or []
        vf.compatible_hardware = compatible
        base = join_pointer("/variants", name)
        primary = (self.citation(base + "/precision") or
                   self.citation(base, name, key_only=True))
        if primary is None:
            return
        prof_cites = [self.citation(join_pointer("/hardware_profiles", hw), hw, citer=tax,
                                    key_only=True) for hw in compatible]
        prof_cites += [self.citation(join_pointer("/meta/hardware", hw), hw, key_only=True)
                       for hw in compatible
                       if as_dict(profiles.get(hw)).get("restricted") is True]
        inputs: list[Citation | None] = [self.citation(base + "/supported_hardware")]
        self.derived(f"Variant {name}: compatible hardware", compatible, primary,
                     inputs + prof_cites, RULE_COMPATIBLE)
        need = variant.get("vram_minimum_gb")
        if not isinstance(need, int | float) or isinstance(need, bool) \
                or json_number_problem(need) is not None or need <= 0:
            return
        fits: list[str] = []
        fit_cites: list[Citation | None] = []
        for hw in compatible:
            vram = as_dict(profiles[hw]).get("vram_gb")
            if isinstance(vram, int | float) and not isinstance(vram, bool) and vram >= need:
                fits.append(hw)
                ptr = join_pointer("/hardware_profiles", hw)
                fit_cites.append(self.citation(ptr, hw, citer=tax, key_only=True))
                fit_cites.append(self.citation(ptr + "/vram_gb", citer=tax))
        vf.single_node_hardware = fits
        need_cite = self.citation(base + "/vram_minimum_gb")
        if need_cite is not None:
            self.derived(f"Variant {name}: hardware whose single node holds the planning "
                         "minimum", fits, need_cite, fit_cites, RULE_SINGLE_NODE)


def _status_class(status: Any) -> Classification:
    return "maintainer_verified" if status == "verified" else "recipe_declaration"


def _esc(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _items(data: Any, pointer: str) -> list[tuple[str, Any, str]]:
    return [(k, v, join_pointer(pointer, k)) for k, v in as_dict(data).items()]
