"""The licence of the repository a recipe comes from reaches its published record and
page: ``fetch`` (here :func:`snapshot_spec`, what it runs) stores the repository's
licence file with the recipes and context, and ``publish`` reads it from the store."""

from __future__ import annotations

import json
from pathlib import Path

from tests.catalogue.test_record_page_picker import MINI
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.cli import main
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

PATH = "models/acme/Mini.yaml"
LICENCE = "\n                                 Apache License\n" \
    "                           Version 2.0, January 2004\n\n(the terms follow)\n"
"""The first lines of an Apache-2.0 licence file, as a repository holds it."""


def test_a_published_record_and_its_page_show_the_repository_s_licence(
        tmp_path: Path) -> None:
    tree = make_repo(tmp_path / "repo", {PATH: MINI, "LICENSE": LICENCE,
                                         "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    store = SnapshotStore(tmp_path / "store")
    snapshot_spec(store, tree, tree.repository, [PATH])
    assert "LICENSE" in {e.path for e in store.load().files}
    out, site = tmp_path / "out", tmp_path / "site"
    assert main(["publish", "--lock", str(tmp_path / "store" / LOCK_NAME), "--out-dir",
                 str(out), "--checked-on", "2026-12-01", "--site", str(site)]) == 0
    (record_file,) = out.rglob("Mini.yaml.json")
    licence = json.loads(record_file.read_text("utf-8"))["license"]
    assert licence["declared_spdx"] == "Apache-2.0"
    assert licence["evidence_url"].endswith(f"/{tree.commit}/LICENSE#L2")
    (page,) = site.rglob("Mini.yaml.html")
    section = page.read_text("utf-8").split('<h2 id="licence">')[1].split("<h2")[0]
    assert "Apache-2.0" in section and "Not determined" not in section
