"""``GUIDE021``: a guide section whose heading names hardware the recipe does not offer, or
a precision the hardware it names cannot run.

A heading such as ``## AMD MI300X`` or ``### 1x B200 (NVFP4)`` tells the reader which
configuration the section's commands are for. The page's hardware picker offers what
:func:`~validator.render.gates.picker_hardware` computes for each variant; a section for
hardware no variant is offered on, nor any profile of its generation, documents a
deployment the page never shows (a restricted profile missing from ``meta.hardware``, one
left out of every variant's ``supported_hardware`` or marked ``unsupported``), and a
section for a precision the hardware cannot run (``HW002``'s judgement: NVFP4 needs
Blackwell) documents a checkpoint that does not load there.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from validator.analysis.guide_sections import folded, headings, may_match
from validator.analysis.recipe_data import get, items
from validator.findings import Severity
from validator.guide.commands import GuideCommands
from validator.render.gates import picker_hardware_if_shown
from validator.rules.api import Hit, Reads, rule
from validator.rules.guide.facts import GUIDE, guide_commands, guide_text
from validator.rules.hw.facts import Profile, Requirement, profiles, requirement

if TYPE_CHECKING:
    from validator.context import Context
    from validator.load import LoadedDocument

#: Generation keys that are also ordinary words of a guide heading ("CPU offloading"):
#: a heading naming them is not read as naming the profiles of that generation.
COMMON_WORDS = frozenset({"cpu"})
#: Precisions a heading may name, as :func:`~validator.rules.hw.facts.requirement` judges.
PRECISION = re.compile(r"(?<![\w-])(nvfp4|mxfp4|fp4|fp8)(?![\w-])", re.IGNORECASE)


@dataclass(frozen=True)
class HardwareNames:
    """The patterns that name hardware in a heading, made once per context: each profile's
    id and display name, and each brand or generation key (but :data:`COMMON_WORDS`), with
    the profile ids they cover."""

    profiles: tuple[tuple[str, re.Pattern[str], str], ...]
    """(the name lower-cased, its pattern, the profile id)."""
    groups: tuple[tuple[str, re.Pattern[str], frozenset[str]], ...]
    """(the key, its pattern, the profile ids of that brand or generation)."""

    def named(self, heading: str) -> set[str]:
        """Profile ids ``heading`` names: the profiles named by id or display name, else
        the members of the brands and generations it names (a profile is narrower). A
        pattern is searched only where its ASCII name is in the heading at all."""
        low = folded(heading)
        out = {hw for name, pattern, hw in self.profiles
               if may_match(name, low) and pattern.search(heading)}
        if out:
            return out
        for key, pattern, members in self.groups:
            if may_match(key, low) and pattern.search(heading):
                out |= members
        return out


def _name(text: str) -> re.Pattern[str]:
    """``text`` as a whole word, also after a count (``8xH200``, ``2× MI300X``)."""
    return re.compile(rf"(?:(?<![\w-])|(?<=\dx)|(?<=\d×)){re.escape(text)}(?![\w-])",
                      re.IGNORECASE)


def _hardware_names(ctx: Context) -> HardwareNames:
    """The :class:`HardwareNames` of ``ctx``'s taxonomy (memoised on the context, whose
    taxonomy is everything they depend on)."""
    def make() -> HardwareNames:
        named = []
        for hw_id, profile in ctx.hardware_profiles.items():
            for text in dict.fromkeys((hw_id, str(profile.get("display_name") or ""))):
                if text:
                    named.append((text, _name(text), hw_id))
        groups = [(key, _name(key), frozenset(members))
                  for key, members in sorted(ctx.hardware_groups.items())
                  if key not in COMMON_WORDS]
        return HardwareNames(tuple(named), tuple(groups))
    return ctx.memoised("guide.section-hardware-names", make)


def _offered(doc: LoadedDocument, ctx: Context) -> set[str] | None:
    """The hardware the page's picker offers for some variant (``None``: the site's code
    cannot compute it for this data, the page does not render: ``REF014``)."""
    out: set[str] = set()
    for _, variant, _ in items(get(doc.data, "variants"), "/variants"):
        shown = picker_hardware_if_shown(ctx.hardware_profiles, variant, doc.data)
        if shown is None:
            return None
        out.update(shown)
    return out


def _runs(doc: LoadedDocument, precision: str, profile: Profile) -> tuple[bool, str]:
    """Whether ``profile`` can run ``precision`` as the recipe's variants of that precision
    say (their ``precision_hardware`` included), else as the precision's default
    requirement; and that requirement's text for a message."""
    reqs: list[Requirement | None] = [
        requirement(v) for _, v, _ in items(get(doc.data, "variants"), "/variants")
        if str(get(v, "precision")).lower() == precision]
    if not reqs:
        reqs = [requirement({"precision": precision})]
    judged = [r for r in reqs if r is not None]
    runs = len(judged) < len(reqs) or any(r.allows(profile) is not False for r in judged)
    return runs, (f"{judged[0].source} needs {judged[0].text}" if judged else "")


