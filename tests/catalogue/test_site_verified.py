"""The catalogue shows only records publish verified (issue 30, item 6): a record edited in
``--out`` is an error naming its file and never a page of the catalogue, whether it was
edited before the run (refused as a conflict), after the run indexed it, or with its
statement; and only ``https://github.com/`` URLs of a record become links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.catalogue.test_site_build import RECIPE
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.cli import main
from validator.evidence.publish import Publisher
from validator.evidence.site import SiteError, build_site
from validator.evidence.site.html import link
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

PATH = "models/acme/Hostile.yaml"


@pytest.fixture()
def lock(tmp_path: Path) -> Path:
    tree = make_repo(tmp_path / "repo", {PATH: RECIPE, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    snapshot_spec(SnapshotStore(tmp_path / "store"), tree, tree.repository, [PATH])
    return tmp_path / "store" / LOCK_NAME


def _publish(lock: Path, out: Path, capsys: pytest.CaptureFixture[str],
             *extra: str) -> tuple[int, str, str]:
    code = main(["publish", "--lock", str(lock), "--out", str(out), "--checked-on",
                 "2026-12-01", "--attestation", *extra])
    got = capsys.readouterr()
    return code, got.out, got.err


def _record(out: Path) -> Path:
    (record,) = (out / "records").rglob("*.yaml.json")
    return record


def _tamper(record: Path) -> None:
    doc = json.loads(record.read_text("utf-8"))
    doc["title"] = "TAMPERED"
    doc["validation"]["summary"]["errors"] = 0
    record.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", "utf-8")


def test_a_record_edited_in_out_is_an_error_and_not_in_the_catalogue(
        lock: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: "1 failed", exit 1, and the catalogue built with the edited record's page."""
    out, site = tmp_path / "out", tmp_path / "site"
    assert _publish(lock, out, capsys)[0] == 0
    record = _record(out)
    _tamper(record)
    code, stdout, stderr = _publish(lock, out, capsys, "--site", str(site))
    assert code == 1
    assert f"{record}: differs at /title, /validation/summary/errors from the record made " \
        "now" in stderr and "not indexed" in stderr
    index = json.loads((out / "index.json").read_text())
    assert index["records"] == []
    assert sorted(e["file"] for e in index["not_verified"]) == [
        record.relative_to(out).as_posix()[:-len(".json")] + ".intoto.json",
        record.relative_to(out).as_posix()]
    assert "catalogue: 0 record page(s)" in stdout
    assert not [p for p in site.rglob("*") if p.is_file() and "TAMPERED" in p.read_text()]
    assert not list(site.rglob("*.yaml.html"))


def test_a_record_changed_after_publish_indexed_it_is_not_shown(
        lock: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The catalogue is built from the bytes the index lists: a record or statement
    edited after the run verified it is an error naming the file, and the previous
    catalogue stays."""
    out, site = tmp_path / "out", tmp_path / "site"
    assert _publish(lock, out, capsys, "--site", str(site))[0] == 0
    before = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    record = _record(out)
    good = record.read_bytes()
    _tamper(record)
    with pytest.raises(SiteError, match=f"{record}: not the record publish verified"):
        build_site(out, site)
    record.write_bytes(good)
    statement = record.with_name("Hostile.yaml.intoto.json")
    doc = json.loads(statement.read_text())
    doc["predicate"]["title"] = "TAMPERED"
    statement.write_text(json.dumps(doc))
    with pytest.raises(SiteError, match=f"{statement}: not the in-toto statement"):
        build_site(out, site)
    assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == before


def test_the_index_lists_only_the_bytes_this_run_verified(
        lock: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record rewritten between the run's verification and its index (a concurrent
    writer) is not listed as current."""
    out = tmp_path / "out"
    assert _publish(lock, out, capsys)[0] == 0
    record = _record(out)
    with Publisher(out, strict_index=True) as pub:
        pub.confirm(record, "0" * 64)
        index = pub.rebuild_index()
    assert index["records"] == []
    assert {"file": record.relative_to(out).as_posix(),
            "why": "changed after this publish run verified it"} in index["not_verified"]


def test_catalogue_links_only_to_github_over_https() -> None:
    """Was: ``/\\host`` became an href (Chromium reads it as ``//host``, off-site)."""
    for url in ("/\\evil.example/x", "\\\\evil.example", "//evil.example/", "javascript:alert(1)",
                "JaVaScRiPt:alert(1)", "data:text/html,<b>x</b>", "http://github.com/a/b",
                "https://github.com.evil.example/a", "https://evil.example/",
                "https://github.com\\@evil.example/", "https://github.com/a\tb",
                "https://github.com:444/a", "https://user@github.com/a", "../../etc/passwd",
                "records/x.json", " https://github.com/a"):
        assert link(url, "t") == "t", url
    ok = "https://github.com/o/r/blob/" + "a" * 40 + "/models/a.yaml#L3-L5"
    assert link(ok, "line") == f'<a href="{ok}">line</a>'
    from validator.evidence.site.html import local_link

    assert local_link("../../schemas/record.schema.json", "s") == \
        '<a href="../../schemas/record.schema.json">s</a>'
    assert local_link("/\\evil.example", "t") == "t"
    assert local_link("javascript:alert(1)", "t") == '<a href="javascript%3Aalert%281%29">t</a>'



def test_a_stored_record_whose_key_failed_now_is_not_current_and_says_why(
        lock: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The recipe's stored bytes are damaged in the snapshot store: the record cannot be
    made, and the one published earlier is not listed as current, with that reason (was:
    "not made by this publish run (its key is not in the lock file)", but its key is)."""
    import hashlib

    out = tmp_path / "out"
    assert _publish(lock, out, capsys)[0] == 0
    record = _record(out)
    digest = json.loads(record.read_text())["source"]["document_sha256"]
    stored = lock.parent / "objects" / "sha256" / digest[:2] / digest[2:]
    assert hashlib.sha256(stored.read_bytes()).hexdigest() == digest
    stored.write_bytes(stored.read_bytes() + b"# damaged\n")
    code, stdout, stderr = _publish(lock, out, capsys)
    assert code == 1 and "1 failed" in stdout
    assert f"{record}: this run could not make the record of its key (see the error " \
        "above); not indexed" in stderr
    assert json.loads((out / "index.json").read_text())["records"] == []
