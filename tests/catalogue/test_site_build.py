"""The static catalogue without a browser: hostile recipe text is escaped, nothing is
loaded from elsewhere, a failed build leaves the previous catalogue whole, and the pages
hold what the records say."""

from __future__ import annotations

import hashlib
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.evidence.attest import statement_bytes
from validator.evidence.publish import Publisher
from validator.evidence.record import build_record, record_bytes
from validator.evidence.site import SiteError, build_site

HOSTILE = "<script>alert(1)</script>\" onmouseover=\"alert(2)"
RECIPE = f"""\
meta:
  title: '{HOSTILE}'
  description: "<img src=x onerror=alert(3)> https://evil.example/x.js"
  hardware:
    big8: verified
model:
  model_id: "acme/Hostile</a><a href='javascript:alert(4)'>"
  min_vllm_version: "0.20.0"
  base_args: ["--max-model-len", "4096"]
variants:
  default:
    precision: bf16
    vram_minimum_gb: 60
compatible_strategies: [single_node_tp]
guide: |
  ## Run <b>it</b>

  We saw 70+ tok/s on 8x H200 <iframe src="https://evil.example/"></iframe>.
"""


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("href", "src", "action") and value is not None:
                self.refs.append((tag, name, value))
            assert not name.startswith("on"), (tag, name, value)


