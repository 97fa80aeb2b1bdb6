"""Permissive stand-ins for modules a vLLM source tree imports but we cannot load.

Used only inside the extraction subprocess (see ``_introspect.py``).  vLLM's argument
parser lives in modules that import ``torch``, ``transformers``, ``triton``, compiled
extensions (``vllm._C``) and dozens of optional packages at import time.  None of them
is needed to *build* the parser, so a meta-path finder appended after the normal
finders turns every module that cannot be found into a :class:`StubModule` whose
attributes are auto-generated stub classes:

* a stub class can be subclassed (with class keywords, e.g. ``msgspec.Struct``),
  called (returns an inert :class:`Stub` instance), subscripted (``Tensor[int]``),
  used in ``X | None`` annotations, and used as a decorator (``@triton.jit`` or
  ``@torch.compile(...)`` return the decorated function unchanged);
* a stub instance absorbs attribute access, calls, arithmetic and comparisons, is
  falsy, empty and usable as a context manager;
* pydantic treats stub classes as "any" (``__get_pydantic_core_schema__``).

Modules listed in :data:`FORCE_STUB` are stubbed even when installed, because their
installed version is unrelated to the one the vLLM release expects (torch & co.).
Only the standard library is used here: this file runs before anything else.
"""

from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Iterator, Sequence
from typing import Any

#: Top-level packages that are always stubbed, installed or not.
FORCE_STUB: frozenset[str] = frozenset(
    {
        "torch",
        "torchvision",
        "torchaudio",
        "transformers",
        "triton",
        "xformers",
        "flash_attn",
        "flashinfer",
        "vllm_flash_attn",
        "ray",
        "deepspeed",
        "bitsandbytes",
        "cupy",
        "amdsmi",
        "optimum",
    }
)

#: Never stubbed: importing these is how vLLM *detects* an accelerator (TPU, Gaudi,
#: XPU, Neuron, Ascend, OpenVINO), so a stub would switch the platform away from
#: "no accelerator".  Standard-library modules (``_winapi``, ``msvcrt``…) are never
#: stubbed either: their absence is how code detects the operating system.
NEVER_STUB: frozenset[str] = frozenset(
    {
        "libtpu",
        "tpu_inference",
        "tpu_info",
        "torch_xla",
        "habana_frameworks",
        "intel_extension_for_pytorch",
        "oneccl_bindings_for_pytorch",
        "transformers_neuronx",
        "neuronx_distributed",
        "neuronx_distributed_inference",
        "vllm_ascend",
        "torch_npu",
        "openvino",
        "vllm_omni",
    }
)

#: Import packages of the plugin being extracted (set by ``_introspect.py``): their own
#: modules are real, their missing private (compiled/generated) ones are stubbed.
PLUGIN_PACKAGES: set[str] = set()

#: Compiled or generated vLLM submodules absent from an sdist; always stubbed.
VLLM_COMPILED_PREFIXES: tuple[str, ...] = (
    "vllm._C",
    "vllm._moe_C",
    "vllm._rocm_C",
    "vllm._flashmla_C",
    "vllm._flashmla_extension_C",
    "vllm.cumem_allocator",
    "vllm._core_C",
    "vllm._qutlass_C",
)

#: ``__version__`` of stubbed top-level packages, filled from the release's own
#: requirement pins by ``_introspect`` (``stub_versions.json``); see DEFAULT_VERSIONS.
VERSIONS: dict[str, str] = {}
#: Used when the release's requirements do not pin a stubbed package.
DEFAULT_VERSIONS: dict[str, str] = {"torch": "2.9.0", "transformers": "4.57.0", "triton": "3.5.0"}

#: Names of every module that received a stub, in first-import order.
STUBBED: list[str] = []


