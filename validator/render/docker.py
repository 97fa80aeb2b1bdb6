"""Docker image choice, ``docker run`` wrapping (text and argv) and install commands."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from validator.render import jsval
from validator.render.jsval import get, has_key, or_, truthy

_LATEST = {
    "nvidia": "vllm/vllm-openai:latest",
    "amd": "vllm/vllm-openai-rocm:latest",
    "tpu": "vllm/vllm-tpu:latest",
    "intel": "vllm/vllm-openai-cpu:latest-x86_64",
}
_NIGHTLY = {
    "nvidia": "vllm/vllm-openai:nightly",
    "amd": "vllm/vllm-openai-rocm:nightly",
    "tpu": "vllm/vllm-tpu:nightly",
}
_XPU_IMAGE = "vllm/vllm-openai-xpu:latest"
_HF_CACHE = "~/.cache/huggingface:/root/.cache/huggingface"
_SERVE_MODEL = re.compile(r"^vllm serve (\S+)")
_SERVE_PREFIX = re.compile(r"^vllm serve \S+\s*\\?\n?\s*")
_JOIN = " \\\n  "
BASE_CUDA = "cu130"
"""CUDA flavour of the install commands the site's JSON API shows."""
CUDA_BUILDS = ("cu129", "cu130")
"""The CUDA builds of a CUDA-keyed NVIDIA image (the site's ``dockerCudaVariant`` toggle:
its record page re-picks the image from the map; its JSON API uses :data:`BASE_CUDA`)."""
ALT_CUDA = "cu129"
"""The build the site's toggle offers beside the base one: a plain NVIDIA tag (not a CUDA
map) gets it as a suffix, ``:tag-cu129`` (:func:`cuda_tag`)."""
_UPSTREAM_NIGHTLY = re.compile(r"vllm/vllm-(?:openai|openai-rocm|tpu):nightly")
"""An upstream nightly tag: its CUDA build is a prefix, ``:cu129-nightly``."""


def cuda_tag(image: str, cuda: str) -> str:
    """``image`` (a plain NVIDIA tag) of CUDA build ``cuda`` as the site's record page
    writes it: unchanged for :data:`BASE_CUDA`; for :data:`ALT_CUDA` the upstream nightly
    tags become ``:cu129-nightly``, any other tag gets ``-cu129`` appended."""
    if cuda != ALT_CUDA:
        return image
    if _UPSTREAM_NIGHTLY.fullmatch(image):
        return f"{image[:-len('nightly')]}{ALT_CUDA}-nightly"
    return f"{image}-{ALT_CUDA}"


@dataclass(frozen=True)
class DockerMeta:
    """Image and device flags for one hardware profile.

    ``image`` is ``None`` where the site has no image (Intel CPU with a nightly-only
    model): its JSON then omits ``docker_image`` and its command reads ``undefined``.
    ``source`` is where a recipe image comes from: ``(level, key)`` with level
    ``"hardware"`` (the variant's ``hardware_overrides.<hw>.docker_image``), ``"variant"``
    or ``"model"`` (their ``docker_image``) and key the brand of a brand-keyed map
    (``None`` for a string or a CUDA map); ``None`` when the image is the site's default.
    """

    image: Any
    gpu_flags: str
    gpu_argv: tuple[str, ...]
    brand_key: str
    pinned: Any
    cuda_map: Any
    nightly_required: bool
    source: tuple[str, str | None] | None = None
    cuda_key: str | None = None
    """The key of the CUDA map the image was picked from (``None``: not from a map)."""


def _is_cuda_map(value: Any) -> bool:
    return isinstance(value, dict) and ("cu129" in value or "cu130" in value)


def _brand_keyed(value: Any) -> bool:
    return any(has_key(value, k) for k in ("nvidia", "amd", "tpu", "intel"))


def _map_key(cuda_map: Any, order: tuple[str, ...]) -> str | None:
    """The first key of ``order`` whose entry of ``cuda_map`` is truthy (JS ``||``)."""
    if not truthy(cuda_map):
        return None
    return next((k for k in order if truthy(get(cuda_map, k))), None)


