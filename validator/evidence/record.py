"""Assemble one evidence record for one ``(repository, commit, path)``.

Pipeline: read the bytes and their provenance from a pinned
:class:`~validator.source.tree.RecipeTree` -> load (data + source map) -> build the context
of the same revision -> run the full checker -> facts, reported figures, editorial ->
:class:`~validator.evidence.model.Record`, validated against
``schemas/record.schema.json`` by :func:`record_bytes`.

Determinism: the record depends only on the bytes of the tree, the checked-on date and
the tool's own data (rules, CLI registry, release list); lists are in document order or
sorted, and :func:`record_bytes` serialises with sorted keys. No clock is read.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from validator import __version__
from validator.analysis.recipe_data import as_dict, as_list, get
from validator.context import Context, Settings, build_context
from validator.errors import RecipeCheckError
from validator.evidence.cite import Citer, blob_url
from validator.evidence.data_inputs import data_inputs
from validator.evidence.editorial import EditorialInput, build_editorial
from validator.evidence.facts import FactBuilder, FactSet
from validator.evidence.model import (
    ContextFile,
    DeploymentOption,
    HardwareClaim,
    License,
    ModelArtifact,
    RecipeParameters,
    Record,
    RecordFinding,
    Source,
    ToolInfo,
    Validation,
    canonical_json,
    record_json,
)
from validator.evidence.rendered_defaults import rendered_defaults
from validator.evidence.reported import reported_results
from validator.findings import Finding, count_by_severity
from validator.load import LoadedDocument, load_yaml
from validator.load.scalars import json_number_problem
from validator.render.api_inputs import site_refusal
from validator.rules.metadata import READS_EVERYTHING, RELEASE_DATA, Reads
from validator.source.provenance import Provenance
from validator.source.snapshots import LICENSE_FILES
from validator.source.tree import RecipeTree, SourceError

TAXONOMY = "taxonomy.yaml"
_SPDX_HINTS = (("Apache License", "Version 2.0", "Apache-2.0"), ("MIT License", "", "MIT"))


class RecordError(RecipeCheckError):
    """No record can be made (unpinned source, unreadable or unparseable document). The
    message names the file (and line, for YAML errors)."""


@dataclass(frozen=True)
class ContextStatus:
    """Whether the context files are of the document's own revision."""

    taxonomy: bool
    strategies: bool
    other_taxonomy_revisions: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """Both taxonomy and strategies are available at the same revision."""
        return self.taxonomy and self.strategies

    def missing(self) -> frozenset[Reads]:
        """The parts of the revision a rule cannot rely on: none with complete context;
        without it every part read from the tree (the taxonomy, strategies, kv-store
        options, recipe list, other files: a tree without its context files may well hold
        only some of the recipes), the release data (the tool's own) excepted."""
        return frozenset() if self.complete else READS_EVERYTHING - RELEASE_DATA


def _check(tree: RecipeTree, ctx: Context, path: str, data: bytes, prov: Provenance,
           status: ContextStatus) -> tuple[list[Finding], int, list[str]]:
    """Findings of the full checker on the document: ``(findings, rules run, skipped)``,
    through the run driver (:class:`~validator.session.Session`).

    With complete context every rule runs. Without it (no taxonomy or strategies at this
    revision), a rule that declares it reads a part of the revision besides the recipe
    (``@rule(..., reads=...)``, see :class:`~validator.rules.metadata.Reads`;
    :meth:`ContextStatus.missing`) is reported as skipped, since its findings would
    describe the missing files rather than the document; the others run on a context
    whose missing parts are unreadable (:meth:`~validator.context.Context.limited_to`),
    so a rule that reads one undeclared is an internal error, not a silent verdict. The
    record is pinned to the full commit, so the pinning finding (``PROV004``: "pin the
    full commit") does not apply to it.

    Raises:
        RecordError: a rule crashed (a bug in recipe-check).
    """
    from validator.rule_index import check_rules
    from validator.session import Session

    rules = check_rules()
    missing = status.missing()
    kept = [r for r in rules if not r.reads & missing]
    skipped = sorted(r.id for r in rules if r.reads & missing)
    session = Session(ctx.settings, kept)
    limited = ctx if not missing else ctx.limited_to(READS_EVERYTHING - missing)
    opened = session.open(tree, limited)
    assert opened is not None  # the context is given: nothing to verify
    doc_result = session.check_bytes(opened, path, data,
                                     dataclasses.replace(prov, resolved_from=None))
    if session.result.internal_errors:
        raise RecordError("; ".join(session.result.internal_errors))
    return doc_result.findings, len(kept), skipped


