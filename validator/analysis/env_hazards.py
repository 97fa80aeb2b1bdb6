"""Environment variables that change what a later program runs (``REF018``): by their
NAME (:func:`env_name_hazards`: any value does it) or by their VALUE
(:func:`env_value_hazards`: most values of such a variable are plain settings).

``PYTHONWARNINGS`` holds comma-separated warning filters ``action:message:category:
module:lineno``; Python resolves a dotted ``category`` (``pkg.mod.Cat``) by importing
``pkg.mod`` at start-up, so ``ignore::evil.Cat`` runs ``evil.py`` from the working folder
or ``sys.path``. A category without a dot is looked up among the built-in exceptions (no
import), and ``builtins.``/``warnings.`` name modules Python has loaded already.
"""

from __future__ import annotations

from validator.analysis.shell_hazards import Hazard

EXPORTED_EFFECT = ("`export NAME=...` (recipe-check's `render`, a guide) sets it in the "
                   "user's own shell, `docker run -e` in every process of the container: ")
SHELL_CONTROL_NAMES = {
    "PROMPT_COMMAND": "bash runs its value as a command before every prompt",
    "BASH_ENV": "every non-interactive bash started later first runs the file it names",
    "ENV": "sh (and bash in POSIX mode) runs the file it names at start",
    "LD_PRELOAD": "the dynamic loader loads the library it names into every program started",
    "LD_AUDIT": "the dynamic loader loads the library it names into every program started",
    "LD_LIBRARY_PATH": "the dynamic loader looks for every program's libraries there first",
    "PATH": "it decides which program each command name runs",
    "IFS": "bash splits every unquoted expansion at its characters",
    "PS0": "bash expands it (command substitutions included) after every command line",
    "PS1": "bash expands it (command substitutions included) at every prompt",
    "PS2": "bash expands it (command substitutions included) at every continuation prompt",
    "PS3": "bash expands it as the prompt of `select`",
    "PS4": "bash expands it (command substitutions included) before every traced command",
    "SHELLOPTS": "every bash started later turns on the shell options it lists",
    "BASHOPTS": "every bash started later turns on the shopt options it lists",
    "CDPATH": "`cd` looks for folders there before the current one",
    "GLOBIGNORE": "bash drops the file names it matches from every glob (and turns on "
                  "dotglob)",
    "HISTFILE": "bash writes the session's command history into the file it names",
    "HISTFILESIZE": "bash truncates the history file to that many lines",
    "HISTSIZE": "bash keeps only that many history lines",
    "HISTCONTROL": "it changes which commands bash records in the history",
    "HISTIGNORE": "bash leaves the commands it matches out of the history",
    "HOME": "`~` and a bare `cd` go there",
    "TMOUT": "an interactive bash exits after that many idle seconds",
    "INPUTRC": "readline reads its key bindings (which can run commands) from that file",
    "BASH_XTRACEFD": "bash writes its trace output to that file descriptor",
    "EXECIGNORE": "bash skips the programs it matches when looking up a command",
    "POSIXLY_CORRECT": "bash switches to POSIX mode",
}
"""Environment variable names that change what a shell (or the dynamic loader) does,
with what it does: not settings of vLLM, never meant for a recipe's env."""


