"""What a record's validation read besides the recipe (``validation.inputs``): the vLLM
release list and the CLI registry of the default variant's minimum, each with its digest
and a path that does not depend on where the tool is installed."""

from __future__ import annotations

from pathlib import Path

from validator.context import Settings
from validator.evidence.model import DataInput
from validator.paths import CHECKOUT_DIR as PROJECT_ROOT
from validator.source.provenance import Provenance


def portable(text: str) -> str:
    """``text`` with this checkout's absolute project path removed (records must not
    depend on where the tool is installed)."""
    return text.replace(str(PROJECT_ROOT) + "/", "")


def data_inputs(min_version: str | None, settings: Settings, folder: Path) -> list[DataInput]:
    """The release list and the CLI registry (of ``folder``) the checks read, digested."""
    from validator.releases import ReleaseListError, load_release_list

    out: list[DataInput] = []
    try:  # records always use the vendored, digest-pinned list (determinism)
        rl = load_release_list(online=False, snapshot_dir=settings.vendored_dir)
        desc = rl.describe()
        out.append(DataInput(name="vllm-release-list", status="used",
                             version=desc.get("latest"), sha256=rl.sha256,
                             path=portable(rl.origin) if settings.vendored_dir else
                             f"snapshots/{rl.origin.rsplit('/', 1)[-1]}",
                             note=f"{desc.get('releases')} releases ({rl.source})"))
    except ReleaseListError as exc:
        out.append(DataInput(name="vllm-release-list", status="unavailable",
                             note=portable(str(exc))))
    from validator.vllm_cli import registry as cli

    index = folder / cli.INDEX_NAME
    if not index.is_file():
        out.append(DataInput(name="vllm-cli-registry", status="unavailable",
                             path=portable(str(index)),
                             note="no vendored vLLM CLI registries; flag checks had no "
                                  "registry to compare with"))
        return out
    try:
        versions = cli.available_versions(folder)
        out.append(DataInput(name="vllm-cli-registry-index", status="used",
                             path=portable(str(index)),
                             sha256=Provenance.of_bytes("index", index.read_bytes()).sha256,
                             note=f"{len(versions)} vendored vLLM versions"))
    except (cli.RegistryError, OSError) as exc:
        out.append(DataInput(name="vllm-cli-registry-index", status="unavailable",
                             note=portable(str(exc))))
        return out
    if min_version is None or min_version == "nightly":
        out.append(DataInput(name="vllm-cli-registry", status="unavailable",
                             note=f"no released minimum version selects a registry "
                                  f"({min_version or 'none declared'})"))
        return out
    try:
        reg = cli.load_registry(min_version, folder)
        out.append(DataInput(name="vllm-cli-registry", status="used", version=reg.version,
                             sha256=reg.sha256,
                             path=portable(str(folder / f"{reg.version}.json")),
                             note=f"registry of the default variant's minimum vLLM "
                                  f"{min_version}"))
    except (cli.RegistryError, ValueError) as exc:
        out.append(DataInput(name="vllm-cli-registry", status="unavailable",
                             note=portable(str(exc))))
    return out
