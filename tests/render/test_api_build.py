"""``render --api-out`` on small recipes of our own (odd input the corpus does not hold),
each checked against the site's build, and the output folder's guarantees."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from tests.cli_in_process import run_cli
from validator.render.api_inputs import js_date_text

from .api_compare import compare_api, read_api
from .conftest import run_site_build
from .test_api_parity import run_our_build

EDGE = """\
meta:
  title: "Edge Model"
  provider: "Acme"
  description: "Own fixture: dates, numbers and keys as js-yaml reads them"
  date_added: 2025-02-30
  date_updated: 2025-06-01 23:30:00 -05:00
  quoted: "2025-02-30"
  tasks: [text]
  hardware:
    h100: verified
model:
  model_id: "acme/Edge-Model"
  min_vllm_version: 0.30
  nightly_required: true
  architecture: dense
  parameter_count: "7B"
  context_length: 32768
  base_args: ["--max-model-len", "32768"]
  base_env: {}
  install:
    docker:
      note: "pull the nightly image"
dependencies: ["pip install acme-tokenizer"]
features:
  reasoning:
    description: "Reasoning parser"
    args: ["--reasoning-parser", "acme"]
  tools:
    description: "Tool calling"
    args: ["--enable-auto-tool-choice"]
opt_in_features: [tools]
variants:
  default:
    precision: bf16
    vram_minimum_gb: 16.0
    description: "BF16"
  fp8:
    model_id: "acme/Edge-Model-FP8"
    precision: fp8
    vram_minimum_gb: 8
    description: "FP8"
  clash:
    model_id: "acme/Other-Model"
    precision: bf16
    vram_minimum_gb: 16
compatible_strategies: [single_node_tp, multi_node_tp]
hardware_overrides: {}
strategy_overrides: {}
numbers: {10: ten, 2: two, b: bee}
"""

OTHER = """\
meta:
  title: "Other Model"
  provider: "Acme"
  tasks: [text]
model:
  model_id: "acme/Other-Model"
  docker_image: {cu129: "acme/vllm:cu129", cu130: "acme/vllm:cu130"}
  install:
    pip: false
  base_args: []
variants:
  default:
    precision: bf16
    vram_minimum_gb: 1200
compatible_strategies: [single_node_tp, multi_node_tp, pd_cluster]
"""

BROKEN = OTHER.replace("base_args: []", 'base_args: ["--max-model-len", 32768]')
"""A number in an argument list: the site's synthesis throws on it (the build skips)."""

OMNI = """\
meta:
  title: "Omni Model"
  provider: "Acme"
  tasks: [omni]
model:
  model_id: "acme-b/Omni"
variants:
  default:
    precision: bf16
    vram_minimum_gb: 40
"""


@pytest.fixture()
def own_tree(corpus_main_tree: Path, tmp_path: Path) -> Path:
    """Corpus main's taxonomy, strategies, kv-store deployments and platforms with our
    own recipes (nested folders and names that sort differently per folder and per path)."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for part in ("taxonomy.yaml", "platforms.yaml"):
        shutil.copy(corpus_main_tree / part, tree / part)
    for part in ("strategies", "kv_store"):
        shutil.copytree(corpus_main_tree / part, tree / part)
    for rel, text in (("acme/Edge-Model.yaml", EDGE), ("acme/Other-Model.yaml", OTHER),
                      ("acme-b/Omni.yml", OMNI), ("acme/sub/Deep.yaml", OTHER),
                      ("acme/Broken.yaml", BROKEN)):
        path = tree / "models" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return tree


def test_own_recipes_equal_the_site_build(site_dir: Path, own_tree: Path,
                                          tmp_path: Path) -> None:
    """Date roll-over and zone offsets, ``0.30`` and ``16.0``, integer-like keys, install
    overrides, a CUDA image map, variant promotion and a collision, an omni recipe, a
    nested recipe: every file equal to the site's, byte for byte."""
    site = run_site_build(site_dir, own_tree)
    assert site.ok, site.stderr
    ours = run_our_build(own_tree, tmp_path / "api")
    assert ours.code == 0, ours.stderr
    result = compare_api(read_api(site.public), read_api(ours.out))
    assert result.equal, result.report()
    assert result.byte_identical == result.site_files
    edge = orjson.loads((ours.out / "acme/Edge-Model.json").read_bytes())
    assert (edge["meta"]["date_added"], edge["meta"]["date_updated"], edge["meta"]["quoted"]) \
        == ("2025-03-02", "2025-06-02", "2025-02-30")
    assert list(edge["numbers"]) == ["2", "10", "b"]
    assert edge["model"]["install"]["pip"]["note"] == \
        "vLLM 0.3 isn't released yet — nightly required."
    assert edge["variants"]["fp8"]["json"] == "/acme/Edge-Model-FP8.json"
    assert "json" not in edge["variants"]["clash"]  # a recipe of that id exists
    assert "not promoted to acme/Other-Model" in ours.stderr
    assert (ours.out / "acme/Edge-Model-FP8.json").is_file()
    assert (ours.out / "acme/Deep.json").is_file()
    omni = orjson.loads((ours.out / "acme-b/Omni.json").read_bytes())
    assert "recommended_command" not in omni and not (ours.out / "acme-b/Omni").exists()
    broken = orjson.loads((ours.out / "acme/Broken.json").read_bytes())
    assert "recommended_command" not in broken
    assert "models/acme/Broken.yaml: the site's command synthesis fails" in ours.stderr
    models = orjson.loads((ours.out / "models.json").read_bytes())
    # the build's walk: each folder sorted, sub-folders where they sort ("acme" < "acme-b")
    assert [m["hf_id"] for m in models] == [
        "acme/Broken", "acme/Edge-Model", "acme/Other-Model", "acme/Deep", "acme-b/Omni",
        "acme/Edge-Model-FP8"]