def compute_docker_meta(recipe: Any, variant: Any, profile: Any,
                        hw_id: str | None = None, cuda: str = BASE_CUDA) -> DockerMeta:
    """Image precedence: variant hardware override > variant > model > brand default;
    from a CUDA map, build ``cuda`` (else the other one); any other NVIDIA image takes
    build ``cuda`` as the site's toggle writes it (:func:`cuda_tag`)."""
    nightly = get(get(recipe, "model"), "nightly_required") is True
    defaults = _NIGHTLY if nightly else _LATEST
    is_amd = get(profile, "brand") == "AMD"
    is_tpu = get(profile, "generation") == "tpu"
    is_xpu = get(profile, "generation") == "xpu"
    is_intel = get(profile, "generation") == "cpu" or is_xpu or get(profile, "brand") == "Intel"
    brand = "tpu" if is_tpu else "amd" if is_amd else "intel" if is_intel else "nvidia"
    exact = get(get(get(variant, "hardware_overrides"), hw_id), "docker_image") if truthy(
        hw_id) else None
    pinned: Any = exact if isinstance(exact, str) else None
    source: tuple[str, str | None] | None = ("hardware", None) if truthy(pinned) else None
    cuda_map: Any = None
    for level, override in (("variant", get(variant, "docker_image")),
                            ("model", get(get(recipe, "model"), "docker_image"))):
        if not truthy(override) or truthy(pinned) or truthy(cuda_map):
            continue
        if isinstance(override, str):
            if brand == "nvidia":
                pinned, source = override, (level, None)
        elif jsval.is_object(override):
            if _brand_keyed(override):
                value = get(override, brand)
                if isinstance(value, str):
                    pinned, source = value, (level, brand)
                elif brand == "nvidia" and _is_cuda_map(value):
                    cuda_map, source = value, (level, brand)
            elif brand == "nvidia" and _is_cuda_map(override):
                cuda_map, source = override, (level, None)
    cuda_key = _map_key(cuda_map, (cuda, "cu130", "cu129"))
    from_map = get(cuda_map, cuda_key) if cuda_key is not None else None
    if is_xpu and not truthy(pinned):
        image: Any = _XPU_IMAGE
    else:
        image = or_(pinned, from_map, defaults.get(brand))
        if brand == "nvidia" and not truthy(cuda_map) and isinstance(image, str):
            image = cuda_tag(image, cuda)
    if not truthy(pinned) and not truthy(from_map):
        source = None  # the site's own default image
    if is_tpu:
        flags = "--privileged --network host \\\n  -v /dev/shm:/dev/shm"
        argv: tuple[str, ...] = ("--privileged", "--network", "host", "-v", "/dev/shm:/dev/shm")
    elif is_amd:
        flags = ("--device=/dev/kfd --device=/dev/dri \\\n  --security-opt seccomp=unconfined "
                 "--group-add video")
        argv = ("--device=/dev/kfd", "--device=/dev/dri", "--security-opt",
                "seccomp=unconfined", "--group-add", "video")
    elif is_xpu:
        flags = "--device /dev/dri \\\n  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g"
        argv = ("--device", "/dev/dri", "-v", "/dev/dri/by-path:/dev/dri/by-path",
                "--shm-size", "16g")
    elif is_intel:
        flags, argv = "--shm-size=16g", ("--shm-size", "16g")
    else:
        flags, argv = "--gpus all", ("--gpus", "all")
    return DockerMeta(image, flags, argv, brand, pinned, cuda_map, nightly, source, cuda_key)


def _local_model_mount(model_id: Any) -> list[str]:
    if isinstance(model_id, str) and model_id.startswith("/"):
        return [f"{model_id}:{model_id}:ro"]
    return []


class EnvFlags(NamedTuple):
    """What ``docker run`` takes from an environment: the ``-e KEY=VALUE`` words and the
    read-only mounts of its ``*_CONFIG_PATH`` values (one environment serves every process
    of a deployment: computed once by :func:`env_flags`)."""

    pairs: tuple[str, ...]
    config_mounts: tuple[str, ...]


