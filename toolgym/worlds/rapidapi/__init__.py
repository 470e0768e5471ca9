"""The RapidAPI world of ToolLLM / ToolBench: a catalogue of tools and APIs over a seeded database."""

from toolgym.worlds.rapidapi.world import CallResult, RapidAPIWorld

__all__ = ["CallResult", "RapidAPIWorld"]
