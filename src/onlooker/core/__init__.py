"""The core of the pipeline: events, the session and its slices, triggers, observers, the engine,
assessments and feedback. Standard library only; the curated names are re-exported by `onlooker`.
"""