def env_flags(env: dict[str, Any]) -> EnvFlags:
    """The :class:`EnvFlags` of ``env`` (in JS property order)."""
    items = jsval.entries(env)
    return EnvFlags(tuple(f"{k}={jsval.js_str(v)}" for k, v in items),
                    tuple(f"{jsval.js_str(v)}:{jsval.js_str(v)}:ro" for k, v in items
                          if k.endswith("_CONFIG_PATH")))


def build_docker_run(command: str, env: dict[str, Any], image: Any, gpu_flags: str,
                     port: int = 8000, flags: EnvFlags | None = None) -> str:
    """Wrap a ``vllm serve MODEL ...`` command in ``docker run`` (the image's entrypoint is
    ``vllm serve``; env becomes ``-e``; a local model path is bind-mounted read-only).
    ``flags``: :func:`env_flags` of ``env``, when already computed."""
    flags = env_flags(env) if flags is None else flags
    env_text = _JOIN.join(f"-e {pair}" for pair in flags.pairs)
    match = _SERVE_MODEL.match(command)
    model_id = match.group(1) if match and match.group(1) else "MODEL"
    local = _local_model_mount(model_id)
    mounts = _JOIN.join(f"-v {m}" for m in [*local, *flags.config_mounts])
    prereq = (f"# {model_id} must already exist on the host — bind-mounted read-only below.\n"
              if local else "")
    body = _SERVE_PREFIX.sub("", command, count=1)
    base = (f"{prereq}docker run {gpu_flags} \\\n  --privileged --ipc=host -p {port}:{port} "
            f"\\\n  -v {_HF_CACHE} \\")
    if mounts:
        base += f"\n  {mounts} \\"
    if env_text:
        base += f"\n  {env_text} \\"
    tail = f"{_JOIN}{body}" if body else ""
    image_text = "undefined" if image is None else jsval.js_str(image)
    return f"{base}\n  {image_text} {model_id}{tail}"


def build_docker_argv(argv: list[Any], env: dict[str, Any], meta: DockerMeta,
                      port: int = 8000, flags: EnvFlags | None = None) -> list[Any]:
    """The ``docker run`` argv for a ``vllm serve`` argv (no shell needed); ``flags`` as
    for :func:`build_docker_run`."""
    flags = env_flags(env) if flags is None else flags
    env_words: list[Any] = []
    for pair in flags.pairs:
        env_words += ["-e", pair]
    cmd = argv[2:] if argv[:2] == ["vllm", "serve"] else list(argv)
    mounts: list[Any] = []
    for m in [*_local_model_mount(cmd[0] if cmd else None), *flags.config_mounts]:
        mounts += ["-v", m]
    return ["docker", "run", *meta.gpu_argv, "--privileged", "--ipc=host",
            "-p", f"{port}:{port}", "-v", _HF_CACHE, *mounts, *env_words, meta.image, *cmd]


def cuda_choice(recipe: Any, meta: DockerMeta) -> bool:
    """Whether the site's record page lets the reader pick the CUDA build of ``meta``'s
    image (its toggle): NVIDIA hardware, an image that is a plain tag or a CUDA map naming
    both builds (a map of one build is pinned to it), and no ``docker`` install command of
    the recipe's own (which names its tag)."""
    install = get(get(recipe, "model"), "install")
    if meta.brand_key != "nvidia" or truthy(get(get(install, "docker"), "command")):
        return False
    return not truthy(meta.cuda_map) or all(has_key(meta.cuda_map, b) for b in CUDA_BUILDS)


def default_nvidia_image(recipe: Any, base_cuda: str = BASE_CUDA) -> Any:
    """The NVIDIA image the JSON API's install block pulls (``model.docker_image`` only)."""
    return install_image_source(recipe, base_cuda)[0]


