"""A plain-Python transcription of the FaiRR reference code (CPJKU/FairnessRetrievalResults, commit 81693da, MIT:
measurement/document_neutrality.py, calc_documents_neutrality.py and metrics_fairness.py), to check gsr's FaiRR
against. It keeps the reference's structure and arithmetic (dicts and lists, numpy sums of products, lists cut at
min(len, k), the background as a set of ids sorted by neutrality); the differences are only where the original
cannot run as written or reads MS MARCO's numeric ids:

- ids stay strings (the original's int() of query and document ids);
- a document without a neutrality score is 1.0, as the original intends (its warning line names an undefined
  variable, `_doc_id`, so the original stops there with a NameError);
- the file readers take a path and no print.
"""

from __future__ import annotations

import collections

import numpy as np


class DocumentNeutrality:
    """document_neutrality.py's DocumentNeutrality."""

    def __init__(self, representative_words_path, threshold=1, groups_portion=None):
        self.threshold = threshold
        self.groups_portion = groups_portion if groups_portion is not None else {"f": 0.5, "m": 0.5}
        self.representative_words = {group: [] for group in self.groups_portion}
        for line in open(representative_words_path, encoding="utf-8"):
            vals = line.strip().split(",")
            word, group = vals[0].lower(), vals[1]
            if group not in self.groups_portion:
                raise Exception(
                    f"Group {group} is observed in representative words but is not defined in groups_portion"
                )
            self.representative_words[group].append(word)
        for group in self.representative_words:
            self.representative_words[group] = set(self.representative_words[group])

    def get_magnitude_count(self, tokens):
        text_count = collections.Counter(tokens)
        magnitudes = {group: 0 for group in self.groups_portion}
        for word in text_count:
            for group in self.groups_portion:
                if word in self.representative_words[group]:
                    magnitudes[group] += text_count[word]
        return magnitudes

    def get_neutrality(self, tokens):
        magnitudes = self.get_magnitude_count(tokens)
        total = np.sum(list(magnitudes.values()))
        neutrality = 1
        if total > self.threshold:
            for group in self.groups_portion:
                distribution = magnitudes[group] / float(total)
                neutrality -= np.abs(distribution - self.groups_portion[group])
        return neutrality


def collection_neutrality(documents, neutrality: DocumentNeutrality, as_written: bool = True) -> dict[str, float]:
    """calc_documents_neutrality.py's loop over 'docid<TAB>text' records: text.lower().split(' '); as_written: the
    score as the original writes it ("%f", six decimals) and FaiRRMetric reads it back (float); else unrounded."""
    scores = {docid: neutrality.get_neutrality(text.lower().split(" ")) for docid, text in documents}
    return {docid: float(f"{score:f}") if as_written else float(score) for docid, score in scores.items()}


class FaiRRMetric:
    """metrics_fairness.py's FaiRRMetric, with the neutralities given as a dict instead of read from a file."""

    def __init__(self, documents_neutrality, background_doc_set, thresholds=(5, 10, 20, 50)):
        self.documents_neutrality = documents_neutrality
        self.background_doc_set = background_doc_set
        self.thresholds = list(thresholds)
        self.position_biases = [1 / (np.log2(rank + 1)) for rank in range(1, 1001)]
        background_neutrality = {}
        for qid in self.background_doc_set:
            background_neutrality[qid] = [self.documents_neutrality.get(d, 1.0) for d in self.background_doc_set[qid]]
        self.IFaiRR_perq = {}
        for qid in background_neutrality:
            background_neutrality[qid].sort(reverse=True)
        for threshold in self.thresholds:
            self.IFaiRR_perq[threshold] = {}
            for qid in background_neutrality:
                th = np.min([len(background_neutrality[qid]), threshold])
                self.IFaiRR_perq[threshold][qid] = np.sum(
                    np.multiply(background_neutrality[qid][:th], self.position_biases[:th])
                )

    def calc_FaiRR_retrievalresults(self, retrievalresults):
        neutralities = {
            qid: [self.documents_neutrality.get(d, 1.0) for d in retrievalresults[qid][: np.max(self.thresholds)]]
            for qid in retrievalresults
        }
        FaiRR, FaiRR_perq = {}, {}
        for threshold in self.thresholds:
            FaiRR_perq[threshold] = {}
            for qid in neutralities:
                th = np.min([len(neutralities[qid]), threshold])
                FaiRR_perq[threshold][qid] = np.sum(np.multiply(neutralities[qid][:th], self.position_biases[:th]))
            FaiRR[threshold] = np.mean(list(FaiRR_perq[threshold].values()))
        NFaiRR, NFaiRR_perq = {}, {}
        for threshold in self.thresholds:
            NFaiRR_perq[threshold] = {}
            for qid in FaiRR_perq[threshold]:
                if qid not in self.IFaiRR_perq[threshold]:
                    continue  # the original prints an error and leaves the query out
                NFaiRR_perq[threshold][qid] = FaiRR_perq[threshold][qid] / self.IFaiRR_perq[threshold][qid]
            NFaiRR[threshold] = np.mean(list(NFaiRR_perq[threshold].values()))
        return {
            "metrics_avg": {"FaiRR": FaiRR, "NFaiRR": NFaiRR},
            "metrics_perq": {"FaiRR": FaiRR_perq, "NFaiRR": NFaiRR_perq},
        }

    def calc_FaiRR_rankeragnostic(self, doc_set_withqry):
        neutralities = {
            qid: [self.documents_neutrality.get(d, 1.0) for d in doc_set_withqry[qid]] for qid in doc_set_withqry
        }
        FaiRR, FaiRR_perq = {}, {}
        for th in self.thresholds:
            FaiRR_perq[th] = {}
            for qid in neutralities:
                FaiRR_perq[th][qid] = np.mean(neutralities[qid]) * np.sum(self.position_biases[:th])
            FaiRR[th] = np.mean(list(FaiRR_perq[th].values()))
        NFaiRR, NFaiRR_perq = {}, {}
        for threshold in self.thresholds:
            NFaiRR_perq[threshold] = {}
            for qid in FaiRR_perq[threshold]:
                if qid not in self.IFaiRR_perq[threshold]:
                    continue
                NFaiRR_perq[threshold][qid] = FaiRR_perq[threshold][qid] / self.IFaiRR_perq[threshold][qid]
            NFaiRR[threshold] = np.mean(list(NFaiRR_perq[threshold].values()))
        return {
            "metrics_avg": {"FaiRR": FaiRR, "NFaiRR": NFaiRR},
            "metrics_perq": {"FaiRR": FaiRR_perq, "NFaiRR": NFaiRR_perq},
        }


def read_retrievalresults_from_runfile(trec_run_path, cut_off=200):
    """FaiRRMetricHelper.read_retrievalresults_from_runfile: the first `cut_off` lines of each query in file order."""
    retrievalresults = {}
    qryid_cur = None
    with open(trec_run_path, encoding="utf-8") as lines:
        for line in lines:
            vals = line.strip().split(" ")
            if len(vals) != 6:
                vals = line.strip().split("\t")
            if len(vals) == 6:
                qid, docid = vals[0].strip(), vals[2].strip()
                if qid != qryid_cur:
                    retrievalresults[qid] = []
                    qryid_cur = qid
                if len(retrievalresults[qid]) < cut_off:
                    retrievalresults[qid].append(docid)
    return retrievalresults


def read_documentset_from_retrievalresults(trec_run_path):
    """FaiRRMetricHelper.read_documentset_from_retrievalresults: each query's first 200 documents as a set."""
    return {qid: set(docids) for qid, docids in read_retrievalresults_from_runfile(trec_run_path).items()}
