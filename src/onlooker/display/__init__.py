"""Terminal views of onlooker's state, drawn with rich (imported only when something is drawn).

`observations` renders findings in the config's display styles: progress_bar, table, compact.
"""
