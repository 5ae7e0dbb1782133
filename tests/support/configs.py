"""Configs several test modules start from: a small demo config with changes (config_with), and the Robust04
config on a generated TREC-SGML sample with planted-gender test embeddings (robust04_config)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np

from experiments.config.experiment import BUILTIN_CONFIGS, parse_config
from gsr.lexicon import DEFAULT_DEFINITIONAL_PAIRS

BASE = {
    "collection": {"kind": "demo"},
    "embeddings": {"glove": {"source": "glove-6b-50d"}},
    "systems": [{"name": "BM25", "model": "bm25"}, {"name": "w2v_add", "model": "add", "embedding": "glove"}],
    "gsr": {"measuring": ["glove"]},
}


def _with(**changes):
    raw = {k: (dict(v) if isinstance(v, dict) else list(v)) for k, v in BASE.items()}
    raw.update(changes)
    return raw


def config_with(**changes):
    """The small demo config (BASE) with top-level tables replaced."""
    raw = {k: (dict(v) if isinstance(v, dict) else list(v)) for k, v in BASE.items()}
    raw.update(changes)
    return raw


FEMALE_TOPICS = ["nurse", "receptionist", "dancer"]
MALE_TOPICS = ["electrician", "plumber", "carpenter"]
FILLER = ["report", "city", "market", "water", "school", "policy", "union", "budget", "court", "season"]
FEMALE_CONTEXT = [f for f, _ in DEFAULT_DEFINITIONAL_PAIRS]
MALE_CONTEXT = [m for _, m in DEFAULT_DEFINITIONAL_PAIRS]


def _sgml_sample(root: Path, seed: int = 0) -> tuple[Path, Path, Path]:
    """Disks-4&5-like SGML files, TREC topics and qrels: each topic has stereotypical and counter documents."""
    rng = np.random.default_rng(seed)
    docs, qrels = [], []
    topics = FEMALE_TOPICS + MALE_TOPICS
    for t, topic in enumerate(topics):
        typical, other = (FEMALE_CONTEXT, MALE_CONTEXT) if topic in FEMALE_TOPICS else (MALE_CONTEXT, FEMALE_CONTEXT)
        for i in range(12):
            context = typical if i < 8 else other
            words = [topic] * int(rng.integers(2, 5)) + list(rng.choice(context, 4)) + list(rng.choice(FILLER, 8))
            rng.shuffle(words)
            docno = f"FT9{t}{i:02d}-{i}"
            docs.append((docno, " ".join(words)))
            qrels.append(f"{301 + t} 0 {docno} {2 if i % 3 == 0 else 1}")
    for j in range(60):
        docs.append((f"LA0{j:04d}-0001", " ".join(rng.choice(FILLER + FEMALE_CONTEXT + MALE_CONTEXT, 12))))
        qrels.append(f"{301 + j % len(topics)} 0 LA0{j:04d}-0001 0")
    (root / "disk4" / "ft").mkdir(parents=True)
    (root / "disk5" / "latimes").mkdir(parents=True)
    half = len(docs) // 2
    for folder, part in (
        (root / "disk4" / "ft" / "ft921", docs[:half]),
        (root / "disk5" / "latimes" / "la01", docs[half:]),
    ):
        folder.write_text(
            "".join(
                f"<DOC>\n<DOCNO> {d} </DOCNO>\n<HEADLINE>News</HEADLINE>\n<TEXT>\n{text}\n</TEXT>\n</DOC>\n"
                for d, text in part
            ),
            encoding="latin-1",
        )
    topics_file = root / "topics.robust04.txt"
    topics_file.write_text(
        "".join(
            f"<top>\n<num> Number: {301 + t}\n<title> {topic}\n\n<desc> Description:\n"
            f"Documents about a {topic}.\n\n<narr> Narrative:\nAny.\n</top>\n\n"
            for t, topic in enumerate(topics)
        )
        + "<top>\n<num> Number: 399\n<title> orphan "
        "topic\n<desc> Description:\nx\n<narr> Narrative:\ny\n</top>\n"
    )
    qrels_file = root / "qrels.robust04.txt"
    qrels_file.write_text("\n".join(qrels) + "\n")
    return root, topics_file, qrels_file


def _embedding_file(path: Path, seed: int, binary: bool) -> Path:
    """Random vectors with a planted gender axis, in word2vec format (binary or text)."""
    from gensim.models import KeyedVectors

    rng = np.random.default_rng(seed)
    words = sorted(set(FEMALE_TOPICS + MALE_TOPICS + FILLER + FEMALE_CONTEXT + MALE_CONTEXT + ["news"]))
    vectors = rng.normal(scale=0.3, size=(len(words), 20)).astype(np.float32)
    for i, word in enumerate(words):
        if word in FEMALE_CONTEXT or word in FEMALE_TOPICS:
            vectors[i, 0] += 1.0
        if word in MALE_CONTEXT or word in MALE_TOPICS:
            vectors[i, 0] -= 1.0
    kv = KeyedVectors(20)
    kv.add_vectors(words, vectors)
    kv.save_word2vec_format(str(path), binary=binary)
    return path


def robust04_config(tmp_path: Path, systems=None):
    """experiments/robust04.toml with its paths pointed at the generated sample and test embeddings."""
    disks, topics, qrels = _sgml_sample(tmp_path / "trec")
    raw = tomllib.loads(BUILTIN_CONFIGS["robust04"].read_text())
    raw["collection"].update(
        documents=[str(disks / "disk4" / "ft"), str(disks / "disk5" / "latimes")], topics=str(topics), qrels=str(qrels)
    )
    raw["embeddings"]["w2v"]["source"] = str(_embedding_file(tmp_path / "w2v.bin", 1, binary=True))
    raw["embeddings"]["ftt"]["source"] = str(_embedding_file(tmp_path / "ftt.vec", 2, binary=False))
    raw["output"] = str(tmp_path / "out")
    raw["depth"] = 50
    for system in raw["systems"]:
        if system["model"] in ("drmm", "matchpyramid"):
            system["epochs"] = 1  # the sample only checks that the whole §4.2 runs
    if systems is not None:
        raw["systems"] = [s for s in raw["systems"] if s["name"] in systems]
        raw["evaluation"]["baseline"] = raw["systems"][0]["name"]
    else:  # the paper's eight systems; the dense encoder is run on a collection of its own in test_dense.py
        raw["systems"] = [s for s in raw["systems"] if s["model"] != "dense"]
    return parse_config(raw, BUILTIN_CONFIGS["robust04"])
