"""``retrieval-eval action``: run as the GitHub Action (action.yml passes this subcommand).

Reads INPUT_* and GITHUB_* from the environment, like any step of a workflow,
so it also runs outside the container: ``INPUT_JUDGMENTS=... retrieval-eval action``.
"""

from __future__ import annotations

import click

from ..action.main import main


@click.command(context_settings={"ignore_unknown_options": False})
def command() -> None:
    """Run as the GitHub Action: inputs come from INPUT_<NAME> variables.

    Exit code 0 on PASS, 1 on FAIL or INDETERMINATE, 2 when the inputs cannot
    be read. See docs/action.md for the inputs and outputs.
    """

    raise SystemExit(main())
