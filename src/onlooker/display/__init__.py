"""Terminal views of onlooker's state, drawn with rich (imported only when something is drawn).

`observations` renders findings in seed 000's display styles: progress_bar, table, compact.
"""