_PYTHON = "every Python started later (vLLM included) "
CODE_LOADING_NAMES = {
    "PYTHONPATH": _PYTHON + "imports modules from the folders it names first",
    "PYTHONHOME": _PYTHON + "loads its standard library from the folder it names",
    "PYTHONSTARTUP": "every interactive Python started later first runs the file it names",
    "PYTHONUSERBASE": _PYTHON + "reads the site-packages (and their `.pth` code) there",
    "PYTHONBREAKPOINT": _PYTHON + "imports and calls what it names at `breakpoint()`",
    "OPENSSL_CONF": "every program using OpenSSL reads that configuration file, which can "
                    "load engine and provider libraries (code)",
    "GCONV_PATH": "the C library loads character-set converters (code) from the folder it "
                  "names",
    "NODE_OPTIONS": "every Node.js started later takes its options (`--require` runs a file)",
    "NODE_PATH": "every Node.js started later looks for modules there",
    "PERL5OPT": "every perl started later takes its options (`-M` loads a module)",
    "PERL5LIB": "every perl started later loads modules from the folders it names first",
    "PERLLIB": "every perl started later loads modules from the folders it names first",
    "RUBYOPT": "every ruby started later takes its options (`-r` loads a file)",
    "RUBYLIB": "every ruby started later loads files from the folders it names first",
    "JAVA_TOOL_OPTIONS": "every JVM started later takes its options (`-javaagent` loads code)",
    "_JAVA_OPTIONS": "every JVM started later takes its options (`-javaagent` loads code)",
    "JDK_JAVA_OPTIONS": "every `java` started later takes its options (`-javaagent` loads "
                        "code)",
}
"""Environment variable names that change which code an interpreter or the C library
loads, with what they do: not settings of vLLM (the corpus sets none of them in a recipe's
or context file's env map; guide text may show them, and is not judged by them)."""
CODE_LOADING = "code-loading variable"
"""The :class:`Hazard` kind of a :data:`CODE_LOADING_NAMES` name."""


def env_name_hazards(name: str) -> list[Hazard]:
    """The :class:`Hazard` of an environment variable name the shell or the dynamic loader
    acts on (:data:`SHELL_CONTROL_NAMES`, an exported function ``BASH_FUNC_*``), or one
    that changes which code a program loads (:data:`CODE_LOADING_NAMES`)."""
    if name in CODE_LOADING_NAMES:
        return [Hazard(CODE_LOADING, name, EXPORTED_EFFECT + CODE_LOADING_NAMES[name])]
    effect = SHELL_CONTROL_NAMES.get(name)
    if effect is None and name.startswith("BASH_FUNC_"):
        effect = "every bash started later defines a shell function from its value"
    if effect is None:
        return []
    return [Hazard("shell-control variable", name, EXPORTED_EFFECT + effect)]


_LOADED_MODULES = frozenset({"builtins", "warnings"})
"""Modules a warning category may name without importing anything new."""


def imported_warning_modules(value: str) -> list[str]:
    """The modules Python imports to read ``PYTHONWARNINGS=value`` (each filter's category
    field, stripped as Python strips it, that names a module outside builtins/warnings)."""
    found = []
    for entry in value.split(","):
        fields = [f.strip() for f in entry.split(":")]
        category = fields[2] if len(fields) > 2 else ""
        module = category.rpartition(".")[0]
        if module and module not in _LOADED_MODULES:
            found.append(module)
    return found


def env_value_hazards(name: str, value: str) -> list[Hazard]:
    """The :class:`Hazard` of env ``name`` set to ``value`` when that value makes a program
    load code (``PYTHONWARNINGS`` naming a category of a module to import), else none."""
    if name != "PYTHONWARNINGS":
        return []
    return [Hazard(CODE_LOADING, f"{name}={value}", EXPORTED_EFFECT + "every Python started later "
                   f"(vLLM included) imports the module `{module}` its warning filter names "
                   "as a category, running its code")
            for module in imported_warning_modules(value)[:1]]


_PROXY = ("every program that honours it (pip, uv, curl, huggingface_hub, vLLM's own "
          "downloads) sends its requests through the server it names")
_CA = ("Python's requests, curl or OpenSSL trust the certificates of the file it names: a "
       "server holding one can stand in for the model hub or the package index")
