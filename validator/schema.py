"""JSON Schema (2020-12) validation of loaded documents, errors mapped to file lines.

Schemas live in ``schemas/`` at the project root. Violations become ``SCHEMA`` findings at
the offending node (its JSON Pointer is the error's ``absolute_path``); unknown keys
(``additionalProperties: false``) are reported per key as warnings, since the format
evolves, and become errors under ``--strict``.

Each schema is compiled once per process into a fast validator (``jsonschema-rs``) that
only says valid or not; a document it accepts has no ``SCHEMA`` finding. Only a document
it rejects goes through the general validator (``jsonschema``), which names every
violation: so checking valid documents never imports ``jsonschema``. The fast validator
is never the judge of a violation: where the two could differ (a string format the
general validator does not check, a regular expression dialect, a value it cannot
convert), the general validator's verdict is the finding.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import date
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from validator.findings import Finding, printable
from validator.format_history import schema_as_of, undone_at
from validator.load import LoadedDocument
from validator.paths import SCHEMAS_DIR
from validator.rules.metadata import Hit
from validator.rules.schema.display_only import DISPLAY_ONLY, SCHEMA_DISPLAY_ONLY
from validator.rules.schema.required_keys import SCHEMA_REQUIRED
from validator.rules.schema.unknown_keys import SCHEMA_UNKNOWN_KEY
from validator.rules.schema.value_types import SCHEMA_CONSTRAINT, SCHEMA_ENUM, SCHEMA_TYPE
from validator.sourcemap import join_pointer

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

SCHEMA_DIR = SCHEMAS_DIR


_BY_KEYWORD = {
    "type": SCHEMA_TYPE,
    "enum": SCHEMA_ENUM,
    "const": SCHEMA_ENUM,
    "required": SCHEMA_REQUIRED,
}


@cache
def load_schema(name: str, schema_dir: Path = SCHEMA_DIR) -> dict[str, Any]:
    """Parsed ``schemas/<name>.schema.json``.

    Raises:
        FileNotFoundError: no such schema.
        json.JSONDecodeError: the schema file is not JSON.
    """
    data: dict[str, Any] = json.loads((schema_dir / f"{name}.schema.json").read_text("utf-8"))
    return data


@cache
def dated_schema(name: str, undone: tuple[str, ...] = ()) -> dict[str, Any]:
    """Schema ``name`` without the format changes ``undone`` (the schema of an earlier
    date, see :mod:`validator.format_history`); today's with none."""
    return schema_as_of(load_schema(name), name, undone)


@cache
def _validator(name: str, undone: tuple[str, ...] = ()) -> Draft202012Validator:
    """The general validator of a schema: every violation, with its path and keyword."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(
        dated_schema(name, undone), format_checker=Draft202012Validator.FORMAT_CHECKER
    )


@cache
def compiled(name: str, undone: tuple[str, ...] = ()) -> Callable[[Any], bool] | None:
    """A schema's compiled yes/no check (``jsonschema-rs``, formats checked), built once
    per process; ``None`` when that library is not installed or cannot compile the
    schema (the general validator then judges every document)."""
    schema = dated_schema(name, undone)
    try:
        import jsonschema_rs

        check: Callable[[Any], bool] = jsonschema_rs.validator_for(
            schema, validate_formats=True).is_valid
    except Exception:  # not installed, or a schema feature it lacks: the general one works
        return None
    return check


def surely_valid(data: Any, name: str, undone: tuple[str, ...] = ()) -> bool:
    """True when the compiled check accepts ``data``; False means "ask the general
    validator" (rejected, not convertible, or no compiled check)."""
    check = compiled(name, undone)
    if check is None:
        return False
    try:
        return check(data)
    except Exception:  # a value it cannot convert: the general validator decides
        return False


def _pointer(path: Any) -> str:
    pointer = ""
    for token in path:
        pointer = join_pointer(pointer, token)
    return pointer


def _leaf(error: ValidationError) -> ValidationError:
    """For ``anyOf``/``oneOf`` failures, the most relevant sub-error."""
    if error.validator in ("anyOf", "oneOf") and error.context:
        from jsonschema.exceptions import best_match

        best = best_match(error.context)
        if best is not None:
            return _leaf(best)
    return error


