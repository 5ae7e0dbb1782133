"""The toy collection several test modules run on: twelve documents, five topics, graded qrels, a run, a 3-d
embedding whose first axis is the gender direction, definitional pairs, a stop list, folds and an experiment config,
written into a folder by `write_toy`. Data only: no test lives here."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS

FEMALE = [f for f, _ in DEFAULT_DEFINITIONAL_PAIRS]
MALE = [m for _, m in DEFAULT_DEFINITIONAL_PAIRS]
# g(w) of the content words: the embedding's first axis is the gender direction (female > 0)
CONTENT = {
    "nurse": 0.6,
    "hospital": 0.3,
    "care": 0.4,
    "kind": 0.2,
    "teacher": 0.35,
    "school": 0.1,
    "electrician": -0.6,
    "tools": -0.4,
    "wire": -0.3,
    "strong": -0.2,
    "engineer": -0.5,
    "bridge": -0.25,
    "budget": 0.0,
    "report": 0.05,
    "weather": -0.05,
    "rain": 0.02,
    "annual": 0.01,
    "city": -0.02,
}
DOCS = {
    "m1": "he is an electrician with strong tools and wire",
    "m2": "the engineer built a bridge with his father",
    "m3": "a man and his son fixed the wire",
    "f1": "she is a nurse at the hospital and gives kind care",
    "f2": "the teacher at the school is a mother with her daughter",
    "f3": "a woman nurse gives care",
    "n1": "the annual budget report of the city",
    "n2": "weather report with rain in the city",
    "n3": "budget and weather",
    "x1": "the girl and the boy at school",
    "x2": "his tools and her care",
    "x3": "the city hospital report",
}
TOPICS = {
    "q1": "electrician tools",
    "q2": "nurse hospital",
    "q3": "budget report",
    "q4": "teacher school",
    "q5": "engineer bridge",
}
QRELS = [
    ("q1", "m1", 2),
    ("q1", "m3", 1),
    ("q1", "x2", 0),
    ("q2", "f1", 2),
    ("q2", "f3", 1),
    ("q2", "x3", 1),
    ("q3", "n1", 1),
    ("q3", "n3", 1),
    ("q4", "f2", 2),
    ("q4", "x1", 1),
    ("q5", "m2", 1),
]
RUN = {
    "q1": ["m1", "x2", "m3", "f1"],
    "q2": ["f1", "x3", "m1", "f3"],
    "q3": ["n1", "n2", "n3"],
    "q4": ["x1", "f2", "n1"],
    "q5": ["m2", "m1", "x1"],
}
# RUN's documents in a third order (the first and second documents swapped where that changes the list): with RUN
# and RUN reversed, three runs the bias measures and GSR order differently
SHUFFLED_RUN = {
    "q1": ["m1", "f1", "m3", "x2"],
    "q2": ["f3", "m1", "f1", "x3"],
    "q3": ["n1", "n2", "n3"],
    "q4": ["n1", "x1", "f2"],
    "q5": ["m2", "m1", "x1"],
}
CONFIG = """threads = 1
[collection]
kind = "files"
documents = "docs.jsonl"
topics = "topics.tsv"
qrels = "qrels.txt"
folds = "folds.json"
[embeddings.tiny]
source = "vectors.txt"
[[systems]]
name = "add"
model = "add"
embedding = "tiny"
[[systems]]
name = "si"
model = "si"
embedding = "tiny"
[gsr]
measuring = "tiny"
[debias]
variants = ["debiased"]
[plots]
enabled = false
[analyses]
intrinsic_gender = false
rank_change = false
"""


def vectors_text() -> str:
    """word2vec text: a 'count dim' header, then 3 values per word; the first axis is the gender direction."""
    rows = [f"{w} 1.0 {0.1 * i:.1f} 0.2" for i, w in enumerate(FEMALE)]
    rows += [f"{w} -1.0 {0.1 * i:.1f} 0.2" for i, w in enumerate(MALE)]
    rows += [f"{w} {g} {0.3 + 0.01 * i:.2f} 0.5" for i, (w, g) in enumerate(CONTENT.items())]
    return f"{len(rows)} 3\n" + "\n".join(rows) + "\n"


def write_toy(folder: Path) -> Path:
    """The toy collection's files (documents as JSONL, TSV and .jsonl.gz; topics as TSV, JSONL and SGML; qrels, a run,
    the embedding, definitional pairs, a stop list, a word list, folds and the config) in `folder`."""
    files = {
        "docs.jsonl": "".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in DOCS.items()),
        "docs.tsv": "".join(f"{d}\t{t}\n" for d, t in DOCS.items()),
        "topics.tsv": "".join(f"{q}\t{t}\n" for q, t in TOPICS.items()),
        "topics.jsonl": "".join(json.dumps({"qid": q, "text": t}) + "\n" for q, t in TOPICS.items()),
        "topics.sgml": "".join(
            f"<top>\n<num> Number: {q}\n<title> {t}\n<desc> Description:\nabout {t}\n</top>\n\n"
            for q, t in TOPICS.items()
        ),
        "qrels.txt": "".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS),
        "run.txt": "".join(f"{q} Q0 {d} {r} {10 - r} toy\n" for q, ds in RUN.items() for r, d in enumerate(ds, 1)),
        "vectors.txt": vectors_text(),
        "pairs.json": json.dumps([list(p) for p in DEFAULT_DEFINITIONAL_PAIRS]),
        "stop.txt": "care\nand\n# a comment\nwith\n",
        "words.json": json.dumps(["mother", "father", "daughter", "son"]),
        "folds.json": json.dumps([["q1", "q2"], ["q3", "q4"], ["q5"]]),
        "config.toml": CONFIG,
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    with gzip.open(folder / "docs.jsonl.gz", "wb") as out:
        out.write(files["docs.jsonl"].encode("utf-8"))
    return folder


def config_with_systems(folder: Path, systems: str, name: str = "systems.toml", threads: int = 1) -> Path:
    """The toy config of `folder` (written by write_toy) with the `systems` tables (TOML, embedding tables may come
    first) instead of its own, no debiased variants and `threads`, written as `name`; returns its path."""
    config = (folder / "config.toml").read_text(encoding="utf-8").replace("threads = 1", f"threads = {threads}")
    head, tail = config.split("[[systems]]", 1)[0], config[config.index("[gsr]") :]
    tail = tail.replace('[debias]\nvariants = ["debiased"]\n', "")
    path = folder / name
    path.write_text(head + systems + tail, encoding="utf-8")
    return path


def score_args(folder: Path, runs: tuple[str, ...] = ("run.txt",), qrels: bool = True, embedding: bool = True) -> list:
    """`gsr score`'s arguments on the toy files in `folder` (written by write_toy): the runs, topics, documents, and
    optionally the qrels and the toy embedding, with one worker; a caller adds its own options."""
    args = ["score", "--run", *(str(folder / run) for run in runs), "--topics", str(folder / "topics.tsv")]
    args += ["--docs", str(folder / "docs.jsonl"), "--jobs", "1"]
    args += ["--qrels", str(folder / "qrels.txt")] if qrels else []
    args += ["--embedding", str(folder / "vectors.txt")] if embedding else []
    return args


def write_run(path: Path, run: dict[str, list[str]], tag: str = "toy") -> Path:
    """`run` ({qid: ranked docids}) as a TREC run file at `path`, scores 10 − rank."""
    path.write_text(
        "".join(f"{q} Q0 {d} {r} {10 - r} {tag}\n" for q, docs in run.items() for r, d in enumerate(docs, 1))
    )
    return path