@pytest.mark.parametrize(("old", "new", "where"), [
    ('  title: "Edge Model"\n', '  title: "Edge Model"\n  title: "Twice"\n',
     "models/acme/Edge-Model.yaml:3"),
    ('    args: ["--enable-auto-tool-choice"]\n',
     '    args: ["--enable-auto-tool-choice"]\n    modes: {on: {args: []}}\n',
     "models/acme/Edge-Model.yaml:"),
    ("meta:\n", "about:\n", "models/acme/Edge-Model.yaml: no `meta`"),
])
def test_a_tree_the_site_rejects_is_rejected_and_nothing_is_written(
        site_dir: Path, own_tree: Path, tmp_path: Path, old: str, new: str,
        where: str) -> None:
    """A duplicate key (js-yaml throws), a feature with both ``args`` and ``modes`` (the
    build throws) or a recipe without ``meta`` (the build throws listing it): the site's
    build fails; ours exits 1 naming the file (and line), and an API written before is
    left as it was."""
    out = tmp_path / "api"
    assert run_our_build(own_tree, out).code == 0
    before = read_api(out)
    recipe = own_tree / "models/acme/Edge-Model.yaml"
    text = recipe.read_text("utf-8")
    assert old in text
    recipe.write_text(text.replace(old, new, 1), "utf-8")
    site = run_site_build(site_dir, own_tree)
    assert not site.ok
    ours = run_our_build(own_tree, out)
    assert ours.code == 1, ours.stderr
    assert where in ours.stderr and "nothing written" in ours.stderr
    assert read_api(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".api.")]


@pytest.mark.parametrize(("new", "rule"), [
    ('    args: ["--enable-auto-tool-choice\u200b"]\n', "YAML010"),
    ('    args: ["--en\u0430ble-auto-tool-choice"]\n', "YAML013"),
], ids=["hidden", "look-alike"])
def test_a_file_with_loader_errors_js_yaml_reads_past_is_built_as_the_site_builds_it(
        site_dir: Path, own_tree: Path, tmp_path: Path, new: str, rule: str) -> None:
    """A hidden or a look-alike character in an argument is an error of ``check``, but
    js-yaml reads the file and the site's build writes its API: ours writes the same
    bytes instead of stopping as if the site refused it."""
    recipe = own_tree / "models/acme/Edge-Model.yaml"
    text = recipe.read_text("utf-8")
    old = '    args: ["--enable-auto-tool-choice"]\n'
    assert old in text
    recipe.write_text(text.replace(old, new, 1), "utf-8")
    checked = run_cli("check", "--offline", "--select", rule, recipe)
    assert f"error {rule}" in checked.stdout
    site = run_site_build(site_dir, own_tree)
    assert site.ok, site.stderr
    ours = run_our_build(own_tree, tmp_path / "api")
    assert ours.code == 0, ours.stderr
    result = compare_api(read_api(site.public), read_api(ours.out))
    assert result.equal, result.report()
    assert result.byte_identical == result.site_files


def test_an_id_leaving_the_folder_is_refused(own_tree: Path, tmp_path: Path) -> None:
    """A variant ``model_id`` with ``..`` would make the site write outside its output
    folder; we refuse (exit 2) and write nothing anywhere."""
    recipe = own_tree / "models/acme/Edge-Model.yaml"
    recipe.write_text(recipe.read_text("utf-8").replace(
        'model_id: "acme/Edge-Model-FP8"', 'model_id: "../../escaped/x"'), "utf-8")
    ours = run_our_build(own_tree, tmp_path / "api")
    assert ours.code == 2
    assert "outside the API folder" in ours.stderr
    assert not (tmp_path / "api").exists()
    assert not list(tmp_path.rglob("escaped"))


