"""A mapping key that is a number is named as js-yaml names it: ``String(number)``
(JavaScript's Number#toString), not Python's ``str``: ``2.0`` is the key "2" (so ``2.0:``
and ``"2":`` are a duplicate key, and js-yaml refuses the file), ``1e3`` is "1000",
``.inf`` is "Infinity". Before, float keys were Python's text ('2.0', '1000.0', 'inf'):
the duplicate passed and ``render`` named variants differently from the site."""

from __future__ import annotations

from pathlib import Path

import pytest

from validator.cli import main
from validator.load import load_yaml

# (plain key as written, the key js-yaml 4.1.1 makes of it). Computed, not typed: in a
# copy of the site folder (/work/shared/corpus/site, `npm ci`, js-yaml 4.1.1 as its
# package-lock.json pins), for each key K, `Object.keys(require("js-yaml").load(K +
# ": v\n"))[0]` under Node 20.
JS_YAML_KEYS = [
    ('2.0', '2'),
    ('5.0', '5'),
    ('1.5', '1.5'),
    ('0.1', '0.1'),
    ('3.14159', '3.14159'),
    ('1e3', '1000'),
    ('1.0e+2', '100'),
    ('1.', '1'),
    ('.5', '0.5'),
    ('+1.0', '1'),
    ('-0.0', '0'),
    ('0.0', '0'),
    ('.inf', 'Infinity'),
    ('+.inf', 'Infinity'),
    ('-.inf', '-Infinity'),
    ('.nan', 'NaN'),
    ('.NaN', 'NaN'),
    ('1e20', '100000000000000000000'),
    ('1e21', '1e+21'),
    ('-1e21', '-1e+21'),
    ('100000000000000000000.0', '100000000000000000000'),
    ('123456789012345678901234', '1.2345678901234569e+23'),
    ('9007199254740993', '9007199254740992'),
    ('1e-6', '0.000001'),
    ('0.000001', '0.000001'),
    ('1e-7', '1e-7'),
    ('2.5e-7', '2.5e-7'),
    ('123e-20', '1.23e-18'),
    ('1.7976931348623157e308', '1.7976931348623157e+308'),
    ('1e309', 'Infinity'),
    ('5e-324', '5e-324'),
    ('1_0.5', '10.5'),
    ('1_000', '1000'),
    ('0x1F', '31'),
    ('0o17', '15'),
    ('0b101', '5'),
    ('010', '10'),
    ('~', 'null'),
    ('null', 'null'),
    ('true', 'true'),
    ('0.30000000000000004', '0.30000000000000004'),
    ('1e+22', '1e+22'),
]


@pytest.mark.parametrize(("written", "js_key"), JS_YAML_KEYS)
def test_a_number_key_is_named_as_js_yaml_names_it(written: str, js_key: str) -> None:
    doc = load_yaml(f"{written}: v\n".encode(), "t.yaml")
    assert doc.findings == [] and list(doc.data) == [js_key]


@pytest.mark.parametrize(("first", "second"), [("2.0", '"2"'), ("1e3", "1000"),
                                               (".inf", "Infinity"), ("-0.0", "0"),
                                               ("1.5", "15e-1")])
def test_keys_js_yaml_names_alike_are_a_duplicate_key(first: str, second: str) -> None:
    doc = load_yaml(f"variants:\n  {first}: a\n  {second}: b\n".encode(), "t.yaml")
    assert [(f.rule, f.line) for f in doc.findings] == [("YAML002", 3)]


def test_distinct_number_keys_stay_distinct() -> None:
    doc = load_yaml(b"variants:\n  2.5: a\n  \"2\": b\n  1e-7: c\n", "t.yaml")
    assert doc.findings == [] and list(doc.data["variants"]) == ["2.5", "2", "1e-7"]


def test_render_names_a_float_variant_as_the_site_does(
        examples_tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = examples_tree / "models/example-org/Example-Chat-8B.yaml"
    text = recipe.read_text("utf-8")
    assert "variants:\n  default:\n" in text
    recipe.write_text(text.replace("variants:\n", "variants:\n  1e3:\n    precision: fp8\n"
                                   "    vram_minimum_gb: 12\n", 1), "utf-8")
    code = main(["render", "--offline", "--variant", "1000", str(recipe)])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "vllm serve" in out.out and "not declared under variants" not in out.err
