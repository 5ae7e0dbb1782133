"""Study planning (gsr.plan, `gsr plan`): its speed, and its promises checked by simulation at length.

    .venv/bin/python benchmarks/bench_plan.py [--studies 2000] [--repeat 3] [--json PATH] [--skip-validation]

Speed (issue 39's targets): a plan from a 250-topic pilot of two runs (each run's precision and their pair's
detectable difference) with 2,000 resampled studies per n over the 7 default n, against 5 s; choosing 1,000 topics
from a pool of 100,000 synthetic queries (their g(q) under the built-in GloVe, then the selection), against 10 s.

Validation, on topics drawn from a known linear model (gsr.validation.planning.SimulatedTopics; a pilot of 2,000
topics, so that its own error is small): `--studies` fresh studies of the n planned for a half-width of 0.02, each with
gsr score's percentile bootstrap (1,000 resamples): their coverage of the true slope (0.95 ± 0.015 asked) and mean
half-width; `--studies` studies of the n planned for a GSR difference of 0.05 at power 0.8, each with gsr score's
paired randomisation test (1,000 sign vectors): the rejection rate (0.80 ± 0.03 asked). Then, over 20 pilots of 117
topics each, which answer the plan uses when the model holds, under heteroscedastic noise and with a few
high-leverage topics, and how far the resampled and analytic half-widths are apart.

Figures go to stdout; the script measures, it asserts nothing.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from common import best_of, log, write_json

from gsr.planning.planner import plan
from gsr.validation.planning import SimulatedTopics, interval_coverage, rejection_rate

PLAN_BUDGET_S = 5.0
SELECT_BUDGET_S = 10.0
PILOTS = 20
SYSTEMS = 31  # the demo report's
VIEW_BUDGET_S = 1.0  # report.html's How sure view, per measuring embedding: a small part of writing the report


def speed(args, figures: dict) -> None:
    pilot = SimulatedTopics().pilot(250, 0)
    seconds, _ = best_of(args.repeat, lambda: plan(pilot, difference=0.05, resamples=2000))
    one, _ = best_of(args.repeat, lambda: plan({"s0": pilot["s0"]}, resamples=2000))
    print("Speed")
    print(f"  plan, 250-topic pilot, 1 run, 2,000 studies × 8 n       {one:6.2f} s")
    print(
        f"  plan, 250-topic pilot, 2 runs + their pair, 2,000 × 8 n  {seconds:6.2f} s  "
        f"({seconds / PLAN_BUDGET_S:.3f} × the {PLAN_BUDGET_S:g} s target)"
    )
    figures["plan, 250-topic pilot, 2 runs and their pair, 2,000 studies per n, 7 default n"] = {
        "s": seconds,
        "target_s": PLAN_BUDGET_S,
        "ratio": seconds / PLAN_BUDGET_S,
    }
    from common import generate_queries, vocabulary

    from embeddings import load_embedding
    from gsr.lexicon_cache import cached_lexicon
    from gsr.planning.selection import pool_genderedness
    from gsr.text.analyzer import default_analyzer

    analyzer = default_analyzer()
    lexicon = cached_lexicon("glove-6b-50d", None, name="glove-6b-50d")
    queries = generate_queries(
        vocabulary(load_embedding("glove-6b-50d"), 50_000), 100_000, np.random.default_rng(0), analyzer
    )
    genderedness, pool = best_of(args.repeat, lambda: pool_genderedness(queries, lexicon, analyzer))
    choosing, _ = best_of(
        args.repeat, lambda: plan({"s0": pilot["s0"]}, topics=[25], pool=pool, select=1000, resamples=100)
    )
    baseline, _ = best_of(args.repeat, lambda: plan({"s0": pilot["s0"]}, topics=[25], resamples=100))
    selecting = choosing - baseline + genderedness
    print(f"  g(q) of a 100,000-query pool (GloVe 6B 50d)              {genderedness:6.2f} s")
    print(
        f"  choosing 1,000 of them, with their g(q)                  {selecting:6.2f} s  "
        f"({selecting / SELECT_BUDGET_S:.3f} × the {SELECT_BUDGET_S:g} s target)"
    )
    figures["choosing 1,000 topics of a 100,000-query pool, their g(q) included"] = {
        "s": selecting,
        "target_s": SELECT_BUDGET_S,
        "ratio": selecting / SELECT_BUDGET_S,
    }


def report_view(args, figures: dict) -> None:
    """The "How sure" view of report.html (experiments.report.how_sure) for one measuring embedding of a report the
    demo's size: 31 systems of 250 topics, each with a 10,000-resample bootstrap interval; with the view's simulated
    studies and with gsr plan's 2,000."""
    from experiments.report.how_sure import STUDIES, how_sure
    from gsr.results import GSRResult, QueryResult, add_uncertainty

    pilot = SimulatedTopics(slopes=tuple(np.linspace(0.1, 0.4, SYSTEMS))).pilot(250, 0)
    results = {}
    for name, points in pilot.items():
        x, y = np.array([g for g, _ in points.values()]), np.array([l for _, l in points.values()])
        results[name] = GSRResult(float(np.polyfit(x, y, 1)[0]), [QueryResult(q, g, l) for q, (g, l) in points.items()])
        add_uncertainty([results[name]], resamples=10_000)
    seconds, _ = best_of(args.repeat, lambda: how_sure(results, 0.95, 0))
    full, _ = best_of(args.repeat, lambda: how_sure(results, 0.95, 0, studies=2000))
    print(
        f"  report's How sure view, {SYSTEMS} systems × 250 topics, {STUDIES} studies × 8 n  {seconds:6.2f} s  "
        f"({seconds / VIEW_BUDGET_S:.3f} × the {VIEW_BUDGET_S:g} s target); with 2,000 studies {full:.2f} s"
    )
    figures[f"report.html's How sure view, {SYSTEMS} systems of 250 topics, one measuring embedding"] = {
        "s": seconds,
        "target_s": VIEW_BUDGET_S,
        "ratio": seconds / VIEW_BUDGET_S,
    }


