"""GoogleSheets-v0: ToolBench's Google Sheets programs."""

from toolgym.envs.google_sheets.env import GoogleSheetsEnv

__all__ = ["GoogleSheetsEnv"]
