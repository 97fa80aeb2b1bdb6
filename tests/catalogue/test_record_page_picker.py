"""A record page built with its recipe (as ``publish --site`` builds it): every
configuration the site's page offers, each with the blocks ``render`` prints, its JSON
and the findings on the nodes it uses; facts grouped with readable labels and evidence
named by file; guide, licence and byline; mixed precisions filed under each precision."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import git
import pytest

from tests.catalogue.site_pages import catalogue_page
from tests.catalogue.test_shell_code_pages import RECIPE as SHELL_RECIPE
from tests.catalogue.test_site_build import RECIPE as HOSTILE_RECIPE
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.context import build_context
from validator.evidence.site.config_json import CALLBACK, JsonTable, document, script_bytes
from validator.evidence.site.configurations import block_lines, expanded
from validator.evidence.site.html import citations, evidence, value_text
from validator.evidence.site.precision import precision_label, precisions
from validator.evidence.site.renderings import RecipeReader
from validator.load import load_yaml
from validator.render.offered import offered_renderings, rendering_json, renderings_text
from validator.source.git import GitTree

MINI = """\
meta:
  title: Mini
  provider: Acme
  description: "A small model."
  date_added: "2026-01-02"
  date_updated: "2026-02-03"
  hardware:
    big8: verified
model:
  model_id: acme/Mini
  min_vllm_version: "0.20.0"
  base_args: ["--max-model-len", "4096"]
variants:
  default:
    precision: bf16
    vram_minimum_gb: 60.0
  mixed:
    model_id: acme/Mini-QAT
    precision: int2/4/8
    vram_minimum_gb: 30
    min_vllm_version: "0.21.0"
    extra_args: ["--enforce_eager"]
    hardware_overrides:
      big8:
        extra_args: ["--max_num_seqs", "8"]
features:
  reasoning:
    args: ["--reasoning-parser", "deepseek_r1"]
opt_in_features: [reasoning]
compatible_strategies: [single_node_tp]
guide: |
  ## Run <b>it</b>
  Serve it.
"""
"""Two variants (one mixed-precision, with an underscore flag: FLAG013 on its layer, and
one in its override for big8), an
opt-in feature (missing its description: SCHEMA003 on the feature), metadata missing keys
(SCHEMA003 on /meta: about the recipe as a whole)."""

PATH = "models/acme/Mini.yaml"


def _site(tmp_path: Path, recipe: str, path: str = PATH) -> Path:
    return catalogue_page(tmp_path, recipe, path, picker=True)


def _data(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="picker-data">(.*?)</script>',
                      page, re.DOTALL)
    assert found, "no picker data on the page"
    return dict(json.loads(found.group(1)))


def _configs(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Each configuration of the picker data with its choices, blocks and findings."""
    s, out, lines = data["strings"], [], block_lines(data["blocks"])
    for config in data["configs"]:
        choice, features, _labels, blockset, verdict, name, *_cuda = expanded(config, data)
        out.append({
            **{n: s[choice[i]] for i, (n, _) in enumerate(data["choices"])},
            "features": {s[f] for f in features}, "json": name,
            "blocks": {s[data["blocks"][b][0]]: (
                "\n".join(s[i] for i in lines[b]), data["blocks"][b][1])
                for b in data["blocksets"][blockset]},
            "rules": {(data["findings"][n][1], data["findings"][n][2][:30])
                      for n in data["verdicts"][verdict]}})
    return out


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The MINI page, built once for the tests that only read it."""
    return _site(tmp_path_factory.mktemp("mini"), MINI)


def test_page_offers_every_configuration_with_the_commands_and_json_render_gives(
        mini: Path) -> None:
    configs = _configs(_data(mini.read_text("utf-8")))
    repo = git.Repo(mini.parents[len(Path(PATH).parts) + 3].parent / "repo")
    tree = GitTree("owner/mini", repo.head.commit.hexsha, None, repo, str(repo.working_dir))
    doc = load_yaml(tree.read(PATH), PATH)
    offered = offered_renderings(doc, build_context(tree))
    assert len(configs) == len(offered) > 4  # hardware x variant x feature sets
    for config, o in zip(configs, offered, strict=True):
        r = o.rendered
        assert (config["hardware"], config["variant"], config["features"]) == (
            r.config.hardware, r.config.variant, set(r.config.features))
        (proc,) = r.processes
        assert config["blocks"]["serve: vllm serve"][0] == proc.command
        assert config["blocks"]["serve: docker"][0] == proc.docker_command
        assert r.install is not None
        assert config["blocks"]["install (pip)"][0] == r.install["pip"]["command"]

def _table(page: Path) -> dict[str, Any]:
    """The configurations' JSON table the page loads (``<page>.configs.js``)."""
    text = page.with_name(page.name[:-len(".html")] + ".configs.js").read_text("ascii")
    assert text.startswith(CALLBACK + "(") and text.endswith(");\n")
    return dict(json.loads(text[len(CALLBACK) + 1:-3]))


