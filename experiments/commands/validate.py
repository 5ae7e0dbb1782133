"""`gsr validate`: the Fig. 1 stereotype tests, GSR of the toy engines (Figs. 4, 6) and Fig. 5's correlation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gsr.cli.options import (
    add_embedding_options,
    add_overwrite_option,
    analyzer_of,
    check_outputs,
    lexicon_of,
    plot_targets,
)
from gsr.infra.numeric import format_number

FIGURES = ("fig1_stereotypes.png", "fig4_toy1.png", "fig5_parity.png", "fig6_toy2.png")  # --plots' files
STEREOTYPE_DEFINITIONS = ("polarity", "census")  # gsr.validation.toys.STEREOTYPE_DEFINITIONS, the measure unimported


def format_signed(value, digits: int = 4) -> str:
    return format_number(value, digits, sign=True)


def _direction_dict(lexicon) -> dict:
    d = lexicon.direction
    return {"explained_variance": d.explained_variance, "pairs": [list(p) for p in d.pairs]}


def cmd_validate(args) -> int:
    from gsr.validation.stereotypes import PAPER_SPELLINGS, REFERENCE_WORDS, stereotype_tests
    from gsr.validation.toys import parity_agreement, toy1, toy2, toy_slopes

    check_outputs(args, plot_targets(args.plots, FIGURES), args.overwrite)
    if args.plots:
        from gsr.infra.extras import require

        require("plots", "--plots (PNG figures drawn with matplotlib)")
    lexicon = lexicon_of(args)
    analyzer = analyzer_of(args)
    tests = stereotype_tests(lexicon)
    toys = {"toy1": toy1(lexicon), "toy2": toy2(lexicon)}
    slopes = {name: toy_slopes(toy, lexicon, analyzer) for name, toy in toys.items()}
    parity = parity_agreement(toys["toy1"], lexicon, analyzer, stereotype=args.stereotype)
    out: dict[str, Any] = {
        "embedding": str(args.embedding),
        "direction": _direction_dict(lexicon),
        "reference_words": {w: lexicon.get(w) for w in REFERENCE_WORDS},
        "stereotype_tests": [t.to_dict() for t in tests],
    }
    for name, results in slopes.items():
        out[name] = {engine: r.gsr for engine, r in results.items()}
        out[name]["missing_words"] = toys[name].missing
    out["toy1"]["parity_r"] = parity.pearson_r
    out["toy1"]["parity_solutions"] = parity.n_solutions
    out["toy1"]["parity_stereotype"] = parity.stereotype
    out["toy1"]["parity_disagreeing"] = list(parity.disagreeing)
    if args.plots:
        from experiments.report import png_figures as plots

        folder = Path(args.plots)
        out["plots"] = [
            str(p)
            for p in (
                plots.plot_stereotype_tests(tests, out["reference_words"], folder / FIGURES[0]),
                plots.plot_toy_engines(slopes["toy1"], folder / FIGURES[1], "Toy 1: The <person> is a <job>"),
                plots.plot_parity_agreement(parity, folder / FIGURES[2]),
                plots.plot_toy_engines(slopes["toy2"], folder / FIGURES[3], "Toy 2: The <job> is <adjective>"),
            )
        ]
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(
        f"embedding {args.embedding}: gender direction explains {lexicon.direction.explained_variance:.1%} "
        f"of the definitional pairs' variance"
    )
    print("\nStereotype tests (Fig. 1), one-tailed permutation, H1: female set more female than male set")
    print(f"  {'contrast':<18} {'male mean':>10} {'female mean':>12} {'p-value':>10}  missing")
    for t in tests:
        kind = "" if t.exact else " (Monte Carlo)"
        print(
            f"  {t.name:<18} {format_signed(t.male_mean):>10} {format_signed(t.female_mean):>12} {t.p_value:>10.2e}  "
            f"{', '.join(t.missing) or '-'}{kind}"
        )
    for word, meant in PAPER_SPELLINGS.items():
        if any(word in t.missing for t in tests):
            print(f"  {word}: Appendix A's spelling of '{meant}', kept as the paper lists it (docs/paper.md)")
    print("\nToy collections, GSR of the stereotypical (S), neutral (N), counter-stereotypical (CS) engines")
    for name in ("toy1", "toy2"):
        row = "  ".join(f"{e}={format_signed(out[name][e])}" for e in ("S", "N", "CS"))
        print(f"  {name}: {row}")
    definition = "same polarity as g(q)" if parity.stereotype == "polarity" else "the job's census majority"
    print(
        f"\nFig. 5: Pearson r between GSR and share of stereotypical documents = {parity.pearson_r:.3f} "
        f"over all {parity.n_solutions:,} reasonable toy-1 solutions (stereotypical: {definition}; "
        f"g(q) and the census disagree on {', '.join(parity.disagreeing) or 'no job'})"
    )
    for path in out.get("plots", []):
        print(f"wrote {path}")
    return 0


def configure(parser) -> None:
    """The options of `gsr validate`, and the function that runs it."""
    add_embedding_options(parser)
    parser.add_argument("--plots", metavar="DIR", help="also draw Figs. 1, 4, 5 and 6 as PNG files in DIR")
    add_overwrite_option(parser, "--plots' figures")
    parser.add_argument(
        "--stereotype",
        choices=STEREOTYPE_DEFINITIONS,
        default="polarity",
        help="Fig. 5: a retrieved document is stereotypical when its genderedness has the polarity "
        "of g(q) (polarity, §3.5, the default) or when it matches the job's census majority "
        "(census)",
    )
    parser.set_defaults(func=cmd_validate)
