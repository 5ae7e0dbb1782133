"""Issue 35, item 2: what would fail late is found before any work, by `gsr run` and by `gsr run --dry-run`, naming
the config keys: an embedding that lacks (or, trained on the collection, will lack) definitional words, and every
missing input file of a config at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.cli import main
from tests.support.toy_collection import CONFIG, write_toy

# the toy config measuring with an embedding trained on the collection, without debiased variants
TRAINED = (
    CONFIG.replace(
        '[embeddings.tiny]\nsource = "vectors.txt"',
        '[embeddings.w2v]\ntrain = "word2vec"\ndim = 8\nepochs = 1\nmin_count = MIN_COUNT\n'
        '[embeddings.tiny]\nsource = "vectors.txt"',
    )
    .replace('measuring = "tiny"', 'measuring = "w2v"\nGSR_EXTRA')
    .replace('[debias]\nvariants = ["debiased"]\n', "")
)


def gsr(args: list[str], capsys) -> tuple[int, str, str]:
    """`gsr ARGS` in this process: (exit status, stdout, stderr), never a traceback."""
    status = main(args)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    return status, out, err


def _config(folder: Path, min_count: int = 1, gsr_extra: str = "", text: str = TRAINED) -> Path:
    path = folder / "trained.toml"
    path.write_text(text.replace("MIN_COUNT", str(min_count)).replace("GSR_EXTRA", gsr_extra), encoding="utf-8")
    return path


def _nothing_trained(cache: Path) -> bool:
    return not list((cache / "embeddings").glob("trained-*")) if (cache / "embeddings").exists() else True


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_trained_embedding_without_the_default_pairs_words_stops_before_training(
    tmp_path, capsys, own_cache, dry_run
):
    folder = write_toy(tmp_path / "toy")
    args = ["run", str(_config(folder)), "--out", str(folder / "out")] + (["--dry-run"] if dry_run else [])
    status, _, err = gsr(args, capsys)
    assert status == 2
    assert (
        "embeddings.w2v, trained on the collection (min_count 1), will lack definitional words of the default "
        "definitional pairs (Bolukbasi's ten; gsr.definitional gives others): the collection has Mary 0 times, "
        "John 0 times, herself 0 times, himself 0 times, gal 0 times, guy 0 times, female 0 times, male 0 times; give "
        "pairs whose words it has at least min_count times, or lower embeddings.w2v.min_count"
    ) in err
    assert "--definitional" not in err
    assert _nothing_trained(own_cache)
    assert dry_run != (own_cache / "token-corpora").exists()  # a dry run writes nothing; a run keeps its counts


def test_min_count_decides_and_the_counts_are_quoted(tmp_path, capsys, own_cache):
    folder = write_toy(tmp_path / "toy")
    (folder / "pairs.json").write_text(json.dumps([["she", "he"], ["nurse", "electrician"]]), encoding="utf-8")
    config = _config(folder, min_count=2, gsr_extra='definitional = "pairs.json"')
    status, _, err = gsr(["run", str(config), "--out", str(folder / "out"), "--dry-run"], capsys)
    assert status == 2
    assert f"(min_count 2), will lack definitional words of gsr.definitional ({folder / 'pairs.json'})" in err
    assert "the collection has she 1 time, he 1 time, electrician 1 time;" in err  # nurse: 2 times
    assert _nothing_trained(own_cache)


def test_a_file_embedding_without_the_pairs_words_is_found_by_the_dry_run(tmp_path, capsys, own_cache):
    folder = write_toy(tmp_path / "toy")
    (folder / "pairs.json").write_text(json.dumps([["she", "he"], ["queen", "king"]]), encoding="utf-8")
    config = folder / "config.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('measuring = "tiny"', 'measuring = "tiny"\ndefinitional = "pairs.json"'), "utf-8")
    status, _, err = gsr(["run", str(config), "--out", str(folder / "out"), "--dry-run"], capsys)
    assert status == 2
    # said once, though debiasing the systems' embedding (the config's [debias] variants) fits on the same pairs
    assert err.strip().splitlines()[-1] == (
        f"gsr: error: {config}: embeddings.tiny lacks definitional words of gsr.definitional "
        f"({folder / 'pairs.json'}): queen, king"
    )
    assert not (own_cache / "embeddings").exists()  # the dry run read the file and cached nothing


def test_every_missing_input_is_named_at_once_with_its_key(tmp_path, capsys):
    folder = write_toy(tmp_path / "toy")
    for name in ("docs.jsonl", "qrels.txt", "vectors.txt", "pairs.json", "stop.txt"):
        (folder / name).unlink()
    config = folder / "config.toml"
    text = config.read_text(encoding="utf-8").replace(
        'measuring = "tiny"', 'measuring = "tiny"\ndefinitional = "pairs.json"\nstopwords = "stop.txt"'
    )
    config.write_text(text, encoding="utf-8")
    for dry_run in ([], ["--dry-run"]):
        status, _, err = gsr(["run", str(config), "--out", str(folder / "out"), *dry_run], capsys)
        assert status == 2
        line = err.strip().splitlines()[-1]
        assert line == (
            f"gsr: error: {config}: no such file or folder: collection.documents = {folder / 'docs.jsonl'}; "
            f"collection.qrels = {folder / 'qrels.txt'}; embeddings.tiny.source = {folder / 'vectors.txt'}; "
            f"gsr.stopwords = {folder / 'stop.txt'}; gsr.definitional = {folder / 'pairs.json'}"
        )


def test_the_robust04_config_names_its_missing_disks_embeddings_topics_and_qrels(tmp_path, capsys, monkeypatch):
    """The built-in robust04 config where none of the licensed data is (its /data paths moved under an empty folder,
    Pyserini's cache empty): every missing input at once; its named stop list ('nltk') is not a file."""
    from experiments.config.experiment import BUILTIN_CONFIGS

    monkeypatch.setenv("PYSERINI_CACHE", str(tmp_path / "pyserini"))
    config = tmp_path / "robust04.toml"
    config.write_text(BUILTIN_CONFIGS["robust04"].read_text(encoding="utf-8").replace('"/data/', f'"{tmp_path}/data/'))
    status, _, err = gsr(["run", str(config), "--dry-run", "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    line = err.strip().splitlines()[-1]
    for disk in ("disk4/fr94", "disk4/ft", "disk5/fbis", "disk5/latimes"):
        assert f"collection.documents = {tmp_path}/data/trec/{disk};" in line
    assert "collection.topics = pyserini:robust04 (" in line and "collection.qrels = pyserini:robust04 (" in line
    assert f"embeddings.w2v.source = {tmp_path}/data/embeddings/GoogleNews-vectors-negative300.bin;" in line
    assert line.endswith(f"embeddings.ftt.source = {tmp_path}/data/embeddings/crawl-300d-2M.vec")


@pytest.mark.parametrize("topics", ["msmarco-gender:n", "fairness-sensitive:dl19"])
def test_a_built_in_topic_set_is_a_name_not_a_missing_file(tmp_path, capsys, topics):
    """The built-in msmarco config where its MS MARCO files are not: only they are named, not its built-in topic set
    (nor the fairness-sensitive one in its place), and neither counts as an input path that outputs must avoid."""
    from experiments.config.experiment import BUILTIN_CONFIGS, load_config
    from experiments.report.provenance import input_paths

    config = tmp_path / "msmarco.toml"
    text = BUILTIN_CONFIGS["msmarco"].read_text(encoding="utf-8")
    config.write_text(text.replace('topics = "msmarco-gender:n"', f'topics = "{topics}"'), encoding="utf-8")
    status, _, err = gsr(["run", str(config), "--dry-run", "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    assert err.strip().splitlines()[-1] == (
        f"gsr: error: {config}: no such file or folder: collection.documents = {tmp_path / 'collection.tsv'}; "
        f"collection.qrels = {tmp_path / 'qrels.dev.small.tsv'}"
    )
    assert topics not in [str(path) for _, path in input_paths(load_config(config))]
