"""The index's "I run vLLM" filter lists its versions in PEP 440 order (``packaging``):
post-releases by their number, a release candidate before its final release, a text
that is no version after them and ``nightly`` last."""

from __future__ import annotations

import re

from validator.evidence.site.index_page import index_html


def test_the_vllm_filter_orders_versions_as_pep_440() -> None:
    releases = ["0.6.2", "0.6.1.post2", "0.10.0", "0.6.1.post1", "0.6.1", "nightly",
                "0.10.0rc1", "0.9.2", "not-a-version"]
    html = index_html([], releases)
    select = html[html.index('id="f-vllm"'):]
    offered = re.findall(r'<option value="([^"]+)"', select[:select.index("</select>")])
    assert offered == ["0.6.1", "0.6.1.post1", "0.6.1.post2", "0.6.2", "0.9.2",
                       "0.10.0rc1", "0.10.0", "not-a-version", "nightly"]
