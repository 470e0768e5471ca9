"""Programs of API calls in the SambaNova ToolBench syntax: the toolkit base, ``Loc`` and ``Date``."""

from toolgym.worlds.api_programs.toolkit import API_PROGRAM_BUDGETS, HELPERS, Date, Loc, ProgramToolkit

__all__ = ["API_PROGRAM_BUDGETS", "HELPERS", "Date", "Loc", "ProgramToolkit"]
