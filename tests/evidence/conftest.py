"""Fixtures for the evidence tests: pinned corpus trees and a citation verifier that reads
the cited documents independently of the code under test (``git show`` / plain files)."""

from __future__ import annotations

import json
import math
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import git
import pytest

from validator.evidence.cite import parse_anchor
from validator.source.git import GitTree

REPO = "vllm-project/recipes"
GLM52 = "models/zai-org/GLM-5.2.yaml"
# Upstream commits that changed GLM-5.2 (first version, two edits, the last in the bundle).
GLM52_UPSTREAM = (
    "e9ee06079e38d1968f9efe4d4975ff275498f906",
    "bad7e525584e384404b0f25f45291df8d5b8abcc",
    "a2b3386100b2120ec65316c3d0064f81bd7858a2",
    "5943215a27acb4a243e9d27bd69daf491034cfea",
)
EXTRA_GLM53 = (
    ("e46f53b17dd4082edd2551a7b55a9db0325516ba", "models/zai-org/GLM-5.3.yaml"),
    ("0c880268bc6edce16b3001373ddb30b73dc1200f", "models/zai-org/GLM-5.3.yaml"),
    ("0400c4ef554febc569d2bf0c9aa639b5c3877f9c", "models/zai-org/GLM-5.3-Flash.yaml"),
)

Reader = Callable[[str, str], list[str]]


@pytest.fixture(scope="session")
def corpus_tree(corpus_repo: Path) -> Iterator[Callable[[str], GitTree]]:
    """``make(commit) -> GitTree`` over the session's corpus clone (no mirror clone)."""
    repo = git.Repo(corpus_repo)
    yield lambda commit: GitTree(REPO, commit, None, repo, str(corpus_repo))
    repo.close()


def git_reader(corpus_repo: Path) -> Reader:
    """``read(commit, path) -> lines`` straight from git (independent of GitTree)."""
    cache: dict[tuple[str, str], list[str]] = {}

    def read(commit: str, path: str) -> list[str]:
        if (commit, path) not in cache:
            out = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=corpus_repo,
                                 check=True, capture_output=True).stdout
            cache[(commit, path)] = out.decode("utf-8").splitlines()
        return cache[(commit, path)]

    return read


def file_reader(root: Path) -> Reader:
    """``read(commit, path) -> lines`` of ``root/<commit>/<path>`` (the extra/ layout)."""
    return lambda commit, path: (root / commit / path).read_text("utf-8").splitlines()


def tokens(value: Any) -> Iterator[Any]:
    """Scalar leaves of a fact value (dict values, list items)."""
    if isinstance(value, dict):
        for v in value.values():
            yield from tokens(v)
    elif isinstance(value, list):
        for v in value:
            yield from tokens(v)
    elif value is not None:
        yield value


def found(token: Any, text: str) -> bool:
    """Whether a scalar as YAML would write it appears in ``text``."""
    if isinstance(token, bool):
        return ("true" if token else "false") in text
    if isinstance(token, int):
        return str(token) in text
    if isinstance(token, float):
        import re

        return any(math.isclose(float(m), token) for m in re.findall(r"\d+(?:\.\d+)?", text))
    s = str(token)
    return s in text or json.dumps(s)[1:-1] in text


def cited_text(url: str, read: Reader, repository: str, commit: str) -> str:
    """The cited lines of ``url``; asserts the URL is of the expected repository/commit
    and that the anchored lines exist."""
    repo, url_commit, path, first, last = parse_anchor(url)
    assert repo == repository and url_commit == commit, url
    lines = read(commit, path)
    assert 1 <= first <= last <= len(lines), f"{url}: lines out of range ({len(lines)})"
    return "\n".join(lines[first - 1:last])


def verify_record(record: dict[str, Any], read: Reader) -> int:
    """Open every cited line of ``record`` and check what it must hold; returns the number
    of citations checked."""
    repo, commit = record["source"]["repository"], record["source"]["revision"]
    checked = 0
    for fact in record["facts"]:
        text = cited_text(fact["evidence_url"], read, repo, commit)
        union = [text]
        for c in fact["derived_from"]:
            ctext = cited_text(c["url"], read, repo, commit)
            for tok in tokens(c["value"]):
                assert found(tok, ctext), f"{fact['name']}: {tok!r} not at {c['url']}"
            union.append(ctext)
            checked += 1
        where = text if fact["classification"] != "derived" else "\n".join(union)
        for tok in tokens(fact["value"]):
            assert found(tok, where), (
                f"{fact['name']}: {tok!r} not at {fact['evidence_url']}:\n{where}")
        assert (fact["classification"] == "derived") == bool(fact["derivation"])
        checked += 1
    for res in record["reported_results"]:
        text = cited_text(res["evidence_url"], read, repo, commit)
        assert res["quoted"].replace(" ", "") in text.replace(" ", ""), res
        assert res["classification"] == "source_reported"
        assert res["measured_by_publisher"] is False
        checked += 1
    ed = record["editorial"]
    for para in [ed["answer"]] + [p for s in ed["sections"] for p in s["paragraphs"]]:
        for url in para["citations"]:
            cited_text(url, read, repo, commit)
            checked += 1
    for f in record["validation"]["findings"]:
        if f["evidence_url"]:
            _, _, _, first, _ = parse_anchor(f["evidence_url"])
            assert first == f["line"]
    return checked