def _license(tree: RecipeTree, repository: str, commit: str) -> License:
    scope = ("The repository license covers the recipe document only; model weights and "
             "converted checkpoints carry their own terms.")
    for name in LICENSE_FILES:
        if not tree.exists(name):
            continue
        try:
            text = tree.read(name).decode("utf-8", "replace")
        except (OSError, SourceError):
            continue
        head = text.splitlines()[:20]
        for first, second, spdx in _SPDX_HINTS:
            idx = next((i for i, ln in enumerate(head) if first in ln), None)
            if idx is not None and (not second or any(second in ln for ln in head)):
                return License(declared_spdx=spdx, scope=scope,
                               evidence_url=blob_url(repository, commit, name, idx + 1))
    return License(declared_spdx=None, evidence_url=None,
                   scope="Not determined: no license file was available at this revision "
                         "in the source read. " + scope)


def _finding(f: Finding, cite: Citer) -> RecordFinding:
    return RecordFinding(rule=f.rule, severity=f.severity.value, pointer=f.pointer,
                         line=f.line, column=f.column, message=f.message, hint=f.hint,
                         evidence_url=cite.url(f.line) if f.line > 0 else None)


def _str_list(value: Any) -> list[str]:
    return [str(v) for v in as_list(value)]


def build_record(tree: RecipeTree, path: str, *, checked_on: str,
                 settings: Settings | None = None, context: Context | None = None) -> Record:
    """The record of ``path`` in ``tree`` (a pinned revision).

    Args:
        tree: a tree with a full commit (git, snapshot, manifest).
        path: repository-relative recipe path.
        checked_on: ``YYYY-MM-DD``, the only date the record carries besides the source's.
        settings: checker settings (offline, strict...).
        context: the context of ``tree`` built with ``settings``
            (:func:`~validator.context.build_context`), when the caller already has it:
            every record of one revision may share one, as one ``check`` run does.

    Raises:
        RecordError: unpinned tree, missing file, or a document that is not a YAML mapping.
    """
    settings = settings or Settings(offline=True)
    data, prov, doc = _read(tree, path, settings)
    repo, commit = prov.repository or "", prov.commit or ""
    cite = Citer(repo, commit, doc, prov.sha256)
    status = _context_status(tree)
    ctx = context if context is not None else build_context(tree, settings)
    tax_cite, tax_sha = _taxonomy_citer(tree, ctx, status, repo, commit)

    findings, rules_run, skipped = _check(tree, ctx, path, data, prov, status)
    rec_findings = [_finding(f, cite) for f in findings]
    facts = FactBuilder(cite, tax_cite, _version_sources(doc, ctx)).build()
    refusal = site_refusal(doc)  # the site renders nothing of a file js-yaml refuses
    rendered = rendered_defaults(doc, ctx) if tax_cite and status.strategies and not refusal \
        else None
    context_note = _context_note(status, commit)
    dv = facts.default_variant
    dvf = facts.variants.get(dv) if dv else None
    options = _deployment_options(doc, facts)
    params = _parameters(doc, facts)
    model, meta = as_dict(get(doc.data, "model")), as_dict(get(doc.data, "meta"))
    validation = Validation(
        tool=ToolInfo(name="recipe-check", version=__version__), rules_run=rules_run,
        rules_skipped=skipped, context=_context_files(status, commit, tax_sha),
        inputs=data_inputs(dvf.min_version if dvf else None, ctx.settings, ctx.cli.folder),
        findings=rec_findings, summary=count_by_severity(findings))
    editorial = build_editorial(EditorialInput(
        facts=facts.facts, derived=facts, findings=rec_findings, commit=commit, path=path,
        sha256=prov.sha256, git_blob=prov.git_blob, checked_on=checked_on,
        context_note=context_note, rules_run=rules_run, rules_skipped=skipped,
        variant_key_urls=_key_urls(cite, doc), rendered=rendered))
    title = meta.get("title") if isinstance(meta.get("title"), str) else path
    return Record(
        id=f"{repo}@{commit}:{path}", title=f"{title}: vLLM recipe at {commit[:12]}",
        summary=_opt_str(meta.get("description")),
        model_label=_opt_str(meta.get("title")), model_provider=_opt_str(meta.get("provider")),
        model_id=_opt_str(model.get("model_id")),
        model_artifact=_artifact(doc, dv, dvf.model_id if dvf else None, options),
        hardware_topics=_topics(ctx, meta) if tax_cite is not None else None,
        deployment_options=options, recipe_parameters=params,
        source=_source(prov, cite, path, checked_on),
        license=_license(tree, repo, commit), notes=_notes(params, facts),
        limitations=_limitations(params, prov, context_note, _site_note(path, refusal)),
        facts=facts.facts, reported_results=reported_results(cite),
        rendered_defaults=rendered, editorial=editorial, validation=validation)


