"""Figures the guide reports: KV-cache size, maximum concurrency, speculative-decoding
acceptance length, throughput, latency and accuracy tables.

Each becomes a ``source_reported`` :class:`~validator.evidence.model.ReportedResult` with
the figure exactly as quoted, its unit, the conditions stated nearby (the section heading,
the command block above it, hardware named in the same sentence or table row) and the
line it stands on. They are what the recipe's authors say they observed; nothing here is
measured, and records never present them as measurements.

The guide is the literal block scalar ``guide: |``; its lines map one-to-one to file lines
(:meth:`validator.sourcemap.SourceMap.block_line`). Markdown structure recognised:
ATX headings (``##``), fenced code blocks, pipe tables (header row + ``|---|`` row), and
prose paragraphs (figures may wrap across lines; the cited line is the figure's own).
Inside code blocks only ``vllm bench``-style result lines (``Output token throughput
(tok/s):  1940.79``) and vLLM start-up log lines are read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Literal

from validator.evidence.cite import Citer
from validator.evidence.model import ReportedResult, ReportedSetup

Metric = Literal["kv_cache_tokens", "max_concurrency", "acceptance_length",
                 "acceptance_rate", "throughput", "latency", "accuracy"]

_NUM = r"\d[\d,]*(?:\.\d+)?"
_HW = re.compile(
    r"(?<![\d.])(?:\d+\s*[x×]\s*)?\b(?:[HBG]B?\d{2,3}|GB\d{3}|MI\d{3}X?|RTX\s?(?:PRO\s?)?\d{4}|"
    r"TPU\s?v\d\w*|Atlas\s?\w+|\d{3}PR|A100|L40S?|H20)\b", re.IGNORECASE)

# (metric, regex with group 'num' (and optional 'unit'), default unit, label)
_PROSE: list[tuple[Metric, re.Pattern[str], str, str]] = [
    ("kv_cache_tokens",
     re.compile(rf"(?P<num>{_NUM})(?P<mult>\s?[KMkm])?[- ]token\s+(?:GPU\s+)?KV[-\s]+"
                r"(?:cache|pool)"),
     "tokens", "KV cache size"),
    ("kv_cache_tokens",
     re.compile(r"KV[- ]cache(?:\s+size)?(?:\s+\w+){0,3}:?\s+`?(?P<num>\d[\d,]{2,})`?"
                r"\s+tokens"), "tokens", "KV cache size"),
    ("max_concurrency",
     re.compile(rf"(?P<num>{_NUM})\s?[x×]\s+(?:max(?:imum)?\.?\s+)?concurrency",
                re.IGNORECASE),
     "x", "maximum concurrency"),
    ("max_concurrency",
     re.compile(rf"[Mm]aximum concurrency for [^:\n]+:\s+(?P<num>{_NUM})x"), "x",
     "maximum concurrency"),
    ("acceptance_length",
     re.compile(r"accept(?:ance|ed)\s+length\s+(?:of\s+|is\s+|was\s+|=\s*|:\s*)?[~≈]?"
                r"(?P<num>\d+(?:\.\d+)?)(?!\.?\d)", re.IGNORECASE),
     "tokens per step", "mean acceptance length"),
    ("throughput",
     re.compile(rf"(?<![\w.])(?P<num>{_NUM})\+?\s?(?P<unit>(?:output\s+)?tok(?:ens)?/s"
                r"(?:/user|/GPU|/gpu| per user| per GPU)?(?![A-Za-z])|tokens per second)"),
     "tok/s", "throughput"),
    ("throughput",
     re.compile(rf"\b(?:tps|TPS)\s+(?:up\s+to\s+|of\s+|~|≈|:\s*)?(?P<num>{_NUM})\+?"),
     "tok/s", "throughput"),
]
_BENCH_LINE = re.compile(
    rf"^\s*(?P<label>[A-Za-z][A-Za-z ()/-]*?(?:throughput|TTFT|TPOT|ITL|E2EL)[A-Za-z ]*?)"
    rf"\s*\((?P<unit>tok/s|req/s|ms|s)\):\s+(?P<num>{_NUM})\s*$")
_LOG_KV = re.compile(r"GPU KV cache size:\s+(?P<num>\d[\d,]*)\s+tokens")
_LOG_CONC = re.compile(rf"Maximum concurrency for (?P<cond>[^:]+):\s+(?P<num>{_NUM})x")

_ACCURACY_HEAD = re.compile(
    r"gsm8k|mmlu|aime|gpqa|humaneval|math|accuracy|\bacc\b|exact[_ -]match|score|pass@|"
    r"livecodebench|swe-?bench|ifeval|arena|bbh|hellaswag|arc|mbpp|wer|bleu", re.IGNORECASE)
_THROUGHPUT_HEAD = re.compile(r"tok/s|tokens/s|throughput|\btps\b|req/s", re.IGNORECASE)
_LATENCY_HEAD = re.compile(r"ttft|tpot|itl|latency|e2el", re.IGNORECASE)
_KV_HEAD = re.compile(r"kv", re.IGNORECASE)
_ACCEPT_HEAD = re.compile(r"accept", re.IGNORECASE)
_CELL_NUM = re.compile(
    rf"^[~≈]?\s*(?P<num>{_NUM})(?P<mult>[KMkm](?![A-Za-z]))?"
    r"(?:\s*(?:[A-Za-z][A-Za-z/]*|%))?\s*(?:\(.*\))?\s*$")
"""A table cell that *is* a figure (``0.9431 (±0.0064)``, ``≈1.12M``, ``199 tok/s``,
``9.17x``); ranges (``1-2``), changes (``+3%``) and prose are not."""
_UNIT = re.compile(r"^(?:tok(?:ens)?/s(?:/\w+)?|req/s|ms|s|GB|GiB|tokens|x)$")


@dataclass
class _Line:
    index: int
    text: str


@dataclass
class _Scan:
    heading: str = ""
    headings: list[str] = field(default_factory=list)
    command: str = ""
    command_line: int = 0
    command_text: str = ""
    image: tuple[str, int] | None = None


def _number(text: str, mult: str | None = None) -> int | float:
    """The value of ``1,477,168`` (an int), ``2.77`` (a float), ``1.2M``."""
    value = float(text.replace(",", ""))
    if mult:
        value *= {"k": 1e3, "m": 1e6}[mult.strip().lower()]
    return int(value) if value.is_integer() and ("." not in text or mult) else value


_IMAGE = re.compile(r"(?<![\w/.-])(?P<image>[a-z0-9][\w.-]*/[\w.-]+:[\w.-]+)(?![\w/])")
_SAME_IMAGE = re.compile(r"\bsame\s+(?:image|container|docker image)", re.IGNORECASE)
_DRAFT = re.compile(r"(?P<n>\d+)\s+(?:speculative\s+)?tokens?\s+drafted|"
                    r"num_speculative_tokens[\"':=\s]+(?P<m>\d+)", re.IGNORECASE)
_GENERATED = re.compile(r"[~≈]?(?P<n>\d[\d,]*)[- ]token\s+(?:\w+\s+){0,2}generation",
                        re.IGNORECASE)
_LENGTH_FLAGS = {"max_model_len": r"--max-model-len", "input_tokens":
                 r"--(?:random-)?input-len", "output_tokens": r"--(?:random-)?output-len"}


def _bound(text: str, start: int, end: int) -> str:
    """``>=`` for ``70+`` / "at least 70", ``<=`` for "up to 70", ``~`` for ``~70``."""
    before = text[max(0, start - 24):start].lower()
    if text[end:end + 1] == "+":
        return ">="
    if re.search(r"(?:up\s+to|at\s+most|<=?|≤)\s*$", before):
        return "<="
    if re.search(r"(?:\bat\s+least|\bover|\bmore\s+than|\babove|>=?|≥)\s*$", before):
        return ">="
    if re.search(r"(?:[~≈]|\babout|\baround|\broughly|\bapproximately|\bnearly)\s*$",
                 before):
        return "~"
    return "="


def _hardware(text: str) -> str:
    found = []
    for m in _HW.finditer(text):
        name = re.sub(r"\s+", " ", m.group(0))
        if name not in found:
            found.append(name)
    return ", ".join(found)


class ReportedScanner:
    """Finds reported figures in the guide of one document.

    Args:
        cite: citations into the document; its data must have a ``guide`` string.
    """

    def __init__(self, cite: Citer) -> None:
        self.cite = cite
        guide = cite.index.value("/guide")
        self.lines = guide.splitlines() if isinstance(guide, str) else []
        self.results: list[ReportedResult] = []
        self._seen: set[tuple[int, int, str]] = set()

    def file_line(self, index: int) -> int:
        """1-based file line of 0-based guide line ``index``."""
        return self.cite.doc.source_map.block_line("/guide", index)[0]

    def scan(self) -> list[ReportedResult]:
        """All reported figures, in guide order."""
        state = _Scan()
        paragraph: list[_Line] = []
        in_code = False
        code: list[_Line] = []
        i = 0
        while i < len(self.lines):
            text = self.lines[i]
            stripped = text.strip()
            if stripped.startswith("```"):
                if in_code:
                    self.code_block(code, state)
                    in_code, code = False, []
                else:
                    self.prose(paragraph, state)
                    paragraph, in_code = [], True
                i += 1
                continue
            if in_code:
                code.append(_Line(i, text))
                i += 1
                continue
            if re.match(r"^#{1,6}\s", stripped):
                self.prose(paragraph, state)
                paragraph = []
                level = len(stripped) - len(stripped.lstrip("#"))
                title = stripped.lstrip("#").strip()
                state.headings = [*state.headings[:max(level - 2, 0)], title]
                state.heading = " > ".join(state.headings)
                state.command, state.command_line, state.command_text = "", 0, ""
                state.image = None
                i += 1
                continue
            if stripped.startswith("|") and i + 1 < len(self.lines) and re.match(
                    r"^\s*\|?\s*:?-{2,}", self.lines[i + 1]):
                self.prose(paragraph, state)
                paragraph = []
                end = i + 2
                while end < len(self.lines) and self.lines[end].strip().startswith("|"):
                    end += 1
                self.table([_Line(j, self.lines[j]) for j in range(i, end)], state)
                i = end
                continue
            if not stripped:
                self.prose(paragraph, state)
                paragraph = []
            else:
                paragraph.append(_Line(i, text))
            i += 1
        self.prose(paragraph, state)
        if in_code:
            self.code_block(code, state)
        return self.results

    # -- pieces ----------------------------------------------------------------------------
    def add(self, metric: Metric, label: str, quoted: str, value: float, unit: str,
            index: int, conditions: dict[str, str], *, bound: str = "=",
            setup: ReportedSetup | None = None) -> None:
        """Record one figure at 0-based guide line ``index`` (duplicates skipped; so is a
        number no double holds, such as 400 digits: a figure of nothing)."""
        if not math.isfinite(value * 1000):
            return
        key = (index, int(value * 1000), metric)
        if key in self._seen:
            return
        self._seen.add(key)
        line = self.file_line(index)
        self.results.append(ReportedResult(
            metric=metric, label=label, quoted=quoted, value=value, unit=unit,
            bound=bound,  # type: ignore[arg-type]
            conditions={k: v for k, v in conditions.items() if v},
            setup=setup or ReportedSetup(),
            evidence_url=self.cite.url(line), source_document_sha256=self.cite.sha256))

    def setup(self, sentence: str, state: _Scan, *, earlier: str = "",
              earlier_line: int | None = None, hardware: str = "") -> ReportedSetup:
        """Structured conditions of a figure: from its ``sentence`` (or ``hardware`` of a
        table row), else the ``earlier`` sentences of its paragraph (first at guide line
        ``earlier_line``), else what the text points back to; lengths and draft tokens
        also from the command block above."""
        inherited: list[str] = []
        hw = _hardware(hardware or sentence)
        if not hw and earlier:
            hw = _hardware(earlier)
            if hw and earlier_line is not None:
                inherited.append(self.cite.url(self.file_line(earlier_line)))
        m = _IMAGE.search(sentence) or (_IMAGE.search(earlier) if earlier else None)
        image = m.group("image") if m else None
        if image is None and state.image and (_SAME_IMAGE.search(sentence)
                                              or _SAME_IMAGE.search(earlier)):
            image = state.image[0]
            inherited.append(self.cite.url(self.file_line(state.image[1])))
        values: dict[str, int] = {}
        from_command = False
        for source in (sentence, state.command_text):
            found = dict(values)
            d = _DRAFT.search(source)
            if d and "draft_tokens" not in values:
                values["draft_tokens"] = int(d.group("n") or d.group("m"))
            for name, flag in _LENGTH_FLAGS.items():
                f = re.search(flag + r"[=\s]+(\d+)", source)
                if f and name not in values:
                    values[name] = int(f.group(1))
            from_command = from_command or (source is state.command_text and
                                            bool(state.command_text) and values != found)
        g = _GENERATED.search(sentence)
        if g:
            values["generated_tokens"] = int(g.group("n").replace(",", ""))
        if from_command:
            url = self.cite.url(self.file_line(state.command_line))
            if url not in inherited:
                inherited.append(url)
        return ReportedSetup(hardware=[h.strip() for h in hw.split(",") if h.strip()],
                             image=image, inherited_from=inherited,
                             **values)

    def base_conditions(self, state: _Scan) -> dict[str, str]:
        """Heading path and the last command block (with its line URL)."""
        out = {"heading": state.heading}
        if state.command:
            out["command"] = state.command
            out["command_url"] = self.cite.url(self.file_line(state.command_line))
        return out

    def prose(self, paragraph: list[_Line], state: _Scan) -> None:
        """Figures in one prose paragraph (matched across its wrapped lines)."""
        if not paragraph:
            return
        text = "\n".join(ln.text for ln in paragraph)
        starts = []
        pos = 0
        for ln in paragraph:
            starts.append(pos)
            pos += len(ln.text) + 1
        for metric, pattern, unit, label in _PROSE:
            for m in pattern.finditer(text):
                num_at = m.start("num")
                row = max(k for k, s in enumerate(starts) if s <= num_at)
                quoted = m.group("num")
                mult = m.groupdict().get("mult")
                bound = _bound(text, num_at, m.end("num") + len(mult or ""))
                sentence = _sentence(text, m.start(), m.end())
                cond = self.base_conditions(state)
                cond["statement"] = sentence
                hw = _hardware(sentence)
                if hw:
                    cond["hardware"] = hw
                begin = _sentence_left(text, m.start())
                earlier = re.sub(r"\s+", " ", text[:begin]) if begin > 0 else ""
                hws = list(_HW.finditer(text, 0, max(begin, 0)))
                first = paragraph[max(k for k, s in enumerate(starts)
                                      if s <= hws[-1].start())].index if hws else None
                got_unit = (m.groupdict().get("unit") or unit).replace("\n", " ")
                plus = "+" if bound == ">=" and text[m.end("num"):m.end("num") + 1] == "+" \
                    else ""
                self.add(metric, label, quoted + (mult or "") + plus, _number(quoted, mult),
                         re.sub(r"\s+", " ", got_unit), paragraph[row].index, cond,
                         bound=bound, setup=self.setup(sentence, state, earlier=earlier,
                                                       earlier_line=first))
        images = list(_IMAGE.finditer(text))
        if images:
            last = images[-1]
            row = max(k for k, s in enumerate(starts) if s <= last.start())
            state.image = (last.group("image"), paragraph[row].index)

    def code_block(self, code: list[_Line], state: _Scan) -> None:
        """Remember a serve/bench command; read bench result, log and lm-eval lines."""
        if not code:
            return
        first = code[0].text.strip()
        if re.match(r"^(?:[A-Z_]+=\S+\s+)*(?:vllm|python|docker)\b", first) or any(
                "vllm serve" in ln.text for ln in code[:6]):
            serve = next((ln for ln in code if "vllm serve" in ln.text or "vllm bench" in
                          ln.text), code[0])
            state.command = serve.text.strip().rstrip("\\").strip()
            state.command_line = serve.index
            state.command_text = "\n".join(ln.text for ln in code)
        for ln in code:
            cond = self.base_conditions(state)
            m = _BENCH_LINE.match(ln.text)
            if m:
                label = m.group("label").strip()
                unit = m.group("unit")
                metric: Metric = "throughput" if unit.endswith("/s") else "latency"
                self.add(metric, label, m.group("num"), _number(m.group("num")), unit,
                         ln.index, cond, setup=self.setup("", state))
                continue
            m = _LOG_KV.search(ln.text)
            if m:
                self.add("kv_cache_tokens", "GPU KV cache size", m.group("num"),
                         _number(m.group("num")), "tokens", ln.index, cond,
                         setup=self.setup("", state))
            m = _LOG_CONC.search(ln.text)
            if m:
                cond["statement"] = ln.text.strip()
                self.add("max_concurrency", "maximum concurrency", m.group("num"),
                         _number(m.group("num")), "x", ln.index, cond,
                         setup=self.setup("", state))
        # lm-eval style tables inside a code block
        table = [ln for ln in code if ln.text.strip().startswith("|")]
        if len(table) >= 3:
            self.table(table, state)

    def table(self, rows: list[_Line], state: _Scan) -> None:
        """Figures of a pipe table: metric from the column header, else the row label;
        ``lm_eval`` layout (``Metric``/``Value`` columns) reads the Value column only."""
        cells = [_cells(r.text) for r in rows]
        header = cells[0]
        lower = [h.lower() for h in header]
        metric_col = lower.index("metric") if "metric" in lower else None
        value_col = lower.index("value") if "value" in lower else None
        last_label = ""
        for row, line in zip(cells[2:], rows[2:], strict=False):
            label = row[0] if row and row[0] else last_label
            last_label = label or last_label
            for col, cell in enumerate(row):
                if col >= len(header) or col == 0:
                    continue
                m = _CELL_NUM.match(cell.replace("`", "").replace("*", ""))
                if not m:
                    continue
                head, which = header[col], label
                metric: Metric | None
                if value_col is not None:  # lm-eval layout: only the Value column
                    if col != value_col:
                        continue
                    metric = "accuracy"
                    head = row[metric_col] if metric_col is not None and metric_col < len(
                        row) and row[metric_col] else "value"
                else:
                    metric = _column_metric(head)
                    if metric is None and col > 0 and label:
                        if re.match(r"^[+-]|.*%$", cell.strip()):
                            continue  # a change column, not a figure
                        metric = _column_metric(label)
                        if metric is not None:
                            head, which = label, header[col]
                if metric is None:
                    continue
                cond = self.base_conditions(state)
                cond["table_row"] = " | ".join(c for c in row if c)
                cond["column"] = header[col]
                hw = _hardware(cond["table_row"] + " " + state.heading)
                if hw:
                    cond["hardware"] = hw
                quoted = m.group("num") + (m.group("mult") or "")
                unit = _column_unit(head if value_col is None else header[col], metric)
                approx = cell.replace("`", "").replace("*", "").lstrip()[:1] in ("~", "≈")
                self.add(metric, f"{head} ({which})" if which else head, quoted,
                         _number(m.group("num"), m.group("mult")), unit, line.index, cond,
                         bound="~" if approx else "=",
                         setup=self.setup("", state, hardware=cond["table_row"] + " "
                                          + state.heading))


def _cells(line: str) -> list[str]:
    text = line.strip()
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.strip() for c in text.split("|")]


def _column_metric(head: str) -> Metric | None:
    if _ACCEPT_HEAD.search(head):
        return "acceptance_length" if "length" in head.lower() else "acceptance_rate"
    if re.search(r"concurrency", head, re.IGNORECASE):
        return "max_concurrency"
    if _KV_HEAD.search(head) and re.search(r"token|size|cache", head, re.IGNORECASE):
        return "kv_cache_tokens"
    if _THROUGHPUT_HEAD.search(head):
        return "throughput"
    if _LATENCY_HEAD.search(head):
        return "latency"
    if _ACCURACY_HEAD.search(head):
        return "accuracy"
    return None


def _column_unit(head: str, metric: Metric) -> str:
    m = re.search(r"\(([^)]+)\)", head)
    if m and metric in ("throughput", "latency") and _UNIT.match(m.group(1).strip()):
        return m.group(1).strip()
    return {"kv_cache_tokens": "tokens", "throughput": "tok/s", "latency": "ms",
            "accuracy": "score", "acceptance_length": "tokens per step",
            "acceptance_rate": "fraction",
            "max_concurrency": "x"}[metric]


def _sentence_left(text: str, start: int) -> int:
    """Where the sentence holding ``start`` begins."""
    left = max(text.rfind(". ", 0, start), text.rfind(".\n", 0, start))
    return 0 if left < 0 else left + 2


def _sentence(text: str, start: int, end: int) -> str:
    left = _sentence_left(text, start)
    right_candidates = [i for i in (text.find(". ", end), text.find(".\n", end)) if i >= 0]
    right = min(right_candidates) + 1 if right_candidates else len(text)
    return re.sub(r"\s+", " ", text[left:right]).strip()


def reported_results(cite: Citer) -> list[ReportedResult]:
    """Reported figures of ``cite``'s document (empty when it has no guide)."""
    return ReportedScanner(cite).scan()