@pytest.fixture()
def published(tmp_path: Path) -> Path:
    tree = make_repo(tmp_path / "repo", {"models/acme/Hostile.yaml": RECIPE,
                                         "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    record = build_record(tree, "models/acme/Hostile.yaml", checked_on="2026-12-01")
    out = tmp_path / "out"
    with Publisher(out) as pub:
        pub.copy_schemas()
        pub.put(tree.repository, tree.commit, "models/acme/Hostile.yaml", record_bytes(record),
                statement_bytes(record))
        pub.rebuild_index()
    return out


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_hostile_text_is_escaped_and_nothing_is_loaded_from_elsewhere(
        published: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert build_site(published, site).pages == 1
    pages = _pages(site)
    assert len(pages) == 2
    for page in pages:
        text = page.read_text("utf-8")
        assert "<script>alert" not in text and "<img" not in text and "<iframe" not in text
        assert "href='javascript" not in text and 'href="javascript' not in text
        parser = _Refs()
        parser.feed(text)
        assert parser.tags.count("script") == 1  # our own script, nothing else
        for tag, _attr, value in parser.refs:
            external = re.match(r"^[a-z]+:|^//", value)
            if external:
                # only links a reader follows, to GitHub; never a loaded resource
                assert tag == "a" and value.startswith("https://github.com/"), value
            else:
                assert (page.parent / value.split("#")[0]).resolve().exists() or \
                    value.startswith("#"), (page, value)
    record_page = next(p for p in pages if p.name != "index.html")
    text = record_page.read_text("utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;alert(2)" in text
    assert "Content-Security-Policy" in text and "default-src 'none'" in text


def test_record_page_holds_the_record(published: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(published, site)
    (record_json,) = [p for p in site.rglob("*.yaml.json")]
    record = json.loads(record_json.read_text("utf-8"))
    assert record_json.read_bytes() == next(published.rglob("*.yaml.json")).read_bytes()
    html = record_json.with_name("Hostile.yaml.html").read_text("utf-8")
    for fact in record["facts"]:
        assert fact["evidence_url"].replace("&", "&amp;") in html
    (res,) = record["reported_results"]
    assert res["bound"] == ">=" and "&gt;= 70 tok/s" in html
    assert "Hostile.yaml.intoto.json" in html
    assert (record_json.parent / "Hostile.yaml.intoto.json").is_file()
    assert record["rendered_defaults"] and "big8 · default · single_node_tp" in html
    # the hostile model id is shell code (`<`, `>`, `(`) in every command: no Copy button,
    # a `# warning:` line instead (REF018)
    assert 'class="copy"' not in html and "# warning: REF018" in html
    index = (site / "index.html").read_text("utf-8")
    assert 'data-verified="big8"' in index and 'data-precisions="bf16"' in index


def test_failed_build_leaves_the_previous_catalogue(published: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    build_site(published, site)
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    index = json.loads((published / "index.json").read_text())
    index["records"].append(dict(index["records"][0], file="records/none/there.json"))
    (published / "index.json").write_text(json.dumps(index))
    with pytest.raises(SiteError, match=r"there\.json"):
        build_site(published, site)
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "repo", "site"]
    index["records"].pop()
    (published / "index.json").write_text(json.dumps(index))
    (record,) = [p for p in published.rglob("*.yaml.json")]
    good = record.read_bytes()
    record.write_text(json.dumps({"source": {"document_path": "<b>"}}))
    with pytest.raises(SiteError, match=r"Hostile\.yaml\.json: not the record publish "
                       "verified and indexed"):
        build_site(published, site)  # edited after the index was made
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
    index["records"][0]["sha256"] = hashlib.sha256(record.read_bytes()).hexdigest()
    (published / "index.json").write_text(json.dumps(index))
    with pytest.raises(SiteError, match="does not match"):
        build_site(published, site)
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before
    record.write_bytes(good)
    (published / "index.json").write_text("{not json")
    with pytest.raises(SiteError, match=r"index\.json"):
        build_site(published, site)


def test_publish_site_option(published: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """``publish --site`` builds the catalogue of what this run indexed: records it did not
    make stay out of it (they are reported, and fail the run), and an empty lock into a new
    folder gives an empty, working catalogue. The browser test publishes real records."""
    from validator.cli import main

    lock = tmp_path / "empty" / "recipes.lock.json"
    lock.parent.mkdir()
    lock.write_text(json.dumps({"files": []}))
    code = main(["publish", "--lock", str(lock), "--out", str(published), "--site",
                 str(tmp_path / "site")])
    out = capsys.readouterr()
    assert code == 1
    assert "Hostile.yaml.json: not made by this publish run" in out.err
    assert "catalogue: 0 record page(s)" in out.out
    code = main(["publish", "--lock", str(lock), "--out", str(tmp_path / "fresh"), "--site",
                 str(tmp_path / "site2")])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "catalogue: 0 record page(s)" in out.out
    assert (tmp_path / "site2" / "index.html").is_file()


def test_site_replaces_only_a_new_empty_or_earlier_catalogue_folder(
        published: Path, tmp_path: Path) -> None:
    """The swap deletes what the folder held: a folder of other files (was: deleted and
    replaced, exit 0), a catalogue with a file added by hand, or a file are refused and
    kept; an empty folder and an earlier catalogue are replaced."""
    from validator.atomic import current_umask
    from validator.evidence.site import SiteRefused

    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "important.txt").write_text("precious")
    with pytest.raises(SiteRefused, match=r"holds files \(important\.txt\)"):
        build_site(published, victim)
    assert [p.name for p in victim.iterdir()] == ["important.txt"]
    plain = tmp_path / "plain.txt"
    plain.write_text("kept")
    with pytest.raises(SiteRefused, match="not a folder"):
        build_site(published, plain)
    assert plain.read_text() == "kept"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert build_site(published, empty).pages == 1
    assert (empty / ".recipe-check-catalogue.json").is_file()
    assert empty.stat().st_mode & 0o777 == 0o777 & ~current_umask()  # was 0700
    assert build_site(published, empty).pages == 1  # an earlier catalogue: rebuilt
    (empty / "records" / "mine.txt").write_text("mine")
    with pytest.raises(SiteRefused, match=r"holds records/mine\.txt"):
        build_site(published, empty)
    assert (empty / "records" / "mine.txt").read_text() == "mine"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no leftovers


def test_site_may_not_overlap_the_publish_folder_store_or_current_folder(
        published: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from validator.evidence.site import SiteRefused

    monkeypatch.chdir(tmp_path / "repo")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for site, message in [(published, "is .*the publish folder"),
                          (published / "records", "lies inside .*the publish folder"),
                          (Path("."), "is the current folder"),
                          (tmp_path, "holds the current folder"),
                          (Path("/"), "holds the current folder")]:
        with pytest.raises(SiteRefused, match=message):
            build_site(published, site)
    with pytest.raises(SiteRefused, match=r"holds .*the snapshot store"):
        build_site(published, tmp_path / "data", keep=(
            ("the snapshot store", tmp_path / "data" / "store"),))
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_publish_refuses_a_site_folder_it_did_not_make_before_publishing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from validator.cli import main

    monkeypatch.chdir(tmp_path)
    lock = tmp_path / "store" / "recipes.lock.json"
    lock.parent.mkdir()
    lock.write_text(json.dumps({"files": []}))
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "important.txt").write_text("precious")
    for site in ("victim", ".", "pub", "store", str(tmp_path)):
        code = main(["publish", "--lock", str(lock), "--out", "pub", "--site", site])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"--site {site}: " in err and "delete" in err
        assert not (tmp_path / "pub").exists()  # refused before anything was published
    assert (victim / "important.txt").read_text() == "precious"
    assert main(["publish", "--lock", str(lock), "--out", "pub", "--site", "site"]) == 0
    assert main(["publish", "--lock", str(lock), "--out", "pub", "--site", "site"]) == 0
    assert (tmp_path / "pub" / "index.json").is_file()