def _taxonomy_citer(tree: RecipeTree, ctx: Context, status: ContextStatus, repo: str,
                    commit: str) -> tuple[Citer | None, str | None]:
    """The citer of the taxonomy the record's facts read, and its SHA-256 (``None``,
    ``None`` when the revision has no usable taxonomy)."""
    if not (status.taxonomy and ctx.taxonomy is not None and ctx.taxonomy.ok):
        return None, None
    sha = Provenance.of_bytes(TAXONOMY, tree.read(TAXONOMY)).sha256
    return Citer(repo, commit, ctx.taxonomy, sha), sha


def _artifact(doc: LoadedDocument, variant: str | None, model_id: str | None,
              options: list[DeploymentOption]) -> ModelArtifact:
    """The model artifact of the default ``variant``: its model id and precision."""
    precision = (options[0].precision if options and variant == options[0].variant
                 else _opt_str(get(doc.data, "variants", variant or "", "precision")))
    return ModelArtifact(id=model_id, revision=None, format=precision)


def _read(tree: RecipeTree, path: str, settings: Settings
          ) -> tuple[bytes, Provenance, LoadedDocument]:
    """The bytes, provenance and loaded document of ``path``.

    Raises:
        RecordError: missing file, unpinned tree, or a document that is not a mapping.
    """
    try:
        data = tree.read(path)
    except FileNotFoundError as exc:
        raise RecordError(f"{path}: not found in {tree.label}") from exc
    prov = tree.provenance(path, data)
    if prov.repository is None or prov.commit is None:
        raise RecordError(f"{path}: records need a pinned repository and commit "
                          f"(use OWNER/REPO@COMMIT:PATH); {tree.label} has none")
    doc = load_yaml(data, path, max_bytes=settings.max_bytes)
    if not doc.ok:
        first = doc.findings[0] if doc.findings else None
        where = f"{path}:{first.line}" if first else path
        raise RecordError(f"{where}: cannot make a record: "
                          f"{first.message if first else 'not a YAML mapping'}")
    return data, prov, doc


def _context_status(tree: RecipeTree) -> ContextStatus:
    other: tuple[str, ...] = ()
    others = getattr(tree, "other_revisions", None)
    if callable(others):
        other = tuple(others(TAXONOMY))
    return ContextStatus(taxonomy=tree.exists(TAXONOMY),
                         strategies=bool(tree.list("strategies")),
                         other_taxonomy_revisions=other)


def _context_note(status: ContextStatus, commit: str) -> str | None:
    """What the record says about missing context files (``None``: none missing)."""
    if status.complete:
        return None
    parts = []
    if not status.taxonomy:
        parts.append("taxonomy.yaml")
    if not status.strategies:
        parts.append("strategies/")
    note = (f"The context files ({' and '.join(parts)}) of commit {commit[:12]} "
            "were not available, so compatible-hardware and single-node facts "
            "are left out and rules that read them were not run")
    other = status.other_taxonomy_revisions
    if other:
        note += (f"; a taxonomy exists only at other commits "
                 f"({', '.join(c[:12] for c in other)}) and was not used")
    return note + "."


def _context_files(status: ContextStatus, commit: str, tax_sha: str | None
                   ) -> list[ContextFile]:
    other = status.other_taxonomy_revisions
    return [
        ContextFile(name=TAXONOMY, status="same_revision", revision=commit, sha256=tax_sha)
        if tax_sha is not None else
        ContextFile(name=TAXONOMY, status="unavailable", revision=None,
                    note=(f"taxonomy.yaml exists only at other commits "
                          f"({', '.join(other)}); not used") if other else
                    "no taxonomy.yaml at this revision"),
        ContextFile(name="strategies/", status="same_revision" if status.strategies
                    else "unavailable", revision=commit if status.strategies else None,
                    note=None if status.strategies else "no strategies at this revision"),
    ]