@pytest.mark.parametrize("recipe,path", [(MINI, PATH),
                                         (HOSTILE_RECIPE, "models/acme/Hostile.yaml"),
                                         (SHELL_RECIPE, "models/acme/Shell.yaml")])
def test_json_of_each_configuration_is_what_render_format_json_prints(
        tmp_path: Path, recipe: str, path: str) -> None:
    page = _site(tmp_path, recipe, path)
    data, table = _data(page.read_text("utf-8")), _table(page)
    tree = make_repo(tmp_path / "again", {path: recipe, "taxonomy.yaml": MINI_TAXONOMY,
                                          "strategies/single_node_tp.yaml": MINI_STRATEGY})
    offered = offered_renderings(load_yaml(tree.read(path), path), build_context(tree))
    assert len(data["configs"]) == len(offered) > 1
    cu129 = sum(1 for c in data["configs"] if len(c) > 5)  # their cu129 documents follow
    assert len(table["roots"]) == len(offered) + cu129 and cu129 > 0
    for k, o in enumerate(offered):
        assert document(table, k) == renderings_text([rendering_json(o.rendered, [])])
    # one file per record, not one per configuration; every value stored once
    assert not list(page.parent.glob("*.configs/*"))
    assert len(table["nodes"]) == len({tuple(n) for n in table["nodes"]})


def test_a_finding_applies_to_the_configurations_that_use_its_node(mini: Path) -> None:
    data = _data(mini.read_text("utf-8"))
    configs = _configs(data)
    for config in configs:
        rules = {rule for rule, _ in config["rules"]}
        # the underscore flag of variant 'mixed' reaches only its commands, that of its
        # big8 override only its commands on big8
        eager = ("FLAG013", "`--enforce_eager` is spelled w") in config["rules"]
        seqs = ("FLAG013", "`--max_num_seqs` is spelled wi") in config["rules"]
        assert eager == (config["variant"] == "mixed")
        assert seqs == (config["variant"] == "mixed" and config["hardware"] == "big8")
        assert "FLAG013" not in rules or config["variant"] == "mixed"
        # the feature's missing description: only where the feature is on
        feature = ("SCHEMA003", "features.reasoning: required k")
        assert (feature in config["rules"]) == ("reasoning" in config["features"])
    # missing metadata keys are about the recipe as a whole, in no configuration's verdict
    whole = {data["findings"][n][2][:5] for n in data["whole"]}
    assert whole == {"meta:"}
    assert all(not any(m.startswith("meta:") for _, m in c["rules"]) for c in configs)
    page = mini.read_text("utf-8")
    assert "finding(s) about the recipe as a whole" in page
    assert re.search(r"</strong> \(Mini\.yaml line \d+\): ", page)  # a line names its file


def test_install_minimum_is_the_variants_and_the_page_links_each_json(mini: Path) -> None:
    page = mini.read_text("utf-8")
    data = _data(page)
    assert data["floors"] == {"default": "0.20.0", "mixed": "0.21.0"}
    assert "vLLM &ge; <strong>0.20.0</strong>" in page
    assert '<a class="config-json" href="Mini.yaml.landing.json" download="Mini.' in page
    assert data["json"] == "Mini.yaml.configs.js"


def test_blocks_with_shell_code_have_no_copy_button_in_the_picker(tmp_path: Path) -> None:
    page = _site(tmp_path, SHELL_RECIPE, "models/acme/Shell.yaml").read_text("utf-8")
    configs = _configs(_data(page))
    for config in configs:
        text, copyable = config["blocks"]["serve: docker"]
        assert text.startswith("# warning: REF018") and not copyable
        assert "touch pwned" in text
        assert config["blocks"]["serve: vllm serve"][1]  # the quoted export runs no code
    chosen = page[page.index('<div id="chosen-blocks">'):page.index("picker-data")]
    docker = chosen[chosen.index("serve: docker"):]
    assert docker.index("no Copy button") < docker.index("<pre>")
    assert 'class="copy"' not in docker[:docker.index("</div>")]


def test_recipe_text_in_the_picker_data_and_guide_cannot_leave_them(tmp_path: Path) -> None:
    page = _site(tmp_path, HOSTILE_RECIPE, "models/acme/Hostile.yaml").read_text("utf-8")
    start = page.index('<script type="application/json"')
    block = page[start:page.index("</script>", start)]
    assert "<" not in block[block.index(">") + 1:]  # no tag can open or close inside
    assert "<iframe" not in page and "<b>" not in page
    assert "&lt;iframe src=&quot;https://evil.example/&quot;&gt;" in page  # the guide, as text
    assert page.count("<script") == 2  # the page script and the data block, nothing else