DOWNLOAD_SOURCE_NAMES = {
    "HF_ENDPOINT": "huggingface_hub (which vLLM downloads models with) fetches the model's "
                   "files -- weights, configs and, with `--trust-remote-code`, Python code "
                   "-- from the server it names instead of huggingface.co",
    "MODELSCOPE_DOMAIN": "ModelScope downloads the model's files from the domain it names",
    "VLLM_USE_MODELSCOPE": "vLLM downloads the model from ModelScope, where the same id may "
                           "name another owner's repository, instead of huggingface.co",
    "VLLM_MODEL_REDIRECT_PATH": "vLLM reads a file mapping model ids to other repositories "
                                "or folders, and loads those instead",
    "VLLM_CI_USE_S3": "vLLM loads the model from the S3 bucket of vLLM's CI instead of "
                      "huggingface.co",
    "VLLM_LORA_RESOLVER_HF_REPO_LIST": "vLLM's Hugging Face LoRA resolver loads adapters "
                                       "from the repositories it lists",
    "PIP_INDEX_URL": "pip installs packages (vLLM itself) from the index it names",
    "PIP_EXTRA_INDEX_URL": "pip also looks for packages (vLLM itself) in the index it names, "
                           "and takes the highest version of either",
    "PIP_FIND_LINKS": "pip installs packages from the pages or folders it names",
    "PIP_TRUSTED_HOST": "pip accepts packages from that host over plain HTTP or an "
                        "unverified certificate",
    "PIP_CONFIG_FILE": "pip reads its settings (index URLs included) from the file it names",
    "PIP_CERT": "pip trusts the certificates of the file it names",
    "UV_INDEX_URL": "uv installs packages (vLLM itself) from the index it names",
    "UV_DEFAULT_INDEX": "uv installs packages (vLLM itself) from the index it names",
    "UV_EXTRA_INDEX_URL": "uv also looks for packages (vLLM itself) in the index it names",
    "UV_INDEX": "uv also looks for packages (vLLM itself) in the indexes it names",
    "UV_FIND_LINKS": "uv installs packages from the pages or folders it names",
    "UV_INSECURE_HOST": "uv accepts packages from that host without a verified certificate",
    "UV_CONFIG_FILE": "uv reads its settings (index URLs included) from the file it names",
    "UV_PYTHON_INSTALL_MIRROR": "uv downloads the Python interpreters it installs from the "
                                "mirror it names",
    "HTTP_PROXY": _PROXY, "http_proxy": _PROXY,
    "HTTPS_PROXY": _PROXY, "https_proxy": _PROXY,
    "ALL_PROXY": _PROXY, "all_proxy": _PROXY,
    "REQUESTS_CA_BUNDLE": _CA, "CURL_CA_BUNDLE": _CA, "SSL_CERT_FILE": _CA,
    "SSL_CERT_DIR": _CA,
}
"""Environment variable names that change where the model's weights and code, or the
packages a user installs, are fetched from (or whom a download trusts), with what each
does: the Hugging Face hub's and ModelScope's endpoints, vLLM's own switches (names from
the vendored vLLM registries, ``validator/data/vllm_cli.json``), pip's and uv's index,
find-links, trusted-host and configuration-file settings, the proxy variables and the CA
bundles. Each has honest uses (a mirror, a corporate proxy), so ``ENV002`` warns; the
corpus (main and every pull request head) sets none of them in an env map."""
DOWNLOAD_SWITCHES = {"VLLM_USE_MODELSCOPE": ("true",), "VLLM_CI_USE_S3": ("1",)}
"""Names of :data:`DOWNLOAD_SOURCE_NAMES` that act only for these values (vLLM compares
``VLLM_USE_MODELSCOPE`` lower-cased with ``true``, ``VLLM_CI_USE_S3`` with ``1``)."""


def download_source_effect(name: str, value: str) -> str | None:
    """What env ``name`` set to ``value`` changes about where code, weights or packages
    come from (:data:`DOWNLOAD_SOURCE_NAMES`), or ``None``."""
    effect = DOWNLOAD_SOURCE_NAMES.get(name)
    switch = DOWNLOAD_SWITCHES.get(name)
    if effect is None or (switch is not None and value.lower() not in switch):
        return None
    return effect
