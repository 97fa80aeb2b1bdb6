"""Every citation of every record opens on a line that holds the cited value.

Real inputs: GLM-5.2 at four pinned corpus commits (its history in the bundle) and the
GLM-5.3 / GLM-5.3-Flash files of ``extra/`` read in place through their manifest, whose
taxonomy is of another commit and must not be used.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import EXTRA
from tests.evidence.conftest import (
    EXTRA_GLM53,
    GLM52,
    GLM52_UPSTREAM,
    REPO,
    file_reader,
    git_reader,
    verify_record,
)
from validator.evidence.record import build_record, record_bytes
from validator.evidence.sources import ManifestTree
from validator.source.git import GitTree

pytestmark = pytest.mark.corpus


@pytest.mark.parametrize("upstream", GLM52_UPSTREAM)
def test_glm52_every_citation_holds(upstream: str, commit_map: dict[str, str],
                                    corpus_repo: Path,
                                    corpus_tree: Callable[[str], GitTree]) -> None:
    commit = commit_map[upstream]
    record = build_record(corpus_tree(commit), GLM52, checked_on="2026-11-29")
    data = json.loads(record_bytes(record))
    checked = verify_record(data, git_reader(corpus_repo))
    assert checked > 60
    assert data["source"]["revision"] == commit
    # same-revision context: taxonomy facts are derived and cite taxonomy.yaml lines
    assert data["validation"]["context"][0]["status"] == "same_revision"
    hw_facts = [f for f in data["facts"] if f["name"].endswith("compatible hardware")]
    assert hw_facts and all("taxonomy.yaml#L" in c["url"] for f in hw_facts
                            for c in f["derived_from"][1:])


@pytest.mark.parametrize(("commit", "path"), EXTRA_GLM53)
def test_extra_glm53_every_citation_holds(commit: str, path: str) -> None:
    tree = ManifestTree(EXTRA / "MANIFEST.json", REPO, commit)
    data = json.loads(record_bytes(build_record(tree, path, checked_on="2026-11-29")))
    assert verify_record(data, file_reader(EXTRA)) > 30
    tax = data["validation"]["context"][0]
    assert tax["status"] == "unavailable" and tax["revision"] is None
    assert "02ebfc5c2a5f37ac38a75e7fbc51d1e081831bba" in tax["note"]
    # no taxonomy guessed: no hardware-fit facts, no hardware topics
    assert not [f for f in data["facts"] if "hardware" in f["name"] and
                f["classification"] == "derived"]
    assert data["hardware_topics"] is None
    assert all(o["compatible_hardware"] is None for o in data["deployment_options"])
    assert data["validation"]["rules_skipped"], "context rules must be skipped, not run blind"


def test_glm53_default_features_are_not_the_opt_in_one() -> None:
    """The curated seed record listed the opt-in feature as selected by default."""
    tree = ManifestTree(EXTRA / "MANIFEST.json", REPO, EXTRA_GLM53[0][0])
    data = json.loads(record_bytes(build_record(tree, EXTRA_GLM53[0][1],
                                                checked_on="2026-11-29")))
    facts = {f["name"]: f for f in data["facts"]}
    on = facts["Features on by default"]
    assert on["value"] == ["tool_calling", "reasoning"]
    assert on["classification"] == "derived"
    assert facts["Features off by default (opt-in)"]["value"] == ["spec_decoding"]
    assert facts["Features off by default (opt-in)"]["evidence_url"].endswith("#L65")
    assert data["recipe_parameters"]["opt_in_features"] == ["spec_decoding"]
    status = facts["Hardware status: ascend_950pr_8x"]
    assert status["classification"] == "maintainer_verified"
    assert status["evidence_url"].endswith("#L19")
    inherited = facts["Variant default: model id"]
    assert inherited["value"] == "zai-org/GLM-5.3" and inherited["classification"] == "derived"
    assert inherited["evidence_url"].endswith("#L22")


def test_flash_guide_figures_are_reported() -> None:
    commit, path = EXTRA_GLM53[2]
    tree = ManifestTree(EXTRA / "MANIFEST.json", REPO, commit)
    data = json.loads(record_bytes(build_record(tree, path, checked_on="2026-11-29")))
    got = {(r["metric"], r["quoted"]): r for r in data["reported_results"]}
    assert set(got) >= {("kv_cache_tokens", "14.92M"), ("max_concurrency", "113.81"),
                        ("kv_cache_tokens", "8.87M")}
    kv = got[("kv_cache_tokens", "14.92M")]
    assert kv["value"] == 14.92e6 and kv["evidence_url"].endswith("#L455")
    assert got[("kv_cache_tokens", "8.87M")]["evidence_url"].endswith("#L456")
    assert kv["conditions"]["command"].startswith("vllm serve zai-org/GLM-5.3-Flash")
