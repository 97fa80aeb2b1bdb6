"""Records carry the rendered default configuration per picker hardware (issue #12 item
5), equal to what the site's own build writes for that hardware (``hw/<hw>.json``), and
the compatible-hardware facts list exactly the profiles the site renders pages for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git
import pytest

from tests.evidence.conftest import GLM52
from tests.render.conftest import SiteBuild
from validator.evidence.record import build_record, record_bytes
from validator.source.git import GitTree

pytestmark = pytest.mark.corpus

RECIPES = (GLM52, "models/deepseek-ai/DeepSeek-V4-Flash.yaml", "models/Qwen/Qwen3.6-27B.yaml")


def _strings(site: dict[str, Any]) -> set[str]:
    out: set[str] = set()
    for key, value in site.items():
        if key in ("strategy_spec", "hardware_profile", "alternatives"):
            continue
        values = value if isinstance(value, list) else [value]
        out.update(v for v in values if isinstance(v, str))
    return out


@pytest.mark.parametrize("path", RECIPES)
def test_rendered_defaults_equal_the_site_build(
        path: str, site_main_build: SiteBuild, corpus_repo: Path) -> None:
    repo = git.Repo(corpus_repo)
    tree = GitTree("vllm-project/recipes", repo.head.commit.hexsha, None, repo,
                   str(corpus_repo))
    rec = json.loads(record_bytes(build_record(tree, path, checked_on="2026-12-01")))
    folder = site_main_build.public / path.removeprefix("models/").removesuffix(".yaml")
    site_hw = sorted(p.stem for p in (folder / "hw").glob("*.json"))
    rendered = rec["rendered_defaults"]
    assert sorted(r["hardware"] for r in rendered) == site_hw
    assert sum(r["site_default"] for r in rendered) == 1
    for r in rendered:
        site: dict[str, Any] = json.loads((folder / "hw" / f"{r['hardware']}.json").read_text())
        first = next(site[k] for k in ("command", "head_command", "prefill_command",
                                       "vllm_command") if k in site)
        assert r["command"] == first, r["hardware"]
        texts = _strings(site)
        assert r["docker_command"] in texts, r["hardware"]
        for proc in r["processes"]:
            assert proc["command"] in texts and (proc["docker_command"] is None
                                                 or proc["docker_command"] in texts)
        assert r["node_count"] == site["node_count"] and r["variant"] == site["variant"]
        assert r["strategy"] == site["strategy"]
        assert r["env"] == {k: str(v) for k, v in site["env"].items()}
    # the compatible-hardware facts never list a profile the site has no page for
    for option in rec["deployment_options"]:
        assert set(option["compatible_hardware"]) <= set(site_hw), option["variant"]
