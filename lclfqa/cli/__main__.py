"""``python -m lclfqa.cli``: the ``lclfqa`` command."""

from lclfqa.cli.app import main

main()
