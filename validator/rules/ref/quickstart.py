"""``REF028`` and ``REF029``: the quickstart files (``quickstart/*.yaml``; emitted by
:meth:`validator.checker.Checker.context_findings` on the file itself).

The site's build reads every ``quickstart/*.yaml`` (``.yaml`` only, not below a
sub-folder) and writes it, whole, to ``quickstart/<hardware_profile>.json`` of its API:
``hardware_profile`` is the only field it reads, and the path is joined to its output
folder with ``..`` honoured. So that value decides where the file lands: ``../models``
replaces the index of recipes, ``../org/model`` a recipe's page, ``../../x`` writes
outside the API. ``render --api-out`` refuses the same values
(:func:`validator.render.api_paths.quickstart_profile_problem`, one predicate), read from
the same data (:func:`validator.render.api_inputs.site_data`: a value js-yaml reads as a
timestamp is the ``YYYY-MM-DD`` the build writes, ``2024-01-01T10:00:00Z`` is
``2024-01-01``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from validator.findings import Finding, Severity, printable
from validator.load import LoadedDocument
from validator.render.api_inputs import site_data
from validator.render.api_paths import (
    QUICKSTART,
    QUICKSTART_FOLDER_PROBLEM,
    path_key,
    quickstart_missing_problem,
    quickstart_profile,
    quickstart_profile_problem,
    quickstart_value_problem,
)
from validator.rules.metadata import Hit, Rule, declare

QUICKSTART_PATH = declare(
    "REF028", Severity.ERROR,
    "A quickstart file's hardware_profile writes outside quickstart/ or onto another file", """
    The site's build writes each ``quickstart/<file>.yaml`` to
    ``quickstart/<hardware_profile>.json`` of its API, joining the path with ``..``
    honoured. ``hardware_profile`` must be one name: with ``/`` or ``..`` the file lands on
    another output of the API (``../models`` replaces ``models.json``, ``../org/model`` a
    recipe's page) or outside the API; a name no file can have everywhere (``con``, ``x.``)
    or another quickstart file's profile (compared as a case-insensitive file system does)
    replaces or loses a file; a mapping or a list is no name (the site writes ``[object
    Object].json``, or stops when its text conversion throws), nor is one too long for a
    file name (over 255 bytes with ``.json``: the build stops); without it (or with a root
    that is no mapping) the file is written as ``quickstart/undefined.json``, and a ``null``
    root stops the build, as does a folder named ``quickstart/<name>.yaml`` (the build lists
    it with the files and cannot read it). Reported at ``hardware_profile`` (else the file's
    start); a ``# recipe-check:`` comment in the file does not silence it.

    Failing (``quickstart/h100.yaml``)::

        hardware_profile: "../models"

    Passing (``quickstart/h100.yaml``)::

        hardware_profile: h100

    How to fix: set ``hardware_profile`` to the hardware id the file is about, one per
    file.
    """)

QUICKSTART_HARDWARE = declare(
    "REF029", Severity.WARNING, "A quickstart file's hardware_profile is no hardware id", """
    ``hardware_profile`` of ``quickstart/<file>.yaml`` names the file of the site's API
    (``quickstart/<hardware_profile>.json``) that readers look up by hardware id; one that
    is not an id of the taxonomy's ``hardware_profiles`` is a page no hardware leads to
    (a typo, or hardware the taxonomy does not list yet).

    Failing (``quickstart/h100.yaml``)::

        hardware_profile: h1000

    Passing (``quickstart/h100.yaml``)::

        hardware_profile: h100

    How to fix: use the taxonomy's id of that hardware (or add the hardware to the
    taxonomy first).
    """)


def is_quickstart_path(path: str) -> bool:
    """Whether the site's build reads ``path`` as a quickstart file: ``quickstart/<name>.yaml``
    directly in the folder (it lists the folder and keeps the names ending in ``.yaml``)."""
    parts = path.split("/")
    return len(parts) == 2 and parts[0] == QUICKSTART and parts[1].endswith(".yaml")


def quickstart_paths(listed: Iterable[str]) -> list[str]:
    """The quickstart files of a tree whose ``quickstart/`` folder holds ``listed`` that
    the site's build reads, in its (name) order."""
    return sorted((p for p in listed if is_quickstart_path(p)),
                  key=lambda p: p.encode("utf-8", "surrogateescape"))


def quickstart_folder_finding(entry: str) -> Finding:
    """The ``REF028`` error on ``entry``, a ``quickstart/<name>.yaml`` that is a folder."""
    return Finding(rule=QUICKSTART_PATH.id, severity=Severity.ERROR, path=entry, pointer="",
                   line=1, column=1, message=f"{entry} {QUICKSTART_FOLDER_PROBLEM}",
                   hint="move the files out of that folder, or rename it so its name does "
                   "not end in .yaml")


def quickstart_hits(doc: LoadedDocument, others: Iterable[LoadedDocument],
                    hardware_ids: Iterable[str] | None) -> Iterator[tuple[Rule, Hit]]:
    """The ``REF028``/``REF029`` hits of the quickstart document ``doc``; ``others``: the
    tree's other quickstart documents (the build writes each, in name order);
    ``hardware_ids``: the taxonomy's hardware ids (``None``: no taxonomy to compare with)."""
    if not doc.ok:
        return
    data = site_data(doc)  # as the build names the file: dates normalised
    profile = quickstart_profile(data)
    pointer = "/hardware_profile" if isinstance(data, dict) and "hardware_profile" in data \
        else ""
    fix = "set hardware_profile to the hardware id this file is about"
    missing = quickstart_missing_problem(data)
    if missing is not None or profile is None:
        yield QUICKSTART_PATH, Hit("", missing or "", fix)
        return
    shown = printable(profile)
    written = doc.data.get("hardware_profile") if isinstance(doc.data, dict) else None
    read_as = (f" (YAML reads {printable(written)!r} as a date)"
               if isinstance(written, str) and written != profile else "")
    value_problem = quickstart_value_problem(data)
    if value_problem is not None:
        yield QUICKSTART_PATH, Hit(pointer, f"hardware_profile {value_problem}", fix)
        return
    problem = quickstart_profile_problem(profile)
    if problem is not None:
        yield QUICKSTART_PATH, Hit(pointer, f"hardware_profile {shown!r}: the site writes "
                                   f"this file to {QUICKSTART}/{shown}.json, which {problem}",
                                   fix)
        return
    twins = [d.path for d in others if d.path != doc.path and d.ok
             and path_key(quickstart_profile(site_data(d)) or "") == path_key(profile)]
    if twins:
        yield QUICKSTART_PATH, Hit(pointer, f"hardware_profile {shown!r}{read_as} is also "
                                   "that of "
                                   f"{', '.join(twins)}: the site writes both to "
                                   f"{QUICKSTART}/{shown}.json, the later replacing the "
                                   "earlier", "give each quickstart file its own hardware")
    if hardware_ids is not None and profile not in set(hardware_ids):
        yield QUICKSTART_HARDWARE, Hit(pointer, f"hardware_profile {shown!r}{read_as} is no "
                                       "hardware id of the taxonomy (hardware_profiles)",
                                       "use the taxonomy's id of that hardware")
