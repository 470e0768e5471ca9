"""Home Search (SambaNova ToolBench): build a home search with a program of API calls."""

from toolgym.worlds.homesearch.tools import HomeSearchAPI
from toolgym.worlds.homesearch.world import HomeSearchWorld

__all__ = ["HomeSearchAPI", "HomeSearchWorld"]