def make_repo(root: Path, files: dict[str, str]) -> GitTree:
    """A one-commit git repository holding ``files``, opened as ``owner/mini``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    env = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", *env, "commit", "-qm", "fixture"], cwd=root, check=True)
    repo = git.Repo(root)
    return GitTree("owner/mini", repo.head.commit.hexsha, None, repo, str(root))


MINI_TAXONOMY = """\
hardware_profiles:
  small8:
    brand: NVIDIA
    generation: hopper
    gpu_count: 8
    vram_gb: 640
  big8:
    brand: NVIDIA
    generation: blackwell
    gpu_count: 8
    vram_gb: 1440
  red8:
    brand: AMD
    generation: cdna3
    gpu_count: 8
    vram_gb: 1536
"""

MINI_STRATEGY = """\
name: single_node_tp
display_name: "Single node TP"
description: "One node."
deploy_type: single_node
parallelism:
  tp: auto
"""


_VALUE_TOKENS = (
    r'"(?P<dq>[^"]+)"',                                   # a quoted phrase
    r"(?<!\w)'(?P<sq>[^'\s][^']*?)'(?!\w)",                # a quoted name
    r"(?<![\w.])(?P<num>\d[\d,]*(?:\.\d+)*)(?![\w])",     # 893, 0.29.0, 1,477,168
    r"(?P<flag>--[\w-]+)",                                # --kv-cache-dtype
    r"(?<![\w./-])(?P<path>[A-Za-z0-9][\w.-]*(?:/[\w.-]+)+)",  # zai-org/GLM-5.2, a/b.yaml
    r"\b(?P<snake>[a-z0-9]+(?:_[a-z0-9]+)+)\b",           # single_node_tp
    r"\b(?P<hw>[a-z]+\d+[a-z0-9]*)\b",                    # h200, mi325x, fp8, bf16
    r"\b(?P<rule>[A-Z]+\d{3})\b",                         # HW020
    r"\b(?P<hex>[0-9a-f]{12,64})\b",                      # commit, digest
    r"\b(?P<file>[\w-]+\.(?:yaml|yml|json))\b",           # taxonomy.yaml
)
_TOKEN = re.compile("|".join(_VALUE_TOKENS))


def named_values(text: str) -> list[str]:
    """The values a generated sentence names (numbers, ids, flags, quoted phrases),
    found by their shape and independently of the code that wrote the sentence."""
    out = []
    for m in _TOKEN.finditer(text):
        token = next(v for v in m.groupdict().values() if v is not None)
        out.append(token.rstrip(".,;:)"))
    return [t for t in out if t]


def resolve_pointer(doc: Any, pointer: str) -> Any:
    """The value at a JSON Pointer of ``doc``."""
    node = doc
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def _holds(token: str, text: str) -> bool:
    if len(token) == 12 and re.search(rf"(?<![0-9a-f]){token}[0-9a-f]{{28}}(?![0-9a-f])", text):
        return True  # a commit's abbreviation, all digits by chance: held by the full id
    if re.fullmatch(r"\d[\d,]*(?:\.\d+)*", token):
        plain = token.replace(",", "")
        return bool(re.search(rf"(?<![\d.]){re.escape(token)}(?![\d])", text) or re.search(
            rf"(?<![\d.]){re.escape(plain)}(?![\d])", text))
    return token in text or token.replace('"', '\\"') in text


def verify_paragraphs(record: dict[str, Any], read: Reader) -> int:
    """Every editorial paragraph: each value it names is on one of its cited lines or in
    the record at one of its references, and each citation or reference holds at least one
    of those values (no citation that states nothing the text says). Returns the number of
    values checked."""
    repo, commit = record["source"]["repository"], record["source"]["revision"]
    ed = record["editorial"]
    checked = 0
    for para in [ed["answer"]] + [p for s in ed["sections"] for p in s["paragraphs"]]:
        assert para["citations"] or para["record_refs"], para["text"]
        sources = {url: cited_text(url, read, repo, commit) for url in para["citations"]}
        for ref in para["record_refs"]:
            value = resolve_pointer(record, ref)
            text = json.dumps(value, ensure_ascii=False)
            if isinstance(value, list):
                text += f" {len(value)}"
            sources[ref] = text
        values = named_values(para["text"])
        for token in values:
            assert any(_holds(token, t) for t in sources.values()), (
                f"{token!r} of {para['text']!r} is on none of {list(sources)}")
            checked += 1
        for where, text in sources.items():
            assert any(_holds(token, text) for token in values), (
                f"{where} states none of the values of {para['text']!r}:\n{text[:300]}")
    return checked
