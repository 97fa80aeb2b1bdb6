"""``REF022``/``REF023``: a whole command the site shows runs code it downloads;
``REF024``: a link the site shows is not an ``https://`` address.

A whole-command field is passed through the site's ``command-synthesis.js`` as written
and shown as its own command: ``model.install.<pip|docker>.command`` (and a variant's
on one hardware, ``variants.<v>.hardware_overrides.<hw>.install``), a vLLM-Omni task's
example request and benchmark (``omni.tasks[].curl``, per hardware too, ``.benchmark``),
``dependencies[].command``, ``features.<f>.companion.command``, a platform's ``install``
snippet (``meta.platforms[]`` of a recipe, ``platforms.yaml``), a kv-store deployment's
``vllm.install`` (per brand too), ``router.install``, ``mooncake_master.command`` and
``mooncake_store_config.command``, a taxonomy KV offload option's ``install`` and
``companion.command``. Unlike the values ``REF018`` judges (which the site splices
unquoted into a command it builds), what runs is what the reader sees: ``$VAR``, pipes,
``&&`` and substitutions there are the author's intent, so ``REF018``'s "runs code it
does not show" does not apply to them.

What a reader cannot see in such a command is a script it downloads and runs
(:mod:`validator.rules.ref.download_run`): ``curl … | sh``, ``bash <(curl …)``,
``sh -c "$(wget -qO- …)"``. Fetched over ``http://`` (or with no scheme, which ``curl``
fetches over plain HTTP) anyone on the path can replace that script: ``REF022``, an error.
Over ``https://`` it is a common install idiom (uv, rustup), but it still runs text the
page does not show: ``REF023``, a warning, so that a review looks at the URL.

``REF042``: a requirement of an install command written unquoted with ``>`` or ``<``
(``pip install transformers>=5.8.0``), which bash reads as a redirection: the pin is dropped
(:mod:`validator.analysis.unquoted_specifiers`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from validator.analysis.recipe_data import as_dict, elements, get
from validator.analysis.unquoted_specifiers import UnquotedSpecifier, unquoted_specifiers
from validator.context import Context
from validator.findings import Severity
from validator.guide.commands import find_fences
from validator.load import LoadedDocument
from validator.render.links import link_problem, page_link_problem
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.ref.download_run import DownloadRun, download_runs
from validator.sourcemap import join_pointer

KV_STORE_COMMANDS = ("/vllm/install", "/vllm/install/nvidia", "/vllm/install/amd",
                     "/router/install", "/mooncake_master/command",
                     "/mooncake_store_config/command")
"""The whole commands of a kv-store deployment (installs and companions), printed as
written."""


def recipe_commands(data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of each whole command a recipe's page shows verbatim: its
    install tabs (the model's, and a variant's on one hardware), dependencies, feature
    companions, platform snippets, and a vLLM-Omni task's example request and benchmark
    (per hardware too)."""
    yield from install_tab_commands(get(data, "model", "install"), "/model/install")
    for vkey, variant in as_dict(get(data, "variants")).items():
        overrides = join_pointer(join_pointer("/variants", vkey), "hardware_overrides")
        for hw, override in as_dict(get(variant, "hardware_overrides")).items():
            yield from install_tab_commands(get(override, "install"),
                                            join_pointer(join_pointer(overrides, hw), "install"))
    yield from omni_task_commands(get(data, "omni", "tasks"))
    for _, dep, pointer in elements(get(data, "dependencies"), "/dependencies"):
        if isinstance(get(dep, "command"), str):
            yield join_pointer(pointer, "command"), dep["command"]
    for name, feature in as_dict(get(data, "features")).items():
        text = get(feature, "companion", "command")
        if isinstance(text, str):
            yield join_pointer(join_pointer("/features", name), "companion") + "/command", text
    yield from platform_snippets(get(data, "meta", "platforms"), "/meta/platforms")


