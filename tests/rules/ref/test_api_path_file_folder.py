"""A variant ``model_id`` whose folder is another output's file (``<id>.json`` of a
recipe, the API's own ``models.json``) is refused by ``render --api-out``, so ``check``
reports it: ``REF025`` against another recipe's file, ``REF017`` against the API's own.
REF025's predicate (:func:`~validator.render.api_paths.id_outputs_meet`) refuses exactly
the id pairs the output folder's ledger refuses."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from tests.conftest import check_tree, line_of
from validator.cli import main
from validator.render.api_ledger import ApiCollision, ApiLedger, Owner
from validator.render.api_paths import id_outputs_meet, path_key

CHAT = "models/example-org/Example-Chat-8B.yaml"
NEEDLE = '    description: "BF16 weights"\n'


def with_variant_id(root: Path, model_id: str) -> str:
    """Our clean chat recipe with a variant of ``model_id``, beside a clean copy of it
    (``Other-9B``; the example MoE recipe, which the site's build rejects, removed)."""
    (root / "models/example-org/Example-MoE-120B.yaml").unlink()
    chat = (root / CHAT).read_text(encoding="utf-8")
    (root / "models/example-org/Other-9B.yaml").write_text(
        chat.replace("Example-Chat-8B", "Other-9B"), encoding="utf-8")
    path = root / CHAT
    text = path.read_text(encoding="utf-8").replace(
        NEEDLE, f"{NEEDLE}  fp8:\n    precision: fp8\n    vram_minimum_gb: 10\n"
        f"    model_id: '{model_id}'\n", 1)
    path.write_text(text, encoding="utf-8")
    return text


@pytest.mark.parametrize(("model_id", "rule"), [
    ("example-org/Other-9B.json", "REF025"),   # a folder where the other recipe's file is
    ("example-org/Other-9B.json/fp8", "REF025"),
    ("example-org/Example-Chat-8B.json", "REF025"),    # where the recipe's own file is
    ("models.json/x", "REF017"),                       # where the API's own index is
    ("Strategies.json/x", "REF017"),
])
def test_an_id_whose_folder_is_another_outputs_file_is_reported_and_refused(
        examples_tree: Path, corpus_repo: Path, tmp_path: Path, model_id: str, rule: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    text = with_variant_id(examples_tree, model_id)
    found = {(f.rule, f.line) for f in check_tree(examples_tree, CHAT)
             if f.rule in ("REF017", "REF025")}
    assert found == {(rule, line_of(text, "    model_id: '"))}
    out = tmp_path / "api"
    shutil.copytree(corpus_repo / "kv_store", examples_tree / "kv_store")  # the build reads it
    assert main(["render", "--api-out", str(out), str(examples_tree / "models")]) == 2
    err = capsys.readouterr().err
    assert ("collides" in err or "refused" in err) and not out.exists(), err


IDS = ["o/a", "o/A", "o/a.json", "o/a.json/x", "o/a/b", "o/a/b.json", "o/ab", "o/a.jsonx",
       "o/b", "o/a.json.json", "p/a"]


def ledger_refuses(a: str, b: str) -> bool:
    """Whether the output folder's ledger refuses the outputs of promoted ids ``a`` and
    ``b`` (each: its folder cleared, then its ``<id>.json`` written), in either order."""
    for first, second in ((a, b), (b, a)):
        ledger = ApiLedger()
        try:
            for model_id, name in ((first, "first"), (second, "second")):
                owner = Owner(name, None, name, model_id)
                ledger.claim_removal(model_id, owner)
                ledger.claim_file(f"{model_id}.json", owner)
        except ApiCollision:
            continue
        return False
    return True


@pytest.mark.parametrize(("a", "b"), list(itertools.permutations(IDS, 2)))
def test_ref025s_predicate_refuses_exactly_what_the_ledger_refuses(a: str, b: str) -> None:
    assert (id_outputs_meet(path_key(a), path_key(b)) is not None) == ledger_refuses(a, b)


def test_each_id_is_made_a_path_key_once_per_run(
        examples_tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_variant_id(examples_tree, "example-org/Other-9B.json")
    chat = (examples_tree / CHAT).read_text(encoding="utf-8")
    (examples_tree / "models/example-org/Third-7B.yaml").write_text(
        chat.replace("Example-Chat-8B", "Third-7B").replace(
            "Other-9B.json", "Third-7B-FP8"), encoding="utf-8")
    keyed: list[str] = []

    def counted(rel: str) -> str:
        keyed.append(rel)
        return path_key(rel)

    monkeypatch.setattr("validator.rules.ref.api_path.path_key", counted)
    found = [f for f in check_tree(examples_tree, CHAT, "models/example-org/Third-7B.yaml")
             if f.rule == "REF025"]
    assert [f.path for f in found] == [CHAT]
    # two recipes compare their variants with every id of the tree: REF025 keys each id
    # once (the other REF rules key a recipe's own id and path once each per recipe)
    assert keyed and len(keyed) < 2 * len(set(keyed)), keyed
