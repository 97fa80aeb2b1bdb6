"""How ``render --api-out`` writes its 15,000 files into the staging folder
(:class:`validator.render.api_out.StagedApiFolder`): each folder made by one ``mkdir``,
paths joined as the site joins them, and a marker that lists exactly the files left."""

from __future__ import annotations

import json
import os
import posixpath
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from validator.render.api_ledger import ApiCollision, ApiLedger, Owner
from validator.render.api_out import MARKER, ApiOutputError, StagedApiFolder
from validator.render.api_paths import path_key


def _files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_each_folder_of_the_stage_is_made_by_one_mkdir(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real_mkdir = os.mkdir

    def counting_mkdir(path: str | os.PathLike[str], mode: int = 0o777) -> None:
        made.append(os.fspath(path))
        real_mkdir(path, mode)

    target = tmp_path / "api"
    with StagedApiFolder(target) as out:
        monkeypatch.setattr(os, "mkdir", counting_mkdir)
        for rel in ("acme/m/hw/h100.json", "acme/m/hw/b200.json",
                    "acme/m/hw/h100/strategies/tp.json", "acme/m.json", "models.json"):
            out.write_bytes(rel, b"{}")
        monkeypatch.undo()
        stage = out.stage
        out.commit()
    relative = sorted(Path(p).relative_to(stage).as_posix() for p in made)
    assert relative == ["acme", "acme/m", "acme/m/hw", "acme/m/hw/h100",
                        "acme/m/hw/h100/strategies"]


def test_the_marker_lists_exactly_the_files_left_after_writes_and_removals(
        tmp_path: Path) -> None:
    target = tmp_path / "api"
    with StagedApiFolder(target) as out:
        out.write_bytes("acme/m/hw/h100.json", b"1")
        out.write_bytes("acme/m/strategies/tp.json", b"2")
        out.write_bytes("acme/other.json", b"3")
        assert out.file_count() == 3
        out.remove("acme/m")  # the site clears a variant's subtree before writing it
        out.write_bytes("acme/m/hw/b200.json", b"4")  # its folders are made again
        out.write_bytes("acme/./x/../n.json", b"5")  # joined and normalised as the site does
        out.write_bytes("acme/other.json", b"6")  # replaced
        assert out.file_count() == 3
        out.commit()
    on_disk = _files(target) - {MARKER}
    assert on_disk == {"acme/m/hw/b200.json", "acme/n.json", "acme/other.json"}
    marker = json.loads((target / MARKER).read_bytes())
    assert marker["files"] == sorted(on_disk)
    assert (target / "acme/other.json").read_bytes() == b"6"


@pytest.mark.parametrize(("first", "second", "problem"), [
    ("acme/m", "acme/m/x.json", "written earlier as a file"),
    ("acme/m/x.json", "acme/m", "a folder of that name"),
])
def test_a_file_over_a_folder_or_under_a_file_is_refused(tmp_path: Path, first: str,
                                                         second: str, problem: str) -> None:
    with StagedApiFolder(tmp_path / "api") as out:
        out.write_bytes(first, b"{}")
        with pytest.raises(ApiOutputError, match=problem):
            out.write_bytes(second, b"{}")
    assert not (tmp_path / "api").exists()


@pytest.mark.parametrize("rel", ["../x.json", "/x.json", "a\\b.json", "a/../..", ""])
def test_a_path_leaving_the_folder_or_naming_it_is_refused(tmp_path: Path, rel: str) -> None:
    with StagedApiFolder(tmp_path / "api") as out, pytest.raises(ApiOutputError):
        out.write_bytes(rel, b"{}")


def _reference_key(rel: str) -> str:
    """``path_key`` as first written: normalised, NFKC, case-folded, NFKC again."""
    norm = posixpath.normpath(rel) if rel else rel
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", norm).casefold())


@given(st.text(alphabet=st.sampled_from("aZ./-_9\u00c5\u212b\u00df\ufb01\u0130"), max_size=12))
def test_path_keys_are_the_case_folded_normal_form(rel: str) -> None:
    assert path_key(rel) == _reference_key(rel)


def test_the_ledger_still_refuses_one_path_for_two_inputs_in_any_case() -> None:
    ledger = ApiLedger()
    ledger.claim_file("Acme/M/hw/h100.json", Owner("models/Acme/M.yaml", None, "recipe", "a"))
    with pytest.raises(ApiCollision, match=re.escape("Acme/M/hw/h100.json is written")):
        ledger.claim_file("acme/m/HW/H100.json", Owner("models/acme/m.yaml", None, "recipe", "b"))
    with pytest.raises(ApiCollision, match="is a file"):
        ledger.claim_file("Acme/M/hw/h100.json/x.json",
                          Owner("models/x.yaml", None, "recipe", "c"))