class StubMeta(abc.ABCMeta):
    """Metaclass of stub classes: unknown class attributes are further stub classes."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _child_class(cls, name)

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __setitem__(cls, key: Any, value: Any) -> None:
        pass

    def __call_arith__(cls, *args: Any) -> Any:
        return cls

    __mul__ = __rmul__ = __add__ = __radd__ = __sub__ = __rsub__ = __call_arith__
    __truediv__ = __rtruediv__ = __floordiv__ = __pow__ = __neg__ = __call_arith__

    def __iter__(cls) -> Iterator[Any]:
        return iter(())

    def __len__(cls) -> int:
        return 0

    def __bool__(cls) -> bool:
        return True

    def register(cls, *args: Any, **kwargs: Any) -> Any:
        """``AutoConfig.register("x", XConfig)`` & co. (shadows ``ABCMeta.register``)."""
        return args[-1] if args else None


_CHILD_CACHE: dict[tuple[int, str], type] = {}


def _child_class(parent: type, name: str) -> type:
    key = (id(parent), name)
    got = _CHILD_CACHE.get(key)
    if got is None:
        got = make_stub_class(name, parent.__module__, f"{parent.__qualname__}.{name}")
        _CHILD_CACHE[key] = got
    return got


#: Attributes that decorator factories such as ``torch.library.custom_op`` add to the
#: function they return; decorated functions get inert versions of them.
_DECORATOR_ATTRS = (
    "register_fake",
    "register_kernel",
    "register_autograd",
    "register_torch_dispatch",
)


def _identity(fn: Any = None, *args: Any, **kwargs: Any) -> Any:
    return fn if callable(fn) else _identity


def _decorated(obj: Any) -> Any:
    """Return ``obj`` (what a stub decorator produced) with torch op hooks attached."""
    if isinstance(obj, types.FunctionType):
        for attr in _DECORATOR_ATTRS:
            if not hasattr(obj, attr):
                setattr(obj, attr, _identity)
    return obj


class Stub(metaclass=StubMeta):
    """Base of every stub class; instances are inert absorbers."""

    _vllm_stub_auto = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # ``@stub`` used directly as a decorator returns the decorated object.
        if (
            cls.__dict__.get("_vllm_stub_auto")
            and len(args) == 1
            and not kwargs
            and (isinstance(args[0], (types.FunctionType, type)))
        ):
            return _decorated(args[0])
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __init_subclass__(cls, **kwargs: Any) -> None:
        pass

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.any_schema()

    @classmethod
    def __class_getitem__(cls, item: Any) -> Any:
        return cls

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _child_class(type(self), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and not kwargs and callable(args[0]):
            return _decorated(args[0])
        return self

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __getitem__(self, item: Any) -> Any:
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return False

    def __int__(self) -> int:
        return 0

    def __index__(self) -> int:
        return 0

    def __float__(self) -> float:
        return 0.0

    def __contains__(self, item: Any) -> bool:
        return False

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: Any) -> bool:
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def _self(self, *args: Any) -> Any:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _self
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = _self
    __pow__ = __rpow__ = __neg__ = __pos__ = __abs__ = __invert__ = _self
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __lshift__ = __rshift__ = _self
    __matmul__ = __rmatmul__ = _self

    def __repr__(self) -> str:
        return f"<stub {type(self).__qualname__}>"


def make_stub_class(name: str, module: str, qualname: str | None = None) -> type:
    """Create a new auto-generated stub class called ``name`` in ``module``."""
    cls = StubMeta(name, (Stub,), {"__module__": module, "_vllm_stub_auto": True})
    cls.__qualname__ = qualname or name
    return cls


class _IInfo:
    """``torch.iinfo(dtype)`` stand-in: int64 limits (used in pydantic ``Field`` bounds)."""

    bits = 64
    min = -(2**63)
    max = 2**63 - 1

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass


class _FInfo:
    """``torch.finfo(dtype)`` stand-in: float32 limits."""

    bits = 32
    min = -3.4028234663852886e38
    max = 3.4028234663852886e38
    eps = 1.1920928955078125e-07
    tiny = 1.1754943508222875e-38

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass


#: Attributes of stub modules that must behave like the real thing at import time.
_SPECIALS: dict[tuple[str, str], Any] = {("torch", "iinfo"): _IInfo, ("torch", "finfo"): _FInfo}


class StubModule(types.ModuleType):
    """A module whose every unknown (non-dunder) attribute is a cached stub class."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            if name == "__version__":
                top = self.__name__.split(".", 1)[0]
                return VERSIONS.get(top, DEFAULT_VERSIONS.get(top, "1.0.0"))
            if name == "__all__":
                return []
            if name == "__file__":
                return "<stub>/" + self.__name__.replace(".", "/") + ".py"
            raise AttributeError(name)
        special = _SPECIALS.get((self.__name__, name))
        if special is not None:
            return special
        cls = make_stub_class(name, self.__name__, name)
        setattr(self, name, cls)
        return cls


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return StubModule(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__path__ = []
        if module.__name__ not in STUBBED:
            STUBBED.append(module.__name__)


#: Module names answered by :func:`make_fake_pynvml` (top-level pynvml in older
#: releases, the vendored copy in newer ones).
FAKE_NVML_NAMES: frozenset[str] = frozenset({"pynvml", "vllm.third_party.pynvml"})


class NVMLError(Exception):
    """Exception class of the fake NVML module."""


def make_fake_pynvml(name: str) -> types.ModuleType:
    """An NVML binding that reports one NVIDIA H100 (compute capability 9.0).

    vLLM picks its platform by probing NVML (``nvmlInit`` + ``nvmlDeviceGetCount() > 0``);
    without an accelerator it lands on ``UnspecifiedPlatform`` whose empty device type
    makes ``DeviceConfig()`` (built while adding CLI arguments) raise.  Pretending to
    be a single-GPU CUDA host makes the parser's platform-dependent defaults those a
    typical recipe target sees.
    """
    mod = StubModule(name)
    mod.__path__ = []
    fns: dict[str, Any] = {
        "NVMLError": NVMLError,
        "NVMLError_NotSupported": NVMLError,
        "nvmlInit": lambda *a, **k: None,
        "nvmlShutdown": lambda *a, **k: None,
        "nvmlDeviceGetCount": lambda *a, **k: 1,
        "nvmlDeviceGetHandleByIndex": lambda *a, **k: Stub(),
        "nvmlDeviceGetCudaComputeCapability": lambda *a, **k: (9, 0),
        "nvmlDeviceGetName": lambda *a, **k: "NVIDIA H100 80GB HBM3",
        "nvmlDeviceGetUUID": lambda *a, **k: "GPU-00000000-0000-0000-0000-000000000000",
        "nvmlSystemGetDriverVersion": lambda *a, **k: "570.00",
        "nvmlDeviceGetP2PStatus": lambda *a, **k: 0,
        "NVML_P2P_STATUS_OK": 0,
        "NVML_P2P_CAPS_INDEX_NVLINK": 0,
    }
    mod.__dict__.update(fns)
    return mod


class _FakeNvmlLoader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return make_fake_pynvml(spec.name)

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ not in STUBBED:
            STUBBED.append(module.__name__)


class _ForcedStubFinder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: stubs the ``force`` packages (:data:`FORCE_STUB` and
    the extra ones :func:`install` was given) and compiled vllm."""

    def __init__(self, force: frozenset[str]) -> None:
        self.force = force

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in FAKE_NVML_NAMES:
            return importlib.machinery.ModuleSpec(fullname, _FakeNvmlLoader(), is_package=True)
        top = fullname.split(".", 1)[0]
        if top in self.force or any(
            fullname == p or fullname.startswith(p + ".") for p in VLLM_COMPILED_PREFIXES
        ):
            return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)
        return None


class _FallbackStubFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: any module nobody else found becomes a stub."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        # Never invent vllm's own modules (a typo would silently become a stub),
        # except the compiled ones handled by _ForcedStubFinder.
        if fullname.startswith(tuple(f"{p}." for p in PLUGIN_PACKAGES)):
            # A plugin's build-generated or compiled private modules
            # (``vllm_ascend._build_info``, ``vllm_ascend.vllm_ascend_C``) are absent
            # from its sources, like vLLM's own.
            leaf = fullname.rpartition(".")[2]
            if leaf.startswith("_") or leaf.endswith("_C"):
                return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)
            return None
        if fullname == "vllm" or fullname.startswith("vllm."):
            # Compiled extensions (``vllm._C``, ``vllm._C_stable_libtorch``,
            # ``vllm.vllm_flash_attn._vllm_fa2_C``…) are private names with no .py file.
            # ``vllm._version`` is generated at build time; when an sdist lacks it,
            # vLLM's own fallback (``__version__ = "dev"``) must apply.
            if fullname == "vllm._version":
                return None
            if fullname.rpartition(".")[2].startswith("_") or fullname.startswith(
                ("vllm.vllm_flash_attn.", "vllm.third_party.")
            ):
                return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)
            return None
        top = fullname.split(".", 1)[0]
        if top in NEVER_STUB or top in sys.stdlib_module_names:
            return None
        # A missing submodule of a *real* package is not ours to invent: this also
        # keeps ``from pkg import name`` (which probes ``pkg.name`` as a module) honest.
        parent = fullname.rpartition(".")[0]
        if parent and not isinstance(sys.modules.get(parent), StubModule):
            return None
        return importlib.machinery.ModuleSpec(fullname, _StubLoader(), is_package=True)


def install(extra_force: Sequence[str] = ()) -> None:
    """Install both finders (idempotent).  ``extra_force`` adds top-level names to stub,
    to the installed finder's own set (:data:`FORCE_STUB` itself never changes)."""
    forced = [f for f in sys.meta_path if isinstance(f, _ForcedStubFinder)]
    if forced:
        forced[0].force |= frozenset(extra_force)
    else:
        sys.meta_path.insert(0, _ForcedStubFinder(FORCE_STUB | frozenset(extra_force)))
    if not any(isinstance(f, _FallbackStubFinder) for f in sys.meta_path):
        sys.meta_path.append(_FallbackStubFinder())
