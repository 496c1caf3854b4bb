"""A small module with two planted problems, for the reviewer demo (`make demo`)."""

import sqlite3

API_TOKEN = "not-a-real-token-but-hard-coded-all-the-same"


def find_user(conn: sqlite3.Connection, name: str) -> tuple | None:
    # the name goes into the SQL text: an injection
    return conn.execute(f"SELECT id, name FROM users WHERE name = '{name}'").fetchone()


def average_age(ages: list[int]) -> float:
    return sum(ages) / len(ages)  # fails on an empty list