def install_tab_commands(install: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of the pip and Docker tabs' ``command`` of an install block at
    ``pointer``."""
    for channel in ("pip", "docker"):
        text = get(as_dict(install).get(channel), "command")
        if isinstance(text, str):
            yield f"{pointer}/{channel}/command", text


def omni_task_commands(tasks: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of each ``omni.tasks[]`` entry's example request (``curl``, also
    per hardware) and ``benchmark``: the page shows them for the reader to paste."""
    for _, task, item in elements(tasks, "/omni/tasks"):
        for key in ("curl", "benchmark"):
            if isinstance(get(task, key), str):
                yield join_pointer(item, key), task[key]
        for hw, override in as_dict(get(task, "hardware_overrides")).items():
            if isinstance(get(override, "curl"), str):
                yield join_pointer(join_pointer(join_pointer(item, "hardware_overrides"), hw),
                                   "curl"), override["curl"]


def platform_snippets(platforms: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of each platform entry's ``install`` snippet."""
    for _, entry, item in elements(platforms, pointer):
        if isinstance(get(entry, "install"), str):
            yield join_pointer(item, "install"), entry["install"]


def platform_links(platforms: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """``(pointer, url)`` of each platform entry's ``url`` and ``script`` (the site links
    both)."""
    for _, entry, item in elements(platforms, pointer):
        for key in ("url", "script"):
            if isinstance(get(entry, key), str):
                yield join_pointer(item, key), entry[key]


def kv_store_commands(data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of the installs and companion commands of a kv-store
    deployment."""
    for pointer in KV_STORE_COMMANDS:
        text = get(data, *pointer.strip("/").split("/"))
        if isinstance(text, str):
            yield pointer, text


def kv_offload_commands(data: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, text)`` of each taxonomy KV offload option's ``install`` and
    ``companion.command``."""
    for key, option in as_dict(get(data, "kv_offload")).items():
        base = join_pointer("/kv_offload", key)  # the tails below are plain pointer steps
        for tail, text in (("install", get(option, "install")),
                           ("companion/command", get(option, "companion", "command"))):
            if isinstance(text, str):
                yield f"{base}/{tail}", text


SHELL_FENCES = frozenset({"bash", "sh", "shell", "zsh", "console", "shell-session"})
"""The languages of a guide's code blocks that hold commands a reader pastes into a
shell."""


def guide_shell_blocks(data: Any) -> Iterator[tuple[str, str, int]]:
    """``("/guide", text, first line)`` of each shell code block of the recipe's guide
    (``first``: the guide line of the block's first line, 0-based)."""
    guide = get(data, "guide")
    if not isinstance(guide, str):
        return
    for fence in find_fences(guide):
        if fence.lang in SHELL_FENCES and fence.lines:
            yield "/guide", "\n".join(fence.lines), fence.first


def download_hits(commands: Iterable[tuple[str, str] | tuple[str, str, int]], *,
                  secure: bool) -> Iterator[Hit]:
    """One hit per command that runs a download: fetched over ``https://`` only
    (``secure``: ``REF023``) or not (``REF022``); the insecure reading wins. A command
    given with a first line (a guide's code block) is reported at the line of the URL."""
    for pointer, text, *first in commands:
        runs = download_runs(text)
        if not runs:
            continue
        worst = next((r for r in runs if not r.secure), runs[0])
        if worst.secure == secure:
            yield _download_hit(pointer, text, worst, first[0] if first else None)


def _download_hit(pointer: str, text: str, run: DownloadRun, block: int | None) -> Hit:
    urls = run.insecure_urls or run.urls
    shown = ", ".join(f"`{u}`" for u in urls[:3]) or "a URL bash cannot see"
    first = next((text.find(u) for u in urls if u in text), -1)
    line = text.count("\n", 0, first) if first >= 0 and "\n" in text.rstrip("\n") else None
    if block is not None:
        line = block + (line or 0)
    if run.secure:
        return Hit(pointer, f"this command runs a script it downloads from {shown} ({run.how}):"
                   " the page shows the command, not the code that runs",
                   "download the script in its own step and run the saved file, or install "
                   "a pinned package; if the pipe is meant, keep it and review the URL",
                   block_index=line)
    return Hit(pointer, f"this command runs a script it downloads over plain HTTP from {shown}"
               f" ({run.how}): anyone on the network path can replace what runs",
               "fetch it from an https:// URL (better: download, check and then run the "
               "saved file)", block_index=line)


def specifier_hits(commands: Iterable[tuple[str, str] | tuple[str, str, int]]
                   ) -> Iterator[Hit]:
    """One hit per requirement whose version specifier bash reads as a redirection
    (:func:`unquoted_specifiers`), at its line when the command has several (a guide's
    code block given with its first line: at that line of the guide)."""
    for pointer, text, *first in commands:
        for spec in unquoted_specifiers(text):
            line = text.count("\n", 0, spec.offset) if "\n" in text.rstrip("\n") else None
            if first:
                line = first[0] + (line or 0)
            yield Hit(pointer, _specifier_problem(spec), _specifier_fix(spec),
                      block_index=line)


def _specifier_problem(spec: UnquotedSpecifier) -> str:
    what = (f"writes its output into a file `{spec.target}`" if spec.operator == ">" else
            f"feeds it the file `{spec.target}` as input (and the command fails when there "
            "is no such file)")
    return (f"`{spec.requirement}` is not quoted: bash reads `{spec.operator}` as a "
            f"redirection, so the installer gets `{spec.name}` with no version bound and bash "
            f"{what}")


def _specifier_fix(spec: UnquotedSpecifier) -> str:
    if any(c in spec.requirement for c in " \t"):
        return (f"write the requirement as one quoted word: `\"{spec.name}>=VERSION\"` "
                "(with the bound meant)")
    quoted = shlex.quote(spec.requirement) if any(c in spec.requirement for c in '"$`\\') \
        else f'"{spec.requirement}"'
    return f"quote the requirement: `{quoted}`"


def hardware_note_links(notes: Any) -> Iterator[tuple[str, str]]:
    """``(pointer, href)`` of each ``hardware_notes.<hardware>.link.href`` (the site
    links it from the note above the command)."""
    for key, note in as_dict(notes).items():
        href = get(note, "link", "href")
        if isinstance(href, str):
            yield join_pointer(join_pointer(join_pointer("/hardware_notes", key), "link"),
                               "href"), href


def link_hits(links: Iterable[tuple[str, str]],
              problem_of: Callable[[str], str | None] = link_problem) -> Iterator[Hit]:
    """A hit per link that ``problem_of`` (:func:`link_problem`) refuses."""
    for pointer, url in links:
        problem = problem_of(url)
        if problem:
            yield Hit(pointer, f"the link {url!r} is not an https:// address the site may "
                      f"show: {problem}", "give the page's https:// address")


def shown_command_hits(kind: str, data: Any) -> dict[str, list[Hit]]:
    """Rule id -> hits of the verbatim commands and links of a context document of
    ``kind`` (``"kv_store"``: its installs and companion commands; ``"taxonomy"``: the KV
    offload options'; ``"platforms"``: ``platforms.yaml``'s install snippets and links;
    a strategy has none)."""
    commands = list(kv_store_commands(data) if kind == "kv_store" else
                    kv_offload_commands(data) if kind == "taxonomy" else
                    platform_snippets(get(data, "platforms"), "/platforms")
                    if kind == "platforms" else ())
    links = platform_links(get(data, "platforms"), "/platforms") if kind == "platforms" \
        else iter(())
    found = {"REF022": list(download_hits(commands, secure=False)),
             "REF023": list(download_hits(commands, secure=True)),
             "REF042": list(specifier_hits(commands)),
             "REF024": list(link_hits(links))}
    return {rule_id: hits for rule_id, hits in found.items() if hits}


@rule("REF022", Severity.ERROR, "A shown command runs a script it downloads over plain HTTP",
      reads=RECIPE_ONLY)
def insecure_download_run(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A whole command the page shows verbatim pipes or substitutes a download into a
    shell or interpreter, and the download is not over ``https://``: anyone on the
    network path chooses what runs. (Context files: a kv-store companion's command, a
    ``platforms.yaml`` install snippet, reported on that file.)

    Failing::

        dependencies:
          - command: "curl -sSL http://example.com/setup.sh | bash"

    Passing::

        dependencies:
          - command: "uv pip install example-setup==1.2.0"

    How to fix: fetch over ``https://``, or better download, check and run the file in
    separate steps."""
    yield from download_hits([*recipe_commands(doc.data), *guide_shell_blocks(doc.data)],
                             secure=False)


@rule("REF023", Severity.WARNING, "A shown command runs a script it downloads",
      reads=RECIPE_ONLY)
def download_run(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A whole command the page shows verbatim pipes or substitutes a download from an
    ``https://`` URL into a shell or interpreter (``curl -fsSL https://… | sh``). The
    command is shown, so this is not ``REF018``'s hidden code, but the script that runs
    is not: a warning, so that the URL is reviewed.

    Failing::

        dependencies:
          - command: "curl -fsSL https://example.com/install.sh | sh"

    Passing::

        dependencies:
          - command: "curl -fsSLO https://example.com/install.sh && sh install.sh"

    How to fix: download the script in its own step and run the saved file, or install a
    pinned package."""
    yield from download_hits([*recipe_commands(doc.data), *guide_shell_blocks(doc.data)],
                             secure=True)


@rule("REF042", Severity.ERROR, "A shown install command drops a version bound bash reads as "
      "a redirection", reads=RECIPE_ONLY)
def unquoted_version_specifier(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A whole command the page shows verbatim (a dependency's ``command``, an install tab,
    a shell block of the guide; on their own file: a kv-store's ``install`` lines, a KV
    offload option's ``install``) installs a requirement written unquoted with ``>`` or
    ``<``. Bash reads ``transformers>=5.8.0`` as ``transformers`` and a redirection of the
    output into a file ``=5.8.0``: the reader gets whatever version the index resolves (or
    keeps an older one installed), with a stray file and no error; ``vllm<0.12`` reads a
    file ``0.12`` as input instead.

    Failing::

        dependencies:
          - command: "uv pip install -U transformers>=5.8.0"

    Passing::

        dependencies:
          - command: 'uv pip install -U "transformers>=5.8.0"'

    How to fix: quote the requirement (``"transformers>=5.8.0"``)."""
    yield from specifier_hits([*recipe_commands(doc.data), *guide_shell_blocks(doc.data)])


@rule("REF024", Severity.ERROR, "A link the site shows is not an https:// address",
      reads=RECIPE_ONLY)
def unsafe_link(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A platform entry's ``url`` or ``script`` (``meta.platforms[]`` of a recipe, the
    entries of ``platforms.yaml``) becomes a link of the deploy dialog. Only an
    ``https://`` address with a plain host may be one: ``javascript:`` runs code in the
    page, ``http:`` can be rewritten on the way, ``//host`` and ``/\\host`` lead off-site.
    A hardware note's ``link.href`` (``hardware_notes.<hardware>.link``, shown above the
    command) is a link of the page too: there an in-page anchor (``#section``) and a
    path of the site (``/models/...``) are fine as well.

    Failing::

        meta:
          platforms:
            - id: modal
              script: "javascript:alert(1)"

    Passing::

        meta:
          platforms:
            - id: modal
              script: "https://github.com/example/recipes/blob/main/deploy.py"

    How to fix: give the page's ``https://`` address."""
    yield from link_hits(platform_links(get(doc.data, "meta", "platforms"), "/meta/platforms"))
    yield from link_hits(hardware_note_links(get(doc.data, "hardware_notes")), page_link_problem)
