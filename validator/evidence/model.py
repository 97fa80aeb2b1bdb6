"""The record model: one evidence-classified reference record per ``(repository, commit,
path)``.

``schemas/record.schema.json`` is generated from :class:`Record` (``model_json_schema()``
plus the 2020-12 ``$schema``; ``recipe-check record --print-schema >
schemas/record.schema.json`` rewrites it, and a test fails when the file is stale) and
every record is validated against that file with :mod:`jsonschema` before it is written
(:func:`validate_record`).

Field meanings follow the curated catalogue records this project replaces (identity,
artifact, runtime, hardware topics, deployment options per variant, recipe parameters,
source, license scope, notes and limitations, editorial), plus ``facts`` (each with an
evidence class and a line-anchored ``evidence_url``), ``reported_results`` (figures the
guide reports; never measurements of ours) and ``validation`` (what checked it, with what
data, and what it found).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Literal

from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from validator.load.scalars import json_number_problem
from validator.paths import SCHEMAS_DIR

SCHEMA_PATH = SCHEMAS_DIR / "record.schema.json"
SCHEMA_ID = "https://github.com/recipe-check/recipe-check/schemas/record.schema.json"
RECORD_FORMAT = "recipe-check/record/v1"
PREDICATE_TYPE = "https://github.com/recipe-check/recipe-check/attestation/record/v1"
"""in-toto ``predicateType`` of an attested record (see :mod:`validator.evidence.attest`)."""

Classification = Literal["recipe_declaration", "maintainer_verified", "derived",
                         "source_reported"]
"""Evidence classes: what the recipe declares; what a maintainer marked as verified (a
``verified`` hardware or kv-offload status); what this tool computed from declarations
(with the rule it followed); what the guide's prose reports (figures, never measured by
us)."""

EVIDENCE_URL = r"^https://github\.com/[^/]+/[^/]+/blob/[0-9a-f]{40}/.+#L[0-9]+(-L[0-9]+)?$"
SHA256 = r"^[0-9a-f]{64}$"
GIT_ID = r"^[0-9a-f]{40}$"
DATE = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Citation(_Strict):
    """One cited node: ``url`` anchors the line(s); ``value`` is what stands there."""

    url: str = Field(pattern=EVIDENCE_URL)
    pointer: str = Field(description="JSON Pointer of the node in the cited document")
    value: JsonValue = Field(description="the value the cited line(s) state")
    source_document_sha256: str = Field(pattern=SHA256)


class Fact(_Strict):
    """One fact about the recipe.

    ``evidence_url`` is the line (or ``#La-Lb`` range) of the node that states ``value``.
    A ``derived`` fact names the rule it followed in ``derivation`` and cites every input
    in ``derived_from``; its value is found in the union of those lines.
    """

    name: str
    value: JsonValue
    classification: Classification
    evidence_url: str = Field(pattern=EVIDENCE_URL)
    pointer: str
    source_document_sha256: str = Field(pattern=SHA256)
    derivation: str | None = None
    derived_from: list[Citation] = Field(default_factory=list)


class ReportedSetup(_Strict):
    """Conditions of a reported figure, as structured values read from the sentence, its
    paragraph, the command block above it, or an earlier statement the text points back
    to ("the same image and settings"); ``inherited_from`` cites the lines a value was
    taken from when it is not on the figure's own line."""

    hardware: list[str] = Field(default_factory=list,
                                description="hardware as written (\"8x MI325X\")")
    image: str | None = Field(default=None, description="container image named")
    draft_tokens: int | None = Field(default=None,
                                     description="speculative tokens drafted per step")
    max_model_len: int | None = None
    input_tokens: int | None = Field(default=None, description="prompt length of the run")
    output_tokens: int | None = Field(default=None, description="output length of the run")
    generated_tokens: int | None = Field(default=None,
                                         description="length of the generation measured")
    inherited_from: list[str] = Field(default_factory=list,
                                      description="line URLs the values were carried from")


class ReportedResult(_Strict):
    """A figure the source document reports. Never a measurement of this tool or its
    publisher: ``measured_by_publisher`` is always false."""

    metric: Literal["kv_cache_tokens", "max_concurrency", "acceptance_length",
                    "acceptance_rate", "throughput", "latency", "accuracy"]
    label: str = Field(description="what the figure is of, in the source's own words")
    quoted: str = Field(description="the figure exactly as written in the source")
    value: int | float
    bound: Literal["=", ">=", "<=", "~"] = Field(
        default="=", description="how the value bounds the figure: '70+' is >= 70, "
        "'up to 70' is <= 70, '~70' is about 70")
    unit: str
    conditions: dict[str, str] = Field(
        description="conditions stated nearby: heading, command, hardware, table row")
    setup: ReportedSetup = Field(default_factory=ReportedSetup)
    classification: Literal["source_reported"] = "source_reported"
    evidence_url: str = Field(pattern=EVIDENCE_URL)
    source_document_sha256: str = Field(pattern=SHA256)
    measured_by_publisher: Literal[False] = False


class Paragraph(_Strict):
    """One generated paragraph and what it rests on: every value the text names is on a
    cited line (``citations``: recipe or taxonomy lines of the pinned commit) or in the
    record itself (``record_refs``: JSON Pointers into this record, for statements about
    the check, the digests or the rendered commands); every citation and reference holds
    at least one of those values. A paragraph has at least one of either."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra={
        "anyOf": [{"properties": {"citations": {"minItems": 1}}},
                  {"properties": {"record_refs": {"minItems": 1}}}]})

    text: str
    citations: list[str] = Field(description="line URLs (recipe or taxonomy at the commit)")
    record_refs: list[str] = Field(
        default_factory=list, description="JSON Pointers into this record")


class Section(_Strict):
    """One editorial section generated from a template."""

    heading: str
    paragraphs: list[Paragraph]


class Editorial(_Strict):
    """Template-generated text. ``creation_method`` says how it was made: from the source
    document, without running the model."""

    byline: str
    creation_method: str
    generated_on: str = Field(pattern=DATE)
    answer: Paragraph
    sections: list[Section]


class ModelArtifact(_Strict):
    """The checkpoint the default variant serves."""

    id: str | None
    revision: str | None = Field(description="weights revision; recipes do not pin one")
    format: str | None = Field(description="precision label of the default variant")


class DeploymentOption(_Strict):
    """One variant of the recipe."""

    variant: str
    model_id: str | None
    model_id_inherited: bool = Field(description="true when the variant names no model_id "
                                     "and serves model.model_id")
    precision: str | None
    description: str | None
    supported_hardware: list[str] | None = Field(description="variant allowlist; null = none")
    model_revision: str | None
    declared_planning_minimum_gb: float | None
    minimum_runtime_version: str | None = Field(
        description="effective minimum vLLM version for this variant (derived)")
    extra_args: list[str]
    tensor_parallel_by_hardware: JsonValue = None
    features_on_by_default: list[str]
    features_opt_in: list[str]
    compatible_hardware: list[str] | None = Field(
        description="taxonomy profiles the variant may run on (null when the taxonomy of "
                    "this revision is unavailable)")
    single_node_hardware: list[str] | None = Field(
        description="of those, profiles whose one node holds the planning minimum")


class RenderedProcess(_Strict):
    """One process of a rendered configuration (``serve``, ``head``, ``worker 1``,
    ``prefill``, ``decode``...), as a user pastes it."""

    role: str
    command: str
    docker_command: str | None
    env: dict[str, str]


class RenderedDefault(_Strict):
    """The configuration the site's builder lands on for one compatible hardware profile
    (its default variant, recommended strategy, node count and default features), rendered
    by recipe-check's port of the site's command synthesis from the recipe, taxonomy and
    strategies of the same commit. Nothing was run."""

    hardware: str
    site_default: bool = Field(description="the profile the recipe's page opens on")
    variant: str
    strategy: str
    features: list[str]
    node_count: int | None
    deploy_type: str | None
    docker_image: str | None
    command: str | None = Field(description="the vllm serve command (first process)")
    docker_command: str | None
    env: dict[str, str]
    processes: list[RenderedProcess]
    problems: list[str] = Field(description="where the site cannot render it, or renders "
                                "something odd, and why")


class HardwareClaim(_Strict):
    """A ``meta.hardware`` status."""

    profile: str
    maintainer_status: str


class RecipeParameters(_Strict):
    """Model-wide declarations."""

    minimum_runtime_version: str | None
    effective_default_minimum_runtime_version: str | None
    nightly_required: bool
    model_context_limit_tokens: int | None
    architecture: str | None
    parameter_count: str | None
    active_parameters: str | None
    base_args: list[str]
    docker_images: dict[str, str]
    compatible_strategies: list[str]
    features: list[str]
    opt_in_features: list[str]
    default_variant: str | None
    hardware_claims: list[HardwareClaim]
    kv_offload_support: dict[str, str]
    recipe_added_on: str | None
    recipe_updated_on: str | None
    tasks: list[str] = Field(default_factory=list, description="meta.tasks (a string, list "
                             "or mapping in the recipe), as a list of task names")


class Source(_Strict):
    """Where the document came from, pinned."""

    publisher: str
    platform: Literal["github"] = "github"
    url: str
    repository: str
    revision: str = Field(pattern=GIT_ID)
    resolved_from: str | None
    document_path: str
    pinned_url: str
    document_sha256: str = Field(pattern=SHA256)
    git_blob: str = Field(pattern=GIT_ID)
    last_commit: str | None
    last_commit_at: str | None
    checked_on: str = Field(pattern=DATE)


class ContextFile(_Strict):
    """A context file (taxonomy, strategies) and whether it is of the document's revision."""

    name: str
    status: Literal["same_revision", "unavailable"]
    revision: str | None
    sha256: str | None = None
    note: str | None = None


class License(_Strict):
    """What the repository license covers."""

    declared_spdx: str | None
    evidence_url: str | None
    scope: str


class ToolInfo(_Strict):
    """The tool that produced the record."""

    name: str
    version: str


class DataInput(_Strict):
    """A data input of the checker (CLI registry, release list) with its digest."""

    name: str
    status: Literal["used", "unavailable"]
    version: str | None = None
    path: str | None = None
    sha256: str | None = None
    note: str | None = None


class RecordFinding(_Strict):
    """One finding of the full checker on the document."""

    rule: str
    severity: Literal["error", "warning", "info"]
    pointer: str
    line: int
    column: int
    message: str
    hint: str | None
    evidence_url: str | None


class Validation(_Strict):
    """How the document was checked and what the checker found."""

    tool: ToolInfo
    rules_run: int
    rules_skipped: list[str] = Field(description="rules not run because they need context "
                                     "files of this revision that are unavailable")
    context: list[ContextFile]
    inputs: list[DataInput]
    findings: list[RecordFinding]
    summary: dict[str, int]


class Record(_Strict):
    """One evidence-classified reference record."""

    format: Literal["recipe-check/record/v1"] = "recipe-check/record/v1"
    id: str
    title: str
    kind: Literal["deployment"] = "deployment"
    record_type: Literal["curated_reference"] = "curated_reference"
    source_type: Literal["maintainer_recipe"] = "maintainer_recipe"
    runtime: Literal["vLLM"] = "vLLM"
    summary: str | None = Field(description="the recipe's own description (meta.description)")
    model_label: str | None
    model_provider: str | None
    model_id: str | None
    model_artifact: ModelArtifact
    hardware_topics: list[str] | None
    evidence_state: Literal["source_reported"] = "source_reported"
    site_reproduced: Literal[False] = False
    performance_ranking_allowed: Literal[False] = False
    measurement_scope: Literal["deployment_reference"] = "deployment_reference"
    comparison_status: Literal["not_comparable"] = "not_comparable"
    deployment_options: list[DeploymentOption]
    recipe_parameters: RecipeParameters
    source: Source
    license: License
    notes: list[str]
    limitations: list[str]
    facts: list[Fact]
    reported_results: list[ReportedResult]
    rendered_defaults: list[RenderedDefault] | None = Field(
        default=None, description="the default configuration per hardware profile the "
        "site's picker shows (null when the taxonomy or strategies of this commit are "
        "unavailable)")
    editorial: Editorial
    validation: Validation


def record_json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of :class:`Record`, as checked in at
    ``schemas/record.schema.json``."""
    schema = Record.model_json_schema()
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            **schema}


def schema_text() -> str:
    """:func:`record_json_schema` serialised exactly as the checked-in file."""
    return json.dumps(record_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@cache
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return Draft202012Validator(schema)


class RecordInvalid(ValueError):
    """A record does not match ``schemas/record.schema.json`` (a bug in recipe-check)."""


def record_json(record: BaseModel) -> dict[str, Any]:
    """``record`` (a :class:`Record`) as JSON data, validated against the schema, with
    every number JSON cannot hold -- NaN, an infinity, an integer past the largest double,
    each a ``YAML014`` finding at its recipe line in the record's validation -- written
    as ``null``: JSON has no such numbers, and the record's JSON is strict.

    Raises:
        RecordInvalid: the record does not match the schema.
    """
    data: dict[str, Any] = _json_ready(record.model_dump(mode="json"))
    validate_record(data)
    return data


def _json_ready(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_ready(item) for item in value]
    return None if json_number_problem(value) is not None else value


def canonical_json(data: Any) -> bytes:
    """Canonical bytes of a record or statement: sorted keys, 2-space indent, UTF-8, a
    final newline, and strict JSON (``NaN`` or ``Infinity`` is an error, never written).

    Raises:
        ValueError: ``data`` holds a number JSON cannot hold.
    """
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
            + "\n").encode()


def validate_record(data: dict[str, Any]) -> None:
    """Validate a record (plain JSON data) against the checked-in schema file.

    Raises:
        RecordInvalid: the first few violations, each with its JSON path.
    """
    from validator.schema import surely_valid

    if surely_valid(data, "record"):  # compiled check; the general one explains rejections
        return
    errors = sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        detail = "; ".join(f"/{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"
                           for e in errors[:5])
        raise RecordInvalid(f"record does not match {SCHEMA_PATH.name}: {detail}")
