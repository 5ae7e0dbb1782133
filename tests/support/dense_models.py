"""Tiny sentence-transformers models with random weights, built and saved with the libraries' own `save`, so the
dense retriever's real loading code is tested without any download: a BERT of one layer and 32 dimensions, a
WordPiece tokenizer over a small local vocabulary."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WORDS = (
    "she he her his hers him herself himself woman man women men girl boy mother father daughter son gal guy "
    "female male mary john sister brother wife husband queen king actress actor nurse engineer doctor teacher "
    "dancer plumber electrician carpenter receptionist secretary pilot chef care tools wire hospital school "
    "report city market water policy union budget court season the a an is of and to in this that there here "
    "it was for on with as at by from probe sentence another document"
).split()


def _tokenizer(folder: Path):
    """A WordPiece tokenizer over the special tokens, WORDS and '.' (transformers 5 takes the vocabulary as a dict)."""
    from transformers import BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(WORDS), "."]
    return BertTokenizerFast(vocab={t: i for i, t in enumerate(tokens)}, do_lower_case=True)


def _bert_config(vocab_size: int, **extra):
    from transformers import BertConfig

    return BertConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        initializer_range=0.5,
        **extra,
    )


def tiny_bi_encoder(
    folder: Path,
    seed: int = 0,
    vocab_size: int | None = None,
    max_seq_length: int = 64,
    normalize: bool = True,
    similarity: str | None = None,
) -> Path:
    """A sentence-transformers bi-encoder (Transformer, mean pooling, Normalize) saved in `folder`; `vocab_size`
    smaller than the tokenizer's makes a model that loads but cannot encode."""
    import torch
    from sentence_transformers import SentenceTransformer

    try:
        from sentence_transformers.sentence_transformer import modules as models  # 6.x
    except ImportError:  # pragma: no cover - 5.x
        from sentence_transformers import models
    from transformers import BertModel

    work = folder.parent / f".{folder.name}-hf"
    tokenizer = _tokenizer(work)
    torch.manual_seed(seed)
    BertModel(_bert_config(vocab_size or len(tokenizer))).save_pretrained(work)
    tokenizer.save_pretrained(work)
    transformer = models.Transformer(str(work), max_seq_length=max_seq_length)
    dimension = getattr(transformer, "get_embedding_dimension", None) or transformer.get_word_embedding_dimension
    modules = [transformer, models.Pooling(dimension(), "mean")]
    if normalize:
        modules.append(models.Normalize())
    model = SentenceTransformer(modules=modules, device="cpu", similarity_fn_name=similarity)
    model.save(str(folder))
    return folder


def tiny_cross_encoder(folder: Path, seed: int = 0) -> Path:
    """A sentence-transformers CrossEncoder (BERT with a one-label classification head) saved in `folder`."""
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import BertForSequenceClassification

    work = folder.parent / f".{folder.name}-hf"
    tokenizer = _tokenizer(work)
    torch.manual_seed(seed)
    BertForSequenceClassification(_bert_config(len(tokenizer), num_labels=1)).save_pretrained(work)
    tokenizer.save_pretrained(work)
    CrossEncoder(str(work), max_length=128, device="cpu").save(str(folder))
    return folder