def validation(args, validated: dict) -> None:
    topics = SimulatedTopics()
    studies = args.studies
    result = plan(topics.pilot(2000, 1), target_width=0.02, difference=0.05, resamples=2000)
    n_width, n_power = result.runs["s0"].n_for_target_width, result.pairs[0].n_for_difference
    log(f"{studies} studies of {n_width} topics, each bootstrapped")
    coverage, width = interval_coverage(topics, n_width, studies, 1000, 0.95, seed=2)
    log(f"{studies} studies of {n_power} topics, each tested")
    rate = rejection_rate(topics, n_power, studies, 1000, 0.05, seed=3)
    binomial = math.sqrt(0.95 * 0.05 / studies), math.sqrt(0.8 * 0.2 / studies)
    print(f"\nValidation by simulation ({studies:,} studies each; pilot of 2,000 topics)")
    print(
        f"  half-width 0.02 planned: n = {n_width}; coverage {coverage:.4f} (asked 0.95 ± 0.015; binomial SE "
        f"{binomial[0]:.4f}); mean half-width {width:.5f} ({width / 0.02 - 1:+.1%} of the target)"
    )
    print(
        f"  GSR difference 0.05 at power 0.8 planned: n = {n_power}; rejection rate {rate:.4f} (asked 0.80 ± 0.03; "
        f"binomial SE {binomial[1]:.4f})"
    )
    validated.update(
        {
            "n_for_width": n_width,
            "coverage": coverage,
            "mean_half_width": width,
            "n_for_difference": n_power,
            "rejection_rate": rate,
            "studies": studies,
        }
    )
    cases = {
        "the model (normal g(q), equal noise)": topics,
        "heteroscedastic noise (σ ∝ |g(q)|)": SimulatedTopics(heteroscedastic=True),
        "3% of topics at 10 spreads (high leverage)": SimulatedTopics(outlier_share=0.03, outlier_at=10),
    }
    print(f"\nWhich half-width answers, over {PILOTS} pilots of 117 topics (2,000 studies per n)")
    for name, population in cases.items():
        methods, gaps, moves = [], [], []
        for seed in range(PILOTS):
            run = plan(population.pilot(117, 100 + seed), resamples=2000).runs["s0"]
            methods.append(run.method)
            ratios = {n: run.half_width[n] / run.half_width_analytic[n] for n in run.half_width}
            gaps += [abs(r - 1) for r in ratios.values()]
            moves.append(max(abs(r / ratios[117] - 1) for r in ratios.values()))
        resampled = methods.count("resampled")
        print(
            f"  {name:<44} resampled in {resampled:>2} of {PILOTS}; |resampled / analytic − 1|: median "
            f"{np.median(gaps):.3f}, max {max(gaps):.3f}; largest move of the ratio from the pilot's n: "
            f"{max(moves):.3f}"
        )
        validated[f"resampled answers: {name}"] = {"share": resampled / PILOTS, "median_gap": float(np.median(gaps))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=2000, help="simulated studies of the validation (2000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed repeats, best kept (3)")
    parser.add_argument("--skip-validation", action="store_true", help="the speed figures only")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    args = parser.parse_args()
    figures: dict = {}
    validated: dict = {}
    speed(args, figures)
    report_view(args, figures)
    if not args.skip_validation:
        validation(args, validated)
    if args.json:  # "figures" in benchmarks/table.py's layout; the simulation's results beside them
        write_json({"benchmark": "plan", "figures": figures, "validation": validated}, args.json)


if __name__ == "__main__":
    main()