def _short(value: Any) -> str:
    text = printable(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= 60 else text[:57] + "..."


class SchemaValidator:
    """Validates loaded documents against a named schema.

    ``validate(doc, "recipe")`` yields findings; the validator itself never raises for
    bad documents.
    """

    def __init__(self, strict: bool = False, as_of: date | None = None) -> None:
        self.strict = strict
        self.as_of = as_of

    def validate(self, doc: LoadedDocument, schema: str) -> list[Finding]:
        """All ``SCHEMA`` findings of ``doc`` against ``schemas/<schema>.schema.json`` as
        the format was at ``as_of`` (today's format without a date)."""
        undone = undone_at(schema, self.as_of)
        if not doc.ok or surely_valid(doc.data, schema, undone):
            return []
        findings: list[Finding] = []
        for error in _validator(schema, undone).iter_errors(doc.data):
            for rule, hit in self._hits(error):
                findings.append(doc.finding(rule, hit, strict=self.strict))
        return findings

    def _hits(self, error: ValidationError) -> Iterator[tuple[Any, Hit]]:
        error = _leaf(error)
        pointer = _pointer(error.absolute_path)
        keyword = str(error.validator)
        if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(
            error.instance, dict
        ):
            schema = error.schema if isinstance(error.schema, dict) else {}
            known = set(schema.get("properties", {}))
            patterns = schema.get("patternProperties", {})
            for key in error.instance:
                if key in known or any(re.search(p, key) for p in patterns):
                    continue
                hint = f"known keys here: {', '.join(sorted(known))}" if known else None
                yield SCHEMA_UNKNOWN_KEY, Hit(
                    join_pointer(pointer, key), f"unknown key {key!r}", hint, on_key=True
                )
            return
        rule = _BY_KEYWORD.get(keyword, SCHEMA_CONSTRAINT)
        schema = error.schema if isinstance(error.schema, dict) else {}
        described = schema.get("description")
        hint = described if isinstance(described, str) else None
        if keyword == "required":
            missing = str(error.message).split("'")[1] if "'" in error.message else "?"
            prop = schema.get("properties", {}).get(missing, {})
            about = prop.get("description") if isinstance(prop, dict) else None
            yield rule, Hit(pointer, _named(pointer, f"required key {missing!r} is missing"),
                            about if isinstance(about, str) else None, on_key=bool(pointer))
            return
        on_key = False
        if "propertyNames" in error.absolute_schema_path and isinstance(error.instance, str):
            # a key's name is wrong: point at that key, not at the mapping holding it
            pointer, on_key = join_pointer(pointer, error.instance), True
        if keyword == "pattern" and pointer in DISPLAY_ONLY:
            rule = SCHEMA_DISPLAY_ONLY
        message = _named(pointer, _message(keyword, error))
        yield rule, Hit(pointer, message, _unrepeated(hint, message), on_key=on_key)


_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[\w.+-]*\w")


def _unrepeated(hint: str | None, message: str) -> str | None:
    """``hint`` (the schema's description) without what ``message`` already says: a
    sentence the message contains, or one that names three or more of the values the
    message lists (an enum's members); ``None`` when nothing is left."""
    if hint is None:
        return None
    listed = set(message.split(" is not one of: ", 1)[1].split(", ")) \
        if " is not one of: " in message else set()
    kept = [sentence for sentence in _SENTENCE.split(hint.strip())
            if sentence.rstrip(".") not in message
            and len(listed & set(_WORD.findall(sentence))) < 3]
    return " ".join(kept) or None


def _named(pointer: str, message: str) -> str:
    """``message`` prefixed with the dotted key it judges (``meta.hardware.h200: ...``)."""
    if not pointer:
        return message
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    return f"{printable('.'.join(parts))[:80]}: {message}"


def _message(keyword: str, error: ValidationError) -> str:
    """A one-line message that quotes the offending value briefly (never the whole node)."""
    value: Any = error.validator_value
    shown = _short(error.instance)
    if keyword == "type":
        return f"{shown} is not of type {value}"
    if keyword in ("enum", "const"):
        options = value if isinstance(value, list) else [value]
        return f"{shown} is not one of: {', '.join(str(v) for v in options)}"
    if keyword == "pattern":
        return f"{shown} does not match the pattern {value}"
    if keyword == "format":
        return f"{shown} is not a valid {value}"
    if keyword in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        return f"{shown} breaks {keyword} {value}"
    if keyword in ("minItems", "maxItems", "minLength", "maxLength", "minProperties",
                   "maxProperties"):
        return f"value breaks {keyword} {value}"
    if keyword == "uniqueItems":
        return "list items must be unique"
    if keyword == "not":
        return f"this combination is not allowed here (schema 'not': {_short(value)})"
    if keyword in ("anyOf", "oneOf"):
        return f"{shown} matches none of the allowed shapes"
    return f"{keyword}: {error.message[:160]}"