def _targets(text: str, commands: GuideCommands | None) -> Iterator[tuple[int, str]]:
    """``(line, heading)`` of each heading whose section (up to the next heading of its
    depth or above, its subsections included) holds a serving command: a section that
    deploys something, not one that links to other recipes or explains why the hardware
    is not offered."""
    starts = sorted(c.line for c in commands.commands) if commands is not None else []
    found = headings(text)
    depths = [len(h) - len(h.lstrip("#")) for _, h in found]
    last = text.count("\n") + 1
    for k, (line, heading) in enumerate(found):
        end = next((ln for (ln, _), depth in zip(found[k + 1:], depths[k + 1:], strict=True)
                    if depth <= depths[k]), last)
        i = bisect.bisect_right(starts, line)
        if i < len(starts) and starts[i] < end:
            yield line, heading


#: How many profile ids a message lists before "and N more".
LISTED = 6


def _listed(ids: set[str]) -> str:
    shown = sorted(ids)
    more = len(shown) - LISTED
    return ", ".join(shown[:LISTED]) + (f" and {more} more" if more > 0 else "")


def _judged(doc: LoadedDocument, ctx: Context, heading: str, named: set[str],
            offered: set[str]) -> tuple[str, str] | None:
    """(message, hint) of a heading naming the hardware ``named``: none of it, nor of its
    generations, offered; or none of it able to run the precision the heading names."""
    table = profiles(ctx)
    gens = {g for hw in named if hw in table for g in table[hw].generations}
    kin = {hw for hw, p in table.items() if gens & set(p.generations)}
    if not (named | kin) & offered:
        hidden = {hw for hw in named if hw in table and table[hw].restricted}
        hint = ("declare it in meta.hardware (the picker shows a restricted profile only "
                "where the recipe declares it), or drop or retitle the section"
                if hidden == named else "offer that hardware (meta.hardware, a variant's "
                "supported_hardware), or drop or retitle the section")
        return (f"the section `{heading}` is for {_listed(named)}, and the page's hardware "
                f"picker offers no variant of the recipe there nor on that generation "
                f"({', '.join(sorted(gens)) or 'none'}; it offers "
                f"{_listed(offered) or 'nothing'}): the page never shows that configuration",
                hint)
    m = PRECISION.search(heading)
    if m is None:
        return None
    judged = [_runs(doc, m.group(1).lower(), table[hw]) for hw in sorted(named) if hw in table]
    if not judged or any(runs for runs, _ in judged):
        return None
    return (f"the section `{heading}` is for {m.group(1)} on {_listed(named)}, which cannot "
            f"run it ({judged[0][1]})",
            "name hardware the precision runs on, or the precision the section serves")


@rule("GUIDE021", Severity.WARNING, "Guide section for hardware the recipe does not offer",
      reads=frozenset({Reads.TAXONOMY}))
def section_for_unoffered_hardware(doc: LoadedDocument, ctx: Context) -> Iterator[Hit]:
    """A heading of the guide names hardware (a profile id or display name, else a brand
    or generation: ``## AMD MI300X``, ``### 8xH200``) that the page's hardware picker
    offers for no variant of the recipe, nor any profile of the same generation (a
    section for H100 in a recipe offered on H200 is not judged), or a precision
    (``NVFP4``, ``FP8``) that none of the hardware it names can run (``HW002``'s
    judgement, a variant's ``precision_hardware`` included). Only headings are read, not
    prose: a guide mentioning other hardware in passing (a comparison, a tip) is not
    judged, nor is a section without a serving command (one linking to other recipes, or
    saying why the hardware is not offered).

    Failing::

        meta:
          hardware: {h100: verified}       # TPU profiles are restricted: not offered
        guide: |
          ## TPU v6e (Trillium)

          ```bash
          vllm serve example-org/Example-Chat-8B
          ```

    Passing::

        meta:
          hardware: {h100: verified, trillium: verified}
        guide: |
          ## TPU v6e (Trillium)

          ```bash
          vllm serve example-org/Example-Chat-8B
          ```

    How to fix: offer the hardware the section is for (``meta.hardware``, the variant's
    ``supported_hardware``), or drop or retitle the section."""
    text = guide_text(doc)
    if text is None or not ctx.hardware_profiles:
        return
    names = _hardware_names(ctx)
    offered: set[str] | None = None
    for line, heading in _targets(text, guide_commands(doc)):
        named = names.named(heading)
        if not named:
            continue
        offered = _offered(doc, ctx) if offered is None else offered
        if offered is None:  # the page does not render (REF014)
            return
        found = _judged(doc, ctx, heading.lstrip("#").strip(), named, offered)
        if found is not None:
            yield Hit(GUIDE, found[0], found[1], block_index=line)
