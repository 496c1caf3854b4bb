"""`python -m onlooker` runs the command line."""

from .cli import main

main()
