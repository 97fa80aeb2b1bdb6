"""Spec parsing: OWNER/REPO@REV:PATH, and refusal of unsafe paths and revisions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validator.source.spec import SpecError, check_path, looks_like_spec, parse_spec

COMMIT = "d5fc1f55cee70f4e1944f2dd4f7569cb8276ad94"


def test_full_commit_is_pinned() -> None:
    spec = parse_spec(f"vllm-project/recipes@{COMMIT}:models/zai-org/GLM-5.3.yaml")
    assert (spec.owner, spec.name, spec.rev, spec.path) == (
        "vllm-project", "recipes", COMMIT, "models/zai-org/GLM-5.3.yaml")
    assert spec.repository == "vllm-project/recipes"
    assert spec.pinned
    assert str(spec) == f"vllm-project/recipes@{COMMIT}:models/zai-org/GLM-5.3.yaml"


def test_upper_case_full_commit_is_normalised() -> None:
    spec = parse_spec(f"o/r@{COMMIT.upper()}:a.yaml")
    assert spec.rev == COMMIT and spec.pinned


@pytest.mark.parametrize("rev", ["main", "v1.2", "d5fc1f5", "refs/pull/12/head", "release/x"])
def test_names_and_short_ids_are_not_pinned(rev: str) -> None:
    spec = parse_spec(f"o/r@{rev}:models/a/b.yaml")
    assert spec.rev == rev and not spec.pinned


@pytest.mark.parametrize("path", [
    "../etc/passwd", "models/../../x.yaml", "/etc/passwd", "models/./a.yaml",
    "models//a.yaml", "models/a.yaml//", "/", "%2e%2e/x.yaml", "models/%2E%2E/x",
    "models%2f..%2fx", "..%2fx", "models\\..\\x", "a\x00b", ".git/config", "x/.GIT/HEAD",
])
def test_unsafe_paths_are_refused(path: str) -> None:
    with pytest.raises(SpecError):
        parse_spec(f"o/r@main:{path}")


@pytest.mark.parametrize("rev", ["-upload-pack=x", "a..b", "main@{1}", "x.lock", "x/", "a//b"])
def test_unsafe_revisions_are_refused(rev: str) -> None:
    with pytest.raises(SpecError):
        parse_spec(f"o/r@{rev}:a.yaml")


@pytest.mark.parametrize("text", ["models/a.yaml", "o/r:a.yaml", "o@main:a", "./o/r@m:a",
                                  "../r@main:x"])
def test_non_specs(text: str) -> None:
    assert not looks_like_spec(text) or text.startswith("../")
    with pytest.raises(SpecError):
        parse_spec(text)


@given(st.lists(st.sampled_from(["a", "b.yaml", "..", ".", "", "%2e", "models"]),
                min_size=1, max_size=5))
def test_accepted_paths_never_escape(parts: list[str]) -> None:
    path = "/".join(parts)
    try:
        check_path(path)
    except SpecError:
        return
    assert all(p not in ("", ".", "..") for p in path.split("/"))
    assert "%" not in path


def test_one_trailing_slash_names_the_folder() -> None:
    """The README's `vllm-project/recipes@main:models/` form."""
    assert parse_spec("vllm-project/recipes@main:models/").path == "models"
    with pytest.raises(SpecError):
        check_path("models/")  # only the spec form drops it; stored paths stay strict
