"""``ENV002``: an environment variable that changes where code, weights or packages are
fetched from (:data:`validator.analysis.env_hazards.DOWNLOAD_SOURCE_NAMES`).

``REF018`` reports the names that change what the shell runs or which code a program
loads, with no honest use in a recipe. These names have honest uses (a Hugging Face
mirror, a corporate proxy, a private index), and the value is shown in the command, so a
warning asks the author and reviewer to check the source they name.
"""

from __future__ import annotations

from collections.abc import Iterator

from validator.analysis.env_hazards import download_source_effect
from validator.analysis.recipe_data import as_dict
from validator.context import Context
from validator.findings import Severity, printable
from validator.load import LoadedDocument
from validator.render import jsval
from validator.rules.api import RECIPE_ONLY, Hit, rule
from validator.rules.env.misspelled_variable import env_maps
from validator.rules.ref.context_values import context_env_maps
from validator.sourcemap import join_pointer


def _message(name: str, value: str, effect: str, where: str) -> tuple[str, str]:
    return (f"{where}: `{printable(name)}={printable(value)}` changes where code, weights or "
            f"packages are fetched from: {effect}; the site's `export` line keeps it set in "
            "the user's shell for every later download and install, `docker run -e` in the "
            "container",
            "remove it unless the recipe needs that source; if it does, name the source "
            "and why in the guide and silence this warning on its line "
            "(`# recipe-check: ignore[ENV002]`)")


def _hits(env: object, pointer: str) -> Iterator[tuple[str, str, str, str]]:
    """``(pointer, name, value, effect)`` of each download-source name of ``env``."""
    for name, value in as_dict(env).items():
        if not isinstance(name, str) or value is None or isinstance(value, dict | list):
            continue
        text = jsval.js_str(value)
        effect = download_source_effect(name, text)
        if effect is not None:
            yield join_pointer(pointer, name), name, text, effect


def context_download_source_hits(kind: str, data: object) -> Iterator[Hit]:
    """``ENV002`` of a strategy's ``env`` (and its PD roles'), a kv-store deployment's
    ``vllm.env`` and the taxonomy's KV offload options' ``env``, on the file at the
    name's line: the site adds them to the commands of every recipe that selects the
    strategy or has the store or option active, so the file is where to fix them (once,
    not once per recipe)."""
    if kind not in ("strategy", "kv_store", "taxonomy"):
        return
    for pointer, env in context_env_maps(kind, data):
        where = pointer[1:].replace("/", ".")
        for at, name, value, effect in _hits(env, pointer):
            yield Hit(at, *_message(name, value, effect, where), on_key=True)


@rule("ENV002", Severity.WARNING, "Environment variable changes where downloads come from",
      reads=RECIPE_ONLY)
def download_source_variable(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """An environment variable of a recipe (``model.base_env``, a variant's, hardware
    override's, feature's, mode's or strategy override's ``env``/``extra_env``; and, on
    the file itself, a strategy's ``env``, a kv-store deployment's ``vllm.env`` and the
    taxonomy's KV offload options' ``env``) changes where the model's weights and code,
    or the packages the user installs, are fetched from, or whom a download trusts: the
    Hugging Face hub's ``HF_ENDPOINT``, ModelScope's ``MODELSCOPE_DOMAIN``, vLLM's
    ``VLLM_USE_MODELSCOPE`` (when ``true``), ``VLLM_MODEL_REDIRECT_PATH``,
    ``VLLM_CI_USE_S3`` (when ``1``) and ``VLLM_LORA_RESOLVER_HF_REPO_LIST``, pip's and
    uv's index, find-links, trusted-host and configuration-file settings
    (``PIP_INDEX_URL``, ``UV_INDEX_URL``, ``UV_DEFAULT_INDEX`` ...), the proxy variables
    (``HTTPS_PROXY``, ``ALL_PROXY`` ..., either case) and the CA bundles
    (``REQUESTS_CA_BUNDLE``, ``SSL_CERT_FILE`` ...). With ``--trust-remote-code`` the
    model's files include Python code vLLM runs, and the site's ``export`` line keeps the
    setting in the user's shell for the next ``pip install``. A warning, not ``REF018``:
    each has honest uses (a mirror, a corporate proxy), and the value is shown. Guide text
    is not judged (the reader sees the command as written).

    Failing::

        model:
          base_env:
            HF_ENDPOINT: "http://hub.example"

    Passing::

        model:
          base_env:
            HF_HOME: "/data/hf"

    How to fix: remove the variable, or, when the recipe needs that source, say so in the
    guide and silence the warning on its line."""
    for pointer, env in env_maps(doc.data):
        where = pointer[1:].replace("/", ".")
        for at, name, value, effect in _hits(env, pointer):
            yield Hit(at, *_message(name, value, effect, where), on_key=True)
