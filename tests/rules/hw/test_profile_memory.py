"""``HW012``: a hardware profile's ``vram_gb`` is ``gpu_count`` times the memory of one of
its GPUs, where the taxonomy states that memory (the profile's description, or a profile
of the same device); a profile of no stated size is not judged. Checked on the taxonomy
itself (``check taxonomy.yaml``, ``check models/``, ``pr`` changing it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import line_of
from validator.cli import main
from validator.load import load_yaml
from validator.rules.hw.profile_memory import profile_memory_hits


def hits(profiles: str) -> list[tuple[str, str, str | None]]:
    """``(pointer, message, hint)`` of each HW012 hit of a taxonomy of ``profiles``."""
    doc = load_yaml(("hardware_profiles:\n" + profiles).encode(), "taxonomy.yaml")
    return [(h.pointer, h.message, h.hint) for h in profile_memory_hits(doc)]


def profile(key: str, description: str, count: int, vram: float,
            brand: str = "NVIDIA", generation: str = "blackwell") -> str:
    return (f"  {key}:\n    brand: {brand}\n    generation: {generation}\n"
            f'    description: "{description}"\n    gpu_count: {count}\n'
            f"    vram_gb: {vram}\n")


def test_a_halved_gpu_count_with_the_old_total_is_reported_at_vram_gb() -> None:
    """Trial 11 #18: the description states 141 GB of one H200, four of them are 564."""
    ((pointer, message, hint),) = hits(profile(
        "h200", "NVIDIA H200 SXM 141 GB HBM3e · 4-GPU node", 4, 1128, generation="hopper"))
    assert pointer == "/hardware_profiles/h200/vram_gb"
    assert "vram_gb 1128 is not gpu_count 4 × the 141 GB of one GPU" in message
    assert "(564 GB)" in message
    assert hint == "set vram_gb to 564, or gpu_count to 8"


@pytest.mark.parametrize(("description", "count", "vram"), [
    ("NVIDIA H200 SXM 141 GB HBM3e · 8-GPU HGX node", 8, 1128),  # per GPU
    ("NVIDIA RTX Pro 6000 · 2× RTX Pro 6000 GPU · 192 GB VRAM", 2, 192),  # the total
    ("NVIDIA GB200 compute tray · 192 GB HBM3e/GPU · 4 Blackwell GPUs", 4, 768),
    ("NVIDIA RTX PRO 5000 Blackwell · 4× 72 GB VRAM · PCIe", 4, 288),
    ("Intel Data Center GPU Max 1550 · 68.7 GB HBM2e per tile · OAM module", 4, 256),  # GiB
    ("NVIDIA DGX Station · 1× GB300 Superchip · 252 GB HBM3e", 1, 252),  # GB300: a name
    ("Intel Xeon 6 CPU NUMA node · x86 CPU backend", 4, 1024),  # no size: not judged
    ("Single RTX 4090/5090", 1, 24),  # no size (1x-consumer of the corpus history)
    ("AMD Instinct MI300X", 8, 192),  # no size, no profile of the same device
])
def test_a_profile_agreeing_with_its_stated_size_or_stating_none_passes(
        description: str, count: int, vram: float) -> None:
    assert hits(profile("p", description, count, vram)) == []


@pytest.mark.parametrize(("description", "vram", "size"), [
    ("NVIDIA GB200 compute tray · 192 GB HBM3e/GPU · 4 GPUs", 192, "192"),  # per GPU only
    ("Google Cloud TPU v6e Trillium · 32 GB HBM/chip", 64, "32"),
    ("NVIDIA RTX PRO 5000 Blackwell · 4× 72 GB VRAM", 72, "72"),
])
def test_a_size_the_description_gives_per_gpu_is_not_taken_for_the_total(
        description: str, vram: float, size: str) -> None:
    ((_pointer, message, _hint),) = hits(profile("p", description, 4, vram))
    assert f"× the {size} GB of one GPU that its description states" in message


def test_a_profile_of_the_same_device_gives_the_size_a_description_does_not_state() -> None:
    one = profile("rtx_pro_6000", "NVIDIA RTX Pro 6000 · 96 GB VRAM", 1, 96)
    (found,) = hits(one + profile("rtx_pro_6000_8x", "NVIDIA RTX Pro 6000 · 8-GPU node", 8,
                                  512))
    assert found[0] == "/hardware_profiles/rtx_pro_6000_8x/vram_gb"
    assert "the 96 GB of one GPU that profile(s) rtx_pro_6000 of the same device give" \
        in found[1]
    assert hits(one + profile("rtx_pro_6000_8x", "8-GPU node", 8, 768)) == []
    # two profiles of the device that state no size do not judge each other
    assert hits(profile("rtx_pro_6000", "workstation", 1, 24)
                + profile("rtx_pro_6000_8x", "8-GPU node", 8, 512)) == []
    # another device of the brand and generation says nothing of this one's memory
    assert hits(one + profile("rtx_pro_5000_4x", "4-GPU node", 4, 128)) == []
    assert hits(one + profile("rtx_pro_6000_2x", "2-GPU node", 2, 128,
                              generation="ada")) == []


def test_check_reports_it_on_the_taxonomy_line(examples_tree: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    taxonomy = examples_tree / "taxonomy.yaml"
    text = taxonomy.read_text(encoding="utf-8").replace(
        "    gpu_count: 8\n    vram_gb: 640\n", "    gpu_count: 4\n    vram_gb: 640\n", 1)
    taxonomy.write_text(text, encoding="utf-8")
    code = main(["check", "--offline", "--no-cache", "--format", "json", str(taxonomy)])
    found = [(d["path"], f["rule"], f["severity"], f["line"])
             for d in json.loads(capsys.readouterr().out)["documents"]
             for f in d["findings"]]
    assert found == [("taxonomy.yaml", "HW012", "error", line_of(text, "vram_gb: 640"))]
    assert code == 1
