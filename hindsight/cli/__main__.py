"""`python -m hindsight.cli`, the same as the `hindsight` command."""

from .main import main

main()
