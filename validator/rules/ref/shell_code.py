"""``REF018``: a value the recipes site prints unquoted into a shell command must be one
plain word (:mod:`validator.analysis.shell_hazards` reads it as bash does).

The site's renderer (``command-synthesis.js``) quotes only the value item after a flag
(its ``shellQuote``). It prints as written: the model id (``vllm serve MODEL``, and again
in ``docker run``), an argument item no flag takes, every flag item (``FLAG027`` judges
the recipe's own), the Docker image, the ``vllm-omni`` binary, and each environment
variable as ``-e KEY=VALUE`` in ``docker run`` (``buildDockerRun``; a ``*_CONFIG_PATH``
value also as ``-v VALUE:VALUE:ro``). Every configuration it renders is read, so a value
of a strategy, kv-store or taxonomy file is reported on each recipe whose commands print
it, at that file's line, and (:func:`context_shell_hits`) on the file itself -- there also
the values only a context file holds: the ``router.policy`` and ``vllm.port`` the site
splices into the ``vllm-router`` command it builds, and the keys and values of a kv-store's
Mooncake config, which the page writes through an unquoted heredoc (a command substitution
runs there; :func:`_heredoc_hazards`).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from validator.analysis.arg_layers import collect_layers
from validator.analysis.env_hazards import CODE_LOADING, env_name_hazards, env_value_hazards
from validator.analysis.recipe_data import as_list, get
from validator.analysis.rendered_commands import affected
from validator.analysis.shell_hazards import (
    IMAGE_OPERAND,
    MODEL_OPERAND,
    Hazard,
    arguments_start,
    command_hazards,
    model_token,
    printed_word_hazards,
)
from validator.analysis.shell_words import printed_raw
from validator.context import Context
from validator.findings import Related, Severity, printable
from validator.load import LoadedDocument
from validator.render import jsval
from validator.render.args import shell_quote
from validator.render.omni import is_omni
from validator.render.renderer import Process, Rendered, Token
from validator.rules.api import CONTEXT_FILES, Hit, rule
from validator.rules.ref.context_values import (
    context_arg_lists,
    context_env_maps,
    context_flags,
    context_heredoc_values,
    context_kind,
    context_router_words,
)
from validator.rules.ref.printed import PLAIN as _PLAIN
from validator.rules.ref.printed import SITE as _SITE
from validator.rules.ref.printed import Printed
from validator.rules.ref.printed_images import install_images, new_image, rendered_images
from validator.sourcemap import join_pointer, split_pointer


def _argv_values(proc: Process, flag_items: frozenset[tuple[str, str]],
                 printed: dict[tuple[str, ...], tuple[tuple[int, bool], ...]] | None = None
                 ) -> Iterator[Printed]:
    """The model id and the argument items ``proc`` prints unquoted with text other than
    plain (``printed``: a memo of :func:`_bare_items` by the items' texts)."""
    model = model_token(proc)
    start = arguments_start(proc)
    if model is not None:
        yield Printed(model.document, model.pointer, model.text, "the model id",
                      f"{_SITE} prints it unquoted in `vllm serve MODEL` and in `docker run`",
                      positional=MODEL_OPERAND)
        start += 1
    args = proc.tokens[start:]
    texts = tuple(t.text for t in args)
    try:
        bare = None if printed is None else printed.get(texts)
    except TypeError:  # a text of the wrong type: judged as it is (and refused there)
        printed = bare = None
    if bare is None:
        bare = _bare_items(texts)
        if printed is not None:
            printed[texts] = bare
    for i, raw in bare:
        token = args[i]
        if (token.document, token.pointer) in flag_items:
            continue  # FLAG027's flag item
        yield _printed_item(token.document, token.pointer, token.text, raw)


def _printed_item(path: str, pointer: str, text: str, raw: bool) -> Printed:
    """An argument item the site prints unquoted: a flag item, an item no flag takes, or
    (not ``raw``) a flag's value its ``shellQuote`` leaves bare (a ``$NAME``)."""
    if not raw:
        return Printed(path, pointer, text, "the flag's value",
                       f"{_SITE} quotes a flag's value, but leaves one shaped as `$NAME` "
                       "unquoted", literal=False)
    flag = text.startswith("-")
    return Printed(path, pointer, text, "the flag item" if flag else "the argument item",
                   f"{_SITE} prints a flag item and an item no flag takes unquoted "
                   "(its shellQuote quotes only a flag's value)", literal=False,
                   split=not flag)


def _bare_items(texts: tuple[str, ...]) -> tuple[tuple[int, bool], ...]:
    """``(index, raw)`` of the argument items of ``texts`` the site prints unquoted whose
    text is not plain: a flag item or an item no flag takes (``raw``), and a flag's value
    its quoting leaves bare (``$NAME``, and ``$_``, which only looks like one)."""
    if all(_PLAIN.fullmatch(t) for t in texts):
        return ()
    return tuple((i, raw) for i, (text, raw) in enumerate(zip(texts, printed_raw(texts),
                                                              strict=True))
                 if not _PLAIN.fullmatch(text) and (raw or shell_quote(text) == text))


def _env_values(proc: Process) -> Iterator[Printed]:
    for key, value in proc.env.items():
        if value is None or isinstance(value, dict | list):
            continue  # REF015
        source: Token | None = proc.env_sources.get(key)
        if source is None or not source.document:
            continue  # the site's own value (`$IFACE_NAME` of PD GPU pinning)
        text = jsval.js_str(value)
        if _PLAIN.fullmatch(text) and _PLAIN.fullmatch(key) and not env_name_hazards(key) \
                and not env_value_hazards(key, text):
            continue
        mount = " (and `-v VALUE:VALUE:ro`)" if key.endswith("_CONFIG_PATH") else ""
        how = (f"{_SITE} prints it unquoted as `-e {printable(key)}=VALUE`{mount} in "
               "`docker run`; recipe-check's `render` quotes it in the `export` line")
        yield Printed(source.document, source.pointer, key, "the env name", how, split=True,
                      env_name=True)
        yield Printed(source.document, source.pointer, text, f"the value of env {key}", how,
                      literal=False, split=True, env_value_of=str(key))


def _omni_binary(doc: LoadedDocument, proc: Process) -> Iterator[Printed]:
    if any(t.layer == "omni.serve_binary" for t in proc.tokens):
        binary = jsval.js_str(get(doc.data, "omni", "serve_binary"))
        yield Printed(doc.path, "/omni/serve_binary", binary, "the serve binary",
                      f"{_SITE} prints it unquoted before the model id")  # words: `x serve`


def printed_values(doc: LoadedDocument, ctx: Context, renderings: list[Rendered],
                   ) -> dict[Printed, list[str]]:
    """Every value with shell syntax the site prints unquoted in the commands of
    ``renderings`` -> the configurations that print it (plain text is left out early)."""
    flag_items = frozenset((doc.path, f"{layer.pointer}/{i}")
                           for layer in collect_layers(doc.data)
                           for i, item in enumerate(layer.tokens) if item.startswith("-"))
    out: dict[Printed, list[str]] = {}
    # most renderings of a recipe print the same argument lists, environments and images
    # (in other configurations): each distinct one is read once, and each processes
    # tuple the renderer shares between configurations once (kept alive by
    # ``renderings``, so its id names one tuple of immutable processes throughout)
    seen: dict[Any, list[Printed]] = {}
    plain: dict[tuple[Any, ...], bool] = {}
    bare: dict[tuple[str, ...], tuple[int, ...]] = {}
    shared: dict[int, list[Printed]] = {}
    omni = is_omni(doc.data)  # only an omni rendering has serve-binary tokens
    for rendered in renderings:
        if not rendered.ok:
            continue
        label = rendered.config.label()
        found = _once(seen, ("image", rendered.hardware, rendered.variant,
                             rendered.docker_image), rendered_images, doc, ctx, rendered)
        processes = shared.get(id(rendered.processes))
        if processes is None:
            processes = shared[id(rendered.processes)] = []
            for proc in rendered.processes:
                if omni:
                    processes += _once(seen, ("omni", proc.tokens), _omni_binary, doc, proc)
                if not _plain_argv(plain, proc.argv):
                    processes += _once(seen, ("argv", proc.tokens), _argv_values, proc,
                                       flag_items, bare)
                processes += _once(seen, _env_key(proc), _env_values, proc)
        for printed in (*found, *processes):
            out.setdefault(printed, []).append(label)
    shown: dict[str, set[str]] = {}
    for printed in out:
        if printed.positional == IMAGE_OPERAND:
            shown.setdefault(printed.pointer, set()).add(printed.text)
    for printed in _once(seen, None, install_images, doc):
        if new_image(shown, printed.pointer, printed.text):
            out.setdefault(printed, []).append("the install command")
    return out


def _once(seen: dict[Any, list[Printed]], key: Any, find: Callable[..., Iterable[Printed]],
          *args: Any) -> list[Printed]:
    """The judged values ``find(*args)`` finds, found once per ``key`` (``None``, or a
    key holding a mapping or a list of a malformed recipe: found each time)."""
    try:
        hit = None if key is None else seen.get(key)
    except TypeError:  # unhashable: a value of the wrong type, read as it is
        key = None
    if key is None:
        return [p for p in find(*args) if p.judged()]
    if hit is None:
        hit = seen[key] = [p for p in find(*args) if p.judged()]
    return list(hit)


def _plain_argv(plain: dict[tuple[Any, ...], bool], argv: tuple[Any, ...]) -> bool:
    """Whether every item of ``argv`` is a string of plain text (then its tokens, whose
    texts those strings are, print no value :func:`_argv_values` judges), once per
    distinct argv: the same list recurs on every hardware with its own token pointers."""
    try:
        found = plain.get(argv)
    except TypeError:  # an item of the wrong type (a mapping, a list): not plain
        return False
    if found is None:
        found = plain[argv] = all(type(a) is str and _PLAIN.fullmatch(a) for a in argv)
    return found


def _env_key(proc: Process) -> Any:
    """What :func:`_env_values` reads of ``proc`` (``None`` where a value is a mapping or
    a list: read as it is)."""
    try:
        # typed: ``1``, ``1.0`` and ``True`` print differently
        key = ("env", tuple((k, type(v), v) for k, v in proc.env.items()),
               tuple(proc.env_sources.items()))
        hash(key)
    except TypeError:
        return None
    return key


def _heredoc_hazards(text: str) -> tuple[Hazard, ...]:
    """What bash runs of ``text`` in the body of an unquoted heredoc: the first command
    substitution (``$(...)``, a backquote; an arithmetic expansion ``$((...))``, whose
    array index runs commands) that no backslash escapes. Quotes are plain characters
    there, and ``$NAME`` is meant to expand (the corpus's ``$MOONCAKE_MASTER_IP``)."""
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == "`" or text.startswith("$(", i):
            found = [h for h in command_hazards(text[i:]) if h.kind in (
                "command substitution", "arithmetic expansion")]
            return tuple(found[:1])
        i += 1
    return ()


def _hazards(printed: Printed) -> tuple[Hazard, ...]:
    if printed.heredoc:
        return _heredoc_hazards(printed.text)
    found = tuple(printed_word_hazards(printed.text, literal=printed.literal,
                                       split=printed.split, positional=printed.positional))
    found += tuple(env_value_hazards(printed.env_value_of, printed.text))
    return found + tuple(env_name_hazards(printed.text)) if printed.env_name else found


def _control(hazards: tuple[Hazard, ...]) -> bool:
    return all(h.kind in ("shell-control variable", CODE_LOADING) for h in hazards)


def _problem(printed: Printed, hazards: tuple[Hazard, ...]) -> str:
    """``the env name 'X' is shell syntax, not one plain word`` (or a variable the
    shell acts on, or one that decides which code a program loads)."""
    if _control(hazards):
        what = ("a variable that decides which code a program loads"
                if any(h.kind == CODE_LOADING for h in hazards)
                else "a variable the shell acts on")
        return f"{printed.what} '{printable(printed.text)}' is {what}, not a setting of vLLM"
    return f"{printed.what} '{printable(printed.text)}' is shell syntax, not one plain word"


def _fix(printed: Printed, hazards: tuple[Hazard, ...]) -> str:
    if _control(hazards):
        return ("remove the variable: it configures the user's shell or every program "
                "started, not vLLM")
    return _HINT.format(printable(shlex.quote(printed.text)))


def _hit(doc: LoadedDocument, ctx: Context, printed: Printed, hazards: tuple[Hazard, ...],
         labels: list[str]) -> Hit:
    what = "; ".join(h.describe() for h in hazards)
    message = (f"{_problem(printed, hazards)}, in the command users copy: {printable(what)}; "
               f"{printed.how} "
               f"({affected(labels)})")
    hint = _fix(printed, hazards)
    if printed.document == doc.path:
        return Hit(printed.pointer, message, hint)
    other = next((d for d in ctx.context_documents() if d.path == printed.document), None)
    line = other.source_map.position(printed.pointer)[0] if other else 1
    return Hit(_selecting(doc, printed), f"{message}; the value is {printed.pointer} of "
               f"{printed.document}", hint,
               related=(Related(line, f"the value is in {printed.document}",
                                printed.document),))


def _selecting(doc: LoadedDocument, printed: Printed) -> str:
    """The recipe's pointer that brings ``printed`` (a value of another file) into its
    commands: the ``compatible_strategies`` item naming the strategy, the
    ``kv_offload_support`` key of the KV offload option; ``""`` (the document) if none."""
    if printed.document.startswith("strategies/"):
        name = printed.document.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        for i, item in enumerate(as_list(get(doc.data, "compatible_strategies"))):
            if item == name:
                return f"/compatible_strategies/{i}"
    parts = split_pointer(printed.pointer)
    if len(parts) > 1 and parts[0] == "kv_offload" and get(
            doc.data, "kv_offload_support", parts[1]) is not None:
        return join_pointer("/kv_offload_support", parts[1])
    return ""


def _judged_on_their_files(ctx: Context) -> frozenset[tuple[str, str]]:
    """``(path, pointer)`` of every value of a context file that :func:`context_shell_hits`
    reports on that file: a recipe's rendering that prints it does not report it again."""
    def compute() -> frozenset[tuple[str, str]]:
        out: set[tuple[str, str]] = set()
        for other in ctx.context_documents():
            kind = context_kind(ctx, other.path)
            if other.ok and kind is not None:
                out.update((other.path, h.pointer)
                           for h in context_shell_hits(other.path, kind, other.data))
        return frozenset(out)
    return ctx.memoised("REF018 values judged on their context files", compute)


def _context_printed(path: str, kind: str, data: Any) -> Iterator[Printed]:
    """The values of a context file the site prints unquoted into the commands of every
    recipe that renders with it: the raw items of its argument lists, a strategy's
    parallel-size flags, the router policy and vLLM port of the ``vllm-router`` command,
    and the names and values of its environment maps."""
    for layer in context_arg_lists(kind, data):
        texts = [jsval.js_str(t) for t in layer.tokens]
        for i, (text, raw) in enumerate(zip(texts, printed_raw(texts), strict=True)):
            if not _PLAIN.fullmatch(text) and (raw or shell_quote(text) == text):
                yield _printed_item(path, f"{layer.pointer}/{i}", text, raw)
    for pointer, flag in context_flags(kind, data):
        yield Printed(path, pointer, flag, "the flag item", _parallel_flag_how(data, pointer),
                      literal=False)
    for pointer, text, what, line in context_router_words(kind, data):
        policy = line.startswith("vllm-router --policy")
        yield Printed(path, pointer, text, what, f"{_SITE} prints it unquoted in the router "
                      f"command's line `{line}`", literal=False, split=True,
                      positional="the policy of `vllm-router --policy`" if policy else "")
    for pointer, text in context_heredoc_values(kind, data):
        yield Printed(path, pointer, text, "the Mooncake config text",
                      "the page writes this config to a file through an unquoted heredoc "
                      "(as the file's own comments say; the site's renderer passes it on as "
                      "data)", heredoc=True)
    for pointer, env in context_env_maps(kind, data):
        for key, value in env.items():
            if value is None or isinstance(value, dict | list):
                continue
            text = jsval.js_str(value)
            how = (f"{_SITE} prints it unquoted as `-e {printable(key)}=VALUE` in "
                   "`docker run`")
            at = join_pointer(pointer, key)
            yield Printed(path, at, key, "the env name", how, env_name=True, split=True)
            yield Printed(path, at, text, f"the value of env {key}", how, literal=False,
                          split=True)


def _parallel_flag_how(data: Any, pointer: str) -> str:
    """How the site prints a strategy's parallel flag: before the parallel size, except
    on a multi-node deployment of more than one node, where it prints flags of its own
    (``--tensor-parallel-size N``, the ``--data-parallel-*`` set for
    ``--data-parallel-size``) and the strategy's text only where it renders on one node."""
    if pointer == "/parallel_flag" and get(data, "deploy_type") == "multi_node":
        return (f"{_SITE} prints it unquoted before the parallel size only where this "
                "multi-node strategy renders on one node; on more nodes it prints "
                "`--tensor-parallel-size N` of its own instead")
    return f"{_SITE} prints the strategy's parallel flag unquoted before the parallel size"


def context_shell_hits(path: str, kind: str, data: Any) -> list[Hit]:
    """``REF018`` hits of the context file at ``path`` of ``kind`` (a strategy, a
    kv-store deployment, the taxonomy's KV offload options) at its own lines: each value
    it adds to the commands users copy is judged as bash reads it, on the file itself."""
    out = []
    for printed in _context_printed(path, kind, data):
        hazards = _hazards(printed) if printed.judged() else ()
        if hazards:
            what = "; ".join(h.describe() for h in hazards)
            out.append(Hit(printed.pointer, (
                f"{_problem(printed, hazards)}, in the commands users copy of every recipe "
                "using this file: "
                f"{printable(what)}; {printed.how}"), _fix(printed, hazards)))
    return out


REFUSED_TAGS = ("YAML008", "YAML009")
"""The loader's findings of a tag js-yaml refuses: the value under it is read here as if
untagged, but the site never renders it (js-yaml refuses the file)."""


def _under(pointer: str, tops: tuple[str, ...]) -> bool:
    return any(pointer == top or pointer.startswith(top + "/") for top in tops)


_HINT = ("write a plain value: the site does not quote this text, so bash reads it as "
         "written (only a quoted form such as {} would be literal)")


@rule("REF018", Severity.ERROR, "A rendered command holds shell code",
      reads=CONTEXT_FILES)
def rendered_command_holds_shell_code(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A value the site prints unquoted into the ``vllm serve`` or ``docker run`` command
    users copy holds shell syntax: bash runs a command substitution (``$(...)``, a
    backquote), ends the command at a control operator (``;``, ``&``, ``&&``, ``|``), a
    line break or a carriage return (Enter, once pasted into a terminal) and runs what
    follows, takes a control character as a key (Ctrl-U erases the line), redirects into a
    file, opens a subshell, drops the rest at a ``#``, reads on past a quote left open,
    splits an env entry into several words, changes the text (quotes, braces, globs), or
    -- in a model id, an image or an env name -- expands a parameter. The site quotes only
    a flag's value; the model id, the image, argument items no flag takes and each ``-e
    KEY=VALUE`` of ``docker run`` are printed as written (the image of every CUDA build
    the record page's toggle can show -- each entry of a CUDA-keyed map at every level, a
    plain tag as ``TAG-cu129`` -- and of the install's ``docker pull``; a plain ``$NAME``
    env value, as the site's own ``$HEAD_IP``, is meant to expand and is not reported).
    An env name the
    shell or the dynamic loader acts on (``PROMPT_COMMAND``, ``BASH_ENV``, ``LD_PRELOAD``,
    ``PATH``, ``IFS``, ``PS1``, ``BASH_FUNC_*`` ...) is reported too: ``export NAME=...``
    changes the user's own shell.

    Failing::

        model:
          base_env:
            VLLM_LOGGING_LEVEL: "$(touch pwned)"

    Passing::

        model:
          base_env:
            VLLM_LOGGING_LEVEL: "INFO"

    How to fix: write the plain value; the site prints it unquoted, so no quoting in the
    recipe makes shell syntax literal."""
    from validator.render.cache import rendered_configurations

    elsewhere = _judged_on_their_files(ctx)
    refused = tuple(f.pointer for f in doc.findings if f.rule in REFUSED_TAGS)
    for printed, labels in printed_values(doc, ctx, rendered_configurations(doc, ctx)).items():
        if (printed.document, printed.pointer) in elsewhere:
            continue  # reported on the context file itself, at its line
        if printed.document == doc.path and _under(printed.pointer, refused):
            continue  # js-yaml refuses the tagged node (and the file): its finding says so
        hazards = _hazards(printed)
        if hazards:
            yield _hit(doc, ctx, printed, hazards, labels)
