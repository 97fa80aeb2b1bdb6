"""The platform plugins and separate servers whose ``vllm serve`` CLI is vendored too.

Two projects change what ``vllm serve`` accepts for some recipes:

* **vLLM-Omni** (PyPI ``vllm-omni``): ``vllm serve MODEL --omni …`` hands the whole
  command line to ``vllm_omni.entrypoints.cli.main:main`` (vLLM's own ``cli/main.py``
  delegates when ``--omni`` is present; older vllm-omni wheels install their own
  ``vllm`` console script). Its ``serve`` parser is vLLM's ``make_arg_parser`` plus an
  ``OmniConfig`` group (``--stage-overrides``, ``--cache-backend``, ``--usp``, …). It
  publishes a release aligned with each even vLLM minor (0.14.0 ↔ vLLM 0.14.x) and
  pre-releases for the others.
* **vLLM-Ascend** (PyPI ``vllm-ascend``): a platform plugin. The parser is vLLM's own;
  on an NPU host vLLM calls ``NPUPlatform.pre_register_and_update(parser)`` from
  ``EngineArgs.add_cli_args``, which appends ``ascend`` to the ``--quantization``
  choices (when that release's parser has choices). The plugin also reads its own
  ``--additional-config`` keys (``vllm_ascend/ascend_config.py`` and others) and
  ``VLLM_ASCEND_*`` environment variables (``vllm_ascend/envs.py``). Releases follow
  vLLM's numbering (vllm-ascend 0.11.0 ↔ vLLM 0.11.0).

A plugin snapshot has the same shape as a vLLM one (``snapshots/vllm-cli/<name>/``,
its own ``index.json``) plus a ``plugin`` block naming the vLLM release it was built on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from validator.vllm_cli.registry import DEFAULT_REGISTRY_DIR


@dataclass(frozen=True)
class Plugin:
    """One vendored plugin.

    ``name``: the PyPI project (``"vllm-omni"``), also the snapshot folder name.
    ``display``: how messages name it (``"vLLM-Omni"``).
    ``package``: its import package (``"vllm_omni"``).
    ``entry``: the console-script target that runs ``vllm serve`` with the plugin, or
    ``None`` when vLLM's own entry point is used.
    ``argv``: extra arguments that select the plugin (``("--omni",)``).
    ``platform_hook``: import path of the platform class whose
    ``pre_register_and_update(parser)`` vLLM calls on that platform, or ``None``.
    ``lowest``: the oldest release considered.
    ``additional_config_class``: the class that types the whole ``--additional-config``
    object in the releases that have one (its fields are keys too), or ``None``.
    ``env_prefix``: the prefix of the plugin's own environment variables (``VLLM_OMNI_``).
    """

    name: str
    display: str
    package: str
    entry: str | None
    argv: tuple[str, ...]
    platform_hook: str | None
    lowest: str
    additional_config_class: str | None = None
    env_prefix: str | None = None

    @property
    def registry_dir(self) -> Path:
        """``snapshots/vllm-cli/<name>`` (checkout or installed package data)."""
        return DEFAULT_REGISTRY_DIR / self.name


OMNI = Plugin("vllm-omni", "vLLM-Omni", "vllm_omni", "vllm_omni.entrypoints.cli.main:main",
              ("--omni",), None, "0.11.0rc1", env_prefix="VLLM_OMNI_")
ASCEND = Plugin("vllm-ascend", "vLLM-Ascend", "vllm_ascend", None, (),
                "vllm_ascend.platform:NPUPlatform", "0.7.3rc1", "AscendConfig",
                env_prefix="VLLM_ASCEND_")

#: Vendored plugins by PyPI name.
PLUGINS: dict[str, Plugin] = {p.name: p for p in (OMNI, ASCEND)}


def parse_version(version: str) -> Version | None:
    """``Version(version)``, or ``None`` when it is not a PEP 440 version."""
    try:
        return Version(version)
    except InvalidVersion:
        return None


def select_releases(plugin: Plugin, versions: list[str]) -> list[str]:
    """The releases of ``plugin`` to vendor, ascending.

    Every final release from :attr:`Plugin.lowest` on, plus, for each ``major.minor``
    that has no final release, its newest pre-release (vllm-omni 0.21.0rc1 is the only
    vllm-omni build aligned with vLLM 0.21). Dev releases are never taken.
    """
    low = Version(plugin.lowest)
    parsed = [(v, p) for v in versions if (p := parse_version(v)) is not None
              and p >= low and not p.is_devrelease]
    finals = {p.release[:2] for _, p in parsed if not p.is_prerelease}
    newest_pre: dict[tuple[int, ...], tuple[Version, str]] = {}
    out: list[tuple[Version, str]] = []
    for v, p in parsed:
        if not p.is_prerelease:
            out.append((p, v))
        elif p.release[:2] not in finals:
            key = p.release[:2]
            if key not in newest_pre or p > newest_pre[key][0]:
                newest_pre[key] = (p, v)
    out.extend(newest_pre.values())
    return [v for _, v in sorted(out)]


def base_vllm(plugin_version: str, vllm_versions: list[str]) -> str | None:
    """The vendored vLLM release a plugin release is built on, or ``None``.

    The release with the same ``X.Y.Z`` (``0.23.0.post1`` and ``0.21.0rc1`` → ``0.23.0``
    and ``0.21.0``) when vendored, else the newest vendored ``X.Y.*`` release.
    """
    p = parse_version(plugin_version)
    if p is None:
        return None
    same_minor = sorted((q, v) for v in vllm_versions
                        if (q := parse_version(v)) is not None and q.release[:2] == p.release[:2])
    want = tuple((*p.release, 0, 0)[:3])
    for q, v in same_minor:
        if tuple((*q.release, 0, 0)[:3]) == want and not q.is_prerelease:
            return v
    finals = [v for q, v in same_minor if not q.is_prerelease]
    return finals[-1] if finals else None

