"""The catalogue's build is bounded and leaves no work folder behind: guide code is
highlighted only in the languages guides use and only up to a length (other Pygments
lexers take minutes on one long fence), so a hostile 95,000-character ``amdgpu`` fence
publishes in seconds; a build that is terminated removes its temporary folder, and one a
killed build left is removed by the next build of the same folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.catalogue.test_record_page_picker import MINI
from tests.evidence.conftest import MINI_STRATEGY, MINI_TAXONOMY, make_repo
from validator.evidence.attest import statement_bytes
from validator.evidence.publish import Publisher
from validator.evidence.record import build_record, record_bytes
from validator.evidence.site import build_site
from validator.evidence.site.guide_page import MAX_HIGHLIGHTED, highlighted
from validator.evidence.site.html import esc
from validator.source.snapshots import LOCK_NAME, SnapshotStore, snapshot_spec

ROOT = Path(__file__).resolve().parents[2]
PATH = "models/acme/Mini.yaml"
AMDGPU = "s_mov_b32 s0, 1\nv_add_f32 v0, v1, v2\n"


def test_only_fences_in_the_languages_guides_use_are_highlighted() -> None:
    """The corpus's guides use bash, python, shell, json and text; ``yaml``, ``console``,
    ``diff`` and ``ini`` lexers take quadratic time, ``amdgpu`` minutes."""
    for lang, code in [("bash", 'export A="x"\n'), ("shell", "vllm serve x  # c\n"),
                       ("sh", "echo $A\n"), ("python", "import os\n"), ("json", '{"a": 1}\n'),
                       ("Python", "def f(): pass\n")]:
        assert '<span class="hl-' in highlighted(code, lang), lang
    code = AMDGPU + "key: <b>'x'</b>\n$ echo 1\n+ a\n[s]\n"
    for lang in ("amdgpu", "yaml", "console", "diff", "ini", "c-objdump"):
        assert highlighted(code, lang) == esc(code), lang


def test_a_fence_longer_than_the_bound_is_plain_escaped_text() -> None:
    line = 'echo "a<b"\n'
    fits = line * (MAX_HIGHLIGHTED // len(line))
    assert '<span class="hl-' in highlighted(fits, "bash")
    longer = fits + "x" * (MAX_HIGHLIGHTED - len(fits) + 1)
    assert highlighted(longer, "bash") == esc(longer)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "RECIPE_CHECK_PROGRESS": "off"}


def test_publish_site_of_a_95000_character_amdgpu_fence_finishes_in_seconds(
        tmp_path: Path) -> None:
    fence = "a" * 95_000
    recipe = MINI.replace("guide: |\n  ## Run <b>it</b>\n  Serve it.\n",
                          f"guide: |\n  ## Run\n\n  ```amdgpu\n  {fence}\n  ```\n")
    assert fence in recipe
    tree = make_repo(tmp_path / "repo", {PATH: recipe, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    snapshot_spec(SnapshotStore(tmp_path / "store"), tree, tree.repository, [PATH])
    start = time.monotonic()
    done = subprocess.run(  # minutes before the bound (the timeout fails the test)
        [sys.executable, "-m", "validator", "publish", "--lock",
         str(tmp_path / "store" / LOCK_NAME), "--out-dir", str(tmp_path / "out"),
         "--checked-on", "2026-12-01", "--site", str(tmp_path / "site")],
        cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    assert time.monotonic() - start < 120  # ~10 s on a loaded 2-core machine
    (page,) = (tmp_path / "site").rglob("Mini.yaml.html")
    assert f"<pre><code>{fence}\n</code></pre>" in page.read_text("utf-8")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".site.")]


@pytest.fixture()
def published(tmp_path: Path) -> Path:
    """A publish folder holding the record of :data:`MINI`."""
    tree = make_repo(tmp_path / "repo", {PATH: MINI, "taxonomy.yaml": MINI_TAXONOMY,
                                         "strategies/single_node_tp.yaml": MINI_STRATEGY})
    record = build_record(tree, PATH, checked_on="2026-12-01")
    with Publisher(tmp_path / "out") as pub:
        pub.copy_schemas()
        pub.put(tree.repository, tree.commit, PATH, record_bytes(record),
                statement_bytes(record))
        pub.rebuild_index()
    return tmp_path / "out"


SLOW_BUILD = """\
import sys, time
from pathlib import Path
from validator.evidence.site import build_site

def slow(entry):
    Path(sys.argv[3]).write_text("building")
    time.sleep(300)

build_site(Path(sys.argv[1]), Path(sys.argv[2]), recipes=slow)
"""
"""A build (out, site, started-file) whose record pages take minutes: it writes the
started file once its temporary folder is being filled."""


def _interrupted_build(published: Path, site: Path, signum: int) -> int:
    """Start a slow build of ``site`` and send it ``signum`` in the middle; its status."""
    started = site.parent / "started"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_BUILD, str(published), str(site),
                             str(started)], env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert started.exists(), proc.communicate()[1]
    assert [p.name for p in site.parent.iterdir() if p.name.startswith(".site.tmp-")]
    os.kill(proc.pid, signum)
    proc.communicate(timeout=120)
    started.unlink()
    return proc.returncode


def _work_folders(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir()
                  if p.name.startswith((".site.tmp-", ".site.old-")))


def test_a_terminated_build_removes_its_temporary_folder(tmp_path: Path,
                                                         published: Path) -> None:
    parent = tmp_path / "sites"
    parent.mkdir()
    code = _interrupted_build(published, parent / "site", signal.SIGTERM)
    assert code == 128 + signal.SIGTERM
    assert _work_folders(parent) == [] and not (parent / "site").exists()


def test_the_folder_of_a_killed_build_is_removed_by_the_next_build(
        tmp_path: Path, published: Path) -> None:
    parent = tmp_path / "sites"
    parent.mkdir()
    site = parent / "site"
    build_site(published, site)
    assert _interrupted_build(published, site, signal.SIGKILL) == -signal.SIGKILL
    (left,) = _work_folders(parent)
    (parent / ".site.old-k1ll3d_x").mkdir()  # what a swap killed half-way leaves
    not_ours = [".site.tmp-mine", ".site.tmp-abcdefghi", ".other.tmp-abcdefgh", "site.tmp-x"]
    for name in not_ours:
        (parent / name).mkdir()
    (parent / ".site.tmp-linkedxx").symlink_to(parent / "site.tmp-x")
    build_site(published, site)
    assert not (parent / left).exists() and not (parent / ".site.old-k1ll3d_x").exists()
    assert all((parent / name).is_dir() for name in not_ours)
    assert (parent / ".site.tmp-linkedxx").is_symlink()
    assert (site / "index.html").is_file()
