"""Kept so hooks installed by earlier versions (`python -I -S .../onlooker/hook/entry.py`) still
run: `entry.py` here runs the client in `onlooker/daemon/`. `onlooker install` writes the new path.
"""
