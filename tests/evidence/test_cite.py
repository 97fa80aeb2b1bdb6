"""Citation URLs and line ranges."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from validator.evidence.cite import Citer, blob_url, parse_anchor
from validator.load import load_yaml

SEGMENT = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"),
                                         blacklist_characters="/#?%"), min_size=1,
                  max_size=12).filter(lambda s: s not in (".", ".."))


@given(st.lists(SEGMENT, min_size=1, max_size=4), st.integers(1, 5000), st.integers(0, 50))
def test_blob_url_round_trip(parts: list[str], first: int, extra: int) -> None:
    path = "/".join(parts)
    url = blob_url("o/r", "a" * 40, path, first, first + extra)
    assert parse_anchor(url) == ("o/r", "a" * 40, path, first, first + extra)
    assert url.endswith(f"#L{first}" if extra == 0 else f"#L{first}-L{first + extra}")


def test_node_lines() -> None:
    text = (
        b"model:\n"            # 1
        b"  args:\n"           # 2
        b"    - a\n"           # 3
        b"    - b\n"           # 4
        b"  flow: [x, y]\n"    # 5
        b"  name: n\n"         # 6
        b"guide: |\n"          # 7
        b"  one\n"             # 8
        b"  two\n"             # 9
        b"tail: 1\n"           # 10
    )
    doc = load_yaml(text, "m.yaml")
    cite = Citer("o/r", "b" * 40, doc, hashlib.sha256(text).hexdigest())
    assert cite.index.lines("/model/args") == (3, 4)  # not the next key's line
    assert cite.index.lines("/model/flow") == (5, 5)
    assert cite.index.lines("/model") == (2, 6)
    assert cite.index.lines("/guide") == (8, 9)
    assert cite.index.lines("/missing") is None
    assert cite.at("/model/name") == blob_url("o/r", "b" * 40, "m.yaml", 6)
    assert cite.key_and_value("/model/args") == blob_url("o/r", "b" * 40, "m.yaml", 2, 4)
