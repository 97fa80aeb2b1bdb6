"""The text ``recipe-check render`` prints: the commands of one rendering as a user pastes
them, section titles and notes as shell comments."""

from __future__ import annotations

from typing import Any

from validator.checks.shell_hazards import (
    WARNING,
    comment_line,
    env_name_hazards,
    warning_lines,
)
from validator.render.args import shell_quote
from validator.render.jsval import js_str
from validator.render.model import Process, Rendered


def _warned(command: str) -> list[str]:
    """``command`` under a ``# warning:`` line per shell hazard it holds."""
    return [*warning_lines(command), command]


def _process_block(proc: Process, title: str) -> list[str]:
    out = [comment_line(f"--- {title}: vllm serve ---")]
    for key, value in proc.env.items():
        out += [comment_line(f"warning: {WARNING} {hazard.describe()}")
                for hazard in env_name_hazards(str(key))]
        out += _warned(f"export {key}={shell_quote(js_str(value))}")
    out += _warned(str(proc.command))
    if proc.docker_command:
        out += ["", comment_line(f"--- {title}: docker ---"), *_warned(proc.docker_command)]
    return out


def text_block(r: Rendered, reasons: list[str] | None = None,
               feature_labels: list[str] | None = None) -> str:
    """The commands of one rendering, as a user pastes them (section titles are shell
    comments); ``reasons`` why the site would not offer it become ``# note:`` lines under
    the header, ``feature_labels`` name the features. A comment line holding recipe text
    keeps it on that line (:func:`comment_line`); a ``vllm serve`` / ``docker run`` /
    ``export`` line holding shell code has a ``# warning:`` line per hazard above it."""
    c = r.config
    site = r.site or {}
    features = ", ".join(feature_labels if feature_labels is not None else c.features) \
        or "none"
    if r.deploy_type == "omni":
        head = (f"{r.recipe_path} · {c.hardware} · {c.variant} · vLLM-Omni"
                f"{f' · task {c.omni_task}' if c.omni_task else ''}")
    else:
        head = (f"{r.recipe_path} · {c.hardware} · {c.variant} · {c.key}"
                f"{f' (serving {c.strategy})' if c.kv_offload else ''} · "
                f"{r.node_count} node{'s' if r.node_count != 1 else ''}"
                f"{''.join(f' · {role} ×{n}' for role, n in c.pd_nodes or ())}"
                f"{f' · {c.kv_instances} kv instances' if c.kv_instances else ''}"
                f" · features: {features}")
    lines = [comment_line(head)]
    lines += [comment_line(f"note: {reason}") for reason in reasons or ()]
    install = r.install or {}
    if "pip" in install:
        lines += ["", "# --- install (pip) ---", str(install["pip"]["command"])]
        if install["pip"].get("note"):
            lines.append(comment_line(str(install["pip"]["note"])))
    if "docker" in install:
        lines += ["", "# --- install (docker) ---", *_docker_install(r, install["docker"])]
    for extra in install.get("extras") or []:
        if isinstance(extra, dict) and extra.get("command"):
            note = str(extra.get("note") or extra.get("name") or "").splitlines()
            lines += ["", comment_line(f"--- dependency{': ' + note[0] if note else ''} ---"),
                      str(extra["command"]).rstrip()]
    for comp in site.get("companions") or []:
        lines += ["", comment_line(f"--- {comp['label']} (separate terminal) ---"),
                  comp["command"]]
    if r.deploy_type == "kv_store_lb":
        lines += ["", "# --- mooncake master ---", str((site.get("master") or {}).get(
            "command", ""))]
        if site.get("store"):
            lines += ["", "# --- mooncake store ---", str(site["store"].get("command", ""))]
    for proc in r.processes:
        lines += ["", *_process_block(proc, proc.role)]
    router = site.get("router")
    if isinstance(router, dict) and router.get("command"):
        lines += ["", "# --- router ---", str(router.get("install", "")), router["command"]]
    return "\n".join(lines)


def _docker_install(r: Rendered, docker: dict[str, Any]) -> list[str]:
    # The JSON API's docker line always pulls the NVIDIA image; the page pulls the image the
    # `docker run` below uses (that of the chosen hardware). A recipe's own install command
    # (not a plain pull) is shown as written.
    command = str(docker.get("command", ""))
    if r.docker_image is not None and command.startswith("docker pull ") and "\n" not in command:
        return _warned(f"docker pull {js_str(r.docker_image)}")
    return [command]
