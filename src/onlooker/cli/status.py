"""`onlooker status`: the current project's observations in the configured display style.

Styles are the config's: progress_bar (default), table, compact; `--json` prints the counts and the
unresolved observations instead. When observers ran (LLM reviewers), their runs, tokens and cost
follow, per observer and in total; then the compliance verifier's verdicts.
"""

from __future__ import annotations

import click

from ..display.observations import STYLES, render
from ..store import UNRESOLVED, VERDICTS, ComplianceVerdict, FindingQuery
from ..store._runs import ObserverCost
from ..store.identity import display_name
from .memory_model import describe, memory_model
from .store_options import current_project, open_store, print_json, project_display

VERDICTS_SHOWN = 10
"""Latest compliance verdicts shown."""


@click.command(name="status")
@click.option(
    "--style",
    type=click.Choice(STYLES),
    default=None,
    help="progress_bar: addressed/total with counts by severity and observer; table: the "
    "unresolved observations; compact: one line. Default: the project config's display style "
    "(hooks-observations-display), else progress_bar.",
)
@click.option("--project", default=None, metavar="NAME", help="Default: the current directory's.")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Rows in the table style.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print counts and observations as JSON.")
def command(style: str | None, project: str | None, limit: int, as_json: bool) -> None:
    """Show the observations of the current project (or --project)."""
    name = current_project(project)
    with open_store() as store:
        counts = store.query(FindingQuery(project=name, limit=0))
        rows = store.query(FindingQuery(project=name, statuses=UNRESOLVED, limit=limit))
        costs = store.runs.costs(name)
        verdicts = store.effects.verdicts(name)[-VERDICTS_SHOWN:]
        verdict_counts = store.effects.verdict_counts(name)
        memory = memory_model(store)
    if as_json:
        print_json(
            {
                "project": name,
                "project_name": display_name(name),
                "count": counts.count,
                "by_status": counts.by("status"),
                "by_severity": counts.by("severity"),
                "by_observer": counts.by("observer"),
                "observations": [o.to_dict() for o in rows.observations],
                "observer_runs": [_cost_data(c) for c in costs],
                "observer_totals": _totals(costs),
                "compliance": {
                    "by_verdict": verdict_counts,
                    "latest": [v.listing() for v in verdicts],
                },
                "memory_model": memory,
            }
        )
        return
    from rich.console import Console

    console = Console(highlight=False)
    console.print(
        render(
            style or project_display().style,
            display_name(name),
            counts,
            rows.observations,
            expand=console.is_terminal,
        )
    )
    if costs:
        console.print(_cost_text(costs), markup=False)
    if verdicts:
        console.print(_verdict_text(verdict_counts, verdicts), markup=False)
    if memory["source"] != "none" or memory["calls"] or any(memory["over_budget"].values()):
        console.print("Memory model: " + "\n  ".join(describe(memory)), markup=False)


def _verdict_text(counts: dict[str, int], verdicts: list[ComplianceVerdict]) -> str:
    """The compliance verifier's verdicts: counts, then the latest, one line each."""
    total = ", ".join(f"{counts.get(v, 0)} {v}" for v in VERDICTS)
    lines = [f"Compliance verdicts: {total}"]
    for v in verdicts:
        agent = v.agent_type + (f" {v.agent_id}" if v.agent_id else "")
        lacking = f": missing {'; '.join(v.missing)}" if v.missing else ""
        lines.append(f"  {v.verdict:<8} {agent} (stop {v.attempt}){lacking}")
    return "\n".join(lines)


def _cost_data(cost: ObserverCost) -> dict[str, object]:
    return {
        "observer": cost.observer,
        "runs": cost.runs,
        "by_status": cost.by_status,
        "input_tokens": cost.input_tokens,
        "output_tokens": cost.output_tokens,
        "cost_usd": cost.cost_usd,
        "seconds": round(cost.seconds, 3),
        "models": list(cost.models),
    }


def _total(costs: list[ObserverCost]) -> ObserverCost:
    known = [c.cost_usd for c in costs if c.cost_usd is not None]
    return ObserverCost(
        observer="total",
        runs=sum(c.runs for c in costs),
        by_status={},
        input_tokens=sum(c.input_tokens for c in costs),
        output_tokens=sum(c.output_tokens for c in costs),
        cost_usd=sum(known) if known else None,
        seconds=sum(c.seconds for c in costs),
        models=(),
    )


def _totals(costs: list[ObserverCost]) -> dict[str, object]:
    total = _cost_data(_total(costs))
    return {k: total[k] for k in ("runs", "input_tokens", "output_tokens", "cost_usd", "seconds")}


def _cost_text(costs: list[ObserverCost]) -> str:
    """Observer runs and cost, one line per observer and a total."""
    rows = [*costs, _total(costs)]
    width = max(len(c.observer) for c in rows)
    lines = ["Observer runs and cost"]
    for c in rows:
        detail = "".join(f", {n} {s}" for s, n in sorted(c.by_status.items()) if s != "ok")
        money = f"${c.cost_usd:.4f}" if c.cost_usd is not None else "cost unknown"
        lines.append(
            f"  {c.observer.ljust(width)}  {c.runs:>5} runs{detail}  {c.input_tokens:>9,} in  "
            f"{c.output_tokens:>8,} out  {money}"
        )
    return "\n".join(lines)
