"""Terminal views of onlooker's state, drawn with rich (imported only when something is drawn).

`observations` renders findings in the config's display styles: progress_bar, table, compact.
"""

SEVERITY_STYLE = {
    "critical": "bold red",
    "high": "red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}
"""The rich style each severity is drawn in, wherever findings or assessments are shown."""
