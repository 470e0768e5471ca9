"""Programs of API calls in the SambaNova ToolBench syntax, run by a whitelisting interpreter."""

from toolgym.worlds.api_programs.interpreter import (
    Assignment, Call, Date, Loc, ProgramError, Statement, bind_call, parse_program, run_statement,
)

__all__ = ["Assignment", "Call", "Date", "Loc", "ProgramError", "Statement", "bind_call", "parse_program",
           "run_statement"]
