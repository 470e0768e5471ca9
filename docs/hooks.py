"""MkDocs hooks: pages written from the code, so that they cannot drift from it.

- ``envs/<id>.md`` gets the env class's docstring (Description, Action Space, Rewards, the
  differences under ``scoring="paper_compat"``, Arguments, Version History) as its reference;
- ``envs/index.md`` lists every registered env with a link to its page;
- ``cli.md`` is the ``toolgym`` command's help, every subcommand's, from its argparse parser.
"""

from __future__ import annotations

import argparse
import inspect

from mkdocs.structure.files import File

import toolgym
from toolgym.eval.cli import build_parser
from toolgym.registry import env_class


def cli_reference() -> str:
    parser = build_parser()
    parts = ["# Command-line reference\n", "Generated from the `toolgym` command's own parser.\n",
             "```text\n" + parser.format_help() + "```\n"]
    _subcommands(parser, "toolgym", parts)
    return "\n".join(parts)


def _subcommands(parser: argparse.ArgumentParser, prefix: str, parts: list[str]) -> None:
    """Each subcommand's help under ``prefix``, then its own subcommands' (``toolgym data check``)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                level = "#" * (prefix.count(" ") + 2)
                parts.append(f"{level} {prefix} {name}\n\n```text\n{sub.format_help()}```\n")
                _subcommands(sub, f"{prefix} {name}", parts)


def env_index() -> str:
    rows = [f"- [{env_id}]({env_id}.md): {_first_line(env_class(env_id))}" for env_id in toolgym.ENV_IDS]
    return "# Environments by id\n\n" + "\n".join(rows) + "\n"


def _first_line(cls: type) -> str:
    return (inspect.getdoc(cls) or "").strip().splitlines()[0] if inspect.getdoc(cls) else cls.__name__


def on_files(files, config):
    for path, content in (("cli.md", cli_reference()), ("envs/index.md", env_index())):
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if src.startswith("envs/") and src != "envs/index.md":
        env_id = src.removeprefix("envs/").removesuffix(".md")
        doc = inspect.getdoc(env_class(env_id)) or ""
        markdown += f"\n\n## Reference: `{env_class(env_id).__name__}`\n\nThe env's docstring.\n\n```text\n{doc}\n```\n"
    return markdown
