"""``cache clean`` empties only a folder recipe-check made its cache (``CACHEDIR.TAG``,
written when the cache is first used): another folder given as ``--cache-dir`` is refused
with exit 2 and nothing in it is removed. Real processes, real folders."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "recipes"
CHAT = "models/example-org/Example-Chat-8B.yaml"
PARTS = ("results", "git", "runs", "history")


def recipe_check(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "validator", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_clean_refuses_a_folder_recipe_check_did_not_make_and_removes_nothing(
        tmp_path: Path) -> None:
    mine = tmp_path / "mydir"
    for part in PARTS:
        (mine / part).mkdir(parents=True)
        (mine / part / "notes.txt").write_text("mine\n")
    done = recipe_check("cache", "clean", "--git", "--cache-dir", str(mine), cwd=tmp_path)
    assert done.returncode == 2, done
    assert "not a recipe-check cache" in done.stderr
    assert all((mine / part / "notes.txt").read_text() == "mine\n" for part in PARTS)


def test_clean_empties_the_cache_a_check_made(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    done = recipe_check("--offline", "--cache-dir", str(cache), CHAT, cwd=EXAMPLES)
    assert done.returncode in (0, 1), done.stderr
    assert (cache / "results").is_dir() and (cache / "CACHEDIR.TAG").is_file()
    done = recipe_check("cache", "clean", "--cache-dir", str(cache), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (cache / "results").exists()


def test_another_tools_cache_tag_does_not_make_a_folder_ours(tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "results").mkdir(parents=True)
    (other / "results" / "keep").write_text("x")
    (other / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n"
                                        "# created by another tool\n")
    done = recipe_check("cache", "clean", "--cache-dir", str(other), cwd=tmp_path)
    assert done.returncode == 2 and (other / "results" / "keep").exists()


def test_threads_tagging_one_new_cache_folder_at_once_all_succeed(tmp_path: Path) -> None:
    """Each writer of the tag writes its own temporary file: threads of one process
    (one pid) tagging a new folder together never lose each other's file."""
    import threading

    from validator.owned_folder import is_tagged_cache, tag_cache_folder

    for round_ in range(20):
        folder = tmp_path / f"cache{round_}"
        errors: list[BaseException] = []
        start = threading.Barrier(8)

        def tag(folder: Path = folder, errors: list[BaseException] = errors,
                start: threading.Barrier = start) -> None:
            start.wait()
            try:
                tag_cache_folder(folder)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=tag) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        assert is_tagged_cache(folder)
        assert [p.name for p in folder.iterdir()] == ["CACHEDIR.TAG"]