def install_image_source(recipe: Any, base_cuda: str = BASE_CUDA
                         ) -> tuple[Any, tuple[str, ...] | None]:
    """:func:`default_nvidia_image` and the path of the recipe's value it is (``("model",
    "docker_image", "nvidia", "cu129")``), ``None`` for the site's own default."""
    fallback = _LATEST["nvidia"]
    parts: tuple[str, ...] = ("model", "docker_image")
    override = get(get(recipe, "model"), "docker_image")
    if not truthy(override):
        return fallback, None
    if isinstance(override, str):
        return override, parts
    if not jsval.is_object(override):
        return fallback, None
    cuda_map = override
    if _brand_keyed(override):
        cuda_map, parts = get(override, "nvidia"), (*parts, "nvidia")
        if isinstance(cuda_map, str):
            return cuda_map, parts
    if not _is_cuda_map(cuda_map):
        return fallback, None
    key = _map_key(cuda_map, (base_cuda, "cu129", "cu130"))
    return (fallback, None) if key is None else (get(cuda_map, key), (*parts, key))


def _model_cuda_map(recipe: Any) -> Any:
    """The CUDA map the install's NVIDIA image is picked from (``model.docker_image``, or
    its ``nvidia`` entry), else ``None``."""
    override = get(get(recipe, "model"), "docker_image")
    if not truthy(override) or not jsval.is_object(override):
        return None
    nv = get(override, "nvidia") if _brand_keyed(override) else override
    return nv if _is_cuda_map(nv) else None


def _install_builds(recipe: Any, cuda: str) -> tuple[Any, str]:
    """The image the install pulls and the CUDA build of its nightly wheels, for build
    ``cuda`` of the site's toggle: a CUDA map's entry, else the plain tag with the build
    (:func:`cuda_tag`); the wheels of a map holding only cu130 stay cu130, as the site's
    page pins them to a map's single build."""
    cuda_map = _model_cuda_map(recipe)
    image = default_nvidia_image(recipe, cuda)
    if cuda_map is None:
        return (cuda_tag(image, cuda) if isinstance(image, str) else image), cuda
    only_base = has_key(cuda_map, BASE_CUDA) and not has_key(cuda_map, ALT_CUDA)
    return image, BASE_CUDA if only_base else cuda


def synthesize_install(recipe: Any, cuda: str = BASE_CUDA) -> dict[str, Any] | None:
    """The install commands of the JSON API: ``pip`` and ``docker`` (``model.install``
    overrides; ``false`` omits one; ``docker pull`` of the image, nightly wheels of CUDA
    build ``cuda``: :func:`_install_builds`) plus ``extras`` (the recipe's
    ``dependencies``)."""
    cfg = or_(get(get(recipe, "model"), "install"), {})
    pip_cfg, docker_cfg = get(cfg, "pip"), get(cfg, "docker")
    version = jsval.js_str(or_(get(get(recipe, "model"), "min_vllm_version"), ""))
    nightly = get(get(recipe, "model"), "nightly_required") is True
    image, wheels = _install_builds(recipe, cuda)
    out: dict[str, Any] = {}
    if pip_cfg is not False:
        if nightly:
            default_cmd = (
                "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
                f"  --extra-index-url https://wheels.vllm.ai/nightly/{wheels} \\\n"
                f"  --extra-index-url https://download.pytorch.org/whl/{wheels} \\\n"
                "  --index-strategy unsafe-best-match")
            default_note: Any = f"vLLM {version} isn't released yet — nightly required."
        else:
            default_cmd = ("uv venv\nsource .venv/bin/activate\n"
                           "uv pip install -U vllm --torch-backend auto")
            default_note = None
        command = or_(get(pip_cfg, "command") if truthy(pip_cfg) else None, default_cmd)
        note = or_(get(pip_cfg, "note") if truthy(pip_cfg) else None, default_note)
        out["pip"] = {"command": command, "note": note} if truthy(note) else {"command": command}
    if docker_cfg is not False:
        default_cmd = f"docker pull {jsval.js_str(image)}"
        command = or_(get(docker_cfg, "command") if truthy(docker_cfg) else None, default_cmd)
        note = get(docker_cfg, "note") if truthy(docker_cfg) else None
        out["docker"] = {"command": command, "note": note} if truthy(note) else {
            "command": command}
    deps = get(recipe, "dependencies")
    if isinstance(deps, list) and deps:
        out["extras"] = deps
    return out or None