def _deployment_options(doc: LoadedDocument, facts: FactSet) -> list[DeploymentOption]:
    options = []
    for name, vf in facts.variants.items():
        v = as_dict(get(doc.data, "variants", name))
        gb = v.get("vram_minimum_gb")
        options.append(DeploymentOption(
            variant=name, model_id=vf.model_id, model_id_inherited=vf.model_id_inherited,
            precision=v.get("precision") if isinstance(v.get("precision"), str) else None,
            description=v.get("description") if isinstance(v.get("description"), str)
            else None,
            supported_hardware=_str_list(v["supported_hardware"])
            if isinstance(v.get("supported_hardware"), list) else None,
            model_revision=None,
            declared_planning_minimum_gb=float(gb) if isinstance(gb, int | float)
            and json_number_problem(gb) is None else None,
            minimum_runtime_version=vf.min_version,
            extra_args=_str_list(v.get("extra_args")),
            tensor_parallel_by_hardware=v.get("tp"),
            features_on_by_default=vf.on_by_default, features_opt_in=vf.opt_in,
            compatible_hardware=vf.compatible_hardware,
            single_node_hardware=vf.single_node_hardware))
    return options


def _parameters(doc: LoadedDocument, facts: FactSet) -> RecipeParameters:
    d = doc.data
    dv = facts.default_variant
    dvf = facts.variants.get(dv) if dv else None
    model = as_dict(get(d, "model"))
    meta = as_dict(get(d, "meta"))
    image = model.get("docker_image")
    images = ({"default": image} if isinstance(image, str) else
              {k: str(v) for k, v in as_dict(image).items() if isinstance(v, str)})
    ctx_len = model.get("context_length")
    return RecipeParameters(
        minimum_runtime_version=_opt_str(model.get("min_vllm_version")),
        effective_default_minimum_runtime_version=dvf.min_version if dvf else None,
        nightly_required=model.get("nightly_required") is True,
        model_context_limit_tokens=ctx_len if isinstance(ctx_len, int)
        and not isinstance(ctx_len, bool) else None,
        architecture=_opt_str(model.get("architecture")),
        parameter_count=_opt_str(model.get("parameter_count")),
        active_parameters=_opt_str(model.get("active_parameters")),
        base_args=_str_list(model.get("base_args")), docker_images=images,
        compatible_strategies=_str_list(get(d, "compatible_strategies")),
        features=list(as_dict(get(d, "features"))),
        opt_in_features=_str_list(get(d, "opt_in_features")),
        default_variant=dv,
        hardware_claims=[HardwareClaim(profile=k, maintainer_status=str(v))
                         for k, v in as_dict(meta.get("hardware")).items()],
        kv_offload_support={k: str(v) for k, v in as_dict(get(d, "kv_offload_support")).items()},
        recipe_added_on=_opt_str(meta.get("date_added")),
        recipe_updated_on=_opt_str(meta.get("date_updated")),
        tasks=_tasks(meta.get("tasks")),
    )


def _topics(ctx: Context, meta: dict[str, Any]) -> list[str]:
    """Brands of the hardware the recipe claims (not ``unsupported``), from the taxonomy."""
    profiles = ctx.hardware_profiles
    return sorted({str(profiles[h].get("brand")).lower()
                   for h, st in as_dict(meta.get("hardware")).items()
                   if st != "unsupported" and h in profiles and profiles[h].get("brand")})


def _source(prov: Provenance, cite: Citer, path: str, checked_on: str) -> Source:
    repo, commit = prov.repository or "", prov.commit or ""
    return Source(
        publisher=repo.split("/")[0], url=f"https://github.com/{repo}", repository=repo,
        revision=commit, resolved_from=prov.resolved_from, document_path=path,
        pinned_url=cite.pinned_url(), document_sha256=prov.sha256, git_blob=prov.git_blob,
        last_commit=prov.last_commit, last_commit_at=prov.last_commit_date,
        checked_on=checked_on)


def _notes(params: RecipeParameters, facts: FactSet) -> list[str]:
    dv = facts.default_variant
    dvf = facts.variants.get(dv) if dv else None
    return [
        f"Model-wide minimum vLLM version: {params.minimum_runtime_version or 'not stated'}; "
        f"effective for the default variant: "
        f"{params.effective_default_minimum_runtime_version or 'not stated'}.",
        f"Default artifact: {dvf.model_id if dvf else 'none'} (variant {dv}).",
        f"Features on by default: {', '.join(facts.default_features) or 'none'}; opt-in: "
        f"{', '.join(facts.default_opt_in) or 'none'}.",
        "Variant, hardware and feature settings are the recipe's declarations; combine the "
        "layers for one selection before using them as a launch command.",
    ]