def test_an_unrelated_folder_is_not_replaced(own_tree: Path, tmp_path: Path) -> None:
    """``--api-out`` naming a non-empty folder that holds no API: refused, untouched."""
    out = tmp_path / "documents"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", "utf-8")
    ours = run_our_build(own_tree, out)
    assert ours.code == 2
    assert "is not an API an earlier" in ours.stderr
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_our_build(own_tree, empty).code == 0  # an empty folder is filled
    assert (empty / "models.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["documents", "empty", "tree"]


@pytest.mark.parametrize(("text", "date"), [
    ("2025-01-05", "2025-01-05"),
    ("2025-02-30", "2025-03-02"),
    ("2025-13-01", "2026-01-01"),
    ("2025-12-31 23:30:00 -01:00", "2026-01-01"),
    ("2025-1-5 01:00:00+02", "2025-01-04"),
    ("2025-01-01T00:00:00.5Z", "2025-01-01"),
    ("0025-01-01", "1925-01-01"),
])
def test_js_date_text(text: str, date: str) -> None:
    """Dates as js-yaml + ``toISOString`` give them (roll-over, zones, two-digit years)."""
    assert js_date_text(text) == date


@pytest.mark.parametrize("text", ["2025-1-5", "2025-01-05x", "v2025-01-05", "20250105"])
def test_js_date_text_leaves_strings(text: str) -> None:
    """Text that js-yaml does not read as a timestamp stays a string."""
    assert js_date_text(text) is None


def test_a_renderer_bug_is_reported_without_a_traceback(
        own_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Python exception inside our renderer (not a JS throw the site also has) is reported
    with the recipe it happened on, exit 2, and no folder is left behind."""
    from validator.render import api, site
    from validator.source.tree import LocalTree

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("deployType")

    monkeypatch.setattr(site, "site_rendering", broken)
    code = api.write_api(tmp_path / "api", LocalTree(own_tree), [])
    err = capsys.readouterr().err
    assert code == 2
    assert "models/acme/Broken.yaml: internal error" in err and "KeyError" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree"]


@pytest.mark.parametrize("parallel", [False, True])
def test_worker_processes_write_the_same_api_and_report_the_same_problem(
        own_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], parallel: bool) -> None:
    """Rendering in worker processes (as for a large tree) gives the same files as one
    process, and a recipe the site rejects stops the build with the same message."""
    from validator.render import api
    from validator.source.tree import LocalTree

    monkeypatch.setattr(api, "_PARALLEL_MIN_RECIPES", 1 if parallel else 10**9)
    assert api.write_api(tmp_path / "api", LocalTree(own_tree), []) == 0
    reference = tmp_path / "reference"
    monkeypatch.setattr(api, "_PARALLEL_MIN_RECIPES", 10**9)
    assert api.write_api(reference, LocalTree(own_tree), []) == 0
    assert read_api(tmp_path / "api") == read_api(reference)
    recipe = own_tree / "models/acme/Other-Model.yaml"
    recipe.write_text(recipe.read_text("utf-8").replace("  tasks: [text]\n",
                                                        "  tasks: [text]\n  tasks: [x]\n"))
    monkeypatch.setattr(api, "_PARALLEL_MIN_RECIPES", 1 if parallel else 10**9)
    capsys.readouterr()
    assert api.write_api(tmp_path / "api", LocalTree(own_tree), []) == 1
    err = capsys.readouterr().err
    assert "models/acme/Other-Model.yaml:5: YAML002" in err and "nothing written" in err
    assert read_api(tmp_path / "api") == read_api(reference)


def test_missing_node_fails_on_ci_and_skips_elsewhere(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Without node on PATH the oracle tests fail when ``CI`` is set, else skip."""
    from .conftest import require_node_tools

    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="node not found"):
        require_node_tools()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="node not found"):
        require_node_tools()


@pytest.mark.parametrize(("link", "target", "why"), [
    ("strategies/outside.yaml", "{outside}", "resolves outside the recipes root"),
    ("kv_store/dangling.yaml", "nowhere.yaml", "dangling symbolic link"),
    ("strategies/self.yaml", "self.yaml", "symbolic link loop"),
], ids=["leaving-the-root", "dangling", "looping"])
def test_a_context_file_link_that_is_not_followed_refuses_the_build(
        own_tree: Path, tmp_path: Path, link: str, target: str, why: str) -> None:
    """A strategy or kv-store entry that is a link leaving the root, dangling or looping:
    ``check`` reports it (PROV005) and does not follow it, so the build is refused
    (exit 1) naming the link, and an API written before is left as it was."""
    out = tmp_path / "api"
    assert run_our_build(own_tree, out).code == 0
    before = read_api(out)
    outside = tmp_path / "outside.yaml"
    shutil.copy(own_tree / "strategies/single_node_tp.yaml", outside)
    (own_tree / link).symlink_to(target.format(outside=outside))
    ours = run_our_build(own_tree, out)
    assert ours.code == 1, ours.stderr
    assert f"{link}: PROV005: {why}" in ours.stderr and "nothing written" in ours.stderr
    assert read_api(out) == before
    checked = run_cli("check", "--offline", "--no-cache", "--select", "PROV005",
                      own_tree / "models")
    assert f"{link}:" in checked.stdout and "PROV005" in checked.stdout


def test_a_dangling_context_file_fails_the_site_build(site_dir: Path, own_tree: Path) -> None:
    """The oracle of the refusal above: the site's build reads every file of
    ``kv_store/`` and fails on a dangling entry."""
    (own_tree / "kv_store/dangling.yaml").symlink_to("nowhere.yaml")
    assert not run_site_build(site_dir, own_tree).ok
