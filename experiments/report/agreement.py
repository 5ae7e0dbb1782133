"""Measure agreement (gsr.fairness.agreement) as the report shows it, for the measure_agreement analysis of `gsr run`
and for `gsr score --agreement --html` alike: one row per pair of measures (τ with its interval, the median
per-query ρ, how many pairs of systems the two order oppositely and the clearest of those with its queries), the
disagreements with their driving queries as Markdown, and the table's note."""

from __future__ import annotations

from itertools import combinations

from gsr.fairness.agreement import AgreementReport, Disagreement
from gsr.infra.numeric import format_number

TITLE = "Measure agreement: do GSR and the bias measures order the systems alike?"
SHOWN_DRIVERS = 3  # queries named per measure in the table's clearest disagreement
SHOWN_DISAGREEMENTS = 5  # disagreements listed per pair of measures in measure_agreement_drivers.md


def clearest(report: AgreementReport, pair: tuple[str, str]) -> Disagreement | None:
    """The clearest pair of systems the two measures order oppositely (AgreementReport.disagreements_of), None where
    they order none oppositely."""
    found = report.disagreements_of(pair)
    return found[0] if found else None


def disagreement_text(d: Disagreement, drivers: int = SHOWN_DRIVERS) -> str:
    """'a vs b: GSR finds a more biased (q1, q2), NFaiRR@10 finds b (q3)' — each verdict with its driving queries."""
    parts = []
    for measure, system in zip(d.measures, d.systems):
        queries = ", ".join(x.qid for x in d.drivers.get(measure, [])[:drivers])
        parts.append(f"{measure} finds {system} more biased" + (f" (queries {queries})" if queries else ""))
    return f"{d.systems[0]} vs {d.systems[1]}: " + "; ".join(parts)


def agreement_rows(report: AgreementReport) -> list[dict]:
    """One row per pair of measures: τ and its interval (None where undefined, the reason in `note`), the systems
    both give a value, the median per-query Spearman ρ over the systems, the pairs of systems they order
    oppositely, and the clearest such pair with the queries behind each verdict."""
    rows = []
    for tau in report.taus:
        pair = tau.measures
        interval = tau.interval
        notes = []
        if tau.undefined:
            notes.append(f"τ undefined: {tau.undefined}")
        elif interval is not None and interval.low is None:
            notes.append(f"no interval: {interval.reason}")
        rho, systems, why = report.median_correlation(pair)
        if rho is None:
            notes.append(f"per-query ρ undefined: {why}")
        opposite = [d for d in report.disagreements if set(d.measures) == set(pair)]
        shown = clearest(report, pair)
        both = tau.systems
        rows.append(
            {
                "measure": pair[0],
                "compared with": pair[1],
                "τ": tau.tau,
                "τ ci low": interval.low if interval is not None else None,
                "τ ci high": interval.high if interval is not None else None,
                "systems": both,
                "median per-query ρ": rho,
                "systems with ρ": systems,
                "opposite pairs": len(opposite),
                "system pairs": both * (both - 1) // 2,
                "clearest disagreement": disagreement_text(shown) if shown is not None else None,
                "note": "; ".join(notes) or None,
            }
        )
    return rows


def drivers_markdown(report: AgreementReport, shown: int = SHOWN_DISAGREEMENTS) -> str:
    """For each pair of measures, its `shown` clearest disagreements (AgreementReport.disagreements_of) with each
    verdict's driving queries (their contribution to the measure's difference between the two systems), as Markdown
    (names escaped); measure_agreement_disagreements.json holds every one."""
    from experiments.report.tables import markdown_text

    lines = ["### Measure agreement: the queries behind each disagreement", ""]
    if not report.disagreements:
        return "\n".join(lines + ["No two measures order a pair of systems oppositely.", ""])
    for tau in report.taus:
        found = report.disagreements_of(tau.measures)
        if not found:
            continue
        first, second = (markdown_text(m) for m in tau.measures)
        more = f", the {shown} clearest shown" if len(found) > shown else ""
        lines.append(f"**{first} and {second}** order {len(found)} pairs of systems oppositely{more}:")
        lines.append("")
        for d in found[:shown]:
            lines.append(f"- {markdown_text(d.systems[0])} vs {markdown_text(d.systems[1])}:")
            for measure, system in zip(d.measures, d.systems):
                queries = ", ".join(
                    f"{markdown_text(x.qid)} ({format_number(x.contribution, sign=True)})"
                    for x in d.drivers.get(measure, [])
                )
                lines.append(
                    f"    - {markdown_text(measure)} finds {markdown_text(system)} more biased (difference "
                    f"{format_number(d.differences[measure], sign=True)}): {queries or 'no single query'}"
                )
        lines.append("")
    note = (
        "A difference is the measure's oriented value (larger: more biased) of the first system minus the second's; "
        "a query's contribution is its share of it (the contributions of all queries add up to the difference). "
        "measure_agreement_disagreements.json lists every disagreement."
    )
    return "\n".join([*lines, note, ""])


def agreement_note(report: AgreementReport) -> str:
    """What the table shows and how it was computed."""
    s = report.settings
    orientation = ", ".join(
        f"{m} {'higher' if d == 'higher' else 'lower' if d == 'lower' else 'farther from 0'}"
        for m, d in report.more_biased.items()
    )
    from experiments.report.summary import plural

    pairs = len(list(combinations(report.systems, 2)))
    return (
        f"Kendall τ-b between the orders from least to most biased that two measures give the {len(report.systems)} "
        f"systems ({plural(pairs, 'pair')} of systems); more biased is {orientation}. τ = 1: the same order, −1: "
        "the reverse. "
        f"Interval: {round(s['level'] * 100)}% percentile bootstrap over the {s['queries']} queries ({s['resamples']} "
        f"resamples, seed {s['seed']}), every measure recomputed on each resample (GSR as Eq. 3's slope). Median "
        "per-query ρ: Spearman's ρ across queries between the two measures' per-query terms, the median over the "
        "systems. Opposite pairs: pairs of systems one measure finds more biased one way and the other the other "
        "way (ties, within rounding, are no verdict); the clearest is the one both measures are farthest from a tie "
        "on, with the queries that push each verdict most."
    )
