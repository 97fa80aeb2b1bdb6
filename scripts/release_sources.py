"""What the ``derive_*`` scripts share: the vendored CLI snapshots of vLLM releases
(``snapshots/vllm-cli/*.json``), each release's artifact (the wheel or sdist its
snapshot was made from, downloaded and checked against the snapshot's provenance and
the package index), and source files read from an artifact without installing it."""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tarfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from validator.vllm_cli import fetch  # noqa: E402

SNAPSHOTS = ROOT / "snapshots"


def snapshots(keep: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    """The vendored vLLM CLI snapshots ``keep`` accepts, oldest release first."""
    out = []
    for path in (SNAPSHOTS / "vllm-cli").glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if keep(doc):
            out.append(doc)
    return sorted(out, key=lambda d: Version(d["version"]))


def snapshots_with_option(option: str) -> list[dict[str, Any]]:
    """The vendored vLLM CLI snapshots whose release has ``option``, oldest first."""
    return snapshots(lambda doc: "options" in doc
                     and any(option in o["strings"] for o in doc["options"]))


def release_artifacts(docs: Iterable[dict[str, Any]], folder: Path
                      ) -> Iterator[tuple[dict[str, Any], Path]]:
    """``(snapshot, local artifact)`` for each snapshot of ``docs``: its provenance's
    artifact, which the package index must list with the same SHA-256, downloaded into
    (or found in) ``folder``.

    Raises:
        SystemExit: an artifact the index lacks or lists with another digest.
    """
    index = fetch.index_files()
    for doc in docs:
        prov = doc["provenance"]
        found = [f for f in index if f["filename"] == prov["artifact"]]
        if not found or found[0]["hashes"]["sha256"] != prov["sha256"]:
            raise SystemExit(f"{prov['artifact']}: not on the index with sha256 {prov['sha256']}")
        artifact = fetch.Artifact(doc["version"], prov["artifact"], prov["url"], prov["sha256"],
                                  prov["kind"], int(found[0].get("size") or 0))
        yield doc, fetch.download(artifact, folder)


def source_files(artifact: Path, wanted: Iterable[str]) -> dict[str, str]:
    """The ``wanted`` files (paths from the ``vllm/`` package's parent) an sdist or wheel
    holds, as text."""
    wanted = frozenset(wanted)
    out: dict[str, str] = {}
    if artifact.name.endswith(".tar.gz"):
        with tarfile.open(artifact) as tar:
            for member in tar.getmembers():
                rel = member.name.partition("/")[2]
                handle = tar.extractfile(member) if rel in wanted and member.isfile() else None
                if handle is not None:
                    out[rel] = handle.read().decode("utf-8")
    else:
        with zipfile.ZipFile(artifact) as wheel:
            for name in wheel.namelist():
                if name in wanted:
                    out[name] = wheel.read(name).decode("utf-8")
    return out


def derive_arguments(doc: str, out: Path) -> argparse.Namespace:
    """The command line of a ``derive_*`` script whose module docstring is ``doc``:
    ``--artifacts DIR`` (the download cache) and ``--out FILE`` (default ``out``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--artifacts", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=out)
    return parser.parse_args()


def sorted_json(doc: dict[str, Any]) -> str:
    """``doc`` as a derived file is written: indented JSON with sorted keys."""
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def derive_main(doc: str, out: Path, fmt: str, script: str, docs: Iterable[dict[str, Any]],
                describe: Callable[[dict[str, Any], Path], dict[str, Any]],
                dump: Callable[[dict[str, Any]], str] = sorted_json) -> int:
    """What every ``derive_*`` script does: parse its command line
    (:func:`derive_arguments`), describe each release of ``docs`` (CLI snapshots) from its
    downloaded artifact (``describe(snapshot, artifact path)``), beside the artifact's
    name and SHA-256, and write ``{"format": fmt, "derived_by": script, "releases": ...}``
    to ``--out`` through ``dump``. Returns the exit status."""
    args = derive_arguments(doc, out)
    releases: dict[str, Any] = {}
    for snapshot, local in release_artifacts(docs, args.artifacts):
        prov = snapshot["provenance"]
        releases[snapshot["version"]] = {"artifact": prov["artifact"],
                                         "sha256": prov["sha256"],
                                         **describe(snapshot, local)}
    derived = {"format": fmt, "derived_by": script, "releases": releases}
    args.out.write_text(dump(derived), encoding="utf-8")
    return 0


class FoundClass(NamedTuple):
    """A class definition read from a release's sources (:func:`first_class`)."""

    path: str
    module: ast.Module
    cls: ast.ClassDef
    aliases: dict[str, ast.expr]
    """The module's top-level ``NAME = value`` assignments (a value set given a name)."""


def first_class(files: dict[str, str], candidates: Iterable[str], name: str) -> FoundClass:
    """Class ``name`` in the first of the ``candidates`` files that defines it (releases
    moved their config classes between modules).

    Raises:
        ValueError: no candidate defines it.
    """
    candidates = tuple(candidates)
    for path in candidates:
        if path not in files:
            continue
        tree = ast.parse(files[path])
        cls = next((s for s in tree.body if isinstance(s, ast.ClassDef) and s.name == name),
                   None)
        if cls is not None:
            aliases = {t.id: s.value for s in tree.body if isinstance(s, ast.Assign)
                       for t in s.targets if isinstance(t, ast.Name)}
            return FoundClass(path, tree, cls, aliases)
    raise ValueError(f"no class {name} in " + ", ".join(candidates))