RENDERED_LIMITATION = ("Rendered commands are recipe-check's reproduction of the site's "
                       "command synthesis for the default configuration of each hardware "
                       "profile; none was run.")
"""The record's limitation about its commands (a catalogue page that renders every
configuration says so instead)."""


def _site_note(path: str, refusal: tuple[str, int | None] | None) -> str | None:
    """What the record says when the recipes site cannot load the file (js-yaml refuses
    it, :func:`~validator.render.api_inputs.site_refusal`): its facts are read as
    recipe-check's loader reads the file, and it has no rendered commands."""
    if refusal is None:
        return None
    message, line = refusal
    where = f"{path}:{line}" if line else path
    return (f"The recipes site cannot load this file ({where}: {message}); its facts are "
            "this reading of the file, which no site page shows, and no command is "
            "rendered for it.")


GITHUB_HOSTS = frozenset({"github.com", "raw.githubusercontent.com", "api.github.com",
                          "codeload.github.com"})
"""Hosts whose bytes are GitHub's own: a record of bytes fetched elsewhere says so."""


def _mirror_note(fetched_from: str | None) -> str | None:
    """The record's limitation when its bytes came from a mirror or a local copy rather
    than GitHub (``RECIPE_CHECK_GIT_URL``, ``--git-url``, a manifest folder): its commit
    and GitHub links are that copy's word. A local path is not named (it is the
    publisher's machine); another host is."""
    if fetched_from is None:
        return None
    url = urlsplit(fetched_from)
    host = (url.hostname or "").lower() if url.scheme in ("http", "https") else ""
    if url.scheme == "https" and host in GITHUB_HOSTS:
        return None
    where = f"the host {host}" if host else "a local copy"
    return (f"The bytes were read from {where}, not from GitHub: the commit and the GitHub "
            "links of this record are as that copy states them and may not exist on "
            "GitHub. The SHA-256 and git blob id identify the bytes wherever they are.")


def _limitations(params: RecipeParameters, prov: Provenance, context_note: str | None,
                 site_note: str | None = None) -> list[str]:
    images = params.docker_images
    out = [
        "No model was run for this record; reported_results are the guide's own figures.",
        "The recipe does not pin a weights revision"
        + ("." if any("@sha256:" in i for i in images.values())
           else " or a container image digest."),
        "Planning minimums are declared weights budgets, not measured peak memory.",
        RENDERED_LIMITATION,
    ]
    out += [note for note in (site_note, context_note, _mirror_note(prov.fetched_from))
            if note]
    return out


def _key_urls(cite: Citer, doc: LoadedDocument) -> dict[str, str]:
    """Line URL of each ``variants.<name>:`` key."""
    out = {}
    for name in as_dict(get(doc.data, "variants")):
        line = cite.index.key_line("/variants/" + name.replace("~", "~0").replace("/", "~1"))
        if line:
            out[name] = cite.url(line)
    return out


def _tasks(value: Any) -> list[str]:
    """``meta.tasks`` as names: a string, a list, or the keys of a mapping."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [str(k) for k in value]
    return [str(v) for v in as_list(value) if isinstance(v, str | int | float)]


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _version_sources(doc: LoadedDocument, ctx: Context) -> dict[str, list[tuple[str, str]]]:
    """Per variant, ``(pointer, raw)`` of its minimum versions, the effective one first
    (:func:`validator.analysis.versions.version_sources`; only those in the recipe itself)."""
    from validator.analysis.versions import version_key, version_sources

    out: dict[str, list[tuple[str, str]]] = {}
    for variant in as_dict(get(doc.data, "variants")):
        found = [s for s in version_sources(doc, ctx, variant) if s.path == doc.path]
        found.sort(key=lambda s: version_key(s.value), reverse=True)
        out[variant] = [(s.pointer, s.raw) for s in found]
    return out


def record_bytes(record: Record) -> bytes:
    """Canonical bytes of a record (sorted keys, 2-space indent, UTF-8, final newline),
    after validating it against ``schemas/record.schema.json``.

    Raises:
        RecordInvalid: the record does not match the schema.
    """
    return canonical_json(record_json(record))
