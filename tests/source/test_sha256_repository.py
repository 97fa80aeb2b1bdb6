"""A git repository in SHA-256 object format (``git init --object-format=sha256``) is
refused where it is opened, by every command that reads git, with one message and exit 2:
no "malformed tree", no traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.catalogue.test_record_page_picker import MINI
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY
from validator.cli import main
from validator.source.git_objects import unsupported_object_format

PATH = "models/acme/Mini.yaml"
MESSAGE = "SHA-256 object format is not supported"
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]


@pytest.fixture(scope="module")
def sha256_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real two-commit repository in SHA-256 object format holding a recipe."""
    root = tmp_path_factory.mktemp("sha256") / "repo"
    files = {PATH: MINI, "taxonomy.yaml": MINI_TAXONOMY,
             "strategies/single_node_tp.yaml": MINI_STRATEGY}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    subprocess.run(["git", "init", "-q", "--object-format=sha256", "-b", "main", str(root)],
                   check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "one"], cwd=root, check=True)
    with (root / PATH).open("a") as stream:
        stream.write("# two\n")
    subprocess.run([*GIT, "commit", "-qam", "two"], cwd=root, check=True)
    return root


@pytest.mark.parametrize("command", [
    ["history", "--repo", "{repo}", "--no-cache", "--jobs", "1"],
    ["pr", "--repo", "{repo}", "--offline", "--base", "HEAD~1", "--head", "HEAD"],
    ["diff", "--repo", "{repo}", "HEAD~1", "HEAD", PATH],
    ["fetch", "--git-url", "{repo}", "--cache-dir", "{tmp}/cache", "--store-dir",
     "{tmp}/store", f"acme/mini@main:{PATH}"],
    ["record", "--git-url", "{repo}", "--cache-dir", "{tmp}/cache",
     f"acme/mini@main:{PATH}"],
], ids=["history", "pr", "diff", "fetch", "record"])
def test_every_git_reading_command_refuses_a_sha256_repository_with_one_message(
        command: list[str], sha256_repo: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    args = [a.format(repo=sha256_repo, tmp=tmp_path) for a in command]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{sha256_repo}: {MESSAGE}" in err
    assert err.count(MESSAGE) == 1 and "Traceback" not in err and "malformed" not in err


def test_a_sha1_repository_or_a_plain_folder_is_not_reported(sha256_repo: Path,
                                                            tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "sha1")], check=True)
    assert unsupported_object_format(tmp_path / "sha1") is None
    assert unsupported_object_format(tmp_path) is None  # not a repository: not this check's
    assert MESSAGE in str(unsupported_object_format(sha256_repo / "models"))
