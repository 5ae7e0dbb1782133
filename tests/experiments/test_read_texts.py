"""read_texts decodes a canonical line's id alone and its contents only where wanted: the same texts as decoding every
line whole, ids with escapes and characters beyond ASCII included."""

from __future__ import annotations

import json

from experiments.collections.base import _write_canonical, read_texts


def test_the_texts_of_the_wanted_ids_whatever_characters_they_hold(tmp_path):
    documents = [("d1", "plain"), ('q"uote\\d', 'a "quoted" text'), ("café-№7", "naïve ☃"), ("d4", '{"id": "d1"}')]
    _write_canonical(iter(documents), tmp_path)
    path = tmp_path / "documents.jsonl"
    whole = {record["id"]: record["contents"] for record in map(json.loads, path.read_text("utf-8").splitlines())}
    for wanted in ({"d1"}, {'q"uote\\d', "café-№7"}, {"d4", "absent"}, set(whole)):
        assert read_texts(path, wanted) == {d: t for d, t in whole.items() if d in wanted}
    other = tmp_path / "other.jsonl"  # a line that is not json.dumps's {"id": ...} first: decoded whole
    other.write_text('{"contents": "x", "id": "d9"}\n', encoding="utf-8")
    assert read_texts(other, {"d9"}) == {"d9": "x"}