def test_facts_are_grouped_with_readable_labels_and_evidence_named_by_file(
        mini: Path) -> None:
    page = mini.read_text("utf-8")
    for key in ("model", "hardware", "versions"):
        assert f'<details id="facts-{key}" open>' in page
    assert '<details id="facts-commands">' in page  # folded
    assert "declared by the recipe" in page and ">recipe_declaration<" not in page
    assert re.search(r'class="evidence">Mini\.yaml line \d+</a>', page)
    assert "Planning minimum (GB)" in page and ">60<" in page and ">60.0<" not in page
    assert 'href="#editorial">Summary</a>' in page and 'href="#guide">Guide</a>' in page


def test_guide_licence_and_byline_are_on_the_page(mini: Path) -> None:
    page = mini.read_text("utf-8")
    assert "<h4>Run &lt;b&gt;it&lt;/b&gt;</h4>\n<p>Serve it.</p>" in page  # rendered
    assert '<h2 id="licence">Licence</h2>' in page and "Not determined" in page
    assert "Record by recipe-check (automated evidence record)" in page
    assert "recipe added 2026-01-02" in page and "updated 2026-02-03" in page


def test_mixed_precision_is_filed_under_each_precision_it_names(mini: Path) -> None:
    index = (mini.parents[len(Path(PATH).parts) + 3] / "index.html").read_text("utf-8")
    assert 'data-precisions="bf16 int2 int4 int8"' in index
    assert ">int2/4/8<" not in index
    assert "int2/4/8 (mixed: int2, int4, int8)" in mini.read_text("utf-8")
    assert precisions("int2/4/8") == ("int2", "int4", "int8")
    assert precisions("fp8") == ("fp8",) and precisions("mxfp4") == ("mxfp4",)
    assert precisions("W4A8") == ("w4a8",)
    assert precision_label("nvfp4") == "nvfp4"


def test_numbers_show_one_way_and_evidence_names_its_file() -> None:
    assert value_text(893.0) == "893" and value_text([893.0, 1.5]) == "893, 1.5"
    url = "https://github.com/o/r/blob/" + "a" * 40 + "/taxonomy.yaml"
    assert re.search(r">taxonomy\.yaml line 15</a>$", evidence(url + "#L15"))
    assert re.search(r">taxonomy\.yaml lines 3–4</a>$", evidence(url + "#L3-L4"))
    grouped = citations([url + "#L15", url + "#L21", url + "x#L2"])
    assert html.unescape(re.sub("<[^>]+>", "", grouped)) == \
        "taxonomy.yaml lines 15, 21; taxonomy.yamlx line 2"


def test_a_record_whose_recipe_cannot_be_read_back_keeps_its_default_commands(
        tmp_path: Path) -> None:
    empty = make_repo(tmp_path / "empty", {"README.md": "no recipes here\n"})
    reader = RecipeReader(lambda source: empty)
    assert reader({"source": {"repository": "owner/mini", "revision": "0" * 40,
                              "document_path": PATH}}) is None
    page = catalogue_page(tmp_path, MINI, PATH, picker=False).read_text("utf-8")
    assert 'id="picker-data"' not in page and '<h2 id="commands">' in page


def test_table_lays_any_json_value_out_as_json_dumps_with_indent_two() -> None:
    values = [[{"a": [], "b": {}, "c": [1, 2.5, 60.0, 1e-05, -0.0, True, None],
                "é\u202e😀": "line\nbreak \"quoted\" </script> \u2028 \x01",
                "nested": {"x": [[{}], [[]]]}}], [], {}, "plain", 3,
              [{"a": [], "b": {}}, {"a": [], "b": {}}]]
    table = JsonTable()
    data = table.data([table.add(v) for v in values])
    for k, value in enumerate(values):
        assert document(data, k) == json.dumps(value, indent=2) + "\n"
    assert len(data["nodes"]) == len({tuple(n) for n in data["nodes"]})  # stored once
    assert script_bytes(data).isascii()


def test_each_distinct_command_is_scanned_for_shell_code_once_per_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The configurations share most commands: scanning each again was half the time of
    a catalogue page."""
    import validator.analysis.shell_hazards as shell_hazards

    scanned: list[str] = []
    real = shell_hazards.command_hazards

    def counting(command: str) -> Any:
        scanned.append(command)
        return real(command)

    monkeypatch.setattr(shell_hazards, "command_hazards", counting)
    unique = "# a recipe of its own\n" + MINI.replace("acme/Mini", "acme/Once")
    _site(tmp_path, unique)
    assert scanned and len(scanned) == len(set(scanned))
